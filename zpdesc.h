/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory descriptor of a zsmalloc_mod page.
 *
 * This is the only file of zsmalloc_mod that knows how a zpdesc is
 * represented. There are two representations behind one API:
 *
 * overlay (the default): struct zpdesc overlays struct page, as upstream's
 *	mm/zpdesc.h does since 6.14.
 * memdesc (make ZSMOD_MEMDESC=1): struct zpdesc is allocated from its own
 *	slab cache, as the memdesc plan intends. struct page keeps what the
 *	core needs (flags, the movable-ops word, the page type, the refcount)
 *	and one word, page->private, that points to the zpdesc: the stand-in
 *	for the memdesc word that will replace most of struct page.
 *
 * zsmalloc_mod.c reads and writes the zpdesc's own fields (next, handle,
 * zspage) and otherwise calls the helpers below.
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
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/vmstat.h>

struct zsmod_zspage;

#ifndef ZSMOD_MEMDESC

#define ZPDESC_MODE "overlay"

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
 * @__page_refcount: the page's reference count, the core's.
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

static inline int zpdesc_cache_create(void)
{
	return 0;
}

static inline void zpdesc_cache_destroy(void)
{
}

/* Type a fresh page as a zsmalloc page; its zpdesc is the page itself. */
static inline struct zpdesc *zpdesc_attach(struct page *page, gfp_t gfp)
{
	__folio_set_zsmalloc(page_folio(page));
	return page_zpdesc(page);
}

/* Undo zpdesc_attach(), for a page that never joined a zspage. */
static inline void zpdesc_detach(struct zpdesc *zpdesc)
{
	__folio_clear_zsmalloc(zpdesc_folio(zpdesc));
}

/* Clear the descriptor words of a page leaving its zspage. */
static inline void zpdesc_clear(struct page *page)
{
	struct zpdesc *zpdesc = page_zpdesc(page);

	zpdesc->zspage = NULL;
	zpdesc->next = NULL;
}

/**
 * zpdesc_move() - make a migration's destination page take over a zpdesc
 * @dst: the destination's zpdesc, as the migrate callback received it
 * @src: the zpdesc of the page being migrated
 *
 * Context: both pages locked, the zspage's class lock held.
 * Return: the zpdesc that describes the destination page from now on:
 * @dst, carrying @src's fields. The caller replaces @src with it in the
 * zspage's chain.
 */
static inline struct zpdesc *zpdesc_move(struct zpdesc *dst, struct zpdesc *src)
{
	dst->zspage = src->zspage;
	dst->next = src->next;	/* or the huge object's handle */
	return dst;
}

/* The migrate callback's zpdesc for the destination: the page itself. */
static inline struct zpdesc *zpdesc_migrate_dst(struct page *page,
						struct zpdesc *blank)
{
	return page_zpdesc(page);
}

static inline void zpdesc_free_desc(struct zpdesc *zpdesc)
{
}

#else /* ZSMOD_MEMDESC */

#define ZPDESC_MODE "memdesc"

/*
 * struct zpdesc, memdesc mode (kernel-doc above documents the overlay's;
 * this layout is in Documentation/design.rst, "Memdesc mode")
 * @page: the page this descriptor describes; it changes when the page is
 *	migrated (the descriptor moves with the data).
 * @next: next page of the same zspage, NULL on the last page.
 * @handle: for a huge zspage (one object), the object's handle.
 * @zspage: the zspage this page belongs to.
 *
 * Allocated from zpdesc_cache with the page, freed with it. The page's
 * private word points back here.
 */
struct zpdesc {
	struct page *page;
	union {
		struct zpdesc *next;
		unsigned long handle;
	};
	struct zsmod_zspage *zspage;
};

/*
 * One pointer per translation unit; only zsmalloc_mod.c creates the cache
 * and allocates descriptors.
 */
static struct kmem_cache *zpdesc_cache __maybe_unused;

static inline int zpdesc_cache_create(void)
{
	/* unmerged, so that /proc/slabinfo shows what descriptors cost */
	zpdesc_cache = kmem_cache_create("zsmod_zpdesc", sizeof(struct zpdesc),
					 0, SLAB_NO_MERGE, NULL);
	return zpdesc_cache ? 0 : -ENOMEM;
}

static inline void zpdesc_cache_destroy(void)
{
	kmem_cache_destroy(zpdesc_cache);
}

static inline void zpdesc_free_desc(struct zpdesc *zpdesc)
{
	kmem_cache_free(zpdesc_cache, zpdesc);
}

static inline struct page *zpdesc_page(const struct zpdesc *zpdesc)
{
	return zpdesc->page;
}

