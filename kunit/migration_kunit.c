// SPDX-License-Identifier: GPL-2.0
/*
 * Suite zsmalloc_mod_migration: real page migration of whole zspages of
 * three geometries through alloc_contig_range(), aborted migration
 * (isolate + putback), migration of a zspage holding queued frees, objects
 * on pages made non-adjacent by migration, readers racing migration
 * and compaction, a pool destroyed while the migration core holds one of
 * its pages, and CPU hotplug with frees queued and objects mapped. The
 * helpers that migrate zspages and place them where they can be migrated
 * are in migrate_helpers.c: other suites use them.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>

#include "helpers.h"

/*
 * Compact every zone: the migration core moves movable pages, ours
 * included, towards the end of each zone. Returns how many of the pool's
 * pages that migrated (or a negative errno).
 */
static long compact_all(struct tpool *tp)
{
	struct zsmod_pool_stats st0, st1;
	int ret;

	zsmod_pool_stats(tp->pool, &st0);
	ret = compact_zones();
	if (ret)
		return ret;
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
		oldpfn[i] = tpool_obj_pfn(tp, i);
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
					oldpfn[i] = tpool_obj_pfn(tp, i);
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
		unsigned long pfn = tpool_obj_pfn(tp, i);

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
		oldpfn[i] = tpool_obj_pfn(tp, i);
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
			fi_fail_pages(0);
			ret = alloc_contig_range(pfns[j], pfns[j] + 1, MIGRATE_MOVABLE,
						 GFP_KERNEL | __GFP_NOWARN);
			fi_fail_pages_end();
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
		KUNIT_EXPECT_EQ(test, tpool_obj_pfn(tp, i), oldpfn[i]);
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
		KUNIT_EXPECT_TRUE_MSG(test, pfn_in(tpool_obj_pfn(tp, idx), pfns, np),
				      "new object not placed in the put-back zspage");
	}
	vidx = idx;	/* a live object of the put-back zspage */
	zsmod_pool_stats(tp->pool, &st1);
	KUNIT_EXPECT_EQ(test, st1.pages_used, st0.pages_used);
	tp->seed[vidx] ^= 0x5a5a5a5a;
	KUNIT_EXPECT_EQ(test, tpool_write(tp, vidx, ZSMOD_MM_RW), 0);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);

	/* and it still migrates */
	KUNIT_EXPECT_EQ(test, contig_migrate_pfn(pfns[vp]), 0);
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
 * A fresh zspage of class *@c (updated as fill_zspages() does) whose
 * second page was migrated, so that the objects spanning its first two
 * pages go through the per-CPU copy buffer. Returns its first object.
 */
