// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for zsmalloc_mod, run as a loadable module on the test kernel
 * built by kunit/build-kernel.sh (load zsmalloc_mod.ko first):
 *
 *   zsmalloc_mod_alloc       allocation, mapping, geometry, stats, -EINVAL,
 *                            injected -ENOMEM, pages returned on destroy
 *   zsmalloc_mod_migration   real page migration through alloc_contig_range(),
 *                            aborted migration (isolate + putback),
 *                            compaction, readers racing both
 *   zsmalloc_mod_dropbehind  the PG_dropbehind backport and our pages' flags
 *   zsmalloc_mod_zpool       the "zsmalloc_mod" zpool driver through the zpool
 *                            calls zswap makes
 *
 * The zpool suite needs the zpool API exported, which 6.12 does not do: the
 * test kernel's kunit/patches/0002 exports it and defines
 * ZPOOL_API_EXPORTED_FOR_TESTS. Elsewhere that suite is skipped, as is the
 * dropbehind suite on a kernel without PG_dropbehind (kunit/run.sh fails a
 * run on the test kernel if any suite is skipped).
 *
 * Fault injection: the -ENOMEM tests use the per-task fail_nth counter
 * (what /proc/<pid>/fail-nth sets) with fail_page_alloc/failslab set up
 * through their debugfs knobs (debugfs must be mounted at /sys/kernel/debug),
 * so no other task ever sees an injected failure; the knobs are restored
 * when each test ends.
 */
#include <kunit/test.h>
#include <kunit/resource.h>
#include <linux/cpumask.h>
#include <linux/debug_locks.h>
#include <linux/debugfs.h>
#include <linux/dcache.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/nodemask.h>
#include <linux/page-flags.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/vmstat.h>
#include <linux/zpool.h>

#include "../zsmalloc_mod.h"

/* kunit/patches/0001 defines folio_test_dropbehind as a macro for this */
#ifdef folio_test_dropbehind
#define ZSMOD_HAVE_DROPBEHIND 1
#endif

#define MAX_CLASSES	1024
#define MAX_PFNS	16
/* The gfp zswap passes to zpool_malloc() for a movable-capable backend. */
#define ZSWAP_GFP	(__GFP_NORETRY | __GFP_NOWARN | __GFP_KSWAPD_RECLAIM | \
			 __GFP_HIGHMEM | __GFP_MOVABLE)
#define MOVABLE_GFP	(GFP_KERNEL | __GFP_HIGHMEM | __GFP_MOVABLE)

/* ---------------------------------------------------------------------- */
/* Object contents                                                         */

static inline u8 pat_byte(u32 seed, unsigned int i)
{
	u32 x = seed ^ (i * 0x9e3779b1u);

	x ^= x >> 13;
	x *= 0x85ebca6bu;
	return (u8)(x ^ (x >> 16));
}

static void pat_fill(u8 *p, unsigned int len, u32 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = pat_byte(seed, i);
}

/* First offset that differs, or -1. */
static long pat_check(const u8 *p, unsigned int len, u32 seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (p[i] != pat_byte(seed, i))
			return i;
	return -1;
}

/* ---------------------------------------------------------------------- */
/* NR_ZSPAGES, exactly (global counter plus every CPU's pending delta)      */

static unsigned long nr_zspages(void)
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
 */
static unsigned long zsmalloc_typed_pages(void)
{
	unsigned long pfn, n = 0;
	int nid;

	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);

		for (pfn = pgdat->node_start_pfn; pfn < pgdat_end_pfn(pgdat); pfn++) {
			if (!(pfn & 0xfff))
				cond_resched();
			if (pfn_valid(pfn) && PageZsmalloc(pfn_to_page(pfn)))
				n++;
		}
	}
	return n;
}

/* zsmalloc-typed pages that NR_ZSPAGES does not count */
static long stray_pages(void)
{
	return (long)zsmalloc_typed_pages() - (long)nr_zspages();
}

/* No more stray pages than @base (from before the test): none leaked. */
static void expect_no_stray_pages(struct kunit *test, long base, const char *when)
{
	long now = stray_pages();

	KUNIT_EXPECT_EQ_MSG(test, now, base,
			    "%s: %ld pages typed zsmalloc but not in NR_ZSPAGES, %ld before",
			    when, now, base);
}

/* ---------------------------------------------------------------------- */
/* Size classes                                                            */

struct tclass {
	unsigned int arg;	/* index passed to zsmod_class_info() */
	unsigned int class_idx;	/* info.class_idx */
	unsigned int size;
	unsigned int ppz;	/* pages per zspage */
	unsigned int opz;	/* objects per zspage */
	unsigned int min, max;	/* zsmod_malloc() sizes the class serves */
	bool huge;
};

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static int tclass_cmp(const void *a, const void *b)
{
	const struct tclass *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

/*
 * The pool's distinct classes sorted by size. zsmod_class_info() may be
 * asked about merged indices (zsmalloc merges classes of equal geometry):
 * those report the class they were merged into and are dropped here.
 */
static int class_table(struct zsmod_pool *pool, struct tclass *tab)
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

/* Does some object of this class straddle a page boundary? */
static bool class_spans(const struct tclass *c)
{
	unsigned int i;

	for (i = 0; i < c->opz; i++)
		if ((i * c->size) % PAGE_SIZE + c->size > PAGE_SIZE)
			return true;
	return false;
}

/* ---------------------------------------------------------------------- */
/* A pool plus the objects a test put in it, released when the test ends   */

struct tpool {
	struct kunit *test;
	struct zsmod_pool *pool;
	unsigned long base_zspages;	/* NR_ZSPAGES before the pool existed */
	long base_stray;		/* stray_pages() then (not for params) */
	unsigned int cap, n;
	unsigned long *h;		/* 0: freed */
	unsigned int *len;
	u32 *seed;
	struct tclass *tab;
	int ntab;
};

static atomic_t pool_seq = ATOMIC_INIT(0);

static void tpool_free_all(struct tpool *tp)
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

static struct tpool *tpool_create(struct kunit *test, unsigned int cap)
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

/* Map @idx read-only and compare; returns the first bad offset or -1. */
static long tpool_check(struct tpool *tp, unsigned int idx)
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

static int tpool_write(struct tpool *tp, unsigned int idx, enum zsmod_mapmode mm)
{
	u8 *p = zsmod_map_object(tp->pool, tp->h[idx], mm);

	if (IS_ERR_OR_NULL(p))
		return -EFAULT;
	pat_fill(p, tp->len[idx], tp->seed[idx]);
	zsmod_unmap_object(tp->pool, tp->h[idx]);
	return 0;
}

/* Allocate and fill one object; returns its index or a negative errno. */
static int tpool_alloc(struct tpool *tp, size_t len, gfp_t gfp)
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

static void tpool_free(struct tpool *tp, unsigned int idx)
{
	if (tp->h[idx]) {
		zsmod_free(tp->pool, tp->h[idx]);
		tp->h[idx] = 0;
	}
}

/* Check every live object; returns how many are corrupt. */
static unsigned int tpool_check_all(struct tpool *tp)
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

/*
 * Allocate one object of @len and tell which class took it. Returns the
 * object's index; *cls is set (or the test is aborted).
 */
static int alloc_find_class(struct tpool *tp, size_t len, gfp_t gfp,
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

/* Fill @nz zspages of the class @len lands in; returns the class. */
static const struct tclass *fill_zspages(struct tpool *tp, size_t len, gfp_t gfp,
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

/* Smallest non-huge class with >= @min_ppz pages, >= 4 objects, size >= @min_size. */
static const struct tclass *pick_class_sized(struct tpool *tp, unsigned int min_ppz,
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

static const struct tclass *pick_class(struct tpool *tp, unsigned int min_ppz,
				       bool spanning)
{
	return pick_class_sized(tp, min_ppz, spanning, 0);
}

/* The largest request size class @c serves. */
static size_t len_for_class(const struct tclass *c)
{
	return c->max;
}

static const struct tclass *huge_class(struct tpool *tp)
{
	int i;

	for (i = 0; i < tp->ntab; i++)
		if (tp->tab[i].huge)
			return &tp->tab[i];
	return NULL;
}

/*
 * The pool's counters against each other and against NR_ZSPAGES:
 * per class objs_allocated = zspages * objs_per_zspage, and the sums over
 * classes equal the pool stats, the pool's total pages and the zone counter
 * delta; objs_used equals what the test holds live.
 */
static void expect_consistent(struct tpool *tp)
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
}

/* Free everything, wait (bounded) for deferred frees, destroy, and check
 * that NR_ZSPAGES is back where it was before the pool existed.
 */
static void free_destroy_check(struct tpool *tp)
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

/* Pages of the zspage that holds @idx. */
static int zspage_pfns(struct tpool *tp, unsigned int idx, unsigned long *pfns)
{
	return zsmod_handle_zspage_pfns(tp->pool, tp->h[idx], pfns, MAX_PFNS);
}

static unsigned long obj_pfn(struct tpool *tp, unsigned int idx)
{
	unsigned long pfn = 0;
	unsigned int oi;

	if (zsmod_handle_location(tp->pool, tp->h[idx], &pfn, &oi))
		return 0;
	return pfn;
}

/* ---------------------------------------------------------------------- */
/* Fault injection knobs (debugfs)                                         */

#if defined(CONFIG_FAIL_PAGE_ALLOC) && defined(CONFIG_FAULT_INJECTION_DEBUG_FS)
#define HAVE_FI 1
static inline void set_fail_nth(unsigned int n) { current->fail_nth = n; }
static inline unsigned int get_fail_nth(void) { return current->fail_nth; }
static inline void set_make_it_fail(int v) { current->make_it_fail = v; }
#define NEED_FI(test) ((void)(test))
#else
static inline void set_fail_nth(unsigned int n) { }
static inline unsigned int get_fail_nth(void) { return 0; }
static inline void set_make_it_fail(int v) { }
#define NEED_FI(test) \
	kunit_skip(test, "needs CONFIG_FAIL_PAGE_ALLOC and CONFIG_FAULT_INJECTION_DEBUG_FS")
#endif

/*
 * The knobs are reached through debugfs but not read or written as files
 * (kernel_read/kernel_write need read_iter/write_iter, which debugfs
 * attribute files lack): each attribute file's inode holds a pointer to the
 * variable behind it, of the type its debugfs_create_*() call implies.
 */
enum ktype { KT_UL, KT_ATOMIC, KT_BOOL, KT_U32 };

struct knob {
	const char *dir, *name;
	enum ktype type;
	void *p;
	long saved;
};

enum { K_PROB, K_INTERVAL, K_TIMES, K_SPACE, K_VERBOSE, K_TASKF, K_MINORDER,
	K_IGN_WAIT, K_IGN_HIGH, K_SLAB_PROB, K_SLAB_VERBOSE, K_SLAB_TASKF, NR_KNOBS };

static struct knob fi_knobs[NR_KNOBS] = {
	[K_PROB]	 = { "fail_page_alloc", "probability", KT_UL },
	[K_INTERVAL]	 = { "fail_page_alloc", "interval", KT_UL },
	[K_TIMES]	 = { "fail_page_alloc", "times", KT_ATOMIC },
	[K_SPACE]	 = { "fail_page_alloc", "space", KT_ATOMIC },
	[K_VERBOSE]	 = { "fail_page_alloc", "verbose", KT_UL },
	[K_TASKF]	 = { "fail_page_alloc", "task-filter", KT_BOOL },
	[K_MINORDER]	 = { "fail_page_alloc", "min-order", KT_U32 },
	[K_IGN_WAIT]	 = { "fail_page_alloc", "ignore-gfp-wait", KT_BOOL },
	[K_IGN_HIGH]	 = { "fail_page_alloc", "ignore-gfp-highmem", KT_BOOL },
	[K_SLAB_PROB]	 = { "failslab", "probability", KT_UL },
	[K_SLAB_VERBOSE] = { "failslab", "verbose", KT_UL },
	[K_SLAB_TASKF]	 = { "failslab", "task-filter", KT_BOOL },
};

static void *knob_ptr(const char *dir, const char *name)
{
	struct dentry *d, *f;
	void *p = NULL;

	d = debugfs_lookup(dir, NULL);
	if (IS_ERR_OR_NULL(d))
		return NULL;
	f = debugfs_lookup(name, d);
	if (!IS_ERR_OR_NULL(f)) {
		p = d_inode(f)->i_private;
		dput(f);
	}
	dput(d);
	return p;
}

static long knob_get(const struct knob *k)
{
	switch (k->type) {
	case KT_UL:
		return READ_ONCE(*(unsigned long *)k->p);
	case KT_ATOMIC:
		return atomic_read((atomic_t *)k->p);
	case KT_BOOL:
		return READ_ONCE(*(bool *)k->p);
	default:
		return READ_ONCE(*(u32 *)k->p);
	}
}

static void knob_put(const struct knob *k, long v)
{
	switch (k->type) {
	case KT_UL:
		WRITE_ONCE(*(unsigned long *)k->p, v);
		break;
	case KT_ATOMIC:
		atomic_set((atomic_t *)k->p, v);
		break;
	case KT_BOOL:
		WRITE_ONCE(*(bool *)k->p, !!v);
		break;
	default:
		WRITE_ONCE(*(u32 *)k->p, v);
		break;
	}
}

static void fi_set(struct kunit *test, int k, long v)
{
	knob_put(&fi_knobs[k], v);
}

static void fi_restore(void *unused)
{
	int i;

	set_fail_nth(0);
	set_make_it_fail(0);
	/* probabilities first, so nothing fails while the rest is restored */
	knob_put(&fi_knobs[K_PROB], fi_knobs[K_PROB].saved);
	knob_put(&fi_knobs[K_SLAB_PROB], fi_knobs[K_SLAB_PROB].saved);
	for (i = 0; i < ARRAY_SIZE(fi_knobs); i++)
		knob_put(&fi_knobs[i], fi_knobs[i].saved);
}

/*
 * Make fail_page_alloc and failslab able to fail any allocation of a task
 * that asks for it (fail_nth or make_it_fail), and nothing else: probability
 * 0 (fail_nth does not look at it), task filter on, no gfp/order exemptions,
 * silent. Restored when the test ends.
 */
static void fi_setup(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fi_knobs); i++) {
		fi_knobs[i].p = knob_ptr(fi_knobs[i].dir, fi_knobs[i].name);
		KUNIT_ASSERT_NOT_NULL_MSG(test, fi_knobs[i].p,
					  "no debugfs knob %s/%s (CONFIG_FAIL_PAGE_ALLOC, FAILSLAB, FAULT_INJECTION_DEBUG_FS?)",
					  fi_knobs[i].dir, fi_knobs[i].name);
		fi_knobs[i].saved = knob_get(&fi_knobs[i]);
	}
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, fi_restore, NULL));
	fi_set(test, K_PROB, 0);
	fi_set(test, K_SLAB_PROB, 0);
	fi_set(test, K_INTERVAL, 1);
	fi_set(test, K_TIMES, -1);
	fi_set(test, K_SPACE, 0);
	fi_set(test, K_VERBOSE, 0);
	fi_set(test, K_SLAB_VERBOSE, 0);
	fi_set(test, K_TASKF, 1);
	fi_set(test, K_SLAB_TASKF, 1);
	fi_set(test, K_MINORDER, 0);
	fi_set(test, K_IGN_WAIT, 0);
	fi_set(test, K_IGN_HIGH, 0);
}

