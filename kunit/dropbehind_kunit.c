// SPDX-License-Identifier: GPL-2.0
/*
 * Suite zsmalloc_mod_dropbehind: the PG_dropbehind path of the test kernel.
 * zswap writes entries stored in zsmalloc_mod back to a swap device, into
 * swap-cache folios marked PG_dropbehind (kunit/patches/0005), which are
 * dropped from the swap cache once their write completes (0004). The data
 * are a shmem file's pages that reclaim pushed into zswap; the swap device
 * is brd's ram0 (the write completes in the submitting task) or null_blk's
 * nullb0 (it completes in hard irq); the test drives writeback through the
 * hooks of 0006. Also: the flag itself (0001), and our own pages never
 * carrying it. Skipped on a kernel without those patches.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/pagemap.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/zswap.h>

#include "helpers.h"

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

/* ---------------------------------------------------------------------- */
/* The path: zswap writeback from our pool into PG_dropbehind folios       */

#ifdef HAVE_DROPBEHIND_PATH
#define NEED_PATH(test) ((void)(test))
#else
#define NEED_PATH(test) \
	kunit_skip(test, "kernel without the dropbehind path (kunit/patches/0004-0007)")
#endif

/* A swap device and where its writes complete */
struct tdev {
	const char *node;
	const char *desc;
	bool later;	/* the write completes after its submitter returns */
};

static const struct tdev tdevs[] = {
	{ "ram0", "brd, write completes in task", false },
	{ "nullb0", "null_blk, write completes in hard irq", true },
};

KUNIT_ARRAY_PARAM_DESC(tdev, tdevs, desc);

#ifdef HAVE_DROPBEHIND_PATH
#define NPAGES	64