static unsigned int split_zspage(struct kunit *test, struct tpool *tp,
				 const struct tclass **c)
{
	unsigned long pfns[MAX_PFNS];
	unsigned int first = 0, round;
	int ret = -EBUSY;

	/* as fill_migrate_one(): a fresh zspage per try, in a clean pageblock */
	for (round = 0; round < 4 && ret; round++) {
		offer_clean_pageblock(test);
		first = tp->n;
		*c = fill_zspages(tp, len_for_class(*c), MOVABLE_GFP, 1);
		KUNIT_ASSERT_EQ(test, zspage_pfns(tp, first, pfns), (int)(*c)->ppz);
		ret = contig_migrate_pfn(pfns[1]);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "migrating a zspage's second page: %d", ret);
	KUNIT_ASSERT_FALSE_MSG(test, pfns_consecutive(tp, first),
			       "the zspage's pages are still adjacent after migration");
	return first;
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
	unsigned int i, oi, first, wo = 0;
	unsigned long pfn;

	NEED_CONTIG(test);
	KUNIT_ASSERT_NOT_NULL(test, c);
	first = split_zspage(test, tp, &c);
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
	unsigned long pfns[MAX_PFNS], compacted = 0, pfn;
	unsigned int i, round, migrated = 0, tried = 0;
	int debug_locks_before = debug_locks, np, got;
	unsigned int sys_tries;
	long sys_compacted, target;

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
	/*
	 * And the kernel's own compaction of all memory, with the readers on.
	 * It needs a partly used pageblock to migrate into, above our pages
	 * (where its free scanner starts): offer one at the top of their zone.
	 * It moves only pages below where its two scanners meet: while it
	 * moves none, one more zspage is migrated elsewhere by the helper and
	 * it runs again, up to eight times.
	 */
	pfn = tpool_obj_pfn(tp, 0);
	target = pfn ? offer_compaction_target(test, pfn) : -ENOENT;
	for (sys_tries = 1; ; sys_tries++) {
		sys_compacted = compact_all(tp);
		if (sys_compacted || sys_tries == 8)
			break;
		migrate_zspage(tp, get_random_u32_below(DIV_ROUND_UP(tp->n, 2)) * 2, pfns, &np);
	}
	msleep(50);
	stop_readers(NULL);
	KUNIT_EXPECT_GT_MSG(test, target, 0L, "no free pageblock to offer compaction");
	KUNIT_EXPECT_GT_MSG(test, sys_compacted, 0L,
			    "the kernel's compaction moved none of our pages in %u tries (or failed)",
			    sys_tries);

	zsmod_pool_stats(tp->pool, &st1);
	kunit_info(test, "%ld reads, %u/%u pages migrated (%lu by the pool's count), %lu pages compacted, the kernel's compaction moved %ld pages in %u tries\n",
		   atomic_long_read(&r->reads), migrated, tried,
		   st1.pages_migrated - st0.pages_migrated, compacted,
		   sys_compacted, sys_tries);
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

#ifdef CONFIG_COMPACTION
struct destroyer {
	struct zsmod_pool *pool;
	struct completion done;
};

static int destroyer_fn(void *arg)
{
	struct destroyer *d = arg;

	zsmod_destroy_pool(d->pool);
	complete(&d->done);
	return 0;
}

/*
 * The word that holds a huge zspage's handle: page->index in the overlay
 * mode; in memdesc mode the descriptor's second word (its layout in
 * Documentation/design.rst), which page->private points to.
 */
static unsigned long huge_handle_word(struct page *page)
{
#ifdef ZSMOD_MEMDESC
	return ((unsigned long *)page_private(page))[1];
#else
	return page->index;
#endif
}

/*
 * move_to_new_folio() for a page the test isolated and locked, as the
 * migration core does: the callback with both pages locked, a putback if
 * it failed. Both pages come back unlocked, @page no longer isolated; the
 * test's reference to @dst is dropped, the one to @page kept.
 */
static int migrate_isolated(struct kunit *test,
			    const struct movable_operations *mops,
			    struct page *page, struct page *dst)
{
	int rc;

	lock_page(dst);
	rc = mops->migrate_page(dst, page, MIGRATE_SYNC);
	KUNIT_EXPECT_EQ(test, rc, MIGRATEPAGE_SUCCESS);
	if (rc != MIGRATEPAGE_SUCCESS)
		mops->putback_page(page);
	ClearPageIsolated(page);
	unlock_page(page);
	unlock_page(dst);
	put_page(dst);
	return rc;
}

/*
 * One round of test_destroy_vs_migration() on a zspage of a small class
 * or the huge class. Return false if the page could not be isolated
 * (kcompactd got to it first: try again).
 */
static bool destroy_during_migration(struct kunit *test, bool huge)
{
	struct tpool *tp = tpool_create(test, 256);
	const struct tclass *c = huge ? huge_class(tp) : pick_class(tp, 1, false);
	const struct movable_operations *mops;
	struct zsmod_pool_stats st0, st;
	unsigned long pfns[MAX_PFNS], deadline;
	struct page *page, *newpage;
	struct task_struct *kth;
	struct destroyer *d;

	KUNIT_ASSERT_NOT_NULL(test, c);
	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	newpage = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, newpage);
	c = fill_zspages(tp, len_for_class(c), MOVABLE_GFP, 1);
	KUNIT_ASSERT_GE(test, zspage_pfns(tp, 0, pfns), 1);

	/* isolate_movable_page(), but the lock kept, as migration keeps it */
	page = pfn_to_page(pfns[0]);
	if (!get_page_unless_zero(page)) {
		__free_page(newpage);
		return false;
	}
	lock_page(page);
	if (zspage_pfns(tp, 0, pfns) < 1 || pfns[0] != page_to_pfn(page) ||
	    !__PageMovable(page) || PageIsolated(page)) {
		unlock_page(page);
		put_page(page);
		__free_page(newpage);
		return false;
	}
	mops = page_movable_ops(page);
	KUNIT_EXPECT_TRUE(test, mops->isolate_page(page, ISOLATE_UNEVICTABLE));
	SetPageIsolated(page);

	/* destroy leaves the zspage to its worker, which waits for the lock */
	zsmod_pool_stats(tp->pool, &st0);
	d->pool = tp->pool;
	tp->pool = NULL;
	init_completion(&d->done);
	kth = kthread_run(destroyer_fn, d, "zsmod-destroy");
	if (IS_ERR(kth)) {
		tp->pool = d->pool;
		mops->putback_page(page);
		ClearPageIsolated(page);
		unlock_page(page);
		put_page(page);
		__free_page(newpage);
		KUNIT_FAIL(test, "no kthread: %ld", PTR_ERR(kth));
		return true;
	}
	deadline = jiffies + 5 * HZ;
	do {
		usleep_range(10000, 20000);
		/* the pool lives until the zspage we hold is freed */
		zsmod_pool_stats(d->pool, &st);
	} while (st.deferred_frees == st0.deferred_frees &&
		 time_before(jiffies, deadline));
	KUNIT_EXPECT_EQ_MSG(test, st.deferred_frees - st0.deferred_frees, 1UL,
			    "destroy did not leave the locked zspage to its worker");
	KUNIT_EXPECT_EQ(test, st.objs_used, 0UL);

	/*
	 * Without a sanitizer, what the callback would find: no slot header
	 * (bit 0 of an object's first word) or huge handle word (the page's
	 * index) may still say allocated.
	 */
	if (huge) {
		KUNIT_EXPECT_EQ_MSG(test, huge_handle_word(page) & 1, 0UL,
				    "destroy left the huge zspage's handle word set");
	} else {
		unsigned long *word, off, set = 0;
		void *addr = kmap_local_page(page);

		for (off = 0; off < PAGE_SIZE; off += c->size) {
			word = addr + off;
			set += *word & 1;
		}
		kunmap_local(addr);
		KUNIT_EXPECT_EQ_MSG(test, set, 0UL,
				    "destroy left slot headers that say allocated");
	}

	migrate_isolated(test, mops, page, newpage);
	put_page(page);

	if (!wait_for_completion_timeout(&d->done, 10 * HZ)) {
		KUNIT_FAIL(test, "destroy still waits 10 s after the page locks dropped");
		wait_for_completion(&d->done);
	}
	KUNIT_EXPECT_EQ_MSG(test, nr_zspages(), tp->base_zspages,
			    "pages not returned by destroy");
	expect_no_stray_pages(test, tp->base_stray, "after destroy raced migration");
	return true;
}