/* ====================================================================== */
/* Suite zsmalloc_mod_alloc                                                */

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
 * The chain length design.rst ("Chain length") gives a class of @size:
 * 1 to 8 pages, the fewest bytes wasted per page, ties to the shorter.
 */
static unsigned int chain_by_design(unsigned int size)
{
	unsigned int n, best = 1;

	for (n = 2; n <= 8; n++)
		/* waste(n) / n < waste(best) / best */
		if ((n * PAGE_SIZE) % size * best < (best * PAGE_SIZE) % size * n)
			best = n;
	return best;
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
	unsigned long pfns[MAX_PFNS], pfn;
	unsigned long *keys;
	unsigned int i, oi, n, spanned = 0;
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
	/* the geometry design.rst ("Chain length") promises, recomputed */
	KUNIT_EXPECT_EQ_MSG(test, c->ppz, chain_by_design(c->size), "class %u", c->size);
	KUNIT_EXPECT_EQ_MSG(test, c->opz, c->ppz * (unsigned int)PAGE_SIZE / c->size,
			    "class %u", c->size);
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
	}
	sort(keys, n, sizeof(*keys), cmp_ulong, NULL);
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_NE_MSG(test, keys[i], keys[i - 1], "two objects share a slot");
	if (class_spans(c))
		KUNIT_EXPECT_GT_MSG(test, spanned, 0U,
				    "class %u spans pages but no object did", c->size);

	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, c->arg, &info));
	KUNIT_EXPECT_EQ(test, info.objs_used, (unsigned long)n);
	KUNIT_EXPECT_EQ(test, info.zspages, (unsigned long)DIV_ROUND_UP(n, c->opz));
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Every object of the zspage holding object @first that straddles two
 * pages: map read-write, check, rewrite every byte, unmap, read back.
 * Returns how many there were.
 */
static unsigned int span_rw_zspage(struct tpool *tp, const struct tclass *c,
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

static bool pfns_consecutive(struct tpool *tp, unsigned int idx)
{
	unsigned long pfns[MAX_PFNS];
	int n = zspage_pfns(tp, idx, pfns), j;

	for (j = 1; j < n; j++)
		if (pfns[j] != pfns[j - 1] + 1)
			return false;
	return n > 0;
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
	fi_set(test, K_MINORDER, 1);
	fi_set(test, K_IGN_WAIT, 1);
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
 * Handles come in blocks owned by the class of their objects: the blocks
 * grow with the objects and are nearly all slots, a freed handle is
 * refused while its block lives and is the next one given out, and
 * emptied blocks go back to the slab allocator: all of them once the
 * class is empty.
 */
static void test_handle_blocks(struct kunit *test)
{
	const unsigned int n = 600;
	struct tpool *tp = tpool_create(test, n + 1);
	const struct tclass *c = pick_class(tp, 1, false);
	const unsigned long slots = n * sizeof(unsigned long);
	struct zsmod_pool_stats st;
	unsigned long pfn, dead, per_block;
	unsigned int i, oi, victim = n / 2;
	size_t len;
	int idx;

	KUNIT_ASSERT_NOT_NULL(test, c);
	len = len_for_class(c);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.handle_blocks, 0UL);
	KUNIT_EXPECT_EQ(test, st.handle_bytes, 0UL);

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_GE_MSG(test, tpool_alloc(tp, len, GFP_KERNEL), 0, "object %u", i);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.handles_used, (unsigned long)n);
	KUNIT_ASSERT_GT(test, st.handle_blocks, 1UL);
	per_block = st.handle_bytes / st.handle_blocks;
	/* slots plus block headers (under 1/8) plus at most one part-used block */
	KUNIT_EXPECT_GE(test, st.handle_bytes, slots);
	KUNIT_EXPECT_LE_MSG(test, st.handle_bytes, slots + slots / 8 + per_block,
			    "%lu blocks of %lu bytes for %u handles",
			    st.handle_blocks, per_block, n);

	dead = tp->h[victim];
	tpool_free(tp, victim);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_handle_location(tp->pool, dead, &pfn, &oi), -EINVAL,
			    "a freed handle still leads somewhere");
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.handles_used, (unsigned long)n - 1);
	idx = tpool_alloc(tp, len, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_EXPECT_EQ_MSG(test, tp->h[idx], dead, "the freed slot was not reused first");
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);

	tpool_free_all(tp);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.handles_used, 0UL);
	KUNIT_EXPECT_EQ_MSG(test, st.handle_blocks, 0UL, "emptied blocks kept");
	expect_consistent(tp);
	free_destroy_check(tp);
}

struct free_range {
	struct tpool *tp;
	unsigned int from, to;
};

static long free_range_fn(void *arg)
{
	struct free_range *r = arg;
	unsigned int i;

	for (i = r->from; i < r->to; i++)
		tpool_free(r->tp, i);
	return raw_smp_processor_id();
}

/*
 * Frees are queued per CPU (see "Freeing in batches" in zsmalloc_mod.c):
 * a freed handle is refused at once; the pool's statistics count every
 * free that returned, on whichever CPU it ran; and queued frees run by
 * themselves soon after: the pool's pages come back without anyone
 * reading the statistics or compacting.
 */
static void test_free_queue(struct kunit *test)
{
	struct zsmod_pool_stats st;
	unsigned long pfn, dead, deadline, live;
	unsigned int i, oi, cpu, ncpus, round;
	struct free_range r;
	struct tpool *tp;

	/*
	 * A round in which the drain worker (ZSMOD_FREE_DRAIN_DELAY after
	 * the first free) ran before the statistics proves nothing about
	 * them: it is repeated.
	 */
	for (round = 0; ; round++) {
		const struct tclass *c;

		tp = tpool_create(test, 4096);
		c = pick_class(tp, 1, false);
		KUNIT_ASSERT_NOT_NULL(test, c);
		c = fill_zspages(tp, len_for_class(c), GFP_KERNEL, 4);
		KUNIT_ASSERT_GE(test, tp->n, 16U);

		dead = tp->h[0];
		tpool_free(tp, 0);
		KUNIT_EXPECT_EQ_MSG(test, zsmod_handle_location(tp->pool, dead, &pfn, &oi),
				    -EINVAL,
				    "a freed handle still leads somewhere before its free ran");

		/* a few frees on each CPU, fewer than a batch */
		r = (struct free_range){ .tp = tp, .to = 1 };
		ncpus = 0;
		for_each_online_cpu(cpu) {
			r.from = r.to;
			r.to = min(r.from + 3, tp->n / 2);
			KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, free_range_fn, &r), (long)cpu);
			ncpus++;
		}
		zsmod_pool_stats(tp->pool, &st);
		kunit_info(test, "round %u: %u CPUs; %lu of %u frees still queued for the stats\n",
			   round, ncpus, st.frees_queued, r.to);
		if (st.frees_queued == r.to || round == 4)
			break;
		free_destroy_check(tp);
	}
	KUNIT_EXPECT_EQ_MSG(test, st.frees_queued, (unsigned long)r.to,
			    "the drain worker ran first in every round");
	live = 0;
	for (i = 0; i < tp->n; i++)
		live += tp->h[i] != 0;
	KUNIT_EXPECT_EQ(test, st.objs_used, live);
	KUNIT_EXPECT_EQ(test, st.handles_used, live);
	expect_consistent(tp);

	/* the rest, then nobody asks: the pages still come back */
	tpool_free_all(tp);
	deadline = jiffies + HZ;
	while (zsmod_get_total_pages(tp->pool) && time_before(jiffies, deadline))
		usleep_range(5000, 10000);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_get_total_pages(tp->pool), 0UL,
			    "queued frees still hold pages after a second");
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * The pool's shrinker counts queued frees as done: zspages that only queued
 * frees still hold are worth a scan, and the scan gives their pages back.
 * Fewer frees than a batch stay queued until the drain worker runs them
 * (ZSMOD_FREE_DRAIN_DELAY): a round in which it ran between the frees and
 * the count proves nothing and is repeated.
 */
static void test_shrinker_counts_queued(struct kunit *test)
{
	const unsigned int nobj = 6, nfree = 4;
	unsigned int round, i;

	for (round = 0; round < 5; round++) {
		struct tpool *tp = tpool_create(test, nobj);
		struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
		const struct tclass *c = huge_class(tp);
		unsigned long full, before, count, after, freed;
		struct shrinker *shrinker;

		shrinker = zsmod_pool_shrinker(tp->pool);
		if (!shrinker)
			kunit_skip(test, "the pool has no shrinker");
		KUNIT_ASSERT_NOT_NULL(test, c);
		for (i = 0; i < nobj; i++)
			KUNIT_ASSERT_GE(test, tpool_alloc(tp, c->max, GFP_KERNEL), 0);
		full = zsmod_get_total_pages(tp->pool);
		KUNIT_ASSERT_EQ(test, full, (unsigned long)nobj * c->ppz);

		for (i = 0; i < nfree; i++)
			tpool_free(tp, i);
		before = zsmod_get_total_pages(tp->pool);
		count = shrinker->count_objects(shrinker, &sc);
		after = zsmod_get_total_pages(tp->pool);
		if (before != full || after != full) {
			kunit_info(test, "round %u: the drain worker ran first\n", round);
			continue;
		}
		KUNIT_EXPECT_GE_MSG(test, count, (unsigned long)nfree * c->ppz,
				    "the count misses the pages of %u queued frees", nfree);

		/* the scan runs the queued frees itself, unless the worker did */
		if (zsmod_get_total_pages(tp->pool) != full) {
			kunit_info(test, "round %u: the drain worker ran before the scan\n",
				   round);
			continue;
		}
		sc.nr_to_scan = count;
		freed = shrinker->scan_objects(shrinker, &sc);
		KUNIT_EXPECT_EQ(test, freed, (unsigned long)nfree * c->ppz);
		KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool),
				(unsigned long)(nobj - nfree) * c->ppz);
		KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
		expect_consistent(tp);
		return;
	}
	KUNIT_FAIL(test, "the drain worker ran first in every round");
}

