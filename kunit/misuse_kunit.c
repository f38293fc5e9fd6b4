// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_mod_misuse: a caller's mistakes, made on purpose. Each is
 * refused as the "Misuse" section of zsmalloc_mod.c documents: it is
 * reported once, and the pool's objects and counters stay as they were.
 * The reports are collected through the "zsmod_misuse" resource (as
 * lib/slub_kunit.c collects slab errors), so each case counts them and
 * the run stays free of WARNINGs; KASAN, KFENCE and lockdep must stay
 * silent.
 *
 * Not here: a handle used after its pool was destroyed, or after the last
 * handle of its handle block was freed. Its block has gone back to the
 * slab allocator, and nothing short of a lookup table could tell it from
 * a live one: upstream zsmalloc does not check either.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/preempt.h>
#include <linux/sched/task.h>

#include "helpers.h"

static struct kunit_resource misuse_resource;
static atomic_t misuse_reports;

static int misuse_test_init(struct kunit *test)
{
	atomic_set(&misuse_reports, 0);
	kunit_add_named_resource(test, NULL, NULL, &misuse_resource,
				 "zsmod_misuse", &misuse_reports);
	return 0;
}

/* Three live objects in one class and one handle block, and a fourth. */
static struct tpool *misuse_pool(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 8);
	unsigned int i;

	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_GE(test, tpool_alloc(tp, 200, GFP_KERNEL), 0);
	return tp;
}

/*
 * Whether this task is held on its CPU, as a mapping holds it: preemption
 * off, or on PREEMPT_RT (a sleeping local lock) migration off.
 */
static bool cpu_held(void)
{
#ifdef CONFIG_SMP
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return current->migration_disabled;
#endif
	return preempt_count();
}

/* Nothing changed: every object reads back, the counters add up. */
static void expect_untouched(struct tpool *tp)
{
	KUNIT_EXPECT_EQ(tp->test, tpool_check_all(tp), 0U);
	KUNIT_EXPECT_FALSE_MSG(tp->test, cpu_held(),
			       "preemption (RT: migration) left disabled");
	expect_consistent(tp);
}

/* A second free of a handle is refused; the first one's object is gone. */
static void test_double_free(struct kunit *test)
{
	struct tpool *tp = misuse_pool(test);
	unsigned long h = tp->h[1];
	struct zsmod_pool_stats st;

	tpool_free(tp, 1);
	zsmod_free(tp->pool, h);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	/* and once the queued free has run (stats run it), the slot free */
	zsmod_pool_stats(tp->pool, &st);
	zsmod_free(tp->pool, h);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	expect_untouched(tp);
	free_destroy_check(tp);
}

/*
 * A handle of another pool is refused by free, and by map under
 * CONFIG_DEBUG_VM (map's fast path checks the owner only then); both
 * pools keep their objects.
 */