/*
 * Destroy with live objects while the migration core holds a page of
 * their zspage, played step by step as mm/migrate.c does it: the page
 * isolated through our movable ops and kept locked; destroy in a kthread,
 * which must leave that zspage to its worker; then the migrate callback
 * onto a fresh page. Destroy must have freed every slot, not just the
 * handles, or the callback rewrites a handle in a freed handle block
 * (KASAN: use-after-free). Once the page locks drop, every page returns.
 * In a small class (handle in the slot) and the huge class (in the page
 * descriptor).
 */
static void destroy_vs_migration_in(struct kunit *test, bool huge)
{
	unsigned int tries = 0;

	while (!destroy_during_migration(test, huge)) {
		if (++tries == 5) {
			KUNIT_FAIL(test, "%s class: the page kept moving away",
				   huge ? "huge" : "small");
			return;
		}
	}
}

static void test_destroy_vs_migration(struct kunit *test)
{
	destroy_vs_migration_in(test, false);
	destroy_vs_migration_in(test, true);
}
#else
static void test_destroy_vs_migration(struct kunit *test)
{
	kunit_skip(test, "kernel without CONFIG_COMPACTION: zspages are not movable");
}
#endif

/*
 * CPU hotplug, deterministically: take a CPU offline with frees queued on
 * it (fewer than a batch, so only the drain worker or a reader runs them;
 * the test holds the worker until the CPU is gone) and bring it back. The
 * frees are not lost: the worker, let go, runs them without their CPU.
 * The CPU's copy buffer, freed when it died and allocated again when it
 * came back, carries objects that span two pages that are not adjacent.
 */
