#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules in a fresh private copy of the work tree: every file is
# compiled (so every warning shows) and the work tree's own build products
# stay as they are. The one place the copy is made; every harness uses it.
#
# usage: vm/build-modules.sh [--rev REV] DIR KDIR LOG [make VAR=value...]
#   --rev REV  the module's sources (zsmalloc_mod.[ch], its headers, Kbuild)
#              as of commit REV, the rest as in the work tree
#   DIR        the copy, made afresh (e.g. out/check/build)
#   KDIR       the kernel build tree to build against
#   LOG        make's output
# Exit: 0 when make succeeded and printed no warning or error about our
# files (the compiler's, sparse's with C=2) nor from modpost; else 1, with
# the offending lines on stderr. Findings in kernel headers do not count.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

rev=
if [ "${1:-}" = --rev ]; then
	rev=$2
	shift 2
fi
[ $# -ge 3 ] || { sed -n '7,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
dir=$1 kdir=$2 log=$3
shift 3

rm -rf "$dir"
mkdir -p "$dir"
rsync -a --exclude=/.git --exclude=/out --exclude=/selftests/bin \
	--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
	--exclude='.*.cmd' --exclude=modules.order --exclude=Module.symvers \
	"$top/" "$dir/"
if [ -n "$rev" ]; then
	# a header younger than REV is left out, as REV's sources never include it
	for f in zsmalloc_mod.c zsmalloc_mod.h zsmalloc_mod_internal.h zsmalloc_mod_trace.h \
		zpdesc.h Kbuild; do
		if git -C "$top" cat-file -e "$rev:$f" 2>/dev/null; then
			git -C "$top" show "$rev:$f" >"$dir/$f"
		else
			rm -f "$dir/$f"
		fi
	done
fi

rc=0
make -C "$dir" KDIR="$kdir" "$@" modules >"$log" 2>&1 || rc=$?
ours="^$dir/[^:]+:[0-9]+:([0-9]+:)? (warning|error):|^(WARNING|ERROR): modpost"
if [ $rc != 0 ] || grep -qE "$ours" "$log"; then
	if [ $rc != 0 ]; then
		tail -30 "$log" >&2
	fi
	grep -E -A3 "$ours" "$log" | sed "s|$dir/||" | head -60 >&2 || true
	echo "build-modules: failed (make status $rc), log $log" >&2
	exit 1
fi
