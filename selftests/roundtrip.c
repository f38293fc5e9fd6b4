// SPDX-License-Identifier: GPL-2.0
/*
 * Round trip: a memcg'ed process whose memory.max is far below its working
 * set writes patterned pages and copies of real files; they go to zswap,
 * i.e. into the backend's pool, and come back byte for byte. When the
 * process is gone, the pool's pages go back to the system by themselves
 * (zsmalloc_mod runs queued frees within 100 ms; we allow 1 s).
 *
 * usage: roundtrip [-b zpool-type]   (default zsmalloc_mod)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "kselftest.h"
#include "zsmod_ksft.h"
#include "zsmod_util.h"
#include "zsmod_workload.h"

int main(int argc, char **argv)
{
	const char *backend = parse_backend(argc, argv);
	/* 64 MiB through a 32 MiB memcg; compressed it needs well under 32 MiB. */
	struct wl_params p = { .name = "zsmod-roundtrip", .pattern_mib = 48,
			       .file_mib = 16, .max_mib = 32, .no_writeback = 1 };
	struct zsmod_total t = { 0 };
	char pool[256];
	struct wl_job j;
	long stored, zswapped, bad, objs = -1, pool0, pool1, pool2;
	int err;

	begin_backend_test(backend, 8);
	pool0 = zswap_stat("pool_total_size");

	err = wl_start(&j, &p);
	ksft_test_result(!err, "workload filled %ld MiB in a %ld MiB memcg\n",
			 p.pattern_mib + p.file_mib, p.max_mib);
	if (err) {
		wl_stop(&j);
		ksft_exit_fail_msg("workload did not start: %s\n", strerror(-err));
	}

	/* The child is alive: its entries are in zswap now. */
	stored = zswap_stat("stored_pages");
	zswapped = wl_memcg_stat(&j, "zswapped");
	ksft_print_msg("zswap stored_pages %ld, memcg zswapped %ld, memory.current %ld\n",
		       stored, zswapped, wl_memcg_long(&j, "memory.current"));
	ksft_test_result(stored > 0 && zswapped > 0, "zswap holds the workload's pages\n");

	if (backend_is_ours(backend)) {
		err = zsmod_pool_dir(pool, sizeof(pool));
		if (!err)
			err = zsmod_classes_total(pool, &t);
		ksft_print_msg("%s classes Total: obj_allocated %ld obj_used %ld pages_used %ld\n",
			       err ? "(no pool)" : pool, t.obj_allocated, t.obj_used,
			       t.pages_used);
		ksft_test_result(!err && t.obj_used > 0 && t.obj_used <= t.obj_allocated &&
				 t.pages_used > 0, "our pool holds objects\n");
		ksft_test_result(!err && zsmod_objs_match_zswap(pool, &objs, &stored),
				 "one object per zswap entry: objs_used %ld, stored_pages %ld\n",
				 objs, stored);
	} else {
		ksft_test_result_skip("our pool holds objects (backend %s)\n", backend);
		ksft_test_result_skip("one object per zswap entry (backend %s)\n", backend);
	}

	bad = wl_verify(&j);
	ksft_test_result(bad == 0, "data reads back byte for byte (%ld bad pages)\n", bad);
	ksft_print_msg("memcg zswpin %ld zswpout %ld\n", wl_memcg_stat(&j, "zswpin"),
		       wl_memcg_stat(&j, "zswpout"));
	ksft_test_result(wl_memcg_stat(&j, "zswpin") > 0, "pages came back from zswap\n");

	pool1 = zswap_stat("pool_total_size");
	wl_stop(&j);
	pool2 = zswap_pool_settles(pool0, 1000);
	ksft_test_result(pool1 > pool0 && pool2 >= 0 && pool2 <= pool0,
			 "pool pages back after exit: pool_total_size %ld -> %ld -> %ld\n",
			 pool0, pool1, pool2);
	ksft_finished();
}