static void cpu_online_again(void *arg)
{
	unsigned int cpu = (unsigned long)arg;

	if (!cpu_online(cpu))
		add_cpu(cpu);
}

static void release_drain(void *pool)
{
	zsmod_kunit_hold_drain(pool, false);
}

static void test_cpu_hotplug(struct kunit *test)
{
	const unsigned int nfree = 4;
	struct tpool *tp = tpool_create(test, 4096);
	const struct tclass *c = pick_class(tp, 2, true);
	unsigned int i, queued, cpu = nr_cpu_ids, wrote;
	unsigned long deadline;
	unsigned int first;
	int ret;

	NEED_CONTIG(test);
	KUNIT_ASSERT_NOT_NULL(test, c);
	for_each_online_cpu(i)
		if (i)
			cpu = i;
	KUNIT_ASSERT_LT_MSG(test, cpu, nr_cpu_ids, "needs a second CPU that can go offline");
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, cpu_online_again,
							   (void *)(unsigned long)cpu));
	for (i = 0; i < 2 * nfree; i++)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, len_for_class(c), MOVABLE_GFP), 0);

	zsmod_kunit_hold_drain(tp->pool, true);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, release_drain,
							   tp->pool));
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	for (i = 0; i < nfree; i++)
		tpool_free(tp, i);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpu_possible_mask), 0);
	ret = remove_cpu(cpu);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "cpu%u would not go offline", cpu);
	queued = zsmod_kunit_frees_queued(tp->pool, cpu);
	KUNIT_ASSERT_EQ_MSG(test, queued, nfree, "frees queued on cpu%u before it died", cpu);
	/* let go, the drain worker runs them at once */
	kunit_release_action(test, release_drain, tp->pool);
	deadline = jiffies + 2 * HZ;
	while (zsmod_kunit_frees_queued(tp->pool, cpu) && time_before(jiffies, deadline))
		msleep(20);
	KUNIT_EXPECT_EQ_MSG(test, zsmod_kunit_frees_queued(tp->pool, cpu), 0U,
			    "frees queued on offline cpu%u never ran", cpu);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);

	KUNIT_ASSERT_EQ(test, add_cpu(cpu), 0);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	first = split_zspage(test, tp, &c);
	wrote = span_rw_zspage(tp, c, first);
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(current, cpu_possible_mask), 0);
	KUNIT_EXPECT_GT_MSG(test, wrote, 0U, "no split object mapped on cpu%u", cpu);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	expect_consistent(tp);
	free_destroy_check(tp);
}

