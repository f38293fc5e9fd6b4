#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make docs`: build Documentation/ into Documentation/output/html with
# Sphinx, warnings as errors, and check every kernel-doc comment of our C
# sources with the kernel's scripts/kernel-doc -Wall.
#
#  1. install Sphinx from Debian (python3-sphinx) when it is missing
#  2. vm/deps.sh + vm/source.sh: the pristine linux-source-6.12 tree, whose
#     Documentation/sphinx/kerneldoc.py and scripts/kernel-doc are used in
#     place (nothing of the kernel tree is copied into this repository)
#  3. scripts/kernel-doc -Wall -none on every tracked .c/.h: any warning fails
#  4. sphinx-build -W --keep-going -b html: any warning fails
#
# usage: scripts/docs.sh [-b BUILDER]    (default html; e.g. -b linkcheck
#        is useless offline, -b text gives plain-text pages)
# Env:   ZSMOD_KSRC=<linux tree> skips vm/deps.sh and vm/source.sh.
# Exit status: 0 when both checks are clean.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

builder=html
while [ $# -gt 0 ]; do
	case $1 in
	-b) builder=$2; shift ;;
	*) echo "usage: $0 [-b BUILDER]" >&2; exit 2 ;;
	esac
	shift
done

say() { echo "docs: $*"; }
die() { echo "docs: ERROR: $*" >&2; exit 1; }

# --- 1. Sphinx ------------------------------------------------------------
# Debian's sphinx-build (#!/usr/bin/python3), whatever python3 is on PATH
sphinx=/usr/bin/sphinx-build
./vm/apt-install.sh python3-sphinx || die "installing python3-sphinx failed"

# --- 2. the kernel tree ---------------------------------------------------
if [ -z "${ZSMOD_KSRC:-}" ]; then
	./vm/deps.sh >/dev/null
	ZSMOD_KSRC=$(./vm/source.sh)
fi
export ZSMOD_KSRC
[ -f "$ZSMOD_KSRC/Documentation/sphinx/kerneldoc.py" ] ||
	die "no Documentation/sphinx/kerneldoc.py in $ZSMOD_KSRC"
kdoc=$ZSMOD_KSRC/scripts/kernel-doc
[ -x "$kdoc" ] || die "no $kdoc"

# Version for the pages: git describe when there is history, else
# debian/changelog's (scripts/version.sh).
ZSMOD_VERSION=$(git describe --always --dirty 2>/dev/null || ./scripts/version.sh 2>/dev/null || true)
export ZSMOD_VERSION

fail=0

# --- 3. kernel-doc -Wall --------------------------------------------------
mapfile -t srcs < <(git ls-files '*.c' '*.h' 2>/dev/null ||
	find . -path ./out -prune -o -name '*.[ch]' -print)
say "kernel-doc -Wall on ${#srcs[@]} files"
kdlog=$(mktemp)
trap 'rm -f "$kdlog"' EXIT
"$kdoc" -Wall -none "${srcs[@]}" >"$kdlog" 2>&1 || true
if [ -s "$kdlog" ]; then
	cat "$kdlog" >&2
	echo "docs: kernel-doc: $(grep -c . "$kdlog") warning line(s)" >&2
	fail=1
else
	say "kernel-doc: clean"
fi

# --- 4. Sphinx --------------------------------------------------------------
out=Documentation/output
# One build at a time: both would write the same output directory.
mkdir -p "$out"
exec 9>"$out/.lock"
flock -n 9 || { say "another docs build is running; waiting for it"; flock 9; }
say "sphinx-build -b $builder -> $out/$builder"
rm -rf "${out:?}/${builder:?}" "$out/doctrees"
# No __pycache__ in the kernel tree, whose Sphinx extensions we import.
if PYTHONDONTWRITEBYTECODE=1 "$sphinx" -W --keep-going -q -b "$builder" -d "$out/doctrees" \
	Documentation "$out/$builder"; then
	say "sphinx: clean, output in $out/$builder"
else
	echo "docs: sphinx-build failed (warnings are errors)" >&2
	fail=1
fi

if [ $fail = 0 ]; then say "PASS"; else say "FAIL"; fi
exit $fail
