// SPDX-License-Identifier: GPL-2.0
/*
 * pressure: threads of one process that keep a memcg at its memory.max.
 *
 * The process joins a cgroup v2 memcg before it touches memory, maps a
 * working set larger than the memcg's limit and runs -t threads over it
 * until the deadline. Thread t owns the pages whose index is t modulo the
 * number of threads, so neighbouring pages belong to different threads:
 * swap readahead and reclaim work on pages other threads are using. Each
 * step a thread picks one of its pages at random and checks it byte for
 * byte against content regenerated from (seed, page, generation), which
 * faults it back in from zswap or the swap disk. The charge for that
 * swap-in fails at the limit and reclaims inside the fault: zswap stores
 * other pages from there, so the backend allocates in direct reclaim, in
 * many tasks at once, while others free. A quarter of the checks rewrite
 * the page with a new generation; one in 64 discards it with
 * MADV_DONTNEED (it must then read back as zeroes) and one in 64 pushes a
 * run of pages out with MADV_PAGEOUT.
 *
 * Content: the first 16 bytes name the page and generation; the rest is
 * random bytes up to a length drawn from (seed, page, generation), then
 * zeroes or a short pattern, so every zsmalloc size class is hit, huge
 * (incompressible, rejected by zswap) included.
 *
 * usage: pressure [-c CGROUPDIR] [-m MIB] [-t THREADS] [-s SECONDS]
 *                 [-S SEED] [-F] [-X]
 *   -F  each thread writes 1 to /proc/thread-self/make-it-fail once its
 *       pages are filled: fault injection with task-filter fails
 *       allocations made in these threads' context, such as those of
 *       zswap and its backend in direct reclaim
 *   -X  corrupt one byte of one page after the fill: the checker must
 *       count exactly one mismatch (self-test of the checker)
 * Prints one summary line of "key=value" counts; exit 0 = every page read
 * back as written, 1 = a mismatch, 2 = an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PG 4096UL
#define GEN_DISCARDED UINT32_MAX	/* MADV_DONTNEED'd: reads as zeroes */
#define PAGEOUT_RUN 16			/* pages per MADV_PAGEOUT */

static unsigned char *region;
static uint32_t *gen;			/* per page, written by its owner only */
static unsigned long npages;
static unsigned int nthreads = 8;
static uint64_t seed = 1;
static struct timespec deadline;
static int corrupt, fail;
static atomic_ulong n_checks, n_rewrites, n_discards, n_pageouts, n_bad;