static struct tevents *tevents_alloc(struct kunit *test)
{
	struct tevents *ev = kunit_kzalloc(test, sizeof(*ev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ev);
	return ev;
}

/*
 * Swap on @node, zswap on zsmalloc_mod with zswap.writeback_dropbehind =
 * @dropbehind, and @n pages of a new shmem file pushed by reclaim into
 * zswap: every one of them an object of our pool; @before gets our pool's
 * counters before the push. With @block, the zspages come from the
 * pageblock there (if it is >= 0), where they can be migrated.
 */
static struct tdata *setup_path(struct kunit *test, const char *node, bool dropbehind,
				unsigned int n, u32 salt, struct zsmod_pool_stats *before,
				long *block)
{
	struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
	struct zsmod_pool_stats st0, st1;
	struct tdata *td;
	unsigned int i;

	tswap_device(test, node);
	KUNIT_ASSERT_EQ(test, 0, zswap_kunit_setup(test, "zsmalloc_mod", dropbehind));
	/*
	 * Zspages to be migrated: from a pageblock that can be isolated. The
	 * shmem pages come from it, and zswap's zspages from the pages reclaim
	 * frees as it stores them (the most recently freed go first).
	 */
	if (block) {
		*block = offer_clean_pageblock(test);
		KUNIT_EXPECT_GE(test, *block, 0L);
	}
	td = tdata_create(test, n, salt);
	zswap_pools_stats(&st0);
	tevents_read(e0);
	KUNIT_ASSERT_EQ(test, tdata_push(td), (unsigned long)n);
	tevents_read(e1);
	zswap_pools_stats(&st1);
	KUNIT_ASSERT_EQ(test, tevents_delta(e0, e1, ZSWPOUT), (long)n);
	KUNIT_ASSERT_EQ(test, tevents_delta(e0, e1, PSWPOUT), 0L);
	KUNIT_ASSERT_EQ(test, st1.objs_used - st0.objs_used, (unsigned long)n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_NE_MSG(test, td->swp[i].val, 0UL, "page %u not swapped out", i);
	if (before)
		*before = st0;
	return td;
}

/* Wait (10 s at most) for @item to grow by @n since @e0; its growth. */
static long wait_event_delta(const struct tevents *e0, struct tevents *e,
			     enum vm_event_item item, long n)
{
	unsigned long deadline = jiffies + 10 * HZ;
	long d;

	for (;;) {
		tevents_read(e);
		d = tevents_delta(e0, e, item);
		if (d >= n || time_after(jiffies, deadline))
			return d;
		usleep_range(10000, 20000);
	}
}

/* How many of @td's pages have a folio in the swap cache. */
static unsigned int swap_cached(struct tdata *td)
{
	unsigned int i, cached = 0;

	for (i = 0; i < td->n; i++) {
		struct folio *folio = swap_cache_folio_kunit(td->swp[i]);

		if (folio) {
			cached++;
			folio_put(folio);
		}
	}
	return cached;
}

/*
 * Our pool gave back @objs objects, and the pages its counters say it gave
 * back are the ones NR_ZSPAGES, the zone counter, lost (give a worker that
 * frees a zspage a second to return its pages).
 */
static void expect_pool_shrank(struct kunit *test, const struct zsmod_pool_stats *st0,
			       unsigned long zs0, unsigned long objs)
{
	unsigned long deadline = jiffies + HZ;
	struct zsmod_pool_stats st1;

	for (;;) {
		zswap_pools_stats(&st1);
		if (zs0 - nr_zspages() == st0->pages_used - st1.pages_used ||
		    time_after(jiffies, deadline))
			break;
		usleep_range(1000, 2000);
	}
	KUNIT_EXPECT_EQ(test, st0->objs_used - st1.objs_used, objs);
	KUNIT_EXPECT_EQ(test, (long)(zs0 - nr_zspages()),
			(long)(st0->pages_used - st1.pages_used));
}

/*
 * Write all of @td's entries back; wait until every write ended clean with
 * PG_dropbehind (or 10 s), then for the drops.
 */
static void writeback_all(struct kunit *test, struct tdata *td, const struct tevents *e0,
			  struct tevents *e1, bool dropbehind)
{
	unsigned int i;

	for (i = 0; i < td->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, zswap_writeback_kunit(td->swp[i]), 0, "page %u", i);
	if (dropbehind)
		wait_event_delta(e0, e1, DROPBEHIND_WB_END, td->n);
	folio_end_dropbehind_flush_kunit();
	tevents_read(e1);
}

static void release_workers(void *unused)
{
	folio_end_dropbehind_hold_kunit(false);
}

/* Folios whose writeback ends wait until release_workers() */
static void hold_workers(struct kunit *test)
{
	folio_end_dropbehind_flush_kunit();
	folio_end_dropbehind_hold_kunit(true);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, release_workers, NULL));
}

/* The kept ones: every way of not dropping a folio */
static long kept(const struct tevents *e0, const struct tevents *e1)
{
	return tevents_delta(e0, e1, DROPBEHIND_KEPT_DIRTY) +
	       tevents_delta(e0, e1, DROPBEHIND_KEPT_MAPPED) +
	       tevents_delta(e0, e1, DROPBEHIND_KEPT_BUSY) +
	       tevents_delta(e0, e1, DROPBEHIND_LEFT);
}

/*
 * How many of the folios at @pfns look as a reference the worker leaked
 * would leave one: still referenced, though out of the swap cache and of
 * any mapping, off the LRU and unmapped. A freed page fails the
 * folio_try_get(); a page allocated again since is not all of that.
 */
static unsigned int leaked_folios(const unsigned long *pfns, unsigned int n)
{
	unsigned int i, leaked = 0;

	for (i = 0; i < n; i++) {
		struct page *page = pfn_to_page(pfns[i]);
		struct folio *folio = page_folio(page);

		if (!folio_try_get(folio))
			continue;
		if (page_folio(page) == folio && folio_test_swapbacked(folio) &&
		    folio_test_uptodate(folio) && !folio_test_lru(folio) &&
		    !folio_mapped(folio) && !folio->mapping && !folio_test_swapcache(folio))
			leaked++;
		folio_put(folio);
	}
	return leaked;
}
#endif /* HAVE_DROPBEHIND_PATH */

