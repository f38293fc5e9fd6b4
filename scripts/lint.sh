#!/bin/bash
# make lint: checkpatch.pl --strict on every C file we own, and sparse
# (make C=2) on the modules. Any finding fails.
#
# usage: scripts/lint.sh [KDIR]   (default: stock Debian 6.12 headers)
# checkpatch comes from the pristine linux-source-6.12 tree (vm/source.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/out/lint
mkdir -p "$out"

abi=$(./vm/deps.sh) || exit 1
kdir=${1:-/usr/src/linux-headers-$abi}
src=$(./vm/source.sh) || exit 1
fail=0

files=$(ls zsmalloc_mod.c zpdesc.h zsmalloc_mod.h kunit/*.[ch] bench/*.[ch] \
	selftests/*.[ch] 2>/dev/null)

# One run for all files: checkpatch seeds its CamelCase list (identifiers
# the kernel's own headers define are fine) once, from --root. From out/lint:
# in a directory with .git, checkpatch leaves a camelcase cache file behind.
echo "lint: checkpatch --strict on $(echo "$files" | wc -w) files"
# shellcheck disable=SC2046,SC2086 # one argument per file name
(cd "$out" && "$src/scripts/checkpatch.pl" --strict --no-tree --root="$src" --quiet \
	--terse --no-summary -f $(printf "$top/%s " $files)) >"$out/checkpatch.log" 2>&1 ||
	fail=1
sed "s|$top/||" "$out/checkpatch.log"

# C=2 runs sparse on every file, built or not. A private copy keeps the
# working tree's objects untouched.
echo "lint: sparse (make C=2) against $kdir"
rm -rf "$out/build"
mkdir -p "$out/build"
rsync -a --exclude=/out --exclude=.git --exclude=/selftests/bin ./ "$out/build/"
make -s -C "$out/build" KDIR="$kdir" clean >/dev/null 2>&1
make -C "$out/build" KDIR="$kdir" C=2 CHECK="sparse -Wno-unknown-attribute" modules \
	>"$out/sparse.log" 2>&1 || { fail=1; tail -20 "$out/sparse.log"; }
# Sparse reports as "file:line:col: warning|error: ..."; only our files count
# (the Debian headers have findings of their own).
if grep -E "^$out/build/[^:]+:[0-9]+:[0-9]+: (warning|error):" "$out/sparse.log" |
	sed "s|$out/build/||"; then
	fail=1
fi

[ $fail = 0 ] && echo "lint: clean" || echo "lint: FAILED (logs in $out)"
exit $fail
