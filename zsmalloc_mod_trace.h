/* SPDX-License-Identifier: GPL-2.0 */
/*
 * zsmalloc_mod's tracepoints: events/zsmalloc_mod/ in tracefs. What each
 * event means and how to read it: Documentation/admin-guide.rst,
 * "Tracepoints". Only zsmalloc_mod.c includes this file, after the
 * structures its events read, with CREATE_TRACE_POINTS defined.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM zsmalloc_mod

#ifndef _ZSMALLOC_MOD_TRACE_TYPES_H_
#define _ZSMALLOC_MOD_TRACE_TYPES_H_
/* Why zsmod_malloc() failed: the reason of zsmod_malloc_fail. */
enum zsmod_malloc_fail_reason {
	ZSMOD_FAIL_TOO_LARGE,	/* above zsmod_max_alloc_size(): -ENOSPC */
	ZSMOD_FAIL_NO_HANDLE,	/* no memory for a block of handle slots */
	ZSMOD_FAIL_NO_ZSPAGE,	/* no memory for a new zspage */
};

/* What became of a page offered for migration: the result of zsmod_migrate. */
enum zsmod_migrate_result {
	ZSMOD_MIGRATE_MOVED,	/* moved to the new page */
	ZSMOD_MIGRATE_MAPPED,	/* refused: an object of its zspage is mapped */
	ZSMOD_MIGRATE_PUTBACK,	/* the migration core gave the page back */
};
#endif /* _ZSMALLOC_MOD_TRACE_TYPES_H_ */

#if !defined(_ZSMALLOC_MOD_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _ZSMALLOC_MOD_TRACE_H_

#include <linux/tracepoint.h>
#include <trace/events/mmflags.h>

TRACE_DEFINE_ENUM(ZSMOD_FAIL_TOO_LARGE);
TRACE_DEFINE_ENUM(ZSMOD_FAIL_NO_HANDLE);
TRACE_DEFINE_ENUM(ZSMOD_FAIL_NO_ZSPAGE);
TRACE_DEFINE_ENUM(ZSMOD_MIGRATE_MOVED);
TRACE_DEFINE_ENUM(ZSMOD_MIGRATE_MAPPED);
TRACE_DEFINE_ENUM(ZSMOD_MIGRATE_PUTBACK);

#define show_zsmod_fail_reason(r)					\
	__print_symbolic(r,						\
			 { ZSMOD_FAIL_TOO_LARGE, "too_large" },		\
			 { ZSMOD_FAIL_NO_HANDLE, "no_handle" },		\
			 { ZSMOD_FAIL_NO_ZSPAGE, "no_zspage" })

#define show_zsmod_migrate_result(r)					\
	__print_symbolic(r,						\
			 { ZSMOD_MIGRATE_MOVED, "moved" },		\
			 { ZSMOD_MIGRATE_MAPPED, "mapped" },		\
			 { ZSMOD_MIGRATE_PUTBACK, "putback" })

struct zsmod_pool;
struct zsmod_size_class;

/* One size class compacted, when it moved objects or freed pages. */
TRACE_EVENT_CONDITION(zsmod_compact_class,
		      TP_PROTO(struct zsmod_pool *pool, struct zsmod_size_class *class,
			       unsigned long pages_freed, unsigned long objs_moved,
			       u64 start_ns),
		      TP_ARGS(pool, class, pages_freed, objs_moved, start_ns),
		      TP_CONDITION(pages_freed || objs_moved),
		      TP_STRUCT__entry(__string(pool, pool->name)
				       __field(unsigned int, class_idx)
				       __field(unsigned int, size)
				       __field(unsigned long, pages_freed)
				       __field(unsigned long, objs_moved)
				       __field(u64, ns)),
		      TP_fast_assign(__assign_str(pool);
				     __entry->class_idx = class->class_idx;
				     __entry->size = class->size;
				     __entry->pages_freed = pages_freed;
				     __entry->objs_moved = objs_moved;
				     __entry->ns = ktime_get_ns() - start_ns;),
		      TP_printk("pool=%s class=%u size=%u pages_freed=%lu objs_moved=%lu ns=%llu",
				__get_str(pool), __entry->class_idx, __entry->size,
				__entry->pages_freed, __entry->objs_moved, __entry->ns)
);

/* A page of ours that the migration core wanted to move. */
TRACE_EVENT(zsmod_migrate,
	    TP_PROTO(struct zsmod_pool *pool, struct zsmod_size_class *class,
		     unsigned long pfn, unsigned long new_pfn, int result),
	    TP_ARGS(pool, class, pfn, new_pfn, result),
	    TP_STRUCT__entry(__string(pool, pool->name)
			     __field(unsigned int, class_idx)
			     __field(unsigned int, size)
			     __field(unsigned long, pfn)
			     __field(unsigned long, new_pfn)
			     __field(int, result)),
	    TP_fast_assign(__assign_str(pool);
			   __entry->class_idx = class->class_idx;
			   __entry->size = class->size;
			   __entry->pfn = pfn;
			   __entry->new_pfn = new_pfn;
			   __entry->result = result;),
	    TP_printk("pool=%s class=%u size=%u pfn=0x%lx new_pfn=0x%lx result=%s",
		      __get_str(pool), __entry->class_idx, __entry->size,
		      __entry->pfn, __entry->new_pfn,
		      show_zsmod_migrate_result(__entry->result))
);

/* A zsmod_malloc() that failed for want of room or memory (not -EINVAL). */
TRACE_EVENT(zsmod_malloc_fail,
	    TP_PROTO(struct zsmod_pool *pool, size_t size, gfp_t gfp, int reason),
	    TP_ARGS(pool, size, gfp, reason),
	    TP_STRUCT__entry(__string(pool, pool->name)
			     __field(size_t, size)
			     __field(unsigned long, gfp)
			     __field(int, reason)),
	    TP_fast_assign(__assign_str(pool);
			   __entry->size = size;
			   __entry->gfp = (__force unsigned long)gfp;
			   __entry->reason = reason;),
	    TP_printk("pool=%s size=%zu gfp=%s reason=%s",
		      __get_str(pool), __entry->size,
		      show_gfp_flags(__entry->gfp),
		      show_zsmod_fail_reason(__entry->reason))
);

/* The frees of one class queued on one CPU, run as a batch. */
TRACE_EVENT(zsmod_free_batch,
	    TP_PROTO(struct zsmod_pool *pool, struct zsmod_size_class *class,
		     unsigned int queue_cpu, unsigned int nr, unsigned int pages),
	    TP_ARGS(pool, class, queue_cpu, nr, pages),
	    TP_STRUCT__entry(__string(pool, pool->name)
			     __field(unsigned int, class_idx)
			     __field(unsigned int, size)
			     __field(unsigned int, queue_cpu)
			     __field(unsigned int, nr)
			     __field(unsigned int, pages)),
	    TP_fast_assign(__assign_str(pool);
			   __entry->class_idx = class->class_idx;
			   __entry->size = class->size;
			   __entry->queue_cpu = queue_cpu;
			   __entry->nr = nr;
			   __entry->pages = pages;),
	    TP_printk("pool=%s class=%u size=%u queue_cpu=%u nr=%u pages=%u",
		      __get_str(pool), __entry->class_idx, __entry->size,
		      __entry->queue_cpu, __entry->nr, __entry->pages)
);

#endif /* _ZSMALLOC_MOD_TRACE_H_ */

/* Out of tree: define_trace.h looks for this file next to us (Kbuild's -I). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE zsmalloc_mod_trace
#include <trace/define_trace.h>