#define PARAMS "/sys/module/zsmalloc_mod/parameters/"

static int write_param(const char *name, const char *val)
{
	char path[96];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, val, strlen(val), &pos);
	filp_close(f, NULL);
	return n < 0 ? n : 0;
}

static int read_param(const char *name, char *val, size_t size)
{
	char path[96];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, val, size - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0)
		return n < 0 ? n : -EIO;
	val[n] = '\0';
	return 0;
}

/* The values of our bool knobs before a test changed them. */
struct saved_params {
	char shrinker_enabled[4], auto_compact[4];
};

static void params_restore(void *arg)
{
	struct saved_params *sp = arg;

	write_param("shrinker_enabled", sp->shrinker_enabled);
	write_param("auto_compact", sp->auto_compact);
}

/* Save our knobs; they are put back when the test ends, however it ends. */
static void params_save(struct kunit *test)
{
	struct saved_params *sp = kunit_kzalloc(test, sizeof(*sp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sp);
	KUNIT_ASSERT_EQ(test, read_param("shrinker_enabled", sp->shrinker_enabled,
					 sizeof(sp->shrinker_enabled)), 0);
	KUNIT_ASSERT_EQ(test, read_param("auto_compact", sp->auto_compact,
					 sizeof(sp->auto_compact)), 0);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, params_restore, sp));
}

/*
 * shrinker_enabled=N switches the shrinker off without unregistering it:
 * it counts nothing and its scan stops at once, changing nothing; back on,
 * it compacts again. (auto_compact off, so that only the shrinker does.)
 */
static void test_shrinker_disabled(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	struct shrink_control sc = { .gfp_mask = GFP_KERNEL };
	const struct tclass *c = pick_class(tp, 1, false);
	struct zsmod_pool_stats st;
	struct shrinker *shrinker;
	unsigned long pages, count;
	unsigned int i;

	shrinker = zsmod_pool_shrinker(tp->pool);
	if (!shrinker)
		kunit_skip(test, "the pool has no shrinker");
	KUNIT_ASSERT_NOT_NULL(test, c);
	params_save(test);
	KUNIT_ASSERT_EQ(test, write_param("auto_compact", "N"), 0);
	c = fill_zspages(tp, len_for_class(c), GFP_KERNEL, 4);
	for (i = 0; i < tp->n; i += 2)
		tpool_free(tp, i);
	zsmod_pool_stats(tp->pool, &st);	/* runs the queued frees */
	pages = zsmod_get_total_pages(tp->pool);
	KUNIT_ASSERT_EQ(test, pages, 4UL * c->ppz);

	KUNIT_ASSERT_EQ(test, write_param("shrinker_enabled", "N"), 0);
	KUNIT_EXPECT_EQ(test, shrinker->count_objects(shrinker, &sc), 0UL);
	sc.nr_to_scan = 128;
	KUNIT_EXPECT_EQ(test, shrinker->scan_objects(shrinker, &sc), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), pages);

	KUNIT_ASSERT_EQ(test, write_param("shrinker_enabled", "Y"), 0);
	count = shrinker->count_objects(shrinker, &sc);
	KUNIT_EXPECT_EQ(test, count, 2UL * c->ppz);
	sc.nr_to_scan = count;
	KUNIT_EXPECT_EQ(test, shrinker->scan_objects(shrinker, &sc), 2UL * c->ppz);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), 2UL * c->ppz);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Free one object of a full zspage and allocate again: the slot is reused,
 * no page is added; then empty the pool and allocate again.
 */
static void test_free_reuse(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 1, false);
	struct zsmod_pool_stats st;
	unsigned long pfn, pfn2;
	unsigned int oi, oi2, victim;
	size_t len;
	int idx;

	KUNIT_ASSERT_NOT_NULL(test, c);
	len = c->size / 2;
	c = fill_zspages(tp, len, GFP_KERNEL, 1);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.pages_used, (unsigned long)c->ppz);
	KUNIT_EXPECT_EQ(test, st.objs_used, (unsigned long)c->opz);

	victim = c->opz / 2;
	KUNIT_ASSERT_EQ(test, 0, zsmod_handle_location(tp->pool, tp->h[victim], &pfn, &oi));
	tpool_free(tp, victim);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.objs_used, (unsigned long)c->opz - 1);
	KUNIT_EXPECT_EQ(test, st.pages_used, (unsigned long)c->ppz);

	idx = tpool_alloc(tp, len, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_ASSERT_EQ(test, 0, zsmod_handle_location(tp->pool, tp->h[idx], &pfn2, &oi2));
	KUNIT_EXPECT_EQ_MSG(test, pfn2, pfn, "freed slot not reused");
	KUNIT_EXPECT_EQ_MSG(test, oi2, oi, "freed slot not reused");
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_EQ(test, st.pages_used, (unsigned long)c->ppz);
	KUNIT_EXPECT_EQ(test, st.objs_used, (unsigned long)c->opz);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);

	/* empty pool, then reuse from nothing */
	tpool_free_all(tp);
	expect_consistent(tp);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), 0UL);
	idx = tpool_alloc(tp, len, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_EXPECT_EQ(test, tpool_check(tp, idx), -1L);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Slot borrowing for rare sizes (ZSMOD_RARE_* in zsmalloc_mod.c): once the
 * pool holds RARE_POOL_PAGES pages, an object whose class has no zspage yet
 * takes a free slot of a class up to RARE_BORROW_BYTES larger instead of
 * opening a zspage; in a smaller pool it opens its own zspage.
 */
#define RARE_POOL_PAGES		1024
#define RARE_BORROW_BYTES	1024
static void test_rare_class_borrow(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const size_t big_len = 2000, rare_len = 1200;
	const struct tclass *big, *rare, *got;
	struct zsmod_class_info info;
	unsigned long pages;
	int idx;

	/* small pool: the rare size opens its own zspage */
	alloc_find_class(tp, big_len, MOVABLE_GFP, &big);
	KUNIT_ASSERT_GT(test, big->opz, 1U);
	idx = alloc_find_class(tp, rare_len, MOVABLE_GFP, &rare);
	KUNIT_ASSERT_LT(test, rare->size, big->size);
	KUNIT_ASSERT_GT(test, big->size - rare->size, 64U);
	KUNIT_ASSERT_LE(test, big->size - rare->size, (unsigned int)RARE_BORROW_BYTES);
	KUNIT_EXPECT_EQ(test, tpool_check(tp, idx), -1L);
	tpool_free(tp, idx);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, rare->arg, &info));
	KUNIT_ASSERT_EQ(test, info.zspages, 0UL);

	/* grow the pool, then leave a free slot in the big class */
	while (zsmod_get_total_pages(tp->pool) < RARE_POOL_PAGES)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, big_len, MOVABLE_GFP), 0);
	do {
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, big_len, MOVABLE_GFP), 0);
		KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, big->arg, &info));
	} while (info.objs_allocated == info.objs_used);

	pages = zsmod_get_total_pages(tp->pool);
	idx = alloc_find_class(tp, rare_len, MOVABLE_GFP, &got);
	KUNIT_EXPECT_PTR_EQ_MSG(test, got, big, "rare size not placed in a free slot of class %u",
				big->size);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), pages);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, rare->arg, &info));
	KUNIT_EXPECT_EQ(test, info.zspages, 0UL);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * The borrowing budget (ZSMOD_RARE_BORROW_BYTES's comment in
 * zsmalloc_mod.c): while the pool is smaller than BUDGET_POOL_PAGES a
 * class borrows slots of a larger class without limit; in a larger pool
 * only until the bytes they leave unused reach one zspage of its own, and
 * then it opens its own zspage. The budget renews when the class has no
 * zspage left.
 */
#define BUDGET_POOL_PAGES	16384
static void test_borrow_budget(struct kunit *test)
{
	const unsigned int cap = BUDGET_POOL_PAGES + 4096;
	struct tpool *tp = tpool_create(test, cap);
	const struct tclass *small = NULL, *large = NULL;
	struct zsmod_class_info si, li;
	unsigned long budget, borrows, used_before, pages, i;
	unsigned int delta, nl;
	int idx, own;

	/* a one-page class and the next class, at most 64 bytes larger */
	for (i = 0; i + 1 < tp->ntab; i++) {
		small = &tp->tab[i];
		large = &tp->tab[i + 1];
		if (!small->huge && !large->huge && small->ppz == 1 &&
		    large->size - small->size <= 64)
			break;
		small = NULL;
	}
	KUNIT_ASSERT_NOT_NULL(test, small);
	delta = large->size - small->size;
	budget = (unsigned long)small->ppz * PAGE_SIZE;
	borrows = DIV_ROUND_UP(budget, delta) + 8;	/* past the budget */

	/* free slots in the large class: more than the objects that borrow */
	nl = 2 * (2 * borrows + large->opz);
	KUNIT_ASSERT_LE(test, nl + 2 * borrows + 4, 4096UL);
	for (i = 0; i < nl; i++)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, large->max, MOVABLE_GFP), 0);
	for (i = 0; i < nl; i += 2)
		tpool_free(tp, i);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, large->arg, &li));
	KUNIT_ASSERT_GT(test, li.objs_allocated - li.objs_used, 2 * borrows);
	KUNIT_ASSERT_LT(test, zsmod_get_total_pages(tp->pool), 1024UL);

	/* small pool: the small class borrows past its budget */
	used_before = li.objs_used;
	pages = zsmod_get_total_pages(tp->pool);
	for (i = 0; i < borrows; i++)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, small->max, MOVABLE_GFP), 0);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, small->arg, &si));
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, large->arg, &li));
	KUNIT_EXPECT_EQ_MSG(test, si.objs_used, 0UL,
			    "class %u stopped borrowing in a pool of %lu pages",
			    small->size, pages);
	KUNIT_EXPECT_EQ(test, li.objs_used, used_before + borrows);
	KUNIT_EXPECT_EQ(test, si.borrow_waste, borrows * delta);
	KUNIT_EXPECT_GT(test, si.borrow_waste, budget);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), pages);

	/* grow the pool past the threshold with one-page objects */
	while (zsmod_get_total_pages(tp->pool) < BUDGET_POOL_PAGES)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, PAGE_SIZE, MOVABLE_GFP), 0);

	/* large pool, budget spent: the next object opens its own zspage */
	own = tpool_alloc(tp, small->max, MOVABLE_GFP);
	KUNIT_ASSERT_GE(test, own, 0);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, small->arg, &si));
	KUNIT_EXPECT_EQ_MSG(test, si.objs_used, 1UL,
			    "class %u kept borrowing past its budget of %lu bytes",
			    small->size, budget);
	KUNIT_EXPECT_EQ(test, si.zspages, 1UL);

	/* its zspage gone, the class borrows again */
	tpool_free(tp, own);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, small->arg, &si));
	KUNIT_EXPECT_EQ(test, si.zspages, 0UL);
	KUNIT_EXPECT_EQ(test, si.borrow_waste, 0UL);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, large->arg, &li));
	used_before = li.objs_used;
	idx = tpool_alloc(tp, small->max, MOVABLE_GFP);
	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, small->arg, &si));
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, large->arg, &li));
	KUNIT_EXPECT_EQ_MSG(test, si.objs_used, 0UL, "the budget did not renew");
	KUNIT_EXPECT_EQ(test, li.objs_used, used_before + 1);

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

/*
 * Destroying a pool that still holds objects (a leaking user), some of
 * them with frees queued, in a small, a spanning and the huge class:
 * every page comes back. (A handle block left behind would show as a
 * WARNING from free_handle_blocks() and from the slab cache at rmmod,
 * which fails the run.)
 */
