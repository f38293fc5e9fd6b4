// SPDX-License-Identifier: GPL-2.0
/*
 * Suite zsmalloc_mod_alloc: allocation and mapping of every size (a
 * parameterised case over the pool's class boundaries), the chain length
 * of each class, objects straddling two pages modified in place, unique
 * handles and slots, statistics across many classes, invalid sizes, and
 * -ENOMEM at every allocation point through fault injection, and the
 * zsmod_malloc_fail tracepoint on each failure.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "helpers.h"
#include "../zsmalloc_mod_trace.h"

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

struct size_param {
	size_t size;
	char what[40];
};

#define MAX_SIZE_PARAMS (2 * MAX_CLASSES + 3)
static struct size_param *size_params;
static unsigned int nr_size_params;

static int size_param_cmp(const void *a, const void *b)
{
	const struct size_param *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

/* @what, followed by " @class" unless @class is negative */
static void add_size(size_t size, size_t max, const char *what, int class)
{
	struct size_param *p;

	if (!size || size > max || nr_size_params == MAX_SIZE_PARAMS)
		return;
	p = &size_params[nr_size_params++];
	p->size = size;
	if (class >= 0)
		snprintf(p->what, sizeof(p->what), "%s %d", what, class);
	else
		strscpy(p->what, what, sizeof(p->what));
}

/* Build the parameter list from a scratch pool's class table. */
static int alloc_suite_init(struct kunit_suite *suite)
{
	struct zsmod_pool *pool;
	struct tclass *tab;
	size_t max = zsmod_max_alloc_size(), huge;
	unsigned int i, j;
	int n;

	size_params = kcalloc(MAX_SIZE_PARAMS, sizeof(*size_params), GFP_KERNEL);
	tab = kcalloc(MAX_CLASSES, sizeof(*tab), GFP_KERNEL);
	if (!size_params || !tab)
		goto fail;
	pool = zsmod_create_pool("kunit-params");
	if (IS_ERR_OR_NULL(pool))
		goto fail;
	n = class_table(pool, tab);
	huge = zsmod_huge_class_size(pool);
	zsmod_destroy_pool(pool);
	if (n <= 0) {
		pr_err("zsmalloc_mod_kunit: no size classes (%d)\n", n);
		goto fail;
	}

	nr_size_params = 0;
	for (i = 0; i < n; i++) {
		if (!tab[i].min || tab[i].min > tab[i].max ||
		    (i && tab[i].min != tab[i - 1].max + 1)) {
			pr_err("zsmalloc_mod_kunit: class %u serves sizes %u..%u after %u..%u\n",
			       tab[i].class_idx, tab[i].min, tab[i].max,
			       i ? tab[i - 1].min : 0, i ? tab[i - 1].max : 0);
			goto fail;
		}
		add_size(tab[i].min, max, "first of class", tab[i].class_idx);
		add_size(tab[i].max, max, "last of class", tab[i].class_idx);
	}
	if (tab[0].min != 1 || tab[n - 1].max != max) {
		pr_err("zsmalloc_mod_kunit: classes serve %u..%u, not 1..%zu\n",
		       tab[0].min, tab[n - 1].max, max);
		goto fail;
	}
	add_size(huge - 1, max, "below huge threshold", -1);
	add_size(huge, max, "huge threshold", -1);
	add_size(max, max, "maximum", -1);
	sort(size_params, nr_size_params, sizeof(*size_params), size_param_cmp, NULL);
	/* one entry per size, names joined */
	for (i = 0, j = 0; i < nr_size_params; i++) {
		if (j && size_params[j - 1].size == size_params[i].size) {
			struct size_param *d = &size_params[j - 1];
			char more[sizeof(d->what)];
			size_t l = strlen(d->what);

			strscpy(more, size_params[i].what, sizeof(more));
			snprintf(d->what + l, sizeof(d->what) - l, ", %s", more);
			continue;
		}
		size_params[j++] = size_params[i];
	}
	nr_size_params = j;
	kfree(tab);
	pr_info("zsmalloc_mod_kunit: %d classes, %u sizes, huge threshold %zu, max %zu\n",
		n, nr_size_params, huge, max);
	return 0;
fail:
	kfree(tab);
	kfree(size_params);
	size_params = NULL;
	nr_size_params = 0;
	return -EINVAL;
}

static void alloc_suite_exit(struct kunit_suite *suite)
{
	kfree(size_params);
	size_params = NULL;
	nr_size_params = 0;
}

static const void *size_gen(const void *prev, char *desc)
{
	const struct size_param *p = prev;

	if (!size_params)
		return NULL;
	p = p ? p + 1 : size_params;
	if (p >= size_params + nr_size_params)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "size %zu (%s)", p->size, p->what);
	return p;
}

/*
 * Measured geometry against the rule design.rst ("Chain length") states:
 * no chain of 1 to ZSMOD_MAX_PAGES_PER_ZSPAGE pages wastes fewer bytes per page than a zspage of
 * @pages pages holding @objs objects of @size bytes, as counted from the
 * pages objects landed on; ties go to the shorter chain.
 */