#ifdef CONFIG_COMPACTION
/*
 * The words of struct page that zsmalloc_mod writes, per zpdesc mode
 * (zpdesc.h; Documentation/design.rst, "memdesc mode"). Both modes: the
 * movable-ops word (mapping) and the page type. Overlay: also index (the
 * next page, or the huge object's handle) and private (the zspage).
 * Memdesc: also private, which points to the descriptor, and nothing else:
 * index keeps whatever it held. lru and the refcount belong to the page
 * allocator and the migration core and are not compared.
 */
#ifdef ZSMOD_MEMDESC
#define WRITES_INDEX false
#else
#define WRITES_INDEX true
#endif
#define INDEX_SENTINEL	0x5a5a5a5a00000000UL

struct page_words {
	unsigned long flags, mapping, index, private, memcg;
	unsigned int type;
};

static void page_words(const struct page *page, struct page_words *w)
{
	/* the page lock is the test's own, when it holds it */
	w->flags = page->flags & ((1UL << NR_PAGEFLAGS) - 1) & ~(1UL << PG_locked);
	w->mapping = (unsigned long)READ_ONCE(page->mapping);
	w->index = READ_ONCE(page->index);
	w->private = page_private(page);
	w->type = READ_ONCE(page->page_type);
#ifdef CONFIG_MEMCG
	w->memcg = READ_ONCE(page->memcg_data);
#else
	w->memcg = 0;
#endif
}

/*
 * A live page of ours, against @was, the same page before we had it:
 * which words changed is exactly what the mode allows. @private_was: what
 * private must hold (the zspage or the descriptor), 0 for any non-zero.
 */
static void expect_live_words(struct kunit *test, const char *when,
			      struct page *page, const struct page_words *was,
			      unsigned long private_was)
{
	struct page_words w;

	page_words(page, &w);
	KUNIT_EXPECT_EQ_MSG(test, w.flags, was->flags, "%s: page flags", when);
	KUNIT_EXPECT_EQ_MSG(test, w.memcg, was->memcg, "%s: memcg_data", when);
	KUNIT_EXPECT_TRUE_MSG(test, __PageMovable(page) && page_movable_ops(page),
			      "%s: no movable ops", when);
	KUNIT_EXPECT_TRUE_MSG(test, folio_test_zsmalloc(page_folio(page)),
			      "%s: not typed zsmalloc", when);
	KUNIT_EXPECT_NE_MSG(test, w.private, 0UL, "%s: private", when);
	if (private_was)
		KUNIT_EXPECT_EQ_MSG(test, w.private, private_was,
				    "%s: private", when);
	if (WRITES_INDEX)
		KUNIT_EXPECT_NE_MSG(test, w.index, was->index,
				    "%s: overlay: index holds no handle", when);
	else
		KUNIT_EXPECT_EQ_MSG(test, w.index, was->index,
				    "%s: memdesc: index written", when);
	if (!WRITES_INDEX && w.private) {
		const struct page *back = *(struct page **)w.private;

		/* the descriptor is a slab object that points back to the page */
		KUNIT_EXPECT_TRUE_MSG(test, virt_addr_valid(w.private) &&
				      folio_test_slab(virt_to_folio((void *)w.private)),
				      "%s: private is no slab object", when);
		KUNIT_EXPECT_PTR_EQ_MSG(test, back, page,
					"%s: descriptor points elsewhere", when);
	}
}

/* A page we gave back, still referenced by the test: as it was, but index. */
static void expect_released_words(struct kunit *test, const char *when,
				  struct page *page, const struct page_words *was)
{
	struct page_words w;

	page_words(page, &w);
	KUNIT_EXPECT_EQ_MSG(test, w.flags, was->flags, "%s: page flags", when);
	KUNIT_EXPECT_EQ_MSG(test, w.memcg, was->memcg, "%s: memcg_data", when);
	KUNIT_EXPECT_EQ_MSG(test, w.mapping & ~PAGE_MAPPING_FLAGS, 0UL,
			    "%s: movable ops left", when);
	KUNIT_EXPECT_FALSE_MSG(test, folio_test_zsmalloc(page_folio(page)),
			       "%s: still typed zsmalloc", when);
	KUNIT_EXPECT_EQ_MSG(test, w.private, 0UL, "%s: private", when);
	KUNIT_EXPECT_EQ_MSG(test, w.index, WRITES_INDEX ? 0 : was->index,
			    "%s: index", when);
}

