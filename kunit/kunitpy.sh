#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make kunit-run` (also a stage of `make check`): the KUnit suites built
# into the 6.12 test kernel and run by `kunit.py run`, the way kernel
# developers and kernel CI run KUnit. `make kunit` (kunit/run.sh) runs the
# same suites as a loaded module.
#
#  1. kunit/build-kernel.sh: the test kernel's patched source tree and its
#     module-mode build, reused from the cache when there
#  2. this checkout's sources linked into that tree as mm/zsmalloc_mod/
#     (symlinks, made again on every run: the cache outlives checkouts),
#     with ./Kconfig sourced from mm/Kconfig and the directory added to
#     mm/Makefile (both files copied first: the tree is hard-linked)
#  3. kunit.py's build directory <kdir>/kunitpy: on first use a copy of the
#     module-mode build, whose .config is also the first --kunitconfig, so
#     that kunit.py compiles only what the two do not share (our sources)
#  4. kunit.py run with kunit/.kunitconfig and kunit/qemu_x86_64.py, its
#     command line printed first
#
# Exit status: kunit.py's. When that is 0, the run still fails on a kernel
# splat in kunit.py's raw log (vm/splat-patterns), a skipped test, a suite
# of kunit/suites missing (without a filter), or fewer than 250 tests.
#
# Usage: kunit/kunitpy.sh [--setup-only] [kunit.py run arguments...]
#   e.g. kunit/kunitpy.sh 'zsmalloc_mod_free.*'   (a filter glob)
#   --setup-only: steps 1-3, then print the command line and stop
# Env: KUNITPY_TIMEOUT (seconds, default 1200), KUNIT_KDIR (a built
#      kunit-kernel-<hash> directory), ZSMOD_CACHE, JOBS.
# Output: out/kunitpy/{kunitpy.log,results.json,splats.txt}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$top/out/kunitpy
min_tests=250

say() { echo "kunit-run: $*"; }
die() { echo "kunit-run: ERROR: $*" >&2; exit 1; }

setup_only=
if [ "${1:-}" = --setup-only ]; then
	setup_only=1
	shift
fi

"$top/vm/deps.sh" >/dev/null
if [ -n "${KUNIT_KDIR:-}" ]; then
	kdir=$KUNIT_KDIR
	[ -f "$kdir/.complete" ] || die "$kdir is not a complete test kernel"
else
	kdir=$("$here/build-kernel.sh" -q) || die "test kernel build failed"
fi
src=$kdir/src
build=$kdir/kunitpy
exec 9>"$kdir/kunitpy.lock"
flock 9

# --- 2. our sources in the tree ---------------------------------------------
link_sources() {
	local d=$src/mm/zsmalloc_mod f

	rm -rf "$d"
	mkdir -p "$d/kunit"
	for f in Kconfig Kbuild zsmalloc_mod.c zsmalloc_mod.h \
		zsmalloc_mod_internal.h zpdesc.h; do
		ln -s "$top/$f" "$d/$f"
	done
	for f in "$top"/kunit/Kbuild "$top"/kunit/*.[ch]; do
		ln -s "$f" "$d/kunit/${f##*/}"
	done
}

# add_line FILE LINE: append LINE once, to a copy of FILE (its hard link to
# the pristine source tree is broken first)
add_line() {
	grep -qxF -- "$2" "$1" && return 0
	cp "$1" "$1.zsmod" && mv "$1.zsmod" "$1"
	printf '\n# zsmalloc_mod, linked in by kunit/kunitpy.sh\n%s\n' "$2" >>"$1"
}

link_sources
# objects of another checkout's sources may look newer than ours: rebuild
rm -rf "$build/mm/zsmalloc_mod"
add_line "$src/mm/Kconfig" 'source "mm/zsmalloc_mod/Kconfig"'
add_line "$src/mm/Makefile" 'obj-$(CONFIG_ZSMALLOC_MOD) += zsmalloc_mod/'

# --- 3. kunit.py's build directory --------------------------------------------
if [ ! -f "$build/.seeded" ]; then
	say "seeding $build from the module-mode build $kdir/build"
	rm -rf "$build" "$build.tmp"
	cp -a "$kdir/build" "$build.tmp"
	touch "$build.tmp/.seeded"
	mv "$build.tmp" "$build"
fi

# --- 4. kunit.py run ------------------------------------------------------------
cmd=(./tools/testing/kunit/kunit.py run
	--build_dir="$build"
	--kunitconfig="$kdir/build/.config"
	--kunitconfig="$here"
	--qemu_config="$here/qemu_x86_64.py"
	--jobs="${JOBS:-$(($(nproc) + 1))}"
	--timeout="${KUNITPY_TIMEOUT:-1200}"
	--json="$out/results.json"
	"$@")
say "kunit.py command line:"
echo "cd $src && ${cmd[*]}"
[ -n "$setup_only" ] && exit 0

mkdir -p "$out"
rm -f "$out"/kunitpy.log "$out"/results.json "$out"/splats.txt "$build/test.log"
t0=$(date +%s)
set +e
(cd "$src" && PYTHONDONTWRITEBYTECODE=1 "${cmd[@]}") 2>&1 | tee "$out/kunitpy.log"
rc=${PIPESTATUS[0]}
set -e
say "kunit.py exited with $rc after $(($(date +%s) - t0)) s"
[ "$rc" = 0 ] || exit "$rc"

fail=0
problem() { echo "kunit-run: FAIL: $*"; fail=1; }
log=$build/test.log
[ -s "$log" ] || die "kunit.py left no raw log $log"
"$top/vm/splats.sh" --report "$log" "$out/splats.txt" || problem "the kernel log (above)"

# kunit.py's "Testing complete. Ran N tests: passed: P, skipped: S"
summary=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$out/kunitpy.log" || true)
summary=${summary##*$'\n'}
[ -n "$summary" ] || die "no summary line from kunit.py"
ran=$(sed -E 's/.*Ran ([0-9]+) tests.*/\1/' <<<"$summary")
if grep -q 'skipped: [1-9]' <<<"$summary"; then
	problem "skipped tests: a skipped test checked nothing"
	grep -F '[SKIPPED]' "$out/kunitpy.log" | sed 's/^/    /'
fi
if [ $# -eq 0 ]; then
	[ "$ran" -ge "$min_tests" ] || problem "only $ran tests ran (at least $min_tests expected)"
	while IFS= read -r s; do
		grep -qE "\[PASSED\] $s( |\$)" "$out/kunitpy.log" ||
			problem "suite $s did not pass (or did not run)"
	done < <(grep -v '^#' "$here/suites")
fi
[ $fail = 0 ] && say "PASS: $ran tests" || say FAIL
exit $fail
