#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/demo.sh: zswap on zsmalloc_mod, then a real swap
# workload with zswap's and the pool's counters side by side.
set -euo pipefail
. /etc/guest-lib.sh
swap_on /dev/vda
echo "## swap: $(grep -v Filename /proc/swaps)"
zswap_enable

modprobe zsmalloc_mod
echo "## loaded: $(grep zsmalloc_mod /proc/modules)"
zswap_write zpool zsmalloc_mod
for p in enabled zpool compressor max_pool_percent shrinker_enabled; do
	printf '## zswap %-17s %s\n' "$p" "$(zswap_get $p)"
done
echo "## zsmalloc_mod pools: $(ls $ZSMOD_DEBUG)"

/root/swapload -p 96 -f 32 -m 64
