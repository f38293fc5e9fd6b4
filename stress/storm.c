// SPDX-License-Identifier: GPL-2.0
/*
 * storm: one writer process of the zsmalloc_mod stress run (stress/).
 *
 * Joins a cgroup v2 memcg *before* it touches its working set (memcg charges
 * where memory is first touched), fills an anonymous region page by page
 * with mixed content and remembers a 64-bit checksum of every page. Then, in
 * rounds until the deadline: re-reads every page in a shuffled order and
 * checks it (which swaps it in from zswap or the disk), rewrites a share of
 * them with new content, and pushes parts of the region out again with
 * MADV_PAGEOUT so that zswap stores them (through our allocator).
 *
 * Content kinds, all derived from (seed, page, generation) so a mismatch can
 * be diagnosed against a regenerated copy:
 *   zero     all zeroes (zswap keeps those without the allocator)
 *   random   incompressible (zswap rejects or stores near-PAGE_SIZE objects)
 *   pattern  words repeating with a short period (tiny objects)
 *   file     4 KiB of a real file (-f, read whole at start, kept in a
 *            private anonymous copy that is itself swapped and checked)
 *   mixed    random prefix of any length, then a pattern: every size class
 *
 * usage: storm -n NAME [-c CGROUPDIR] [-m MIB] [-t SECONDS] [-s SEED]
 *              [-f FILE]... [-r RESULTFILE] [-k KIND] [-F] [-X] [-v]
 *   -k KIND  only pages of that kind (zero, random, pattern, file, mixed)
 *   -X  flip one bit after the fill: the checker must count it (self-test)
 *   -F  write 1 to /proc/self/make-it-fail once filled (fault injection
 *       restricted to this task, and to the children it does not have)
 * Prints one summary line; exit 0 = no mismatch, 1 = mismatch, 2 = error.
 * The summary is also written to RESULTFILE as "key value" lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PG 4096UL
enum { K_ZERO, K_RANDOM, K_PATTERN, K_FILE, K_MIXED, K_NR };
static const char *const kind_name[K_NR] = {
	"zero", "random", "pattern", "file", "mixed" };

struct meta {
	uint64_t csum;
	uint32_t gen;
	uint8_t kind;
};

static const char *name = "storm";
static uint64_t seed = 1;
static unsigned char *region, *filebuf;
static size_t npages, filelen;
static struct meta *meta;
static volatile sig_atomic_t stop;

/* counters */
static unsigned long n_verified, n_written, n_mismatch, n_rounds, n_pageout,
	n_pageout_err, n_kind[K_NR], n_file_check;

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t xs(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static uint64_t page_csum(const unsigned char *p)
{
	const uint64_t *w = (const uint64_t *)p;
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < PG / 8; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL + (h >> 29);
	return h;
}

/* Expected content of page idx at generation gen and kind into dst. */
static void gen_page(unsigned char *dst, size_t idx, uint32_t gen, int kind)
{
	uint64_t s = mix64(seed ^ mix64(idx * 0x10001ULL + gen)) | 1;
	uint64_t *w = (uint64_t *)dst;
	size_t i, n, period;

	switch (kind) {
	case K_ZERO:
		memset(dst, 0, PG);
		break;
	case K_RANDOM:
		for (i = 0; i < PG / 8; i++)
			w[i] = xs(&s);
		break;
	case K_PATTERN:
		period = 1 + xs(&s) % 16;
		for (i = 0; i < PG / 8; i++)
			w[i] = (i % period) * 0x0101010101010101ULL ^ (idx << 20) ^ gen;
		break;
	case K_FILE:
		if (filelen >= PG) {
			size_t off = (xs(&s) % (filelen - PG + 1)) & ~7UL;

			memcpy(dst, filebuf + off, PG);
		} else {
			memset(dst, 0x5a, PG);
		}
		break;
	case K_MIXED:
		n = xs(&s) % (PG / 8 + 1);
		for (i = 0; i < n; i++)
			w[i] = xs(&s);
		for (; i < PG / 8; i++)
			w[i] = idx ^ ((uint64_t)gen << 32) ^ (i & 3);
		break;
	}
}

static void write_page(size_t idx, uint32_t gen, int kind)
{
	unsigned char *p = region + idx * PG;

	gen_page(p, idx, gen, kind);
	meta[idx].gen = gen;
	meta[idx].kind = kind;
	meta[idx].csum = page_csum(p);
	n_written++;
	n_kind[kind]++;
}

static int only_kind = -1;	/* -k KIND: every page of that kind */

static int pick_kind(uint64_t *s)
{
	/* file and mixed content dominate: they are what zswap stores */
	static const int table[16] = {
		K_ZERO, K_ZERO, K_RANDOM, K_RANDOM, K_PATTERN, K_PATTERN,
		K_PATTERN, K_FILE, K_FILE, K_FILE, K_FILE, K_MIXED, K_MIXED,
		K_MIXED, K_MIXED, K_MIXED };

	if (only_kind >= 0)
		return only_kind;
	return table[xs(s) % 16];
}

static void report_mismatch(size_t idx)
{
	static unsigned char exp[PG];
	unsigned char *p = region + idx * PG;
	struct meta m = meta[idx];
	size_t off, ndiff = 0, first = PG;

	gen_page(exp, idx, m.gen, m.kind);
	for (off = 0; off < PG; off++) {
		if (p[off] != exp[off]) {
			if (first == PG)
				first = off;
			ndiff++;
		}
	}
	fprintf(stderr,
		"storm %s: MISMATCH page %zu (addr %p) kind %s gen %u: csum %016llx expected %016llx; vs regenerated: %zu bytes differ, first at %zu (got %02x want %02x)\n",
		name, idx, (void *)p, kind_name[m.kind], m.gen,
		(unsigned long long)page_csum(p), (unsigned long long)m.csum,
		ndiff, first, first < PG ? p[first] : 0,
		first < PG ? exp[first] : 0);
	if (ndiff == 0)
		fprintf(stderr, "storm %s: page %zu equals its regenerated content: the metadata (or file copy) was corrupted instead\n",
			name, idx);
}

static int verify_page(size_t idx)
{
	n_verified++;
	if (page_csum(region + idx * PG) == meta[idx].csum)
		return 0;
	n_mismatch++;
	if (n_mismatch <= 20)
		report_mismatch(idx);
	/* repair, so that one corruption is counted once */
	write_page(idx, meta[idx].gen + 1, meta[idx].kind);
	return -1;
}

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int join_cgroup(const char *cg)
{
	char path[512], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d", getpid());
	if (write(fd, buf, n) != n) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return 0;
}

static int add_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	size_t got = 0;
	ssize_t r;

	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "storm %s: %s: %s\n", name, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	filebuf = realloc(filebuf, filelen + st.st_size + 1);
	if (!filebuf)
		return -1;
	while (got < (size_t)st.st_size) {
		r = read(fd, filebuf + filelen + got, st.st_size - got);
		if (r <= 0)
			break;
		got += r;
	}
	close(fd);
	filelen += got;
	return 0;
}