/*
 * Allocate an object of the huge class whose page is @page, which the
 * test just freed (the per-CPU free list is last in, first out).
 */
static int alloc_on_page(struct tpool *tp, const struct tclass *c,
			 struct page *page)
{
	unsigned long pfn = page_to_pfn(page);
	int idx;

	migrate_disable();
	__free_page(page);
	idx = tpool_alloc(tp, len_for_class(c), MOVABLE_GFP);
	migrate_enable();
	if (idx >= 0 && tpool_obj_pfn(tp, idx) != pfn)
		return -EAGAIN;
	return idx;
}

/*
 * One round of test_struct_page_words(). Return false if the page could
 * not be had for the test's own migration (kcompactd got to it first, or
 * the page allocator handed out another page): try again.
 */
static bool struct_page_words_round(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 64);
	const struct tclass *c = huge_class(tp);
	struct page_words before, dst_before, live;
	const struct movable_operations *mops;
	unsigned long zspages;
	struct page *page = NULL, *dst;
	int idx = -EAGAIN, tries, rc;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (tries = 0; tries < 16 && idx == -EAGAIN; tries++) {
		page = alloc_page(MOVABLE_GFP);
		KUNIT_ASSERT_NOT_NULL(test, page);
		page->index = INDEX_SENTINEL + tries;
		page_words(page, &before);
		idx = alloc_on_page(tp, c, page);
	}
	if (idx < 0)
		return false;

	/* isolate_movable_page(), but the lock kept, as migration keeps it */
	if (!get_page_unless_zero(page))
		return false;
	lock_page(page);
	if (tpool_obj_pfn(tp, idx) != page_to_pfn(page) || !__PageMovable(page) ||
	    !page_movable_ops(page) || PageIsolated(page)) {
		unlock_page(page);
		put_page(page);
		return false;
	}
	expect_live_words(test, "allocated", page, &before, 0);
	page_words(page, &live);
	mops = page_movable_ops(page);
	KUNIT_ASSERT_TRUE(test, mops->isolate_page(page, ISOLATE_UNEVICTABLE));
	SetPageIsolated(page);

	dst = alloc_page(MOVABLE_GFP);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	dst->index = INDEX_SENTINEL - 1;
	page_words(dst, &dst_before);
	zspages = nr_zspages();
	rc = migrate_isolated(test, mops, page, dst);
	if (rc != MIGRATEPAGE_SUCCESS) {
		put_page(page);
		return true;
	}
	if (IS_ENABLED(CONFIG_ZSMALLOC))
		KUNIT_EXPECT_EQ_MSG(test, nr_zspages(), zspages,
				    "NR_ZSPAGES changed by a migration");
	/* ours only: the zspage's reference moved to the destination */
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 1);
	KUNIT_EXPECT_EQ(test, page_ref_count(dst), 1);
	KUNIT_EXPECT_EQ(test, tpool_obj_pfn(tp, idx), page_to_pfn(dst));
	/* overlay: the zspage moves; memdesc: the descriptor itself */
	expect_live_words(test, "migration destination", dst, &dst_before,
			  live.private);
	if (WRITES_INDEX)
		KUNIT_EXPECT_EQ_MSG(test, dst->index, live.index,
				    "the huge object's handle did not move");
	expect_released_words(test, "migration source", page, &before);
	put_page(page);
	KUNIT_EXPECT_EQ(test, tpool_check(tp, idx), -1L);

	get_page(dst);
	free_destroy_check(tp);
	expect_released_words(test, "freed", dst, &dst_before);
	KUNIT_EXPECT_EQ(test, page_ref_count(dst), 1);
	put_page(dst);
	return true;
}

