// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle of zsmalloc_mod.ko: insmod/rmmod, auto-load through the
 * "zpool-zsmalloc_mod" alias when zswap is told to use it, rmmod refused
 * while zswap holds one of our pools, allowed once zswap moved away, and
 * 20 load/use/unload cycles that leak nothing.
 *
 * usage: lifecycle [-k path/to/zsmalloc_mod.ko] [-o other-zpool-type]
 * The module must be installed and depmod'ed (for the alias test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"
#include "zsmod_util.h"
#include "zsmod_workload.h"

#define CYCLES 20

/*
 * Leak checks over CYCLES cycles, each creating a pool of ours and swapping
 * 8 MiB through it.
 * - nr_zspages (vmstat, kept by the module for every zspage page) must not
 *   grow: a leaked zspage shows as a rise. It may fall: the built-in
 *   zsmalloc counts there too, and a pool of an earlier test can give its
 *   pages back during the cycles, when the swap slots still cached for it
 *   are freed.
 * - Slab, per-cpu and vmalloc: a leaked pool (kzalloc'ed size classes alone
 *   are tens of kB) or per-cpu area per cycle exceeds these bounds, while
 *   the spread measured without leaks in this guest (1 GiB, 2 CPUs) stays
 *   below half of them: SUnreclaim -28..+224 kB (partial slabs of unrelated
 *   caches), Percpu 0..+24 kB, VmallocUsed -16..+48 kB.
 * - MemFree moved by -20..+22 MB between runs without any accounted
 *   category changing: free pages parked on per-cpu lists are not counted
 *   as free. Its bound only catches gross page leaks; nr_zspages is the
 *   precise check.
 * Leaked objects of our kmem caches make kmem_cache_destroy() warn at
 * rmmod, which fails the run through the host's console verdict.
 */
#define TOL_SUNRECLAIM_KB	512
#define TOL_PERCPU_KB		64
#define TOL_VMALLOC_KB		128
#define TOL_MEMFREE_KB		(48 * 1024)

struct snap {
	long sunreclaim, percpu, vmalloc, memfree, modules, zspages;
	long diag[8];
};

/* Printed only, to explain MemFree movements. */
static const char *const diag_keys[] = { "Cached", "SwapCached", "AnonPages", "PageTables",
					 "KReclaimable", "Zswap", "Shmem", "Mlocked" };

static void snapshot(struct snap *s)
{
	char buf[65536];
	int n, i;

	settle_memory();
	s->sunreclaim = read_keyed("/proc/meminfo", "SUnreclaim");
	s->percpu = read_keyed("/proc/meminfo", "Percpu");
	s->vmalloc = read_keyed("/proc/meminfo", "VmallocUsed");
	s->memfree = read_keyed("/proc/meminfo", "MemFree");
	s->zspages = read_keyed("/proc/vmstat", "nr_zspages");
	for (i = 0; i < 8; i++)
		s->diag[i] = read_keyed("/proc/meminfo", diag_keys[i]);
	n = read_str("/proc/modules", buf, sizeof(buf));
	for (i = 0, s->modules = 0; i < n; i++)
		s->modules += buf[i] == '\n';
}

/*
 * Load, make zswap create a pool of ours, swap 8 MiB through it (so that
 * zspages are allocated and freed, not only the pool), move zswap away,
 * unload.
 */
static int cycle(const char *ko, const char *other)
{
	struct wl_params p = { .name = "zsmod-lifecycle", .pattern_mib = 8,
			       .max_mib = 4, .no_writeback = 1 };
	struct wl_job j;
	char pool[256];
	int err;

	err = module_load(ko);
	if (!err)
		err = setup_zswap(ZSMOD_NAME);
	if (!err)
		err = zsmod_pool_dir(pool, sizeof(pool));
	if (!err) {
		err = wl_start(&j, &p);
		if (!err && (zsmod_stat(pool, "objs_used") <= 0 || wl_verify(&j)))
			err = -EIO;
		wl_stop(&j);
	}
	if (!err)
		err = setup_zswap(other);
	if (!err)
		err = module_unload_wait(ZSMOD_NAME, 10);
	return err;
}

