// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints: the events of events/zsmalloc_mod/ in tracefs, counted
 * against what others count of the same things. A memcg'ed workload with
 * some incompressible pages swaps through zswap; half its pages are read
 * back so that the pool's zspages are half empty, the pool is compacted
 * through debugfs, and then the kernel's compaction migrates our pages
 * while everything is read back (as in migrate.c). The trace, read once
 * at the end, must show:
 *
 *   zsmod_malloc_fail   one too_large per zswap reject_compress_poor, one
 *                       no_handle or no_zspage per reject_alloc_fail. In
 *                       6.12 zswap's compressor refuses output larger than
 *                       a page (reject_compress_fail) and the stock kernel
 *                       has no fault injection, so both are 0 here, though
 *                       the random pages are refused; KUnit's
 *                       test_trace_malloc_fail makes them fire;
 *   zsmod_compact_class as many pages freed as our pages_compacted counter
 *                       gained, and, during the debugfs compaction, as
 *                       many as the pool's page count lost (with the pages
 *                       that batches of frees released meanwhile);
 *   zsmod_migrate       one moved per pages_migrated, one putback per
 *                       migrate_aborted, no more moved than the kernel's
 *                       pgmigrate_success;
 *   zsmod_free_batch    as many objects freed as zswap stored (vmstat
 *                       zswpout) less the entries it still holds
 *                       (stored_pages), once the workload is gone.
 *
 * Background compaction is off meanwhile (it would compact between our
 * readings), and vm.page-cluster is 0 (readahead would swap in the pages
 * between those we read).
 *
 * usage: tracepoints
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest.h"
#include "zsmod_ksft.h"
#include "zsmod_util.h"
#include "zsmod_workload.h"

#define TRACEFS		"/sys/kernel/tracing"
#define EVENTS		TRACEFS "/events/" ZSMOD_NAME
#define MARK		"zsmod-tracepoints: "
#define ROUNDS		10

static const char *const events[] = {
	"zsmod_compact_class", "zsmod_migrate", "zsmod_malloc_fail", "zsmod_free_batch",
};

/* What the trace says, summed; @window: between the compaction's marks. */
struct trace_sums {
	long too_large, no_mem, other_fail;
	long compact_events, compact_pages, compact_moved;
	long moved, mapped, putback;
	long batches, batch_objs;
	long window_compact_pages, window_batch_pages;
	long in_buffer, written;
	int marks;
};

/* Other counters of the same events: zswap's, the kernel's, our pool's. */
struct counters {
	long compress_poor, compress_fail, alloc_fail, zswpout, stored, pgmigrate;
	long compacted, migrated, aborted;
};

/*
 * Our stats first: reading them runs the queued frees, so that every entry
 * zswap no longer counts in stored_pages has been freed in the pool too.
 * Until two rounds agree, in case zswap freed entries between the two.
 */
static void read_counters(const char *pool, struct counters *c)
{
	long stored = -1;
	int i;

	for (i = 0; i < 10; i++) {
		zsmod_stat(pool, "frees_queued");
		c->stored = zswap_stat("stored_pages");
		c->zswpout = read_keyed("/proc/vmstat", "zswpout");
		if (c->stored == stored)
			break;
		stored = c->stored;
		usleep(100 * 1000);
	}
	c->compacted = zsmod_stat(pool, "pages_compacted");
	c->migrated = zsmod_stat(pool, "pages_migrated");
	c->aborted = zsmod_stat(pool, "migrate_aborted");
	c->compress_poor = zswap_stat("reject_compress_poor");
	c->compress_fail = zswap_stat("reject_compress_fail");
	c->alloc_fail = zswap_stat("reject_alloc_fail");
	c->pgmigrate = read_keyed("/proc/vmstat", "pgmigrate_success");
}

static void mark(const char *what)
{
	char buf[128];

	snprintf(buf, sizeof(buf), MARK "%s\n", what);
	write_str(TRACEFS "/trace_marker", buf);
}

