// SPDX-License-Identifier: GPL-2.0
/*
 * zsmalloc_mod - a zsmalloc-style allocator for compressed pages, built on
 * the zpdesc memory descriptor, registered as the zpool backend
 * "zsmalloc_mod" for zswap.
 *
 * Objects of similar size share a size class. A class stores its objects
 * in zspages: chains of 1 to ZSMOD_MAX_PAGES_PER_ZSPAGE order-0 pages in
 * which objects are packed back to back, so an object may span two pages.
 * The caller holds a handle: the address of an 8-byte slot that stores the
 * encoded location (pfn, class, index) of its object. Migration and
 * compaction move objects and rewrite the location; the handle stays the
 * same. Handle slots come in small blocks owned by the class of their
 * objects, so they are taken and given back under the class lock that
 * malloc and free hold anyway, without a call into the slab allocator.
 *
 * Lock order, outermost first (see "Locking" below for what each
 * protects and why):
 *
 *   1. page lock (PG_locked of a zpdesc)
 *   2. zsmod_map_area.lock (per-CPU local_lock, held from map to unmap)
 *   3. zsmod_free_batch.lock (per CPU and pool)
 *   4. zsmod_size_class->lock
 *
 * With KUnit, zsmod_zpools_lock (a mutex, only for tests that reach zswap's
 * pools) comes before all four.
 *
 * Page locks are only try-locked while a class lock is held. The map
 * area lock is never nested with a page lock. Mappers and movers meet
 * through a per-CPU pin and zsmod_size_class->moving, not a lock.
 *
 * Only zpdesc.h knows that a zpdesc overlays the kernel's page descriptor;
 * this file goes through zpdesc only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/resource.h>
#include <kunit/test-bug.h>
#include <kunit/visibility.h>
#include <linux/atomic.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/local_lock.h>
#include <linux/lockdep.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/zpool.h>

#include "zpdesc.h"
#include "zsmalloc_mod.h"
#include "zsmalloc_mod_internal.h"

/**
 * DOC: Locking
 *
 * page lock (PG_locked of a zpdesc)
 *	Held by the migration core around isolate/migrate/putback of a page;
 *	taken by us on every page of a zspage before the zspage is freed,
 *	so a page being migrated always has a live zspage. Only try-locked
 *	while a class lock is held; a zspage whose pages cannot all be
 *	try-locked is freed later by a worker that takes the page locks
 *	without holding the class lock.
 *
 * zsmod_map_area.lock (per-CPU local_lock)
 *	Held from map to unmap: keeps the mapper on the CPU whose pin it
 *	set, and guards the per-CPU copy buffer used for objects that span
 *	two pages that are not adjacent. Never nested with a page lock;
 *	map's slow path takes the class lock inside it. So one object per
 *	CPU may be mapped at a time, and the caller must not sleep while it
 *	is mapped. It disables preemption; on PREEMPT_RT it is a sleeping
 *	lock that only disables migration, so another task may run on the
 *	CPU meanwhile and find the CPU's map area taken: the area records
 *	its owner, and only the owner's unmap ends its mapping.
 *
 * zsmod_free_batch.lock (per CPU and pool, spinlock)
 *	Protects the frees queued on that CPU (see "Freeing in batches")
 *	and the CPU's bit in pool->queued_cpus. Taken by frees, mostly on
 *	their own CPU's, and by whoever runs the queues of every CPU, one
 *	at a time; the class lock is taken inside it. Inside the map area
 *	lock only if a caller frees while it maps.
 *
 * zsmod_size_class->lock (spinlock)
 *	Protects the class's fullness lists and statistics, the inuse,
 *	freeobj and fullness of each of its zspages, their page chains,
 *	the bytes of its objects while they move, and the location stored
 *	in the handle of each of its objects: a location is only ever
 *	rewritten under this lock, but for the OBJ_FREEING mark that a free
 *	sets with cmpxchg and that a mover keeps. Also the class's handle
 *	blocks: their list, free lists and counts. Since a handle's
 *	location encodes its class, free and map find the right lock
 *	without any pool-wide lock.
 *
 * zsmod_map_area.obj (per-CPU pin, not a lock) and zsmod_size_class->moving
 *	A mapper publishes the location of the object it maps in its CPU's
 *	map area, from map to unmap, and checks after a full barrier that
 *	the handle still holds that location and that no mover has claimed
 *	a zspage of the class; if either fails it waits on the class lock,
 *	under which no move is under way. A mover (compaction, page
 *	migration) claims a zspage in class->moving under the class lock,
 *	and after a full barrier looks for pins in it, reading them with
 *	acquire against the unpin's release so that it sees what the
 *	mapper wrote: if there is one it backs off, else it may move the
 *	zspage's objects until it releases the claim. Of the two sides of
 *	this handshake at least one sees the other, so the bytes of a
 *	mapped object never move, and mappers hold no lock that others
 *	spin on, even while zswap decompresses from the mapping.
 */

#if BITS_PER_LONG != 64
#error "zsmalloc_mod encodes pfn, class and index in one long: 64-bit only"
#endif

/*
 * An object's location: | pfn of its first page | class | index |.
 * The class is in there so that free and map find the class lock
 * from the handle alone.
 */
/* x86-64 defines the largest possible only with 5-level paging. */
#ifndef MAX_POSSIBLE_PHYSMEM_BITS
#define MAX_POSSIBLE_PHYSMEM_BITS	MAX_PHYSMEM_BITS
#endif

#define OBJ_IDX_BITS		12
#define OBJ_CLASS_BITS		9
#define OBJ_PFN_SHIFT		(OBJ_IDX_BITS + OBJ_CLASS_BITS)
#define OBJ_IDX_MASK		((1UL << OBJ_IDX_BITS) - 1)
#define OBJ_CLASS_MASK		((1UL << OBJ_CLASS_BITS) - 1)
/*
 * The top class bit is no class's: a handle whose free is queued has it
 * set in its location (see "Freeing in batches"), and free handle slots
 * carry OBJ_CLASS_MASK.
 */
#define OBJ_FREEING		(1UL << (OBJ_PFN_SHIFT - 1))
/*
 * A pin is the pinned location with this bit set, so that no location,
 * not even pfn 0's first object of class 0 (all bits 0), reads as "no
 * pin". A live location never has it: it is the queued-free mark.
 */
#define ZSMOD_PIN_MARK		OBJ_FREEING
static_assert(ZSMOD_MAX_OBJS_PER_ZSPAGE <= (1UL << OBJ_IDX_BITS));
static_assert(ZSMOD_NR_CLASSES <= (1UL << (OBJ_CLASS_BITS - 1)));
static_assert(MAX_POSSIBLE_PHYSMEM_BITS - PAGE_SHIFT + OBJ_PFN_SHIFT <=
	      BITS_PER_LONG);
/* Class sizes are multiples of 16, so an 8-byte header never spans. */
static_assert(ZSMOD_CLASS_DELTA % ZSMOD_HANDLE_SIZE == 0);

/*
 * The first word of a non-huge object holds its handle with
 * OBJ_ALLOCATED_TAG set; the first word of a free slot holds the index of
 * the next free slot, shifted so that the tag bit is clear. Handles are
 * addresses of 8-byte slots, so their low bit is free for the tag.
 */
#define OBJ_ALLOCATED_TAG	1UL
#define OBJ_TAG_BITS		1
#define ZSMOD_NO_FREE_OBJ	UINT_MAX

#define ZSPAGE_MAGIC		0x5a

/*
 * Handle slots come in blocks of ZSMOD_HANDLE_BLOCK_SIZE bytes, aligned to
 * that size so that a handle finds its block by masking. A free slot holds
 * a location whose class is OBJ_CLASS_MASK, which no class has, and the
 * index of the next free slot in place of the pfn: map and free refuse a
 * freed handle whose block still exists.
 */
#define ZSMOD_HANDLE_BLOCK_SIZE	512U
#define ZSMOD_DEAD_CLASS	OBJ_CLASS_MASK

enum zsmod_fullness {
	ZS_INUSE_RATIO_0,
	ZS_INUSE_RATIO_10,
	/* one group per 10%: 20..90 */
	ZS_INUSE_RATIO_99 = 10,
	ZS_INUSE_RATIO_100,
	NR_FULLNESS_GROUPS,
};

enum zsmod_class_stat {
	/* zspage counts per fullness group come first */
	CLASS_OBJS_ALLOCATED = NR_FULLNESS_GROUPS,
	CLASS_OBJS_INUSE,
	NR_CLASS_STATS,
};

struct zsmod_size_class {
	spinlock_t lock;	/* see "Locking" at the top of this file */
	struct list_head fullness_list[NR_FULLNESS_GROUPS];
	/* bit g set: fullness_list[g] is not empty, for groups 10% to 99% */
	unsigned int groups_with_room;
	unsigned long stat[NR_CLASS_STATS];
	unsigned int size;
	unsigned int class_idx;	/* the index its objects' locations hold */
	/* position in pool->classes[], for finding the next larger class */
	unsigned int pos;
	unsigned int objs_per_zspage;
	unsigned int pages_per_zspage;
	/* smallest zsmod_malloc() size served, for class info */
	unsigned int min_user_size;
	/* bytes before the caller's data in a slot: the handle, or 0 if huge */
	unsigned int hdr_size;
	/* an object at a larger offset in its page spans into the next */
	unsigned int last_whole_off;
	bool huge;
	/* the zspage whose objects a mover may be moving: see "Locking" */
	struct zsmod_zspage *moving;
	/* handle blocks with a free slot; the most recently refilled first */
	struct list_head handle_blocks;
	unsigned long nr_handle_blocks;
	unsigned long handles_used;
	/* bytes unused in borrowed slots: see ZSMOD_BORROW_BUDGET_POOL_PAGES */
	atomic_long_t borrow_waste;
} ____cacheline_aligned_in_smp;

/**
 * struct zsmod_handle_block - a block of handle slots
 * @list: on the owning class's handle_blocks while a slot is free
 * @class: the owning class: that of the objects the handles lead to
 * @free: index of the first free slot
 * @inuse: slots given out
 * @slot: the slots; a handle is the address of one
 */
struct zsmod_handle_block {
	struct list_head list;
	struct zsmod_size_class *class;
	unsigned int free;
	unsigned int inuse;
	unsigned long slot[];
};

#define ZSMOD_HANDLES_PER_BLOCK \
	((ZSMOD_HANDLE_BLOCK_SIZE - sizeof(struct zsmod_handle_block)) / \
	 sizeof(unsigned long))
static_assert(ZSMOD_HANDLES_PER_BLOCK == 60);

/**
 * struct zsmod_class_frees - frees of one class queued on one CPU
 * @nr: handles queued
 * @handle: the handles, each marked OBJ_FREEING
 */
struct zsmod_class_frees {
	unsigned int nr;
	unsigned long handle[ZSMOD_FREE_BATCH_MAX];
};

/**
 * struct zsmod_free_batch - the frees queued on one CPU, per pool
 * @lock: protects the rest; taken by frees on this CPU, and by whoever
 *	  frees the queues of all CPUs
 * @cpu: the CPU
 * @queued: handles queued over all classes
 * @class: by position in zsmod_pool.classes[]
 */
struct zsmod_free_batch {
	spinlock_t lock;	/* see above */
	unsigned int cpu;
	unsigned int queued;
	struct zsmod_class_frees class[];
};

struct zsmod_zspage {
	u8 magic;
	u8 fullness;
	u8 class_idx;
	bool huge;
	/* a page's lock was busy when it was to be made movable: retry */
	bool movable_pending;
	unsigned int inuse;
	unsigned int freeobj;
	struct zpdesc *first_zpdesc;
	struct list_head list;
	struct zsmod_pool *pool;
};

struct zsmod_counters {
	atomic_long_t pages_compacted;
	atomic_long_t compactions;
	atomic_long_t pages_migrated;
	atomic_long_t migrate_aborted;
	atomic_long_t deferred_frees;
};

struct zsmod_pool {
	const char *name;
	/* by class index; merged indexes point to the same class */
	struct zsmod_size_class *size_class[ZSMOD_NR_CLASSES];
	/*
	 * By the class index of an object location: only a class's own
	 * index leads to it, every other to zsmod_no_class.
	 */
	struct zsmod_size_class *obj_class[1 << OBJ_CLASS_BITS];
	/* distinct classes, smallest first */
	struct zsmod_size_class *classes[ZSMOD_NR_CLASSES];
	unsigned int nr_classes;
	size_t huge_class_size;
	atomic_long_t pages_allocated;
	struct zsmod_counters counters;
	atomic_t compaction_in_progress;
	struct delayed_work compact_work;
	/* jiffies before which background compaction waits: frees go on */
	unsigned long compact_after;
	/* jiffies of the first request compact_work has not served, or 0 */
	unsigned long compact_asked;
	struct work_struct free_work;
	/* per CPU: frees queued, see "Freeing in batches" */
	struct zsmod_free_batch __percpu *free_batch;
	/*
	 * CPUs whose queue may hold frees: set by the free that fills an
	 * empty queue, cleared by a flush that finds it empty, both under
	 * the queue's lock; so flushes look only at those CPUs.
	 */
	cpumask_var_t queued_cpus;
	struct delayed_work drain_work;
	struct shrinker *shrinker;
	struct dentry *debugfs_dir;
#if IS_ENABLED(CONFIG_KUNIT)
	/* on zsmod_zpools while zpool's caller (zswap) owns the pool */
	struct list_head zpool_node;
#endif
};

struct zsmod_map_area {
	local_lock_t lock;
	/* pin_word() of the mapped object's location, or 0 (see "Locking") */
	unsigned long obj;
	/* the mapped handle; | ZSMOD_MAP_SPLIT if through @buf; or 0 */
	unsigned long handle;
	void *kaddr;		/* kmap_local address of an in-place object */
	char *buf;		/* PAGE_SIZE bounce buffer for split objects */
	/* for a split object only, so that unmap can copy it back */
	struct zsmod_size_class *class;
	enum zsmod_mapmode mm;
	/* the task holding the mapping (and the lock), or NULL */
	struct task_struct *owner;
	/*
	 * A handle whose map was refused while this CPU mapped @handle:
	 * cleared by every map that succeeds and every unmap that ends a
	 * mapping, so it is never older than the live mapping.
	 */
	unsigned long refused;
};

/* Handles are aligned: a low bit of the recorded one marks a split map. */
#define ZSMOD_MAP_SPLIT		1UL

/* The tracepoints read the structures above. */
#define CREATE_TRACE_POINTS
#include "zsmalloc_mod_trace.h"

static DEFINE_PER_CPU(struct zsmod_map_area, zsmod_map_area) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

/*
 * Where an object location's class index that is not a class's own leads
 * (see zsmod_pool.obj_class): permanently claimed, so that map's fast path
 * sends such a location to map_object_slow(), which refuses it.
 */
static struct zsmod_zspage zsmod_no_zspage;
static struct zsmod_size_class zsmod_no_class = { .moving = &zsmod_no_zspage };

static struct kmem_cache *zsmod_handle_block_cache;
static struct kmem_cache *zsmod_zspage_cache;
static struct dentry *zsmod_debugfs_root;
static enum cpuhp_state zsmod_cpuhp_state;
static atomic_t zsmod_pool_seq = ATOMIC_INIT(0);

static bool shrinker_enabled = true;
module_param(shrinker_enabled, bool, 0644);
MODULE_PARM_DESC(shrinker_enabled,
		 "Let memory pressure trigger pool compaction (default: Y)");

/*
 * Our shrinker is not memcg aware, so reclaim inside a memory cgroup (how
 * most zswap users run) never calls it. Frees therefore schedule a
 * compaction of the classes where it pays, after a pause that lets a burst
 * of frees empty whole zspages first.
 */
static bool auto_compact = true;
module_param(auto_compact, bool, 0644);
MODULE_PARM_DESC(auto_compact,
		 "Compact a size class in the background once compaction would free two zspages (default: Y)");
#define ZSMOD_AUTO_COMPACT_DELAY	(2 * HZ)
/* ... but no longer than this after the first request: frees never pause */
#define ZSMOD_AUTO_COMPACT_MAX_WAIT	(10 * HZ)

#ifdef CONFIG_COMPACTION
static const struct movable_operations zsmod_mops;
#endif

/* The caller's gfp for our slab objects: those two flags are for pages. */
static gfp_t slab_gfp(gfp_t gfp)
{
	return gfp & ~(__GFP_HIGHMEM | __GFP_MOVABLE);
}

/* ---- a caller's mistakes --------------------------------------------- */

/**
 * DOC: Misuse
 *
 * A caller's mistake that the allocator can see is refused: a free of a
 * handle that is not live (freed, another pool's, garbage), a map of
 * one, a second map from a task that already maps an object, an unmap
 * of something the task has not mapped on this CPU. It changes no object and no
 * counter, and is reported with a WARNING, once per place that detects
 * it.
 *
 * A KUnit test that makes such a mistake on purpose collects the reports
 * instead, as lib/slub_kunit.c collects slab errors: while the test holds
 * a resource named "zsmod_misuse" whose data is an atomic_t, each report
 * made from the test's own task increments it and prints nothing.
 */
