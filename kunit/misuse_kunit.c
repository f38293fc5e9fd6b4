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

/* Nothing changed: every object reads back, the counters add up. */
static void expect_untouched(struct tpool *tp)
{
	KUNIT_EXPECT_EQ(tp->test, tpool_check_all(tp), 0U);
	KUNIT_EXPECT_EQ_MSG(tp->test, preempt_count(), 0,
			    "preemption left disabled");
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
 * A second map on a CPU that maps an object is refused: it would take
 * the first mapping's pin. The first mapping stays usable, also after the
 * caller unmaps the refused handle (a report, and nothing else).
 */
static void test_nested_map(struct kunit *test)
{
	struct tpool *tp = misuse_pool(test);
	u8 *p;

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: a second mapper waits on the lock");
	p = zsmod_map_object(tp->pool, tp->h[0], ZSMOD_MM_RW);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, zsmod_map_object(tp->pool, tp->h[1], ZSMOD_MM_RO));
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 1);
	zsmod_unmap_object(tp->pool, tp->h[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
	KUNIT_EXPECT_NE_MSG(test, preempt_count(), 0,
			    "the refused handle's unmap ended the live mapping");
	KUNIT_EXPECT_EQ(test, pat_check(p, tp->len[0], tp->seed[0]), -1L);
	tp->seed[0] ^= 0xa5a5a5a5;
	pat_fill(p, tp->len[0], tp->seed[0]);
	zsmod_unmap_object(tp->pool, tp->h[0]);
	KUNIT_EXPECT_EQ(test, atomic_read(&misuse_reports), 2);
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

static struct kunit_case misuse_cases[] = {
	KUNIT_CASE(test_double_free),
	KUNIT_CASE(test_foreign_free),
	KUNIT_CASE(test_map_freed),
	KUNIT_CASE(test_nested_map),
	KUNIT_CASE(test_unmap_unmapped),
	KUNIT_CASE(test_unmap_wrong_handle),
	{}
};

struct kunit_suite zsmalloc_mod_misuse_suite = {
	.name = "zsmalloc_mod_misuse",
	.init = misuse_test_init,
	.test_cases = misuse_cases,
};