int main(int argc, char **argv)
{
	const char *ko = zsmod_ko_path(), *other = "zsmalloc";
	struct snap a, b;
	char pool[256];
	int c, err, i;

	while ((c = getopt(argc, argv, "k:o:")) != -1) {
		if (c == 'k')
			ko = optarg;
		else if (c == 'o')
			other = optarg;
	}

	ksft_print_header();
	if (!path_exists(ko))
		ksft_exit_skip("no module at %s\n", ko);
	ksft_set_plan(8);

	/* Start from a clean slate: zswap on another backend, module unloaded. */
	if (setup_zswap(other) || (module_loaded(ZSMOD_NAME) &&
				   module_unload_wait(ZSMOD_NAME, 10)))
		ksft_exit_fail_msg("cannot get zswap off %s and unload it\n", ZSMOD_NAME);

	err = module_load(ko);
	ksft_test_result(!err && module_loaded(ZSMOD_NAME), "insmod %s (%s)\n", ko,
			 strerror(-err));
	err = module_unload(ZSMOD_NAME);
	ksft_test_result(!err && !module_loaded(ZSMOD_NAME) && !path_exists(ZSMOD_DEBUGFS),
			 "rmmod leaves no module and no debugfs (%s)\n", strerror(-err));

	/* Not loaded: zswap's request_module("zpool-zsmalloc_mod") must find us. */
	err = setup_zswap(ZSMOD_NAME);
	ksft_test_result(!err, "zswap accepts %s (%s)\n", ZSMOD_NAME, strerror(-err));
	ksft_test_result(module_loaded(ZSMOD_NAME) && !zsmod_pool_dir(pool, sizeof(pool)),
			 "alias auto-loaded the module and zswap made a pool\n");

	err = module_unload(ZSMOD_NAME);
	ksft_test_result(module_refused(err) && module_loaded(ZSMOD_NAME),
			 "rmmod refused while zswap uses our pool (%s)\n", strerror(-err));

	err = setup_zswap(other);
	if (!err)
		err = module_unload_wait(ZSMOD_NAME, 10);
	ksft_test_result(!err && !module_loaded(ZSMOD_NAME),
			 "rmmod succeeds once zswap uses %s (%s)\n", other, strerror(-err));

	/* One warm-up cycle: first-use allocations are not leaks. */
	cycle(ko, other);
	snapshot(&a);
	for (i = 0, err = 0; i < CYCLES && !err; i++)
		err = cycle(ko, other);
	snapshot(&b);
	ksft_test_result(!err, "%d load/use/unload cycles (%d done, %s)\n", CYCLES, i,
			 strerror(-err));

	ksft_print_msg("after %d cycles: SUnreclaim %+ld kB, Percpu %+ld kB, VmallocUsed %+ld kB\n",
		       CYCLES, b.sunreclaim - a.sunreclaim, b.percpu - a.percpu,
		       b.vmalloc - a.vmalloc);
	ksft_print_msg("  MemFree %+ld kB, modules %+ld\n", b.memfree - a.memfree,
		       b.modules - a.modules);
	for (i = 0; i < 8; i++)
		ksft_print_msg("  %s %+ld kB\n", diag_keys[i], b.diag[i] - a.diag[i]);
	ksft_print_msg("  nr_zspages %ld -> %ld\n", a.zspages, b.zspages);
	ksft_test_result(b.sunreclaim - a.sunreclaim <= TOL_SUNRECLAIM_KB &&
			 b.percpu - a.percpu <= TOL_PERCPU_KB &&
			 b.vmalloc - a.vmalloc <= TOL_VMALLOC_KB &&
			 a.memfree - b.memfree <= TOL_MEMFREE_KB &&
			 b.zspages <= a.zspages && b.modules == a.modules &&
			 !module_loaded(ZSMOD_NAME),
			 "cycles leak nothing (zspages no more; kB: slab %d, percpu %d, vmalloc %d, free %d)\n",
			 TOL_SUNRECLAIM_KB, TOL_PERCPU_KB, TOL_VMALLOC_KB, TOL_MEMFREE_KB);
	ksft_finished();
}