#if IS_ENABLED(CONFIG_KUNIT)
static bool misuse_collected(void)
{
	struct kunit *test = kunit_get_current_test();
	struct kunit_resource *res;

	if (!test)
		return false;
	res = kunit_find_named_resource(test, "zsmod_misuse");
	if (!res)
		return false;
	atomic_inc(res->data);
	kunit_put_resource(res);
	return true;
}
#else
static bool misuse_collected(void)
{
	return false;
}
#endif

/* Like WARN_ONCE(), but a KUnit test may collect the report. */
#define misuse(cond, fmt, ...) ({					\
	bool __misuse = unlikely(cond);					\
									\
	if (__misuse && !misuse_collected())				\
		WARN_ONCE(1, fmt, ##__VA_ARGS__);			\
	__misuse;							\
})

/* ---- object locations ------------------------------------------------ */

static unsigned long obj_encode_pfn(unsigned long pfn, unsigned int idx,
				    unsigned int class_idx)
{
	return pfn << OBJ_PFN_SHIFT | (unsigned long)class_idx << OBJ_IDX_BITS |
	       idx;
}

static unsigned long obj_encode(struct zpdesc *zpdesc, unsigned int idx,
				unsigned int class_idx)
{
	return obj_encode_pfn(zpdesc_pfn(zpdesc), idx, class_idx);
}

static unsigned long obj_pfn(unsigned long obj)
{
	return obj >> OBJ_PFN_SHIFT;
}

static struct zpdesc *obj_zpdesc(unsigned long obj)
{
	return pfn_zpdesc(obj_pfn(obj));
}

static unsigned int obj_class_idx(unsigned long obj)
{
	return (obj >> OBJ_IDX_BITS) & OBJ_CLASS_MASK;
}

static unsigned int obj_index(unsigned long obj)
{
	return obj & OBJ_IDX_MASK;
}

static unsigned long handle_obj(unsigned long handle)
{
	return READ_ONCE(*(unsigned long *)handle);
}

static void handle_set_obj(unsigned long handle, unsigned long obj)
{
	/* a mapper that reads the new location sees the bytes copied there */
	smp_store_release((unsigned long *)handle, obj);
}

/*
 * Rewrite the location of an object that moved. Context: its class lock
 * held. A free may mark the handle meanwhile (it does not take the
 * class lock): its mark stays.
 */
static void handle_move_obj(unsigned long handle, unsigned long obj)
{
	unsigned long *slot = (unsigned long *)handle;
	unsigned long old = READ_ONCE(*slot);

	/* a full barrier, so also a release for the mappers */
	while (!try_cmpxchg(slot, &old, obj | (old & OBJ_FREEING)))
		;
}

static unsigned int class_idx_for_size(size_t size)
{
	unsigned int idx = 0;

	if (size > ZSMOD_MIN_ALLOC_SIZE)
		idx = DIV_ROUND_UP(size - ZSMOD_MIN_ALLOC_SIZE,
				   ZSMOD_CLASS_DELTA);
	return min_t(unsigned int, idx, ZSMOD_NR_CLASSES - 1);
}

static struct zsmod_zspage *zpdesc_zspage(const struct zpdesc *zpdesc)
{
	return zpdesc->zspage;
}

static struct zsmod_size_class *zspage_class(struct zsmod_pool *pool,
					     struct zsmod_zspage *zsp)
{
	return pool->size_class[zsp->class_idx];
}

/* Offset of object @idx within the page in which it starts. */
static unsigned long obj_page_offset(struct zsmod_size_class *class, unsigned int idx)
{
	return offset_in_page((unsigned long)idx * class->size);
}

/*
 * The page after @zpdesc in @zspage's chain, or NULL. A huge zspage has
 * one page, whose next field holds the handle instead.
 */
static struct zpdesc *zspage_next(struct zsmod_zspage *zsp, struct zpdesc *zpdesc)
{
	return zsp->huge ? NULL : zpdesc->next;
}

/* Page @n (0-based) of a zspage's chain. */
static struct zpdesc *zspage_nth_zpdesc(struct zsmod_zspage *zsp, unsigned int n)
{
	struct zpdesc *zpdesc = zsp->first_zpdesc;

	while (n--)
		zpdesc = zspage_next(zsp, zpdesc);
	return zpdesc;
}

/* Position of @zpdesc in its zspage's chain. */
static unsigned int zspage_zpdesc_pos(struct zsmod_zspage *zsp,
				      struct zpdesc *zpdesc)
{
	struct zpdesc *cur = zsp->first_zpdesc;
	unsigned int n = 0;

	while (cur && cur != zpdesc) {
		cur = zspage_next(zsp, cur);
		n++;
	}
	return n;
}

/* ---- fullness groups ------------------------------------------------- */

/**
 * fullness_group() - the fullness group a zspage belongs in
 * @class: its class
 * @zsp: the zspage
 *
 * Return: ZS_INUSE_RATIO_0 when empty, ZS_INUSE_RATIO_100 when full,
 * else the 10% step of its use rounded up (so 1 of 127 is in 10%).
 */
static int fullness_group(struct zsmod_size_class *class, struct zsmod_zspage *zsp)
{
	unsigned int inuse = zsp->inuse;

	if (!inuse)
		return ZS_INUSE_RATIO_0;
	if (inuse == class->objs_per_zspage)
		return ZS_INUSE_RATIO_100;
	/* 1 of 127 objects is 0% by integer division but belongs in 10% */
	return 100 * inuse / class->objs_per_zspage / 10 + 1;
}

static __always_inline void insert_zspage(struct zsmod_size_class *class,
					  struct zsmod_zspage *zsp, int fullness)
{
	lockdep_assert_held(&class->lock);
	class->stat[fullness]++;
	list_add(&zsp->list, &class->fullness_list[fullness]);
	zsp->fullness = fullness;
	if (fullness >= ZS_INUSE_RATIO_10 && fullness <= ZS_INUSE_RATIO_99)
		class->groups_with_room |= BIT(fullness);
}

static __always_inline void remove_zspage(struct zsmod_size_class *class,
					  struct zsmod_zspage *zsp)
{
	lockdep_assert_held(&class->lock);
	list_del_init(&zsp->list);
	if (!--class->stat[zsp->fullness])
		class->groups_with_room &= ~BIT(zsp->fullness);
}

/* Move @zspage to the list its fullness calls for; return the group. */
static __always_inline int fix_fullness(struct zsmod_size_class *class,
					struct zsmod_zspage *zsp)
{
	int fullness = fullness_group(class, zsp);

	if (fullness != zsp->fullness) {
		remove_zspage(class, zsp);
		insert_zspage(class, zsp, fullness);
	}
	return fullness;
}

/* The fullest zspage that still has room, or NULL. */
static struct zsmod_zspage *find_zspage_with_room(struct zsmod_size_class *class)
{
	unsigned int groups = class->groups_with_room;

	lockdep_assert_held(&class->lock);
	/* the fullest group first: one bit test instead of a list walk */
	if (!groups)
		return NULL;
	return list_first_entry(&class->fullness_list[__fls(groups)],
				struct zsmod_zspage, list);
}

/**
 * class_compaction_pays() - could compacting a class free two zspages?
 * @class: the class; its lock is held, or the answer is a hint
 *
 * Return: true if so.
 */
static bool class_compaction_pays(struct zsmod_size_class *class)
{
	/* data_race: without the lock a stale answer only delays a run */
	unsigned long allocated = data_race(class->stat[CLASS_OBJS_ALLOCATED]);
	/* data_race: as above */
	unsigned long used = data_race(class->stat[CLASS_OBJS_INUSE]);

	return allocated > used &&
	       allocated - used >= 2UL * class->objs_per_zspage;
}

/* ---- object slots ---------------------------------------------------- */

/**
 * obj_malloc() - take a free slot of a zspage for an object
 * @class: the class, whose lock is held
 * @zsp: a zspage of @class with a free slot
 * @handle: the object's handle, recorded in the slot's header (or in the
 *	    page descriptor for a huge zspage)
 *
 * The caller records the returned location in the handle.
 *
 * Return: the encoded location of the slot.
 */
static unsigned long obj_malloc(struct zsmod_size_class *class,
				struct zsmod_zspage *zsp, unsigned long handle)
{
	unsigned int idx = zsp->freeobj;
	unsigned long offset = (unsigned long)idx * class->size;
	struct zpdesc *zpdesc;
	unsigned long *link;
	void *vaddr;

	lockdep_assert_held(&class->lock);
	zpdesc = zspage_nth_zpdesc(zsp, offset >> PAGE_SHIFT);
	vaddr = kmap_local_zpdesc(zpdesc);
	link = vaddr + offset_in_page(offset);
	zsp->freeobj = *link >> OBJ_TAG_BITS;
	if (zsp->huge)
		zsp->first_zpdesc->handle = handle | OBJ_ALLOCATED_TAG;
	else
		*link = handle | OBJ_ALLOCATED_TAG;
	kunmap_local(vaddr);

	zsp->inuse++;
	class->stat[CLASS_OBJS_INUSE]++;
	return obj_encode(zpdesc, idx, class->class_idx);
}

/**
 * obj_free() - return an object's slot to its zspage's free list
 * @class: the class, whose lock is held
 * @obj: the encoded location of the object
 */
static __always_inline void obj_free(struct zsmod_size_class *class,
				     unsigned long obj)
{
	struct zpdesc *zpdesc = obj_zpdesc(obj);
	struct zsmod_zspage *zsp = zpdesc_zspage(zpdesc);
	unsigned int idx = obj_index(obj);
	unsigned long *link;
	void *vaddr;

	lockdep_assert_held(&class->lock);
	vaddr = kmap_local_zpdesc(zpdesc);
	link = vaddr + obj_page_offset(class, idx);
	*link = (unsigned long)zsp->freeobj << OBJ_TAG_BITS;
	kunmap_local(vaddr);
	if (zsp->huge)
		zpdesc->handle = 0;

	zsp->freeobj = idx;
	zsp->inuse--;
	class->stat[CLASS_OBJS_INUSE]--;
}

/* Index range [*first, *end) of the objects that start in page @pos. */
static void objs_starting_in_page(struct zsmod_size_class *class, unsigned int pos,
				  unsigned int *first, unsigned int *end)
{
	unsigned long start = (unsigned long)pos * PAGE_SIZE;

	*first = DIV_ROUND_UP(start, class->size);
	*end = min_t(unsigned int, class->objs_per_zspage,
		     DIV_ROUND_UP(start + PAGE_SIZE, class->size));
}

/**
 * obj_allocated() - is the slot starting at @addr allocated?
 * @zsp: the slot's zspage
 * @addr: kernel address of the slot's first word
 * @handle: set to the object's handle when allocated
 *
 * Return: true if the slot holds an object.
 */
static bool obj_allocated(struct zsmod_zspage *zsp, void *addr,
			  unsigned long *handle)
{
	unsigned long word;

	if (zsp->huge)
		word = zsp->first_zpdesc->handle;
	else
		word = *(unsigned long *)addr;
	if (!(word & OBJ_ALLOCATED_TAG))
		return false;
	*handle = word & ~OBJ_ALLOCATED_TAG;
	return true;
}

/**
 * find_alloced_obj() - the next allocated object that starts in a page
 * @class: the zspage's class, whose lock is held
 * @zsp: the zspage
 * @zpdesc: a page of @zsp
 * @pos: the position of @zpdesc in @zsp's chain
 * @idx: in: the first object index to look at; out: the index found
 *
 * Objects that start in the previous page and end in this one belong to
 * the previous page.
 *
 * Return: the object's handle, or 0 if no allocated object of index
 * @idx or higher starts in @zpdesc.
 */
static unsigned long find_alloced_obj(struct zsmod_size_class *class,
				      struct zsmod_zspage *zsp, struct zpdesc *zpdesc,
				      unsigned int pos, unsigned int *idx)
{
	unsigned int first, end;
	unsigned long handle = 0;
	void *vaddr;

	lockdep_assert_held(&class->lock);
	objs_starting_in_page(class, pos, &first, &end);
	*idx = max(*idx, first);
	vaddr = kmap_local_zpdesc(zpdesc);
	for (; *idx < end; (*idx)++)
		if (obj_allocated(zsp, vaddr + obj_page_offset(class, *idx),
				  &handle))
			break;
	kunmap_local(vaddr);
	return handle;
}

/**
 * obj_copy_bytes() - copy bytes between an object and a buffer
 * @class: the object's class
 * @obj: the object's encoded location
 * @skip: bytes of the object to skip first
 * @buf: the buffer
 * @len: bytes to copy
 * @to_obj: true to copy @buf into the object, false to copy it out
 *
 * Objects span at most two pages; each page is mapped in turn.
 */
static void obj_copy_bytes(struct zsmod_size_class *class, unsigned long obj,
			   unsigned int skip, void *buf, unsigned int len,
			   bool to_obj)
{
	struct zpdesc *zpdesc = obj_zpdesc(obj);
	unsigned long off = obj_page_offset(class, obj_index(obj)) + skip;

	while (len) {
		unsigned int chunk;
		void *vaddr;

		if (off >= PAGE_SIZE) {
			zpdesc = zpdesc->next;
			off -= PAGE_SIZE;
		}
		chunk = min_t(unsigned long, len, PAGE_SIZE - off);
		vaddr = kmap_local_zpdesc(zpdesc);
		if (to_obj)
			memcpy(vaddr + off, buf, chunk);
		else
			memcpy(buf, vaddr + off, chunk);
		kunmap_local(vaddr);
		buf += chunk;
		off += chunk;
		len -= chunk;
	}
}

/* Copy a whole object from @src to @dst, both of @class. */
static void obj_copy(struct zsmod_size_class *class, unsigned long dst,
		     unsigned long src)
{
	struct zpdesc *s_zpdesc = obj_zpdesc(src);
	struct zpdesc *d_zpdesc = obj_zpdesc(dst);
	unsigned long s_off = obj_page_offset(class, obj_index(src));
	unsigned long d_off = obj_page_offset(class, obj_index(dst));
	unsigned int len = class->size;

	while (len) {
		unsigned int chunk;
		void *s_addr, *d_addr;

		if (s_off >= PAGE_SIZE) {
			s_zpdesc = s_zpdesc->next;
			s_off -= PAGE_SIZE;
		}
		if (d_off >= PAGE_SIZE) {
			d_zpdesc = d_zpdesc->next;
			d_off -= PAGE_SIZE;
		}
		chunk = min3((unsigned long)len, PAGE_SIZE - s_off,
			     PAGE_SIZE - d_off);
		s_addr = kmap_local_zpdesc(s_zpdesc);
		d_addr = kmap_local_zpdesc(d_zpdesc);
		memcpy(d_addr + d_off, s_addr + s_off, chunk);
		kunmap_local(d_addr);
		kunmap_local(s_addr);
		s_off += chunk;
		d_off += chunk;
		len -= chunk;
	}
}

/* ---- zspage life cycle ----------------------------------------------- */

/* Link @zpdescs into the page chain of @zspage. */
static void zspage_link_pages(struct zsmod_size_class *class, struct zsmod_zspage *zsp,
			      struct zpdesc **zpdescs)
{
	unsigned int i;

	for (i = 0; i < class->pages_per_zspage; i++) {
		struct zpdesc *zpdesc = zpdescs[i];

		zpdesc->zspage = zsp;
		zpdesc->next = i + 1 < class->pages_per_zspage ?
			       zpdescs[i + 1] : NULL;
		if (i == 0)
			zsp->first_zpdesc = zpdesc;
	}
}

/* Thread every slot of a new zspage onto its free list. */
static void zspage_init_free_list(struct zsmod_size_class *class,
				  struct zsmod_zspage *zsp)
{
	struct zpdesc *zpdesc = zsp->first_zpdesc;
	unsigned int pos = 0;

	for (; zpdesc; zpdesc = zspage_next(zsp, zpdesc), pos++) {
		unsigned int idx, first, end;
		void *vaddr;

		objs_starting_in_page(class, pos, &first, &end);
		vaddr = kmap_local_zpdesc(zpdesc);
		for (idx = first; idx < end; idx++) {
			unsigned long *link = vaddr + obj_page_offset(class, idx);
			unsigned long next = idx + 1 < class->objs_per_zspage ?
					     idx + 1 : ZSMOD_NO_FREE_OBJ;

			*link = next << OBJ_TAG_BITS;
		}
		kunmap_local(vaddr);
	}
	zsp->freeobj = 0;
	zsp->inuse = 0;
}

/**
 * alloc_zspage() - allocate a zspage and its pages for a class
 * @pool: the pool
 * @class: the class
 * @gfp: allocation flags (__GFP_MOVABLE/__GFP_HIGHMEM apply to pages)
 *
 * The pages are typed, counted in NR_ZSPAGES, chained and threaded onto
 * the free list. On failure everything allocated so far is given back.
 *
 * Return: the zspage, or NULL when memory ran out.
 */
static struct zsmod_zspage *alloc_zspage(struct zsmod_pool *pool,
					 struct zsmod_size_class *class, gfp_t gfp)
{
	struct zpdesc *zpdescs[ZSMOD_MAX_PAGES_PER_ZSPAGE];
	struct zsmod_zspage *zsp;
	unsigned int i;