static inline struct folio *zpdesc_folio(const struct zpdesc *zpdesc)
{
	return page_folio(zpdesc->page);
}

/* Only for pages typed zsmalloc by us: anything else has no zpdesc. */
static inline struct zpdesc *page_zpdesc(const struct page *page)
{
	return (struct zpdesc *)page_private(page);
}

/*
 * Type a fresh page as a zsmalloc page and give it a descriptor. The
 * descriptor comes from slab with the page's gfp minus what only pages
 * can use.
 */
static inline struct zpdesc *zpdesc_attach(struct page *page, gfp_t gfp)
{
	struct zpdesc *zpdesc;

	zpdesc = kmem_cache_zalloc(zpdesc_cache,
				   gfp & ~(__GFP_HIGHMEM | __GFP_MOVABLE));
	if (!zpdesc)
		return NULL;
	zpdesc->page = page;
	set_page_private(page, (unsigned long)zpdesc);
	__folio_set_zsmalloc(page_folio(page));
	return zpdesc;
}

/* Undo zpdesc_attach(), for a page that never joined a zspage. */
static inline void zpdesc_detach(struct zpdesc *zpdesc)
{
	struct page *page = zpdesc->page;

	__folio_clear_zsmalloc(page_folio(page));
	set_page_private(page, 0);
	zpdesc_free_desc(zpdesc);
}

/* Clear the descriptor word of a page leaving its zspage. */
static inline void zpdesc_clear(struct page *page)
{
	set_page_private(page, 0);
}

/*
 * zpdesc_move(), memdesc mode (see the overlay's kernel-doc above)
 * @dst: the destination's zpdesc, as the migrate callback received it: a
 *	blank on the callback's stack
 * @src: the zpdesc of the page being migrated
 *
 * The descriptor moves: @src now describes the destination page, whose
 * descriptor word points to it; the source page has none left.
 *
 * Context: both pages locked, the zspage's class lock held.
 * Return: @src. The zspage's chain stays as it is.
 */
static inline struct zpdesc *zpdesc_move(struct zpdesc *dst, struct zpdesc *src)
{
	set_page_private(src->page, 0);
	src->page = dst->page;
	set_page_private(src->page, (unsigned long)src);
	return src;
}

/*
 * The migrate callback's zpdesc for the destination: @blank, which lives
 * on the adapter's stack for the callback's duration and is never linked
 * anywhere (zpdesc_move() takes over the source's zpdesc instead).
 */
static inline struct zpdesc *zpdesc_migrate_dst(struct page *page,
						struct zpdesc *blank)
{
	*blank = (struct zpdesc){ .page = page };
	return blank;
}

#endif /* ZSMOD_MEMDESC */

/**
 * alloc_zpdesc() - allocate a page and its zpdesc
 * @gfp: allocation flags
 *
 * Return: the zpdesc, typed as a zsmalloc page, or NULL.
 */
static inline struct zpdesc *alloc_zpdesc(gfp_t gfp)
{
	struct page *page = alloc_page(gfp);
	struct zpdesc *zpdesc;

	if (!page)
		return NULL;
	zpdesc = zpdesc_attach(page, gfp);
	if (!zpdesc)
		__free_page(page);
	return zpdesc;
}

/* Free a zpdesc and its page before anybody else could see them. */
static inline void free_zpdesc(struct zpdesc *zpdesc)
{
	struct page *page = zpdesc_page(zpdesc);

	zpdesc_detach(zpdesc);
	__free_page(page);
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
	for (i = 0; i < nr; i++) {
		zpdescs[i] = zpdesc_attach(nth_page(page, i), gfp);
		if (!zpdescs[i])
			break;
	}
	if (i < nr) {
		while (i--)
			zpdesc_detach(zpdescs[i]);
		nr = 0;
	}
	for (i = nr; i < (1U << order); i++)
		__free_page(nth_page(page, i));
	return nr;
}

static inline bool zpdesc_trylock(struct zpdesc *zpdesc)
{
	return folio_trylock(zpdesc_folio(zpdesc));
}

static inline void zpdesc_unlock(struct zpdesc *zpdesc)
{
	folio_unlock(zpdesc_folio(zpdesc));
}

static inline bool zpdesc_is_locked(const struct zpdesc *zpdesc)
{
	return folio_test_locked(zpdesc_folio(zpdesc));
}

/**
 * zpdesc_wait_locked() - wait until a zpdesc's page is unlocked
 * @zpdesc: the zpdesc
 * @lock: the spinlock that keeps @zpdesc's page where it is; held on
 *	entry, dropped while waiting, held again on return
 *
 * The wait holds a reference to the page, not to the zpdesc: in memdesc
 * mode the zpdesc may move to another page meanwhile.
 */
