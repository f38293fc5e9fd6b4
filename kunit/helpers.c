// SPDX-License-Identifier: GPL-2.0
/*
 * What the suites of zsmalloc_mod_kunit.ko share: object contents, exact
 * page counters, the size class table, test pools released when a test
 * ends, fault injection and the module's parameters (page migration
 * is in migrate_helpers.c). Declared in helpers.h.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/page-flags.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmstat.h>

#include "helpers.h"

/* ---------------------------------------------------------------------- */
/* Object contents                                                         */

/**
 * pat_fill() - Fill an object with the pattern of a seed
 * @p: the object's bytes
 * @len: its size
 * @seed: the seed; byte i is pat_byte(@seed, i)
 */
void pat_fill(u8 *p, unsigned int len, u32 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = pat_byte(seed, i);
}

/**
 * pat_check() - Compare an object with the pattern of a seed
 * @p: the object's bytes
 * @len: its size
 * @seed: the seed it was filled with
 *
 * Return: the first offset that differs, or -1.
 */
long pat_check(const u8 *p, unsigned int len, u32 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (p[i] != pat_byte(seed, i))
			return i;
	return -1;
}

/* ---------------------------------------------------------------------- */
/* Page counters                                                         */

/**
 * nr_zspages() - NR_ZSPAGES, exactly
 *
 * Return: the global counter plus every CPU's pending delta, summed over
 * the populated zones.
 */
unsigned long nr_zspages(void)
{
	unsigned long sum = 0;
	int nid, z;

	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);

		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &pgdat->node_zones[z];

			if (populated_zone(zone))
				sum += zone_page_state_snapshot(zone, NR_ZSPAGES);
		}
	}
	return sum;
}

/*
 * Pages typed as zsmalloc pages anywhere in memory. Every such page must be
 * counted in NR_ZSPAGES: a page allocated for a zspage and dropped on an
 * error path without being freed keeps its type but is in no counter.
 *
 * pfn_valid() holds for a whole subsection or for none of it, and under
 * lockdep its RCU read section costs more than the page test: it is asked
 * once per subsection (twice per test, it was a second of each test).
 */
static unsigned long zsmalloc_typed_pages(void)
{
	const unsigned long step = PAGES_PER_SUBSECTION;
	unsigned long pfn, end, sub, n = 0;
	int nid;

	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);

		end = pgdat_end_pfn(pgdat);
		for (sub = ALIGN_DOWN(pgdat->node_start_pfn, step); sub < end; sub += step) {
			cond_resched();
			if (!pfn_valid(sub))
				continue;
			for (pfn = max(sub, pgdat->node_start_pfn);
			     pfn < min(sub + step, end); pfn++)
				n += PageZsmalloc(pfn_to_page(pfn));
		}
	}
	return n;
}

/* zsmalloc-typed pages that NR_ZSPAGES does not count */
static long stray_pages(void)
{
	return (long)zsmalloc_typed_pages() - (long)nr_zspages();
}

/**
 * expect_no_stray_pages() - Expect that no zsmalloc page leaked
 * @test: the test
 * @base: stray_pages() before the test
 * @when: what just happened, for the message
 *
 * No more stray pages (typed zsmalloc, not in NR_ZSPAGES) than @base.
 */
void expect_no_stray_pages(struct kunit *test, long base, const char *when)
{
	long now = stray_pages();

	KUNIT_EXPECT_EQ_MSG(test, now, base,
			    "%s: %ld pages typed zsmalloc but not in NR_ZSPAGES, %ld before",
			    when, now, base);
}

/* ---------------------------------------------------------------------- */
/* Size classes                                                            */

