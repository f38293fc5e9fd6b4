// SPDX-License-Identifier: GPL-2.0
/*
 * Page migration for the suites of zsmalloc_mod_kunit.ko (the migration,
 * compaction and dropbehind suites): migrating our pages through the
 * kernel's migration core, placing zspages where that can work, and the
 * flags our pages must (not) have. Declared in helpers.h.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page-flags.h>
#include <linux/page_ref.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/topology.h>

#include "helpers.h"

#ifdef CONFIG_CONTIG_ALLOC
/**
 * contig_migrate_pfn() - Migrate one page through the kernel's migration core
 * @pfn: the page
 *
 * Take [pfn, pfn + 1) with alloc_contig_range(), which isolates the page
 * through our movable_operations and migrates it, then give the range back.
 * Retries transient -EBUSY.
 *
 * Return: 0, or alloc_contig_range()'s error (-EOPNOTSUPP without
 * CONFIG_CONTIG_ALLOC).
 */
int contig_migrate_pfn(unsigned long pfn)
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
#else
int contig_migrate_pfn(unsigned long pfn)
{
	return -EOPNOTSUPP;
}
#endif

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

#ifdef CONFIG_CONTIG_ALLOC
/* Does the pageblock of @pfn hold a page reserved at boot (or a hole)? */
static bool pageblock_has_reserved(unsigned long pfn)
{
	unsigned long p = ALIGN_DOWN(pfn, pageblock_nr_pages);
	unsigned long end = p + pageblock_nr_pages;

	for (; p < end; p++)
		if (!pfn_valid(p) || PageReserved(pfn_to_page(p)))
			return true;
	return false;
}

struct held_pages {
	struct list_head list;
};

static void held_pages_free(void *arg)
{
	struct held_pages *h = arg;
	struct page *page, *next;

	list_for_each_entry_safe(page, next, &h->list, lru) {
		list_del(&page->lru);
		__free_pages(page, page_private(page));
	}
}

/*
 * Early in boot, where built-in tests run, the free lists still hold many
 * small blocks around boot-time reservations, and allocations get those
 * first: order 0 for single pages, orders 1 to 3 for the contiguous
 * zspages we try first. For each of these orders, take the blocks the
 * allocator hands out next, keep the ones that lie in such pageblocks
 * until the test ends, and give back the others once 32 have come, so
 * that the zspages allocated next come from clean pageblocks. At most
 * 64 MiB per order.
 */
static void hold_reserved_leftovers(struct kunit *test)
{
	struct held_pages *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct page *page, *next;
	int order;

	if (!h)
		return;
	INIT_LIST_HEAD(&h->list);
	if (kunit_add_action_or_reset(test, held_pages_free, h))
		return;
	for (order = 3; order >= 0; order--) {
		unsigned int n, clean = 0;
		LIST_HEAD(give_back);

		for (n = 0; n < (SZ_64M >> (PAGE_SHIFT + order)) && clean < 32; n++) {
			page = alloc_pages(MOVABLE_GFP | __GFP_NOWARN | __GFP_NORETRY, order);
			if (!page)
				break;
			set_page_private(page, order);
			if (pageblock_has_reserved(page_to_pfn(page))) {
				list_add(&page->lru, &h->list);
			} else {
				list_add(&page->lru, &give_back);
				clean++;
			}
		}
		/* in the order taken: the last one ends at the head of the free list */
		list_for_each_entry_safe_reverse(page, next, &give_back, lru) {
			list_del(&page->lru);
			set_page_private(page, 0);
			__free_pages(page, order);
		}
	}
}
#endif

#ifdef CONFIG_CONTIG_ALLOC
/* Is every page of the pageblock at @pfn free and not reserved? */
static bool pageblock_free(unsigned long pfn)
{
	unsigned long p;

	for (p = pfn; p < pfn + pageblock_nr_pages; p++) {
		struct page *page;

		if (!pfn_valid(p))
			return false;
		page = pfn_to_page(p);
		if (PageReserved(page) || page_ref_count(page))
			return false;
	}
	return true;
}
#endif