static bool chain_is_best(unsigned int size, unsigned int pages, unsigned int objs)
{
	unsigned int waste = pages * PAGE_SIZE - objs * size, n;

	for (n = 1; n <= ZSMOD_MAX_PAGES_PER_ZSPAGE; n++) {
		unsigned int w = (n * PAGE_SIZE) % size;

		/* w / n < waste / pages, or as good and shorter */
		if (w * pages < waste * n || (w * pages == waste * n && n < pages))
			return false;
	}
	return true;
}

/*
 * One size: fill two zspages and one more object; every object written
 * write-only, read back read-only; objects straddling pages are among
 * them when the geometry has any; locations are unique and agree with the
 * zspage's page list; stats match; freeing and destroying return every page.
 */
static void test_alloc_size(struct kunit *test)
{
	const struct size_param *p = test->param_value;
	struct tpool *tp;
	const struct tclass *c;
	unsigned long pfns[MAX_PFNS], pfn, first_pfn = 0;
	unsigned long *keys;
	unsigned int i, oi, n, spanned = 0, first_zspage = 0;
	struct zsmod_class_info info;
	int np, idx;

	KUNIT_ASSERT_NOT_NULL(test, p);
	tp = tpool_create(test, 4096);
	alloc_find_class(tp, p->size, GFP_KERNEL, &c);
	KUNIT_EXPECT_GE_MSG(test, p->size, (size_t)c->min, "class %u serves %u..%u",
			    c->class_idx, c->min, c->max);
	KUNIT_EXPECT_LE_MSG(test, p->size, (size_t)c->max, "class %u serves %u..%u",
			    c->class_idx, c->min, c->max);
	KUNIT_ASSERT_GT(test, c->opz, 0U);
	KUNIT_ASSERT_GT(test, c->ppz, 0U);
	if (c->huge)
		KUNIT_EXPECT_GE(test, p->size, zsmod_huge_class_size(tp->pool));
	else
		KUNIT_EXPECT_LT(test, p->size, zsmod_huge_class_size(tp->pool));

	n = min(2 * c->opz + 1, tp->cap);
	for (i = 1; i < n; i++) {
		idx = tpool_alloc(tp, p->size, GFP_KERNEL);
		KUNIT_ASSERT_GE_MSG(test, idx, 0, "object %u: %d", i, idx);
	}
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);

	keys = kunit_kcalloc(test, n, sizeof(*keys), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < n; i++) {
		unsigned long off;

		KUNIT_ASSERT_EQ(test, 0, zsmod_handle_location(tp->pool, tp->h[i], &pfn, &oi));
		KUNIT_EXPECT_LT(test, oi, c->opz);
		np = zspage_pfns(tp, i, pfns);
		KUNIT_ASSERT_EQ_MSG(test, np, (int)c->ppz, "zspage page count of object %u", i);
		off = (unsigned long)oi * c->size;
		KUNIT_ASSERT_LT(test, off / PAGE_SIZE, (unsigned long)np);
		KUNIT_EXPECT_EQ_MSG(test, pfns[off / PAGE_SIZE], pfn,
				    "object %u idx %u: location pfn is not page %lu of its zspage",
				    i, oi, off / PAGE_SIZE);
		if (off % PAGE_SIZE + c->size > PAGE_SIZE)
			spanned++;
		keys[i] = pfn * 65536 + oi;
		/* objects in the zspage object 0 opened, which fills first */
		if (!i)
			first_pfn = pfns[0];
		if (pfns[0] == first_pfn)
			first_zspage++;
	}
	sort(keys, n, sizeof(*keys), cmp_ulong, NULL);
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_NE_MSG(test, keys[i], keys[i - 1], "two objects share a slot");
	if (class_spans(c))
		KUNIT_EXPECT_GT_MSG(test, spanned, 0U,
				    "class %u spans pages but no object did", c->size);
	/* the geometry, counted from where objects landed */
	KUNIT_EXPECT_EQ_MSG(test, first_zspage, c->opz,
			    "class %u: objects counted in a full zspage", c->size);
	KUNIT_EXPECT_LE_MSG(test, (unsigned long)first_zspage * c->size, c->ppz * PAGE_SIZE,
			    "class %u: more objects than bytes", c->size);
	KUNIT_EXPECT_GT_MSG(test, (unsigned long)(first_zspage + 1) * c->size, c->ppz * PAGE_SIZE,
			    "class %u: a full zspage with room for one more", c->size);
	KUNIT_EXPECT_TRUE_MSG(test, chain_is_best(c->size, c->ppz, first_zspage),
			      "class %u: %u pages, %u objects: another chain wastes less",
			      c->size, c->ppz, first_zspage);

	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, c->arg, &info));
	KUNIT_EXPECT_EQ(test, info.objs_used, (unsigned long)n);
	KUNIT_EXPECT_EQ(test, info.zspages, (unsigned long)DIV_ROUND_UP(n, c->opz));
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Objects that straddle two pages, modified in place through a read-write
 * mapping: in a zspage of physically contiguous pages (mapped in place) and
 * in one whose contiguous allocation was made to fail (copied through the
 * per-CPU buffer), bytes on both sides of the boundary.
 */