static void test_destroy_with_objects(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 256);
	const struct tclass *small = pick_class(tp, 1, false);
	const struct tclass *span = pick_class(tp, 2, true);
	const struct tclass *huge = huge_class(tp);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, small);
	KUNIT_ASSERT_NOT_NULL(test, span);
	KUNIT_ASSERT_NOT_NULL(test, huge);
	for (i = 0; i < 60; i++) {
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, small->max, GFP_KERNEL), 0);
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, span->max, MOVABLE_GFP), 0);
		if (i < 10)
			KUNIT_ASSERT_GE(test, tpool_alloc(tp, huge->max, GFP_KERNEL), 0);
	}
	for (i = 0; i < tp->n; i += 3)
		tpool_free(tp, i);
	KUNIT_ASSERT_GT(test, zsmod_get_total_pages(tp->pool), 0UL);

	zsmod_destroy_pool(tp->pool);
	tp->pool = NULL;
	KUNIT_EXPECT_EQ_MSG(test, nr_zspages(), tp->base_zspages,
			    "pages of live objects not returned by destroy");
	expect_no_stray_pages(test, tp->base_stray, "after destroying a pool with objects");
}

/*
 * A handle of another pool is refused: class indexes are the same in every
 * pool, so only the handle's block tells whose it is. Through the lookups
 * that answer -EINVAL (free would also warn, and map under
 * CONFIG_DEBUG_VM).
 */
static void test_foreign_handle(struct kunit *test)
{
	struct tpool *a = tpool_create(test, 4), *b;
	unsigned long pfn, pfns[MAX_PFNS];
	unsigned int oi;
	int ia, ib;

	ia = tpool_alloc(a, 100, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, ia, 0);
	/* NR_ZSPAGES is global: b's baseline includes a's pages */
	b = tpool_create(test, 4);
	ib = tpool_alloc(b, 100, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, ib, 0);
	KUNIT_EXPECT_EQ(test, zsmod_handle_location(a->pool, a->h[ia], &pfn, &oi), 0);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_handle_location(b->pool, a->h[ia], &pfn, &oi), -EINVAL,
			    "pool b took a handle of pool a for its own");
	KUNIT_EXPECT_EQ(test, zsmod_handle_zspage_pfns(b->pool, a->h[ia], pfns, MAX_PFNS),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, zsmod_handle_location(b->pool, b->h[ib], &pfn, &oi), 0);
	KUNIT_EXPECT_EQ(test, tpool_check(a, ia), -1L);
	KUNIT_EXPECT_EQ(test, tpool_check(b, ib), -1L);
	expect_consistent(b);
	free_destroy_check(b);
	expect_consistent(a);
	free_destroy_check(a);
}

/*
 * A zspage has room but every handle block of the class is full, and the
 * block allocation without sleeping fails: the object still goes into the
 * free slot, with a block allocated as the caller's gfp allows, and the
 * pool does not grow.
 */
static void test_handle_block_refused(struct kunit *test)
{
#ifdef HAVE_FI
	const unsigned int per_block = 60;	/* ZSMOD_HANDLES_PER_BLOCK */
	struct tpool *tp = tpool_create(test, per_block + 1);
	const struct tclass *c = NULL;
	unsigned long pages;
	unsigned int i, left;
	int k, idx;

	for (k = 0; k < tp->ntab; k++) {
		if (!tp->tab[k].huge && per_block % tp->tab[k].opz) {
			c = &tp->tab[k];
			break;
		}
	}
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < per_block; i++)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, c->max, GFP_KERNEL), 0);
	pages = zsmod_get_total_pages(tp->pool);
	KUNIT_ASSERT_EQ(test, pages, DIV_ROUND_UP(per_block, c->opz) * c->ppz);

	/* the first fault point is the class's block allocation */
	fi_setup(test);
	set_fail_nth(1);
	idx = tpool_alloc(tp, c->max, GFP_KERNEL);
	left = get_fail_nth();
	set_fail_nth(0);
	KUNIT_ASSERT_GE(test, idx, 0);
	KUNIT_EXPECT_EQ_MSG(test, left, 0U, "no allocation failed: the class had a free handle");
	KUNIT_EXPECT_EQ_MSG(test, zsmod_get_total_pages(tp->pool), pages,
			    "class %u opened a zspage while one had room", c->size);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
#else
	NEED_FI(test);
#endif
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
 * back to @pages pages, since an empty zspage whose page is locked at that
 * moment is freed later by a worker. Returns true if it got there.
 */
