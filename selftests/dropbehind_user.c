// SPDX-License-Identifier: GPL-2.0
/*
 * PG_dropbehind with a real process's memory (the test kernel's
 * kunit/patches/0004-0005): with zswap.writeback_dropbehind=1, and a memcg
 * whose zswap limit makes every store write an older entry back, the
 * anonymous pages of a process are written back while, at the same moment,
 * its threads fault them back in, MADV_FREE, MADV_DONTNEED and munmap them,
 * it forks and writes (copy on write), and swapoff runs. No page that was
 * not discarded may read back wrong. The dropbehind counters in /proc/vmstat
 * say which windows were hit; the run goes on (up to three times its
 * length) until a written-back folio was found mapped again (faulted back
 * in) before its worker came.
 *
 * Skipped (exit 4) on a kernel without zswap.writeback_dropbehind.
 *
 * usage: dropbehind_user [-b zpool-type] [-s seconds]   (default 30 s)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "zsmod_ksft.h"
#include "zsmod_util.h"

#define SWITCH	"/sys/module/zswap/parameters/writeback_dropbehind"
#define CG	"/sys/fs/cgroup/zsmod-dbuser"
#define PAGE	4096UL
#define CHUNK	64		/* pages per chunk, the unit of every operation */
#define NCHUNKS	256		/* 64 MiB */
#define WORDS	(PAGE / sizeof(unsigned long long))
/*
 * The process's pace: a chunk checked every 50 ms, a fork every second
 * that checks every 32nd chunk. Touching all of its memory all the time,
 * it had nothing cold for reclaim to push out (in the debug guest, zswap
 * wrote back 0 to 63 pages in 100-200 s; at this pace, 1482 in 145 s).
 */
#define READER_US	50000
#define FORK_US		1000000
#define FORK_STRIDE	32

enum { VALID, ZERO, FREED };	/* FREED: MADV_FREE, reads zero or the old data */

struct chunk {
	pthread_mutex_t lock;
	int state;
	unsigned int gen;
};

static char *mem;
static struct chunk chunks[NCHUNKS];
/* set by SIGTERM's handler, read by every thread */
static int stop;
#define STOPPED() __atomic_load_n(&stop, __ATOMIC_RELAXED)

/* Different for each page and generation */
static unsigned long long tag(unsigned long page, unsigned int gen)
{
	return 0x8000000000000000ULL | (unsigned long long)page << 32 | gen;
}

/*
 * Word @w of a page tagged @t: the first half hashed (splitmix64's
 * finaliser), the second half repetitive, so that a page compresses to
 * about half (zswap keeps it, and its memcg limit fills up).
 */