/*
 * zswap.writeback_dropbehind=1: N entries written back out of our pool;
 * every write ends clean on a PG_dropbehind folio that is off the LRU (the
 * workers held, each folio is looked at while it waits), and every folio
 * is then gone from the swap cache and back in the page allocator.
 * DROPBEHIND_DROPPED counts a folio only once __remove_mapping() took it
 * off the swap cache with no reference but the worker's.
 */
static void test_writeback_dropbehind(struct kunit *test)
{
	NEED_PATH(test);
#ifdef HAVE_DROPBEHIND_PATH
	{
		const struct tdev *dev = test->param_value;
		struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
		unsigned long *pfns = kunit_kcalloc(test, NPAGES, sizeof(*pfns), GFP_KERNEL);
		struct zsmod_pool_stats st0;
		unsigned int i, nfolios = 0;
		struct tdata *td;
		unsigned long zs0;

		KUNIT_ASSERT_NOT_NULL(test, pfns);
		td = setup_path(test, dev->node, true, NPAGES, 0x1000, NULL, NULL);
		zswap_pools_stats(&st0);
		zs0 = nr_zspages();
		hold_workers(test);
		tevents_read(e0);
		for (i = 0; i < td->n; i++)
			KUNIT_EXPECT_EQ_MSG(test, zswap_writeback_kunit(td->swp[i]), 0,
					    "page %u", i);
		wait_event_delta(e0, e1, DROPBEHIND_WB_END, td->n);
		for (i = 0; i < td->n; i++) {
			struct folio *folio = swap_cache_folio_kunit(td->swp[i]);

			KUNIT_EXPECT_NOT_NULL_MSG(test, folio, "page %u", i);
			if (!folio)
				continue;
			pfns[nfolios++] = folio_pfn(folio);
			KUNIT_EXPECT_FALSE(test, folio_test_writeback(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_dirty(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_lru(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_dropbehind(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_reclaim(folio));
			folio_put(folio);
		}
		kunit_release_action(test, release_workers, NULL);
		folio_end_dropbehind_flush_kunit();
		tevents_read(e1);

		expect_pool_shrank(test, &st0, zs0, NPAGES);
		KUNIT_EXPECT_EQ(test, nfolios, (unsigned int)NPAGES);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, ZSWPWB), (long)NPAGES);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, PSWPOUT), (long)NPAGES);
		/* only zswap sets the flag, before the write starts */
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_WB_END), (long)NPAGES);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_DROPPED), (long)NPAGES);
		KUNIT_EXPECT_EQ(test, kept(e0, e1), 0L);
		KUNIT_EXPECT_EQ(test, swap_cached(td), 0U);
		KUNIT_EXPECT_EQ(test, leaked_folios(pfns, nfolios), 0U);
	}
#endif
}

/*
 * Each way a written-back folio is kept, forced while the workers are
 * held: one folio referenced by the test through every try (kept busy),
 * one dirtied (kept dirty), one read back by its shmem file (which takes
 * it out of the swap cache: left); the rest are dropped. A kept folio goes
 * on the LRU it was kept off, and every page reads back right.
 */