static void test_foreign_free(struct kunit *test)
{
	struct tpool *a = misuse_pool(test), *b = misuse_pool(test);

	zsmod_free(b->pool, a->h[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	if (IS_ENABLED(CONFIG_DEBUG_VM)) {
		KUNIT_EXPECT_NULL(test, zsmod_map_object(b->pool, a->h[0], ZSMOD_MM_RW));
		KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	}
	/* NR_ZSPAGES is global: b's baseline includes a's pages */
	expect_untouched(b);
	free_destroy_check(b);
	expect_untouched(a);
	free_destroy_check(a);
}

/* A freed handle does not map, before or after its queued free runs. */
static void test_map_freed(struct kunit *test)
{
	struct tpool *tp = misuse_pool(test);
	unsigned long h = tp->h[2];
	struct zsmod_pool_stats st;

	tpool_free(tp, 2);
	KUNIT_EXPECT_NULL(test, zsmod_map_object(tp->pool, h, ZSMOD_MM_RO));
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	zsmod_pool_stats(tp->pool, &st);
	KUNIT_EXPECT_NULL(test, zsmod_map_object(tp->pool, h, ZSMOD_MM_RO));
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	expect_untouched(tp);
	free_destroy_check(tp);
}

/*
 * A second map from a task that maps an object is refused: it would take
 * the first mapping's pin (on PREEMPT_RT: wait for good on the lock the
 * task holds). The first mapping stays usable, also after the caller
 * unmaps the refused handle (a report, and nothing else).
 */
static void test_nested_map(struct kunit *test)
{
	struct tpool *tp = misuse_pool(test);
	u8 *p;

	p = zsmod_map_object(tp->pool, tp->h[0], ZSMOD_MM_RW);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, zsmod_map_object(tp->pool, tp->h[1], ZSMOD_MM_RO));
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	zsmod_unmap_object(tp->pool, tp->h[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	KUNIT_EXPECT_TRUE_MSG(test, cpu_held(),
			      "the refused handle's unmap ended the live mapping");
	KUNIT_EXPECT_EQ(test, pat_check(p, tp->len[0], tp->seed[0]), -1L);
	tp->seed[0] ^= 0xa5a5a5a5;
	pat_fill(p, tp->len[0], tp->seed[0]);
	zsmod_unmap_object(tp->pool, tp->h[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	expect_untouched(tp);
	free_destroy_check(tp);
}

/* Locks this task holds, as lockdep counts them (0 without lockdep). */
static unsigned int held_locks(void)
{
#ifdef CONFIG_LOCKDEP
	return current->lockdep_depth;
#else
	return 0;
#endif
}

/*
 * A new object that map copies through the per-CPU buffer: one that
 * straddles two pages of its zspage that are not adjacent. The zspage's
 * contiguous block is refused (fault injection), so its pages come one
 * by one; when they happen to be adjacent all the same, that is counted
 * and another zspage is tried.
 *
 * Return: the object's index in @tp; the test fails if none was had.
 */
static int split_object(struct tpool *tp)
{
	struct kunit *test = tp->test;
	const struct tclass *c = pick_class(tp, 2, true);
	unsigned long pfns[MAX_PFNS], pfn;
	unsigned int try, i, first, oi;
	int n;

	KUNIT_ASSERT_NOT_NULL(test, c);
	fi_setup(test);
	fi_page_filter(test, 1, true);
	for (try = 0; try < 8; try++) {
		first = tp->n;
		set_fail_nth(1);
		n = tpool_alloc(tp, len_for_class(c), GFP_KERNEL);
		set_fail_nth(0);
		KUNIT_ASSERT_GE(test, n, 0);
		for (i = 1; i < c->opz; i++)
			KUNIT_ASSERT_GE(test, tpool_alloc(tp, len_for_class(c), GFP_KERNEL), 0);
		n = zspage_pfns(tp, first, pfns);
		for (i = first; i < first + c->opz; i++) {
			unsigned long off, pg;

			KUNIT_ASSERT_EQ(test, 0, zsmod_handle_location(tp->pool, tp->h[i],
								       &pfn, &oi));
			off = (unsigned long)oi * c->size;
			pg = off / PAGE_SIZE;
			if (off % PAGE_SIZE + c->size > PAGE_SIZE && pg + 1 < n &&
			    pfns[pg + 1] != pfns[pg] + 1)
				return i;
		}
		kunit_info(test, "zspage %u: no straddling object on two pages apart\n", try);
	}
	KUNIT_FAIL(test, "no object on pages apart in 8 zspages");
	return -1;
}

/*
 * A refused map leaves nothing behind once the mapping it met has ended:
 * map(A), map(S) refused, unmap(A); then S (an object mapped through the
 * per-CPU buffer, so its unmap takes the slow path) is mapped, written
 * and unmapped for real. Its bytes must reach the slot, and its unmap
 * must end its mapping: preemptible again, no lock left held.
 */
static void test_refused_then_mapped(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	unsigned int locks;
	int a, sp;
	u8 *p;

	NEED_FI(test);
	a = tpool_alloc(tp, 200, GFP_KERNEL);
	KUNIT_ASSERT_GE(test, a, 0);
	sp = split_object(tp);
	KUNIT_ASSERT_GE(test, sp, 0);
	locks = held_locks();

	p = zsmod_map_object(tp->pool, tp->h[a], ZSMOD_MM_RW);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, zsmod_map_object(tp->pool, tp->h[sp], ZSMOD_MM_RO));
	zsmod_unmap_object(tp->pool, tp->h[a]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	KUNIT_EXPECT_FALSE(test, cpu_held());

	p = zsmod_map_object(tp->pool, tp->h[sp], ZSMOD_MM_RW);
	KUNIT_ASSERT_NOT_NULL(test, p);
	tp->seed[sp] ^= 0x3c3c3c3c;
	pat_fill(p, tp->len[sp], tp->seed[sp]);
	zsmod_unmap_object(tp->pool, tp->h[sp]);
	if (cpu_held()) {
		KUNIT_FAIL(test, "the unmap of %#lx was taken for its refused map's",
			   tp->h[sp]);
		zsmod_unmap_object(tp->pool, tp->h[sp]);	/* to go on */
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	KUNIT_EXPECT_EQ_MSG(test, held_locks(), locks, "a lock is left held");
	KUNIT_EXPECT_EQ_MSG(test, tpool_check(tp, sp), -1L,
			    "the bytes written through the buffer were lost");
	expect_untouched(tp);
	free_destroy_check(tp);
}

/*
 * A write-only map of an object copied through the per-CPU buffer, of
 * which the caller writes only a prefix: the rest of the slot keeps its
 * own bytes, none of the buffer's previous user (another object, whose
 * bytes it held last).
 */
static void test_wo_split_prefix(struct kunit *test)
{
	struct tpool *tp = tpool_create(test, 4096);
	const unsigned int prefix = 16;
	unsigned int i, wrong = 0;
	int prev, sp;
	u8 *p;

	NEED_FI(test);
	prev = split_object(tp);
	sp = split_object(tp);
	KUNIT_ASSERT_GE(test, prev, 0);
	KUNIT_ASSERT_GE(test, sp, 0);
	KUNIT_ASSERT_GT(test, tp->len[sp], prefix);

	/* the buffer now holds prev's bytes */
	p = zsmod_map_object(tp->pool, tp->h[prev], ZSMOD_MM_RW);
	KUNIT_ASSERT_NOT_NULL(test, p);
	tp->seed[prev] ^= 0x77777777;
	pat_fill(p, tp->len[prev], tp->seed[prev]);
	zsmod_unmap_object(tp->pool, tp->h[prev]);

	p = zsmod_map_object(tp->pool, tp->h[sp], ZSMOD_MM_WO);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < prefix; i++)
		p[i] = ~pat_byte(tp->seed[sp], i);
	zsmod_unmap_object(tp->pool, tp->h[sp]);

	p = zsmod_map_object(tp->pool, tp->h[sp], ZSMOD_MM_RO);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < tp->len[sp]; i++) {
		u8 want = pat_byte(tp->seed[sp], i);

		if (p[i] != (i < prefix ? (u8)~want : want))
			wrong++;
	}
	zsmod_unmap_object(tp->pool, tp->h[sp]);
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0U,
			    "%u of the %u bytes after the written prefix changed",
			    wrong, tp->len[sp] - prefix);
	/* its prefix as written, for the checks below */
	p = zsmod_map_object(tp->pool, tp->h[sp], ZSMOD_MM_WO);
	KUNIT_ASSERT_NOT_NULL(test, p);
	pat_fill(p, tp->len[sp], tp->seed[sp]);
	zsmod_unmap_object(tp->pool, tp->h[sp]);
	expect_untouched(tp);
	free_destroy_check(tp);
}

/* An unmap with nothing mapped changes nothing: no lock to drop. */
static void test_unmap_unmapped(struct kunit *test)
{
	struct tpool *tp = misuse_pool(test);

	zsmod_unmap_object(tp->pool, tp->h[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	zsmod_unmap_object(tp->pool, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	expect_untouched(tp);
	free_destroy_check(tp);
}

/*
 * An unmap of the wrong handle ends the mapping this CPU holds, writes
 * included, and gives preemption back.
 */
static void test_unmap_wrong_handle(struct kunit *test)
{
	struct tpool *tp = misuse_pool(test);
	u8 *p;

	p = zsmod_map_object(tp->pool, tp->h[0], ZSMOD_MM_RW);
	KUNIT_ASSERT_NOT_NULL(test, p);
	tp->seed[0] ^= 0x5a5a5a5a;
	pat_fill(p, tp->len[0], tp->seed[0]);
	zsmod_unmap_object(tp->pool, tp->h[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	expect_untouched(tp);
	free_destroy_check(tp);
}

/*
 * On PREEMPT_RT a task may run on a CPU whose mapping a preempted task
 * holds: its unmap must leave that mapping alone, even an unmap of the
 * very handle mapped. Made deterministic on every kernel by recording
 * another task as the holder: both unmaps are refused, the pin stays, and
 * then the real holder's writes and unmap go through.
 */
static void test_stray_unmap(struct kunit *test)
{
	struct tpool *tp = misuse_pool(test);
	unsigned int locks = held_locks();
	struct task_struct *holder;
	unsigned long pin;
	u8 *p;

	p = zsmod_map_object(tp->pool, tp->h[0], ZSMOD_MM_RW);
	KUNIT_ASSERT_NOT_NULL(test, p);
	pin = zsmod_kunit_map_pin();
	KUNIT_EXPECT_NE(test, pin, 0UL);
	holder = zsmod_kunit_map_owner(&init_task);
	KUNIT_EXPECT_PTR_EQ(test, holder, current);
	zsmod_unmap_object(tp->pool, tp->h[0]);
	zsmod_unmap_object(tp->pool, tp->h[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	KUNIT_EXPECT_TRUE_MSG(test, cpu_held(),
			      "a stray unmap ended the holder's mapping");
	KUNIT_EXPECT_EQ_MSG(test, zsmod_kunit_map_pin(), pin,
			    "a stray unmap unpinned the holder's object");
	zsmod_kunit_map_owner(holder);

	tp->seed[0] ^= 0x69696969;
	pat_fill(p, tp->len[0], tp->seed[0]);
	zsmod_unmap_object(tp->pool, tp->h[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	KUNIT_EXPECT_EQ_MSG(test, held_locks(), locks, "a lock is left held");
	expect_untouched(tp);
	free_destroy_check(tp);
}

static struct kunit_case misuse_cases[] = {
	KUNIT_CASE(test_double_free),
	KUNIT_CASE(test_foreign_free),
	KUNIT_CASE(test_map_freed),
	KUNIT_CASE(test_nested_map),
	KUNIT_CASE(test_unmap_unmapped),
	KUNIT_CASE(test_unmap_wrong_handle),
	KUNIT_CASE(test_refused_then_mapped),
	KUNIT_CASE(test_wo_split_prefix),
	KUNIT_CASE(test_stray_unmap),
	{}
};

struct kunit_suite zsmalloc_mod_misuse_suite = {
	.name = "zsmalloc_mod_misuse",
	.init = misuse_test_init,
	.test_cases = misuse_cases,
};
