// SPDX-License-Identifier: GPL-2.0
/*
 * Suite zsmalloc_mod_free: freeing and what it gives back. Handle blocks
 * (they grow with the objects, a freed handle is refused and reused first,
 * emptied blocks are freed, a block refused without sleeping), slot reuse,
 * frees queued per CPU, a handle of another pool refused, pools destroyed
 * with objects in them, the shrinker and its switch, and rare sizes
 * borrowing slots of a larger class within their budget.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/shrinker.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "helpers.h"

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
	set_param(test, "auto_compact", false);
	c = fill_zspages(tp, len_for_class(c), GFP_KERNEL, 4);
	for (i = 0; i < tp->n; i += 2)
		tpool_free(tp, i);
	zsmod_pool_stats(tp->pool, &st);	/* runs the queued frees */
	pages = zsmod_get_total_pages(tp->pool);
	KUNIT_ASSERT_EQ(test, pages, 4UL * c->ppz);

	set_param(test, "shrinker_enabled", false);
	KUNIT_EXPECT_EQ(test, shrinker->count_objects(shrinker, &sc), 0UL);
	sc.nr_to_scan = 128;
	KUNIT_EXPECT_EQ(test, shrinker->scan_objects(shrinker, &sc), SHRINK_STOP);
	KUNIT_EXPECT_EQ(test, zsmod_get_total_pages(tp->pool), pages);

	set_param(test, "shrinker_enabled", true);
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
 * Slot borrowing for rare sizes (ZSMOD_RARE_* in zsmalloc_mod_internal.h):
 * once the pool holds ZSMOD_RARE_POOL_PAGES pages, an object whose class
 * has no zspage yet takes a free slot of a class up to
 * ZSMOD_RARE_BORROW_BYTES larger instead of opening a zspage; in a smaller
 * pool it opens its own zspage.
 */
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
	KUNIT_ASSERT_LE(test, big->size - rare->size, (unsigned int)ZSMOD_RARE_BORROW_BYTES);
	KUNIT_EXPECT_EQ(test, tpool_check(tp, idx), -1L);
	tpool_free(tp, idx);
	KUNIT_ASSERT_EQ(test, 0, zsmod_class_info(tp->pool, rare->arg, &info));
	KUNIT_ASSERT_EQ(test, info.zspages, 0UL);

	/* grow the pool, then leave a free slot in the big class */
	while (zsmod_get_total_pages(tp->pool) < ZSMOD_RARE_POOL_PAGES)
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
 * zsmalloc_mod_internal.h): while the pool is smaller than
 * ZSMOD_BORROW_BUDGET_POOL_PAGES a class borrows slots of a larger class
 * without limit; in a larger pool only until the bytes they leave unused
 * reach one zspage of its own, and then it opens its own zspage. The
 * budget renews when the class has no zspage left.
 */
static void test_borrow_budget(struct kunit *test)
{
	const unsigned int cap = ZSMOD_BORROW_BUDGET_POOL_PAGES + 4096;
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
	while (zsmod_get_total_pages(tp->pool) < ZSMOD_BORROW_BUDGET_POOL_PAGES)
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

static struct kunit_case free_cases[] = {
	KUNIT_CASE(test_handle_blocks),
	KUNIT_CASE(test_free_reuse),
	KUNIT_CASE(test_free_queue),
	KUNIT_CASE(test_foreign_handle),
	KUNIT_CASE(test_destroy_with_objects),
	KUNIT_CASE(test_handle_block_refused),
	KUNIT_CASE(test_shrinker_counts_queued),
	KUNIT_CASE(test_shrinker_disabled),
	KUNIT_CASE(test_rare_class_borrow),
	KUNIT_CASE_SLOW(test_borrow_budget),
	{}
};

struct kunit_suite zsmalloc_mod_free_suite = {
	.name = "zsmalloc_mod_free",
	.test_cases = free_cases,
};