/*
 * Every word of struct page of one of our pages, before allocation, while
 * ours, after it migrated away (both pages) and after the free: each mode
 * writes exactly the words of its table, and the references and
 * NR_ZSPAGES follow the page. The huge class: one page per zspage, whose
 * handle the overlay keeps in index. The migration core is played as in
 * test_destroy_vs_migration(), onto a page the test made.
 */
static void test_struct_page_words(struct kunit *test)
{
	unsigned int tries = 0;

	while (!struct_page_words_round(test)) {
		if (++tries == 5) {
			KUNIT_FAIL(test, "the page kept moving away");
			return;
		}
	}
}
#else
static void test_struct_page_words(struct kunit *test)
{
	kunit_skip(test, "kernel without CONFIG_COMPACTION: zspages are not movable");
}
#endif

/*
 * How many pages of object @idx's zspage the migration core may move; the
 * zspage's first pfn in @first, its page count in @np.
 */
static unsigned int zspage_movable_pages(struct tpool *tp, unsigned int idx,
					 unsigned long *first, int *np)
{
	unsigned long pfns[MAX_PFNS];
	unsigned int movable = 0;
	int j;

	*np = zspage_pfns(tp, idx, pfns);
	*first = *np > 0 ? pfns[0] : 0;
	for (j = 0; j < *np; j++)
		movable += __PageMovable(pfn_to_page(pfns[j]));
	return movable;
}

/* The pool of the unmovable cases and a class of theirs (2-page zspages). */
static struct tpool *unmovable_pool(struct kunit *test, const struct tclass **c)
{
	struct tpool *tp;

	if (!IS_ENABLED(CONFIG_COMPACTION))
		kunit_skip(test, "kernel without CONFIG_COMPACTION: zspages are not movable");
	tp = tpool_create(test, 64);
	*c = pick_class_sized(tp, 2, false, 512);
	KUNIT_ASSERT_NOT_NULL(test, *c);
	KUNIT_ASSERT_GE(test, (*c)->opz, 3U);
	return tp;
}

/*
 * A page whose lock was busy when its zspage was made (a pfn walker's; the
 * kunit_lock_busy knob stands in for it) must not stay unmovable for good:
 * the next malloc in the zspage, or the next free, makes it movable, as the
 * migration core itself sees it (__PageMovable()).
 */
static void test_unmovable_retry(struct kunit *test)
{
	struct zsmod_pool_stats st;
	const struct tclass *c;
	unsigned long z1, z2, z;
	struct tpool *tp = unmovable_pool(test, &c);
	size_t len = len_for_class(c);
	int a, i, d, np;

	/* the malloc path: a makes zspage z1 with its locks busy; b retries */
	set_param(test, "kunit_lock_busy", true);
	a = tpool_alloc(tp, len, MOVABLE_GFP);
	KUNIT_ASSERT_GE(test, a, 0);
	KUNIT_EXPECT_EQ_MSG(test, zspage_movable_pages(tp, a, &z1, &np), 0U,
			    "a page whose lock was busy was made movable");
	KUNIT_ASSERT_EQ(test, np, (int)c->ppz);
	set_param(test, "kunit_lock_busy", false);
	i = tpool_alloc(tp, len, MOVABLE_GFP);
	KUNIT_ASSERT_GE(test, i, 0);
	KUNIT_EXPECT_EQ_MSG(test, zspage_movable_pages(tp, i, &z, &np), c->ppz,
			    "pages left unmovable after a malloc in their zspage");
	KUNIT_ASSERT_EQ(test, z, z1);

	/* the free path: fill z1, make z2 busy, then d's free retries */
	set_param(test, "kunit_lock_busy", true);
	do {
		i = tpool_alloc(tp, len, MOVABLE_GFP);
		KUNIT_ASSERT_GE(test, i, 0);
		zspage_movable_pages(tp, i, &z2, &np);
	} while (z2 == z1);
	d = tpool_alloc(tp, len, MOVABLE_GFP);
	KUNIT_ASSERT_GE(test, d, 0);
	KUNIT_EXPECT_EQ(test, zspage_movable_pages(tp, d, &z, &np), 0U);
	KUNIT_ASSERT_EQ(test, z, z2);
	set_param(test, "kunit_lock_busy", false);
	tpool_free(tp, d);
	zsmod_pool_stats(tp->pool, &st);	/* runs the queued free */
	KUNIT_EXPECT_EQ_MSG(test, zspage_movable_pages(tp, i, &z, &np), c->ppz,
			    "pages left unmovable after a free in their zspage");
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	free_destroy_check(tp);
}