static int tclass_cmp(const void *a, const void *b)
{
	const struct tclass *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

/**
 * class_table() - The pool's distinct classes sorted by size
 * @pool: the pool
 * @tab: receives the classes, MAX_CLASSES at most
 *
 * zsmod_class_info() may be asked about merged indices (zsmalloc merges
 * classes of equal geometry): those report the class they were merged into
 * and are dropped here.
 *
 * Return: how many classes there are, or -E2BIG.
 */
int class_table(struct zsmod_pool *pool, struct tclass *tab)
{
	unsigned int count = zsmod_class_count(pool), i, j, n = 0;
	struct zsmod_class_info info;

	for (i = 0; i < count; i++) {
		if (zsmod_class_info(pool, i, &info))
			continue;
		for (j = 0; j < n; j++)
			if (tab[j].class_idx == info.class_idx)
				break;
		if (j < n)
			continue;
		if (n == MAX_CLASSES)
			return -E2BIG;
		tab[n++] = (struct tclass){
			.arg = i, .class_idx = info.class_idx, .size = info.size,
			.ppz = info.pages_per_zspage,
			.opz = info.objs_per_zspage, .huge = info.huge,
			.min = info.min_size, .max = info.max_size,
		};
	}
	sort(tab, n, sizeof(*tab), tclass_cmp, NULL);
	return n;
}

/**
 * class_spans() - Does some object of this class straddle a page boundary?
 * @c: the class
 *
 * Return: true if one does.
 */
bool class_spans(const struct tclass *c)
{
	unsigned int i;

	for (i = 0; i < c->opz; i++)
		if ((i * c->size) % PAGE_SIZE + c->size > PAGE_SIZE)
			return true;
	return false;
}

/* ---------------------------------------------------------------------- */
/* A pool plus the objects a test put in it, released when the test ends   */

static atomic_t pool_seq = ATOMIC_INIT(0);

/**
 * tpool_free_all() - Free every live object of a test pool
 * @tp: the test pool
 */
void tpool_free_all(struct tpool *tp)
{
	unsigned int i;

	for (i = 0; i < tp->n; i++) {
		if (tp->h[i]) {
			zsmod_free(tp->pool, tp->h[i]);
			tp->h[i] = 0;
		}
	}
}

static void tpool_release(void *arg)
{
	struct tpool *tp = arg;

	if (!tp->pool)
		return;
	tpool_free_all(tp);
	zsmod_destroy_pool(tp->pool);
	tp->pool = NULL;
}

/**
 * tpool_create() - Create a pool for a test
 * @test: the test
 * @cap: how many objects it may hold
 *
 * Its live objects are freed and it is destroyed when the test ends, even
 * when the test fails. NR_ZSPAGES and (outside parameterised tests) the
 * stray pages are recorded first, for free_destroy_check().
 *
 * Return: the test pool; the test is aborted if it cannot be created.
 */
struct tpool *tpool_create(struct kunit *test, unsigned int cap)
{
	struct tpool *tp;
	char name[32];

	tp = kunit_kzalloc(test, sizeof(*tp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tp);
	tp->test = test;
	tp->cap = cap;
	tp->h = kunit_kcalloc(test, cap, sizeof(*tp->h), GFP_KERNEL);
	tp->len = kunit_kcalloc(test, cap, sizeof(*tp->len), GFP_KERNEL);
	tp->seed = kunit_kcalloc(test, cap, sizeof(*tp->seed), GFP_KERNEL);
	tp->tab = kunit_kcalloc(test, MAX_CLASSES, sizeof(*tp->tab), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tp->h);
	KUNIT_ASSERT_NOT_NULL(test, tp->len);
	KUNIT_ASSERT_NOT_NULL(test, tp->seed);
	KUNIT_ASSERT_NOT_NULL(test, tp->tab);

	tp->base_zspages = nr_zspages();
	if (!test->param_value)
		tp->base_stray = stray_pages();
	snprintf(name, sizeof(name), "kunit-%d", atomic_inc_return(&pool_seq));
	tp->pool = zsmod_create_pool(name);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tp->pool);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, tpool_release, tp));

	tp->ntab = class_table(tp->pool, tp->tab);
	KUNIT_ASSERT_GT_MSG(test, tp->ntab, 0, "no size classes reported");
	return tp;
}

/**
 * tpool_check() - Map an object read-only and compare it with its pattern
 * @tp: the test pool
 * @idx: the object
 *
 * Return: the first bad offset, -1 if none, -2 if it could not be mapped.
 */
long tpool_check(struct tpool *tp, unsigned int idx)
{
	const u8 *p;
	long bad;

	p = zsmod_map_object(tp->pool, tp->h[idx], ZSMOD_MM_RO);
	if (IS_ERR_OR_NULL(p))
		return -2;
	bad = pat_check(p, tp->len[idx], tp->seed[idx]);
	zsmod_unmap_object(tp->pool, tp->h[idx]);
	return bad;
}

/**
 * tpool_write() - Write an object's pattern through a mapping
 * @tp: the test pool
 * @idx: the object
 * @mm: the mapping mode
 *
 * Return: 0, or -EFAULT if it could not be mapped.
 */