static inline void zpdesc_wait_locked(struct zpdesc *zpdesc, spinlock_t *lock)
	__must_hold(lock)
{
	struct folio *folio = zpdesc_folio(zpdesc);

	folio_get(folio);
	spin_unlock(lock);
	folio_wait_locked(folio);
	folio_put(folio);
	spin_lock(lock);
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

/* Is @pfn a page typed zsmalloc (ours or the built-in zsmalloc's)? */
static inline bool pfn_is_zsmalloc(unsigned long pfn)
{
	return folio_test_zsmalloc(page_folio(pfn_to_page(pfn)));
}

/* The zpdesc of a pfn that holds one of our pages. */
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

/* Whether the migration core may move this page (see above). */
static inline bool zpdesc_is_movable(struct zpdesc *zpdesc)
{
	return __PageMovable(zpdesc_page(zpdesc));
}

static inline bool zpdesc_is_isolated(const struct zpdesc *zpdesc)
{
	return folio_test_isolated(zpdesc_folio(zpdesc));
}

/*
 * NR_ZSPAGES only exists when the kernel has zsmalloc built in; we account
 * our pages there too, so /proc/vmstat's nr_zspages covers both.
 */
static inline void zspages_stat_add(struct page *page, int nr)
{
#if IS_ENABLED(CONFIG_ZSMALLOC)
	mod_zone_page_state(page_zone(page), NR_ZSPAGES, nr);
#endif
}

static inline void zpdesc_inc_zone_page_state(struct zpdesc *zpdesc)
{
	zspages_stat_add(zpdesc_page(zpdesc), 1);
}

/*
 * Return a page leaving its zspage to what the page allocator expects: not
 * movable, no descriptor, untyped. Context: the page locked, by us or by
 * the migration core.
 */
static inline void zpdesc_reset_page(struct page *page)
{
	/* a page we never managed to make movable has no ops to clear */
	if (__PageMovable(page) && page_movable_ops(page))
		__ClearPageMovable(page);
	zpdesc_clear(page);
	__folio_clear_zsmalloc(page_folio(page));
}

/**
 * release_zpdesc() - give back a page of a zspage that is being freed
 * @zpdesc: the zpdesc, its page locked by the caller
 *
 * Unlocks the page and frees the zpdesc. The page returns to the page
 * allocator once the migration core, if it holds it, lets go.
 */
static inline void release_zpdesc(struct zpdesc *zpdesc)
{
	struct page *page = zpdesc_page(zpdesc);

	zpdesc_reset_page(page);
	unlock_page(page);
	zspages_stat_add(page, -1);
	put_page(page);
	zpdesc_free_desc(zpdesc);
}

/*
 * The migrate adapter of DEFINE_ZPDESC_MOVABLE_OPS(): types the
 * destination, calls @migrate with the destination's and the source's
 * zpdescs, and on success gives back the source page.
 */
static __always_inline int
zpdesc_migrate_page(struct page *dst, struct page *src, enum migrate_mode mode,
		    int (*migrate)(struct zpdesc *, struct zpdesc *,
				   enum migrate_mode))
{
	struct zpdesc blank;
	int rc;

	__folio_set_zsmalloc(page_folio(dst));
	rc = migrate(zpdesc_migrate_dst(dst, &blank), page_zpdesc(src), mode);
	/* a callback fails before zpdesc_move(), never after */
	VM_WARN_ON_ONCE(rc != MIGRATEPAGE_SUCCESS && page_private(dst));
	if (rc != MIGRATEPAGE_SUCCESS) {
		__folio_clear_zsmalloc(page_folio(dst));
		return rc;
	}
	get_page(dst);		/* the zspage's reference */
	zspages_stat_add(dst, 1);
	zpdesc_reset_page(src);
	zspages_stat_add(src, -1);
	put_page(src);
	return rc;
}

/**
 * DEFINE_ZPDESC_MOVABLE_OPS() - movable_operations whose callbacks take zpdescs
 * @name: the struct movable_operations to define (static const)
 * @isolate: the isolate callback: (zpdesc, isolate_mode_t) to bool
 * @migrate: the migrate callback: (destination zpdesc, source zpdesc,
 *	     enum migrate_mode) to an errno or MIGRATEPAGE_SUCCESS. It
 *	     copies the contents and calls zpdesc_move(); the adapter types
 *	     the destination before and gives back the source after.
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
	return zpdesc_migrate_page(dst, src, mode, migrate);		\
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

#endif /* _ZSMALLOC_MOD_ZPDESC_H_ */