static void test_dropbehind_kept(struct kunit *test)
{
	NEED_PATH(test);
#ifdef HAVE_DROPBEHIND_PATH
	{
		enum { BUSY, DIRTY, LEFT, NKEPT };
		const unsigned int n = 16;
		struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
		struct folio *folio, *busy = NULL;
		unsigned int i;
		struct tdata *td;

		td = setup_path(test, "ram0", true, n, 0x6000, NULL, NULL);
		hold_workers(test);
		tevents_read(e0);
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ_MSG(test, zswap_writeback_kunit(td->swp[i]), 0,
					    "page %u", i);
		KUNIT_EXPECT_EQ(test, wait_event_delta(e0, e1, DROPBEHIND_WB_END, n), (long)n);

		busy = swap_cache_folio_kunit(td->swp[BUSY]);	/* held to the end */
		KUNIT_ASSERT_NOT_NULL(test, busy);
		KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, put_folio, busy));
		folio = swap_cache_folio_kunit(td->swp[DIRTY]);
		KUNIT_ASSERT_NOT_NULL(test, folio);
		folio_lock(folio);
		folio_mark_dirty(folio);
		folio_unlock(folio);
		folio_put(folio);
		KUNIT_EXPECT_EQ(test, tdata_check(td, LEFT), -1L);

		kunit_release_action(test, release_workers, NULL);
		folio_end_dropbehind_flush_kunit();
		tevents_read(e1);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_KEPT_BUSY), 1L);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_KEPT_DIRTY), 1L);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_LEFT), 1L);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_KEPT_MAPPED), 0L);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_DROPPED), (long)(n - NKEPT));

		/* the kept ones on the LRU, the busy and dirty ones still cached */
		lru_add_drain_all();
		KUNIT_EXPECT_TRUE(test, folio_test_lru(busy));
		KUNIT_EXPECT_TRUE(test, folio_test_swapcache(busy));
		folio = swap_cache_folio_kunit(td->swp[DIRTY]);
		KUNIT_EXPECT_NOT_NULL(test, folio);
		if (folio) {
			KUNIT_EXPECT_TRUE(test, folio_test_lru(folio));
			KUNIT_EXPECT_TRUE(test, folio_test_dirty(folio));
			folio_put(folio);
		}
		folio = filemap_get_folio(td->file->f_mapping, LEFT);
		KUNIT_EXPECT_FALSE(test, IS_ERR(folio));
		if (!IS_ERR(folio)) {
			KUNIT_EXPECT_TRUE(test, folio_test_lru(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_swapcache(folio));
			folio_put(folio);
		}
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ_MSG(test, tdata_check(td, i), -1L, "page %u", i);
	}
#endif
}

/*
 * A folio busy at its first try and free at a later one is dropped: the
 * worker tries again after a sleep. The writes end on the test's CPU (it
 * stays there while it writes; brd ends them in the task), so one worker
 * has them all, in order, the one the test holds first: once the others
 * are dropped, that folio has had its first try. The test lets it go and
 * the worker's next try drops it. A round in which the test came too late
 * (every try spent while it did not run) is counted and run again.
 */
static void test_dropbehind_retry(struct kunit *test)
{
	NEED_PATH(test);
#ifdef HAVE_DROPBEHIND_PATH
	{
		const unsigned int n = 8, rounds = 3;
		struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
		unsigned int i, round, late = 0;
		bool retried = false;
		struct tdata *td;

		td = setup_path(test, "ram0", true, n * rounds, 0x7000, NULL, NULL);
		for (round = 0; round < rounds && !retried; round++) {
			unsigned int first = round * n;
			unsigned long deadline;
			struct folio *busy;

			hold_workers(test);
			tevents_read(e0);
			migrate_disable();
			for (i = first; i < first + n; i++)
				KUNIT_EXPECT_EQ_MSG(test, zswap_writeback_kunit(td->swp[i]), 0,
						    "page %u", i);
			migrate_enable();
			KUNIT_ASSERT_EQ(test, wait_event_delta(e0, e1, DROPBEHIND_WB_END, n),
					(long)n);
			busy = swap_cache_folio_kunit(td->swp[first]);
			KUNIT_ASSERT_NOT_NULL(test, busy);
			kunit_release_action(test, release_workers, NULL);
			deadline = jiffies + 10 * HZ;
			do {
				usleep_range(200, 500);
				tevents_read(e1);
			} while (tevents_delta(e0, e1, DROPBEHIND_DROPPED) < n - 1 &&
				 time_before(jiffies, deadline));
			folio_put(busy);
			folio_end_dropbehind_flush_kunit();
			tevents_read(e1);
			KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_WB_END), (long)n);
			KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_DROPPED) +
					tevents_delta(e0, e1, DROPBEHIND_KEPT_BUSY), (long)n);
			if (tevents_delta(e0, e1, DROPBEHIND_DROPPED) == n)
				retried = true;
			else
				late++;
		}
		kunit_info(test, "%u round(s), %u in which the folio was kept busy\n", round, late);
		KUNIT_EXPECT_TRUE_MSG(test, retried,
				      "a folio busy at its first try was kept in each of %u rounds",
				      rounds);
		for (i = 0; i < td->n; i++)
			KUNIT_EXPECT_EQ_MSG(test, tdata_check(td, i), -1L, "page %u", i);
	}
