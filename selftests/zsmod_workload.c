// SPDX-License-Identifier: GPL-2.0
/* The memcg swap workload of the selftests (see zsmod_workload.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zsmod_util.h"
#include "zsmod_workload.h"

#define PAGE	4096UL
#define MIB	(1024UL * 1024)
#define CGROOT	"/sys/fs/cgroup"

/* Sources of real content: binaries and modules of the guest. */
static const char *const file_roots[] = { "/lib/modules", "/root", "/bin/busybox" };

static unsigned long long xorshift(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * Page i: a random prefix whose length varies with i, then a repeated word.
 * Compressed sizes spread over many size classes; every 16th page is nearly
 * incompressible and lands in the huge classes. No page is all zeroes
 * (zero pages never reach zswap).
 */
static void pattern_page(unsigned long long *p, unsigned long i)
{
	unsigned long long seed = (i + 1) * 0x9E3779B97F4A7C15ULL, word = seed | 1;
	size_t rnd = i % 16 == 15 ? 3904 : 32 + (i * 97 % 29) * 64;
	size_t k;

	for (k = 0; k < rnd / 8; k++)
		p[k] = xorshift(&seed);
	for (; k < PAGE / 8; k++)
		p[k] = word;
	p[0] = i;
}

/* Call fn on every regular file under the roots, in a fixed order. */
static int walk(const char *path, int (*fn)(const char *, void *), void *arg)
{
	struct dirent **ents;
	struct stat st;
	int n, i, r = 0;

	if (lstat(path, &st))
		return 0;
	if (S_ISREG(st.st_mode))
		return st.st_size ? fn(path, arg) : 0;
	if (!S_ISDIR(st.st_mode))
		return 0;
	n = scandir(path, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char sub[1024];

		if (!r && ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			r = walk(sub, fn, arg);
		}
		free(ents[i]);
	}
	free(n >= 0 ? ents : NULL);
	return r;
}

/* Copies files into buf (fill) or compares buf with them (!fill). */
struct file_pass {
	char *buf;
	size_t pos, len;
	int fill;
	long bad_pages;
};

static int file_step(const char *path, void *arg)
{
	struct file_pass *fp = arg;
	char chunk[65536];
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	while (fp->pos < fp->len && (r = read(fd, chunk, sizeof(chunk))) > 0) {
		size_t n = (size_t)r < fp->len - fp->pos ? (size_t)r : fp->len - fp->pos;

		if (fp->fill) {
			memcpy(fp->buf + fp->pos, chunk, n);
		} else if (memcmp(fp->buf + fp->pos, chunk, n)) {
			size_t k;

			/* Count differing pages of the buffer, not chunks. */
			for (k = 0; k < n; k += PAGE) {
				size_t m = n - k < PAGE ? n - k : PAGE;

				fp->bad_pages += !!memcmp(fp->buf + fp->pos + k, chunk + k, m);
			}
		}
		fp->pos += n;
	}
	close(fd);
	return fp->pos >= fp->len;	/* 1 stops the walk */
}

static int file_pass(char *buf, size_t len, int fill, long *bad)
{
	struct file_pass fp = { .buf = buf, .len = len, .fill = fill };
	size_t last;
	unsigned int i;

	/* Cycle through the files until the buffer is covered. */
	do {
		last = fp.pos;
		for (i = 0; i < sizeof(file_roots) / sizeof(*file_roots); i++)
			if (walk(file_roots[i], file_step, &fp))
				break;
	} while (fp.pos < fp.len && fp.pos > last);
	*bad = fp.bad_pages;
	return fp.pos == fp.len ? 0 : -ENOENT;
}

/* Random page i: incompressible, whatever zswap's compressor. */
static void random_page(unsigned long long *p, unsigned long i)
{
	unsigned long long seed = (i + 1) * 0xD1B54A32D192ED03ULL;
	size_t k;

	for (k = 0; k < PAGE / 8; k++)
		p[k] = xorshift(&seed);
}

static long verify(char *pat, size_t npat, char *rnd, size_t nrnd, char *files, size_t flen)
{
	static unsigned long long want[PAGE / 8];
	long bad = 0, fbad;
	size_t i;

	for (i = 0; i < npat; i++) {
		pattern_page(want, i);
		bad += !!memcmp(pat + i * PAGE, want, PAGE);
	}
	for (i = 0; i < nrnd; i++) {
		random_page(want, i);
		bad += !!memcmp(rnd + i * PAGE, want, PAGE);
	}
	if (flen && file_pass(files, flen, 0, &fbad))
		return -ENOENT;
	return bad + (flen ? fbad : 0);
}

static void child(const struct wl_job *j, const struct wl_params *p, int in, int out)
{
	size_t npat = p->pattern_mib * MIB / PAGE, flen = p->file_mib * MIB, i;
	size_t nrnd = p->random_mib * MIB / PAGE;
	char *pat, *rnd = NULL, *files = NULL;
	char path[300], pid[32], cmd;
	long res;

	/* Join the memcg before touching memory: pages are charged where first touched. */
	snprintf(path, sizeof(path), "%s/cgroup.procs", j->cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_str(path, pid))
		_exit(10);

	pat = mmap(NULL, npat * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pat == MAP_FAILED)
		_exit(11);
	for (i = 0; i < npat; i++)
		pattern_page((unsigned long long *)(pat + i * PAGE), i);
	if (nrnd) {
		rnd = mmap(NULL, nrnd * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (rnd == MAP_FAILED)
			_exit(11);
		for (i = 0; i < nrnd; i++)
			random_page((unsigned long long *)(rnd + i * PAGE), i);
	}
	if (flen) {
		files = mmap(NULL, flen, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (files == MAP_FAILED || file_pass(files, flen, 1, &res))
			_exit(12);
	}

	res = 0;
	if (write(out, &res, sizeof(res)) != sizeof(res))
		_exit(13);
	while (read(in, &cmd, 1) == 1 && (cmd == 'v' || cmd == 'h')) {
		if (cmd == 'v') {
			res = verify(pat, npat, rnd, nrnd, files, flen);
		} else {
			/* the first word of a patterned page is its number */
			for (res = 0, i = 0; i < npat; i += 2)
				res += *(unsigned long long *)(pat + i * PAGE) != i;
		}
		if (write(out, &res, sizeof(res)) != sizeof(res))
			_exit(14);
	}
	_exit(0);
}

static long wait_result(struct wl_job *j)
{
	long res;

	if (read(j->from_child, &res, sizeof(res)) != sizeof(res))
		return -ECHILD;
	return res;
}

int wl_start(struct wl_job *j, const struct wl_params *p)
{
	int down[2], up[2];
	char val[32];

	memset(j, 0, sizeof(*j));
	j->pid = -1;
	snprintf(j->cg, sizeof(j->cg), CGROOT "/%s", p->name);
	rmdir(j->cg);
	/* Harmless if already on; the memory controller must reach our child. */
	write_str(CGROOT "/cgroup.subtree_control", "+memory");
	if (mkdir(j->cg, 0755))
		return -errno;
	snprintf(val, sizeof(val), "%ldM", p->max_mib);
	if (wl_memcg_write(j, "memory.max", val))
		return -EINVAL;
	if (p->no_writeback && wl_memcg_write(j, "memory.zswap.writeback", "0"))
		return -EINVAL;

	if (pipe(down) || pipe(up))
		return -errno;
	fflush(NULL);
	j->pid = fork();
	if (j->pid < 0)
		return -errno;
	if (!j->pid) {
		close(down[1]);
		close(up[0]);
		child(j, p, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	j->to_child = down[1];
	j->from_child = up[0];
	return wait_result(j) == 0 ? 0 : -ECHILD;
}

long wl_verify(struct wl_job *j)
{
	if (write(j->to_child, "v", 1) != 1)
		return -ECHILD;
	return wait_result(j);
}

long wl_touch_half(struct wl_job *j)
{
	if (write(j->to_child, "h", 1) != 1)
		return -ECHILD;
	return wait_result(j);
}

void wl_stop(struct wl_job *j)
{
	int i;

	if (j->pid > 0) {
		if (write(j->to_child, "q", 1) != 1)
			kill(j->pid, SIGKILL);
		waitpid(j->pid, NULL, 0);
		close(j->to_child);
		close(j->from_child);
		j->pid = -1;
	}
	/* The memcg goes once its last task is reaped. */
	for (i = 0; i < 50 && rmdir(j->cg) && errno == EBUSY; i++)
		usleep(100 * 1000);
}

long wl_memcg_stat(struct wl_job *j, const char *key)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/memory.stat", j->cg);
	return read_keyed(path, key);
}

long wl_memcg_long(struct wl_job *j, const char *file)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", j->cg, file);
	return read_long(path);
}

int wl_memcg_write(struct wl_job *j, const char *file, const char *val)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", j->cg, file);
	return write_str(path, val);
}