static int enable_events(int on)
{
	char path[256];
	unsigned int i;
	int err = 0;

	for (i = 0; i < sizeof(events) / sizeof(*events); i++) {
		snprintf(path, sizeof(path), EVENTS "/%s/enable", events[i]);
		err = err ?: write_str(path, on ? "1" : "0");
	}
	return err;
}

/* tracefs mounted, a clean 16 MiB per-CPU buffer, our events on. */
static int trace_setup(void)
{
	if (!path_exists(TRACEFS "/trace") &&
	    mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -errno;
	if (!path_exists(EVENTS))
		return -ENOENT;
	write_str(TRACEFS "/tracing_on", "0");
	write_str(TRACEFS "/current_tracer", "nop");
	write_str(TRACEFS "/buffer_size_kb", "16384");
	write_str(TRACEFS "/trace", "");
	write_str(TRACEFS "/tracing_on", "1");
	return enable_events(1);
}

/* The value of "key=" in an event's line, or -1. */
static long field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? strtol(p + strlen(pat), NULL, 0) : -1;
}

static int field_is(const char *line, const char *key, const char *val)
{
	char pat[64];

	snprintf(pat, sizeof(pat), " %s=%s", key, val);
	return !!strstr(line, pat);
}

/* The first line of each event, printed as a sample of the format. */
static void sample(const char *line)
{
	static char seen[sizeof(events) / sizeof(*events)];
	unsigned int i;
	char name[64];

	for (i = 0; i < sizeof(events) / sizeof(*events); i++) {
		snprintf(name, sizeof(name), " %s: ", events[i]);
		if (!seen[i] && strstr(line, name)) {
			seen[i] = 1;
			ksft_print_msg("%s", line + strspn(line, " "));
		}
	}
}

/* One pass over the trace; compaction and migration of @pool only. */
static int read_trace(const char *pool, struct trace_sums *t)
{
	char line[1024], poolkey[128];
	int window = 0;
	FILE *f;

	memset(t, 0, sizeof(*t));
	t->in_buffer = -1;
	t->written = -1;
	snprintf(poolkey, sizeof(poolkey), " pool=%s ", pool);
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		const char *p;

		if (line[0] == '#') {
			p = strstr(line, "entries-in-buffer/entries-written: ");
			if (p)
				sscanf(p + 35, "%ld/%ld", &t->in_buffer, &t->written);
			continue;
		}
		sample(line);
		if (strstr(line, MARK "compact-begin")) {
			window = 1;
			t->marks++;
		} else if (strstr(line, MARK "compact-end")) {
			window = 0;
			t->marks++;
		} else if (strstr(line, " zsmod_malloc_fail: ")) {
			if (field_is(line, "reason", "too_large"))
				t->too_large++;
			else if (field_is(line, "reason", "no_handle") ||
				 field_is(line, "reason", "no_zspage"))
				t->no_mem++;
			else
				t->other_fail++;
		} else if (strstr(line, " zsmod_free_batch: ")) {
			t->batches++;
			t->batch_objs += field(line, "nr");
			if (window)
				t->window_batch_pages += field(line, "pages");
		} else if (!strstr(line, poolkey)) {
			continue;
		} else if (strstr(line, " zsmod_compact_class: ")) {
			t->compact_events++;
			t->compact_pages += field(line, "pages_freed");
			t->compact_moved += field(line, "objs_moved");
			if (window)
				t->window_compact_pages += field(line, "pages_freed");
		} else if (strstr(line, " zsmod_migrate: ")) {
			t->moved += field_is(line, "result", "moved");
			t->mapped += field_is(line, "result", "mapped");
			t->putback += field_is(line, "result", "putback");
		}
	}
	fclose(f);
	return 0;
}

/* What the test changes, put back by restore() however it exits. */
static char saved_autoc[8] = "Y", saved_cluster[16] = "3", saved_zswap[8] = "Y";