#endif
}

/*
 * zswap.writeback_dropbehind=0, the stock behaviour: the same writeback
 * leaves every folio in the swap cache, clean and up to date, PG_reclaim
 * spent, no PG_dropbehind; nothing is dropped. PG_reclaim did its job:
 * where the write completes later (null_blk, kunit/cmdline's 20 ms), the
 * folio is put on the LRU while it is in flight, so its end of writeback
 * rotates it to the inactive tail (PGROTATED). Without PG_reclaim nothing
 * rotates; a folio whose write ended before the drain is not counted, so
 * "at least one" is all that can be asked.
 */
static void test_writeback_reclaim(struct kunit *test)
{
	NEED_PATH(test);
#ifdef HAVE_DROPBEHIND_PATH
	{
		const struct tdev *dev = test->param_value;
		struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
		struct zsmod_pool_stats st0;
		struct tdata *td;
		unsigned long zs0;
		unsigned int i;

		td = setup_path(test, dev->node, false, NPAGES, 0x2000, NULL, NULL);
		zswap_pools_stats(&st0);
		zs0 = nr_zspages();
		tevents_read(e0);
		for (i = 0; i < td->n; i++) {
			KUNIT_EXPECT_EQ_MSG(test, zswap_writeback_kunit(td->swp[i]), 0,
					    "page %u", i);
			if (dev->later)
				lru_add_drain_all();	/* on the LRU, the write in flight */
		}
		for (i = 0; i < td->n; i++) {
			struct folio *folio = swap_cache_folio_kunit(td->swp[i]);

			KUNIT_EXPECT_NOT_NULL_MSG(test, folio, "page %u", i);
			if (!folio)
				continue;
			folio_wait_writeback(folio);
			KUNIT_EXPECT_TRUE(test, folio_test_uptodate(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_dirty(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_reclaim(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_dropbehind(folio));
			folio_put(folio);
		}
		folio_end_dropbehind_flush_kunit();
		lru_add_drain_all();		/* the rotations are batched */
		tevents_read(e1);
		kunit_info(test, "%ld of %u folios rotated at the end of their writeback\n",
			   tevents_delta(e0, e1, PGROTATED), td->n);
		if (dev->later)
			KUNIT_EXPECT_GT(test, tevents_delta(e0, e1, PGROTATED), 0L);

		expect_pool_shrank(test, &st0, zs0, NPAGES);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, ZSWPWB), (long)NPAGES);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, PSWPOUT), (long)NPAGES);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_WB_END), 0L);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_DROPPED), 0L);
		KUNIT_EXPECT_EQ(test, swap_cached(td), (unsigned int)NPAGES);
	}
#endif
}

/*
 * After a dropbehind writeback, every page reads back byte for byte, and
 * from the swap device: zswap no longer has it, nor the swap cache. Each
 * dropped folio left a workingset shadow entry, so the reads are refaults.
 */