	zsp = kmem_cache_zalloc(zsmod_zspage_cache, slab_gfp(gfp));
	if (!zsp)
		return NULL;

	/*
	 * Physically contiguous pages let map use objects that span two
	 * pages in place instead of copying them; take them when the buddy
	 * allocator has a block at hand (no reclaim, no compaction, no
	 * warning), else any pages.
	 */
	i = 0;
	if (class->pages_per_zspage > 1 &&
	    alloc_zpdescs_contig((gfp & ~(__GFP_DIRECT_RECLAIM |
					  __GFP_KSWAPD_RECLAIM | __GFP_COMP)) |
				 __GFP_NOWARN | __GFP_NORETRY,
				 class->pages_per_zspage, zpdescs))
		i = class->pages_per_zspage;
	for (; i < class->pages_per_zspage; i++) {
		zpdescs[i] = alloc_zpdesc(gfp);
		if (!zpdescs[i])
			goto undo;
	}
	for (i = 0; i < class->pages_per_zspage; i++)
		zpdesc_inc_zone_page_state(zpdescs[i]);

	zsp->magic = ZSPAGE_MAGIC;
	zsp->class_idx = class->class_idx;
	zsp->huge = class->huge;
	zsp->pool = pool;
	INIT_LIST_HEAD(&zsp->list);
	zspage_link_pages(class, zsp, zpdescs);
	zspage_init_free_list(class, zsp);
	return zsp;

undo:
	while (i--)
		free_zpdesc(zpdescs[i]);
	kmem_cache_free(zsmod_zspage_cache, zsp);
	return NULL;
}

#if IS_ENABLED(CONFIG_KUNIT)
/* KUnit: zspage_set_movable() finds every page lock busy */
static bool kunit_lock_busy;
#endif

#ifdef CONFIG_COMPACTION
/* zpdesc_trylock() for zspage_set_movable(), which KUnit can make fail */
static bool movable_trylock(struct zpdesc *zpdesc)
{
#if IS_ENABLED(CONFIG_KUNIT)
	if (READ_ONCE(kunit_lock_busy))
		return false;
#endif
	return zpdesc_trylock(zpdesc);
}
#endif

/**
 * zspage_set_movable() - let the migration core move a zspage's pages
 * @zsp: the zspage, new or with movable_pending set; its class lock held
 *
 * Nobody else can know a new zspage's pages, but a pfn walker (compaction
 * scanning, memory offlining) may hold a page's lock for a moment. Such a
 * page is left as it is and the zspage marked: the next malloc or free in
 * the zspage, or compaction moving objects into or out of it, tries again:
 * a page stays unmovable only until its zspage next changes or is freed
 * (CMA, compaction and memory hot-remove need it movable).
 */
static void zspage_set_movable(struct zsmod_zspage *zsp)
{
#ifdef CONFIG_COMPACTION
	struct zpdesc *zpdesc;

	lockdep_assert_held(&zspage_class(zsp->pool, zsp)->lock);
	zsp->movable_pending = false;
	for (zpdesc = zsp->first_zpdesc; zpdesc;
	     zpdesc = zspage_next(zsp, zpdesc)) {
		if (zpdesc_is_movable(zpdesc))
			continue;
		if (!movable_trylock(zpdesc)) {
			zsp->movable_pending = true;
			continue;
		}
		__zpdesc_set_movable(zpdesc, &zsmod_mops);
		zpdesc_unlock(zpdesc);
	}
#endif
}

/**
 * trylock_zspage() - lock every page of a zspage without sleeping
 * @zsp: the zspage; its class lock is held
 *
 * Return: true with all pages locked, or false with none locked.
 */
static bool trylock_zspage(struct zsmod_zspage *zsp)
{
	struct zpdesc *zpdesc, *locked;

	for (zpdesc = zsp->first_zpdesc; zpdesc;
	     zpdesc = zspage_next(zsp, zpdesc)) {
		if (!zpdesc_trylock(zpdesc))
			goto unwind;
	}
	return true;

unwind:
	for (locked = zsp->first_zpdesc; locked != zpdesc;
	     locked = zspage_next(zsp, locked))
		zpdesc_unlock(locked);
	return false;
}

/**
 * lock_zspage() - lock every page of a zspage, sleeping as needed
 * @class: the zspage's class; its lock is not held
 * @zsp: an empty zspage that nobody else can reach
 *
 * Pages not yet locked may be migrated meanwhile, so each is looked up
 * under the class lock and waited for with a reference held.
 */
static void lock_zspage(struct zsmod_size_class *class, struct zsmod_zspage *zsp)
{
	struct zpdesc *cur = NULL, *next;

	spin_lock(&class->lock);
	for (;;) {
		next = cur ? zspage_next(zsp, cur) : zsp->first_zpdesc;
		if (!next)
			break;
		if (zpdesc_trylock(next)) {
			cur = next;
			continue;
		}
		zpdesc_wait_locked(next, &class->lock);
	}
	spin_unlock(&class->lock);
}

/**
 * zspage_detach() - account an empty zspage as gone
 * @pool: its pool
 * @class: its class, whose lock is held
 * @zsp: the zspage, off the fullness lists, every page locked by us
 *
 * After this nobody can find the zspage; release_zspage() finishes the
 * job and needs no lock.
 */
static void zspage_detach(struct zsmod_pool *pool, struct zsmod_size_class *class,
			  struct zsmod_zspage *zsp)
{
	lockdep_assert_held(&class->lock);
	VM_WARN_ON_ONCE(zsp->inuse);
	class->stat[CLASS_OBJS_ALLOCATED] -= class->objs_per_zspage;
	atomic_long_sub(class->pages_per_zspage, &pool->pages_allocated);
	/* its last zspage gone, the class may borrow again */
	if (!class->stat[CLASS_OBJS_ALLOCATED])
		atomic_long_set(&class->borrow_waste, 0);
}

/**
 * release_zspage() - give a detached zspage's pages back to the system
 * @zsp: a zspage passed through zspage_detach()
 *
 * Called without the class lock where possible, to keep that lock's hold
 * times short: our page locks keep the migration core away.
 */
static void release_zspage(struct zsmod_zspage *zsp)
{
	struct zpdesc *zpdesc = zsp->first_zpdesc, *next;

	do {
		next = zspage_next(zsp, zpdesc);
		VM_WARN_ON_ONCE(!zpdesc_is_locked(zpdesc));
		release_zpdesc(zpdesc);
		zpdesc = next;
	} while (zpdesc);
	kmem_cache_free(zsmod_zspage_cache, zsp);
}

/**
 * free_zspage() - free an empty zspage that sits on the 0% list
 * @pool: its pool
 * @class: its class, whose lock is held
 * @zsp: the empty zspage
 *
 * If a page of it is locked (being migrated), the zspage stays on the
 * list for the deferred worker.
 *
 * Return: true if the zspage was detached: the caller must then call
 * release_zspage(), after dropping the class lock if it likes.
 */
static bool free_zspage(struct zsmod_pool *pool, struct zsmod_size_class *class,
			struct zsmod_zspage *zsp)
{
	lockdep_assert_held(&class->lock);
	if (!trylock_zspage(zsp)) {
		atomic_long_inc(&pool->counters.deferred_frees);
		schedule_work(&pool->free_work);
		return false;
	}
	remove_zspage(class, zsp);
	zspage_detach(pool, class, zsp);
	return true;
}

/**
 * deferred_free_work_fn() - free empty zspages whose pages were busy
 * @work: the pool's free_work
 *
 * free_zspage() leaves a zspage on its class's 0% list when a page of it
 * is locked; here we may sleep for the page locks.
 */
static void deferred_free_work_fn(struct work_struct *work)
{
	struct zsmod_pool *pool = container_of(work, struct zsmod_pool,
					       free_work);
	unsigned int i;

	for (i = 0; i < pool->nr_classes; i++) {
		struct zsmod_size_class *class = pool->classes[i];
		struct zsmod_zspage *zsp, *tmp;
		LIST_HEAD(empty);

		spin_lock(&class->lock);
		list_splice_init(&class->fullness_list[ZS_INUSE_RATIO_0],
				 &empty);
		spin_unlock(&class->lock);

		list_for_each_entry_safe(zsp, tmp, &empty, list) {
			list_del_init(&zsp->list);
			lock_zspage(class, zsp);
			spin_lock(&class->lock);
			class->stat[ZS_INUSE_RATIO_0]--;
			zspage_detach(pool, class, zsp);
			spin_unlock(&class->lock);
			release_zspage(zsp);
		}
	}
}

/* ---- handles --------------------------------------------------------- */

/* What a free handle slot holds: see ZSMOD_DEAD_CLASS. */
static unsigned long free_handle_word(unsigned int next)
{
	return (unsigned long)next << OBJ_PFN_SHIFT |
	       (unsigned long)ZSMOD_DEAD_CLASS << OBJ_IDX_BITS;
}

/* The next free slot that a free handle slot's word names. */
static unsigned int free_handle_next(unsigned long word)
{
	return word >> OBJ_PFN_SHIFT;
}

static struct zsmod_handle_block *handle_block(unsigned long handle)
{
	return (void *)(handle & ~(unsigned long)(ZSMOD_HANDLE_BLOCK_SIZE - 1));
}

/**
 * handle_block_alloc() - allocate a block of free handle slots
 * @gfp: allocation flags; __GFP_HIGHMEM and __GFP_MOVABLE are ignored
 *
 * Return: the block, owned by no class yet, or NULL.
 */
static struct zsmod_handle_block *handle_block_alloc(gfp_t gfp)
{
	struct zsmod_handle_block *blk;
	unsigned int i;

	blk = kmem_cache_alloc(zsmod_handle_block_cache, slab_gfp(gfp));
	if (!blk)
		return NULL;
	INIT_LIST_HEAD(&blk->list);
	blk->class = NULL;
	blk->free = 0;
	blk->inuse = 0;
	for (i = 0; i < ZSMOD_HANDLES_PER_BLOCK; i++)
		blk->slot[i] = free_handle_word(i + 1);
	return blk;
}

/* Free a block that no class owns any more; NULL is ignored. */
static void handle_block_free(struct zsmod_handle_block *blk)
{
	if (blk)
		kmem_cache_free(zsmod_handle_block_cache, blk);
}

/* Free the handle blocks of a class that has no handle in use. */
static void free_handle_blocks(struct zsmod_size_class *class)
{
	struct zsmod_handle_block *blk, *tmp;

	WARN_ON_ONCE(class->handles_used);
	list_for_each_entry_safe(blk, tmp, &class->handle_blocks, list) {
		list_del(&blk->list);
		class->nr_handle_blocks--;
		handle_block_free(blk);
	}
	/* a block with a slot still given out is on no list: leak it */
	WARN_ON_ONCE(class->nr_handle_blocks);
}

/**
 * class_take_handle() - take a free handle slot of a class
 * @class: the class of the object the handle will lead to; its lock is held
 * @spare: a block the class takes if it has no free slot (*@spare is then
 *	   set to NULL), or a pointer to NULL
 *
 * With no free slot and no spare, tries for a block without sleeping.
 *
 * Return: the handle, its slot still marked free; or 0 if none could be had.
 */
static __always_inline unsigned long
class_take_handle(struct zsmod_size_class *class, struct zsmod_handle_block **spare)
{
	struct zsmod_handle_block *blk;
	unsigned int idx;

	lockdep_assert_held(&class->lock);
	blk = list_first_entry_or_null(&class->handle_blocks,
				       struct zsmod_handle_block, list);
	if (unlikely(!blk)) {
		blk = *spare;
		*spare = NULL;
		if (!blk)
			blk = handle_block_alloc(GFP_NOWAIT | __GFP_NOWARN);
		if (!blk)
			return 0;
		blk->class = class;
		list_add(&blk->list, &class->handle_blocks);
		class->nr_handle_blocks++;
	}
	idx = blk->free;
	blk->free = free_handle_next(blk->slot[idx]);
	if (++blk->inuse == ZSMOD_HANDLES_PER_BLOCK)
		list_del(&blk->list);
	class->handles_used++;
	return (unsigned long)&blk->slot[idx];
}

/**
 * class_drop_empty_block() - the rest of class_put_handle() for a block
 *			      that just emptied
 * @class: its class, whose lock is held
 * @blk: the block
 *
 * Return: see class_put_handle().
 */
static noinline struct zsmod_handle_block *
class_drop_empty_block(struct zsmod_size_class *class, struct zsmod_handle_block *blk)
{
	lockdep_assert_held(&class->lock);
	if (class->handles_used && list_is_singular(&class->handle_blocks))
		return NULL;
	list_del(&blk->list);
	class->nr_handle_blocks--;
	/* an empty class also lets go of the block it kept */
	if (!class->handles_used)
		free_handle_blocks(class);
	return blk;
}

/**
 * class_put_handle() - give a handle slot back to its class
 * @class: the class that gave it out; its lock is held
 * @handle: the handle
 *
 * A block that empties is freed unless it is the class's last one with
 * room while other handles of the class are in use, so that a class at
 * the edge of a block does not allocate and free one over and over; an
 * empty class keeps no block.
 *
 * Return: a block the caller must free with handle_block_free(), after
 * dropping the lock if it likes; or NULL.
 */
static __always_inline struct zsmod_handle_block *
class_put_handle(struct zsmod_size_class *class, unsigned long handle)
{
	struct zsmod_handle_block *blk = handle_block(handle);
	unsigned int idx = (unsigned long *)handle - blk->slot;

	lockdep_assert_held(&class->lock);
	VM_WARN_ON_ONCE(blk->class != class);
	/* a stale mapper of this handle now meets the dead class */
	WRITE_ONCE(blk->slot[idx], free_handle_word(blk->free));
	blk->free = idx;
	class->handles_used--;
	/* full blocks are on no list; one coming back is used up first */
	if (blk->inuse-- == ZSMOD_HANDLES_PER_BLOCK)
		list_add(&blk->list, &class->handle_blocks);
	if (likely(blk->inuse))
		return NULL;
	return class_drop_empty_block(class, blk);
}

/**
 * handle_plausible() - could this be a handle of this pool?
 * @pool: the pool
 * @handle: the handle
 *
 * Cheap checks always; under CONFIG_DEBUG_VM also that the handle points
 * to mapped kernel memory and names a valid page frame, so that the page
 * can be looked at before obj_matches_handle() checks the rest.
 *
 * Return: false if @handle certainly is not one.
 */
static bool handle_plausible(struct zsmod_pool *pool, unsigned long handle)
{
	if (unlikely(!pool || !handle ||
		     !IS_ALIGNED(handle, sizeof(unsigned long))))
		return false;
#ifdef CONFIG_DEBUG_VM
	if (!virt_addr_valid((void *)handle) ||
	    !pfn_valid(obj_pfn(handle_obj(handle))))
		return false;
#endif
	return true;
}

/*
 * The class a location read from a handle leads to, or NULL for a free
 * slot or a handle whose free is queued (both lead to zsmod_no_class).
 */
static struct zsmod_size_class *live_obj_class(struct zsmod_pool *pool,
					       unsigned long obj)
{
	struct zsmod_size_class *class = pool->obj_class[obj_class_idx(obj)];

	return class == &zsmod_no_class ? NULL : class;
}

/*
 * Did @class give @handle out? Its block says so. Class indexes are the
 * same in every pool: this is what refuses another pool's handle.
 */
static __always_inline bool handle_of_class(unsigned long handle,
					    struct zsmod_size_class *class)
{
	return READ_ONCE(handle_block(handle)->class) == class;
}

/**
 * handle_class() - find the class of a handle's object
 * @pool: the pool
 * @handle: the handle
 *
 * Cheap sanity checks always; under CONFIG_DEBUG_VM also that the handle
 * points to mapped kernel memory.
 *
 * Return: the class, or NULL for an invalid handle or one of another pool.
 */
static struct zsmod_size_class *handle_class(struct zsmod_pool *pool,
					     unsigned long handle)
{
	struct zsmod_size_class *class;

	if (unlikely(!handle_plausible(pool, handle)))
		return NULL;
	class = live_obj_class(pool, handle_obj(handle));
	return class && handle_of_class(handle, class) ? class : NULL;
}

/**
 * handle_live_locked() - is a handle still live, now that its class is locked?
 * @pool: the pool
 * @class: the class handle_class() found, whose lock is held
 * @handle: the handle
 * @obj: set to the object's location
 *
 * handle_class() looks without the lock, and a free may have raced with
 * it: read the handle again. Until the lock drops, the object can then
 * neither be freed nor move.
 *
 * Return: true if @handle still names an object of @class.
 */
static bool handle_live_locked(struct zsmod_pool *pool,
			       struct zsmod_size_class *class, unsigned long handle,
			       unsigned long *obj)
{
	lockdep_assert_held(&class->lock);
	*obj = handle_obj(handle);
	return live_obj_class(pool, *obj) == class;
}