int tpool_write(struct tpool *tp, unsigned int idx, enum zsmod_mapmode mm)
{
	u8 *p = zsmod_map_object(tp->pool, tp->h[idx], mm);

	if (IS_ERR_OR_NULL(p))
		return -EFAULT;
	pat_fill(p, tp->len[idx], tp->seed[idx]);
	zsmod_unmap_object(tp->pool, tp->h[idx]);
	return 0;
}

/**
 * tpool_alloc() - Allocate and fill one object
 * @tp: the test pool
 * @len: its size
 * @gfp: passed to zsmod_malloc()
 *
 * Return: the object's index, or a negative errno.
 */
int tpool_alloc(struct tpool *tp, size_t len, gfp_t gfp)
{
	unsigned long handle = 0;
	unsigned int idx;
	int ret;

	if (tp->n == tp->cap)
		return -ENOSPC;
	ret = zsmod_malloc(tp->pool, len, gfp, &handle);
	if (ret)
		return ret;
	if (!handle)
		return -EFAULT;
	idx = tp->n++;
	tp->h[idx] = handle;
	tp->len[idx] = len;
	tp->seed[idx] = get_random_u32();
	ret = tpool_write(tp, idx, ZSMOD_MM_WO);
	return ret ? ret : idx;
}

/**
 * tpool_free() - Free an object, unless it is freed already
 * @tp: the test pool
 * @idx: the object
 */
void tpool_free(struct tpool *tp, unsigned int idx)
{
	if (tp->h[idx]) {
		zsmod_free(tp->pool, tp->h[idx]);
		tp->h[idx] = 0;
	}
}

/**
 * tpool_check_all() - Check every live object, logging the first bad ones
 * @tp: the test pool
 *
 * Return: how many are corrupt.
 */
unsigned int tpool_check_all(struct tpool *tp)
{
	unsigned int i, bad = 0;
	long off;

	for (i = 0; i < tp->n; i++) {
		if (!tp->h[i])
			continue;
		off = tpool_check(tp, i);
		if (off != -1) {
			if (bad++ < 5)
				kunit_err(tp->test, "object %u (len %u) corrupt at offset %ld\n",
					  i, tp->len[i], off);
		}
		cond_resched();
	}
	return bad;
}

static unsigned long class_objs_used(struct tpool *tp, const struct tclass *c)
{
	struct zsmod_class_info info;

	if (zsmod_class_info(tp->pool, c->arg, &info))
		return ULONG_MAX;
	return info.objs_used;
}

/* The class that holds object @idx: the one whose objs_used drops on free.
 * Used right after allocating when only that class changed; @before is a
 * snapshot of objs_used per table entry.
 */
static const struct tclass *class_grown(struct tpool *tp, const unsigned long *before)
{
	const struct tclass *found = NULL;
	int i;

	for (i = 0; i < tp->ntab; i++) {
		unsigned long now = class_objs_used(tp, &tp->tab[i]);

		if (now != before[i]) {
			if (found)
				return NULL;
			found = &tp->tab[i];
		}
	}
	return found;
}

static void snapshot_used(struct tpool *tp, unsigned long *used)
{
	int i;

	for (i = 0; i < tp->ntab; i++)
		used[i] = class_objs_used(tp, &tp->tab[i]);
}

/**
 * alloc_find_class() - Allocate one object and tell which class took it
 * @tp: the test pool
 * @len: its size
 * @gfp: passed to zsmod_malloc()
 * @cls: receives the class (or the test is aborted)
 *
 * Return: the object's index.
 */
