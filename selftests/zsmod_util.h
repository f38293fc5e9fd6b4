/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the zsmalloc_mod selftests: sysfs/debugfs/procfs
 * access, module loading, zswap control and our pool's counters.
 * Functions return 0 or a negative errno unless said otherwise.
 */
#ifndef ZSMOD_UTIL_H
#define ZSMOD_UTIL_H

#include <stddef.h>

#define ZSMOD_NAME	"zsmalloc_mod"
#define ZSWAP_PARAMS	"/sys/module/zswap/parameters"
#define ZSWAP_DEBUGFS	"/sys/kernel/debug/zswap"
#define ZSMOD_DEBUGFS	"/sys/kernel/debug/" ZSMOD_NAME
#define ZSMOD_PARAMS	"/sys/module/" ZSMOD_NAME "/parameters"

/* Whole file into buf (NUL-terminated, trailing newline cut): length or -errno. */
int read_str(const char *path, char *buf, size_t len);
/* One write(2) of exactly len bytes: 0, or -errno of open/write. */
int write_buf(const char *path, const char *buf, size_t len);
int write_str(const char *path, const char *s);
/* The file's first number, or -1. */
long read_long(const char *path);
/* "key value" or "key: value kB" lines: the value, or -1 if key is absent. */
long read_keyed(const char *path, const char *key);
int path_exists(const char *path);

/* Modules, through the syscalls, so that callers see the precise errno. */
int module_load(const char *ko_path);
int module_unload(const char *name);
/*
 * delete_module() refuses a module in use with EWOULDBLOCK (EAGAIN; EBUSY
 * in older kernels and for other reasons): module_refused() says if err is that.
 */
int module_refused(int err);
/* Unload, retrying while refused (zswap drops old pools asynchronously). */
int module_unload_wait(const char *name, int seconds);
int module_loaded(const char *name);
/* Default location of our installed module in the guest. */
const char *zsmod_ko_path(void);

/* zswap: enable it and select a zpool backend ("zsmalloc_mod", "zbud"...). */
int zswap_enable(void);
int zswap_set_backend(const char *type);
int zswap_backend(char *buf, size_t len);
/* /sys/kernel/debug/zswap/<name>, or -1. */
long zswap_stat(const char *name);

/*
 * Our newest pool's debugfs directory: zswap names pools "zswap%x" (zswap9,
 * zswapa, ...) and the highest number is the pool zswap uses now.
 * Returns 0, or -ENOENT.
 */
int zsmod_pool_dir(char *buf, size_t len);
/* A counter of <pool>/stats, or -1. */
long zsmod_stat(const char *pooldir, const char *name);

struct zsmod_total {
	long obj_allocated, obj_used, pages_used, freeable;
};

/* The "Total" line of <pool>/classes. */
int zsmod_classes_total(const char *pooldir, struct zsmod_total *t);

/*
 * The zpool backend under test: -b TYPE on the command line, default
 * zsmalloc_mod. Checks of our own debugfs counters are skipped for others.
 */
const char *parse_backend(int argc, char **argv);
int backend_is_ours(const char *backend);
/* Enable zswap, select the backend: 0 or -errno (the ksft message says why). */
int setup_zswap(const char *backend);

/*
 * Every zswap entry is one object in the pool zswap uses (6.12's zswap has
 * no same-filled entries), and other pools of ours are empty once their
 * users are gone: our objs_used must equal zswap's stored_pages. Reads both
 * until two rounds agree (stores may be in flight). 1 if equal, else 0.
 */
int zsmod_objs_match_zswap(const char *pooldir, long *objs, long *stored);

/* Free page cache and slab, compact: quieter numbers for leak checks. */
void settle_memory(void);

/*
 * Wait up to @ms milliseconds for zswap's pool_total_size to drop to
 * @limit or below, reading only zswap's counter (not our statistics,
 * which would run queued frees). Returns the last value read.
 */
long zswap_pool_settles(long limit, int ms);

#endif
