// SPDX-License-Identifier: GPL-2.0
/*
 * Writeback: with writeback allowed, lowering memory.zswap.max below what
 * the workload has in zswap makes zswap write entries of the backend's pool
 * back to the swap disk (zswpwb); the data must still read back intact.
 *
 * usage: writeback [-b zpool-type]   (default zsmalloc_mod)
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
	/*
	 * Writeback decompresses each entry into a new page charged to the
	 * memcg: at 32 MiB the memcg OOM-killed the workload in one run of
	 * five (stock 6.12 behaviour, whatever the backend), so leave it room.
	 * 24 MiB of the 64 still have to go out, and zswap.max forces writeback.
	 */
	struct wl_params p = { .name = "zsmod-writeback", .pattern_mib = 48,
			       .file_mib = 16, .max_mib = 40 };
	long zcur, wb0, wb, gwb0, gwb, bad, used0 = -1, used1 = -1;
	int ours = backend_is_ours(backend);
	char limit[32], pool[256];
	struct wl_job j;
	int err;

	begin_backend_test(backend, 7);

	gwb0 = zswap_stat("written_back_pages");
	err = wl_start(&j, &p);
	if (err) {
		wl_stop(&j);
		ksft_exit_fail_msg("workload did not start: %s\n", strerror(-err));
	}
	zcur = wl_memcg_long(&j, "memory.zswap.current");
	wb0 = wl_memcg_stat(&j, "zswpwb");
	ksft_print_msg("memory.zswap.current %ld, zswpwb %ld\n", zcur, wb0);
	ksft_test_result(zcur > 0, "the workload is in zswap\n");
	if (ours && !zsmod_pool_dir(pool, sizeof(pool)))
		used0 = zsmod_stat(pool, "objs_used");

	/*
	 * A quarter of the current usage: every later store finds the memcg
	 * over its zswap limit and writes an older entry back first. Reading
	 * everything back pulls pages in and pushes others out: many stores.
	 */
	snprintf(limit, sizeof(limit), "%ld", zcur / 4);
	err = wl_memcg_write(&j, "memory.zswap.max", limit);
	ksft_test_result(!err, "memory.zswap.max lowered to %s\n", limit);
	bad = wl_verify(&j);
	wl_memcg_write(&j, "memory.reclaim", "16M");

	wb = wl_memcg_stat(&j, "zswpwb");
	gwb = zswap_stat("written_back_pages");
	ksft_print_msg("zswpwb %ld -> %ld, written_back_pages %ld -> %ld, zswap.current %ld\n",
		       wb0, wb, gwb0, gwb, wl_memcg_long(&j, "memory.zswap.current"));
	ksft_test_result(wb > wb0 && gwb > gwb0, "zswap wrote entries back to disk\n");
	/*
	 * Written-back entries leave the pool: it must hold fewer objects,
	 * exactly one per entry zswap still stores.
	 */
	if (ours) {
		long stored;
		int match = zsmod_objs_match_zswap(pool, &used1, &stored);

		ksft_print_msg("pool objs_used %ld -> %ld, pages_used %ld, stored_pages %ld\n",
			       used0, used1, zsmod_stat(pool, "pages_used"), stored);
		ksft_test_result(used0 > 0 && match && used1 < used0,
				 "our pool shrank as entries were written back, one object per entry\n");
	} else {
		ksft_test_result_skip("our pool shrank (backend %s)\n", backend);
	}
	ksft_test_result(bad == 0, "data intact while writing back (%ld bad pages)\n", bad);

	bad = wl_verify(&j);
	ksft_test_result(bad == 0, "data intact after writeback (%ld bad pages)\n", bad);

	wl_stop(&j);
	ksft_finished();
}
