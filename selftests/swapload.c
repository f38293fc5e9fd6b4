// SPDX-License-Identifier: GPL-2.0
/*
 * swapload: the workload of `make demo` (not a test). Swaps a memcg'ed
 * working set through zswap and prints zswap's counters next to the
 * zsmalloc_mod pool's at each phase: filled, compacted, read back.
 *
 * usage: swapload [-p pattern-MiB] [-f file-MiB] [-m memory.max-MiB]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zsmod_util.h"
#include "zsmod_workload.h"

#define ROWS 16

struct column {
	char line[ROWS][64];
	int n;
};

/* The counters of zswap's debugfs directory. */
static void zswap_column(struct column *c)
{
	static const char *const names[] = { "stored_pages", "pool_total_size",
		"written_back_pages", "reject_compress_poor",
		"reject_compress_fail", "reject_alloc_fail", "reject_reclaim_fail",
		"pool_limit_hit", NULL };
	int i;

	c->n = 0;
	for (i = 0; names[i] && c->n < ROWS; i++)
		snprintf(c->line[c->n++], 64, "%-22s %10ld", names[i], zswap_stat(names[i]));
}

/* Our pool's stats file, then the classes Total. */
static void pool_column(struct column *c, const char *pool)
{
	struct zsmod_total t;
	char path[512], buf[2048], *line, *save;

	c->n = 0;
	snprintf(path, sizeof(path), "%s/stats", pool);
	if (read_str(path, buf, sizeof(buf)) < 0) {
		snprintf(c->line[c->n++], 64, "(no pool of zsmalloc_mod)");
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line && c->n < ROWS - 2;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[40];
		long v;

		if (sscanf(line, "%39s %ld", name, &v) == 2)
			snprintf(c->line[c->n++], 64, "%-22s %10ld", name, v);
	}
	if (!zsmod_classes_total(pool, &t)) {
		snprintf(c->line[c->n++], 64, "%-22s %10ld", "classes: obj_used", t.obj_used);
		snprintf(c->line[c->n++], 64, "%-22s %10ld", "classes: pages_used", t.pages_used);
	}
}

/* The busiest size classes of the pool, from its classes file. */
static void show_classes(const char *pool)
{
	struct { long cls, size, used, pages; } top[8] = { { 0 } }, c;
	char path[512], line[1024];
	int i, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/classes", pool);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		long v[18];
		char *tok, *save;
		int k = 0;

		for (tok = strtok_r(line, "\n ", &save); tok && k < 18;
		     tok = strtok_r(NULL, "\n ", &save))
			v[k++] = strtol(tok, NULL, 10);
		/* class size 11 x fullness obj_allocated obj_used pages_used ... */
		if (k != 18 || line[strspn(line, " ")] < '0' || line[strspn(line, " ")] > '9')
			continue;
		c = (typeof(c)){ v[0], v[1], v[14], v[15] };
		for (i = n < 8 ? n++ : 8; i > 0 && top[i - 1].used < c.used; i--)
			if (i < 8)
				top[i] = top[i - 1];
		if (i < 8)
			top[i] = c;
	}
	fclose(f);
	printf("busiest classes, object size: objects/pages:");
	for (i = 0; i < n; i++)
		printf("  %ld: %ld/%ld", top[i].size, top[i].used, top[i].pages);
	printf("\n");
}

static void show(const char *phase)
{
	struct column z, p;
	char pool[256] = "";
	int i;

	zsmod_pool_dir(pool, sizeof(pool));
	zswap_column(&z);
	pool_column(&p, pool);
	printf("\n== %s\n", phase);
	printf("%-34s | %s\n", "zswap (" ZSWAP_DEBUGFS ")", pool[0] ? pool : ZSMOD_DEBUGFS);
	for (i = 0; i < z.n || i < p.n; i++)
		printf("%-34s | %s\n", i < z.n ? z.line[i] : "", i < p.n ? p.line[i] : "");
	if (pool[0])
		show_classes(pool);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct wl_params p = { .name = "zsmod-demo", .pattern_mib = 96, .file_mib = 32,
			       .max_mib = 64, .no_writeback = 0 };
	char pool[256], backend[64] = "?";
	struct wl_job j;
	long bad;
	int c;

	while ((c = getopt(argc, argv, "p:f:m:")) != -1) {
		if (c == 'p')
			p.pattern_mib = atol(optarg);
		else if (c == 'f')
			p.file_mib = atol(optarg);
		else if (c == 'm')
			p.max_mib = atol(optarg);
	}
	zswap_backend(backend, sizeof(backend));
	printf("swapload: %ld MiB patterned + %ld MiB of files in a %ld MiB memcg,",
	       p.pattern_mib, p.file_mib, p.max_mib);
	printf(" zswap backend %s\n", backend);
	if (wl_start(&j, &p)) {
		wl_stop(&j);
		fprintf(stderr, "swapload: the workload did not start\n");
		return 1;
	}
	show("filled: the working set is mostly in zswap");

	if (!zsmod_pool_dir(pool, sizeof(pool))) {
		char path[512];

		snprintf(path, sizeof(path), "%s/compact", pool);
		write_str(path, "1");
	}
	write_str("/proc/sys/vm/compact_memory", "1");
	show("after compaction (pool compact + /proc/sys/vm/compact_memory)");

	bad = wl_verify(&j);
	show("after reading everything back");
	printf("\nswapload: %s (%ld bad pages), memcg zswpout %ld zswpin %ld zswpwb %ld\n",
	       bad ? "DATA MISMATCH" : "data intact", bad, wl_memcg_stat(&j, "zswpout"),
	       wl_memcg_stat(&j, "zswpin"), wl_memcg_stat(&j, "zswpwb"));
	wl_stop(&j);
	return bad ? 1 : 0;
}