/**
 * handle_mark_freeing() - mark a live handle freed, its free queued
 * @pool: the pool
 * @handle: the handle
 *
 * From now on map and free refuse the handle, as they refuse a free slot;
 * its object and slot stay allocated until its queued free runs.
 *
 * Return: the class of its object, or NULL if @handle is not live (a
 * double free, or garbage).
 */
static struct zsmod_size_class *handle_mark_freeing(struct zsmod_pool *pool,
						    unsigned long handle)
{
	unsigned long *slot = (unsigned long *)handle;
	struct zsmod_size_class *class;
	unsigned long obj;

	if (unlikely(!handle_plausible(pool, handle)))
		return NULL;
	obj = READ_ONCE(*slot);
	do {
		class = live_obj_class(pool, obj);
		if (!class || !handle_of_class(handle, class))
			return NULL;
	} while (!try_cmpxchg(slot, &obj, obj | OBJ_FREEING));
	return class;
}

/**
 * obj_matches_handle() - does @obj really hold @handle's object?
 * @pool: the pool
 * @class: the class, whose lock is held or whose object is pinned
 * @obj: the location read from @handle
 * @handle: the handle
 *
 * Checks under CONFIG_DEBUG_VM that @obj points to a page of ours in a
 * zspage of @pool and @class whose slot records @handle.
 *
 * Return: true if so, or always without CONFIG_DEBUG_VM.
 */
static bool obj_matches_handle(struct zsmod_pool *pool,
			       struct zsmod_size_class *class, unsigned long obj,
			       unsigned long handle)
{
#ifdef CONFIG_DEBUG_VM
	struct zpdesc *zpdesc;
	struct zsmod_zspage *zsp;
	unsigned long word;
	void *vaddr;

	if (!pfn_valid(obj_pfn(obj)) || obj_index(obj) >= class->objs_per_zspage)
		return false;
	/*
	 * Best effort, for a debug check: a page of the built-in zsmalloc
	 * passes the type test, and its private word is read as ours; the
	 * magic and pool checks below reject what that finds.
	 */
	if (!pfn_is_zsmalloc(obj_pfn(obj)))
		return false;
	zpdesc = obj_zpdesc(obj);
	zsp = zpdesc ? zpdesc_zspage(zpdesc) : NULL;
	if (!zsp || !virt_addr_valid(zsp) ||
	    zsp->magic != ZSPAGE_MAGIC || zsp->pool != pool ||
	    zsp->class_idx != class->class_idx)
		return false;
	if (zsp->huge) {
		word = zsp->first_zpdesc->handle;
	} else {
		vaddr = kmap_local_zpdesc(zpdesc);
		word = *(unsigned long *)(vaddr +
					  obj_page_offset(class, obj_index(obj)));
		kunmap_local(vaddr);
	}
	return word == (handle | OBJ_ALLOCATED_TAG);
#else
	return true;
#endif
}

/* ---- freeing in batches ---------------------------------------------- */

/*
 * Ask for background compaction of a pool, after frees pause. The first
 * request since the last run starts the clock of ZSMOD_AUTO_COMPACT_MAX_WAIT
 * (0 means none; a request at jiffies 0 counts from 1).
 */
static void schedule_auto_compact(struct zsmod_pool *pool)
{
	unsigned long now = jiffies;

	if (!READ_ONCE(pool->compact_asked))
		cmpxchg(&pool->compact_asked, 0, now ?: 1);
	WRITE_ONCE(pool->compact_after, now + ZSMOD_AUTO_COMPACT_DELAY);
	if (!delayed_work_pending(&pool->compact_work))
		schedule_delayed_work(&pool->compact_work,
				      ZSMOD_AUTO_COMPACT_DELAY);
}

/**
 * free_class_queue() - free the objects of a class queued on a CPU
 * @pool: the pool
 * @fb: the CPU's queues, whose lock is held
 * @class: the class
 * @wait: wait for the class lock; else give up if it is taken
 *
 * Return: the number of pages released, or -EBUSY if the class lock was
 * taken and @wait false; the class's queue is then left as it was, else
 * emptied (@fb->queued is the caller's to update).
 */
static noinline int free_class_queue(struct zsmod_pool *pool,
				     struct zsmod_free_batch *fb,
				     struct zsmod_size_class *class, bool wait)
{
	struct zsmod_class_frees *cf = &fb->class[class->pos];
	struct zsmod_handle_block *unused[ZSMOD_FREE_BATCH_MAX];
	struct zsmod_zspage *empty[ZSMOD_FREE_BATCH_MAX];
	unsigned int i, nr_unused = 0, nr_empty = 0, nr = cf->nr;
	bool compact = false;

	lockdep_assert_held(&fb->lock);
	if (wait)
		spin_lock(&class->lock);
	else if (!spin_trylock(&class->lock))
		return -EBUSY;
	for (i = 0; i < nr; i++) {
		unsigned long handle = cf->handle[i];
		unsigned long obj = handle_obj(handle) & ~OBJ_FREEING;
		struct zsmod_handle_block *blk;
		int fullness, old_fullness;
		struct zsmod_zspage *zsp;

		if (WARN_ON_ONCE(obj_class_idx(obj) != class->class_idx ||
				 !obj_matches_handle(pool, class, obj, handle)))
			continue;
		zsp = zpdesc_zspage(obj_zpdesc(obj));
		old_fullness = zsp->fullness;
		obj_free(class, obj);
		fullness = fix_fullness(class, zsp);
		if (unlikely(zsp->movable_pending) && fullness != ZS_INUSE_RATIO_0)
			zspage_set_movable(zsp);
		/* Fragmentation only grows when a zspage drops a group. */
		if (fullness != old_fullness && READ_ONCE(auto_compact) &&
		    class_compaction_pays(class))
			compact = true;
		/* the zspage's other objects are gone: not in this batch */
		if (fullness == ZS_INUSE_RATIO_0 && free_zspage(pool, class, zsp))
			empty[nr_empty++] = zsp;
		blk = class_put_handle(class, handle);
		if (blk)
			unused[nr_unused++] = blk;
	}
	spin_unlock(&class->lock);
	cf->nr = 0;

	for (i = 0; i < nr_empty; i++)
		release_zspage(empty[i]);
	for (i = 0; i < nr_unused; i++)
		handle_block_free(unused[i]);
	if (compact)
		schedule_auto_compact(pool);
	trace_zsmod_free_batch(pool, class, fb->cpu, nr, nr_empty * class->pages_per_zspage);
	return nr_empty * class->pages_per_zspage;
}

/**
 * flush_queued_frees() - run the queued frees of every CPU
 * @pool: the pool
 * @class: only this class's; or NULL for all
 * @released: if not NULL, set to the number of pages released
 *
 * Context: any context that may take a class lock.
 * Return: the number of objects freed.
 */
static unsigned long flush_queued_frees(struct zsmod_pool *pool,
					struct zsmod_size_class *class,
					unsigned long *released)
{
	unsigned int cpu, pos, first = 0, end = pool->nr_classes;
	unsigned long freed = 0, pages = 0;

	if (class) {
		first = class->pos;
		end = first + 1;
	}
	for_each_cpu(cpu, pool->queued_cpus) {
		struct zsmod_free_batch *fb = per_cpu_ptr(pool->free_batch, cpu);

		/*
		 * One class per lock hold, so that the CPU's own frees do
		 * not wait for all of them. data_race: a peek; frees that
		 * return after it may wait for the next flush.
		 */
		for (pos = first; pos < end && data_race(fb->queued); pos++) {
			unsigned int nr;

			/* data_race: as above */
			if (!data_race(fb->class[pos].nr))
				continue;
			spin_lock(&fb->lock);
			nr = fb->class[pos].nr;
			if (nr) {
				pages += free_class_queue(pool, fb,
						     pool->classes[pos], true);
				fb->queued -= nr;
				freed += nr;
			}
			spin_unlock(&fb->lock);
		}
		/* data_race: a peek; the lock decides */
		if (!data_race(fb->queued)) {
			spin_lock(&fb->lock);
			if (!fb->queued)
				cpumask_clear_cpu(cpu, pool->queued_cpus);
			spin_unlock(&fb->lock);
		}
	}
	if (released)
		*released = pages;
	return freed;
}

/* Bound how long a queued free holds its object: see "Freeing in batches". */
static void drain_work_fn(struct work_struct *work)
{
	struct zsmod_pool *pool = container_of(to_delayed_work(work),
					       struct zsmod_pool, drain_work);

	flush_queued_frees(pool, NULL, NULL);
	/* frees queued meanwhile into a marked queue count on us */
	if (!cpumask_empty(pool->queued_cpus))
		schedule_delayed_work(&pool->drain_work,
				      ZSMOD_FREE_DRAIN_DELAY);
}

/* ---- allocation API -------------------------------------------------- */

#if IS_ENABLED(CONFIG_KUNIT)
/* KUnit: what one task runs in each zsmod_malloc() lock gap it reaches */
static struct {
	struct task_struct *task;
	void (*fn)(void *data, enum zsmod_malloc_gap gap);
	void *data;
} kunit_gap;

static void malloc_gap(enum zsmod_malloc_gap gap)
{
	if (unlikely(READ_ONCE(kunit_gap.task) == current))
		kunit_gap.fn(kunit_gap.data, gap);
}
#else
static inline void malloc_gap(enum zsmod_malloc_gap gap) { }
#endif

/**
 * malloc_in_class() - allocate an object in a zspage of a class, if any
 *		       has room
 * @class: the class
 * @spare: a spare handle block for class_take_handle(), or a pointer to
 *	   NULL; one allocated here and not used is left in it
 * @gfp: flags for a handle block, should a zspage have room but no handle
 *	 slot be had without sleeping
 *
 * Return: the new object's handle, or 0 if every zspage of @class is full
 * (or memory for a handle block ran out).
 */
static unsigned long malloc_in_class(struct zsmod_size_class *class,
				     struct zsmod_handle_block **spare,
				     gfp_t gfp)
{
	unsigned long handle = 0;
	struct zsmod_zspage *zsp;

again:
	spin_lock(&class->lock);
	zsp = find_zspage_with_room(class);
	if (zsp)
		handle = class_take_handle(class, spare);
	if (handle) {
		handle_set_obj(handle, obj_malloc(class, zsp, handle));
		fix_fullness(class, zsp);
		if (unlikely(zsp->movable_pending))
			zspage_set_movable(zsp);
	}
	spin_unlock(&class->lock);
	/* room but no slot: not a full class; a block as @gfp allows */
	if (unlikely(!handle && zsp && !*spare)) {
		*spare = handle_block_alloc(gfp);
		if (*spare) {
			malloc_gap(ZSMOD_GAP_SPARE);
			goto again;
		}
	}
	return handle;
}

/**
 * malloc_borrow_slot() - place an object in a slightly larger class
 * @pool: the pool
 * @class: the object's own class, whose zspages are all full
 * @spare: a spare handle block for class_take_handle()
 * @gfp: allocation flags, for a handle block
 *
 * See ZSMOD_BORROW_ZSPAGES: only while @class is small, and only in an
 * existing zspage of a class at most ZSMOD_BORROW_BYTES larger; or, for a
 * rare size (see ZSMOD_RARE_POOL_PAGES), ZSMOD_RARE_BORROW_BYTES larger;
 * and in a large pool only while @class has borrowed less than one
 * zspage's worth of bytes (see ZSMOD_BORROW_BUDGET_POOL_PAGES). The handle
 * comes from the larger class, which holds the object.
 *
 * Return: the new object's handle, or 0 if it was not placed.
 */
static unsigned long malloc_borrow_slot(struct zsmod_pool *pool,
					struct zsmod_size_class *class,
					struct zsmod_handle_block **spare,
					gfp_t gfp)
{
	unsigned int pos, reach = ZSMOD_BORROW_BYTES;
	/* data_race: a stale count only changes where one object goes */
	unsigned long allocated = data_race(class->stat[CLASS_OBJS_ALLOCATED]);
	long pool_pages = atomic_long_read(&pool->pages_allocated);

	if (pool_pages >= ZSMOD_BORROW_BUDGET_POOL_PAGES &&
	    atomic_long_read(&class->borrow_waste) >=
	    (long)class->pages_per_zspage * PAGE_SIZE)
		return 0;
	if (!allocated && pool_pages >= ZSMOD_RARE_POOL_PAGES)
		reach = ZSMOD_RARE_BORROW_BYTES;
	else if (allocated >= ZSMOD_BORROW_ZSPAGES * class->objs_per_zspage)
		return 0;

	for (pos = class->pos + 1; pos < pool->nr_classes; pos++) {
		struct zsmod_size_class *larger = pool->classes[pos];
		unsigned long handle;

		if (larger->size - class->size > reach)
			break;
		/* data_race: only a hint, malloc_in_class() decides */
		if (data_race(larger->stat[CLASS_OBJS_ALLOCATED] ==
			      larger->stat[CLASS_OBJS_INUSE]))
			continue;
		handle = malloc_in_class(larger, spare, gfp);
		if (handle) {
			atomic_long_add(larger->size - class->size,
					&class->borrow_waste);
			return handle;
		}
	}
	return 0;
}

/**
 * malloc_in_new_zspage() - allocate an object in a new zspage of a class
 * @pool: the pool
 * @class: the class
 * @size: the size asked for, for the zsmod_malloc_fail tracepoint
 * @gfp: allocation flags
 * @spare: a spare handle block for class_take_handle(), or a pointer to
 *	   NULL; one allocated here and not used is left in it
 *
 * The handle is taken first, so that nothing can leave a new zspage
 * waiting for one under the class lock. If not even GFP_NOWAIT gets a
 * block for it, one is allocated as @gfp allows.
 *
 * Return: the new object's handle, or 0 when memory ran out, in which case
 * nothing is left allocated but a spare.
 */
static unsigned long malloc_in_new_zspage(struct zsmod_pool *pool,
					  struct zsmod_size_class *class,
					  size_t size, gfp_t gfp,
					  struct zsmod_handle_block **spare)
{
	struct zsmod_handle_block *unused;
	struct zsmod_zspage *zsp;
	unsigned long handle;

	spin_lock(&class->lock);
	handle = class_take_handle(class, spare);
	spin_unlock(&class->lock);
	if (!handle) {
		*spare = handle_block_alloc(gfp);
		if (!*spare) {
			trace_zsmod_malloc_fail(pool, size, gfp, ZSMOD_FAIL_NO_HANDLE);
			return 0;
		}
		spin_lock(&class->lock);
		handle = class_take_handle(class, spare);
		spin_unlock(&class->lock);
	}

	malloc_gap(ZSMOD_GAP_HANDLE);
	zsp = alloc_zspage(pool, class, gfp);
	spin_lock(&class->lock);
	if (!zsp) {
		unused = class_put_handle(class, handle);
		spin_unlock(&class->lock);
		handle_block_free(unused);
		trace_zsmod_malloc_fail(pool, size, gfp, ZSMOD_FAIL_NO_ZSPAGE);
		return 0;
	}
	handle_set_obj(handle, obj_malloc(class, zsp, handle));
	insert_zspage(class, zsp, fullness_group(class, zsp));
	class->stat[CLASS_OBJS_ALLOCATED] += class->objs_per_zspage;
	atomic_long_add(class->pages_per_zspage, &pool->pages_allocated);
	zspage_set_movable(zsp);
	spin_unlock(&class->lock);
	return handle;
}

/* The error for a size or argument pool_malloc() refuses. */
static noinline int malloc_refused(struct zsmod_pool *pool, size_t size,
				   gfp_t gfp, unsigned long *handle)
{
	if (!pool || !handle || !size)
		return -EINVAL;
	trace_zsmod_malloc_fail(pool, size, gfp, ZSMOD_FAIL_TOO_LARGE);
	/* as zs_malloc(): zswap counts -ENOSPC as poor compression */
	return -ENOSPC;
}

/* Inlined into zsmod_malloc() and into the zpool driver's callback. */
static __always_inline int pool_malloc(struct zsmod_pool *pool, size_t size,
				       gfp_t gfp, unsigned long *handle)
{
	struct zsmod_handle_block *spare = NULL;
	struct zsmod_size_class *class;
	unsigned long h;

	if (unlikely(!pool || !handle || !size ||
		     size > ZSMOD_MAX_ALLOC_SIZE))
		return malloc_refused(pool, size, gfp, handle);

	class = pool->size_class[class_idx_for_size(size + ZSMOD_HANDLE_SIZE)];
	h = malloc_in_class(class, &spare, gfp);
	/*
	 * Frees queued in the class come before growing it; not in a huge
	 * class, where each would free the zspage it leaves empty.
	 */
	if (!h && !class->huge && flush_queued_frees(pool, class, NULL))
		h = malloc_in_class(class, &spare, gfp);
	if (!h)
		h = malloc_borrow_slot(pool, class, &spare, gfp);
	if (!h) {
		malloc_gap(ZSMOD_GAP_GROW);
		h = malloc_in_new_zspage(pool, class, size, gfp, &spare);
	}
	handle_block_free(spare);
	if (!h)
		return -ENOMEM;
	*handle = h;
	return 0;
}

