/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A swap workload for the zsmalloc_mod selftests: a child process in its own
 * cgroup v2 memcg fills anonymous memory with patterned pages and copies of
 * real files, gets pushed out to zswap by memory.max, and on request reads
 * everything back and compares byte for byte. The parent stays outside the
 * memcg and inspects zswap and our pool while the child is alive (zswap
 * entries die with their owner).
 */
#ifndef ZSMOD_WORKLOAD_H
#define ZSMOD_WORKLOAD_H

#include <sys/types.h>

struct wl_params {
	const char *name;	/* cgroup name under /sys/fs/cgroup */
	long pattern_mib;	/* patterned pages */
	/* random pages: no compressor shrinks them, zswap refuses them */
	long random_mib;
	long file_mib;		/* copies of the guest's files */
	long max_mib;		/* memory.max of the memcg */
	int no_writeback;	/* memory.zswap.writeback=0: data stays in the pool */
};

struct wl_job {
	char cg[256];		/* the memcg's directory */
	pid_t pid;
	int to_child, from_child;
};

/* Create the memcg, fork the child, wait until it has filled its memory. */
int wl_start(struct wl_job *j, const struct wl_params *p);
/*
 * Child reads everything back: number of pages that differ (0 = intact),
 * or a negative errno if the child died.
 */
long wl_verify(struct wl_job *j);
/*
 * Child reads the first word of every other patterned page, so that the
 * swap-ins free every other entry (with vm.page-cluster 0, which stops
 * readahead): the number of words that were wrong (0), or a negative errno.
 */
long wl_touch_half(struct wl_job *j);
/* Stop the child, remove the memcg. */
void wl_stop(struct wl_job *j);

/* memcg files of the job's cgroup. */
long wl_memcg_stat(struct wl_job *j, const char *key);	/* memory.stat */
long wl_memcg_long(struct wl_job *j, const char *file);
int wl_memcg_write(struct wl_job *j, const char *file, const char *val);

#endif
