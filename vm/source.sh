#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of a pristine linux-source-6.12 tree extracted from the
# installed Debian package, extracting it on first use. The tree lives in
# the cache (outside the repository), keyed by the package version, and is
# never modified: builds copy or use O= output directories.
set -euo pipefail
cache=${ZSMOD_CACHE:-/var/cache/zsmalloc_mod}
ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || {
	echo "source: linux-source-6.12 is not installed (run vm/deps.sh)" >&2
	exit 1
}
dir=$cache/src-$ver
if [ ! -f "$dir/.complete" ]; then
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.src-XXXXXX")
	tar -C "$tmp" -xf /usr/src/linux-source-6.12.tar.xz
	rm -rf "$dir"
	mv "$tmp/linux-source-6.12" "$dir"
	rmdir "$tmp"
	touch "$dir/.complete"
fi
echo "$dir"
