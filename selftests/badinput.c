// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input: garbage written to every knob zsmalloc_mod exposes (module
 * parameters, writable debugfs files) is refused with EINVAL and changes
 * nothing; read-only files refuse writes. Positive controls show that the
 * knobs do react to valid input, so the "changes nothing" checks can fail.
 * Knobs are found by listing the directories: a new parameter is covered
 * without editing this file (bool ones, which read back Y/N, fully).
 *
 * usage: badinput   (zswap is switched to zsmalloc_mod for a pool to exist)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kselftest.h"
#include "zsmod_util.h"

#define MAX_KNOBS 32

static char longstr[4000];

/*
 * Refused by kstrtobool() and by a "1 and nothing else" parser alike.
 * kstrtobool() looks at the first character(s) only: "1x" or "yes" would be
 * valid booleans, so they are in compact_garbage only.
 */
static const char *const garbage[] = { "garbage", "2", "-1", " 1", "ox", "\x01\xff",
				       longstr, NULL };
/* the last: "1" after 33 zeros, then garbage past what a parser reads */
static const char *const compact_garbage[] = { "0", "1x", "11", "one",
	"0000000000000000000000000000000001garbage", NULL };
/* For parameters of a type we do not know: invalid for bool and numbers. */
static const char *const any_garbage[] = { "garbage", "\x01\xff", NULL };

struct knob {
	char path[512];
	int writable;
};

static int list_files(const char *dir, struct knob *k, int n)
{
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)) && n < MAX_KNOBS) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(k[n].path, sizeof(k[n].path), "%s/%s", dir, de->d_name);
		if (stat(k[n].path, &st) || !S_ISREG(st.st_mode))
			continue;
		k[n].writable = !!(st.st_mode & 0222);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static int count(const char *const *v)
{
	int n = 0;

	while (v[n])
		n++;
	return n;
}

static const char *show(const char *s)
{
	static char buf[40];
	size_t i, o = 0;

	if (strlen(s) > 16) {
		snprintf(buf, sizeof(buf), "%zu x '%c'", strlen(s), s[0]);
		return buf;
	}
	for (i = 0; s[i] && o + 5 < sizeof(buf); i++)
		o += snprintf(buf + o, sizeof(buf) - o, s[i] > ' ' && s[i] < 127 ?
			      "%c" : "\\x%02x", (unsigned char)s[i]);
	buf[o] = '\0';
	return buf;
}

/* Bool parameters read back as Y or N: they get the full garbage list. */
static int is_bool(const char *path)
{
	char v[8];

	return read_str(path, v, sizeof(v)) == 1 && (v[0] == 'Y' || v[0] == 'N');
}

static const char *base(const char *path)
{
	return strrchr(path, '/') + 1;
}

/* Each garbage write must fail with EINVAL and leave the value as it was. */
static void refuse_all(const char *path, const char *const *bad)
{
	char before[256], after[256];
	int i, err;

	for (i = 0; bad[i]; i++) {
		read_str(path, before, sizeof(before));
		err = write_str(path, bad[i]);
		read_str(path, after, sizeof(after));
		ksft_test_result(err == -EINVAL && !strcmp(before, after),
				 "%s <- '%s' refused with EINVAL (%s), value '%s' kept\n",
				 base(path), show(bad[i]), strerror(-err), after);
	}
}

static void test_compact(const char *path, const char *pool)
{
	long c0, p0, c1, p1;
	int i, err;

	/* No workload is running: only our writes can move these counters. */
	c0 = zsmod_stat(pool, "compactions");
	p0 = zsmod_stat(pool, "pages_compacted");
	for (i = 0; garbage[i]; i++) {
		err = write_str(path, garbage[i]);
		ksft_test_result(err == -EINVAL, "compact <- '%s' refused with EINVAL (%s)\n",
				 show(garbage[i]), strerror(-err));
	}
	for (i = 0; compact_garbage[i]; i++) {
		err = write_str(path, compact_garbage[i]);
		ksft_test_result(err == -EINVAL, "compact <- '%s' refused with EINVAL (%s)\n",
				 show(compact_garbage[i]), strerror(-err));
	}
	c1 = zsmod_stat(pool, "compactions");
	p1 = zsmod_stat(pool, "pages_compacted");
	ksft_test_result(c0 >= 0 && c1 == c0 && p1 == p0,
			 "refused compact writes changed nothing (compactions %ld -> %ld)\n",
			 c0, c1);

	err = write_str(path, "1");
	c1 = zsmod_stat(pool, "compactions");
	ksft_test_result(!err && c1 > c0,
			 "control: compact <- '1' accepted, compactions %ld -> %ld\n", c0, c1);
}