static void restore(void)
{
	enable_events(0);
	write_str(TRACEFS "/trace", "");
	write_str(TRACEFS "/buffer_size_kb", "1408");	/* the kernel's default */
	write_str(ZSMOD_PARAMS "/auto_compact", saved_autoc);
	write_str("/proc/sys/vm/page-cluster", saved_cluster);
	write_str(ZSWAP_PARAMS "/enabled", saved_zswap);
}

static void compact_zones(int rounds)
{
	while (rounds--)
		write_str("/proc/sys/vm/compact_memory", "1");
}

/* pages_used once two reads 200 ms apart agree (at most 4 s) */
static long stable_pages_used(const char *pool)
{
	long now = zsmod_stat(pool, "pages_used"), before;
	int tries = 0;

	do {
		before = now;
		usleep(200 * 1000);
		now = zsmod_stat(pool, "pages_used");
	} while (now != before && ++tries < 20);
	return now;
}

int main(void)
{
	/* 64 MiB of content and 2 MiB of random pages through a 32 MiB memcg */
	struct wl_params p = { .name = "zsmod-tracepoints", .pattern_mib = 48,
			       .random_mib = 2, .file_mib = 16, .max_mib = 32,
			       .no_writeback = 1 };
	char pool[256], poolname[64], compact[300];
	long pages0, pages1, bad0, bad1, bad2;
	struct counters c0, c1;
	struct trace_sums t;
	struct wl_job j;
	pid_t comp;
	int err;

	begin_backend_test(ZSMOD_NAME, 13);
	err = zsmod_pool_dir(pool, sizeof(pool));
	if (err)
		ksft_exit_fail_msg("no pool of ours in debugfs\n");
	snprintf(poolname, sizeof(poolname), "%s", strrchr(pool, '/') + 1);
	snprintf(compact, sizeof(compact), "%s/compact", pool);
	ksft_print_msg("pool %s\n", poolname);

	read_str(ZSMOD_PARAMS "/auto_compact", saved_autoc, sizeof(saved_autoc));
	read_str("/proc/sys/vm/page-cluster", saved_cluster, sizeof(saved_cluster));
	read_str(ZSWAP_PARAMS "/enabled", saved_zswap, sizeof(saved_zswap));
	atexit(restore);
	write_str(ZSMOD_PARAMS "/auto_compact", "N");
	write_str("/proc/sys/vm/page-cluster", "0");

	read_counters(pool, &c0);
	err = trace_setup();
	ksft_test_result(!err, "events of %s enabled in tracefs (%s)\n", EVENTS,
			 err ? strerror(-err) : "ok");
	if (err)
		ksft_exit_fail_msg("no tracepoints to read\n");

	err = wl_start(&j, &p);
	ksft_test_result(!err && zswap_stat("stored_pages") > 0,
			 "workload in zswap: stored_pages %ld\n", zswap_stat("stored_pages"));
	if (err) {
		wl_stop(&j);
		ksft_exit_fail_msg("workload did not start: %s\n", strerror(-err));
	}

	/* every other page back: half the objects go, scattered over zspages */
	wl_memcg_write(&j, "memory.max", "max");
	bad0 = wl_touch_half(&j);
	/*
	 * No store meanwhile (reclaim elsewhere in the guest would allocate
	 * zspages): pages_used then moves by compaction and frees only. The
	 * stores already past zswap's check finish first: pages_used holds
	 * still for 200 ms before it is taken.
	 */
	write_str(ZSWAP_PARAMS "/enabled", "N");
	pages0 = stable_pages_used(pool);
	mark("compact-begin");
	write_str(compact, "1");
	mark("compact-end");
	pages1 = zsmod_stat(pool, "pages_used");
	write_str(ZSWAP_PARAMS "/enabled", saved_zswap);

	/* the rest, pushed out again, migrated at rest and while read back */
	wl_memcg_write(&j, "memory.max", "32M");
	compact_zones(ROUNDS);
	comp = fork();
	if (comp == 0) {
		for (;;)
			compact_zones(1);
	}
	bad1 = wl_verify(&j);
	kill(comp, SIGKILL);
	waitpid(comp, NULL, 0);
	compact_zones(ROUNDS);
	bad2 = wl_verify(&j);
	wl_stop(&j);

	read_counters(pool, &c1);
	enable_events(0);
	err = read_trace(poolname, &t);
	if (err)
		ksft_exit_fail_msg("cannot read the trace: %s\n", strerror(-err));
	ksft_print_msg("trace: %ld entries (%ld written)\n", t.in_buffer, t.written);
	ksft_print_msg("events: %ld malloc_fail, %ld compact_class, %ld migrate, %ld free_batch\n",
		       t.too_large + t.no_mem + t.other_fail, t.compact_events,
		       t.moved + t.mapped + t.putback, t.batches);

	ksft_test_result(t.too_large == c1.compress_poor - c0.compress_poor &&
			 c1.compress_fail > c0.compress_fail,
			 "malloc_fail too_large %ld == zswap reject_compress_poor +%ld (random pages: reject_compress_fail +%ld)\n",
			 t.too_large, c1.compress_poor - c0.compress_poor,
			 c1.compress_fail - c0.compress_fail);
	ksft_test_result(t.no_mem == c1.alloc_fail - c0.alloc_fail && !t.other_fail,
			 "malloc_fail no_handle/no_zspage %ld == zswap reject_alloc_fail +%ld (%ld other)\n",
			 t.no_mem, c1.alloc_fail - c0.alloc_fail, t.other_fail);
	ksft_test_result(t.compact_pages > 0 && t.compact_pages == c1.compacted - c0.compacted,
			 "compact_class pages_freed %ld == pages_compacted +%ld (%ld events, %ld objects moved)\n",
			 t.compact_pages, c1.compacted - c0.compacted, t.compact_events,
			 t.compact_moved);
	ksft_test_result(t.marks == 2 && t.window_compact_pages > 0 &&
			 t.window_compact_pages + t.window_batch_pages == pages0 - pages1,
			 "debugfs compaction: pages_freed %ld + %ld by free batches == pages_used %ld -> %ld\n",
			 t.window_compact_pages, t.window_batch_pages, pages0, pages1);
	ksft_test_result(t.moved > 0 && t.moved == c1.migrated - c0.migrated,
			 "migrate moved %ld == pages_migrated +%ld (%ld refused, mapped)\n",
			 t.moved, c1.migrated - c0.migrated, t.mapped);
	ksft_test_result(t.putback == c1.aborted - c0.aborted,
			 "migrate putback %ld == migrate_aborted +%ld\n",
			 t.putback, c1.aborted - c0.aborted);
	ksft_test_result(t.moved <= c1.pgmigrate - c0.pgmigrate,
			 "migrate moved %ld <= vmstat pgmigrate_success +%ld\n",
			 t.moved, c1.pgmigrate - c0.pgmigrate);
	ksft_test_result(!bad0 && !bad1 && !bad2,
			 "data intact: half, then all under compaction, all again (%ld, %ld, %ld bad pages)\n",
			 bad0, bad1, bad2);
	ksft_test_result(t.batch_objs > 0 &&
			 t.batch_objs == (c1.zswpout - c0.zswpout) - (c1.stored - c0.stored),
			 "free_batch objects %ld == vmstat zswpout +%ld - zswap stored_pages %+ld (%ld batches)\n",
			 t.batch_objs, c1.zswpout - c0.zswpout, c1.stored - c0.stored, t.batches);
	ksft_test_result(t.in_buffer >= 0 && t.in_buffer == t.written,
			 "no event lost: %ld in the buffer, %ld written\n", t.in_buffer, t.written);

	ksft_finished();
}
