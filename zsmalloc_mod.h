/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small API zsmalloc_mod exports to its own test and
 * benchmark modules. zswap does not use it: zswap reaches us through the
 * zpool driver "zsmalloc_mod". Every symbol carries the zsmod_ prefix so
 * that nothing clashes with the built-in zsmalloc (zs_*).
 */
#ifndef _ZSMALLOC_MOD_H_
#define _ZSMALLOC_MOD_H_

#include <linux/types.h>

struct shrinker;
struct task_struct;
struct zsmod_pool;

/**
 * enum zsmod_mapmode - how an object is accessed between map and unmap
 * @ZSMOD_MM_RW: read and write; the object is copied in and out if split
 * @ZSMOD_MM_RO: read only; no copy-out at unmap time
 * @ZSMOD_MM_WO: write only; no copy-in at map time
 */
enum zsmod_mapmode {
	ZSMOD_MM_RW,
	ZSMOD_MM_RO,
	ZSMOD_MM_WO,
};

/**
 * struct zsmod_pool_stats - a snapshot of a pool's counters
 * @pages_used: pages currently backing the pool's zspages
 * @objs_allocated: object slots in all zspages of the pool
 * @objs_used: slots holding a live object
 * @pages_compacted: pages freed by compaction since creation
 * @compactions: compaction runs (explicit calls, shrinker, auto_compact)
 * @pages_migrated: pages moved by the page migration core
 * @migrate_aborted: isolated pages put back without being migrated
 * @deferred_frees: zspages whose freeing was deferred to a worker
 * @handles_used: handles given out and not yet freed
 * @handle_blocks: blocks of handle slots the pool holds
 * @handle_bytes: bytes of those blocks (not counted in @pages_used)
 * @frees_queued: frees that were still queued on some CPU when the
 *		  snapshot was asked for; they ran before it was taken
 */
struct zsmod_pool_stats {
	unsigned long pages_used;
	unsigned long objs_allocated;
	unsigned long objs_used;
	unsigned long pages_compacted;
	unsigned long compactions;
	unsigned long pages_migrated;
	unsigned long migrate_aborted;
	unsigned long deferred_frees;
	unsigned long handles_used;
	unsigned long handle_blocks;
	unsigned long handle_bytes;
	unsigned long frees_queued;
};

/**
 * struct zsmod_class_info - geometry and counters of one size class
 * @size: object size of the class in bytes
 * @class_idx: class index (as printed in the "class" column of debugfs)
 * @pages_per_zspage: pages chained into one zspage
 * @objs_per_zspage: objects one zspage holds
 * @huge: true for the one-object-per-page class
 * @min_size: smallest zsmod_malloc() size this class serves
 * @max_size: largest zsmod_malloc() size this class serves
 * @objs_allocated: object slots in this class's zspages
 * @objs_used: slots holding a live object
 * @zspages: zspages currently in the class
 * @borrow_waste: bytes the class's objects left unused in the larger slots
 *	they borrowed since the class last had no zspage (its borrowing
 *	budget: see "Borrowing a slot" in Documentation/design.rst)
 */
struct zsmod_class_info {
	unsigned int size;
	unsigned int class_idx;
	unsigned int pages_per_zspage;
	unsigned int objs_per_zspage;
	bool huge;
	unsigned int min_size;
	unsigned int max_size;
	unsigned long objs_allocated;
	unsigned long objs_used;
	unsigned long zspages;
	unsigned long borrow_waste;
};

struct zsmod_pool *zsmod_create_pool(const char *name);
void zsmod_destroy_pool(struct zsmod_pool *pool);

int zsmod_malloc(struct zsmod_pool *pool, size_t size, gfp_t gfp,
		 unsigned long *handle);
void zsmod_free(struct zsmod_pool *pool, unsigned long handle);

void *zsmod_map_object(struct zsmod_pool *pool, unsigned long handle,
		       enum zsmod_mapmode mm);
void zsmod_unmap_object(struct zsmod_pool *pool, unsigned long handle);

unsigned long zsmod_compact(struct zsmod_pool *pool);
unsigned long zsmod_get_total_pages(struct zsmod_pool *pool);
void zsmod_pool_stats(struct zsmod_pool *pool, struct zsmod_pool_stats *stats);

size_t zsmod_max_alloc_size(void);
size_t zsmod_huge_class_size(struct zsmod_pool *pool);
unsigned int zsmod_class_count(struct zsmod_pool *pool);
int zsmod_class_info(struct zsmod_pool *pool, unsigned int index,
		     struct zsmod_class_info *info);

/* For tests: where an object lives now, and which pages hold a zspage. */
int zsmod_handle_location(struct zsmod_pool *pool, unsigned long handle,
			  unsigned long *pfn, unsigned int *obj_idx);
int zsmod_handle_zspage_pfns(struct zsmod_pool *pool, unsigned long handle,
			     unsigned long *pfns, unsigned int max_pfns);

/**
 * enum zsmod_malloc_gap - where zsmod_malloc() holds something with no lock
 * @ZSMOD_GAP_SPARE: a spare handle block, just allocated for a zspage with
 *	room; the class is looked at again next
 * @ZSMOD_GAP_GROW: about to open a new zspage, perhaps holding a spare
 * @ZSMOD_GAP_HANDLE: a handle taken, its zspage not yet allocated
 *
 * For the KUnit cases that free, compact or drain a class in each of them.
 */
enum zsmod_malloc_gap {
	ZSMOD_GAP_SPARE,
	ZSMOD_GAP_GROW,
	ZSMOD_GAP_HANDLE,
};

#if IS_ENABLED(CONFIG_KUNIT)
/* Only for KUnit: MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING) */
struct shrinker *zsmod_pool_shrinker(struct zsmod_pool *pool);
unsigned long zsmod_kunit_obj_encode(unsigned long pfn, unsigned int idx,
				     unsigned int class_idx);
bool zsmod_kunit_obj_decode(unsigned long obj, unsigned long *pfn,
			    unsigned int *idx, unsigned int *class_idx);
unsigned long zsmod_kunit_pin_word(unsigned long obj);
unsigned long zsmod_kunit_pinned_obj(unsigned long pin);
struct task_struct *zsmod_kunit_map_owner(struct task_struct *owner);
unsigned long zsmod_kunit_map_pin(void);
unsigned int zsmod_kunit_frees_queued(struct zsmod_pool *pool,
				      unsigned int cpu);
void zsmod_kunit_hold_drain(struct zsmod_pool *pool, bool hold);
bool *zsmod_kunit_param(const char *name);
void zsmod_kunit_zpool_for_each(void (*fn)(struct zsmod_pool *pool, void *arg),
				void *arg);
int zsmod_kunit_probe_malloc_fail(void (*probe)(void *data, struct zsmod_pool *pool,
						size_t size, gfp_t gfp, int reason),
				  void *data, bool attach);
void zsmod_kunit_malloc_gap_hook(void (*fn)(void *data, enum zsmod_malloc_gap gap),
				 void *data);
#endif

#endif /* _ZSMALLOC_MOD_H_ */