/*
 * The same for compaction, whose moves go around the malloc and free paths:
 * two zspages made with their page locks busy, one object left in each
 * (the frees' retries meet busy locks too), then compaction moves one
 * object into the other zspage, whose pages must then be movable.
 */
static void test_unmovable_compaction(struct kunit *test)
{
	struct zsmod_pool_stats st;
	const struct tclass *c;
	unsigned long z1, z2, z;
	struct tpool *tp = unmovable_pool(test, &c);
	size_t len = len_for_class(c);
	int a, b, i, np;

	set_param(test, "auto_compact", false);

	set_param(test, "kunit_lock_busy", true);
	a = tpool_alloc(tp, len, MOVABLE_GFP);
	KUNIT_ASSERT_GE(test, a, 0);
	zspage_movable_pages(tp, a, &z1, &np);
	do {
		b = tpool_alloc(tp, len, MOVABLE_GFP);
		KUNIT_ASSERT_GE(test, b, 0);
		zspage_movable_pages(tp, b, &z2, &np);
	} while (z2 == z1);
	for (i = 0; i < b; i++)
		if (i != a)
			tpool_free(tp, i);
	zsmod_pool_stats(tp->pool, &st);	/* runs the queued frees */
	KUNIT_ASSERT_EQ(test, zspage_movable_pages(tp, a, &z, &np), 0U);
	KUNIT_ASSERT_EQ(test, zspage_movable_pages(tp, b, &z, &np), 0U);
	set_param(test, "kunit_lock_busy", false);

	KUNIT_EXPECT_EQ(test, zsmod_compact(tp->pool), (unsigned long)c->ppz);
	/* a and b now share the zspage that compaction kept */
	KUNIT_EXPECT_EQ_MSG(test, zspage_movable_pages(tp, a, &z1, &np), c->ppz,
			    "pages left unmovable after compaction moved into their zspage");
	KUNIT_EXPECT_EQ(test, zspage_movable_pages(tp, b, &z2, &np), c->ppz);
	KUNIT_EXPECT_EQ(test, z1, z2);
	KUNIT_EXPECT_EQ(test, tpool_check_all(tp), 0U);
	free_destroy_check(tp);
}

static struct kunit_case migration_cases[] = {
	KUNIT_CASE(test_migrate_pages),
	KUNIT_CASE(test_migrate_abort),
	KUNIT_CASE(test_migrate_queued_free),
	KUNIT_CASE(test_span_split_pages),
	KUNIT_CASE(test_unmovable_retry),
	KUNIT_CASE(test_unmovable_compaction),
	KUNIT_CASE_SLOW(test_destroy_vs_migration),
	KUNIT_CASE_SLOW(test_struct_page_words),
	KUNIT_CASE_SLOW(test_cpu_hotplug),
	KUNIT_CASE_SLOW(test_readers_vs_migration),
	{}
};

struct kunit_suite zsmalloc_mod_migration_suite = {
	.name = "zsmalloc_mod_migration",
	.test_cases = migration_cases,
};
