/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory descriptor of a zsmalloc_mod page.
 *
 * This is the only file of zsmalloc_mod that knows a zpdesc is, for now,
 * an overlay of struct page. Everything else goes through the helpers
 * below, so that the day memory descriptors are allocated separately
 * (the "memdesc" plan) only this file changes.
 */
#ifndef _ZSMALLOC_MOD_ZPDESC_H_
#define _ZSMALLOC_MOD_ZPDESC_H_

#include <linux/build_bug.h>
#include <linux/highmem.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/page-flags.h>
#include <linux/pagemap.h>
#include <linux/stddef.h>
#include <linux/vmstat.h>

struct zsmod_zspage;

/**
 * struct zpdesc - memory descriptor of one page of a zspage
 * @__page_flags: page flags; touched only through folio helpers. PG_locked
 *	serialises us against page migration.
 * @__page_lru: used by the migration core while the page is isolated.
 * @movable_ops: set by the migration core's __SetPageMovable(); ours.
 * @next: next page of the same zspage, NULL on the last page.
 * @handle: for a huge zspage (one object), the object's handle.
 * @zspage: the zspage this page belongs to.
 * @__page_type: the page type (PGTY_zsmalloc); set and cleared through
 *	folio helpers.
 * @__page_refcount: the page's reference count; use zpdesc_get/put().
 *
 * A zpdesc overlays struct page. Fields named __page_* belong to the core
 * and are never accessed by zsmalloc_mod directly. Do not grow the
 * structure into memcg_data.
 */
struct zpdesc {
	unsigned long __page_flags;
	struct list_head __page_lru;
	unsigned long movable_ops;
	union {
		struct zpdesc *next;
		unsigned long handle;
	};
	struct zsmod_zspage *zspage;
	unsigned int __page_type;
	atomic_t __page_refcount;
};

#define ZPDESC_OVERLAYS(pg, zp) \
	static_assert(offsetof(struct page, pg) == offsetof(struct zpdesc, zp))
ZPDESC_OVERLAYS(flags, __page_flags);
ZPDESC_OVERLAYS(lru, __page_lru);
ZPDESC_OVERLAYS(mapping, movable_ops);
ZPDESC_OVERLAYS(index, next);
ZPDESC_OVERLAYS(index, handle);
ZPDESC_OVERLAYS(private, zspage);
ZPDESC_OVERLAYS(page_type, __page_type);
ZPDESC_OVERLAYS(_refcount, __page_refcount);
#ifdef CONFIG_MEMCG
static_assert(sizeof(struct zpdesc) <= offsetof(struct page, memcg_data));
#endif
#undef ZPDESC_OVERLAYS
static_assert(sizeof(struct zpdesc) <= sizeof(struct page));

/*
 * Conversions keep constness. A zpdesc is an order-0 page: its own folio.
 * _Generic as upstream's mm/zpdesc.h, with the argument taken once into a
 * local (upstream names it twice, which checkpatch flags).
 */
#define zpdesc_page(zp) ({						\
	__auto_type __zpd = (zp);					\
	_Generic(__zpd,							\
		 const struct zpdesc * : (const struct page *)__zpd,	\
		 struct zpdesc * : (struct page *)__zpd);		\
})

#define zpdesc_folio(zp) ({						\
	__auto_type __zpd = (zp);					\
	_Generic(__zpd,							\
		 const struct zpdesc * : (const struct folio *)__zpd,	\
		 struct zpdesc * : (struct folio *)__zpd);		\
})

#define page_zpdesc(p) ({						\
	__auto_type __pg = (p);						\
	_Generic(__pg,							\
		 const struct page * : (const struct zpdesc *)__pg,	\
		 struct page * : (struct zpdesc *)__pg);		\
})

/**
 * alloc_zpdesc() - allocate the page behind a new zpdesc
 * @gfp: allocation flags
 *
 * Return: the zpdesc, typed as a zsmalloc page, or NULL.
 */
static inline struct zpdesc *alloc_zpdesc(gfp_t gfp)
{
	struct page *page = alloc_page(gfp);

	if (!page)
		return NULL;
	__folio_set_zsmalloc(page_folio(page));
	return page_zpdesc(page);
}

/**
 * alloc_zpdescs_contig() - allocate zpdescs of consecutive pfns
 * @gfp: allocation flags, used as they are
 * @nr: number of zpdescs
 * @zpdescs: filled with @nr zpdescs
 *
 * One block of the buddy allocator, split into order-0 pages typed as
 * zsmalloc pages; the pages beyond @nr go back.
 *
 * Return: true on success; false leaves nothing allocated.
 */
static inline bool alloc_zpdescs_contig(gfp_t gfp, unsigned int nr,
					struct zpdesc **zpdescs)
{
	unsigned int order = get_order((unsigned long)nr << PAGE_SHIFT);
	struct page *page = alloc_pages(gfp, order);
	unsigned int i;

	if (!page)
		return false;
	split_page(page, order);
	for (i = 0; i < (1U << order); i++) {
		struct page *p = nth_page(page, i);

		if (i < nr) {
			__folio_set_zsmalloc(page_folio(p));
			zpdescs[i] = page_zpdesc(p);
		} else {
			__free_page(p);
		}
	}
	return true;
}

/* Free a zpdesc from alloc_zpdesc() that nobody else can reference. */
static inline void free_zpdesc(struct zpdesc *zpdesc)
{
	__folio_clear_zsmalloc(zpdesc_folio(zpdesc));
	__free_page(zpdesc_page(zpdesc));
}

/* Type the destination page of a migration as a zsmalloc page. */
static inline void __zpdesc_set_zsmalloc(struct zpdesc *zpdesc)
{
	__folio_set_zsmalloc(zpdesc_folio(zpdesc));
}

