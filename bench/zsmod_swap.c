// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end zswap benchmark workload (static, runs in the test guest).
 *
 *   zsmod_swap --cg DIR --mib N --corpus PATH[,PATH...] [--tag TEXT]
 *	Join cgroup DIR, fill N MiB of anonymous memory with the content
 *	stream (below), push it all out with DIR/memory.reclaim, read the
 *	zswap debugfs counters while the data is still held, fault every page
 *	back in, verify every page against a per-page hash taken at fill time.
 *	Prints one line "e2e TEXT key=value ..." on stdout; exit 0 only if
 *	every page came back intact. With --peak-copy SRC DST, also copies
 *	file SRC (say a pool's debugfs classes table) to DST at that moment.
 *	With --prof DIR (the debugfs directory of bench/zsmod_prof.ko), runs
 *	that profiler during swap-out and during swap-in only, and copies its
 *	reports to /tmp/prof-out and /tmp/prof-in. With --slab P1,P2..., also
 *	reports as meta_bytes the slab pages held at that moment by the caches
 *	whose names start with one of the prefixes (the backend's own).
 *
 *   zsmod_swap --dump FILE --mib N --corpus PATH[,PATH...]
 *	Write the first N MiB of the same content stream to FILE (the input
 *	of the zsmod_bench micro-benchmark module).
 *
 * Content stream, page i: i % 20 == 7 is a zero page, i % 20 == 13 a page
 * of pseudo-random bytes (incompressible), every other page the next 4 KiB
 * of the concatenation of the regular files under the corpus paths (sorted
 * walk, wrapping around at the end). Identical for every backend.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PG	4096UL
#define MIB	(1024UL * 1024)
#define ZSW	"/sys/kernel/debug/zswap/"
#define MAXF	4096

static char *files[MAXF];
static int nfiles;

static void die(const char *what)
{
	fprintf(stderr, "zsmod_swap: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void collect(const char *path)
{
	struct dirent **ents;
	struct stat st;
	int n, i;

	if (lstat(path, &st))
		return;
	if (S_ISREG(st.st_mode)) {
		if (st.st_size >= (off_t)PG && nfiles < MAXF)
			files[nfiles++] = strdup(path);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		return;
	n = scandir(path, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char sub[1024];

		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			collect(sub);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* The concatenated file stream. */
static int cur_fd = -1, cur_file = -1;

static void stream_read(char *dst, size_t len)
{
	size_t got = 0;
	int wraps = 0;

	while (got < len) {
		ssize_t r = 0;

		if (cur_fd >= 0)
			r = read(cur_fd, dst + got, len - got);
		if (r > 0) {
			got += r;
			continue;
		}
		if (cur_fd >= 0)
			close(cur_fd);
		cur_file = (cur_file + 1) % nfiles;
		if (cur_file == 0 && ++wraps > 2) {
			errno = ENOENT;
			die("corpus unreadable");
		}
		cur_fd = open(files[cur_file], O_RDONLY);
	}
}

static unsigned long long xorshift(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void gen_page(char *p, unsigned long i)
{
	switch (i % 20) {
	case 7:
		memset(p, 0, PG);
		break;
	case 13: {
		unsigned long long s = (i + 1) * 0x9E3779B97F4A7C15ULL;
		unsigned long long *q = (unsigned long long *)p;
		size_t k;

		for (k = 0; k < PG / 8; k++)
			q[k] = xorshift(&s);
		break;
	}
	default:
		stream_read(p, PG);
	}
}

static unsigned long long page_hash(const char *p)
{
	const unsigned long long *q = (const unsigned long long *)p;
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t k;

	for (k = 0; k < PG / 8; k++)
		h = (h ^ q[k]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long long read_num(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtoll(buf, NULL, 10);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* A field of a "key value" file such as memory.stat; -1 if absent. */
static long long stat_field(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static const char *const zsw_keys[] = {
	"stored_pages", "pool_total_size", "written_back_pages", "pool_limit_hit",
	"reject_reclaim_fail", "reject_alloc_fail", "reject_kmemcache_fail",
	"reject_compress_fail", "reject_compress_poor",
};

#define NZSW (sizeof(zsw_keys) / sizeof(*zsw_keys))

static void zsw_read(long long *v)
{
	char path[128];
	size_t k;

	for (k = 0; k < NZSW; k++) {
		snprintf(path, sizeof(path), ZSW "%s", zsw_keys[k]);
		v[k] = read_num(path);
	}
}

/*
 * Bytes of slab pages held by the caches whose names start with one of the
 * comma-separated @prefixes: what a backend needs besides its pool pages
 * (handles, zspage descriptors). Apart from other caches only with
 * slab_nomerge, which run.sh puts on the guest's command line. Counted at
 * the peak, whole: slabs an earlier run emptied are reused by this one.
 */
/* name active num objsize perslab pages : tunables .. : slabdata active num shared */
#define SLABINFO_FMT \
	"%127s %*u %*u %*u %*u %lu : tunables %*u %*u %*u : slabdata %*u %lu"

static long long slab_bytes(const char *prefixes)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512], name[128], pre[256], *tok, *save;
	unsigned long pages, slabs;
	long long sum = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, SLABINFO_FMT, name, &pages, &slabs) != 3)
			continue;
		snprintf(pre, sizeof(pre), "%s", prefixes);
		for (tok = strtok_r(pre, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!strncmp(name, tok, strlen(tok)))
				sum += (long long)slabs * pages * PG;
	}
	fclose(f);
	return sum;
}

static void corpus_init(char *list)
{
	char *tok;

	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
		collect(tok);
	if (!nfiles) {
		errno = ENOENT;
		die("no corpus files");
	}
}

static int dump(const char *out, unsigned long npages)
{
	static char page[PG];
	unsigned long i;
	FILE *f = fopen(out, "w");

	if (!f)
		die(out);
	for (i = 0; i < npages; i++) {
		gen_page(page, i);
		if (fwrite(page, PG, 1, f) != 1)
			die("write");
	}
	if (fclose(f))
		die("close");
	return 0;
}

/* Copy @src to @dst; a debugfs file has no size, so read to the end. */
static void copy_file(const char *src, const char *dst)
{
	char chunk[4096];
	int in, out;
	ssize_t n;

	in = open(src, O_RDONLY);
	if (in < 0)
		return;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out >= 0) {
		while ((n = read(in, chunk, sizeof(chunk))) > 0)
			if (write(out, chunk, n) != n)
				break;
		close(out);
	}
	close(in);
}

/*
 * Profiler control (--prof DIR): with @report NULL start a phase, else end
 * it and keep its report in @report.
 */
static void prof_phase(const char *dir, const char *report)
{
	char path[512];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/enable", dir);
	write_str(path, report ? "0" : "1");
	if (report) {
		snprintf(path, sizeof(path), "%s/report", dir);
		copy_file(path, report);
	}
}

int main(int argc, char **argv)
{
	const char *peak_src = NULL, *peak_dst = NULL, *prof = NULL;
	const char *slab_prefixes = NULL;
	const char *cg = NULL, *out = NULL, *tag = "-";
	char *corpus = NULL, path[512], pid[32];
	unsigned long mib = 32, npages, i, bad = 0;
	long long z0[NZSW], z1[NZSW], z2[NZSW], cur0, cur1, zswapped, zswap_b;
	long long meta;
	unsigned long long *hash, t0, t1, t2, t3, t4;
	unsigned long touch = 0;
	char *buf;
	int r, a, reclaim_rc;
	size_t k;

	for (a = 1; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--peak-copy") && a + 2 < argc) {
			peak_src = argv[a + 1];
			peak_dst = argv[a + 2];
			a++;
			continue;
		}
		if (!strcmp(argv[a], "--prof"))
			prof = argv[a + 1];
		else if (!strcmp(argv[a], "--cg"))
			cg = argv[a + 1];
		else if (!strcmp(argv[a], "--mib"))
			mib = strtoul(argv[a + 1], NULL, 0);
		else if (!strcmp(argv[a], "--corpus"))
			corpus = argv[a + 1];
		else if (!strcmp(argv[a], "--tag"))
			tag = argv[a + 1];
		else if (!strcmp(argv[a], "--dump"))
			out = argv[a + 1];
		else if (!strcmp(argv[a], "--slab"))
			slab_prefixes = argv[a + 1];
		else
			break;
	}
	if (a != argc || !corpus || !mib || (!cg == !out)) {
		fprintf(stderr,
			"usage: zsmod_swap (--cg DIR | --dump FILE) --mib N --corpus PATHS [--tag T] [--peak-copy SRC DST] [--slab PREFIXES]\n");
		return 2;
	}
	corpus_init(corpus);
	npages = mib * MIB / PG;
	if (out)
		return dump(out, npages);

	/* Join the memcg first: pages are charged where they are first touched. */
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	if (write_str(path, pid))
		die(path);

	hash = calloc(npages, sizeof(*hash));
	buf = mmap(NULL, npages * PG, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!hash || buf == MAP_FAILED)
		die("alloc");
	madvise(buf, npages * PG, MADV_NOHUGEPAGE);
	for (i = 0; i < npages; i++) {
		gen_page(buf + i * PG, i);
		hash[i] = page_hash(buf + i * PG);
	}

	zsw_read(z0);
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	cur0 = read_num(path);

	/* Swap-out: ask the memcg to reclaim the whole working set. */
	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	snprintf(pid, sizeof(pid), "%lu\n", npages * PG);
	prof_phase(prof, NULL);
	t0 = now_ns();
	reclaim_rc = write_str(path, pid);
	t1 = now_ns();
	prof_phase(prof, "/tmp/prof-out");

	/* Density, read while we still hold the data. */
	zsw_read(z1);
	meta = slab_prefixes ? slab_bytes(slab_prefixes) : 0;
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	cur1 = read_num(path);
	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	zswapped = stat_field(path, "zswapped");
	zswap_b = stat_field(path, "zswap");
	if (peak_src)
		copy_file(peak_src, peak_dst);

	/* Swap-in: fault every page back, in order. */
	prof_phase(prof, NULL);
	t2 = now_ns();
	for (i = 0; i < npages; i++)
		touch += (unsigned char)buf[i * PG];
	t3 = now_ns();
	prof_phase(prof, "/tmp/prof-in");
	for (i = 0; i < npages; i++) {
		if (page_hash(buf + i * PG) != hash[i])
			bad++;
	}
	t4 = now_ns();
	zsw_read(z2);

	printf("e2e %s pages=%lu out_ns=%llu in_ns=%llu verify_ns=%llu reclaim_rc=%d",
	       tag, npages, t1 - t0, t3 - t2, t4 - t3, reclaim_rc);
	printf(" memcur_before=%lld memcur_after=%lld", cur0, cur1);
	printf(" memcg_zswapped=%lld memcg_zswap=%lld bad_pages=%lu touch_sum=%lu",
	       zswapped, zswap_b, bad, touch);
	/* stored_pages and pool size: held minus before; rejects etc.: whole run */
	printf(" stored_pages=%lld pool_bytes=%lld", z1[0] - z0[0], z1[1] - z0[1]);
	printf(" meta_bytes=%lld", meta);
	for (k = 2; k < NZSW; k++)
		printf(" %s=%lld", zsw_keys[k], z2[k] - z0[k]);
	printf(" left_stored=%lld left_pool=%lld\n", z2[0] - z0[0], z2[1] - z0[1]);
	r = bad ? 1 : 0;
	return r;
}