static bool settle_pages(struct tpool *tp, unsigned long pages)
{
	unsigned long deadline = jiffies + HZ;

	while (zsmod_get_total_pages(tp->pool) != pages) {
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
			KUNIT_EXPECT_TRUE_MSG(test, settle_pages(tp, before.pages_used),
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
		fi_set(test, K_SPACE, k + 1);
		fi_set(test, K_PROB, 100);
		set_make_it_fail(1);
		ret = zsmod_malloc(tp->pool, len, gfp, &handle);
		set_make_it_fail(0);
		fi_set(test, K_PROB, 0);
		fi_set(test, K_SPACE, 0);
		if (!ret) {
			zsmod_pool_stats(tp->pool, &after);
			KUNIT_EXPECT_GE_MSG(test, k, ppz,
					    "len %zu: a zspage of %u pages with only %u pages to be had (pages %lu -> %lu, objs %lu/%lu -> %lu/%lu)",
					    len, ppz, k, before.pages_used, after.pages_used,
					    before.objs_used, before.objs_allocated,
					    after.objs_used, after.objs_allocated);
			zsmod_free(tp->pool, handle);
			KUNIT_EXPECT_TRUE_MSG(test, settle_pages(tp, before.pages_used),
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

static struct kunit_case alloc_cases[] = {
	KUNIT_CASE_PARAM(test_alloc_size, size_gen),
	KUNIT_CASE(test_span_rw),
	KUNIT_CASE(test_handle_uniqueness),
	KUNIT_CASE(test_handle_blocks),
	KUNIT_CASE(test_free_reuse),
	KUNIT_CASE(test_free_queue),
	KUNIT_CASE(test_foreign_handle),
	KUNIT_CASE(test_destroy_with_objects),
	KUNIT_CASE(test_handle_block_refused),
	KUNIT_CASE(test_shrinker_counts_queued),
	KUNIT_CASE(test_shrinker_disabled),
	KUNIT_CASE(test_rare_class_borrow),
	KUNIT_CASE(test_borrow_budget),
	KUNIT_CASE(test_invalid_sizes),
	KUNIT_CASE(test_stats_many_classes),
	KUNIT_CASE(test_alloc_enomem),
	{}
};

static struct kunit_suite alloc_suite = {
	.name = "zsmalloc_mod_alloc",
	.suite_init = alloc_suite_init,
	.suite_exit = alloc_suite_exit,
	.test_cases = alloc_cases,
};

/* ====================================================================== */
/* Suite zsmalloc_mod_migration                                            */

#ifdef CONFIG_CONTIG_ALLOC
/*
 * Migrate the page at @pfn through the kernel's migration core: take
 * [pfn, pfn + 1) with alloc_contig_range(), which isolates the page through
 * our movable_operations and migrates it, then give the range back.
 * Retries transient -EBUSY.
 */
static int migrate_pfn(unsigned long pfn)
{
	int ret = -EBUSY, tries;

	for (tries = 0; tries < 3; tries++) {
		ret = alloc_contig_range(pfn, pfn + 1, MIGRATE_MOVABLE,
					 GFP_KERNEL | __GFP_NOWARN);
		if (!ret) {
			free_contig_range(pfn, 1);
			return 0;
		}
		if (ret != -EBUSY)
			break;
		usleep_range(5000, 10000);
	}
	return ret;
}

#define NEED_CONTIG(test) ((void)(test))
#else
static int migrate_pfn(unsigned long pfn)
{
	return -EOPNOTSUPP;
}

#define NEED_CONTIG(test) \
	kunit_skip(test, "kernel without CONFIG_CONTIG_ALLOC (set CONFIG_CMA)")
#endif

/*
 * Compact every zone (vm.compact_memory = 1): the migration core moves
 * movable pages, ours included, towards the end of each zone. Returns how
 * many of the pool's pages that migrated (or a negative errno).
 */
static long compact_all(struct tpool *tp)
{
	struct zsmod_pool_stats st0, st1;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	zsmod_pool_stats(tp->pool, &st0);
	f = filp_open("/proc/sys/vm/compact_memory", O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, "1\n", 2, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	zsmod_pool_stats(tp->pool, &st1);
	kunit_info(tp->test, "vm.compact_memory migrated %lu of the pool's %lu pages\n",
		   st1.pages_migrated - st0.pages_migrated, st1.pages_used);
	return st1.pages_migrated - st0.pages_migrated;
}

static bool pfn_in(unsigned long pfn, const unsigned long *set, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i] == pfn)
			return true;
	return false;
}

/*
 * Why alloc_contig_range() may refuse @pfn: the pageblock isolation checks
 * every page of the pageblock (has_unmovable_pages()). Log what it sees.
 */
static void explain_busy(struct kunit *test, unsigned long pfn)
{
	unsigned long start = ALIGN_DOWN(pfn, pageblock_nr_pages), p, flags;
	unsigned int reserved = 0, buddy = 0, free0 = 0, movable = 0, other = 0;
	struct page *first = NULL;

	for (p = start; p < start + pageblock_nr_pages; p++) {
		struct page *page;

		if (!pfn_valid(p))
			continue;
		page = pfn_to_page(p);
		if (PageReserved(page)) {
			reserved++;
		} else if (!page_ref_count(page)) {
			if (PageBuddy(page))
				buddy++;
			else
				free0++;
		} else if (__PageMovable(page) || PageLRU(page)) {
			movable++;
		} else {
			if (!first)
				first = page;
			other++;
		}
	}
	kunit_info(test, "pageblock %#lx of pfn %#lx: %u reserved, %u buddy, %u free, %u movable, %u other\n",
		   start, pfn, reserved, buddy, free0, movable, other);
	if (first) {
		flags = first->flags;
		kunit_info(test, "first other: pfn %#lx refcount %d flags %pGp\n",
			   page_to_pfn(first), page_ref_count(first), &flags);
	}
}

/*
 * The page allocator serves order-0 requests from its smallest free blocks
 * first, and in a freshly booted guest those are the leftovers around
 * boot-time (memblock) reservations: our zspages land in pageblocks that
 * alloc_contig_range() can never isolate. So before filling zspages to
 * migrate, take a whole free pageblock of the local node's highest zone
 * (ZONE_MOVABLE with movablecore=) with alloc_contig_range() and free it at
 * once: its pages go to the head of this CPU's per-cpu free list, where the
 * next allocations find them. Returns the pageblock's pfn or -ENOSPC.
 */
static long offer_clean_pageblock(struct kunit *test)
{
#ifdef CONFIG_CONTIG_ALLOC
	pg_data_t *pgdat = NODE_DATA(numa_mem_id());
	struct zone *zone = NULL;
	unsigned long pfn, end, p;
	int z;

	for (z = MAX_NR_ZONES - 1; z >= 0 && !zone; z--)
		if (populated_zone(&pgdat->node_zones[z]))
			zone = &pgdat->node_zones[z];
	if (!zone)
		return -ENOSPC;
	end = zone_end_pfn(zone);
	pfn = ALIGN(zone->zone_start_pfn + (end - zone->zone_start_pfn) / 4,
		    pageblock_nr_pages);
	for (; pfn + pageblock_nr_pages <= end; pfn += pageblock_nr_pages) {
		for (p = pfn; p < pfn + pageblock_nr_pages; p++) {
			struct page *page;

			if (!pfn_valid(p))
				break;
			page = pfn_to_page(p);
			if (PageReserved(page) || page_ref_count(page))
				break;
		}
		if (p < pfn + pageblock_nr_pages)
			continue;
		if (alloc_contig_range(pfn, pfn + pageblock_nr_pages, MIGRATE_MOVABLE,
				       GFP_KERNEL | __GFP_NOWARN))
			continue;
		free_contig_range(pfn, pageblock_nr_pages);
		return pfn;
	}
#endif
	return -ENOSPC;
}

/*
 * Migrate every page of the zspage that holds object @idx. Which pages
 * moved is read back from the zspage (a page moved when the pfn at its
 * position in the chain changed), not from alloc_contig_range()'s result:
 * it fails with -EBUSY when the page's pageblock holds pages it cannot move,
 * which says nothing about us. @old receives the pfns before; returns how
 * many pages moved and sets *np to the zspage's page count.
 */
static int migrate_zspage(struct tpool *tp, unsigned int idx, unsigned long *old, int *np)
{
	unsigned long now[MAX_PFNS];
	int j, n, moved = 0;

	*np = zspage_pfns(tp, idx, old);
	for (j = 0; j < *np; j++)
		migrate_pfn(old[j]);
	n = zspage_pfns(tp, idx, now);
	if (n != *np)
		return -EIO;
	for (j = 0; j < n; j++)
		moved += now[j] != old[j];
	return moved;
}

/*
 * Among @nz zspages of @c filled from object @first on (objects go to
 * zspages in order), migrate whole zspages from the first one on until
 * one moves completely. Returns the index of an object in it, or -1; every
 * page that moved on the way is added to @moved (*nmoved, at most @cap).
 */
static int migrate_some_zspage(struct tpool *tp, const struct tclass *c,
			       unsigned int first, unsigned int nz,
			       unsigned long *moved, unsigned int *nmoved, unsigned int cap,
			       unsigned long *victim_old)
{
	unsigned long old[MAX_PFNS], now[MAX_PFNS];
	int z, j, np, got;

	for (z = 0; z < nz; z++) {
		unsigned int idx = first + z * c->opz;

		got = migrate_zspage(tp, idx, old, &np);
		if (got <= 0 && z == 0)
			explain_busy(tp->test, old[0]);
		if (got <= 0)
			continue;
		zspage_pfns(tp, idx, now);
		for (j = 0; j < np; j++)
			if (now[j] != old[j] && *nmoved < cap)
				moved[(*nmoved)++] = old[j];
		if (got == np) {
			if (victim_old)
				memcpy(victim_old, old, np * sizeof(*old));
			return idx;
		}
	}
	return -1;
}

/*
 * Fill @nz zspages of the class @len lands in (just after offering a clean
 * pageblock) and migrate one of them entirely; a few rounds, each with
 * fresh zspages, since our pages may still land where nothing can be
 * isolated (the offered pages may sit on the other CPU's free list).
 * Returns an object of the migrated zspage or -1; *cls is the class.
 */
static int fill_migrate_one(struct tpool *tp, size_t len, unsigned int nz,
			    const struct tclass **cls, unsigned long *moved,
			    unsigned int *nmoved, unsigned int cap, unsigned long *victim_old)
{
	unsigned int first, round;
	int v = -1;

	for (round = 0; round < 4 && v < 0; round++) {
		offer_clean_pageblock(tp->test);
		first = tp->n;
		*cls = fill_zspages(tp, len, MOVABLE_GFP, nz);
		v = migrate_some_zspage(tp, *cls, first, nz, moved, nmoved, cap, victim_old);
	}
	return v;
}

#ifdef ZSMOD_HAVE_DROPBEHIND
#define BAD_PAGE_FLAGS	(BIT(PG_reclaim) | BIT(PG_dropbehind))
#else
#define BAD_PAGE_FLAGS	BIT(PG_reclaim)
#endif

/*
 * Every page of every live object's zspage: movable, and no PG_reclaim
 * (PG_isolated shares its bit: left set after a migration it would mean an
 * isolation that was never undone) nor PG_dropbehind. Returns pages seen.
 */
static unsigned int expect_page_flags(struct tpool *tp, const char *when)
{
	struct kunit *test = tp->test;
	unsigned long pfns[MAX_PFNS];
	unsigned int i, seen = 0;
	int np, k;

	for (i = 0; i < tp->n; i++) {
		if (!tp->h[i])
			continue;
		np = zspage_pfns(tp, i, pfns);
		KUNIT_EXPECT_GT(test, np, 0);
		for (k = 0; k < np; k++) {
			struct page *page = pfn_to_page(pfns[k]);
			unsigned long flags = READ_ONCE(page->flags);

			KUNIT_EXPECT_EQ_MSG(test, flags & BAD_PAGE_FLAGS, 0UL,
					    "%s: pfn %#lx flags %pGp", when, pfns[k], &flags);
			KUNIT_EXPECT_TRUE_MSG(test, __PageMovable(page),
					      "%s: pfn %#lx is not a movable_ops page",
					      when, pfns[k]);
			seen++;
		}
	}
	return seen;
}

/*
 * Migrate whole zspages of three geometries (one page, several pages with
 * straddling objects, huge) and check contents, new locations and stats.
 */
static void test_migrate_pages(struct kunit *test)
{
	const unsigned int nz = 24, cap = 3 * 24 * MAX_PFNS;
	struct tpool *tp;
	const struct tclass *cls[3];
	unsigned long *oldpfn, *moved, now[MAX_PFNS], vold[3][MAX_PFNS];
	struct zsmod_pool_stats st0, st1;
	unsigned int i, k, first[3], nmoved = 0, moved_objs = 0, bad = 0;
	unsigned long zsp;
	int victim[3], np, j;

	NEED_CONTIG(test);
	tp = tpool_create(test, 4096);
	cls[0] = pick_class_sized(tp, 1, false, 512);
	cls[1] = pick_class_sized(tp, 2, true, 512);
	cls[2] = huge_class(tp);
	for (k = 0; k < 3; k++) {
		KUNIT_ASSERT_NOT_NULL(test, cls[k]);
		KUNIT_EXPECT_GE(test, offer_clean_pageblock(test), 0L);
		first[k] = tp->n;
		cls[k] = fill_zspages(tp, len_for_class(cls[k]), MOVABLE_GFP, nz);
	}
	expect_page_flags(tp, "after allocation");

	oldpfn = kunit_kcalloc(test, tp->cap, sizeof(*oldpfn), GFP_KERNEL);
	moved = kunit_kcalloc(test, cap, sizeof(*moved), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, oldpfn);
	KUNIT_ASSERT_NOT_NULL(test, moved);
	for (i = 0; i < tp->n; i++) {
		oldpfn[i] = obj_pfn(tp, i);
		KUNIT_ASSERT_NE(test, oldpfn[i], 0UL);
	}
	zsmod_pool_stats(tp->pool, &st0);
	zsp = nr_zspages();

	for (k = 0; k < 3; k++) {
		victim[k] = migrate_some_zspage(tp, cls[k], first[k], nz, moved, &nmoved,
						cap, vold[k]);
		if (victim[k] < 0) {
			/* more zspages (recorded as unmoved before migrating) */
			unsigned int from = tp->n, round;
			struct zsmod_pool_stats more0, more1;

			for (round = 0; round < 3 && victim[k] < 0; round++) {
				zsmod_pool_stats(tp->pool, &more0);
				offer_clean_pageblock(test);
				from = tp->n;
				fill_zspages(tp, len_for_class(cls[k]), MOVABLE_GFP, nz);
				for (i = from; i < tp->n; i++)
					oldpfn[i] = obj_pfn(tp, i);
				zsmod_pool_stats(tp->pool, &more1);
				/* the new zspages' pages are not migrations */
				st0.pages_used += more1.pages_used - more0.pages_used;
				st0.objs_used += more1.objs_used - more0.objs_used;
				st0.objs_allocated += more1.objs_allocated - more0.objs_allocated;
				zsp += more1.pages_used - more0.pages_used;
				victim[k] = migrate_some_zspage(tp, cls[k], from, nz, moved,
								&nmoved, cap, vold[k]);
			}
		}
		KUNIT_EXPECT_GE_MSG(test, victim[k], 0,
				    "class %u: no zspage could be migrated entirely", cls[k]->size);
	}
	kunit_info(test, "%u pages migrated\n", nmoved);

	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	/* a fully migrated zspage sits on pages none of which it had before */
	for (k = 0; k < 3; k++) {
		if (victim[k] < 0)
			continue;
		np = zspage_pfns(tp, victim[k], now);
		KUNIT_EXPECT_EQ(test, np, (int)cls[k]->ppz);
		for (j = 0; j < np; j++)
			KUNIT_EXPECT_FALSE_MSG(test, pfn_in(now[j], vold[k], np),
					       "class %u: page %d back on a pfn it was migrated from",
					       cls[k]->size, j);
	}
	/* objects on moved pages resolve to a new pfn, the others did not move */
	for (i = 0; i < tp->n; i++) {
		unsigned long pfn = obj_pfn(tp, i);

		if (pfn_in(oldpfn[i], moved, nmoved)) {
			moved_objs++;
			if (pfn == oldpfn[i] && bad++ < 5)
				KUNIT_FAIL(test,
					   "object %u: handle still resolves to the old pfn %#lx",
					   i, pfn);
		} else if (pfn != oldpfn[i] && bad++ < 5) {
			KUNIT_FAIL(test, "object %u moved from %#lx to %#lx without being migrated",
				   i, oldpfn[i], pfn);
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	KUNIT_EXPECT_GT(test, moved_objs, 0U);

	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_EXPECT_EQ(test, st1.pages_used, st0.pages_used);
	KUNIT_EXPECT_EQ(test, st1.objs_used, st0.objs_used);
	KUNIT_EXPECT_EQ(test, st1.objs_allocated, st0.objs_allocated);
	KUNIT_EXPECT_EQ(test, st1.pages_migrated - st0.pages_migrated, (unsigned long)nmoved);
	KUNIT_EXPECT_EQ(test, st1.migrate_aborted, st0.migrate_aborted);
	KUNIT_EXPECT_EQ(test, nr_zspages(), zsp);
	expect_page_flags(tp, "after migration");
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Migration of a zspage holding objects whose free is still queued: their
 * handles must stay dead (the mover rewrites every object's location,
 * and must keep the free's mark), and once the queues run, those objects
 * are gone and every other reads back.
 */
static void test_migrate_queued_free(struct kunit *test)
{
	const unsigned int nz = 4, cap = 4 * MAX_PFNS;
	unsigned long moved[4 * MAX_PFNS], dead[4], pfn;
	unsigned int z, oi, first, round, nmoved = 0;
	struct zsmod_pool_stats st;
	const struct tclass *c;
	struct tpool *tp;
	int v = -1;

	NEED_CONTIG(test);
	tp = tpool_create(test, 4096);
	c = pick_class_sized(tp, 2, true, 512);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for (round = 0; round < 4 && v < 0; round++) {
		offer_clean_pageblock(test);
		first = tp->n;
		c = fill_zspages(tp, len_for_class(c), MOVABLE_GFP, nz);
		/* one free per zspage, its last object: fewer than a batch */
		for (z = 0; z < nz; z++) {
			unsigned int last = first + (z + 1) * c->opz - 1;

			dead[z] = tp->h[last];
			tpool_free(tp, last);
		}
		v = migrate_some_zspage(tp, c, first, nz, moved, &nmoved, cap, NULL);
		for (z = 0; z < nz; z++)
			KUNIT_EXPECT_EQ_MSG(test,
					    zsmod_handle_location(tp->pool, dead[z], &pfn, &oi),
					    -EINVAL, "round %u: a queued free came back to life",
					    round);
		zsmod_pool_stats(tp->pool, &st);
		if (v >= 0 && !st.frees_queued) {
			kunit_info(test, "the frees ran before the migration; again\n");
			v = -1;
		}
	}
	KUNIT_ASSERT_GE_MSG(test, v, 0,
			    "no zspage with a queued free migrated (%u pages moved)", nmoved);
	kunit_info(test, "migrated with %lu frees queued\n", st.frees_queued);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_page_flags(tp, "after migration");
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Aborted migration: the migration target cannot be allocated (every page
 * allocation of this task fails while alloc_contig_range() runs), so the
 * core isolates our page, fails, and puts it back. The zspage must stay
 * where it was and fully usable, and migrate later for real.
 */
static void test_migrate_abort(struct kunit *test)
{
	const unsigned int nz = 16;
	struct tpool *tp;
	const struct tclass *c;
	unsigned long pfns[MAX_PFNS], now[MAX_PFNS], *oldpfn;
	struct zsmod_pool_stats st0, st1;
	unsigned int i, first, vidx = 0, freed = 0, tries = 0, round = 0;
	int np = 0, n, ret = 0, idx, z, j, vp = -1;

	NEED_CONTIG(test);
	NEED_FI(test);
	fi_setup(test);
	tp = tpool_create(test, 4096);
	c = pick_class_sized(tp, 2, true, 512);
	KUNIT_ASSERT_NOT_NULL(test, c);
	oldpfn = kunit_kcalloc(test, tp->cap, sizeof(*oldpfn), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, oldpfn);
next_round:
	round++;
	offer_clean_pageblock(test);
	first = tp->n;
	c = fill_zspages(tp, len_for_class(c), MOVABLE_GFP, nz);
	for (i = 0; i < tp->n; i++)
		oldpfn[i] = obj_pfn(tp, i);
	zsmod_pool_stats(tp->pool, &st0);

	/*
	 * A page whose pageblock can be isolated (elsewhere the core gives
	 * up before it touches our page): there the core isolates our page,
	 * cannot get a target page, and puts ours back.
	 */
	for (z = 0; z < nz && vp < 0; z++) {
		vidx = first + z * c->opz;
		np = zspage_pfns(tp, vidx, pfns);
		for (j = 0; j < np; j++) {
			tries++;
			fi_set(test, K_PROB, 100);
			set_make_it_fail(1);
			ret = alloc_contig_range(pfns[j], pfns[j] + 1, MIGRATE_MOVABLE,
						 GFP_KERNEL | __GFP_NOWARN);
			set_make_it_fail(0);
			fi_set(test, K_PROB, 0);
			if (!ret)
				free_contig_range(pfns[j], 1);
			KUNIT_EXPECT_NE_MSG(test, ret, 0,
					    "migration went through despite failing allocations");
			zsmod_pool_stats(tp->pool, &st1);
			if (st1.migrate_aborted != st0.migrate_aborted) {
				vp = j;
				break;
			}
		}
	}
	if (vp < 0 && round < 4)
		goto next_round;
	KUNIT_ASSERT_GE_MSG(test, vp, 0,
			    "no isolate+putback in %u tries (last alloc_contig_range: %d)",
			    tries, ret);
	kunit_info(test, "aborted migration of pfn %#lx after %u tries: %d\n",
		   pfns[vp], tries, ret);
	KUNIT_EXPECT_EQ(test, st1.migrate_aborted - st0.migrate_aborted, 1UL);
	KUNIT_EXPECT_EQ(test, st1.pages_migrated, st0.pages_migrated);
	KUNIT_EXPECT_EQ(test, st1.pages_used, st0.pages_used);
	n = zspage_pfns(tp, vidx, now);
	KUNIT_ASSERT_EQ(test, n, np);
	for (j = 0; j < n; j++)
		KUNIT_EXPECT_EQ(test, now[j], pfns[j]);
	for (i = 0; i < tp->n; i++)
		KUNIT_EXPECT_EQ(test, obj_pfn(tp, i), oldpfn[i]);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_page_flags(tp, "after aborted migration");

	/* fully usable: free two objects of that zspage, allocate two back
	 * (every other zspage is full: they must land in its free slots),
	 * rewrite one in place
	 */
	for (i = 0; i < tp->n && freed < 2; i++) {
		if (tp->h[i] && pfn_in(oldpfn[i], pfns, np)) {
			tpool_free(tp, i);
			freed++;
		}
	}
	KUNIT_EXPECT_EQ(test, freed, 2U);
	idx = -1;
	for (i = 0; i < 2; i++) {
		idx = tpool_alloc(tp, len_for_class(c), MOVABLE_GFP);
		KUNIT_ASSERT_GE(test, idx, 0);
		KUNIT_EXPECT_TRUE_MSG(test, pfn_in(obj_pfn(tp, idx), pfns, np),
				      "new object not placed in the put-back zspage");
	}
	vidx = idx;	/* a live object of the put-back zspage */
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_EXPECT_EQ(test, st1.pages_used, st0.pages_used);
	tp->seed[vidx] ^= 0x5a5a5a5a;
	KUNIT_EXPECT_EQ(test, tpool_write(tp, vidx, ZSMOD_MM_RW), 0);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);

	/* and it still migrates */
	KUNIT_EXPECT_EQ(test, migrate_pfn(pfns[vp]), 0);
	n = zspage_pfns(tp, vidx, now);
	KUNIT_ASSERT_EQ(test, n, np);
	KUNIT_EXPECT_NE(test, now[vp], pfns[vp]);
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_EXPECT_EQ(test, st1.pages_migrated - st0.pages_migrated, 1UL);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_page_flags(tp, "after migration");
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Fill @nz zspages of class *@c (updated as fill_zspages() does) and free
 * every other object. Returns the pages compaction must bring the pool
 * down to: the live objects fit in ceil(live / opz) zspages, plus one
 * partly filled extra.
 */
static unsigned long fill_free_half(struct tpool *tp, const struct tclass **c,
				    unsigned int nz, unsigned long *live)
{
	unsigned int i;

	*c = fill_zspages(tp, len_for_class(*c), MOVABLE_GFP, nz);
	for (i = 0; i < tp->n; i += 2)
		tpool_free(tp, i);
	*live = tp->n / 2;
	return (DIV_ROUND_UP(*live, (*c)->opz) + 1) * (*c)->ppz;
}

/* Free every other object, compact: pages drop as expected, data survives. */
static void test_compaction(struct kunit *test)
{
	const unsigned int nz = 8;
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 2, true);
	struct zsmod_pool_stats st0, st1;
	struct zsmod_class_info info;
	unsigned long freed, live, bound;

	KUNIT_ASSERT_NOT_NULL(test, c);
	bound = fill_free_half(tp, &c, nz, &live);
	zsmod_pool_stats(tp->pool, &st0);
	KUNIT_EXPECT_EQ(test, st0.pages_used, (unsigned long)nz * c->ppz);

	freed = zsmod_compact(tp->pool);
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, c->arg, &info));
	KUNIT_EXPECT_LE_MSG(test, st1.pages_used, bound,
			    "%lu live objects of %u per zspage still use %lu pages",
			    live, c->opz, st1.pages_used);
	KUNIT_EXPECT_GT(test, freed, 0UL);
	KUNIT_EXPECT_EQ(test, freed, st0.pages_used - st1.pages_used);
	KUNIT_EXPECT_EQ(test, st1.pages_compacted - st0.pages_compacted, freed);
	KUNIT_EXPECT_GE(test, st1.compactions - st0.compactions, 1UL);
	KUNIT_EXPECT_EQ(test, info.objs_used, live);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_page_flags(tp, "after compaction");
	expect_consistent(tp);

	/* nothing left to gain */
	KUNIT_EXPECT_EQ(test, zsmod_compact(tp->pool), 0UL);
	free_destroy_check(tp);
}

/*
 * Objects that span two pages that are not adjacent go through the per-CPU
 * copy buffer: migrating the second page of a zspage makes sure of that.
 * Read-write and write-only mappings of them, then read back.
 */
static void test_span_split_pages(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 2, true);
	unsigned long pfns[MAX_PFNS];
	unsigned int i, oi, first = 0, round, wo = 0;
	unsigned long pfn;
	int ret = -EBUSY;

	NEED_CONTIG(test);
	KUNIT_ASSERT_NOT_NULL(test, c);
	/* as fill_migrate_one(): a fresh zspage per try, in a clean pageblock */
	for (round = 0; round < 4 && ret; round++) {
		offer_clean_pageblock(test);
		first = tp->n;
		c = fill_zspages(tp, len_for_class(c), MOVABLE_GFP, 1);
		KUNIT_ASSERT_EQ(test, zspage_pfns(tp, first, pfns), (int)c->ppz);
		ret = migrate_pfn(pfns[1]);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "migrating a zspage's second page: %d", ret);
	KUNIT_ASSERT_FALSE_MSG(test, pfns_consecutive(tp, first),
			       "the zspage's pages are still adjacent after migration");
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);

	KUNIT_EXPECT_GT(test, span_rw_zspage(tp, c, first), 0U);
	for (i = first; i < tp->n; i++) {
		unsigned long off;
		u8 *p;

		KUNIT_ASSERT_EQ(test, 0, zsmod_handle_location(tp->pool, tp->h[i], &pfn, &oi));
		off = (unsigned long)oi * c->size;
		if (off % PAGE_SIZE + c->size <= PAGE_SIZE)
			continue;
		p = zsmod_map_object(tp->pool, tp->h[i], ZSMOD_MM_WO);
		KUNIT_ASSERT_NOT_NULL(test, p);
		pat_fill(p, tp->len[i], ++tp->seed[i]);
		zsmod_unmap_object(tp->pool, tp->h[i]);
		KUNIT_EXPECT_EQ_MSG(test, tpool_check(tp, i), -1L,
				    "spanning object %u lost its write-only update", i);
		wo++;
	}
	KUNIT_EXPECT_GT(test, wo, 0U);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Two zspages of one class: A keeps only object *@keep, B has room for it.
 * Compaction would move *@keep into B and free A. Returns A's first pfn.
 */
static unsigned long one_left_in_zspage(struct tpool *tp, const struct tclass *c,
					unsigned int *keep)
{
	struct kunit *test = tp->test;
	unsigned long pfns[MAX_PFNS], first;
	bool room = false;
	unsigned int i;

	c = fill_zspages(tp, len_for_class(c), MOVABLE_GFP, 2);
	KUNIT_ASSERT_EQ(test, tp->n, 2 * c->opz);
	KUNIT_ASSERT_EQ(test, zspage_pfns(tp, 0, pfns), (int)c->ppz);
	first = pfns[0];
	*keep = 0;
	for (i = 1; i < tp->n; i++) {
		KUNIT_ASSERT_EQ(test, zspage_pfns(tp, i, pfns), (int)c->ppz);
		if (pfns[0] == first) {
			tpool_free(tp, i);
		} else if (!room) {
			tpool_free(tp, i);
			room = true;
		}
	}
	KUNIT_ASSERT_TRUE(test, room);
	KUNIT_ASSERT_EQ(test, zsmod_get_total_pages(tp->pool), 2UL * c->ppz);
	return first;
}

/*
 * A zspage emptied while one of its pages is locked (as the migration core
 * locks them) is freed later by a worker: compaction does not count its
 * pages as freed, they stay counted in the pool, and they come back once
 * the page is unlocked.
 */
static void test_deferred_free(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 1, false);
	unsigned long first, freed, deadline, pfns[MAX_PFNS];
	struct zsmod_pool_stats st0, st1;
	struct page *locked;
	unsigned int keep;

	KUNIT_ASSERT_NOT_NULL(test, c);
	first = one_left_in_zspage(tp, c, &keep);
	zsmod_pool_stats(tp->pool, &st0);

	/* kcompactd may have moved the page meanwhile: check it, locked */
	locked = pfn_to_page(first);
	KUNIT_ASSERT_TRUE(test, get_page_unless_zero(locked));
	lock_page(locked);
	if (zspage_pfns(tp, keep, pfns) < 1 || pfns[0] != first) {
		unlock_page(locked);
		put_page(locked);
		KUNIT_FAIL(test, "the zspage's page moved before it could be locked");
		return;
	}
	freed = zsmod_compact(tp->pool);
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_EXPECT_EQ_MSG(test, freed, 0UL, "compaction counted pages a worker has yet to free");
	KUNIT_EXPECT_EQ(test, st1.pages_compacted, st0.pages_compacted);
	KUNIT_EXPECT_EQ(test, st1.deferred_frees - st0.deferred_frees, 1UL);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), 2UL * c->ppz);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	unlock_page(locked);

	deadline = jiffies + 2 * HZ;
	while (zsmod_get_total_pages(tp->pool) > c->ppz && time_before(jiffies, deadline))
		usleep_range(5000, 10000);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_get_total_pages(tp->pool), (unsigned long)c->ppz,
			    "the deferred zspage was not freed after its page was unlocked");
	put_page(locked);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

struct mover {
	struct tpool *tp;
	unsigned long freed;
	atomic_t done;
};

static int mover_fn(void *arg)
{
	struct mover *m = arg;

	m->freed = zsmod_compact(m->tp->pool);
	atomic_set(&m->done, 1);
	return 0;
}

/*
 * The promise of the pin: an object stays where it is while it is mapped.
 * Map the only object of a zspage that compaction would empty, and compact
 * the pool from the other CPU: it leaves the object alone. Once unmapped,
 * compaction moves it. (Not page migration: alloc_contig_range() waits for
 * work on every CPU, the mapper's too, which cannot run while it maps;
 * test_readers_vs_migration races readers with migration instead.)
 */
static void test_mapped_object_stays(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 1, false);
	struct mover m = { .tp = tp, .done = ATOMIC_INIT(0) };
	unsigned long pfn0, pfn1, deadline;
	struct task_struct *t;
	unsigned int keep, oi0, oi1, me;
	int cpu, done, loc0, loc1;
	long bad;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, c);
	/*
	 * Stay on this CPU (this test's own thread, gone after it), so that
	 * the mover bound to the other one is never the CPU we spin on.
	 */
	me = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(me)), 0);
	cpu = cpumask_any_but(cpu_online_mask, me);
	KUNIT_ASSERT_LT_MSG(test, cpu, (int)nr_cpu_ids, "needs a second CPU");
	one_left_in_zspage(tp, c, &keep);

	t = kthread_create(mover_fn, &m, "zsmod-mover");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	get_task_struct(t);

	p = zsmod_map_object(tp->pool, tp->h[keep], ZSMOD_MM_RW);
	if (!p) {
		kthread_stop(t);
		put_task_struct(t);
		KUNIT_FAIL(test, "could not map object %u", keep);
		return;
	}
	/* read while mapped: nothing, kcompactd included, moves it now */
	loc0 = zsmod_handle_location(tp->pool, tp->h[keep], &pfn0, &oi0);
	/* preemption is off while mapped: wait by spinning, bounded */
	wake_up_process(t);
	deadline = jiffies + 10 * HZ;
	while (!(done = atomic_read(&m.done)) && time_before(jiffies, deadline))
		cpu_relax();
	loc1 = zsmod_handle_location(tp->pool, tp->h[keep], &pfn1, &oi1);
	bad = pat_check(p, tp->len[keep], tp->seed[keep]);
	pat_fill(p, tp->len[keep], ++tp->seed[keep]);
	zsmod_unmap_object(tp->pool, tp->h[keep]);
	kthread_stop(t);
	put_task_struct(t);

	KUNIT_EXPECT_EQ_MSG(test, done, 1, "compaction did not end in 10 s while we mapped");
	KUNIT_EXPECT_EQ(test, bad, -1L);
	KUNIT_EXPECT_EQ(test, loc0, 0);
	KUNIT_EXPECT_EQ(test, loc1, 0);
	KUNIT_EXPECT_EQ_MSG(test, pfn1, pfn0, "a mapped object was moved");
	KUNIT_EXPECT_EQ(test, oi1, oi0);
	KUNIT_EXPECT_EQ_MSG(test, m.freed, 0UL, "compaction freed the zspage of a mapped object");
	/* what we wrote through the mapping is there */
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);

	/* unmapped: the zspage empties into the other one */
	KUNIT_EXPECT_EQ(test, zsmod_compact(tp->pool), (unsigned long)c->ppz);
	KUNIT_EXPECT_EQ(test, zsmod_handle_location(tp->pool, tp->h[keep], &pfn1, &oi1), 0);
	KUNIT_EXPECT_NE(test, pfn1, pfn0);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/*
 * Background compaction (auto_compact, on by default): once frees leave a
 * class with two zspages' worth of free slots and then pause, the pool
 * compacts itself, with nobody calling zsmod_compact(). Inside a memcg
 * this is the only compaction zswap's pool gets.
 */