static inline bool zpdesc_is_zsmalloc(const struct zpdesc *zpdesc)
{
	return folio_test_zsmalloc(zpdesc_folio(zpdesc));
}

/**
 * reset_zpdesc() - return a zpdesc's fields to what the page allocator
 *		    expects, before the last reference is dropped
 * @zpdesc: the zpdesc
 *
 * Clears the movable ops, the zspage link, the next/handle word and the
 * page type.
 */
static inline void reset_zpdesc(struct zpdesc *zpdesc)
{
	struct page *page = zpdesc_page(zpdesc);

	/* a page we never managed to make movable has no ops to clear */
	if (zpdesc->movable_ops & ~PAGE_MAPPING_FLAGS)
		__ClearPageMovable(page);
	zpdesc->zspage = NULL;
	zpdesc->next = NULL;
	__folio_clear_zsmalloc(page_folio(page));
}

static inline bool zpdesc_trylock(struct zpdesc *zpdesc)
{
	return folio_trylock(zpdesc_folio(zpdesc));
}

static inline void zpdesc_unlock(struct zpdesc *zpdesc)
{
	folio_unlock(zpdesc_folio(zpdesc));
}

/* Wait until the page is unlocked; the caller holds a reference. */
static inline void zpdesc_wait_locked(struct zpdesc *zpdesc)
{
	folio_wait_locked(zpdesc_folio(zpdesc));
}

static inline bool zpdesc_is_locked(const struct zpdesc *zpdesc)
{
	return folio_test_locked(zpdesc_folio(zpdesc));
}

static inline void zpdesc_get(struct zpdesc *zpdesc)
{
	folio_get(zpdesc_folio(zpdesc));
}

static inline void zpdesc_put(struct zpdesc *zpdesc)
{
	folio_put(zpdesc_folio(zpdesc));
}

static inline void *kmap_local_zpdesc(struct zpdesc *zpdesc)
{
	return kmap_local_page(zpdesc_page(zpdesc));
}

static inline unsigned long zpdesc_pfn(const struct zpdesc *zpdesc)
{
	return page_to_pfn(zpdesc_page(zpdesc));
}

/**
 * zpdesc_follows() - does @next's memory directly follow @zpdesc's?
 * @zpdesc: a zpdesc
 * @next: another zpdesc
 *
 * True when the two pages are adjacent in the kernel's direct map, so a
 * range that runs from one into the other can be used in place. Never
 * true with highmem, where a page is mapped one at a time.
 *
 * Return: true if so.
 */
static inline bool zpdesc_follows(const struct zpdesc *zpdesc,
				  const struct zpdesc *next)
{
	return !IS_ENABLED(CONFIG_HIGHMEM) &&
	       zpdesc_page(next) == nth_page(zpdesc_page(zpdesc), 1);
}

static inline struct zpdesc *pfn_zpdesc(unsigned long pfn)
{
	return page_zpdesc(pfn_to_page(pfn));
}

/* Let the migration core move this page. Context: its page lock held. */
static inline void __zpdesc_set_movable(struct zpdesc *zpdesc,
					const struct movable_operations *mops)
{
	__SetPageMovable(zpdesc_page(zpdesc), mops);
}

/**
 * DEFINE_ZPDESC_MOVABLE_OPS() - movable_operations whose callbacks take zpdescs
 * @name: the struct movable_operations to define (static const)
 * @isolate: the isolate callback: (zpdesc, isolate_mode_t) to bool
 * @migrate: the migrate callback: (destination zpdesc, source zpdesc,
 *	     enum migrate_mode) to an errno or MIGRATEPAGE_SUCCESS
 * @putback: the putback callback: (zpdesc) to nothing
 *
 * The migration core calls movable operations with struct page; these
 * adapters turn the pages into zpdescs, so that the allocator never sees
 * a struct page.
 */
#define DEFINE_ZPDESC_MOVABLE_OPS(name, isolate, migrate, putback)	\
static bool name##_isolate_page(struct page *page, isolate_mode_t mode)	\
{									\
	return isolate(page_zpdesc(page), mode);			\
}									\
static int name##_migrate_page(struct page *dst, struct page *src,	\
			       enum migrate_mode mode)			\
{									\
	return migrate(page_zpdesc(dst), page_zpdesc(src), mode);	\
}									\
static void name##_putback_page(struct page *page)			\
{									\
	putback(page_zpdesc(page));					\
}									\
static const struct movable_operations name = {				\
	.isolate_page = name##_isolate_page,				\
	.migrate_page = name##_migrate_page,				\
	.putback_page = name##_putback_page,				\
}

static inline bool zpdesc_is_isolated(const struct zpdesc *zpdesc)
{
	return folio_test_isolated(zpdesc_folio(zpdesc));
}

static inline struct zone *zpdesc_zone(const struct zpdesc *zpdesc)
{
	return page_zone(zpdesc_page(zpdesc));
}

/*
 * NR_ZSPAGES only exists when the kernel has zsmalloc built in; we account
 * our pages there too, so /proc/vmstat's nr_zspages covers both.
 */
#if IS_ENABLED(CONFIG_ZSMALLOC)
static inline void zpdesc_inc_zone_page_state(struct zpdesc *zpdesc)
{
	inc_zone_page_state(zpdesc_page(zpdesc), NR_ZSPAGES);
}

static inline void zpdesc_dec_zone_page_state(struct zpdesc *zpdesc)
{
	dec_zone_page_state(zpdesc_page(zpdesc), NR_ZSPAGES);
}
#else
static inline void zpdesc_inc_zone_page_state(struct zpdesc *zpdesc) { }
static inline void zpdesc_dec_zone_page_state(struct zpdesc *zpdesc) { }
#endif

#endif /* _ZSMALLOC_MOD_ZPDESC_H_ */
