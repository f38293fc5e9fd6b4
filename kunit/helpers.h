/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the suites of zsmalloc_mod_kunit.ko share: object contents, exact
 * page counters, the size class table, test pools released when a test
 * ends, fault injection and the module's parameters (helpers.c), and
 * page migration (migrate_helpers.c); and the suites themselves, which
 * zsmalloc_mod_kunit_main.c registers.
 */
#ifndef ZSMALLOC_MOD_KUNIT_HELPERS_H
#define ZSMALLOC_MOD_KUNIT_HELPERS_H

#include <kunit/test.h>
#include <linux/fault-inject.h>
#include <linux/gfp.h>
#include <linux/page-flags.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/vm_event_item.h>
#include <linux/zswap.h>

#include "../zsmalloc_mod.h"
#include "../zsmalloc_mod_internal.h"

/* kunit/patches/0001 defines folio_test_dropbehind as a macro for this */
#ifdef folio_test_dropbehind
#define ZSMOD_HAVE_DROPBEHIND 1
#endif
/* and kunit/patches/0004-0007 the path: zswap writeback into dropped folios */
#if defined(ZSMOD_HAVE_DROPBEHIND) && defined(ZSWAP_WRITEBACK_KUNIT) && \
	defined(CONFIG_FAIL_MAKE_REQUEST) && defined(FAULT_INJECT_KUNIT_TASK_ONLY)
#define HAVE_DROPBEHIND_PATH 1
#endif

#define MAX_CLASSES	1024
#define MAX_PFNS	16
/* The gfp zswap passes to zpool_malloc() for a movable-capable backend. */
#define ZSWAP_GFP	(__GFP_NORETRY | __GFP_NOWARN | __GFP_KSWAPD_RECLAIM | \
			 __GFP_HIGHMEM | __GFP_MOVABLE)
#define MOVABLE_GFP	(GFP_KERNEL | __GFP_HIGHMEM | __GFP_MOVABLE)

extern struct kunit_suite zsmalloc_mod_alloc_suite;
extern struct kunit_suite zsmalloc_mod_free_suite;
extern struct kunit_suite zsmalloc_mod_migration_suite;
extern struct kunit_suite zsmalloc_mod_compaction_suite;
extern struct kunit_suite zsmalloc_mod_dropbehind_suite;
extern struct kunit_suite zsmalloc_mod_zpool_suite;
extern struct kunit_suite zsmalloc_mod_misuse_suite;

/* ---------------------------------------------------------------------- */
/* Object contents: byte @i of the pattern of @seed                        */

static inline u8 pat_byte(u32 seed, unsigned int i)
{
	u32 x = seed ^ (i * 0x9e3779b1u);

	x ^= x >> 13;
	x *= 0x85ebca6bu;
	return (u8)(x ^ (x >> 16));
}

/* Fill @p with the pattern of @seed. */
void pat_fill(u8 *p, unsigned int len, u32 seed);
/* The first offset where @p differs from the pattern of @seed, or -1. */
long pat_check(const u8 *p, unsigned int len, u32 seed);

/* ---------------------------------------------------------------------- */
/* Page counters                                                           */

/* NR_ZSPAGES, exactly (global counter plus every CPU's pending delta) */
unsigned long nr_zspages(void);
/* No more pages typed zsmalloc outside NR_ZSPAGES than @base: none leaked. */
void expect_no_stray_pages(struct kunit *test, long base, const char *when);

/* ---------------------------------------------------------------------- */
/* Size classes                                                            */

/**
 * struct tclass - a size class of a pool, as zsmod_class_info() reports it
 * @arg: index passed to zsmod_class_info()
 * @class_idx: info.class_idx
 * @size: object size of the class
 * @ppz: pages per zspage
 * @opz: objects per zspage
 * @min: smallest zsmod_malloc() size the class serves
 * @max: largest zsmod_malloc() size the class serves
 * @huge: one object per zspage
 */
struct tclass {
	unsigned int arg;
	unsigned int class_idx;
	unsigned int size;
	unsigned int ppz;
	unsigned int opz;
	unsigned int min, max;
	bool huge;
};

