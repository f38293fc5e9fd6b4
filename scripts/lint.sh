#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: checkpatch.pl --strict on every C file we own, sparse
# (make C=2) on the modules, and the rules of every shell script (SPDX,
# set -euo pipefail or why not, syntax). Any finding fails.
#
# usage: scripts/lint.sh [KDIR]   (default: stock Debian 6.12 headers)
# checkpatch comes from the pristine linux-source-6.12 tree (vm/source.sh).
#
# No set -e: every check runs; each finding sets fail=1, the exit status.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/out/lint
mkdir -p "$out"
# Two runs at once would build in the same copy of the tree.
exec 9>"$out/.lock"
flock -n 9 || { echo "lint: another make lint is running; waiting for it"; flock 9; }

abi=$(./vm/deps.sh) || exit 1
kdir=${1:-/usr/src/linux-headers-$abi}
src=$(./vm/source.sh) || exit 1
fail=0

# Every shell script we own: the SPDX line in its first three lines, a
# "set -euo pipefail" line or a comment saying why not ("# No set -e...:
# reason"), and a clean syntax check by the shell that runs it (busybox sh
# for the guest's /bin/sh scripts and the guest library).
shells=$(git ls-files '*.sh' .ci/run 2>/dev/null || find . -path ./out -prune -o -name '*.sh' -print)
nsh=0
for f in $shells; do
	nsh=$((nsh + 1))
	head -3 "$f" | grep -q 'SPDX-License-Identifier:' ||
		{ echo "$f: no SPDX-License-Identifier line"; fail=1; }
	grep -qE '^set -euo pipefail|^# No set -e[^:]*: .' "$f" ||
		{ echo "$f: no 'set -euo pipefail' and no '# No set -e...: reason'"; fail=1; }
	case $(head -1 "$f") in
	'#!/bin/bash') bash -n "$f" || fail=1 ;;
	*) busybox sh -n "$f" || fail=1 ;;
	esac
done
echo "lint: SPDX, shell options and syntax of $nsh shell scripts"

# Sources only: *.mod.c are modpost's output.
files=()
for f in zsmalloc_mod.c zpdesc.h zsmalloc_mod.h zsmalloc_mod_internal.h zsmalloc_mod_trace.h kunit/*.[ch] bench/*.[ch] selftests/*.[ch]; do
	[ -f "$f" ] && [ "${f%.mod.c}" = "$f" ] && files+=("$top/$f")
done

# One run for all files: checkpatch seeds its CamelCase list (identifiers
# the kernel's own headers define are fine) once, from --root. From out/lint:
# in a directory with .git, checkpatch leaves a camelcase cache file behind.
echo "lint: checkpatch --strict on ${#files[@]} files"
(cd "$out" && "$src/scripts/checkpatch.pl" --strict --no-tree --root="$src" --quiet \
	--terse --no-summary -f "${files[@]}") >"$out/checkpatch.log" 2>&1
# zsmalloc_mod.c goes through zpdesc only: no struct page at all (zpdesc.h
# adapts the movable_operations callbacks), no page field, no BUG_ON and
# no kmap_atomic.
if grep -nE '\bstruct page\b|\b(new)?page->|\bBUG_ON\b|\bkmap_atomic\b' zsmalloc_mod.c; then
	echo "lint: struct page, BUG_ON or kmap_atomic in zsmalloc_mod.c (use zpdesc.h)"
	fail=1
fi

# One known false positive: checkpatch takes the C11 keyword _Generic,
# which zpdesc.h's const-keeping conversions need, for a CamelCase name.
if sed "s|$top/||" "$out/checkpatch.log" | grep -v 'CHECK: Avoid CamelCase: <_Generic>' |
	grep .; then
	fail=1
fi

# C=2 runs sparse on every file, built or not, in a private copy of the tree
# (the working tree's objects stay as they are). Sparse reports as
# "file:line:col: warning|error: ..."; only our files count (kernel headers
# have findings of their own).
sparse_run() {	# sparse_run NAME KDIR
	echo "lint: sparse (make C=2) against $2"
	./vm/build-modules.sh "$out/build-$1" "$2" "$out/sparse-$1.log" ZSMOD_BENCH=1 C=2 \
		CHECK="sparse -Wno-unknown-attribute" || fail=1
	grep -c '^  CHECK ' "$out/sparse-$1.log" | sed 's/^/lint: sparse checked /; s/$/ file(s)/'
}
sparse_run stock "$kdir"

# kunit/ only builds against a kernel with CONFIG_KUNIT: the test kernel of
# kunit/build-kernel.sh, when one has been built (make kunit or make check).
ktest=$(ls -td "${ZSMOD_CACHE:-/var/cache/zsmalloc_mod}"/kunit-kernel-*/.complete 2>/dev/null | head -1)
if [ -n "$ktest" ]; then
	sparse_run kunit "$(dirname "$ktest")/build"
else
	echo "lint: sparse on kunit/ skipped: no KUnit test kernel built yet (make kunit)"
fi

[ $fail = 0 ] && echo "lint: clean" || echo "lint: FAILED (logs in $out)"
exit $fail