static void test_writeback_data(struct kunit *test)
{
	NEED_PATH(test);
#ifdef HAVE_DROPBEHIND_PATH
	{
		const struct tdev *dev = test->param_value;
		struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
		unsigned long refaults;
		struct tdata *td;
		unsigned int i;

		td = setup_path(test, dev->node, true, NPAGES, 0x3000, NULL, NULL);
		tevents_read(e0);
		writeback_all(test, td, e0, e1, true);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_DROPPED), (long)NPAGES);
		KUNIT_EXPECT_EQ(test, zswap_writeback_kunit(td->swp[0]), -ENOENT);

		refaults = global_node_page_state(WORKINGSET_REFAULT_ANON);
		tevents_read(e0);
		for (i = 0; i < td->n; i++)
			KUNIT_EXPECT_EQ_MSG(test, tdata_check(td, i), -1L, "page %u", i);
		tevents_read(e1);
		refaults = global_node_page_state(WORKINGSET_REFAULT_ANON) - refaults;
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, ZSWPIN), 0L);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, PSWPIN), (long)NPAGES);
		/*
		 * A node counter: per-CPU deltas below the stat threshold are
		 * not in the sum yet (a few dozen pages per CPU at most),
		 * so only "some"; without shadow entries it stays at 0.
		 */
		KUNIT_EXPECT_GT(test, refaults, 0UL);
	}
#endif
}

#ifdef HAVE_DROPBEHIND_PATH
/* The race: one writer, one reader, compaction and migration meanwhile */
struct wb_race {
	struct tdata *td;
	int *result;			/* zswap_writeback_kunit() of each page */
	atomic_t bad_data;		/* pages the reader read wrong */
	struct completion writer_done, reader_done;
};

static int race_writer(void *arg)
{
	struct wb_race *r = arg;
	unsigned int i;

	for (i = 0; i < r->td->n; i++) {
		r->result[i] = zswap_writeback_kunit(r->td->swp[i]);
		cond_resched();
	}
	complete(&r->writer_done);
	return 0;
}

static int race_reader(void *arg)
{
	struct wb_race *r = arg;
	unsigned int i;

	for (i = r->td->n; i-- > 0;) {
		if (tdata_check(r->td, i) != -1)
			atomic_inc(&r->bad_data);
		cond_resched();
	}
	complete(&r->reader_done);
	return 0;
}

/*
 * Up to @cap pfns above @after of pages typed zsmalloc: zswap's pool is
 * the only user while the test runs.
 */
static unsigned int find_zsmalloc_pages(unsigned long *pfns, unsigned int cap,
					unsigned long after)
{
	unsigned int n = 0;
	unsigned long pfn;
	int nid;

	for_each_online_node(nid) {
		pg_data_t *pgdat = NODE_DATA(nid);

		pfn = max(pgdat->node_start_pfn, after + 1);
		for (; pfn < pgdat_end_pfn(pgdat) && n < cap; pfn++) {
			if (!(pfn & 0xfff))
				cond_resched();
			if (pfn_valid(pfn) && PageZsmalloc(pfn_to_page(pfn)))
				pfns[n++] = pfn;
		}
	}
	return n;
}
#endif

/*
 * Writeback from one thread while another faults the same pages back in
 * (from zswap, from the swap cache or from the device, whichever holds
 * each when it comes), while our pool is compacted and the kernel's
 * compaction migrates its pages. Every page reads right, every write ended
 * on a dropbehind folio, and each of those was dropped or, once swapped
 * in again, kept; our pool gives back every object.
 */