static void test_auto_compact(struct kunit *test)
{
	const unsigned int nz = 8;
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 2, true);
	struct zsmod_pool_stats st0, st1;
	unsigned long live, bound, deadline;

	KUNIT_ASSERT_NOT_NULL(test, c);
	params_save(test);
	KUNIT_ASSERT_EQ(test, write_param("auto_compact", "Y"), 0);
	/* before the frees: the worker may start before they all return */
	zsmod_pool_stats(tp->pool, &st0);
	bound = fill_free_half(tp, &c, nz, &live);

	/* the worker waits for frees to pause 2 s; polling must not free */
	deadline = jiffies + 8 * HZ;
	while (zsmod_get_total_pages(tp->pool) > bound && time_before(jiffies, deadline))
		msleep(50);
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_EXPECT_LE_MSG(test, st1.pages_used, bound,
			    "%lu live objects of %u per zspage still use %lu pages after 8 s",
			    live, c->opz, st1.pages_used);
	KUNIT_EXPECT_GE(test, st1.compactions - st0.compactions, 1UL);
	KUNIT_EXPECT_EQ(test, st1.pages_compacted - st0.pages_compacted,
			(unsigned long)nz * c->ppz - st1.pages_used);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

/* Readers mapping and checking objects while the pool is churned. */
struct race {
	struct tpool *tp;
	atomic_long_t reads, errors;
	unsigned int step;	/* readers read indices that are multiples */
};

