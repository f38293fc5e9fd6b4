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
#  3. kunit.py's build directory <kdir>/kunitpy, configured as the
#     second sanitizer kernel: kunit/config changed by kunit/kunitpy.config
#     (KCSAN instead of KASAN, PREEMPT_RT), a build of its own
#  4. kunit.py run with that configuration, kunit/.kunitconfig and
#     kunit/qemu_x86_64.py, its command line printed first
#
# Exit status: kunit.py's. When that is 0, the run still fails on a kernel
# splat in kunit.py's raw log (vm/splat-patterns), a KCSAN report not
# accepted by kunit/kcsan-known, a skipped test, a suite of kunit/suites
# missing (without a filter), or fewer than 250 tests.
#
# Usage: kunit/kunitpy.sh [--setup-only|--build-only] [kunit.py run arguments...]
#   e.g. kunit/kunitpy.sh 'zsmalloc_mod_free.*'   (a filter glob)
#   --setup-only: steps 1-3, then print the command line and stop
#   --build-only: steps 1-3 and `kunit.py build` (make check builds the
#                 kernel early, in the background of its guest stages)
# Env: KUNITPY_TIMEOUT (seconds, default 1200), KUNIT_KDIR (a built
#      kunit-kernel-<hash> directory), ZSMOD_CACHE, JOBS.
# Output: out/kunitpy/{kunitpy.log,results.json,splats.txt,kcsan.txt}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$top/out/kunitpy
min_tests=250

say() { echo "kunit-run: $*"; }
die() { echo "kunit-run: ERROR: $*" >&2; exit 1; }

mode=run
case ${1:-} in
--setup-only) mode=setup; shift ;;
--build-only) mode=build; shift ;;
esac

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
		zsmalloc_mod_internal.h zsmalloc_mod_trace.h zpdesc.h; do
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
# Its configuration: kunit/config with kunit/kunitpy.config's lines in place
# of kunit/config's lines for the same options, applied on allnoconfig as
# build-kernel.sh does (with .kunitconfig's lines). The full .config that
# gives ("seed.config") is the first --kunitconfig, the fragment the second (kunit.py then checks that
# every line of it made it into .config), .kunitconfig the third.
fragment=$build.fragment
{
	sed -nE -e 's/^(CONFIG_[A-Za-z0-9_]+)=.*/\1/p' \
		-e 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1/p' "$here/kunitpy.config" |
		sort -u >"$fragment.override"
	grep -vwFf "$fragment.override" "$here/config"
	cat "$here/kunitpy.config"
} >"$fragment.new"
rm -f "$fragment.override"
cat "$fragment.new" "$here/.kunitconfig" >"$fragment.in"
if [ ! -f "$build/seed.config" ] || ! cmp -s "$fragment.in" "$build/allnoconfig.in"; then
	say "configuring $build (kunit/config + kunit/kunitpy.config): a full build"
	rm -rf "$build"
	mkdir -p "$build"
	# EXPERT only after allnoconfig: on during it, it would also turn off
	# what it makes visible (SHMEM, VM_EVENT_COUNTERS, BUG, ...). The whole
	# input again on top then sets what needed EXPERT (PREEMPT_RT).
	grep -vx 'CONFIG_EXPERT=y' "$fragment.in" >"$build/pass1.in"
	make -C "$src" O="$build" ARCH=x86_64 KCONFIG_ALLCONFIG="$build/pass1.in" \
		allnoconfig >/dev/null
	cat "$fragment.in" >>"$build/.config"
	make -C "$src" O="$build" ARCH=x86_64 olddefconfig >/dev/null 2>&1
	rm -f "$build/pass1.in"
	cp "$build/.config" "$build/seed.config"
	cp "$fragment.in" "$build/allnoconfig.in"
fi
mv "$fragment.new" "$fragment"
rm -f "$fragment.in"

# --- 4. kunit.py run ------------------------------------------------------------
build_args=(--build_dir="$build"
	--kunitconfig="$build/seed.config"
	--kunitconfig="$fragment"
	--kunitconfig="$here"
	--qemu_config="$here/qemu_x86_64.py"
	--jobs="${JOBS:-$(($(nproc) + 1))}")
if [ $mode = build ]; then
	t0=$(date +%s)
	(cd "$src" && PYTHONDONTWRITEBYTECODE=1 ./tools/testing/kunit/kunit.py build \
		"${build_args[@]}") >"$build.build.log" 2>&1 ||
		{ tail -40 "$build.build.log"; die "kunit.py build failed (log: $build.build.log)"; }
	say "kunit.py build done in $(($(date +%s) - t0)) s"
	exit 0
fi
cmd=(./tools/testing/kunit/kunit.py run
	"${build_args[@]}"
	--timeout="${KUNITPY_TIMEOUT:-1200}"
	--json="$out/results.json"
	"$@")
say "kunit.py command line:"
echo "cd $src && ${cmd[*]}"
[ $mode = setup ] && exit 0

mkdir -p "$out"
rm -f "$out"/kunitpy.log "$out"/results.json "$out"/splats.txt "$out"/kcsan.txt "$build/test.log"
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
# KCSAN's reports are judged by kunit/kcsan.sh (ours fail, others must be
# on kunit/kcsan-known); every other splat fails
VERDICT_IGNORE='BUG: KCSAN: ' "$top/vm/splats.sh" --report "$log" "$out/splats.txt" ||
	problem "the kernel log (above)"
"$here/kcsan.sh" "$log" "$build" "$here/kcsan-known" "$out/kcsan.txt" ||
	problem "KCSAN reports:$(echo; grep -v '^known' "$out/kcsan.txt" | sed 's/^/    /')"
say "KCSAN: $(grep -c '^[A-Za-z]' "$out/kcsan.txt" || true) reports ($out/kcsan.txt)"

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
