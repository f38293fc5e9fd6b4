// SPDX-License-Identifier: GPL-2.0
/*
 * Suite zsmalloc_mod_dropbehind: the PG_dropbehind backport of the test
 * kernel (kunit/patches/0001) and the flags of our pages. Skipped on a
 * kernel without PG_dropbehind.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/string.h>

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

struct kunit_suite zsmalloc_mod_dropbehind_suite = {
	.name = "zsmalloc_mod_dropbehind",
	.test_cases = dropbehind_cases,
};