static void test_span_rw(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 2, true);
	unsigned int __maybe_unused first, left, i;
	int __maybe_unused idx;

	KUNIT_ASSERT_NOT_NULL_MSG(test, c,
				  "no class with multi-page zspages whose objects straddle pages");
	c = fill_zspages(tp, len_for_class(c), GFP_KERNEL, 1);
	KUNIT_ASSERT_TRUE(test, class_spans(c));
	kunit_info(test, "class %u, %u pages: contiguous %d\n", c->size, c->ppz,
		   pfns_consecutive(tp, 0));
	KUNIT_EXPECT_GT(test, span_rw_zspage(tp, c, 0), 0U);

#ifdef HAVE_FI
	/*
	 * Only allocations of order >= 1 without direct reclaim count as
	 * fault points now: the zspage's contiguous block is the first, and
	 * failing it leaves the pages to come one by one.
	 */
	fi_setup(test);
	fi_page_filter(test, 1, true);
	first = tp->n;
	set_fail_nth(1);
	idx = tpool_alloc(tp, len_for_class(c), GFP_KERNEL);
	left = get_fail_nth();
	set_fail_nth(0);
	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_EXPECT_EQ_MSG(test, left, 0U, "no contiguous allocation was tried");
	for (i = 1; i < c->opz; i++)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, len_for_class(c), GFP_KERNEL), 0);
	kunit_info(test, "with the contiguous block refused: contiguous %d\n",
		   pfns_consecutive(tp, first));
	KUNIT_EXPECT_GT(test, span_rw_zspage(tp, c, first), 0U);
#endif
	/* neighbours untouched */
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/* Thousands of live objects of mixed sizes: distinct handles and slots. */
static void test_handle_uniqueness(struct kunit *test)
{
	const unsigned int n = 4096;
	struct tpool *tp = tpool_create(test, n);
	size_t max = zsmod_max_alloc_size();
	unsigned long *hs, *keys, pfn;
	unsigned int i, oi;
	int idx;

	hs = kunit_kcalloc(test, n, sizeof(*hs), GFP_KERNEL);
	keys = kunit_kcalloc(test, n, sizeof(*keys), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, hs);
	KUNIT_ASSERT_NOT_NULL(test, keys);
	for (i = 0; i < n; i++) {
		idx = tpool_alloc(tp, 1 + (i * 977UL) % max, GFP_KERNEL);
		KUNIT_ASSERT_GE_MSG(test, idx, 0, "object %u", i);
	}
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_NE(test, tp->h[i], 0UL);
		hs[i] = tp->h[i];
		KUNIT_ASSERT_EQ(test, 0, zsmod_handle_location(tp->pool, tp->h[i], &pfn, &oi));
		keys[i] = pfn * 65536 + oi;
	}
	sort(hs, n, sizeof(*hs), cmp_ulong, NULL);
	sort(keys, n, sizeof(*keys), cmp_ulong, NULL);
	for (i = 1; i < n; i++) {
		KUNIT_EXPECT_NE_MSG(test, hs[i], hs[i - 1], "duplicate handle");
		KUNIT_EXPECT_NE_MSG(test, keys[i], keys[i - 1], "two handles, one slot");
	}
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	/* free a third, check the rest, then everything */
	for (i = 0; i < n; i += 3)
		tpool_free(tp, i);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Size 0: -EINVAL; sizes above the maximum: -ENOSPC, as zs_malloc() (zswap
 * counts that as poor compression). Nothing allocated either way.
 */
static void test_invalid_sizes(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 16);
	size_t max = zsmod_max_alloc_size();
	const size_t bad[] = { 0, max + 1, 2 * PAGE_SIZE, SIZE_MAX, SIZE_MAX - 7 };
	unsigned long handle;
	unsigned int i;
	int idx;

	KUNIT_EXPECT_GE(test, max, (size_t)PAGE_SIZE / 2);
	KUNIT_EXPECT_LE(test, max, (size_t)PAGE_SIZE);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		handle = 0;
		KUNIT_EXPECT_EQ_MSG(test, zsmod_malloc(tp->pool, bad[i], GFP_KERNEL, &handle),
				    bad[i] ? -ENOSPC : -EINVAL, "size %zu", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, handle, 0UL, "size %zu set a handle", bad[i]);
	}
	expect_consistent(tp);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), 0UL);
	/* the largest valid size works */
	idx = tpool_alloc(tp, max, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_EXPECT_EQ(test, tpool_check(tp, idx), -1L);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/* Objects in many classes at once: the per-class counters add up. */
static void test_stats_many_classes(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	unsigned int i, k;
	int idx;

	for (k = 0; k < tp->ntab; k += 3) {
		unsigned int cnt = 1 + k % 7;

		for (i = 0; i < cnt; i++) {
			idx = tpool_alloc(tp, max_t(unsigned int, tp->tab[k].size / 2, 1),
					  GFP_KERNEL);
			KUNIT_ASSERT_GE(test, idx, 0);
		}
	}
	expect_consistent(tp);
	for (i = 0; i < tp->n; i += 2)
		tpool_free(tp, i);
	expect_consistent(tp);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	free_destroy_check(tp);
}

/*
 * After freeing what a call allocated: wait (bounded) until the pool is
 * back to @pages pages and NR_ZSPAGES to @zspages, since an empty zspage
 * whose page is locked at that moment is freed later by a worker, and a
 * queued free that the drain worker runs detaches the zspage (the pool's
 * count) before it gives the pages back (NR_ZSPAGES). Returns true if it
 * got there.
 */
static bool settle_pages(struct tpool *tp, unsigned long pages,
			 unsigned long zspages)
{
	unsigned long deadline = jiffies + HZ;

	while (zsmod_get_total_pages(tp->pool) != pages ||
	       nr_zspages() != zspages) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(5000, 10000);
	}
	return true;
}