int alloc_find_class(struct tpool *tp, size_t len, gfp_t gfp,
		     const struct tclass **cls)
{
	struct kunit *test = tp->test;
	unsigned long *before;
	int idx;

	before = kunit_kcalloc(test, MAX_CLASSES, sizeof(*before), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	snapshot_used(tp, before);
	idx = tpool_alloc(tp, len, gfp);
	KUNIT_ASSERT_GE_MSG(test, idx, 0, "zsmod_malloc(%zu) failed", len);
	*cls = class_grown(tp, before);
	KUNIT_ASSERT_NOT_NULL_MSG(test, *cls,
				  "not exactly one class gained an object after zsmod_malloc(%zu)",
				  len);
	KUNIT_ASSERT_GE_MSG(test, (*cls)->size, (unsigned int)len,
			    "object of %zu bytes put in class of size %u", len, (*cls)->size);
	kunit_kfree(test, before);
	return idx;
}

/**
 * fill_zspages() - Fill zspages of the class a size lands in
 * @tp: the test pool
 * @len: the objects' size
 * @gfp: passed to zsmod_malloc()
 * @nz: how many zspages
 *
 * Return: the class.
 */
const struct tclass *fill_zspages(struct tpool *tp, size_t len, gfp_t gfp,
				  unsigned int nz)
{
	struct kunit *test = tp->test;
	const struct tclass *c;
	unsigned int i, want;
	int idx;

	alloc_find_class(tp, len, gfp, &c);
	want = nz * c->opz;
	for (i = 1; i < want; i++) {
		idx = tpool_alloc(tp, len, gfp);
		KUNIT_ASSERT_GE_MSG(test, idx, 0, "zsmod_malloc(%zu) #%u: %d", len, i, idx);
	}
	return c;
}

/**
 * pick_class_sized() - Pick a class of some geometry
 * @tp: the test pool
 * @min_ppz: fewest pages per zspage
 * @spanning: only a class some object of which straddles two pages
 * @min_size: smallest object size
 *
 * Return: the smallest non-huge class with >= @min_ppz pages, >= 4 objects
 * and size >= @min_size, or NULL.
 */
const struct tclass *pick_class_sized(struct tpool *tp, unsigned int min_ppz,
				      bool spanning, unsigned int min_size)
{
	int i;

	for (i = 0; i < tp->ntab; i++) {
		const struct tclass *c = &tp->tab[i];

		if (c->huge || c->ppz < min_ppz || c->opz < 4 || c->size < min_size)
			continue;
		if (spanning && !class_spans(c))
			continue;
		return c;
	}
	return NULL;
}

/**
 * pick_class() - pick_class_sized() with no minimum size
 * @tp: the test pool
 * @min_ppz: fewest pages per zspage
 * @spanning: only a class some object of which straddles two pages
 *
 * Return: the class, or NULL.
 */
const struct tclass *pick_class(struct tpool *tp, unsigned int min_ppz,
				bool spanning)
{
	return pick_class_sized(tp, min_ppz, spanning, 0);
}

/**
 * len_for_class() - The largest request size a class serves
 * @c: the class
 *
 * Return: that size.
 */
size_t len_for_class(const struct tclass *c)
{
	return c->max;
}

/**
 * huge_class() - The pool's huge class
 * @tp: the test pool
 *
 * Return: the first huge class in @tp's table, or NULL.
 */
const struct tclass *huge_class(struct tpool *tp)
{
	int i;

	for (i = 0; i < tp->ntab; i++)
		if (tp->tab[i].huge)
			return &tp->tab[i];
	return NULL;
}

/**
 * expect_consistent() - Expect the pool's counters to agree
 * @tp: the test pool
 *
 * The pool's counters against each other and against NR_ZSPAGES:
 * per class objs_allocated = zspages * objs_per_zspage, and the sums over
 * classes equal the pool stats, the pool's total pages and the zone counter
 * delta; objs_used equals what the test holds live.
 */
void expect_consistent(struct tpool *tp)
{
	struct kunit *test = tp->test;
	struct zsmod_pool_stats st;
	struct zsmod_class_info info;
	unsigned long pages = 0, alloc = 0, used = 0, live = 0, deadline;
	unsigned int i;
	int k;

	/*
	 * A worker (drain, compaction, deferred free) counts a zspage out of
	 * the pool under the class lock and gives its pages back just after:
	 * let the zone counter catch up, for a second at most.
	 */
	deadline = jiffies + HZ;
	while (nr_zspages() - tp->base_zspages != zsmod_get_total_pages(tp->pool) &&
	       time_before(jiffies, deadline))
		usleep_range(1000, 2000);

	for (k = 0; k < tp->ntab; k++) {
		KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, tp->tab[k].arg, &info));
		KUNIT_EXPECT_EQ_MSG(test, info.objs_allocated,
				    info.zspages * info.objs_per_zspage,
				    "class %u (size %u)", info.class_idx, info.size);
		KUNIT_EXPECT_LE_MSG(test, info.objs_used, info.objs_allocated,
				    "class %u (size %u)", info.class_idx, info.size);
		pages += info.zspages * info.pages_per_zspage;
		alloc += info.objs_allocated;
		used += info.objs_used;
	}
	for (i = 0; i < tp->n; i++)
		live += tp->h[i] != 0;

	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.objs_used, live);
	KUNIT_EXPECT_EQ(test, st.handles_used, live);
	KUNIT_EXPECT_GE(test, st.handle_bytes, live * sizeof(unsigned long));
	KUNIT_EXPECT_EQ(test, used, live);
	KUNIT_EXPECT_EQ(test, st.objs_allocated, alloc);
	KUNIT_EXPECT_EQ(test, st.pages_used, pages);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), pages);
	KUNIT_EXPECT_EQ(test, nr_zspages() - tp->base_zspages, pages);
	/*
	 * The walk sees the pool's pages (elsewhere it is asked with the pool
	 * empty, where a walk that saw nothing would pass): outside
	 * parameterised tests, as in tpool_create().
	 */
	if (!test->param_value && pages)
		expect_no_stray_pages(test, tp->base_stray, "with the pool's pages in use");
}

