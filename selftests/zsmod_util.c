// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the zsmalloc_mod selftests (see zsmod_util.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "zsmod_util.h"

int read_str(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r = 0;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += r;
	r = r < 0 ? -errno : 0;
	close(fd);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return r < 0 ? (int)r : (int)n;
}

int write_buf(const char *path, const char *buf, size_t len)
{
	ssize_t r = 0;
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	r = write(fd, buf, len);
	if (r < 0)
		err = -errno;
	else if ((size_t)r != len)
		err = -EIO;
	close(fd);
	return err;
}

int write_str(const char *path, const char *s)
{
	return write_buf(path, s, strlen(s));
}

long read_long(const char *path)
{
	char buf[64];

	if (read_str(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

long read_keyed(const char *path, const char *key)
{
	size_t klen = strlen(key);
	char line[512];
	long val = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != ':'))
			continue;
		val = strtol(line + klen + 1, NULL, 10);
		break;
	}
	fclose(f);
	return val;
}

int path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int module_load(const char *ko_path)
{
	int fd, err = 0;

	fd = open(ko_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		err = -errno;
	close(fd);
	return err;
}

int module_unload(const char *name)
{
	/* O_NONBLOCK: fail with EBUSY instead of waiting for the last user. */
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

int module_refused(int err)
{
	return err == -EWOULDBLOCK || err == -EBUSY;
}

int module_unload_wait(const char *name, int seconds)
{
	int err = -EBUSY, i;

	for (i = 0; i < seconds * 10; i++) {
		err = module_unload(name);
		if (!module_refused(err))
			return err;
		usleep(100 * 1000);
	}
	return err;
}

int module_loaded(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return path_exists(path);
}

const char *zsmod_ko_path(void)
{
	static char path[512];
	struct utsname u;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/%s.ko", u.release, ZSMOD_NAME);
	return path;
}

int zswap_enable(void)
{
	return write_str(ZSWAP_PARAMS "/enabled", "1");
}

int zswap_set_backend(const char *type)
{
	return write_str(ZSWAP_PARAMS "/zpool", type);
}

int zswap_backend(char *buf, size_t len)
{
	int r = read_str(ZSWAP_PARAMS "/zpool", buf, len);

	return r < 0 ? r : 0;
}

long zswap_stat(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), ZSWAP_DEBUGFS "/%s", name);
	return read_long(path);
}

int zsmod_pool_dir(char *buf, size_t len)
{
	struct dirent *de;
	long best = -1;
	DIR *d;

	d = opendir(ZSMOD_DEBUGFS);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		long n;

		if (strncmp(de->d_name, "zswap", 5))
			continue;
		/* zswap names its pools "zswap%x": hexadecimal. */
		n = strtol(de->d_name + 5, NULL, 16);
		if (n > best) {
			best = n;
			snprintf(buf, len, ZSMOD_DEBUGFS "/%s", de->d_name);
		}
	}
	closedir(d);
	return best < 0 ? -ENOENT : 0;
}

long zsmod_stat(const char *pooldir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/stats", pooldir);
	return read_keyed(path, name);
}

int zsmod_classes_total(const char *pooldir, struct zsmod_total *t)
{
	char path[512], line[1024];
	long v[32];
	int n = 0, found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/classes", pooldir);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (strncmp(line + strspn(line, " "), "Total", 5))
			continue;
		/* Total, 11 fullness columns, then the four we want. */
		strtok_r(line, "\n ", &save);
		while ((tok = strtok_r(NULL, "\n ", &save)) && n < 32)
			v[n++] = strtol(tok, NULL, 10);
		found = 1;
	}
	fclose(f);
	if (!found || n < 4)
		return -EPROTO;
	t->obj_allocated = v[n - 4];
	t->obj_used = v[n - 3];
	t->pages_used = v[n - 2];
	t->freeable = v[n - 1];
	return 0;
}

int zsmod_objs_match_zswap(const char *pooldir, long *objs, long *stored)
{
	int i;

	for (i = 0; i < 10; i++) {
		long s0 = zswap_stat("stored_pages");

		*objs = zsmod_stat(pooldir, "objs_used");
		*stored = zswap_stat("stored_pages");
		if (*stored == s0 && *objs == *stored)
			return *objs >= 0;
		usleep(100 * 1000);
	}
	return 0;
}

long zswap_pool_settles(long limit, int ms)
{
	long v = zswap_stat("pool_total_size");
	int waited;

	for (waited = 0; v > limit && v >= 0 && waited < ms; waited += 10) {
		usleep(10 * 1000);
		v = zswap_stat("pool_total_size");
	}
	return v;
}

void settle_memory(void)
{
	sync();
	write_str("/proc/sys/vm/drop_caches", "3");
	write_str("/proc/sys/vm/compact_memory", "1");
	/* kmem_cache and vmap teardown finish in RCU callbacks and workers. */
	sleep(1);
}

const char *parse_backend(int argc, char **argv)
{
	const char *backend = ZSMOD_NAME;
	int c;

	while ((c = getopt(argc, argv, "b:")) != -1)
		if (c == 'b')
			backend = optarg;
	return backend;
}

int backend_is_ours(const char *backend)
{
	return !strcmp(backend, ZSMOD_NAME);
}

int setup_zswap(const char *backend)
{
	char cur[64];
	int err;

	err = zswap_enable();
	if (!err)
		err = zswap_set_backend(backend);
	if (!err)
		err = zswap_backend(cur, sizeof(cur));
	if (!err && strcmp(cur, backend))
		err = -EINVAL;
	return err;
}