/*
 * Injected allocation failures: the Nth fault point of zsmod_malloc (page
 * or slab allocation, fail_nth) fails, for N = 1, 2, ... until a call gets
 * through without reaching its Nth point. Every failure must be -ENOMEM and
 * leave the counters and NR_ZSPAGES as they were.
 */
static unsigned int enomem_walk(struct kunit *test, struct tpool *tp, size_t len,
				gfp_t gfp, unsigned int min_failures)
{
	struct zsmod_pool_stats before, after;
	unsigned long zsp, handle;
	unsigned int nth, failures = 0, tolerated = 0, left;
	bool through = false;
	int ret;

	for (nth = 1; nth <= 64; nth++) {
		zsmod_pool_stats(tp->pool, &before);
		zsp = nr_zspages();
		handle = 0;
		set_fail_nth(nth);
		ret = zsmod_malloc(tp->pool, len, gfp, &handle);
		left = get_fail_nth();
		set_fail_nth(0);
		if (!ret) {
			KUNIT_EXPECT_NE(test, handle, 0UL);
			if (handle)
				zsmod_free(tp->pool, handle);
			KUNIT_EXPECT_TRUE_MSG(test, settle_pages(tp, before.pages_used, zsp),
					      "len %zu: freeing the only object kept its zspage",
					      len);
			if (left) {
				through = true;
				break;
			}
			/* a failure with a fallback (contiguous pages, stack depot) */
			tolerated++;
			continue;
		}
		failures++;
		KUNIT_EXPECT_EQ_MSG(test, ret, -ENOMEM, "len %zu, fault point %u", len, nth);
		zsmod_pool_stats(tp->pool, &after);
		KUNIT_EXPECT_EQ_MSG(test, after.pages_used, before.pages_used,
				    "len %zu, fault point %u leaked pages", len, nth);
		KUNIT_EXPECT_EQ_MSG(test, after.objs_used, before.objs_used,
				    "len %zu, fault point %u", len, nth);
		KUNIT_EXPECT_EQ_MSG(test, after.objs_allocated, before.objs_allocated,
				    "len %zu, fault point %u", len, nth);
		KUNIT_EXPECT_EQ_MSG(test, nr_zspages(), zsp,
				    "len %zu, fault point %u: NR_ZSPAGES changed", len, nth);
	}
	KUNIT_EXPECT_TRUE_MSG(test, through, "len %zu: still failing after 64 fault points", len);
	KUNIT_EXPECT_GE_MSG(test, failures + tolerated, min_failures,
			    "len %zu: injected failures never reached zsmod_malloc", len);
	kunit_info(test, "len %zu gfp %pGg: %u injected failures gave -ENOMEM, all clean; %u had a fallback\n",
		   len, &gfp, failures, tolerated);
	return failures;
}

/*
 * The k-th page of a new zspage cannot be had, k = 0 .. pages_per_zspage-1:
 * fail_page_alloc at probability 100 for this task, with "space" letting k
 * order-0 pages through (and failing any contiguous multi-page attempt,
 * which needs more space than that). Every call must fail with -ENOMEM and
 * return the pages it got; with enough space a call succeeds.
 */