/**
 * zsmod_malloc() - allocate an object
 * @pool: the pool
 * @size: object size in bytes, 1 to zsmod_max_alloc_size()
 * @gfp: flags for the page and slab allocations; __GFP_MOVABLE and
 *	 __GFP_HIGHMEM apply to the pages only
 * @handle: where the new object's handle is stored
 *
 * Context: may sleep if @gfp allows it.
 * Return: 0 on success; -EINVAL for a size of 0; -ENOSPC for a size above
 * the maximum (as zs_malloc(), which zswap counts as poor compression);
 * -ENOMEM when memory ran out, in which case nothing was allocated.
 */
int zsmod_malloc(struct zsmod_pool *pool, size_t size, gfp_t gfp,
		 unsigned long *handle)
{
	return pool_malloc(pool, size, gfp, handle);
}
EXPORT_SYMBOL_GPL(zsmod_malloc);

/* Inlined into zsmod_free() and into the zpool driver's callback. */
static __always_inline void pool_free(struct zsmod_pool *pool,
				      unsigned long handle)
{
	struct zsmod_class_frees *cf;
	struct zsmod_free_batch *fb;
	struct zsmod_size_class *class;
	unsigned int nr;

	if (!handle)
		return;
	class = handle_mark_freeing(pool, handle);
	if (misuse(!class, "free of a handle that is not live: %#lx\n",
		   handle))
		return;

	/* this CPU's, for locality; its lock makes any CPU's right */
	fb = raw_cpu_ptr(pool->free_batch);
	spin_lock(&fb->lock);
	cf = &fb->class[class->pos];
	cf->handle[cf->nr++] = handle;
	/*
	 * The first free into an empty queue marks the CPU and, if it was
	 * not marked, arms the worker. A CPU still marked has the worker
	 * pending or running: it arms itself again while any CPU is marked.
	 */
	if (!fb->queued++ &&
	    !cpumask_test_and_set_cpu(fb->cpu, pool->queued_cpus))
		schedule_delayed_work(&pool->drain_work,
				      ZSMOD_FREE_DRAIN_DELAY);
	nr = cf->nr;
	if (nr >= ZSMOD_FREE_BATCH &&
	    free_class_queue(pool, fb, class, nr == ZSMOD_FREE_BATCH_MAX) >= 0)
		fb->queued -= nr;
	spin_unlock(&fb->lock);
}

/**
 * zsmod_free() - free an object
 * @pool: the pool it was allocated from
 * @handle: its handle; 0 is ignored
 *
 * The handle is dead at once: map and another free refuse it. Its object
 * is freed with others of its class queued on this CPU (see "Freeing in
 * batches"), at most about ZSMOD_FREE_DRAIN_DELAY later, and its zspage
 * with its last object. An invalid handle is refused with a warning and
 * changes nothing.
 *
 * Context: not from interrupts; takes spinlocks.
 */
void zsmod_free(struct zsmod_pool *pool, unsigned long handle)
{
	pool_free(pool, handle);
}
EXPORT_SYMBOL_GPL(zsmod_free);

/* ---- mapping ---------------------------------------------------------- */

/* What a map area's pin holds for a location: never 0. */
static unsigned long pin_word(unsigned long obj)
{
	return obj | ZSMOD_PIN_MARK;
}

/* The location a map area's pin names. */
static unsigned long pinned_obj(unsigned long pin)
{
	return pin & ~ZSMOD_PIN_MARK;
}

/* End this CPU's pin. Context: the map area's local lock held. */
static void unpin_object(void)
{
	/* our accesses to the object are done before a mover sees no pin */
	smp_store_release(this_cpu_ptr(&zsmod_map_area.obj), 0);
}

/**
 * zspage_pinned() - has some CPU mapped an object of a zspage?
 * @zsp: the zspage
 *
 * Return: true if a CPU's pin names @zsp. Only a hint unless @zsp is
 * claimed (see claim_zspage()).
 */
static bool zspage_pinned(struct zsmod_zspage *zsp)
{
	struct zpdesc *zpdesc;
	int cpu;

	for_each_possible_cpu(cpu) {
		unsigned long obj;

		/*
		 * Acquire: pairs with unpin_object(), so that a mover that
		 * sees no pin also sees the bytes the mapper wrote.
		 */
		obj = smp_load_acquire(&per_cpu_ptr(&zsmod_map_area, cpu)->obj);
		if (!obj)
			continue;
		/*
		 * A stale pin's page may be anyone's, or free: compare its
		 * pfn with our pages (stable under the class lock), never
		 * look at the page itself.
		 */
		for (zpdesc = zsp->first_zpdesc; zpdesc;
		     zpdesc = zspage_next(zsp, zpdesc))
			if (zpdesc_pfn(zpdesc) == obj_pfn(pinned_obj(obj)))
				return true;
	}
	return false;
}

/**
 * claim_zspage() - reserve a zspage's objects for moving
 * @class: its class, whose lock is held
 * @zsp: the zspage
 *
 * The mover's half of the handshake described under "Locking". Until
 * release_claim(), mappers of @zsp's objects wait on the class lock.
 *
 * Return: true if claimed; false, with nothing claimed, if an object of
 * @zsp is mapped.
 */
static bool claim_zspage(struct zsmod_size_class *class, struct zsmod_zspage *zsp)
{
	lockdep_assert_held(&class->lock);
	/* a mapper that sees the claim sees all that came before it */
	smp_store_release(&class->moving, zsp);
	smp_mb();	/* pairs with zsmod_map_object()'s */
	if (!zspage_pinned(zsp))
		return true;
	WRITE_ONCE(class->moving, NULL);
	return false;
}

/* Let mappers in again. */
static void release_claim(struct zsmod_size_class *class)
{
	lockdep_assert_held(&class->lock);
	/* a mapper that sees the claim gone sees the moved objects' bytes */
	smp_store_release(&class->moving, NULL);
}

/**
 * map_object_slow() - zsmod_map_object() for all that its fast path skips
 * @pool: the pool
 * @handle: the handle
 * @mm: the mapping mode
 *
 * Called with the map area's local lock held and any pin, which it
 * replaces. Checks the handle in full, pins its object under the class lock (no
 * move is under way then), and maps an object that spans two pages that
 * are not adjacent through the per-CPU buffer.
 *
 * Return: the object's address, or NULL (with the pin and the local lock
 * dropped) for an invalid handle.
 */
static noinline void *map_object_slow(struct zsmod_pool *pool,
				      unsigned long handle,
				      enum zsmod_mapmode mm)
{
	struct zsmod_map_area *area = this_cpu_ptr(&zsmod_map_area);
	struct zsmod_size_class *class;
	struct zpdesc *zpdesc;
	unsigned long obj, off;
	void *addr;

	class = handle_class(pool, handle);
	if (misuse(!class, "map of a handle that is not live: %#lx\n", handle))
		goto invalid;
	spin_lock(&class->lock);
	if (misuse(!handle_live_locked(pool, class, handle, &obj),
		   "map of %#lx while it is freed\n", handle)) {
		spin_unlock(&class->lock);
		goto invalid;
	}
	WRITE_ONCE(area->obj, pin_word(obj));
	spin_unlock(&class->lock);
	if (misuse(!obj_matches_handle(pool, class, obj, handle),
		   "handle %#lx leads to a slot that does not record it\n",
		   handle))
		goto invalid;

	zpdesc = obj_zpdesc(obj);
	off = obj_page_offset(class, obj_index(obj));
	area->owner = current;
	area->refused = 0;
	if (off <= class->last_whole_off ||
	    zpdesc_follows(zpdesc, zpdesc->next)) {
		area->handle = handle;
		area->kaddr = kmap_local_zpdesc(zpdesc);
		addr = area->kaddr + off;
	} else {
		area->handle = handle | ZSMOD_MAP_SPLIT;
		area->class = class;
		area->mm = mm;
		addr = area->buf;
		/*
		 * Write-only too: unmap writes the whole slot back, and the
		 * bytes the caller leaves alone must be the slot's own, not
		 * the buffer's previous user's.
		 */
		obj_copy_bytes(class, obj, 0, addr, class->size, false);
	}
	return addr + class->hdr_size;

invalid:
	unpin_object();
	local_unlock(&zsmod_map_area.lock);
	return NULL;
}

/*
 * End the mapping of a split object: copy it back from the per-CPU buffer
 * unless it was mapped read-only. Out of line: rare.
 */
static noinline void unmap_split_object(struct zsmod_map_area *area)
{
	struct zsmod_size_class *class = area->class;

	/* the handle header in the buffer may be stale: skip it */
	if (area->mm != ZSMOD_MM_RO)
		obj_copy_bytes(class, pinned_obj(area->obj), ZSMOD_HANDLE_SIZE,
			       area->buf + ZSMOD_HANDLE_SIZE,
			       class->size - ZSMOD_HANDLE_SIZE, true);
	area->handle = 0;
	area->owner = NULL;
	area->refused = 0;
	unpin_object();
	local_unlock(&zsmod_map_area.lock);
}

/*
 * zsmod_unmap_object() for what its fast path skips: a split object, or a
 * caller's mistake. An unmap with nothing mapped on this CPU, or from a
 * task that does not hold the CPU's mapping (PREEMPT_RT: the holder was
 * preempted), changes nothing; one of the wrong handle from the holder
 * still ends its mapping, since only that gives preemption back.
 */
static noinline void unmap_object_slow(unsigned long handle)
{
	/* this_cpu_read: unless we hold the mapping we may be preemptible */
	unsigned long mapped = this_cpu_read(zsmod_map_area.handle);
	struct zsmod_map_area *area;

	if (misuse(!mapped, "unmap of %#lx, but this CPU maps nothing\n",
		   handle))
		return;
	/* a task that does not own the area must not touch it */
	if (misuse(this_cpu_read(zsmod_map_area.owner) != current,
		   "unmap of %#lx by a task that maps nothing on this CPU\n",
		   handle))
		return;
	/* only now are we the holder, and on this CPU to stay */
	area = this_cpu_ptr(&zsmod_map_area);
	/* the unmap of a refused nested map: the live mapping stays */
	if (misuse(handle && handle == area->refused,
		   "unmap of %#lx, whose map was refused\n", handle)) {
		area->refused = 0;
		return;
	}
	misuse(!handle || (mapped & ~ZSMOD_MAP_SPLIT) != handle,
	       "unmap of %#lx, but this CPU maps %#lx\n", handle,
	       mapped & ~ZSMOD_MAP_SPLIT);
	if (mapped & ZSMOD_MAP_SPLIT) {
		unmap_split_object(area);
		return;
	}
	kunmap_local(area->kaddr);
	area->handle = 0;
	area->owner = NULL;
	area->refused = 0;
	unpin_object();
	local_unlock(&zsmod_map_area.lock);
}

/* Inlined into zsmod_map_object() and into the zpool driver's callback. */
static __always_inline void *pool_map(struct zsmod_pool *pool,
				      unsigned long handle,
				      enum zsmod_mapmode mm)
{
	struct zsmod_size_class *class;
	struct zpdesc *zpdesc;
	unsigned long obj, off;
	void *kaddr;

	/*
	 * One mapping per task: a second would take the first one's pin, or
	 * on PREEMPT_RT wait forever on the lock the task holds. Another
	 * task (RT) waits on the lock instead.
	 */
	if (misuse(this_cpu_read(zsmod_map_area.owner) == current,
		   "map of %#lx while this task maps another object\n",
		   handle)) {
		/* its unmap, if the caller makes one, must leave ours alone */
		this_cpu_write(zsmod_map_area.refused, handle);
		return NULL;
	}
	local_lock(&zsmod_map_area.lock);
	if (unlikely(!handle_plausible(pool, handle)))
		return map_object_slow(pool, handle, mm);

	/* what does not depend on the handshake, before its barrier */
	obj = handle_obj(handle);
	class = pool->obj_class[obj_class_idx(obj)];
	off = obj_page_offset(class, obj_index(obj));

	this_cpu_write(zsmod_map_area.obj, pin_word(obj));
	smp_mb();	/* pairs with claim_zspage()'s */
	/*
	 * Any claim in the class, ours or not, sends us to wait on the class
	 * lock: moves are rare, and zsmod_no_class is always claimed. The
	 * claim before the handle (acquire): if it was already released,
	 * the handle shows where the mover put the object.
	 */
	if (unlikely(smp_load_acquire(&class->moving) ||
		     handle_obj(handle) != obj))
		return map_object_slow(pool, handle, mm);
	/* only now is obj a live object whose page nobody can take away */
	zpdesc = obj_zpdesc(obj);
	if (unlikely((off > class->last_whole_off &&
		      !zpdesc_follows(zpdesc, zpdesc->next)) ||
		     (IS_ENABLED(CONFIG_DEBUG_VM) &&
		      !obj_matches_handle(pool, class, obj, handle))))
		return map_object_slow(pool, handle, mm);

	kaddr = kmap_local_zpdesc(zpdesc);
	this_cpu_write(zsmod_map_area.handle, handle);
	this_cpu_write(zsmod_map_area.kaddr, kaddr);
	this_cpu_write(zsmod_map_area.owner, current);
	this_cpu_write(zsmod_map_area.refused, 0);
	return kaddr + off + class->hdr_size;
}

/**
 * zsmod_map_object() - get a kernel address for an object's bytes
 * @pool: the pool
 * @handle: the object's handle
 * @mm: ZSMOD_MM_RO, ZSMOD_MM_WO or ZSMOD_MM_RW
 *
 * An object within one page, or spanning two adjacent pages, is mapped in
 * place; one that spans two other pages is copied into a per-CPU buffer
 * (write-only too, so that the bytes the caller leaves alone stay the
 * slot's) and copied back at unmap (unless read-only). Until
 * zsmod_unmap_object() the object cannot move, and the caller must not
 * sleep or map another object.
 *
 * The common case, an object mapped in place whose zspage no mover has
 * claimed, takes no lock: it pins the object (the mapper's half of the
 * handshake under "Locking") and checks that the handle still names it.
 * Everything else goes to map_object_slow().
 *
 * Context: task context (an interrupt's current is the task it interrupted,
 * whose mapping it would take for its own). Keeps the caller on its CPU
 * until zsmod_unmap_object(): disables preemption (on PREEMPT_RT,
 * migration: a sleeping lock).
 * Return: the object's address, or NULL for a handle that is not live or
 * while this task maps another object (see "Misuse").
 */
void *zsmod_map_object(struct zsmod_pool *pool, unsigned long handle,
		       enum zsmod_mapmode mm)
{
	return pool_map(pool, handle, mm);
}
EXPORT_SYMBOL_GPL(zsmod_map_object);

/* Inlined into zsmod_unmap_object() and into the zpool driver's callback. */
static __always_inline void pool_unmap(struct zsmod_pool *pool,
				       unsigned long handle)
{
	/* this_cpu_read: unless we hold the mapping we may be preemptible */
	if (unlikely(this_cpu_read(zsmod_map_area.handle) != handle ||
		     !handle ||
		     this_cpu_read(zsmod_map_area.owner) != current)) {
		unmap_object_slow(handle);
		return;
	}
	kunmap_local(this_cpu_ptr(&zsmod_map_area)->kaddr);
	this_cpu_write(zsmod_map_area.handle, 0);
	this_cpu_write(zsmod_map_area.owner, NULL);
	this_cpu_write(zsmod_map_area.refused, 0);
	unpin_object();
	local_unlock(&zsmod_map_area.lock);
}

/**
 * zsmod_unmap_object() - end the access begun by zsmod_map_object()
 * @pool: the pool
 * @handle: the handle that was mapped
 *
 * Copies a split object back from the per-CPU buffer unless it was
 * mapped read-only. An unmap with nothing mapped on this CPU, or from a
 * task that does not hold this CPU's mapping, is refused with a warning;
 * one of a handle other than the one the task has mapped warns and ends
 * that mapping, which would otherwise keep preemption disabled for good.
 */
void zsmod_unmap_object(struct zsmod_pool *pool, unsigned long handle)
{
	pool_unmap(pool, handle);
}
EXPORT_SYMBOL_GPL(zsmod_unmap_object);

/* ---- compaction ------------------------------------------------------ */

/**
 * class_compactable_pages() - pages compaction could free in a class
 * @class: the class
 * @queued: objects of it whose free is queued, counted as free slots
 *
 * Return: whole zspages' worth of free slots, in pages.
 */
static unsigned long class_compactable_pages(struct zsmod_size_class *class,
					     unsigned long queued)
{
	/* data_race: the shrinker counts without the lock, as a hint */
	unsigned long allocated = data_race(class->stat[CLASS_OBJS_ALLOCATED]);
	/* data_race: as above */
	unsigned long used = data_race(class->stat[CLASS_OBJS_INUSE]);

	used -= min(used, queued);

	if (allocated <= used)
		return 0;
	return (allocated - used) / class->objs_per_zspage *
	       class->pages_per_zspage;
}

/* Take the emptiest non-empty zspage off its list, claimed for moving. */
static struct zsmod_zspage *isolate_src_zspage(struct zsmod_size_class *class)
{
	int fg;

	for (fg = ZS_INUSE_RATIO_10; fg <= ZS_INUSE_RATIO_99; fg++) {
		struct zsmod_zspage *zsp;

		list_for_each_entry(zsp, &class->fullness_list[fg], list) {
			/* a mapped object stays put: try the next one */
			if (!claim_zspage(class, zsp))
				continue;
			remove_zspage(class, zsp);
			return zsp;
		}
	}
	return NULL;
}

