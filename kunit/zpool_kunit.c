// SPDX-License-Identifier: GPL-2.0
/*
 * Suite zsmalloc_mod_zpool: the "zsmalloc_mod" zpool driver through the
 * zpool calls zswap makes, with zswap's gfp flags. Needs the zpool API
 * exported (kunit/patches/0002 defines ZPOOL_API_EXPORTED_FOR_TESTS);
 * skipped elsewhere.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/zpool.h>

#include "helpers.h"

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
 * The pool's page count and NR_ZSPAGES meet once the frees the pool has
 * queued or deferred have run (their pages leave NR_ZSPAGES only then):
 * wait a bounded time for that. A leak or a miscount never meets.
 */
#ifdef ZPOOL_API_EXPORTED_FOR_TESTS
static bool zp_pages_settled(struct zp *z, unsigned long base)
{
	unsigned long deadline = jiffies + 2 * HZ;

	while (zpool_get_total_pages(z->zpool) != nr_zspages() - base) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(5000, 10000);
	}
	return true;
}
#endif

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
		KUNIT_EXPECT_TRUE_MSG(test, zp_pages_settled(z, base),
				      "total_pages %llu, NR_ZSPAGES grew by %lu",
				      zpool_get_total_pages(z->zpool), nr_zspages() - base);

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

struct kunit_suite zsmalloc_mod_zpool_suite = {
	.name = "zsmalloc_mod_zpool",
	.test_cases = zpool_cases,
};