static void test_bool(const char *path)
{
	char before[64], after[64];
	int err;

	refuse_all(path, garbage);
	/* Control: the opposite value is accepted and visible, then restored. */
	read_str(path, before, sizeof(before));
	err = write_str(path, before[0] == 'Y' ? "0" : "1");
	read_str(path, after, sizeof(after));
	ksft_test_result(!err && strcmp(before, after),
			 "control: %s flips %s -> %s\n", base(path), before, after);
	write_str(path, before[0] == 'Y' ? "1" : "0");
}

int main(void)
{
	struct knob params[MAX_KNOBS], dbg[MAX_KNOBS];
	int np, nd, i, plan = 0, err;
	char pool[256], autoc[8] = "";

	memset(longstr, '9', sizeof(longstr) - 1);
	ksft_print_header();

	err = setup_zswap(ZSMOD_NAME);
	if (err)
		ksft_exit_fail_msg("zswap refused %s: %s\n", ZSMOD_NAME, strerror(-err));
	if (zsmod_pool_dir(pool, sizeof(pool)))
		ksft_exit_fail_msg("no pool of ours in %s\n", ZSMOD_DEBUGFS);

	np = list_files(ZSMOD_PARAMS, params, 0);
	nd = list_files(ZSMOD_DEBUGFS, dbg, 0);
	nd = list_files(pool, dbg, nd);

	for (i = 0; i < np; i++)
		if (params[i].writable && is_bool(params[i].path))
			plan += count(garbage) + 1;
		else if (params[i].writable)
			plan += count(any_garbage);
	for (i = 0; i < nd; i++)
		if (!strcmp(base(dbg[i].path), "compact"))
			plan += count(garbage) + count(compact_garbage) + 2;
		else if (dbg[i].writable)
			plan += count(any_garbage);
	plan += 2;	/* read-only files; the expected knobs exist */
	ksft_set_plan(plan);
	ksft_print_msg("pool %s, %d parameter(s), %d debugfs file(s)\n", pool, np, nd);

	for (i = 0; i < np; i++)
		if (params[i].writable && is_bool(params[i].path))
			test_bool(params[i].path);
		else if (params[i].writable)
			refuse_all(params[i].path, any_garbage);
	/* Background compaction would move the counters test_compact() watches. */
	read_str(ZSMOD_PARAMS "/auto_compact", autoc, sizeof(autoc));
	write_str(ZSMOD_PARAMS "/auto_compact", "N");
	for (i = 0; i < nd; i++)
		if (!strcmp(base(dbg[i].path), "compact"))
			test_compact(dbg[i].path, pool);
		else if (dbg[i].writable)
			refuse_all(dbg[i].path, any_garbage);
	if (autoc[0])
		write_str(ZSMOD_PARAMS "/auto_compact", autoc);

	err = 0;
	for (i = 0; i < np + nd; i++) {
		struct knob *k = i < np ? &params[i] : &dbg[i - np];

		if (!k->writable && !write_str(k->path, "1")) {
			ksft_print_msg("read-only %s accepted a write\n", k->path);
			err = 1;
		}
	}
	ksft_test_result(!err, "read-only files refuse writes\n");

	{
		char p[512];
		int found = 0;

		snprintf(p, sizeof(p), "%s/compact", pool);
		found += path_exists(p);
		found += path_exists(ZSMOD_PARAMS "/shrinker_enabled");
		ksft_test_result(found == 2, "knobs compact and shrinker_enabled exist\n");
	}
	ksft_finished();
}