/* Take the fullest zspage with room off its list: a destination. */
static struct zsmod_zspage *isolate_dst_zspage(struct zsmod_size_class *class)
{
	struct zsmod_zspage *zsp = find_zspage_with_room(class);

	if (zsp)
		remove_zspage(class, zsp);
	return zsp;
}

/*
 * A zspage back from compaction: pages left unmovable get their retry here
 * too, since compaction's moves go around the malloc and free paths that
 * retry (a full zspage nobody frees from would otherwise keep them).
 */
static int putback_zspage(struct zsmod_size_class *class, struct zsmod_zspage *zsp)
{
	int fullness = fullness_group(class, zsp);

	if (unlikely(zsp->movable_pending) && fullness != ZS_INUSE_RATIO_0)
		zspage_set_movable(zsp);
	insert_zspage(class, zsp, fullness);
	return fullness;
}

/**
 * move_objects() - move objects from one zspage into another
 * @class: their class, whose lock is held
 * @src: the source zspage
 * @dst: the destination zspage
 *
 * Moves until @src is empty or @dst is full, rewriting each handle.
 *
 * Return: the number of objects moved.
 */
static unsigned int move_objects(struct zsmod_size_class *class,
				 struct zsmod_zspage *src, struct zsmod_zspage *dst)
{
	struct zpdesc *zpdesc = src->first_zpdesc;
	unsigned int pos, moved = 0;

	lockdep_assert_held(&class->lock);

	for (pos = 0; zpdesc; zpdesc = zspage_next(src, zpdesc), pos++) {
		unsigned long handle, old_obj, new_obj;
		unsigned int idx = 0;

		while (src->inuse && dst->freeobj != ZSMOD_NO_FREE_OBJ &&
		       (handle = find_alloced_obj(class, src, zpdesc, pos,
						  &idx))) {
			old_obj = obj_encode(zpdesc, idx, class->class_idx);
			new_obj = obj_malloc(class, dst, handle);
			obj_copy(class, new_obj, old_obj);
			handle_move_obj(handle, new_obj);
			obj_free(class, old_obj);
			idx++;
			moved++;
		}
	}
	return moved;
}

/**
 * compact_class() - pack a class's objects into as few zspages as possible
 * @pool: the pool
 * @class: the class
 *
 * Moves objects from the emptiest zspages into the fullest ones and frees
 * the zspages that become empty. Drops the class lock when it is wanted.
 *
 * Return: the number of pages freed.
 */
static unsigned long compact_class(struct zsmod_pool *pool,
				   struct zsmod_size_class *class)
{
	struct zsmod_zspage *src, *dst = NULL;
	unsigned long freed = 0, moved = 0;
	u64 start = ktime_get_ns();

	spin_lock(&class->lock);
	while (class_compactable_pages(class, 0)) {
		if (!dst) {
			dst = isolate_dst_zspage(class);
			if (!dst)
				break;
		}
		src = isolate_src_zspage(class);
		if (!src)
			break;

		moved += move_objects(class, src, dst);
		release_claim(class);

		/* one left to the deferred worker is not freed yet */
		if (putback_zspage(class, src) == ZS_INUSE_RATIO_0 &&
		    free_zspage(pool, class, src)) {
			release_zspage(src);
			freed += class->pages_per_zspage;
		}

		if (fullness_group(class, dst) == ZS_INUSE_RATIO_100 ||
		    spin_needbreak(&class->lock)) {
			putback_zspage(class, dst);
			dst = NULL;
			spin_unlock(&class->lock);
			cond_resched();
			spin_lock(&class->lock);
		}
	}
	if (dst)
		putback_zspage(class, dst);
	spin_unlock(&class->lock);
	trace_zsmod_compact_class(pool, class, freed, moved, start);
	return freed;
}

/**
 * compact_pool() - compact a pool's classes
 * @pool: the pool
 * @only_paying: skip the classes where class_compaction_pays() is false
 *
 * Only one compaction runs per pool at a time; a concurrent call returns
 * at once.
 *
 * Return: the number of pages freed.
 */
static unsigned long compact_pool(struct zsmod_pool *pool, bool only_paying)
{
	unsigned long freed = 0;
	int i;

	if (atomic_xchg(&pool->compaction_in_progress, 1))
		return 0;
	/* queued frees may empty zspages: no need to move their objects */
	flush_queued_frees(pool, NULL, NULL);
	for (i = pool->nr_classes - 1; i >= 0; i--) {
		struct zsmod_size_class *class = pool->classes[i];

		if (only_paying && !class_compaction_pays(class))
			continue;
		freed += compact_class(pool, class);
		cond_resched();
	}
	atomic_long_add(freed, &pool->counters.pages_compacted);
	atomic_long_inc(&pool->counters.compactions);
	atomic_set(&pool->compaction_in_progress, 0);
	return freed;
}

/**
 * zsmod_compact() - move objects to free as many zspages as possible
 * @pool: the pool
 *
 * Only one compaction runs per pool at a time; a concurrent call returns
 * at once.
 *
 * Context: process context; may sleep.
 * Return: the number of pages freed.
 */
unsigned long zsmod_compact(struct zsmod_pool *pool)
{
	return compact_pool(pool, false);
}
EXPORT_SYMBOL_GPL(zsmod_compact);

/**
 * auto_compact_work_fn() - background compaction where it pays
 * @work: the pool's compact_work
 *
 * Waits until frees have paused for ZSMOD_AUTO_COMPACT_DELAY: objects
 * moved now might be freed a moment later, and a burst of frees often
 * empties whole zspages by itself. Under steady churn they never pause:
 * ZSMOD_AUTO_COMPACT_MAX_WAIT after the first request it runs regardless.
 */
static void auto_compact_work_fn(struct work_struct *work)
{
	struct zsmod_pool *pool = container_of(to_delayed_work(work),
					       struct zsmod_pool, compact_work);
	unsigned long after = READ_ONCE(pool->compact_after);
	unsigned long asked = READ_ONCE(pool->compact_asked);
	unsigned long now = jiffies, latest = asked + ZSMOD_AUTO_COMPACT_MAX_WAIT;

	if (asked && time_before(now, after) && time_before(now, latest)) {
		if (time_before(latest, after))
			after = latest;
		/* mod_: a free may have queued it meanwhile, 2 s out */
		mod_delayed_work(system_wq, &pool->compact_work, after - now);
		return;
	}
	/* requests from here on are for the next run */
	WRITE_ONCE(pool->compact_asked, 0);
	compact_pool(pool, true);
}

/* Frees of a class queued on any CPU, as a shrinker count needs them. */
static unsigned long class_frees_queued(struct zsmod_pool *pool,
					struct zsmod_size_class *class)
{
	unsigned long nr = 0;
	unsigned int cpu;

	for_each_cpu(cpu, pool->queued_cpus)
		/* data_race: a peek; a stale count only misjudges a scan */
		nr += data_race(per_cpu_ptr(pool->free_batch,
					    cpu)->class[class->pos].nr);
	return nr;
}

/**
 * zsmod_shrinker_count() - shrinker: pages scanning could free
 * @shrinker: the pool's shrinker
 * @sc: shrink control (unused)
 *
 * Counts queued frees as done, since the scan runs them first: a class
 * whose zspages only queued frees keep is worth a scan.
 *
 * Return: the count, or 0 while shrinker_enabled is off.
 */
static unsigned long zsmod_shrinker_count(struct shrinker *shrinker,
					  struct shrink_control *sc)
{
	struct zsmod_pool *pool = shrinker->private_data;
	unsigned long pages = 0;
	unsigned int i;

	if (!READ_ONCE(shrinker_enabled))
		return 0;
	for (i = 0; i < pool->nr_classes; i++) {
		struct zsmod_size_class *class = pool->classes[i];

		pages += class_compactable_pages(class,
						 class_frees_queued(pool, class));
	}
	return pages;
}

/**
 * zsmod_shrinker_scan() - shrinker: compact the pool
 * @shrinker: the pool's shrinker
 * @sc: shrink control (unused)
 *
 * Return: pages freed, or SHRINK_STOP when nothing was freed.
 */
static unsigned long zsmod_shrinker_scan(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	struct zsmod_pool *pool = shrinker->private_data;
	unsigned long freed;

	if (!READ_ONCE(shrinker_enabled))
		return SHRINK_STOP;
	/* queued frees first, to count the pages they release */
	flush_queued_frees(pool, NULL, &freed);
	freed += zsmod_compact(pool);
	return freed ? freed : SHRINK_STOP;
}

/* ---- page migration -------------------------------------------------- */

#ifdef CONFIG_COMPACTION
/**
 * zsmod_zpdesc_isolate() - movable op: the core isolates one of our pages
 * @zpdesc: the page, locked
 * @mode: isolation mode (unused)
 *
 * Return: true; the page lock keeps its zspage alive until migration.
 */
static bool zsmod_zpdesc_isolate(struct zpdesc *zpdesc, isolate_mode_t mode)
{
	/* The page is locked, so its zspage cannot be freed under us. */
	VM_WARN_ON_ONCE(zpdesc_is_isolated(zpdesc));
	return true;
}

/**
 * zspage_replace_zpdesc() - put a zpdesc in another's place in a zspage
 * @zsp: the zspage, whose class lock is held
 * @new: the zpdesc to link
 * @old: the zpdesc it replaces: in the chain; @new itself when the
 *	descriptor moved with the page (memdesc mode)
 */
static void zspage_replace_zpdesc(struct zsmod_zspage *zsp, struct zpdesc *new,
				  struct zpdesc *old)
{
	struct zpdesc *zpdesc;

	if (zsp->first_zpdesc == old) {
		zsp->first_zpdesc = new;
		return;
	}
	for (zpdesc = zsp->first_zpdesc; zpdesc;
	     zpdesc = zspage_next(zsp, zpdesc)) {
		if (zpdesc->next == old) {
			zpdesc->next = new;
			return;
		}
	}
	VM_WARN_ONCE(1, "zsmalloc_mod: a zpdesc missing from its zspage\n");
}

/**
 * zsmod_zpdesc_migrate() - movable op: move a page's contents to a new page
 * @newzpdesc: the destination's zpdesc, its page locked by the migration
 *	core and typed by the adapter
 * @zpdesc: our isolated page, locked by the migration core
 * @mode: migration mode (we never sleep, so any mode works)
 *
 * Under the class lock, and only while no object of the zspage is mapped,
 * copies the page, rewrites the handle of every object that starts in it,
 * and hands the zpdesc over to the new page (zpdesc_move()). Objects
 * starting in the previous page keep their location, which names the page
 * they start in. The adapter gives the old page back.
 *
 * Return: MIGRATEPAGE_SUCCESS, or -EAGAIN while an object is mapped.
 */
static int zsmod_zpdesc_migrate(struct zpdesc *newzpdesc, struct zpdesc *zpdesc,
				enum migrate_mode mode)
{
	unsigned int pos, idx = 0;
	struct zsmod_size_class *class;
	struct zsmod_zspage *zsp;
	struct zsmod_pool *pool;
	struct zpdesc *moved;
	unsigned long handle, pfn = zpdesc_pfn(zpdesc);
	void *s_addr, *d_addr;

	VM_WARN_ON_ONCE(!zpdesc_is_isolated(zpdesc));

	/* Locked pages keep their zspage alive: see free_zspage(). */
	zsp = zpdesc_zspage(zpdesc);
	pool = zsp->pool;
	class = zspage_class(pool, zsp);

	spin_lock(&class->lock);
	if (!claim_zspage(class, zsp)) {
		/* an object is mapped: let the migration core retry later */
		spin_unlock(&class->lock);
		trace_zsmod_migrate(pool, class, pfn, 0, ZSMOD_MIGRATE_MAPPED);
		return -EAGAIN;
	}

	pos = zspage_zpdesc_pos(zsp, zpdesc);
	s_addr = kmap_local_zpdesc(zpdesc);
	d_addr = kmap_local_zpdesc(newzpdesc);
	copy_page(d_addr, s_addr);
	kunmap_local(d_addr);
	kunmap_local(s_addr);

	while ((handle = find_alloced_obj(class, zsp, zpdesc, pos, &idx))) {
		handle_move_obj(handle,
				obj_encode(newzpdesc, idx, class->class_idx));
		idx++;
	}

	moved = zpdesc_move(newzpdesc, zpdesc);
	zspage_replace_zpdesc(zsp, moved, zpdesc);
	__zpdesc_set_movable(moved, &zsmod_mops);
	release_claim(class);

	spin_unlock(&class->lock);
	atomic_long_inc(&pool->counters.pages_migrated);
	trace_zsmod_migrate(pool, class, pfn, zpdesc_pfn(moved), ZSMOD_MIGRATE_MOVED);
	return MIGRATEPAGE_SUCCESS;
}

/**
 * zsmod_zpdesc_putback() - movable op: an isolated page was not migrated
 * @zpdesc: the page, locked
 *
 * Nothing to undo; the pool counts the aborted migration.
 */
static void zsmod_zpdesc_putback(struct zpdesc *zpdesc)
{
	struct zsmod_zspage *zsp = zpdesc_zspage(zpdesc);
	unsigned long pfn = zpdesc_pfn(zpdesc);
	struct zsmod_pool *pool;

	VM_WARN_ON_ONCE(!zpdesc_is_isolated(zpdesc));
	if (!zsp)
		return;
	pool = zsp->pool;
	atomic_long_inc(&pool->counters.migrate_aborted);
	trace_zsmod_migrate(pool, zspage_class(pool, zsp), pfn, 0, ZSMOD_MIGRATE_PUTBACK);
}

DEFINE_ZPDESC_MOVABLE_OPS(zsmod_mops, zsmod_zpdesc_isolate,
			  zsmod_zpdesc_migrate, zsmod_zpdesc_putback);
#endif /* CONFIG_COMPACTION */

/* ---- statistics ------------------------------------------------------ */

/**
 * zsmod_get_total_pages() - pages currently used by a pool
 * @pool: the pool
 *
 * Cheap enough for every zswap store: it does not run queued frees, so
 * their pages count until their batch runs (at most
 * ZSMOD_FREE_DRAIN_DELAY after the free).
 *
 * Return: the number of pages backing the pool's zspages.
 */
unsigned long zsmod_get_total_pages(struct zsmod_pool *pool)
{
	return atomic_long_read(&pool->pages_allocated);
}
EXPORT_SYMBOL_GPL(zsmod_get_total_pages);

/**
 * zsmod_pool_stats() - read a pool's counters
 * @pool: the pool
 * @stats: filled in with a snapshot
 *
 * Runs the frees queued on every CPU first, so that the counters show
 * every zsmod_free() that returned before.
 */
void zsmod_pool_stats(struct zsmod_pool *pool, struct zsmod_pool_stats *stats)
{
	unsigned long queued = flush_queued_frees(pool, NULL, NULL);
	unsigned int i;

	memset(stats, 0, sizeof(*stats));
	stats->frees_queued = queued;
	for (i = 0; i < pool->nr_classes; i++) {
		struct zsmod_size_class *class = pool->classes[i];

		spin_lock(&class->lock);
		stats->objs_allocated += class->stat[CLASS_OBJS_ALLOCATED];
		stats->objs_used += class->stat[CLASS_OBJS_INUSE];
		stats->handles_used += class->handles_used;
		stats->handle_blocks += class->nr_handle_blocks;
		spin_unlock(&class->lock);
	}
	stats->handle_bytes = stats->handle_blocks * ZSMOD_HANDLE_BLOCK_SIZE;
	stats->pages_used = zsmod_get_total_pages(pool);
	stats->pages_compacted =
		atomic_long_read(&pool->counters.pages_compacted);
	stats->compactions = atomic_long_read(&pool->counters.compactions);
	stats->pages_migrated = atomic_long_read(&pool->counters.pages_migrated);
	stats->migrate_aborted =
		atomic_long_read(&pool->counters.migrate_aborted);
	stats->deferred_frees = atomic_long_read(&pool->counters.deferred_frees);
}
EXPORT_SYMBOL_GPL(zsmod_pool_stats);

/**
 * zsmod_max_alloc_size() - the largest size zsmod_malloc() accepts
 *
 * Return: the size in bytes (PAGE_SIZE).
 */
size_t zsmod_max_alloc_size(void)
{
	return ZSMOD_MAX_ALLOC_SIZE;
}
EXPORT_SYMBOL_GPL(zsmod_max_alloc_size);

/**
 * zsmod_huge_class_size() - the size from which objects get a page each
 * @pool: the pool
 *
 * Return: the smallest object size stored in a one-object-per-page class.
 */
size_t zsmod_huge_class_size(struct zsmod_pool *pool)
{
	return pool->huge_class_size;
}
EXPORT_SYMBOL_GPL(zsmod_huge_class_size);

/**
 * zsmod_class_count() - number of distinct size classes of a pool
 * @pool: the pool
 *
 * Return: the count; valid indexes for zsmod_class_info() are below it.
 */