/**
 * free_destroy_check() - Free everything, destroy the pool, count the pages
 * @tp: the test pool
 *
 * Free everything, wait (bounded) for deferred frees, destroy, and check
 * that NR_ZSPAGES is back where it was before the pool existed and (outside
 * parameterised tests) that no page leaked.
 */
void free_destroy_check(struct tpool *tp)
{
	struct kunit *test = tp->test;
	unsigned long deadline;

	tpool_free_all(tp);
	deadline = jiffies + 2 * HZ;
	while (zsmod_get_total_pages(tp->pool) && time_before(jiffies, deadline))
		usleep_range(10000, 20000);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_get_total_pages(tp->pool), 0UL,
			    "pages still used after every object was freed");
	zsmod_destroy_pool(tp->pool);
	tp->pool = NULL;
	KUNIT_EXPECT_EQ_MSG(test, nr_zspages(), tp->base_zspages,
			    "NR_ZSPAGES not back to its value before the pool");
	/* a walk over all of memory: not after each of the many sizes */
	if (!test->param_value)
		expect_no_stray_pages(test, tp->base_stray, "after destroying the pool");
}

/**
 * zspage_pfns() - Pages of the zspage that holds an object
 * @tp: the test pool
 * @idx: the object
 * @pfns: receives the pfns, MAX_PFNS at most
 *
 * Return: how many pages, or a negative errno.
 */
int zspage_pfns(struct tpool *tp, unsigned int idx, unsigned long *pfns)
{
	return zsmod_handle_zspage_pfns(tp->pool, tp->h[idx], pfns, MAX_PFNS);
}

/**
 * tpool_obj_pfn() - The page an object starts in
 * @tp: the test pool
 * @idx: the object
 *
 * Return: its pfn, or 0 if the handle leads nowhere.
 */
unsigned long tpool_obj_pfn(struct tpool *tp, unsigned int idx)
{
	unsigned long pfn = 0;
	unsigned int oi;

	if (zsmod_handle_location(tp->pool, tp->h[idx], &pfn, &oi))
		return 0;
	return pfn;
}

/* ---------------------------------------------------------------------- */
/* Fault injection (kunit/patches/0003)                                    */

#ifdef HAVE_FI
/* fail_page_alloc's fault attributes, for make_it_fail windows */
static struct fault_attr *fi_pages;

static void fi_end(void *unused)
{
	set_fail_nth(0);
	set_make_it_fail(0);
}

/**
 * fi_page_filter() - Choose the page allocations this task may fail
 * @test: the test
 * @min_order: the smallest order that may fail
 * @ignore_gfp_reclaim: do not fail allocations that may reclaim directly
 *
 * Until the test ends (the previous settings come back then).
 */
void fi_page_filter(struct kunit *test, u32 min_order, bool ignore_gfp_reclaim)
{
	fi_pages = fail_page_alloc_kunit_task_only(test, min_order, ignore_gfp_reclaim);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fi_pages);
}

/**
 * fi_setup() - Let the test task alone fail allocations on demand
 * @test: the test
 *
 * Until the test ends, fail_page_alloc fails any page allocation of this
 * task, and failslab any slab allocation without direct reclaim, when the
 * task asks for it (fail_nth, or make_it_fail in fi_fail_pages()); no other
 * task sees a failure, and none is reported.
 */
