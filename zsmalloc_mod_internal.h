/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zsmalloc_mod's geometry and policy constants: private to the module,
 * included by zsmalloc_mod.c and by the KUnit suites, read by
 * bench/geometry.py. The one place each of them is defined.
 */
#ifndef _ZSMALLOC_MOD_INTERNAL_H_
#define _ZSMALLOC_MOD_INTERNAL_H_

#include <linux/jiffies.h>
#include <linux/math.h>
#include <linux/mm.h>

/* ---- size classes ------------------------------------------------------ */

#define ZSMOD_HANDLE_SIZE	sizeof(unsigned long)
#define ZSMOD_MIN_ALLOC_SIZE	32U
#define ZSMOD_CLASS_DELTA	16U
#define ZSMOD_MAX_ALLOC_SIZE	((unsigned int)PAGE_SIZE)
#define ZSMOD_MAX_PAGES_PER_ZSPAGE	8U
#define ZSMOD_NR_CLASSES \
	(DIV_ROUND_UP(ZSMOD_MAX_ALLOC_SIZE - ZSMOD_MIN_ALLOC_SIZE, \
		      ZSMOD_CLASS_DELTA) + 1)
#define ZSMOD_MAX_OBJS_PER_ZSPAGE \
	(ZSMOD_MAX_PAGES_PER_ZSPAGE * PAGE_SIZE / ZSMOD_MIN_ALLOC_SIZE)

/* ---- borrowing a slot -------------------------------------------------- */

/*
 * Every class used has one partly filled zspage, and in a pool of a few
 * thousand objects those add up to several percent of its pages. So while
 * a class is small (fewer than ZSMOD_BORROW_ZSPAGES zspages), an object
 * that would open a new zspage takes a free slot of a class at most
 * ZSMOD_BORROW_BYTES larger instead. Its location names the class it is
 * in, so free and map need not know.
 */
#define ZSMOD_BORROW_ZSPAGES	4
#define ZSMOD_BORROW_BYTES	64

/*
 * A class that still has no zspage while the pool holds at least
 * ZSMOD_RARE_POOL_PAGES pages is a rare size: a zspage opened for it
 * (up to ZSMOD_MAX_PAGES_PER_ZSPAGE pages) would stay nearly empty. Its
 * objects take a free slot up to ZSMOD_RARE_BORROW_BYTES larger instead,
 * which wastes less than such a zspage as long as the class stays rare.
 *
 * In a large pool both stop paying once the bytes left unused in borrowed
 * slots add up to more than the zspage they spare: a class that kept
 * borrowing would never grow a zspage of its own, and its objects would
 * cost more than the one partly filled zspage it avoids. So once the pool
 * holds ZSMOD_BORROW_BUDGET_POOL_PAGES pages, a class borrows no more
 * after one zspage's worth of bytes (size_class->borrow_waste), a budget
 * that renews when the class has no zspage left. In smaller pools the
 * partly filled zspages weigh more than any rounding borrowing adds
 * (bench/geometry.sh), and borrowing has no limit.
 */
#define ZSMOD_RARE_POOL_PAGES	1024
#define ZSMOD_RARE_BORROW_BYTES	1024
#define ZSMOD_BORROW_BUDGET_POOL_PAGES	16384

/* ---- freeing in batches ------------------------------------------------ */

/*
 * Freeing in batches: a free marks its handle freed at once (OBJ_FREEING
 * in the location, so that map and a second free refuse it) and queues
 * it on its CPU, per class. Once a class has ZSMOD_FREE_BATCH queued there
 * they are freed together if the class lock is free; at
 * ZSMOD_FREE_BATCH_MAX the free waits for it. One lock round trip per
 * batch keeps the class's cache lines on one CPU for a while, and a CPU
 * that finds the lock taken goes on queueing instead of spinning. Queued
 * objects still hold their slots and pages, for at most
 * ZSMOD_FREE_DRAIN_DELAY: then a worker frees every queue of the pool, as
 * do compaction, the pool's statistics and destroy. A malloc that finds
 * its class full runs the class's queued frees before it grows the pool.
 */
#define ZSMOD_FREE_BATCH	8
#define ZSMOD_FREE_BATCH_MAX	16
#define ZSMOD_FREE_DRAIN_DELAY	(HZ / 10)

#endif /* _ZSMALLOC_MOD_INTERNAL_H_ */