unsigned int zsmod_class_count(struct zsmod_pool *pool)
{
	return pool->nr_classes;
}
EXPORT_SYMBOL_GPL(zsmod_class_count);

/**
 * zsmod_class_info() - geometry and counters of one size class
 * @pool: the pool
 * @index: 0 to zsmod_class_count() - 1, smallest class first
 * @info: filled in
 *
 * Runs the class's queued frees first, as zsmod_pool_stats() does.
 *
 * Return: 0, or -EINVAL for an index out of range.
 */
int zsmod_class_info(struct zsmod_pool *pool, unsigned int index,
		     struct zsmod_class_info *info)
{
	struct zsmod_size_class *class;
	int fg;

	if (index >= pool->nr_classes)
		return -EINVAL;
	class = pool->classes[index];
	memset(info, 0, sizeof(*info));
	info->size = class->size;
	info->class_idx = class->class_idx;
	info->pages_per_zspage = class->pages_per_zspage;
	info->objs_per_zspage = class->objs_per_zspage;
	info->huge = class->huge;
	info->min_size = class->min_user_size;
	info->max_size = min_t(unsigned int, ZSMOD_MAX_ALLOC_SIZE,
			       class->size - ZSMOD_HANDLE_SIZE);
	if (index == pool->nr_classes - 1)
		info->max_size = ZSMOD_MAX_ALLOC_SIZE;

	flush_queued_frees(pool, class, NULL);
	spin_lock(&class->lock);
	info->objs_allocated = class->stat[CLASS_OBJS_ALLOCATED];
	info->objs_used = class->stat[CLASS_OBJS_INUSE];
	info->borrow_waste = atomic_long_read(&class->borrow_waste);
	for (fg = 0; fg < NR_FULLNESS_GROUPS; fg++)
		info->zspages += class->stat[fg];
	spin_unlock(&class->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(zsmod_class_info);

/**
 * zsmod_handle_location() - where an object lives now
 * @pool: the pool
 * @handle: the object's handle
 * @pfn: the pfn of the page in which the object starts
 * @obj_idx: the object's index within its zspage
 *
 * Meant for tests, which check that migration moves objects.
 *
 * Return: 0, or -EINVAL for an invalid handle.
 */
int zsmod_handle_location(struct zsmod_pool *pool, unsigned long handle,
			  unsigned long *pfn, unsigned int *obj_idx)
{
	struct zsmod_size_class *class;
	unsigned long obj;
	bool live;

	class = handle_class(pool, handle);
	if (!class)
		return -EINVAL;
	spin_lock(&class->lock);
	live = handle_live_locked(pool, class, handle, &obj);
	spin_unlock(&class->lock);
	if (!live)
		return -EINVAL;
	*pfn = obj_pfn(obj);
	*obj_idx = obj_index(obj);
	return 0;
}
EXPORT_SYMBOL_GPL(zsmod_handle_location);

/**
 * zsmod_handle_zspage_pfns() - the pages of the zspage holding an object
 * @pool: the pool
 * @handle: the object's handle
 * @pfns: filled with the pfns of the zspage's pages, in chain order
 * @max_pfns: room in @pfns
 *
 * Meant for tests that migrate a chosen zspage with alloc_contig_range().
 *
 * Return: the number of pages, -EINVAL for an invalid handle, -E2BIG if
 * @pfns is too small.
 */
int zsmod_handle_zspage_pfns(struct zsmod_pool *pool, unsigned long handle,
			     unsigned long *pfns, unsigned int max_pfns)
{
	struct zsmod_size_class *class;
	struct zpdesc *zpdesc;
	struct zsmod_zspage *zsp;
	unsigned long obj;
	int n = 0;

	class = handle_class(pool, handle);
	if (!class)
		return -EINVAL;
	spin_lock(&class->lock);
	if (!handle_live_locked(pool, class, handle, &obj)) {
		spin_unlock(&class->lock);
		return -EINVAL;
	}
	zsp = zpdesc_zspage(obj_zpdesc(obj));
	if (class->pages_per_zspage > max_pfns) {
		spin_unlock(&class->lock);
		return -E2BIG;
	}
	for (zpdesc = zsp->first_zpdesc; zpdesc;
	     zpdesc = zspage_next(zsp, zpdesc))
		pfns[n++] = zpdesc_pfn(zpdesc);
	spin_unlock(&class->lock);
	return n;
}
EXPORT_SYMBOL_GPL(zsmod_handle_zspage_pfns);

/* ---- debugfs --------------------------------------------------------- */

/**
 * zsmod_classes_show() - debugfs: per-class statistics
 * @s: the seq_file, whose private data is the pool
 * @v: unused
 *
 * The columns are those of zsmalloc's classes file, so that existing
 * tools parse both.
 *
 * Return: 0.
 */
static int zsmod_classes_show(struct seq_file *s, void *v)
{
	struct zsmod_pool *pool = s->private;
	unsigned long totals[NR_CLASS_STATS] = { 0 };
	unsigned long total_pages = 0, total_freeable = 0;
	unsigned int i;
	int fg;

	flush_queued_frees(pool, NULL, NULL);
	seq_printf(s, " %5s %5s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %13s %10s %10s %16s %8s\n",
		   "class", "size", "10%", "20%", "30%", "40%", "50%", "60%",
		   "70%", "80%", "90%", "99%", "100%", "obj_allocated",
		   "obj_used", "pages_used", "pages_per_zspage", "freeable");

	for (i = 0; i < pool->nr_classes; i++) {
		struct zsmod_size_class *class = pool->classes[i];
		unsigned long stat[NR_CLASS_STATS], pages, freeable;

		spin_lock(&class->lock);
		memcpy(stat, class->stat, sizeof(stat));
		freeable = class_compactable_pages(class, 0);
		spin_unlock(&class->lock);

		pages = stat[CLASS_OBJS_ALLOCATED] / class->objs_per_zspage *
			class->pages_per_zspage;
		seq_printf(s, " %5u %5u ", class->class_idx, class->size);
		for (fg = ZS_INUSE_RATIO_10; fg < NR_FULLNESS_GROUPS; fg++)
			seq_printf(s, "%9lu ", stat[fg]);
		seq_printf(s, "%13lu %10lu %10lu %16u %8lu\n",
			   stat[CLASS_OBJS_ALLOCATED], stat[CLASS_OBJS_INUSE],
			   pages, class->pages_per_zspage, freeable);

		for (fg = 0; fg < NR_CLASS_STATS; fg++)
			totals[fg] += stat[fg];
		total_pages += pages;
		total_freeable += freeable;
	}

	seq_puts(s, "\n");
	seq_printf(s, " %5s %5s ", "Total", "");
	for (fg = ZS_INUSE_RATIO_10; fg < NR_FULLNESS_GROUPS; fg++)
		seq_printf(s, "%9lu ", totals[fg]);
	seq_printf(s, "%13lu %10lu %10lu %16s %8lu\n",
		   totals[CLASS_OBJS_ALLOCATED], totals[CLASS_OBJS_INUSE],
		   total_pages, "", total_freeable);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zsmod_classes);

static int zsmod_stats_show(struct seq_file *s, void *v)
{
	struct zsmod_pool_stats st;

	zsmod_pool_stats(s->private, &st);
	seq_printf(s, "pages_used %lu\n", st.pages_used);
	seq_printf(s, "objs_allocated %lu\n", st.objs_allocated);
	seq_printf(s, "objs_used %lu\n", st.objs_used);
	seq_printf(s, "pages_compacted %lu\n", st.pages_compacted);
	seq_printf(s, "compactions %lu\n", st.compactions);
	seq_printf(s, "pages_migrated %lu\n", st.pages_migrated);
	seq_printf(s, "migrate_aborted %lu\n", st.migrate_aborted);
	seq_printf(s, "deferred_frees %lu\n", st.deferred_frees);
	seq_printf(s, "handles_used %lu\n", st.handles_used);
	seq_printf(s, "handle_blocks %lu\n", st.handle_blocks);
	seq_printf(s, "handle_bytes %lu\n", st.handle_bytes);
	seq_printf(s, "frees_queued %lu\n", st.frees_queued);
	seq_printf(s, "zpdesc %s\n", ZPDESC_MODE);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zsmod_stats);

/**
 * zsmod_compact_write() - debugfs: writing "1" compacts the pool
 * @file: the compact file
 * @ubuf: user buffer
 * @count: its length
 * @ppos: file position (unused)
 *
 * Return: @count, or -EINVAL for anything but "1".
 */
static ssize_t zsmod_compact_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct zsmod_pool *pool = file_inode(file)->i_private;
	unsigned int val;
	int ret;

	/* the parser would read only the first 34 bytes of longer input */
	if (count > 16)
		return -EINVAL;
	ret = kstrtouint_from_user(ubuf, count, 10, &val);
	if (ret == -EFAULT)
		return ret;
	/* a number too large for the parser is just another wrong value */
	if (ret || val != 1)
		return -EINVAL;
	zsmod_compact(pool);
	return count;
}

static const struct file_operations zsmod_compact_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = zsmod_compact_write,
	.llseek = noop_llseek,
};

static void zsmod_debugfs_create(struct zsmod_pool *pool)
{
	char name[64];
	struct dentry *dir;

	if (IS_ERR_OR_NULL(zsmod_debugfs_root))
		return;
	dir = debugfs_create_dir(pool->name, zsmod_debugfs_root);
	if (IS_ERR(dir)) {
		/* two pools with one name: keep both visible */
		snprintf(name, sizeof(name), "%s-%d", pool->name,
			 atomic_inc_return(&zsmod_pool_seq));
		dir = debugfs_create_dir(name, zsmod_debugfs_root);
	}
	if (IS_ERR(dir))
		return;
	pool->debugfs_dir = dir;
	debugfs_create_file("classes", 0400, dir, pool, &zsmod_classes_fops);
	debugfs_create_file("stats", 0400, dir, pool, &zsmod_stats_fops);
	debugfs_create_file("compact", 0200, dir, pool, &zsmod_compact_fops);
}

/* ---- pools ----------------------------------------------------------- */

/**
 * zspage_chain_pages() - pages per zspage for a class size
 * @size: the class's object size
 *
 * Picks the chain length, up to ZSMOD_MAX_PAGES_PER_ZSPAGE, that wastes
 * the fewest bytes per page; ties go to the shorter chain.
 *
 * Return: the number of pages.
 */
static unsigned int zspage_chain_pages(unsigned int size)
{
	unsigned int n, best = 1;
	unsigned long best_waste = PAGE_SIZE % size;

	for (n = 2; n <= ZSMOD_MAX_PAGES_PER_ZSPAGE; n++) {
		unsigned long waste = (n * PAGE_SIZE) % size;

		if (waste * best < best_waste * n) {
			best = n;
			best_waste = waste;
		}
	}
	return best;
}

/**
 * zsmod_create_classes() - build a pool's size classes
 * @pool: the pool
 *
 * One class per 16-byte step from 32 bytes to PAGE_SIZE; neighbours with
 * identical pages-per-zspage and objects-per-zspage share the largest
 * one's class.
 *
 * Return: 0, or -ENOMEM.
 */
static int zsmod_create_classes(struct zsmod_pool *pool)
{
	struct zsmod_size_class *prev = NULL;
	int idx;

	/* from the largest down, so a merged class takes the largest size */
	for (idx = ZSMOD_NR_CLASSES - 1; idx >= 0; idx--) {
		unsigned int size = min(ZSMOD_MIN_ALLOC_SIZE +
					idx * ZSMOD_CLASS_DELTA,
					ZSMOD_MAX_ALLOC_SIZE);
		unsigned int pages = zspage_chain_pages(size);
		unsigned int objs = pages * PAGE_SIZE / size;
		struct zsmod_size_class *class;
		int fg;

		if (prev && prev->pages_per_zspage == pages &&
		    prev->objs_per_zspage == objs) {
			pool->size_class[idx] = prev;
			continue;
		}
		class = kzalloc(sizeof(*class), GFP_KERNEL);
		if (!class)
			return -ENOMEM;
		spin_lock_init(&class->lock);
		INIT_LIST_HEAD(&class->handle_blocks);
		for (fg = 0; fg < NR_FULLNESS_GROUPS; fg++)
			INIT_LIST_HEAD(&class->fullness_list[fg]);
		class->size = size;
		class->class_idx = idx;
		class->pages_per_zspage = pages;
		class->objs_per_zspage = objs;
		class->huge = pages == 1 && objs == 1;
		class->hdr_size = class->huge ? 0 : ZSMOD_HANDLE_SIZE;
		class->last_whole_off = PAGE_SIZE - size;
		pool->size_class[idx] = class;
		prev = class;
	}

	for (idx = 0; idx < ARRAY_SIZE(pool->obj_class); idx++)
		pool->obj_class[idx] = &zsmod_no_class;

	/* distinct classes, smallest first; their user size ranges */
	pool->nr_classes = 0;
	for (idx = 0; idx < ZSMOD_NR_CLASSES; idx++) {
		struct zsmod_size_class *class = pool->size_class[idx];

		if (class->class_idx != idx)
			continue;
		if (pool->nr_classes) {
			struct zsmod_size_class *below =
				pool->classes[pool->nr_classes - 1];

			class->min_user_size = below->size -
					       ZSMOD_HANDLE_SIZE + 1;
		} else {
			class->min_user_size = 1;
		}
		if (class->huge && !pool->huge_class_size)
			pool->huge_class_size = class->min_user_size;
		class->pos = pool->nr_classes;
		pool->classes[pool->nr_classes++] = class;
		pool->obj_class[idx] = class;
	}
	return 0;
}

/**
 * alloc_free_batches() - allocate a pool's per-CPU free queues
 * @pool: the pool, its classes built
 *
 * About 16 KiB per CPU with 4 KiB pages (119 classes).
 *
 * Return: 0, or -ENOMEM.
 */
static int alloc_free_batches(struct zsmod_pool *pool)
{
	unsigned int cpu;

	pool->free_batch = __alloc_percpu(struct_size(pool->free_batch, class,
						      pool->nr_classes),
					  __alignof__(struct zsmod_free_batch));
	if (!pool->free_batch || !zalloc_cpumask_var(&pool->queued_cpus,
						     GFP_KERNEL))
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct zsmod_free_batch *fb = per_cpu_ptr(pool->free_batch, cpu);

		spin_lock_init(&fb->lock);
		fb->cpu = cpu;
	}
	return 0;
}

/**
 * zsmod_create_pool() - create a pool
 * @name: name of its debugfs directory (zsmalloc_mod/<name>)
 *
 * Context: process context; may sleep.
 * Return: the pool, or NULL when memory ran out.
 */
struct zsmod_pool *zsmod_create_pool(const char *name)
{
	struct zsmod_pool *pool;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return NULL;
	INIT_WORK(&pool->free_work, deferred_free_work_fn);
	INIT_DELAYED_WORK(&pool->compact_work, auto_compact_work_fn);
	INIT_DELAYED_WORK(&pool->drain_work, drain_work_fn);
	pool->name = kstrdup(name ? name : "unnamed", GFP_KERNEL);
	if (!pool->name || zsmod_create_classes(pool) ||
	    alloc_free_batches(pool))
		goto err;

	/* Without a shrinker the pool still works; compaction is explicit. */
	pool->shrinker = shrinker_alloc(0, "zsmalloc_mod-%s", pool->name);
	if (pool->shrinker) {
		pool->shrinker->count_objects = zsmod_shrinker_count;
		pool->shrinker->scan_objects = zsmod_shrinker_scan;
		pool->shrinker->private_data = pool;
		pool->shrinker->batch = 0;
		shrinker_register(pool->shrinker);
	}
	zsmod_debugfs_create(pool);
	return pool;

err:
	zsmod_destroy_pool(pool);
	return NULL;
}
EXPORT_SYMBOL_GPL(zsmod_create_pool);

/**
 * drain_zspage() - free every object a pool's user left in a zspage
 * @class: the zspage's class, whose lock is held
 * @zsp: the zspage
 *
 * Return: the number of objects freed.
 */
static unsigned long drain_zspage(struct zsmod_size_class *class,
				  struct zsmod_zspage *zsp)
{
	struct zpdesc *zpdesc = zsp->first_zpdesc;
	unsigned long handle, freed = 0;
	unsigned int pos, idx;

	for (pos = 0; zpdesc; zpdesc = zspage_next(zsp, zpdesc), pos++) {
		idx = 0;
		while ((handle = find_alloced_obj(class, zsp, zpdesc, pos,
						  &idx))) {
			/*
			 * Free the slot, not just the handle: a page of the
			 * zspage may be isolated, and the migration core's
			 * migrate call, once we drop the lock, must find no
			 * object whose handle it would rewrite.
			 */
			obj_free(class, obj_encode(zpdesc, idx,
						   class->class_idx));
			handle_block_free(class_put_handle(class, handle));
			freed++;
			idx++;
		}
	}
	return freed;
}

/**
 * drain_class() - free what a pool's user left in a class
 * @pool: the pool being destroyed
 * @class: the class
 *
 * So that destroying a pool returns every page, even after a leak.
 *
 * Return: the number of objects that were still allocated.
 */