static void test_writeback_races(struct kunit *test)
{
	NEED_PATH(test);
#ifdef HAVE_DROPBEHIND_PATH
	{
		const unsigned int n = 384;
		struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
		struct zsmod_pool_stats st_base, st0, st1;
		struct task_struct *writer, *reader;
		unsigned int i, rounds = 0, attempts = 0, next = 0, npfns, ok = 0, gone = 0;
		unsigned long migrated = 0;
		unsigned long pfns[16];
		long block;
		struct wb_race *r;
		struct tdata *td;

		td = setup_path(test, "ram0", true, n, 0x4000, &st_base, &block);
		r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r);
		r->result = kunit_kcalloc(test, n, sizeof(*r->result), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->result);
		r->td = td;
		init_completion(&r->writer_done);
		init_completion(&r->reader_done);

		/* holes in the zspages, for compaction to fill */
		for (i = 0; i < n; i += 3)
			KUNIT_EXPECT_EQ_MSG(test, tdata_check(td, i), -1L, "page %u", i);
		npfns = find_zsmalloc_pages(pfns, ARRAY_SIZE(pfns), 0);
		zswap_pools_stats(&st0);
		tevents_read(e0);

		writer = kthread_run(race_writer, r, "zsmod-wb-writer");
		KUNIT_ASSERT_FALSE(test, IS_ERR(writer));
		reader = kthread_run(race_reader, r, "zsmod-wb-reader");
		if (IS_ERR(reader)) {
			wait_for_completion(&r->writer_done);
			KUNIT_FAIL(test, "kthread_run failed");
			return;
		}
		/*
		 * Our moves first: the kernel's compaction of all memory is
		 * slow. A pool page may be freed, or sit in a pageblock that
		 * cannot be isolated, by the time its turn comes: until the
		 * pool counts a migration, move the next page of the pool,
		 * looking its pages up again when the list runs out, and go
		 * on after the writer is done if need be (bounded).
		 */
		do {
			if (!migrated) {
				if (next == npfns) {	/* the next ones, or again */
					npfns = find_zsmalloc_pages(pfns, ARRAY_SIZE(pfns),
								    npfns ? pfns[npfns - 1] : 0);
					if (!npfns)
						npfns = find_zsmalloc_pages(pfns,
									    ARRAY_SIZE(pfns), 0);
					next = 0;
				}
				if (next < npfns) {
					contig_migrate_pfn(pfns[next++]);
					attempts++;
				}
				zswap_pools_stats(&st1);
				migrated = st1.pages_migrated - st0.pages_migrated;
			}
			zswap_pools_compact();
			if (rounds % 16 == 15)
				KUNIT_EXPECT_EQ(test, compact_zones(), 0);
			rounds++;
		} while (!completion_done(&r->writer_done) ||
			 (!migrated && attempts < 256 && npfns));
		wait_for_completion(&r->writer_done);
		wait_for_completion(&r->reader_done);
		folio_end_dropbehind_flush_kunit();
		tevents_read(e1);
		zswap_pools_stats(&st1);

		for (i = 0; i < n; i++) {
			switch (r->result[i]) {
			case 0:
				ok++;
				break;
			case -ENOENT:	/* read from zswap first: no entry left */
			case -EEXIST:	/* being read: its folio in the swap cache */
			case -ENOMEM:	/* its slot taken or freed by the reader */
				gone++;
				break;
			default:
				KUNIT_FAIL(test, "page %u: writeback %d", i, r->result[i]);
			}
		}
		kunit_info(test, "%u rounds, %u migration attempts; written back %u, taken by the reader %u; dropped %ld, kept %ld; pool: pages compacted %lu, migrated %lu\n",
			   rounds, attempts, ok, gone, tevents_delta(e0, e1, DROPBEHIND_DROPPED),
			   kept(e0, e1),
			   st1.pages_compacted - st0.pages_compacted,
			   st1.pages_migrated - st0.pages_migrated);
		KUNIT_EXPECT_EQ(test, atomic_read(&r->bad_data), 0);
		KUNIT_EXPECT_GT(test, ok, 0U);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, ZSWPWB), (long)ok);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_WB_END), (long)ok);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_DROPPED) + kept(e0, e1),
				(long)ok);
		/* every page was read: written back or not, it left zswap */
		KUNIT_EXPECT_EQ(test, st1.objs_used, st_base.objs_used);
		KUNIT_EXPECT_GT(test, st1.pages_compacted - st0.pages_compacted, 0UL);
		KUNIT_EXPECT_GT(test, st1.pages_migrated - st0.pages_migrated, 0UL);
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ_MSG(test, tdata_check(td, i), -1L, "page %u", i);
	}