/* The pool's distinct classes sorted by size, into @tab (MAX_CLASSES). */
int class_table(struct zsmod_pool *pool, struct tclass *tab);
/* Does some object of this class straddle a page boundary? */
bool class_spans(const struct tclass *c);

/* ---------------------------------------------------------------------- */
/* A pool plus the objects a test put in it, released when the test ends   */

/**
 * struct tpool - a pool and the objects a test put in it
 * @test: the test that owns the pool
 * @pool: the pool; NULL once destroyed
 * @base_zspages: NR_ZSPAGES before the pool existed
 * @base_stray: stray pages then (not for parameterised tests)
 * @cap: room in @h, @len and @seed
 * @n: objects allocated so far (freed ones included)
 * @h: handle of each object, 0 once freed
 * @len: size of each object
 * @seed: pattern seed of each object's contents
 * @tab: the pool's size classes (class_table())
 * @ntab: entries in @tab
 */
struct tpool {
	struct kunit *test;
	struct zsmod_pool *pool;
	unsigned long base_zspages;
	long base_stray;
	unsigned int cap, n;
	unsigned long *h;
	unsigned int *len;
	u32 *seed;
	struct tclass *tab;
	int ntab;
};

/* A pool with room for @cap objects, destroyed when the test ends. */
struct tpool *tpool_create(struct kunit *test, unsigned int cap);
/* Allocate and fill one object: its index, or a negative errno. */
int tpool_alloc(struct tpool *tp, size_t len, gfp_t gfp);
/* Write object @idx's pattern through a mapping of mode @mm. */
int tpool_write(struct tpool *tp, unsigned int idx, enum zsmod_mapmode mm);
/* Read object @idx back: the first bad offset, -1, or -2 if unmappable. */
long tpool_check(struct tpool *tp, unsigned int idx);
/* Check every live object: how many are corrupt. */
unsigned int tpool_check_all(struct tpool *tp);
/* Free object @idx, or every live object. */
void tpool_free(struct tpool *tp, unsigned int idx);
void tpool_free_all(struct tpool *tp);

/* Allocate one object of @len and tell which class took it. */
int alloc_find_class(struct tpool *tp, size_t len, gfp_t gfp,
		     const struct tclass **cls);
/* Fill @nz zspages of the class @len lands in; returns the class. */
const struct tclass *fill_zspages(struct tpool *tp, size_t len, gfp_t gfp,
				  unsigned int nz);
/* Smallest non-huge class with enough pages and objects (and size). */
const struct tclass *pick_class_sized(struct tpool *tp, unsigned int min_ppz,
				      bool spanning, unsigned int min_size);
const struct tclass *pick_class(struct tpool *tp, unsigned int min_ppz,
				bool spanning);
/* The largest request size class @c serves. */
size_t len_for_class(const struct tclass *c);
const struct tclass *huge_class(struct tpool *tp);

/* Pool stats, class counters, NR_ZSPAGES and live objects all agree. */
void expect_consistent(struct tpool *tp);
/* Free everything and destroy: every page comes back. */
void free_destroy_check(struct tpool *tp);

/* Where object @idx lives: its zspage's pages, its own page. */
int zspage_pfns(struct tpool *tp, unsigned int idx, unsigned long *pfns);
unsigned long tpool_obj_pfn(struct tpool *tp, unsigned int idx);

/* Straddling objects of one zspage rewritten through RW mappings. */
unsigned int span_rw_zspage(struct tpool *tp, const struct tclass *c,
			    unsigned int first);
/* Are the pages of object @idx's zspage physically contiguous? */
bool pfns_consecutive(struct tpool *tp, unsigned int idx);

/* ---------------------------------------------------------------------- */
/* Fault injection: fail_nth and make_it_fail of the test task, which       */
/* fail_page_alloc and failslab honour for it alone (kunit/patches/0003)    */

#if defined(CONFIG_FAIL_PAGE_ALLOC) && defined(CONFIG_FAILSLAB) && \
	defined(FAULT_INJECT_KUNIT_TASK_ONLY)
#define HAVE_FI 1
static inline void set_fail_nth(unsigned int n) { current->fail_nth = n; }
static inline unsigned int get_fail_nth(void) { return current->fail_nth; }
static inline void set_make_it_fail(int v) { current->make_it_fail = v; }
#define NEED_FI(test) ((void)(test))

