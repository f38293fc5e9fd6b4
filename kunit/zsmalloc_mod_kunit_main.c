// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for zsmalloc_mod, run as a loadable module on the test kernel
 * built by kunit/build-kernel.sh (load zsmalloc_mod.ko first). The module,
 * zsmalloc_mod_kunit.ko, is this file, which registers the suites, one
 * file per suite, and the helpers they share (helpers.h):
 *
 *   alloc_kunit.c       zsmalloc_mod_alloc: allocation and mapping of every
 *                       size, geometry, objects straddling pages, stats,
 *                       invalid sizes, injected -ENOMEM
 *   free_kunit.c        zsmalloc_mod_free: handle blocks, slot reuse, queued
 *                       frees, foreign handles, the shrinker, slot
 *                       borrowing by rare sizes, pages returned on destroy
 *   migration_kunit.c   zsmalloc_mod_migration: real page migration through
 *                       alloc_contig_range(), aborted migration (isolate +
 *                       putback), readers racing migration and compaction
 *   compaction_kunit.c  zsmalloc_mod_compaction: compaction, background
 *                       compaction, deferred frees, mapped objects pinned
 *   dropbehind_kunit.c  zsmalloc_mod_dropbehind: the PG_dropbehind backport
 *                       and our pages' flags
 *   zpool_kunit.c       zsmalloc_mod_zpool: the "zsmalloc_mod" zpool driver
 *                       through the zpool calls zswap makes
 *   misuse_kunit.c      zsmalloc_mod_misuse: a caller's mistakes, refused
 *                       and reported, nothing changed
 *   helpers.c           test pools, object contents, page counters, size
 *                       classes, fault injection, module parameters
 *   migrate_helpers.c   page migration, shared by three suites
 *
 * The zpool suite needs the zpool API exported, which 6.12 does not do: the
 * test kernel's kunit/patches/0002 exports it and defines
 * ZPOOL_API_EXPORTED_FOR_TESTS. Elsewhere that suite is skipped, as is the
 * dropbehind suite on a kernel without PG_dropbehind (kunit/run.sh fails a
 * run on the test kernel if any suite is skipped).
 *
 * Fault injection: the -ENOMEM tests use the per-task fail_nth counter
 * (what /proc/<pid>/fail-nth sets) with fail_page_alloc/failslab put in a
 * "this task only" mode by the test kernel's kunit/patches/0003 (no debugfs
 * needed), so no other task ever sees an injected failure; the previous
 * settings come back when each test ends. Elsewhere those tests are skipped.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "helpers.h"

kunit_test_suites(&zsmalloc_mod_alloc_suite, &zsmalloc_mod_free_suite,
		  &zsmalloc_mod_migration_suite, &zsmalloc_mod_compaction_suite,
		  &zsmalloc_mod_dropbehind_suite, &zsmalloc_mod_zpool_suite,
		  &zsmalloc_mod_misuse_suite);

MODULE_DESCRIPTION("KUnit tests for zsmalloc_mod");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_LICENSE("GPL");