static void enomem_kth_page(struct kunit *test, struct tpool *tp, size_t len, gfp_t gfp,
			    unsigned int ppz)
{
	struct zsmod_pool_stats before, after;
	unsigned long zsp, handle;
	unsigned int k;
	bool through = false;
	int ret;

	for (k = 0; k < ppz + 8 && !through; k++) {
		zsmod_pool_stats(tp->pool, &before);
		zsp = nr_zspages();
		handle = 0;
		fi_fail_pages(k + 1);
		ret = zsmod_malloc(tp->pool, len, gfp, &handle);
		fi_fail_pages_end();
		if (!ret) {
			zsmod_pool_stats(tp->pool, &after);
			KUNIT_EXPECT_GE_MSG(test, k, ppz,
					    "len %zu: a zspage of %u pages with only %u pages to be had (pages %lu -> %lu, objs %lu/%lu -> %lu/%lu)",
					    len, ppz, k, before.pages_used, after.pages_used,
					    before.objs_used, before.objs_allocated,
					    after.objs_used, after.objs_allocated);
			zsmod_free(tp->pool, handle);
			KUNIT_EXPECT_TRUE_MSG(test, settle_pages(tp, before.pages_used, zsp),
					      "len %zu: freeing the only object kept its zspage",
					      len);
			through = true;
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, ret, -ENOMEM, "len %zu, page %u", len, k);
		zsmod_pool_stats(tp->pool, &after);
		KUNIT_EXPECT_EQ_MSG(test, after.pages_used, before.pages_used,
				    "len %zu, page %u failing leaked pages", len, k);
		KUNIT_EXPECT_EQ_MSG(test, after.objs_used, before.objs_used, "len %zu", len);
		KUNIT_EXPECT_EQ_MSG(test, after.objs_allocated, before.objs_allocated,
				    "len %zu", len);
		KUNIT_EXPECT_EQ_MSG(test, nr_zspages(), zsp,
				    "len %zu, page %u failing: NR_ZSPAGES changed", len, k);
	}
	KUNIT_EXPECT_TRUE_MSG(test, through, "len %zu: never succeeded", len);
}