static unsigned long drain_class(struct zsmod_pool *pool,
				 struct zsmod_size_class *class)
{
	unsigned long leaked = 0;
	int fg;

	spin_lock(&class->lock);
	for (fg = ZS_INUSE_RATIO_10; fg < NR_FULLNESS_GROUPS; fg++) {
		struct list_head *list = &class->fullness_list[fg];
		struct zsmod_zspage *zsp;

		while ((zsp = list_first_entry_or_null(list, struct zsmod_zspage,
						       list))) {
			leaked += drain_zspage(class, zsp);
			/*
			 * A slot header a caller overwrote hides its object
			 * from the walk: count the zspage empty anyway, or
			 * it would stay first on this list for good.
			 */
			if (WARN_ON_ONCE(zsp->inuse)) {
				class->stat[CLASS_OBJS_INUSE] -= zsp->inuse;
				zsp->inuse = 0;
			}
			fix_fullness(class, zsp);
			if (free_zspage(pool, class, zsp))
				release_zspage(zsp);
		}
	}
	spin_unlock(&class->lock);
	return leaked;
}

/**
 * zsmod_destroy_pool() - destroy a pool and return all its pages
 * @pool: the pool; NULL is ignored
 *
 * Objects still allocated are freed with a warning in the log.
 *
 * Context: process context; may sleep.
 */
void zsmod_destroy_pool(struct zsmod_pool *pool)
{
	unsigned long leaked = 0;
	unsigned int i;
	int idx;

	if (!pool)
		return;
	/*
	 * Whatever runs queued frees may arm the compaction worker: first
	 * wait for the debugfs files and the shrinker, which do, and disable
	 * the workers for good rather than cancel them.
	 */
	debugfs_remove_recursive(pool->debugfs_dir);
	shrinker_free(pool->shrinker);
	disable_delayed_work_sync(&pool->drain_work);
	/* no more frees come: run the queued ones, which may want compaction */
	if (pool->free_batch && cpumask_available(pool->queued_cpus))
		flush_queued_frees(pool, NULL, NULL);
	disable_delayed_work_sync(&pool->compact_work);
	flush_work(&pool->free_work);

	for (i = 0; i < pool->nr_classes; i++)
		leaked += drain_class(pool, pool->classes[i]);
	flush_work(&pool->free_work);
	if (leaked)
		pr_warn("pool %s destroyed with %lu live objects\n",
			pool->name, leaked);
	WARN_ON_ONCE(atomic_long_read(&pool->pages_allocated));

	/*
	 * Upwards: merged indexes point to the class of the largest of them,
	 * so it is freed only after the smaller ones have been looked at.
	 */
	for (idx = 0; idx < ZSMOD_NR_CLASSES; idx++) {
		struct zsmod_size_class *class = pool->size_class[idx];

		if (class && class->class_idx == idx) {
			free_handle_blocks(class);
			kfree(class);
		}
	}
	free_percpu(pool->free_batch);
	free_cpumask_var(pool->queued_cpus);
	kfree(pool->name);
	kfree(pool);
}
EXPORT_SYMBOL_GPL(zsmod_destroy_pool);

/* ---- zpool driver ---------------------------------------------------- */

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * The pools zpool's callers own, so that a test storing through zswap can
 * read and compact them (zsmod_kunit_zpool_for_each()). The mutex is taken
 * before any lock of the pools on the list.
 */
static LIST_HEAD(zsmod_zpools);
static DEFINE_MUTEX(zsmod_zpools_lock);

static void zsmod_zpools_add(struct zsmod_pool *pool)
{
	mutex_lock(&zsmod_zpools_lock);
	list_add_tail(&pool->zpool_node, &zsmod_zpools);
	mutex_unlock(&zsmod_zpools_lock);
}

static void zsmod_zpools_del(struct zsmod_pool *pool)
{
	mutex_lock(&zsmod_zpools_lock);
	list_del(&pool->zpool_node);
	mutex_unlock(&zsmod_zpools_lock);
}
#else
static inline void zsmod_zpools_add(struct zsmod_pool *pool) { }
static inline void zsmod_zpools_del(struct zsmod_pool *pool) { }
#endif

static void *zsmod_zpool_create(const char *name, gfp_t gfp)
{
	struct zsmod_pool *pool = zsmod_create_pool(name);

	if (pool)
		zsmod_zpools_add(pool);
	return pool;
}

static void zsmod_zpool_destroy(void *pool)
{
	zsmod_zpools_del(pool);
	zsmod_destroy_pool(pool);
}

static int zsmod_zpool_malloc(void *pool, size_t size, gfp_t gfp,
			      unsigned long *handle)
{
	return pool_malloc(pool, size, gfp, handle);
}

static void zsmod_zpool_free(void *pool, unsigned long handle)
{
	pool_free(pool, handle);
}

static void *zsmod_zpool_map(void *pool, unsigned long handle,
			     enum zpool_mapmode zpool_mm)
{
	enum zsmod_mapmode mm;

	switch (zpool_mm) {
	case ZPOOL_MM_RO:
		mm = ZSMOD_MM_RO;
		break;
	case ZPOOL_MM_WO:
		mm = ZSMOD_MM_WO;
		break;
	default:
		mm = ZSMOD_MM_RW;
		break;
	}
	return pool_map(pool, handle, mm);
}

static void zsmod_zpool_unmap(void *pool, unsigned long handle)
{
	pool_unmap(pool, handle);
}

static u64 zsmod_zpool_total_pages(void *pool)
{
	return zsmod_get_total_pages(pool);
}

static struct zpool_driver zsmod_zpool_driver = {
	.type = "zsmalloc_mod",
	.owner = THIS_MODULE,
	.create = zsmod_zpool_create,
	.destroy = zsmod_zpool_destroy,
	.malloc_support_movable = true,
	.malloc = zsmod_zpool_malloc,
	.free = zsmod_zpool_free,
	.sleep_mapped = false,
	.map = zsmod_zpool_map,
	.unmap = zsmod_zpool_unmap,
	.total_pages = zsmod_zpool_total_pages,
};

/* ---- KUnit hooks ------------------------------------------------------ */

/*
 * What the KUnit suites need to look at and nothing else may: exported
 * only by kernels built with KUnit, only to modules that import
 * EXPORTED_FOR_KUNIT_TESTING.
 */
#if IS_ENABLED(CONFIG_KUNIT)
/**
 * zsmod_pool_shrinker() - a pool's shrinker, for the KUnit tests
 * @pool: the pool
 *
 * Exported only to modules that import EXPORTED_FOR_KUNIT_TESTING, and
 * only by kernels built with KUnit.
 *
 * Return: the shrinker, or NULL if the pool has none.
 */
struct shrinker *zsmod_pool_shrinker(struct zsmod_pool *pool)
{
	return pool->shrinker;
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_pool_shrinker);

/**
 * zsmod_kunit_obj_encode() - encode an object location, for the KUnit tests
 * @pfn: pfn of the object's first page
 * @idx: the object's index in its zspage
 * @class_idx: its class index
 *
 * Return: the location as a handle stores it.
 */
unsigned long zsmod_kunit_obj_encode(unsigned long pfn, unsigned int idx,
				     unsigned int class_idx)
{
	return obj_encode_pfn(pfn, idx, class_idx);
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_obj_encode);

/**
 * zsmod_kunit_obj_decode() - decode an object location, for the KUnit tests
 * @obj: the location
 * @pfn: set to the pfn of the object's first page
 * @idx: set to the object's index in its zspage
 * @class_idx: set to its class index
 *
 * Return: true if @obj names a class (not a free handle slot's word, nor
 * a location whose free is queued).
 */
bool zsmod_kunit_obj_decode(unsigned long obj, unsigned long *pfn,
			    unsigned int *idx, unsigned int *class_idx)
{
	*pfn = obj_pfn(obj);
	*idx = obj_index(obj);
	*class_idx = obj_class_idx(obj);
	return *class_idx < ZSMOD_NR_CLASSES;
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_obj_decode);

/**
 * zsmod_kunit_pin_word() - what a map area's pin holds for a location
 * @obj: the location
 *
 * Return: the pin; 0 means "no pin".
 */
unsigned long zsmod_kunit_pin_word(unsigned long obj)
{
	return pin_word(obj);
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_pin_word);

/**
 * zsmod_kunit_pinned_obj() - the location a pin names
 * @pin: the pin
 *
 * Return: the location.
 */
unsigned long zsmod_kunit_pinned_obj(unsigned long pin)
{
	return pinned_obj(pin);
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_pinned_obj);

/**
 * zsmod_kunit_map_owner() - set the owner of this CPU's map area
 * @owner: the task to record; a test stands in for a second task that
 *	finds the area taken (PREEMPT_RT) by recording another task
 *
 * Context: the caller holds this CPU's mapping.
 * Return: the owner recorded before.
 */
struct task_struct *zsmod_kunit_map_owner(struct task_struct *owner)
{
	struct task_struct *old = this_cpu_read(zsmod_map_area.owner);

	this_cpu_write(zsmod_map_area.owner, owner);
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_map_owner);

/**
 * zsmod_kunit_map_pin() - the pin of this CPU's map area
 *
 * Return: the pin word (see zsmod_kunit_pin_word()), 0 when unpinned.
 */
unsigned long zsmod_kunit_map_pin(void)
{
	return this_cpu_read(zsmod_map_area.obj);
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_map_pin);

/**
 * zsmod_kunit_frees_queued() - frees queued on one CPU, left queued
 * @pool: the pool
 * @cpu: the CPU, online or not
 *
 * Return: how many of @pool's frees made on @cpu have not run yet.
 */
unsigned int zsmod_kunit_frees_queued(struct zsmod_pool *pool,
				      unsigned int cpu)
{
	struct zsmod_free_batch *fb = per_cpu_ptr(pool->free_batch, cpu);
	unsigned int queued;

	spin_lock(&fb->lock);
	queued = fb->queued;
	spin_unlock(&fb->lock);
	return queued;
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_frees_queued);

/**
 * zsmod_kunit_hold_drain() - keep the pool's drain worker from running
 * @pool: the pool
 * @hold: true to hold it (waits for a run in progress), false to let it
 *	go again; it then runs at once if frees are queued
 *
 * With the worker held, queued frees stay queued until a reader of the
 * pool (a malloc that finds no room, compaction, the shrinker, stats) or
 * the release runs them, so a test can, say, take their CPU offline first.
 */
void zsmod_kunit_hold_drain(struct zsmod_pool *pool, bool hold)
{
	if (hold) {
		disable_delayed_work_sync(&pool->drain_work);
		return;
	}
	enable_delayed_work(&pool->drain_work);
	if (!cpumask_empty(pool->queued_cpus))
		mod_delayed_work(system_wq, &pool->drain_work, 0);
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_hold_drain);

/**
 * zsmod_kunit_param() - the variable behind a bool module parameter
 * @name: "shrinker_enabled" or "auto_compact"
 *
 * Built-in tests run before user space mounts sysfs, so a test switches
 * the module's knobs here rather than in /sys/module/zsmalloc_mod/.
 *
 * Return: the parameter's variable, or NULL if @name is none of ours.
 */
bool *zsmod_kunit_param(const char *name)
{
	if (!strcmp(name, "shrinker_enabled"))
		return &shrinker_enabled;
	if (!strcmp(name, "auto_compact"))
		return &auto_compact;
	if (!strcmp(name, "kunit_lock_busy"))
		return &kunit_lock_busy;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_param);

/**
 * zsmod_kunit_zpool_for_each() - call a function on each zpool-owned pool
 * @fn: called with each pool created through the zpool driver and not yet
 *	destroyed; it may sleep, and the pool stays alive while it runs
 * @arg: passed to @fn
 *
 * zswap keeps its pools to itself: a test that stores through zswap reads
 * their counters and compacts them through this.
 */
void zsmod_kunit_zpool_for_each(void (*fn)(struct zsmod_pool *pool, void *arg),
				void *arg)
{
	struct zsmod_pool *pool;

	mutex_lock(&zsmod_zpools_lock);
	list_for_each_entry(pool, &zsmod_zpools, zpool_node)
		fn(pool, arg);
	mutex_unlock(&zsmod_zpools_lock);
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_zpool_for_each);

/**
 * zsmod_kunit_malloc_gap_hook() - run a function in zsmod_malloc()'s lock gaps
 * @fn: called in each gap that the calling task's zsmod_malloc() calls
 *	reach, with no lock of the module held; it may free, compact and
 *	sleep, but not allocate from the pool; NULL to stop
 * @data: its first argument
 *
 * Only for the calling task, so that other tasks using the module (zswap)
 * never run it; it runs in the caller's context, direct reclaim included,
 * so a test using it must not swap through the module. One task at a time.
 */
void zsmod_kunit_malloc_gap_hook(void (*fn)(void *data, enum zsmod_malloc_gap gap),
				 void *data)
{
	WRITE_ONCE(kunit_gap.task, NULL);
	kunit_gap.fn = fn;
	kunit_gap.data = data;
	if (fn)
		WRITE_ONCE(kunit_gap.task, current);
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_malloc_gap_hook);

/**
 * zsmod_kunit_probe_malloc_fail() - attach a probe to zsmod_malloc_fail
 * @probe: the probe
 * @data: its first argument
 * @attach: attach it; else detach it and wait until no CPU runs it
 *
 * Return: 0, or the tracepoint's error (-ENOSYS without tracepoints).
 */
int zsmod_kunit_probe_malloc_fail(void (*probe)(void *data, struct zsmod_pool *pool,
						size_t size, gfp_t gfp, int reason),
				  void *data, bool attach)
{
	int ret;

	if (attach)
		return register_trace_zsmod_malloc_fail(probe, data);
	ret = unregister_trace_zsmod_malloc_fail(probe, data);
	tracepoint_synchronize_unregister();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(zsmod_kunit_probe_malloc_fail);
#endif

/* ---- CPU hotplug: the per-CPU copy buffers ---------------------------- */

static int zsmod_cpu_prepare(unsigned int cpu)
{
	struct zsmod_map_area *area = per_cpu_ptr(&zsmod_map_area, cpu);

	area->buf = kmalloc_node(PAGE_SIZE, GFP_KERNEL, cpu_to_node(cpu));
	return area->buf ? 0 : -ENOMEM;
}

static int zsmod_cpu_dead(unsigned int cpu)
{
	struct zsmod_map_area *area = per_cpu_ptr(&zsmod_map_area, cpu);

	kfree(area->buf);
	area->buf = NULL;
	return 0;
}

/* ---- module ------------------------------------------------------------ */

static int __init zsmod_init(void)
{
	int ret;

	/* aligned to their size: a handle finds its block by masking */
	zsmod_handle_block_cache = kmem_cache_create("zsmod_handle_block",
						     ZSMOD_HANDLE_BLOCK_SIZE,
						     ZSMOD_HANDLE_BLOCK_SIZE,
						     0, NULL);
	zsmod_zspage_cache = kmem_cache_create("zsmod_zspage",
					       sizeof(struct zsmod_zspage), 0, 0,
					       NULL);
	if (!zsmod_handle_block_cache || !zsmod_zspage_cache) {
		ret = -ENOMEM;
		goto err_caches;
	}
	ret = zpdesc_cache_create();
	if (ret)
		goto err_caches;

	/* The static CPUHP_MM_ZS_PREPARE belongs to the built-in zsmalloc. */
	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "mm/zsmalloc_mod:prepare",
				zsmod_cpu_prepare, zsmod_cpu_dead);
	if (ret < 0)
		goto err_zpdesc;
	zsmod_cpuhp_state = ret;

	zsmod_debugfs_root = debugfs_create_dir("zsmalloc_mod", NULL);
	zpool_register_driver(&zsmod_zpool_driver);
	return 0;

err_zpdesc:
	zpdesc_cache_destroy();
err_caches:
	kmem_cache_destroy(zsmod_zspage_cache);
	kmem_cache_destroy(zsmod_handle_block_cache);
	return ret;
}

static void __exit zsmod_exit(void)
{
	/*
	 * zpool holds a module reference per pool, so no pool can exist
	 * here; should zpool still count one, returning would leave our
	 * driver on its list with our code gone: wait until it lets go.
	 */
	while (zpool_unregister_driver(&zsmod_zpool_driver)) {
		pr_warn_once("zpool still holds the driver; waiting\n");
		msleep(100);
	}
	debugfs_remove_recursive(zsmod_debugfs_root);
	cpuhp_remove_state(zsmod_cpuhp_state);
	zpdesc_cache_destroy();
	kmem_cache_destroy(zsmod_zspage_cache);
	kmem_cache_destroy(zsmod_handle_block_cache);
}

module_init(zsmod_init);
module_exit(zsmod_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("zsmalloc_mod developers");
MODULE_DESCRIPTION("zsmalloc on the zpdesc memory descriptor, as a zpool backend for zswap");
MODULE_ALIAS("zpool-zsmalloc_mod");
MODULE_INFO(zpdesc, ZPDESC_MODE);	/* how a zpdesc is represented */
#ifdef ZSMOD_VERSION
MODULE_VERSION(ZSMOD_VERSION);	/* debian/changelog's, passed by Kbuild */
#endif
