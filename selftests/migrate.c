// SPDX-License-Identifier: GPL-2.0
/*
 * Migration under load: while the workload's data sits in the pool,
 * /proc/sys/vm/compact_memory is written again and again, first with the
 * data at rest, then while the workload reads everything back (swap-ins
 * free objects, reclaim stores new ones). Our pages_migrated counter must
 * rise, our object count must still match zswap's entries, and the data
 * must come back intact.
 *
 * Compaction only migrates pages below the point where its two scanners
 * meet, about the middle of a zone. Early in a boot the pool's pages may
 * all lie above it, and then the compactions at rest migrate none of them
 * (seen when this test ran first in a boot: pages_migrated 0 -> 0, with
 * thousands migrated while reading back). So pages_migrated is judged over
 * both phases; each phase's share is printed. KUnit's test_migrate_pages
 * migrates chosen pages of ours at rest, deterministically.
 *
 * usage: migrate [-b zpool-type]   (default zsmalloc_mod)
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "zsmod_ksft.h"
#include "zsmod_util.h"
#include "zsmod_workload.h"

#define ROUNDS 10

static void compact(void)
{
	write_str("/proc/sys/vm/compact_memory", "1");
}

/* A process compacting without pause until killed. */
static pid_t start_compactor(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			compact();
	}
	return pid;
}

int main(int argc, char **argv)
{
	const char *backend = parse_backend(argc, argv);
	/* Writeback off: every object stays in the pool while we compact. */
	struct wl_params p = { .name = "zsmod-migrate", .pattern_mib = 48,
			       .file_mib = 16, .max_mib = 32, .no_writeback = 1 };
	long mig0 = -1, mig1 = -1, mig2 = -1, used0 = -1, used1 = -1, stored, vm0, vm1, bad;
	int ours = backend_is_ours(backend), err, i;
	char pool[256];
	struct wl_job j;
	pid_t comp;

	begin_backend_test(backend, 6);

	err = wl_start(&j, &p);
	if (err) {
		wl_stop(&j);
		ksft_exit_fail_msg("workload did not start: %s\n", strerror(-err));
	}
	if (ours && !zsmod_pool_dir(pool, sizeof(pool))) {
		mig0 = zsmod_stat(pool, "pages_migrated");
		used0 = zsmod_stat(pool, "objs_used");
	}
	ksft_test_result(zswap_stat("stored_pages") > 0 && (!ours || used0 > 0),
			 "data sits in the pool (objs_used %ld)\n", used0);

	vm0 = read_keyed("/proc/vmstat", "pgmigrate_success");
	for (i = 0; i < ROUNDS; i++)
		compact();
	vm1 = read_keyed("/proc/vmstat", "pgmigrate_success");
	if (ours) {
		mig1 = zsmod_stat(pool, "pages_migrated");
		ksft_print_msg("pages_migrated %ld -> %ld, migrate_aborted %ld\n", mig0, mig1,
			       zsmod_stat(pool, "migrate_aborted"));
		ksft_print_msg("vmstat pgmigrate_success +%ld\n", vm1 - vm0);
		/* Idle or not (reclaim may add entries), none may go missing. */
		ksft_test_result(zsmod_objs_match_zswap(pool, &used1, &stored),
				 "no object lost by migration: objs_used %ld == stored_pages %ld\n",
				 used1, stored);
	} else {
		ksft_print_msg("pgmigrate_success +%ld\n", vm1 - vm0);
		ksft_test_result_skip("objects survive migration (backend %s)\n", backend);
	}

	comp = start_compactor();
	bad = wl_verify(&j);
	kill(comp, SIGKILL);
	waitpid(comp, NULL, 0);
	ksft_test_result(bad == 0, "data intact, read back under compaction (%ld bad pages)\n",
			 bad);
	if (ours) {
		mig2 = zsmod_stat(pool, "pages_migrated");
		ksft_test_result(mig2 > mig0,
				 "compaction migrated our pages: %ld at rest, %ld while reading back\n",
				 mig1 - mig0, mig2 - mig1);
	} else {
		ksft_test_result_skip("compaction migrated our pages (backend %s)\n", backend);
	}

	for (i = 0; i < ROUNDS; i++)
		compact();
	bad = wl_verify(&j);
	ksft_test_result(bad == 0, "data intact after more compaction (%ld bad pages)\n", bad);

	wl_stop(&j);
	ksft_finished();
}