/* Failures for this task only, settings restored when the test ends. */
void fi_setup(struct kunit *test);
void fi_page_filter(struct kunit *test, u32 min_order, bool ignore_gfp_reclaim);
/* Every page allocation fails, but for @space - 1 pages, until _end(). */
void fi_fail_pages(unsigned int space);
void fi_fail_pages_end(void);
#else
static inline void set_fail_nth(unsigned int n) { }
static inline unsigned int get_fail_nth(void) { return 0; }
static inline void fi_setup(struct kunit *test) { }
static inline void fi_page_filter(struct kunit *test, u32 min_order,
				  bool ignore_gfp_reclaim) { }
static inline void fi_fail_pages(unsigned int space) { }
static inline void fi_fail_pages_end(void) { }
#define NEED_FI(test) \
	kunit_skip(test, "needs CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAILSLAB and kunit/patches/0003")
#endif

/* ---------------------------------------------------------------------- */
/* The module's parameters                                                 */

/* Set a bool module parameter of zsmalloc_mod until the test ends. */
void set_param(struct kunit *test, const char *name, bool val);

/* ---------------------------------------------------------------------- */
/* Page migration                                                          */

#ifdef CONFIG_CONTIG_ALLOC
#define NEED_CONTIG(test) ((void)(test))
#else
#define NEED_CONTIG(test) \
	kunit_skip(test, "kernel without CONFIG_CONTIG_ALLOC (set CONFIG_CMA)")
#endif

/* Migrate the page at @pfn through alloc_contig_range(). */
int contig_migrate_pfn(unsigned long pfn);
/* Take and free a whole free pageblock, so that the next pages come from it. */
long offer_clean_pageblock(struct kunit *test);
long offer_compaction_target(struct kunit *test, unsigned long pfn);
/* Migrate every page of object @idx's zspage: how many moved. */
int migrate_zspage(struct tpool *tp, unsigned int idx, unsigned long *old, int *np);
/* Migrate zspages of @c until one moves completely: an object in it, or -1. */
int migrate_some_zspage(struct tpool *tp, const struct tclass *c,
			unsigned int first, unsigned int nz,
			unsigned long *moved, unsigned int *nmoved, unsigned int cap,
			unsigned long *victim_old);
/* Fill zspages and migrate one of them entirely, in a few rounds. */
int fill_migrate_one(struct tpool *tp, size_t len, unsigned int nz,
		     const struct tclass **cls, unsigned long *moved,
		     unsigned int *nmoved, unsigned int cap, unsigned long *victim_old);
/* Every page of the pool movable, none with PG_reclaim or PG_dropbehind. */
unsigned int expect_page_flags(struct tpool *tp, const char *when);

/* vm.compact_memory = 1: compact every zone (0, or a negative errno). */
int compact_zones(void);

/* ---------------------------------------------------------------------- */
/* Swap through zswap into zsmalloc_mod (swap_helpers.c)                   */

#ifdef HAVE_DROPBEHIND_PATH
/**
 * struct tdata - pages of a shmem file with known contents
 * @test: the test that owns the file
 * @file: the shmem file; gone, with its swap entries, when the test ends
 * @n: its pages
 * @salt: what makes this file's contents its own
 * @swp: the swap entry of each page once tdata_push() pushed it out
 */
struct tdata {
	struct kunit *test;
	struct file *file;
	unsigned int n;
	u32 salt;
	swp_entry_t *swp;
};

/* A snapshot of /proc/vmstat's events */
struct tevents {
	unsigned long v[NR_VM_EVENT_ITEMS];
};

struct file *tswap_device(struct kunit *test, const char *name);
struct tdata *tdata_create(struct kunit *test, unsigned int n, u32 salt);
unsigned long tdata_push(struct tdata *td);
long tdata_check(struct tdata *td, pgoff_t i);
void tevents_read(struct tevents *ev);
long tevents_delta(const struct tevents *a, const struct tevents *b,
		   enum vm_event_item item);
void zswap_pools_stats(struct zsmod_pool_stats *sum);
void zswap_pools_compact(void);
#endif

#endif /* ZSMALLOC_MOD_KUNIT_HELPERS_H */
