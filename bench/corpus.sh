#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The benchmark corpus, made once and shared by later runs:
#   bench/corpus.sh DIR ABI
# About 24 MiB of the stock kernel's fs/ modules (ABI), decompressed, and
# 8 MiB of Python standard library sources. Built aside, then renamed into
# place, so that concurrent runs never see half of it. The guest adds
# /bin/busybox.
set -euo pipefail
corpus=$1 abi=$2
[ -f "$corpus/.done" ] && exit 0
echo "=== corpus"
mkdir -p "$(dirname "$corpus")"
c=$(mktemp -d "$corpus.XXXXXX")
mkdir -p "$c/ko" "$c/text"
find "/lib/modules/$abi/kernel/fs" -name '*.ko.xz' | sort | while read -r f; do
	xz -dc "$f" >"$c/ko/$(basename "${f%.xz}")"
	[ "$(du -sm "$c/ko" | cut -f1)" -ge 24 ] && break
done
find /usr/lib/python3*/ -maxdepth 1 -name '*.py' | sort | xargs cat |
	head -c 8M >"$c/text/python-stdlib.txt"
touch "$c/.done"
rm -rf "$corpus"
mv -T "$c" "$corpus" 2>/dev/null || rm -rf "$c"