struct worker {
	pthread_t tid;
	unsigned int t;
	uint64_t rng;
	unsigned char buf[PG];
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t next(uint64_t *s)
{
	*s = mix(*s);
	return *s;
}

/* The content of page @pg in generation @g. */
static void make_page(unsigned char *p, unsigned long pg, uint32_t g)
{
	uint64_t s = mix(seed ^ mix(pg) ^ ((uint64_t)g << 40));
	size_t len, i;
	uint64_t w;

	if (g == GEN_DISCARDED) {
		memset(p, 0, PG);
		return;
	}
	len = 16 + next(&s) % (PG - 16 + 1);
	memcpy(p, &pg, 8);
	memcpy(p + 8, &g, 4);
	memset(p + 12, 0xa5, 4);
	for (i = 16; i + 8 <= len; i += 8) {
		w = next(&s);
		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = next(&s);
	w = next(&s);
	for (; i < PG; i++)
		p[i] = (w & 1) ? (unsigned char)(i % 7) : 0;
}

static int expired(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline.tv_sec ||
	       (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

static void check(struct worker *w, unsigned long pg)
{
	unsigned char *p = region + pg * PG;
	size_t i;

	make_page(w->buf, pg, gen[pg]);
	atomic_fetch_add(&n_checks, 1);
	if (!memcmp(p, w->buf, PG))
		return;
	for (i = 0; i < PG && p[i] == w->buf[i]; i++)
		;
	if (atomic_fetch_add(&n_bad, 1) < 10)
		fprintf(stderr,
			"pressure: page %lu gen %u: first difference at byte %zu: %#x, expected %#x\n",
			pg, gen[pg], i, p[i], w->buf[i]);
	/* repair, so that one loss is counted once */
	memcpy(p, w->buf, PG);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned long mine = (npages - w->t + nthreads - 1) / nthreads;
	unsigned long pg, step = 0;
	uint64_t r;

	for (pg = w->t; pg < npages; pg += nthreads)
		make_page(region + pg * PG, pg, gen[pg]);
	if (corrupt && w->t == 0)
		region[PG / 2] ^= 0x40;		/* page 0 is thread 0's */
	if (fail) {
		int fd = open("/proc/thread-self/make-it-fail", O_WRONLY);

		if (fd < 0 || write(fd, "1", 1) != 1)
			fprintf(stderr, "pressure: make-it-fail: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	while (!(step++ % 64 == 0 && expired())) {
		r = next(&w->rng);
		pg = w->t + (r % mine) * nthreads;
		check(w, pg);
		switch ((r >> 32) % 64) {
		case 0:
			if (madvise(region + pg * PG, PG, MADV_DONTNEED) == 0) {
				gen[pg] = GEN_DISCARDED;
				atomic_fetch_add(&n_discards, 1);
			}
			break;
		case 1: {
			unsigned long first = pg > PAGEOUT_RUN ? pg - PAGEOUT_RUN : 0;
			unsigned long n = first + 2 * PAGEOUT_RUN < npages ?
					  2 * PAGEOUT_RUN : npages - first;

			/* EINVAL before 5.4: the pages just stay */
			if (madvise(region + first * PG, n * PG, MADV_PAGEOUT) == 0)
				atomic_fetch_add(&n_pageouts, 1);
			break;
		}
		default:
			if ((r >> 40) % 4 == 0) {
				gen[pg] = gen[pg] == GEN_DISCARDED ? 0 : gen[pg] + 1;
				make_page(region + pg * PG, pg, gen[pg]);
				atomic_fetch_add(&n_rewrites, 1);
			}
		}
	}
	/* a last pass over every page, so no loss goes unseen */
	for (pg = w->t; pg < npages; pg += nthreads)
		check(w, pg);
	return NULL;
}

static int join_cgroup(const char *cg)
{
	char path[4096], pid[32];
	int fd, len, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	len = snprintf(pid, sizeof(pid), "%d\n", getpid());
	ok = write(fd, pid, len) == len;
	close(fd);
	return ok ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	unsigned long mib = 96, secs = 60, i;
	const char *cg = NULL;
	struct worker *w;
	int opt;

	while ((opt = getopt(argc, argv, "c:m:t:s:S:FX")) != -1) {
		switch (opt) {
		case 'c': cg = optarg; break;
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 't': nthreads = strtoul(optarg, NULL, 0); break;
		case 's': secs = strtoul(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'F': fail = 1; break;
		case 'X': corrupt = 1; break;
		default:
			fprintf(stderr, "usage: %s [-c CGROUPDIR] [-m MIB] [-t THREADS] [-s SECONDS] [-S SEED] [-F] [-X]\n",
				argv[0]);
			return 2;
		}
	}
	npages = mib * (1024 * 1024 / PG);
	if (!nthreads || npages < nthreads) {
		fprintf(stderr, "pressure: need at least one page per thread\n");
		return 2;
	}
	if (cg) {
		int err = join_cgroup(cg);

		if (err) {
			fprintf(stderr, "pressure: joining %s: %s\n", cg, strerror(-err));
			return 2;
		}
	}
	region = mmap(NULL, npages * PG, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	gen = calloc(npages, sizeof(*gen));
	w = calloc(nthreads, sizeof(*w));
	if (region == MAP_FAILED || !gen || !w) {
		fprintf(stderr, "pressure: out of memory\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += secs;
	for (i = 0; i < nthreads; i++) {
		w[i].t = i;
		w[i].rng = mix(seed + i + 1);
		if (pthread_create(&w[i].tid, NULL, work, &w[i])) {
			fprintf(stderr, "pressure: pthread_create failed\n");
			return 2;
		}
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].tid, NULL);
	printf("pressure: pages=%lu threads=%u checks=%lu rewrites=%lu discards=%lu pageouts=%lu mismatches=%lu\n",
	       npages, nthreads, atomic_load(&n_checks), atomic_load(&n_rewrites),
	       atomic_load(&n_discards), atomic_load(&n_pageouts), atomic_load(&n_bad));
	return atomic_load(&n_bad) ? 1 : 0;
}