static unsigned long long word(unsigned long long t, unsigned int w)
{
	unsigned long long x = t ^ w;

	if (w >= WORDS / 2)
		return t ^ (w & 7);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void fill(unsigned int c)
{
	unsigned long p;
	unsigned int w;

	for (p = c * CHUNK; p < (c + 1) * CHUNK; p++) {
		unsigned long long *v = (unsigned long long *)(mem + p * PAGE);

		for (w = 0; w < WORDS; w++)
			v[w] = word(tag(p, chunks[c].gen), w);
	}
}

/* Pages of chunk @c that read back other than its state allows */
static long check(unsigned int c)
{
	unsigned long p, bad = 0;
	unsigned int w;

	for (p = c * CHUNK; p < (c + 1) * CHUNK; p++) {
		const unsigned long long *v = (const unsigned long long *)(mem + p * PAGE);
		int zero = 1, data = 1;

		for (w = 0; w < WORDS; w++) {
			zero &= v[w] == 0;
			data &= v[w] == word(tag(p, chunks[c].gen), w);
		}
		if (!(chunks[c].state == VALID ? data :
		      chunks[c].state == ZERO ? zero : zero || data))
			bad++;
	}
	return bad;
}

static unsigned int rnd(unsigned int *seed, unsigned int n)
{
	return rand_r(seed) % n;
}

static long reader_bad;

/* Faults chunks back in and checks them */
static void *reader(void *arg)
{
	unsigned int seed = 1;

	(void)arg;
	while (!STOPPED()) {
		unsigned int c = rnd(&seed, NCHUNKS);

		pthread_mutex_lock(&chunks[c].lock);
		reader_bad += check(c);
		pthread_mutex_unlock(&chunks[c].lock);
		usleep(READER_US);
	}
	return NULL;
}

static long ops[4];

/* Rewrites, discards, lazily frees and remaps chunks */
static void *mutator(void *arg)
{
	unsigned int seed = 2;

	(void)arg;
	while (!STOPPED()) {
		unsigned int c = rnd(&seed, NCHUNKS), op = rnd(&seed, 4);
		char *at = mem + c * CHUNK * PAGE;

		pthread_mutex_lock(&chunks[c].lock);
		switch (op) {
		case 0:
			chunks[c].gen++;
			fill(c);
			chunks[c].state = VALID;
			break;
		case 1:
			if (!madvise(at, CHUNK * PAGE, MADV_DONTNEED))
				chunks[c].state = ZERO;
			break;
		case 2:
			if (!madvise(at, CHUNK * PAGE, MADV_FREE) && chunks[c].state != ZERO)
				chunks[c].state = FREED;
			break;
		case 3:
			if (!munmap(at, CHUNK * PAGE) &&
			    mmap(at, CHUNK * PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == at)
				chunks[c].state = ZERO;
			break;
		}
		ops[op]++;
		pthread_mutex_unlock(&chunks[c].lock);
		usleep(2000);
	}
	return NULL;
}

/*
 * A forked copy checks every FORK_STRIDE-th chunk that no thread held at
 * fork time and chunk @c, writes a new generation into @c (breaking copy
 * on write) and checks it again.
 */
static long fork_check(unsigned int c)
{
	long bad = 0;
	pid_t pid = fork();
	int status;
	unsigned int i;

	if (pid < 0)
		return 0;
	if (!pid) {
		for (i = 0; i < NCHUNKS; i++) {
			if ((i % FORK_STRIDE && i != c) || pthread_mutex_trylock(&chunks[i].lock))
				continue;
			bad += check(i);
			if (i == c) {
				chunks[i].gen += 1000;
				fill(i);
				chunks[i].state = VALID;
				bad += check(i);
			}
		}
		_exit(bad > 250 ? 250 : (int)bad);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

static void on_stop(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* The process in the memcg: results on @out when SIGTERM stops it */
static void child(int out)
{
	pthread_t r, m;
	long forks = 0, fork_bad = 0, final_bad = 0, res[8];
	unsigned int c, seed = 3;

	signal(SIGTERM, on_stop);
	mem = mmap(NULL, NCHUNKS * CHUNK * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(2);
	for (c = 0; c < NCHUNKS; c++) {
		pthread_mutex_init(&chunks[c].lock, NULL);
		fill(c);
	}
	if (write(out, "r", 1) != 1)
		_exit(2);
	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&m, NULL, mutator, NULL);
	while (!STOPPED()) {
		fork_bad += fork_check(rnd(&seed, NCHUNKS));
		forks++;
		usleep(FORK_US);
	}
	pthread_join(r, NULL);
	pthread_join(m, NULL);
	for (c = 0; c < NCHUNKS; c++)
		final_bad += check(c);
	res[0] = reader_bad;
	res[1] = fork_bad;
	res[2] = final_bad;
	res[3] = forks;
	memcpy(&res[4], ops, sizeof(ops));
	if (write(out, res, sizeof(res)) != sizeof(res))
		_exit(2);
	_exit(0);
}

static const char *const counters[] = {
	"zswpwb", "dropbehind_wb_end", "dropbehind_dropped", "dropbehind_kept_dirty",
	"dropbehind_kept_mapped", "dropbehind_kept_busy", "dropbehind_left",
	"zswpout", "pswpout",
};

#define NCOUNTERS ARRAY_SIZE(counters)

enum { WB, WB_END, DROPPED, KEPT_DIRTY, KEPT_MAPPED, KEPT_BUSY, LEFT };

static void read_counters(long *v)
{
	unsigned int i;

	for (i = 0; i < NCOUNTERS; i++)
		v[i] = read_keyed("/proc/vmstat", counters[i]);
}

/* The first swap device of /proc/swaps, or "" */
static void swap_device(char *dev, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/swaps", "r");

	dev[0] = 0;
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f))
		sscanf(line, "%255s", dev);
	(void)len;
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *backend = ZSMOD_NAME;
	long v0[NCOUNTERS], v1[NCOUNTERS], res[8] = { 0 };
	int secs = 30, pipefd[2], swapoffs = 0, i, opt, err;
	time_t start, now, last_swapoff;
	char dev[256], pidbuf[32], r;
	pid_t pid, self = getpid();

	setvbuf(stdout, NULL, _IOLBF, 0);	/* a runner's pipe: line by line */
	while ((opt = getopt(argc, argv, "b:s:")) != -1) {
		if (opt == 'b')
			backend = optarg;
		else if (opt == 's')
			secs = atoi(optarg);
	}
	if (!path_exists(SWITCH)) {
		ksft_print_header();
		ksft_exit_skip("no %s: not the test kernel\n", SWITCH);
	}
	begin_backend_test(backend, 8);
	ksft_test_result(!write_str(SWITCH, "1"), "zswap.writeback_dropbehind=1\n");
	swap_device(dev, sizeof(dev));
	ksft_print_msg("swap device %s\n", dev);

	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	rmdir(CG);
	if (mkdir(CG, 0755))
		ksft_exit_fail_msg("mkdir %s: %s\n", CG, strerror(errno));
	/*
	 * Room for swapoff to bring everything back; zswap holds 64 KiB at
	 * most (a few dozen of these pages), so nearly every store writes an
	 * older entry back first.
	 */
	write_str(CG "/memory.max", "256M");
	write_str(CG "/memory.zswap.max", "64K");
	if (pipe(pipefd))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (!pid) {
		/*
		 * Stopped with the test, whatever stops it (a runner's timeout
		 * kills only the test), and off its output: a runner reading
		 * that to its end must not wait for this process.
		 */
		int null = open("/dev/null", O_WRONLY);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(2);
		close(null);
		if (getppid() != self)
			_exit(2);
		snprintf(pidbuf, sizeof(pidbuf), "%d", getpid());
		if (write_str(CG "/cgroup.procs", pidbuf))
			_exit(2);
		close(pipefd[0]);
		child(pipefd[1]);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &r, 1) != 1)
		ksft_exit_fail_msg("the process in the memcg did not start\n");

	read_counters(v0);
	start = time(NULL);
	last_swapoff = start;
	for (i = 0;; i++) {
		now = time(NULL);
		read_counters(v1);
		if (now - start >= secs &&
		    (v1[KEPT_MAPPED] > v0[KEPT_MAPPED] ||
		     now - start >= 3 * secs))
			break;
		/* push the process out: into zswap, and zswap back to the disk */
		write_str(CG "/memory.reclaim", "32M");
		usleep(50000);
		if (dev[0] && time(NULL) - last_swapoff >= 10) {
			err = swapoff(dev);
			if (err) {
				ksft_print_msg("swapoff %s: %s\n", dev, strerror(errno));
				last_swapoff = time(NULL);
				continue;
			}
			swapoffs++;
			if (swapon(dev, 0))
				ksft_exit_fail_msg("swapon %s: %s\n", dev, strerror(errno));
			last_swapoff = time(NULL);	/* 10 s from the end of this one */
		}
	}
	kill(pid, SIGTERM);
	if (read(pipefd[0], res, sizeof(res)) != sizeof(res))
		ksft_print_msg("no results from the process\n");
	waitpid(pid, NULL, 0);
	rmdir(CG);
	/* every folio settled: the counters add up (the workers need a moment) */
	for (i = 0; i < 50; i++) {
		read_counters(v1);
		if (v1[WB_END] - v0[WB_END] == v1[DROPPED] - v0[DROPPED] +
		    v1[KEPT_DIRTY] - v0[KEPT_DIRTY] + v1[KEPT_MAPPED] - v0[KEPT_MAPPED] +
		    v1[KEPT_BUSY] - v0[KEPT_BUSY] + v1[LEFT] - v0[LEFT])
			break;
		usleep(100000);
	}
	write_str(SWITCH, "0");

	ksft_print_msg("%ld s, %d swapoffs, %ld forks\n", (long)(time(NULL) - start), swapoffs,
		       res[3]);
	ksft_print_msg("ops: rewrite %ld dontneed %ld free %ld remap %ld\n",
		       res[4], res[5], res[6], res[7]);
	for (i = 0; i < (int)NCOUNTERS; i++)
		ksft_print_msg("%s %ld\n", counters[i], v1[i] - v0[i]);
	ksft_test_result(res[3] > 0 && res[4] > 0, "the process ran (forks, operations)\n");
	ksft_test_result(v1[WB] > v0[WB], "zswap wrote entries back\n");
	ksft_test_result(v1[DROPPED] > v0[DROPPED], "written-back folios were dropped\n");
	ksft_test_result(v1[KEPT_MAPPED] > v0[KEPT_MAPPED],
			 "written-back folios were faulted back in before the worker\n");
	ksft_test_result(i < 50, "every written-back folio was settled\n");
	ksft_test_result(!res[0] && !res[1] && !res[2],
			 "every page read back right (reader %ld, forks %ld, final %ld wrong)\n",
			 res[0], res[1], res[2]);
	ksft_finished();
}