static void test_alloc_enomem(struct kunit *test)
{
	struct tpool *tp;
	const struct tclass *multi, *huge;
	unsigned int failures = 0;
	size_t multi_len;
	int idx;

	NEED_FI(test);
	fi_setup(test);
	tp = tpool_create(test, 64);
	multi = pick_class_sized(tp, 3, false, 64);
	huge = huge_class(tp);
	KUNIT_ASSERT_NOT_NULL(test, multi);
	KUNIT_ASSERT_NOT_NULL(test, huge);
	multi_len = len_for_class(multi);

	/* an empty pool: each call needs a whole new zspage; every fault
	 * point zsmod_malloc passes through, failed in turn
	 */
	failures += enomem_walk(test, tp, 64, GFP_KERNEL | __GFP_NOWARN, 1);
	failures += enomem_walk(test, tp, multi_len, GFP_KERNEL | __GFP_NOWARN, 1);
	failures += enomem_walk(test, tp, zsmod_max_alloc_size(), GFP_KERNEL | __GFP_NOWARN, 1);
	/* zswap's gfp (no direct reclaim): slab allocations fail too */
	failures += enomem_walk(test, tp, multi_len, ZSWAP_GFP, 1);
	KUNIT_EXPECT_GT_MSG(test, failures, 0U, "no injected failure made zsmod_malloc fail");
	expect_consistent(tp);
	expect_no_stray_pages(test, tp->base_stray, "after failing at every fault point");

	/* the k-th page of a zspage missing (the slab caches are warm) */
	enomem_kth_page(test, tp, multi_len, GFP_KERNEL | __GFP_NOWARN, multi->ppz);
	enomem_kth_page(test, tp, multi_len, MOVABLE_GFP | __GFP_NOWARN, multi->ppz);
	enomem_kth_page(test, tp, zsmod_max_alloc_size(), GFP_KERNEL | __GFP_NOWARN, 1);
	expect_consistent(tp);
	expect_no_stray_pages(test, tp->base_stray, "after failing the k-th page");

	/* with live objects around (small classes may borrow free slots of
	 * slightly larger classes: keep the live ones where nothing borrows)
	 */
	idx = tpool_alloc(tp, 1, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, idx, 0);
	idx = tpool_alloc(tp, zsmod_max_alloc_size(), GFP_KERNEL);
	KUNIT_ASSERT_GE(test, idx, 0);
	enomem_walk(test, tp, multi_len, MOVABLE_GFP | __GFP_NOWARN, 1);
	enomem_kth_page(test, tp, multi_len, MOVABLE_GFP | __GFP_NOWARN, multi->ppz);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Object locations at their limits: every class and index a pool can
 * have, with pfns up to the largest that 5-level paging can address
 * (MAX_POSSIBLE_PHYSMEM_BITS, the kernel's own bound, not ours), decode
 * to what was encoded, and never look like a free slot or a queued free;
 * the pin of each is never 0, which a map area reads as "no pin".
 */
static void test_location_limits(struct kunit *test)
{
	const unsigned long max_pfn = (1UL << (MAX_POSSIBLE_PHYSMEM_BITS - PAGE_SHIFT)) - 1;
	const unsigned long pfns[] = {
		0, 1, 0x12345, max_pfn >> 1, (max_pfn >> 1) + 1, max_pfn - 1, max_pfn,
	};
	unsigned int k, n, i, c, idx, cls, bad = 0, nr = 0;
	struct tpool *tp = tpool_create(test, 1);
	struct zsmod_class_info info;
	unsigned long pfn, obj;

	n = zsmod_class_count(tp->pool);
	KUNIT_ASSERT_GT(test, n, 0U);
	for (c = 0; c < n; c++) {
		KUNIT_ASSERT_EQ(test, zsmod_class_info(tp->pool, c, &info), 0);
		for (k = 0; k < ARRAY_SIZE(pfns); k++) {
			for (i = 0; i < info.objs_per_zspage; i++) {
				obj = zsmod_kunit_obj_encode(pfns[k], i, info.class_idx);
				nr++;
				/* a pin of any location, pfn 0's included, is a pin */
				if (!zsmod_kunit_pin_word(obj) ||
				    zsmod_kunit_pinned_obj(zsmod_kunit_pin_word(obj)) != obj) {
					if (bad++ < 5)
						KUNIT_FAIL(test, "location %#lx pins as %#lx",
							   obj, zsmod_kunit_pin_word(obj));
					continue;
				}
				if (zsmod_kunit_obj_decode(obj, &pfn, &idx, &cls) &&
				    pfn == pfns[k] && idx == i && cls == info.class_idx)
					continue;
				if (bad++ < 5)
					KUNIT_FAIL(test,
						   "pfn %#lx class %u index %u -> %#lx -> pfn %#lx class %u index %u",
						   pfns[k], info.class_idx, i, obj, pfn, cls,
						   idx);
			}
		}
	}
	kunit_info(test, "%u locations in %u classes round-tripped\n", nr, n);
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

/* zsmod_malloc_fail events of one pool, by reason */
struct fail_events {
	struct zsmod_pool *pool;
	atomic_t reason[ZSMOD_FAIL_NO_ZSPAGE + 1];
	atomic_t bad;
	size_t size;
};

static void count_fail(void *data, struct zsmod_pool *pool, size_t size, gfp_t gfp,
		       int reason)
{
	struct fail_events *ev = data;

	if (pool != ev->pool)
		return;
	if (reason < 0 || reason > ZSMOD_FAIL_NO_ZSPAGE) {
		atomic_inc(&ev->bad);
		return;
	}
	atomic_inc(&ev->reason[reason]);
	WRITE_ONCE(ev->size, size);
}

static void detach_count_fail(void *data)
{
	zsmod_kunit_probe_malloc_fail(count_fail, data, false);
}

/*
 * The Nth fault point of zsmod_malloc() failed, N = 1, 2, ... until a call
 * gets through: the number of calls that returned -ENOMEM. An object that
 * got through is freed at once (its batch run by reading the statistics),
 * so that each call meets an empty pool.
 */
static unsigned int fail_walk(struct tpool *tp, size_t len, gfp_t gfp)
{
	unsigned int nth, left, enomem = 0;
	struct zsmod_pool_stats st;
	unsigned long handle;
	int ret;

	for (nth = 1; nth <= 64; nth++) {
		set_fail_nth(nth);
		ret = zsmod_malloc(tp->pool, len, gfp, &handle);
		left = get_fail_nth();
		set_fail_nth(0);
		if (!ret) {
			zsmod_free(tp->pool, handle);
			zsmod_pool_stats(tp->pool, &st);
		} else {
			enomem += ret == -ENOMEM;
		}
		if (!ret && left)
			break;
	}
	return enomem;
}

/*
 * One zsmod_malloc_fail per failed zsmod_malloc() but -EINVAL: too_large
 * for -ENOSPC, no_handle or no_zspage for each injected -ENOMEM. Under
 * fail_nth a handle block never fails for good (a GFP_NOWAIT attempt
 * comes first, then one as the caller's gfp allows), so only no_zspage is
 * sure to be seen.
 */
static void test_trace_malloc_fail(struct kunit *test)
{
	struct fail_events *ev = kunit_kzalloc(test, sizeof(*ev), GFP_KERNEL);
	size_t max = zsmod_max_alloc_size();
	unsigned int enomem = 0;
	unsigned long handle;
	struct tpool *tp;
	int nomem;

	KUNIT_ASSERT_NOT_NULL(test, ev);
	tp = tpool_create(test, 16);
	ev->pool = tp->pool;
	if (!IS_ENABLED(CONFIG_TRACEPOINTS))
		kunit_skip(test, "a kernel without tracepoints");
	KUNIT_ASSERT_EQ(test, zsmod_kunit_probe_malloc_fail(count_fail, ev, true), 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, detach_count_fail, ev));

	KUNIT_EXPECT_EQ(test, zsmod_malloc(tp->pool, 0, GFP_KERNEL, &handle), -EINVAL);
	KUNIT_EXPECT_EQ(test, zsmod_malloc(tp->pool, max + 1, GFP_KERNEL, &handle), -ENOSPC);
	KUNIT_EXPECT_EQ(test, atomic_read(&ev->reason[ZSMOD_FAIL_TOO_LARGE]), 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(ev->size), max + 1);

	NEED_FI(test);
	fi_setup(test);
	/* an empty pool: each call needs a new zspage; zswap's gfp, then a huge one */
	enomem += fail_walk(tp, 64, ZSWAP_GFP);
	enomem += fail_walk(tp, max, GFP_KERNEL | __GFP_NOWARN);
	nomem = atomic_read(&ev->reason[ZSMOD_FAIL_NO_HANDLE]) +
		atomic_read(&ev->reason[ZSMOD_FAIL_NO_ZSPAGE]);
	kunit_info(test, "%u injected -ENOMEM: %d no_handle, %d no_zspage\n", enomem,
		   atomic_read(&ev->reason[ZSMOD_FAIL_NO_HANDLE]),
		   atomic_read(&ev->reason[ZSMOD_FAIL_NO_ZSPAGE]));
	KUNIT_EXPECT_GT(test, enomem, 0U);
	KUNIT_EXPECT_GT(test, atomic_read(&ev->reason[ZSMOD_FAIL_NO_ZSPAGE]), 0);
	KUNIT_EXPECT_EQ(test, nomem, (int)enomem);
	KUNIT_EXPECT_EQ(test, atomic_read(&ev->reason[ZSMOD_FAIL_TOO_LARGE]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ev->bad), 0);
	free_destroy_check(tp);
}

/* What a test does in one lock gap of zsmod_malloc(): free its victims. */
struct gap_run {
	struct tpool *tp;
	enum zsmod_malloc_gap want;
	/* objects keep .. (those allocated when the gap came) - 1 are freed */
	unsigned int keep;
	unsigned int hits[ZSMOD_GAP_HANDLE + 1];
	bool acted;
	/* the pool's live objects and handle blocks right after the frees */
	unsigned long objs, blocks;
};

static void gap_free_victims(void *data, enum zsmod_malloc_gap gap)
{
	struct gap_run *g = data;
	struct zsmod_pool_stats st;
	unsigned int i;

	g->hits[gap]++;
	if (gap != g->want || g->acted)
		return;
	g->acted = true;
	for (i = g->keep; i < g->tp->n; i++)
		tpool_free(g->tp, i);
	/* statistics run the queued frees; compaction moves what is left */
	zsmod_pool_stats(g->tp->pool, &st);
	zsmod_compact(g->tp->pool);
	zsmod_pool_stats(g->tp->pool, &st);
	g->objs = st.objs_used;
	g->blocks = st.handle_blocks;
}

static void detach_gap_hook(void *data)
{
	zsmod_kunit_malloc_gap_hook(NULL, NULL);
}

/* Arm @g for gap @want, run one tpool_alloc() of @len, disarm: its result. */
static int alloc_through_gap(struct gap_run *g, enum zsmod_malloc_gap want,
			     unsigned int keep, size_t len, bool fail_first)
{
	int idx;

	memset(g->hits, 0, sizeof(g->hits));
	g->want = want;
	g->keep = keep;
	g->acted = false;
	zsmod_kunit_malloc_gap_hook(gap_free_victims, g);
	if (fail_first)
		set_fail_nth(1);
	idx = tpool_alloc(g->tp, len, GFP_KERNEL | __GFP_NOWARN);
	set_fail_nth(0);
	zsmod_kunit_malloc_gap_hook(NULL, NULL);
	return idx;
}

/*
 * A zspage of @c is being allocated for a new object, its handle taken,
 * when every other object of the class is freed and the pool compacted:
 * the class's zspages and the handle blocks with no slot in use go. The
 * new object must come out whole in its own zspage.
 */
static void gap_handle(struct kunit *test, struct gap_run *g, const struct tclass *c)
{
	struct tpool *tp = tpool_create(test, 2 * c->opz + 1);
	unsigned long zsp0 = nr_zspages();
	size_t len = len_for_class(c);
	struct zsmod_pool_stats st;
	unsigned int i;
	int idx;

	g->tp = tp;
	for (i = 0; i < 2 * c->opz; i++)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, len, GFP_KERNEL), 0);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_ASSERT_EQ_MSG(test, st.objs_allocated, st.objs_used,
			    "class %u: its two zspages are not full", c->size);

	idx = alloc_through_gap(g, ZSMOD_GAP_HANDLE, 0, len, false);
	KUNIT_ASSERT_TRUE_MSG(test, g->acted, "class %u: gap never reached (hits %u/%u/%u)",
			      c->size, g->hits[0], g->hits[1], g->hits[2]);
	KUNIT_ASSERT_GE_MSG(test, idx, 0, "class %u", c->size);
	KUNIT_EXPECT_EQ_MSG(test, g->objs, 0UL, "class %u: victims still live in the gap",
			    c->size);
	/* the class's other blocks went in the gap; the handle's stayed */
	KUNIT_EXPECT_EQ_MSG(test, g->blocks, 1UL, "class %u: handle blocks in the gap",
			    c->size);
	KUNIT_EXPECT_EQ_MSG(test, tpool_check(tp, idx), -1L, "class %u: new object", c->size);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ_MSG(test, st.objs_used, 1UL, "class %u", c->size);
	KUNIT_EXPECT_EQ_MSG(test, st.handle_blocks, 1UL, "class %u", c->size);
	KUNIT_EXPECT_TRUE_MSG(test, settle_pages(tp, c->ppz, zsp0 + c->ppz),
			      "class %u: not one zspage of %u pages (%lu pages, NR_ZSPAGES +%ld)",
			      c->size, c->ppz, zsmod_get_total_pages(tp->pool),
			      (long)(nr_zspages() - zsp0));
	free_destroy_check(tp);
}