int main(int argc, char **argv)
{
	const char *cg = NULL, *resfile = NULL, *files[16];
	int nfiles = 0, failme = 0, verbose = 0, corrupt = 0, opt, i;
	long mib = 32, secs = 30;
	uint64_t rs;
	uint64_t filecsum = 0;
	double t0, deadline;
	size_t idx, k;
	FILE *f;

	while ((opt = getopt(argc, argv, "n:c:m:t:s:f:r:FvXk:")) != -1) {
		switch (opt) {
		case 'n': name = optarg; break;
		case 'c': cg = optarg; break;
		case 'm': mib = atol(optarg); break;
		case 't': secs = atol(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'f': if (nfiles < 16) files[nfiles++] = optarg; break;
		case 'r': resfile = optarg; break;
		case 'F': failme = 1; break;
		case 'v': verbose = 1; break;
		case 'X': corrupt = 1; break;
		case 'k':
			for (i = 0; i < K_NR; i++)
				if (!strcmp(optarg, kind_name[i]))
					only_kind = i;
			if (only_kind < 0) {
				fprintf(stderr, "storm: unknown kind %s\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: storm -n NAME [-c CG] [-m MIB] [-t S] [-s SEED] [-f FILE]... [-r RES] [-F] [-v]\n");
			return 2;
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (cg) {
		int err = join_cgroup(cg);

		if (err) {
			fprintf(stderr, "storm %s: joining %s: %s\n", name, cg, strerror(-err));
			return 2;
		}
	}
	for (i = 0; i < nfiles; i++)
		add_file(files[i]);
	if (filelen)
		filecsum = mix64(filelen);
	for (k = 0; k + 8 <= filelen; k += 8)
		filecsum = mix64(filecsum ^ *(uint64_t *)(filebuf + k));

	npages = (size_t)mib * (1 << 20) / PG;
	region = mmap(NULL, npages * PG, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	meta = calloc(npages, sizeof(*meta));
	if (region == MAP_FAILED || !meta) {
		fprintf(stderr, "storm %s: no memory for %ld MiB\n", name, mib);
		return 2;
	}
	/* THP would swap out as a unit and split: keep it per page */
	madvise(region, npages * PG, MADV_NOHUGEPAGE);

	rs = mix64(seed) | 1;
	for (idx = 0; idx < npages; idx++)
		write_page(idx, 0, pick_kind(&rs));
	if (corrupt)	/* self-test of the checker: must report 1 mismatch */
		region[(npages / 2) * PG + 123] ^= 0x40;
	if (failme) {
		int fd = open("/proc/self/make-it-fail", O_WRONLY);

		if (fd < 0 || write(fd, "1", 1) != 1)
			fprintf(stderr, "storm %s: make-it-fail: %s\n", name, strerror(errno));
		if (fd >= 0)
			close(fd);
	}

	t0 = now();
	deadline = t0 + secs;
	while (!stop && now() < deadline) {
		/* a stride coprime with npages visits every page once */
		size_t stride = (xs(&rs) % npages) | 1, start = xs(&rs) % npages;

		while (npages > 1 && gcd(stride, npages) != 1)
			stride++;
		for (k = 0, idx = start; k < npages && !stop; k++) {
			idx = (idx + stride) % npages;
			verify_page(idx);
			if (xs(&rs) % 4 == 0)
				write_page(idx, meta[idx].gen + 1, pick_kind(&rs));
		}
		/* the file copy, as swappable as the rest */
		if (filelen) {
			uint64_t c = mix64(filelen);

			for (k = 0; k + 8 <= filelen; k += 8)
				c = mix64(c ^ *(uint64_t *)(filebuf + k));
			n_file_check++;
			if (c != filecsum) {
				n_mismatch++;
				fprintf(stderr, "storm %s: MISMATCH in the private file copy\n", name);
			}
		}
		/* push out random chunks covering about 3/4 of the region */
		for (k = 0; k < 8; k++) {
			size_t len = npages / 8 + 1, at = xs(&rs) % npages;

			if (at + len > npages)
				len = npages - at;
			if (madvise(region + at * PG, len * PG, MADV_PAGEOUT))
				n_pageout_err++;
			else
				n_pageout += len;
		}
		if (filelen)
			madvise(filebuf, filelen & ~(PG - 1), MADV_PAGEOUT);
		n_rounds++;
		if (verbose)
			fprintf(stderr, "storm %s: round %lu verified %lu written %lu mismatches %lu\n",
				name, n_rounds, n_verified, n_written, n_mismatch);
	}
	/* a last full check */
	for (idx = 0; idx < npages; idx++)
		verify_page(idx);

	printf("storm %s: %.0fs rounds %lu pages %zu verified %lu written %lu (zero %lu random %lu pattern %lu file %lu mixed %lu) pageout %lu pageout_err %lu filecheck %lu mismatches %lu\n",
	       name, now() - t0, n_rounds, npages, n_verified, n_written,
	       n_kind[K_ZERO], n_kind[K_RANDOM], n_kind[K_PATTERN],
	       n_kind[K_FILE], n_kind[K_MIXED], n_pageout, n_pageout_err,
	       n_file_check, n_mismatch);
	fflush(stdout);
	if (resfile) {
		f = fopen(resfile, "w");
		if (f) {
			fprintf(f, "rounds %lu\nverified %lu\nwritten %lu\npageout %lu\nmismatches %lu\n",
				n_rounds, n_verified, n_written, n_pageout, n_mismatch);
			fclose(f);
		}
	}
	return n_mismatch ? 1 : 0;
}