/**
 * offer_clean_pageblock() - Make the next pages come from a clean pageblock
 * @test: the test
 *
 * The page allocator serves order-0 requests from its smallest free blocks
 * first, and in a freshly booted guest those are the leftovers around
 * boot-time (memblock) reservations: our zspages land in pageblocks that
 * alloc_contig_range() can never isolate. So before filling zspages to
 * migrate, hold such leftovers until the test ends, then take a whole free
 * pageblock of the local node's highest zone (ZONE_MOVABLE with
 * movablecore=) with alloc_contig_range() and free it at once: its pages go
 * to the head of this CPU's per-cpu free list, where the next allocations
 * find them.
 *
 * Return: the pageblock's pfn or -ENOSPC.
 */
long offer_clean_pageblock(struct kunit *test)
{
#ifdef CONFIG_CONTIG_ALLOC
	pg_data_t *pgdat = NODE_DATA(numa_mem_id());
	struct zone *zone = NULL;
	unsigned long pfn, end;
	int z;

	hold_reserved_leftovers(test);
	for (z = MAX_NR_ZONES - 1; z >= 0 && !zone; z--)
		if (populated_zone(&pgdat->node_zones[z]))
			zone = &pgdat->node_zones[z];
	if (!zone)
		return -ENOSPC;
	end = zone_end_pfn(zone);
	pfn = ALIGN(zone->zone_start_pfn + (end - zone->zone_start_pfn) / 4,
		    pageblock_nr_pages);
	for (; pfn + pageblock_nr_pages <= end; pfn += pageblock_nr_pages) {
		if (!pageblock_free(pfn))
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

/* Pages at the start of offer_compaction_target()'s pageblock it keeps */
#define TARGET_HELD_ORDER	4

#ifdef CONFIG_CONTIG_ALLOC
static void free_held_pages(void *pfn)
{
	free_contig_range((unsigned long)pfn, 1UL << TARGET_HELD_ORDER);
}

/*
 * Give back pages that alloc_contig_range() took one by one as one block;
 * page by page if a speculative reference holds one of them.
 */
static void free_as_block(unsigned long pfn, unsigned int order)
{
	struct page *page = pfn_to_page(pfn);
	unsigned long i, n = 1UL << order;

	for (i = 1; i < n; i++)
		if (!page_ref_freeze(page + i, 1))
			break;
	if (i == n) {
		__free_pages(page, order);
		return;
	}
	while (--i)
		page_ref_unfreeze(page + i, 1);
	free_contig_range(pfn, n);
}
#endif

/**
 * offer_compaction_target() - Give the kernel's compaction room to migrate to
 * @test: the test; the pages kept are freed when it ends
 * @pfn: a page of the zone
 *
 * Compaction migrates only into pageblocks that are partly in use: a free
 * block of pageblock order or more is no target (suitable_migration_target()
 * in mm/compaction.c), and a zone with little in use has no other, so
 * vm.compact_memory may move nothing at all. This takes the highest free
 * pageblock of @pfn's zone, where compaction's free scanner starts, keeps
 * its first 2^TARGET_HELD_ORDER pages and frees the rest in blocks of
 * orders TARGET_HELD_ORDER to pageblock_order - 1: above the orders the
 * per-CPU lists keep, so they are on the zone's free lists at once.
 *
 * Return: the number of pages offered, or -ENOSPC.
 */
long offer_compaction_target(struct kunit *test, unsigned long pfn)
{
#ifdef CONFIG_CONTIG_ALLOC
	struct zone *zone = page_zone(pfn_to_page(pfn));
	unsigned long start = zone->zone_start_pfn, block;
	unsigned int order;

	block = ALIGN_DOWN(zone_end_pfn(zone), pageblock_nr_pages);
	while (block >= start + pageblock_nr_pages) {
		block -= pageblock_nr_pages;
		if (!pageblock_free(block) ||
		    alloc_contig_range(block, block + pageblock_nr_pages, MIGRATE_MOVABLE,
				       GFP_KERNEL | __GFP_NOWARN))
			continue;
		for (order = TARGET_HELD_ORDER; order < pageblock_order; order++)
			free_as_block(block + (1UL << order), order);
		if (kunit_add_action_or_reset(test, free_held_pages, (void *)block))
			return -ENOMEM;
		return pageblock_nr_pages - (1UL << TARGET_HELD_ORDER);
	}
#endif
	return -ENOSPC;
}

/**
 * migrate_zspage() - Migrate every page of a zspage
 * @tp: the test pool
 * @idx: an object of the zspage
 * @old: receives the pfns before, MAX_PFNS at most
 * @np: receives the zspage's page count
 *
 * Which pages moved is read back from the zspage (a page moved when the pfn
 * at its position in the chain changed), not from alloc_contig_range()'s
 * result: it fails with -EBUSY when the page's pageblock holds pages it
 * cannot move, which says nothing about us.
 *
 * Return: how many pages moved, or -EIO if the zspage changed size.
 */
int migrate_zspage(struct tpool *tp, unsigned int idx, unsigned long *old, int *np)
{
	unsigned long now[MAX_PFNS];
	int j, n, moved = 0;

	*np = zspage_pfns(tp, idx, old);
	for (j = 0; j < *np; j++)
		contig_migrate_pfn(old[j]);
	n = zspage_pfns(tp, idx, now);
	if (n != *np)
		return -EIO;
	for (j = 0; j < n; j++)
		moved += now[j] != old[j];
	return moved;
}

/**
 * migrate_some_zspage() - Migrate zspages until one moves completely
 * @tp: the test pool
 * @c: their class
 * @first: the first object of the first zspage
 * @nz: how many zspages
 * @moved: receives the old pfn of every page that moved on the way
 * @nmoved: how many there are in @moved
 * @cap: room in @moved
 * @victim_old: receives the old pfns of the zspage that moved, unless NULL
 *
 * Among @nz zspages of @c filled from object @first on (objects go to
 * zspages in order), migrate whole zspages from the first one on until
 * one moves completely.
 *
 * Return: the index of an object in it, or -1.
 */
int migrate_some_zspage(struct tpool *tp, const struct tclass *c,
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

/**
 * fill_migrate_one() - Fill zspages and migrate one of them entirely
 * @tp: the test pool
 * @len: the objects' size
 * @nz: how many zspages per round
 * @cls: receives the class
 * @moved: as for migrate_some_zspage()
 * @nmoved: as for migrate_some_zspage()
 * @cap: as for migrate_some_zspage()
 * @victim_old: as for migrate_some_zspage()
 *
 * Fill @nz zspages of the class @len lands in (just after offering a clean
 * pageblock) and migrate one of them entirely; a few rounds, each with
 * fresh zspages, since our pages may still land where nothing can be
 * isolated (the offered pages may sit on the other CPU's free list).
 *
 * Return: an object of the migrated zspage, or -1.
 */
int fill_migrate_one(struct tpool *tp, size_t len, unsigned int nz,
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

/**
 * expect_page_flags() - Expect the pool's pages to have the right flags
 * @tp: the test pool
 * @when: what just happened, for the messages
 *
 * Every page of every live object's zspage: movable, and no PG_reclaim
 * (PG_isolated shares its bit: left set after a migration it would mean an
 * isolation that was never undone) nor PG_dropbehind.
 *
 * Return: how many pages were seen.
 */
unsigned int expect_page_flags(struct tpool *tp, const char *when)
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

/**
 * compact_zones() - vm.compact_memory = 1: compact every zone
 *
 * Through a mount of procfs of our own: built into the kernel, the suites
 * run before user space has mounted /proc.
 *
 * Return: 0, or a negative errno.
 */
int compact_zones(void)
{
	struct file_system_type *proc;
	struct vfsmount *mnt;
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	/* procfs is never modular: no module reference to put back */
	proc = get_fs_type("proc");
	if (!proc)
		return -ENODEV;
	mnt = kern_mount(proc);
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	f = file_open_root_mnt(mnt, "sys/vm/compact_memory", O_WRONLY, 0);
	if (IS_ERR(f)) {
		kern_unmount(mnt);
		return PTR_ERR(f);
	}
	n = kernel_write(f, "1\n", 2, &pos);
	filp_close(f, NULL);
	kern_unmount(mnt);
	return n < 0 ? n : 0;
}