#endif
}

#ifdef HAVE_DROPBEHIND_PATH
static void clear_make_it_fail(void *bdev)
{
	bdev_clear_flag(bdev, BD_MAKE_IT_FAIL);
}
#endif

/*
 * A write error (fail_make_request on the device's bios, for this task
 * only): the folio is redirtied and stays in the swap cache with the data,
 * which our pool no longer has; nothing is dropped, and the page reads
 * back right from the swap cache.
 */
static void test_writeback_write_error(struct kunit *test)
{
	NEED_PATH(test);
#ifdef HAVE_DROPBEHIND_PATH
	{
		const unsigned int n = 8;
		struct tevents *e0 = tevents_alloc(test), *e1 = tevents_alloc(test);
		struct zsmod_pool_stats st0, st1;
		struct block_device *bdev;
		struct fault_attr *attr;
		struct tdata *td;
		struct file *dev;
		unsigned int i;

		dev = tswap_device(test, "ram0");
		KUNIT_ASSERT_EQ(test, 0, zswap_kunit_setup(test, "zsmalloc_mod", true));
		td = tdata_create(test, n, 0x5000);
		KUNIT_ASSERT_EQ(test, tdata_push(td), (unsigned long)n);
		attr = fail_make_request_kunit_task_only(test);
		KUNIT_ASSERT_FALSE(test, IS_ERR(attr));
		bdev = bdev_whole(file_bdev(dev));
		bdev_set_flag(bdev, BD_MAKE_IT_FAIL);
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test, clear_make_it_fail, bdev));

		zswap_pools_stats(&st0);
		tevents_read(e0);
		WRITE_ONCE(attr->probability, 100);
		current->make_it_fail = 1;
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ_MSG(test, zswap_writeback_kunit(td->swp[i]), 0,
					    "page %u", i);
		current->make_it_fail = 0;
		WRITE_ONCE(attr->probability, 0);
		folio_end_dropbehind_flush_kunit();
		tevents_read(e1);
		zswap_pools_stats(&st1);

		KUNIT_EXPECT_EQ(test, st0.objs_used - st1.objs_used, (unsigned long)n);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, ZSWPWB), (long)n);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_WB_END), (long)n);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_KEPT_DIRTY), (long)n);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, DROPBEHIND_DROPPED), 0L);
		lru_add_drain_all();
		for (i = 0; i < n; i++) {
			struct folio *folio = swap_cache_folio_kunit(td->swp[i]);

			KUNIT_EXPECT_NOT_NULL_MSG(test, folio, "page %u", i);
			if (!folio)
				continue;
			KUNIT_EXPECT_TRUE(test, folio_test_dirty(folio));
			KUNIT_EXPECT_TRUE(test, folio_test_lru(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_writeback(folio));
			KUNIT_EXPECT_FALSE(test, folio_test_dropbehind(folio));
			folio_put(folio);
		}
		tevents_read(e0);
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ_MSG(test, tdata_check(td, i), -1L, "page %u", i);
		tevents_read(e1);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, PSWPIN), 0L);
		KUNIT_EXPECT_EQ(test, tevents_delta(e0, e1, ZSWPIN), 0L);
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
	KUNIT_CASE_PARAM(test_writeback_dropbehind, tdev_gen_params),
	KUNIT_CASE_PARAM(test_writeback_reclaim, tdev_gen_params),
	KUNIT_CASE_PARAM(test_writeback_data, tdev_gen_params),
	KUNIT_CASE(test_dropbehind_kept),
	KUNIT_CASE(test_dropbehind_retry),
	KUNIT_CASE_SLOW(test_writeback_races),
	KUNIT_CASE(test_writeback_write_error),
	KUNIT_CASE(test_dropbehind_zspages),
	{}
};

struct kunit_suite zsmalloc_mod_dropbehind_suite = {
	.name = "zsmalloc_mod_dropbehind",
	.test_cases = dropbehind_cases,
};