static int reader_fn(void *arg)
{
	struct race *r = arg;
	struct tpool *tp = r->tp;
	unsigned int live = DIV_ROUND_UP(tp->n, r->step), i;

	while (!kthread_should_stop()) {
		i = get_random_u32_below(live) * r->step;
		if (tpool_check(tp, i) != -1)
			atomic_long_inc(&r->errors);
		atomic_long_inc(&r->reads);
		cond_resched();
	}
	return 0;
}

static struct task_struct *readers[2];

static void stop_readers(void *unused)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(readers); i++) {
		if (readers[i])
			kthread_stop(readers[i]);
		readers[i] = NULL;
	}
}

static void test_readers_vs_migration(struct kunit *test)
{
	struct tpool *tp;
	const struct tclass *c1, *c2, *ch;
	struct race *r;
	struct zsmod_pool_stats st0, st1;
	unsigned long pfns[MAX_PFNS], compacted = 0;
	unsigned int i, round, migrated = 0, tried = 0;
	int debug_locks_before = debug_locks, np, got;
	long sys_compacted;

	NEED_CONTIG(test);
	tp = tpool_create(test, 4096);
	c1 = pick_class_sized(tp, 1, false, 512);
	c2 = pick_class_sized(tp, 2, true, 512);
	ch = huge_class(tp);
	KUNIT_ASSERT_NOT_NULL(test, c1);
	KUNIT_ASSERT_NOT_NULL(test, c2);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	/* interleave the classes so that every zspage keeps readable objects */
	KUNIT_EXPECT_GE(test, offer_clean_pageblock(test), 0L);
	for (i = 0; i < 600; i++) {
		const struct tclass *c = i % 3 == 0 ? c1 : i % 3 == 1 ? c2 : ch;

		KUNIT_ASSERT_GE(test, tpool_alloc(tp, len_for_class(c), MOVABLE_GFP), 0);
	}
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->tp = tp;
	r->step = 2;
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, stop_readers, NULL));
	for (i = 0; i < ARRAY_SIZE(readers); i++) {
		readers[i] = kthread_run(reader_fn, r, "zsmod-reader/%u", i);
		if (IS_ERR(readers[i])) {
			readers[i] = NULL;
			KUNIT_FAIL(test, "kthread_run failed");
		}
	}

	zsmod_pool_stats(tp->pool, &st0);
	/* no assertions until the readers are stopped */
	for (i = 1; i < tp->n; i += 2)
		tpool_free(tp, i);	/* odd ones: never read */
	for (round = 0; round < 24; round++) {
		/* every other round among the first objects, allocated right
		 * after the clean pageblock was offered
		 */
		unsigned int span = round & 1 ? tp->n / 2 : min(tp->n / 2, 48U);
		unsigned int pick = get_random_u32_below(span) * 2;

		got = migrate_zspage(tp, pick, pfns, &np);
		tried += np;
		if (got > 0)
			migrated += got;
		compacted += zsmod_compact(tp->pool);
		cond_resched();
	}
	/* and the kernel's own compaction of all memory */
	sys_compacted = compact_all(tp);
	msleep(50);
	stop_readers(NULL);
	KUNIT_EXPECT_GE(test, sys_compacted, 0L);

	zsmod_pool_stats(tp->pool, &st1);
	kunit_info(test, "%ld reads, %u/%u pages migrated (%lu by the pool's count), %lu pages compacted\n",
		   atomic_long_read(&r->reads), migrated, tried,
		   st1.pages_migrated - st0.pages_migrated, compacted);
	KUNIT_EXPECT_GT(test, st1.pages_migrated - st0.pages_migrated, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&r->errors), 0L);
	KUNIT_EXPECT_GT(test, atomic_long_read(&r->reads), 0L);
	KUNIT_EXPECT_GT(test, migrated, 0U);
	KUNIT_EXPECT_GT(test, compacted, 0UL);
	KUNIT_EXPECT_EQ_MSG(test, debug_locks_before, 1, "lockdep was already off");
	KUNIT_EXPECT_EQ_MSG(test, debug_locks, 1, "lockdep reported a problem");
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_page_flags(tp, "after migration and compaction");
	expect_consistent(tp);
	free_destroy_check(tp);
}

static struct kunit_case migration_cases[] = {
	KUNIT_CASE(test_migrate_pages),
	KUNIT_CASE(test_migrate_abort),
	KUNIT_CASE(test_migrate_queued_free),
	KUNIT_CASE(test_compaction),
	KUNIT_CASE_SLOW(test_auto_compact),
	KUNIT_CASE(test_deferred_free),
	KUNIT_CASE(test_span_split_pages),
	KUNIT_CASE(test_mapped_object_stays),
	KUNIT_CASE_SLOW(test_readers_vs_migration),
	{}
};

static struct kunit_suite migration_suite = {
	.name = "zsmalloc_mod_migration",
	.test_cases = migration_cases,
};

/* ====================================================================== */
/* Suite zsmalloc_mod_dropbehind                                           */

#ifdef ZSMOD_HAVE_DROPBEHIND
#define NEED_DROPBEHIND(test) ((void)(test))
#else
#define NEED_DROPBEHIND(test) \
	kunit_skip(test, "kernel has no PG_dropbehind (Linux >= 6.14 or kunit/patches/0001)")
#endif

static void put_folio(void *f)
{
	folio_put(f);
}

static __maybe_unused struct folio *test_folio(struct kunit *test, unsigned int order)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, order);

	KUNIT_ASSERT_NOT_NULL(test, folio);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_folio, folio));
	return folio;
}

#ifdef ZSMOD_HAVE_DROPBEHIND
static void dropbehind_ops(struct kunit *test, struct folio *folio)
{
	unsigned long before = READ_ONCE(folio->flags), after;

	KUNIT_EXPECT_FALSE(test, folio_test_dropbehind(folio));
	folio_set_dropbehind(folio);
	KUNIT_EXPECT_TRUE(test, folio_test_dropbehind(folio));
	after = READ_ONCE(folio->flags);
	/* exactly one bit changed, and it is neither reclaim nor unevictable */
	KUNIT_EXPECT_EQ(test, after ^ before, BIT(PG_dropbehind));
	KUNIT_EXPECT_FALSE(test, folio_test_reclaim(folio));
	KUNIT_EXPECT_FALSE(test, folio_test_unevictable(folio));
	KUNIT_EXPECT_FALSE(test, folio_test_mlocked(folio));

	KUNIT_EXPECT_TRUE(test, folio_test_clear_dropbehind(folio));
	KUNIT_EXPECT_FALSE(test, folio_test_dropbehind(folio));
	KUNIT_EXPECT_FALSE(test, folio_test_clear_dropbehind(folio));
	KUNIT_EXPECT_EQ(test, READ_ONCE(folio->flags), before);

	__folio_set_dropbehind(folio);
	KUNIT_EXPECT_TRUE(test, folio_test_dropbehind(folio));
	folio_clear_dropbehind(folio);
	KUNIT_EXPECT_FALSE(test, folio_test_dropbehind(folio));
	KUNIT_EXPECT_EQ(test, READ_ONCE(folio->flags), before);
}
#endif

/* set/test/clear/test_clear/__set on an order-0 and a large folio */
static void test_dropbehind_folio_ops(struct kunit *test)
{
	NEED_DROPBEHIND(test);
#ifdef ZSMOD_HAVE_DROPBEHIND
	{
		struct folio *small = test_folio(test, 0);
		struct folio *large = test_folio(test, 2);
		struct page *tail = folio_page(large, 1);

		KUNIT_ASSERT_TRUE(test, folio_test_large(large));
		dropbehind_ops(test, small);
		dropbehind_ops(test, large);
		/* FOLIO_HEAD_PAGE: the bit lives in the head page only */
		folio_set_dropbehind(large);
		KUNIT_EXPECT_TRUE(test, test_bit(PG_dropbehind, &large->page.flags));
		KUNIT_EXPECT_FALSE(test, test_bit(PG_dropbehind, &tail->flags));
		KUNIT_EXPECT_TRUE(test, folio_test_dropbehind(page_folio(tail)));
		folio_clear_dropbehind(large);
		KUNIT_EXPECT_FALSE(test, test_bit(PG_dropbehind, &large->page.flags));
	}
#endif
}