/*
 * A class whose handle blocks are all full while its zspage has room: the
 * GFP_NOWAIT block fails, the malloc allocates a spare and drops the lock.
 * Then the class's other objects are freed (but the first @keep): the
 * zspage it meant to use may be gone, and so may every block. With the
 * spare it must go on, to that zspage or a new one, and lose nothing.
 */
static void gap_spare(struct kunit *test, struct gap_run *g, const struct tclass *c,
		      unsigned int keep)
{
	struct tpool *tp = tpool_create(test, 4 * c->opz);
	size_t len = len_for_class(c);
	struct zsmod_pool_stats st;
	int idx = -ENOSPC;

	g->tp = tp;
	/* fail_nth 1: no fault point until a block runs out */
	while (tp->n < tp->cap) {
		idx = alloc_through_gap(g, ZSMOD_GAP_SPARE, keep, len, true);
		if (idx < 0 || g->acted)
			break;
	}
	KUNIT_ASSERT_TRUE_MSG(test, g->acted,
			      "class %u: no spare after %u objects (hits %u/%u/%u, idx %d)",
			      c->size, tp->n, g->hits[0], g->hits[1], g->hits[2], idx);
	KUNIT_ASSERT_GE_MSG(test, idx, 0, "class %u, keep %u", c->size, keep);
	KUNIT_EXPECT_EQ_MSG(test, g->objs, (unsigned long)keep, "class %u", c->size);
	/* keep 0: every block went in the gap (the spare is no class's yet) */
	KUNIT_EXPECT_EQ_MSG(test, g->blocks, keep ? 1UL : 0UL,
			    "class %u, keep %u: handle blocks in the gap", c->size, keep);
	KUNIT_EXPECT_EQ_MSG(test, tpool_check(tp, idx), -1L, "class %u, keep %u: new object",
			    c->size, keep);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ_MSG(test, st.objs_used, keep + 1UL, "class %u", c->size);
	KUNIT_EXPECT_EQ_MSG(test, st.handle_blocks, 1UL, "class %u, keep %u", c->size, keep);
	kunit_info(test, "class %u keep %u: spare after %u objects, gaps %u/%u/%u\n",
		   c->size, keep, tp->n - 1, g->hits[0], g->hits[1], g->hits[2]);
	free_destroy_check(tp);
}