void fi_setup(struct kunit *test)
{
	fi_page_filter(test, 0, false);
	KUNIT_ASSERT_EQ(test, failslab_kunit_task_only(test, true), 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, fi_end, NULL));
}

/**
 * fi_fail_pages() - Fail every page allocation of this task (make_it_fail)
 * @space: pages let through first, plus one (fault_attr's space: an
 *	    allocation of order n passes while more than 2^n are left)
 *
 * Until fi_fail_pages_end(); after fi_setup().
 */
void fi_fail_pages(unsigned int space)
{
	atomic_set(&fi_pages->space, space);
	WRITE_ONCE(fi_pages->probability, 100);
	set_make_it_fail(1);
}

void fi_fail_pages_end(void)
{
	set_make_it_fail(0);
	WRITE_ONCE(fi_pages->probability, 0);
	atomic_set(&fi_pages->space, 0);
}
#endif

/* ---------------------------------------------------------------------- */
/* Objects that straddle two pages                                         */

/**
 * span_rw_zspage() - Rewrite the straddling objects of a zspage in place
 * @tp: the test pool
 * @c: the zspage's class
 * @first: the zspage's first object
 *
 * Every object of the zspage holding object @first that straddles two
 * pages: map read-write, check, rewrite every byte, unmap, read back.
 *
 * Return: how many there were.
 */
unsigned int span_rw_zspage(struct tpool *tp, const struct tclass *c,
			    unsigned int first)
{
	struct kunit *test = tp->test;
	unsigned int i, oi, done = 0;
	unsigned long pfn;

	for (i = first; i < first + c->opz && i < tp->n; i++) {
		unsigned long off, cut;
		long bad;
		u8 *p;

		KUNIT_ASSERT_EQ(test, 0, zsmod_handle_location(tp->pool, tp->h[i], &pfn, &oi));
		off = (unsigned long)oi * c->size;
		if (off % PAGE_SIZE + c->size <= PAGE_SIZE)
			continue;
		cut = PAGE_SIZE - off % PAGE_SIZE;
		p = zsmod_map_object(tp->pool, tp->h[i], ZSMOD_MM_RW);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
		/* nothing that may sleep (or report) while mapped */
		bad = pat_check(p, tp->len[i], tp->seed[i]);
		tp->seed[i] = ~tp->seed[i];
		pat_fill(p, tp->len[i], tp->seed[i]);
		zsmod_unmap_object(tp->pool, tp->h[i]);
		KUNIT_EXPECT_EQ_MSG(test, bad, -1L,
				    "RW map of straddling object %u (cut at %lu)", i, cut);
		KUNIT_EXPECT_EQ_MSG(test, tpool_check(tp, i), -1L,
				    "straddling object %u lost its RW update", i);
		done++;
	}
	return done;
}

/**
 * pfns_consecutive() - Are the pages of a zspage physically contiguous?
 * @tp: the test pool
 * @idx: an object of the zspage
 *
 * Return: true if they are consecutive pfns.
 */
bool pfns_consecutive(struct tpool *tp, unsigned int idx)
{
	unsigned long pfns[MAX_PFNS];
	int n = zspage_pfns(tp, idx, pfns), j;

	for (j = 1; j < n; j++)
		if (pfns[j] != pfns[j - 1] + 1)
			return false;
	return n > 0;
}

/* ---------------------------------------------------------------------- */
/* The module's parameters                                                 */

struct saved_param {
	bool *knob;
	bool val;
};

static void param_restore(void *arg)
{
	struct saved_param *sp = arg;

	WRITE_ONCE(*sp->knob, sp->val);
}

/**
 * set_param() - Set a bool parameter of zsmalloc_mod for one test
 * @test: the test
 * @name: the parameter ("shrinker_enabled", "auto_compact")
 * @val: its value for the rest of the test
 *
 * The previous value comes back when the test ends, however it ends.
 */
void set_param(struct kunit *test, const char *name, bool val)
{
	bool *knob = zsmod_kunit_param(name);
	struct saved_param *sp;

	KUNIT_ASSERT_NOT_NULL_MSG(test, knob, "zsmalloc_mod has no parameter %s", name);
	sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sp);
	sp->knob = knob;
	sp->val = READ_ONCE(*knob);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, param_restore, sp));
	WRITE_ONCE(*knob, val);
}