/* %pGp names the flag (the page-flag name table knows it) */
static void test_dropbehind_pgflags_name(struct kunit *test)
{
	NEED_DROPBEHIND(test);
#ifdef ZSMOD_HAVE_DROPBEHIND
	{
		struct folio *folio = test_folio(test, 0);
		unsigned long flags;
		char buf[256];

		/* "%pGp" prints "0x<flags>(<names>|node=N|zone=N)" */
		flags = BIT(PG_dropbehind);
		snprintf(buf, sizeof(buf), "%pGp", &flags);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "(dropbehind|"), "%s", buf);
		flags = BIT(PG_unevictable) | BIT(PG_dropbehind);
		snprintf(buf, sizeof(buf), "%pGp", &flags);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "(unevictable|dropbehind|"), "%s", buf);
#ifdef CONFIG_MMU
		/* the flag after it still prints under its own name */
		flags = BIT(PG_mlocked);
		snprintf(buf, sizeof(buf), "%pGp", &flags);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "(mlocked|"), "%s", buf);
		KUNIT_EXPECT_NULL_MSG(test, strstr(buf, "dropbehind"), "%s", buf);
#endif
		folio_set_dropbehind(folio);
		flags = READ_ONCE(folio->flags);
		snprintf(buf, sizeof(buf), "%pGp", &flags);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "dropbehind"), "%s", buf);
		folio_clear_dropbehind(folio);
		flags = READ_ONCE(folio->flags);
		snprintf(buf, sizeof(buf), "%pGp", &flags);
		KUNIT_EXPECT_NULL_MSG(test, strstr(buf, "dropbehind"), "%s", buf);
	}
#endif
}

/* Our pages never carry PG_dropbehind/PG_reclaim: after allocation,
 * migration, object frees and compaction.
 */
static void test_dropbehind_zspages(struct kunit *test)
{
	struct tpool *tp;
	const struct tclass *c1, *c2, *ch;
	const unsigned int cap = 4 * 8 * MAX_PFNS;
	unsigned long *moved;
	unsigned int i, nmoved = 0;

	NEED_DROPBEHIND(test);
	moved = kunit_kcalloc(test, cap, sizeof(*moved), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, moved);
	tp = tpool_create(test, 4096);
	c1 = pick_class(tp, 1, false);
	c2 = pick_class_sized(tp, 2, true, 512);
	ch = huge_class(tp);
	KUNIT_ASSERT_NOT_NULL(test, c1);
	KUNIT_ASSERT_NOT_NULL(test, c2);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	fill_zspages(tp, len_for_class(c1), MOVABLE_GFP, 2);
	fill_zspages(tp, len_for_class(ch), MOVABLE_GFP, 4);
	fill_zspages(tp, len_for_class(c2), GFP_KERNEL, 1);
	KUNIT_EXPECT_GT(test, expect_page_flags(tp, "after allocation"), 0U);

#ifdef CONFIG_CONTIG_ALLOC
	KUNIT_EXPECT_GE_MSG(test, fill_migrate_one(tp, len_for_class(c2), 8, &c2, moved,
						   &nmoved, cap, NULL), 0,
			    "no zspage could be migrated");
	expect_page_flags(tp, "after migration");
#endif
	for (i = 0; i < tp->n; i += 2)
		tpool_free(tp, i);
	expect_page_flags(tp, "after freeing objects");
	zsmod_compact(tp->pool);
	expect_page_flags(tp, "after compaction");
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	free_destroy_check(tp);
}

static struct kunit_case dropbehind_cases[] = {
	KUNIT_CASE(test_dropbehind_folio_ops),
	KUNIT_CASE(test_dropbehind_pgflags_name),
	KUNIT_CASE(test_dropbehind_zspages),
	{}
};

static struct kunit_suite dropbehind_suite = {
	.name = "zsmalloc_mod_dropbehind",
	.test_cases = dropbehind_cases,
};

/* ====================================================================== */
/* Suite zsmalloc_mod_zpool                                                */

#ifdef ZPOOL_API_EXPORTED_FOR_TESTS
#define NEED_ZPOOL(test) ((void)(test))

struct zp {
	struct zpool *zpool;
	unsigned long h[512];
	unsigned int len[512];
	u32 seed[512];
	unsigned int n;
};

static void zp_release(void *arg)
{
	struct zp *z = arg;
	unsigned int i;

	if (!z->zpool)
		return;
	for (i = 0; i < z->n; i++)
		if (z->h[i])
			zpool_free(z->zpool, z->h[i]);
	zpool_destroy_pool(z->zpool);
	z->zpool = NULL;
}

static struct zp *zp_create(struct kunit *test)
{
	/* what zswap_pool_create() passes */
	gfp_t gfp = __GFP_NORETRY | __GFP_NOWARN | __GFP_KSWAPD_RECLAIM;
	struct zp *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, z);
	z->zpool = zpool_create_pool("zsmalloc_mod", "kunit-zpool", gfp);
	KUNIT_ASSERT_NOT_NULL_MSG(test, z->zpool,
				  "zpool_create_pool(\"zsmalloc_mod\") failed: driver not registered?");
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, zp_release, z));
	return z;
}

static long zp_check(struct zp *z, unsigned int i)
{
	const u8 *p = zpool_map_handle(z->zpool, z->h[i], ZPOOL_MM_RO);
	long bad;

	if (IS_ERR_OR_NULL(p))
		return -2;
	bad = pat_check(p, z->len[i], z->seed[i]);
	zpool_unmap_handle(z->zpool, z->h[i]);
	return bad;
}
#else
#define NEED_ZPOOL(test) \
	kunit_skip(test, "zpool API not exported (test kernel patch kunit/patches/0002)")
#endif

/* The driver is registered under its own name and zswap can find it. */
static void test_zpool_driver(struct kunit *test)
{
	char type[] = "zsmalloc_mod";

	NEED_ZPOOL(test);
	KUNIT_EXPECT_TRUE(test, zpool_has_pool(type));
#ifdef ZPOOL_API_EXPORTED_FOR_TESTS
	{
		struct zp *z = zp_create(test);

		KUNIT_EXPECT_STREQ(test, zpool_get_type(z->zpool), "zsmalloc_mod");
		/* zswap adds __GFP_HIGHMEM | __GFP_MOVABLE only if this is true */
		KUNIT_EXPECT_TRUE(test, zpool_malloc_support_movable(z->zpool));
		KUNIT_EXPECT_EQ(test, zpool_get_total_pages(z->zpool), 0ULL);
		/* a mapping disables preemption: zswap must not sleep in it */
		KUNIT_EXPECT_FALSE(test, zpool_can_sleep_mapped(z->zpool));
	}
#endif
}

/*
 * Store and load as zswap does: malloc with zswap's movable gfp, map
 * write-only and copy in, unmap; later map read-only, compare, unmap; free.
 * total_pages follows NR_ZSPAGES; everything comes back at the end.
 */
static void test_zpool_store_load(struct kunit *test)
{
	NEED_ZPOOL(test);
#ifdef ZPOOL_API_EXPORTED_FOR_TESTS
	{
		unsigned long base = nr_zspages(), deadline, handle;
		struct zp *z = zp_create(test);
		unsigned int i, bad = 0;
		u64 total;
		u8 *p;
		int ret;

		for (i = 0; i < ARRAY_SIZE(z->h); i++) {
			/* compressed-page-like sizes, up to a whole page */
			z->len[i] = 1 + (i * 613) % PAGE_SIZE;
			z->seed[i] = get_random_u32();
			ret = zpool_malloc(z->zpool, z->len[i], ZSWAP_GFP, &z->h[i]);
			KUNIT_ASSERT_EQ_MSG(test, ret, 0, "zpool_malloc(%u)", z->len[i]);
			z->n = i + 1;
			KUNIT_ASSERT_NE(test, z->h[i], 0UL);
			p = zpool_map_handle(z->zpool, z->h[i], ZPOOL_MM_WO);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
			pat_fill(p, z->len[i], z->seed[i]);
			zpool_unmap_handle(z->zpool, z->h[i]);
		}
		for (i = 0; i < z->n; i++)
			bad += zp_check(z, i) != -1;
		KUNIT_EXPECT_EQ(test, bad, 0U);

		total = zpool_get_total_pages(z->zpool);
		KUNIT_EXPECT_GT(test, total, 0ULL);
		KUNIT_EXPECT_EQ(test, total, (u64)(nr_zspages() - base));

		/* invalid sizes are refused and change nothing */
		handle = 0;
		KUNIT_EXPECT_EQ(test, zpool_malloc(z->zpool, 0, ZSWAP_GFP, &handle), -EINVAL);
		KUNIT_EXPECT_EQ(test, zpool_malloc(z->zpool, PAGE_SIZE + 1, ZSWAP_GFP, &handle),
				-ENOSPC);
		KUNIT_EXPECT_EQ(test, zpool_get_total_pages(z->zpool), total);

		/* free half, the rest still reads back */
		for (i = 0; i < z->n; i += 2) {
			zpool_free(z->zpool, z->h[i]);
			z->h[i] = 0;
		}
		for (i = 1, bad = 0; i < z->n; i += 2)
			bad += zp_check(z, i) != -1;
		KUNIT_EXPECT_EQ(test, bad, 0U);
		KUNIT_EXPECT_EQ(test, zpool_get_total_pages(z->zpool),
				(u64)(nr_zspages() - base));

		for (i = 1; i < z->n; i += 2) {
			zpool_free(z->zpool, z->h[i]);
			z->h[i] = 0;
		}
		deadline = jiffies + 2 * HZ;
		while (zpool_get_total_pages(z->zpool) && time_before(jiffies, deadline))
			usleep_range(10000, 20000);
		KUNIT_EXPECT_EQ(test, zpool_get_total_pages(z->zpool), 0ULL);
		zpool_destroy_pool(z->zpool);
		z->zpool = NULL;
		KUNIT_EXPECT_EQ(test, nr_zspages(), base);
	}
#endif
}

/* Two zpools of our driver are independent. */
static void test_zpool_two_pools(struct kunit *test)
{
	NEED_ZPOOL(test);
#ifdef ZPOOL_API_EXPORTED_FOR_TESTS
	{
		struct zp *a = zp_create(test), *b = zp_create(test);
		unsigned int i;

		for (i = 0; i < 64; i++) {
			a->len[i] = 2000;
			a->seed[i] = get_random_u32();
			KUNIT_ASSERT_EQ(test, 0, zpool_malloc(a->zpool, 2000, ZSWAP_GFP, &a->h[i]));
			a->n = i + 1;
			KUNIT_ASSERT_EQ(test, 0, zpool_malloc(b->zpool, 2000, ZSWAP_GFP, &b->h[i]));
			b->len[i] = 2000;
			b->seed[i] = ~a->seed[i];
			b->n = i + 1;
		}
		for (i = 0; i < 64; i++) {
			u8 *p = zpool_map_handle(a->zpool, a->h[i], ZPOOL_MM_WO);

			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
			pat_fill(p, a->len[i], a->seed[i]);
			zpool_unmap_handle(a->zpool, a->h[i]);
			p = zpool_map_handle(b->zpool, b->h[i], ZPOOL_MM_WO);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
			pat_fill(p, b->len[i], b->seed[i]);
			zpool_unmap_handle(b->zpool, b->h[i]);
		}
		KUNIT_EXPECT_GT(test, zpool_get_total_pages(b->zpool), 0ULL);
		for (i = 0; i < 64; i++) {
			KUNIT_EXPECT_EQ(test, zp_check(a, i), -1L);
			KUNIT_EXPECT_EQ(test, zp_check(b, i), -1L);
		}
		zp_release(b);
		for (i = 0; i < 64; i++)
			KUNIT_EXPECT_EQ(test, zp_check(a, i), -1L);
		KUNIT_EXPECT_GT(test, zpool_get_total_pages(a->zpool), 0ULL);
	}
#endif
}

static struct kunit_case zpool_cases[] = {
	KUNIT_CASE(test_zpool_driver),
	KUNIT_CASE(test_zpool_store_load),
	KUNIT_CASE(test_zpool_two_pools),
	{}
};

static struct kunit_suite zpool_suite = {
	.name = "zsmalloc_mod_zpool",
	.test_cases = zpool_cases,
};

kunit_test_suites(&alloc_suite, &migration_suite, &dropbehind_suite, &zpool_suite);

MODULE_DESCRIPTION("KUnit tests for zsmalloc_mod");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