/*
 * zsmod_malloc() drops its class lock while it holds a handle slot (a new
 * zspage being allocated) or a spare handle block (being allocated, and on
 * the way to a new zspage). Frees, their batches, and compaction in those
 * gaps can empty the class. Each gap is forced here through
 * zsmod_kunit_malloc_gap_hook(), so that a value taken under the lock and
 * used after it as if still valid shows as a KASAN report or lost data
 * (issue 30's question; kunit/README.md has the mutations).
 */
static void test_malloc_lock_gaps(struct kunit *test)
{
	struct gap_run *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	const struct tclass *multi, *huge, *small;
	struct tpool *tp;

	NEED_FI(test);
	KUNIT_ASSERT_NOT_NULL(test, g);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, detach_gap_hook, NULL));
	tp = tpool_create(test, 1);
	multi = pick_class_sized(tp, 2, false, 64);
	huge = huge_class(tp);
	small = &tp->tab[0];
	KUNIT_ASSERT_NOT_NULL(test, multi);
	KUNIT_ASSERT_NOT_NULL(test, huge);
	/* two full handle blocks must fit in its one zspage */
	KUNIT_ASSERT_GE(test, small->opz, 121U);

	gap_handle(test, g, multi);
	gap_handle(test, g, huge);

	fi_setup(test);
	gap_spare(test, g, small, 0);
	gap_spare(test, g, small, 1);
}

static struct kunit_case alloc_cases[] = {
	KUNIT_CASE_PARAM(test_alloc_size, size_gen),
	KUNIT_CASE(test_span_rw),
	KUNIT_CASE_SLOW(test_handle_uniqueness),
	KUNIT_CASE(test_invalid_sizes),
	KUNIT_CASE(test_location_limits),
	KUNIT_CASE(test_stats_many_classes),
	KUNIT_CASE_SLOW(test_alloc_enomem),
	KUNIT_CASE_SLOW(test_trace_malloc_fail),
	KUNIT_CASE(test_malloc_lock_gaps),
	{}
};

struct kunit_suite zsmalloc_mod_alloc_suite = {
	.name = "zsmalloc_mod_alloc",
	.suite_init = alloc_suite_init,
	.suite_exit = alloc_suite_exit,
	.test_cases = alloc_cases,
};
