#!/bin/sh
# Guest side of vm/demo.sh: zswap on zsmalloc_mod, then a real swap workload
# with zswap's and the pool's counters side by side.
set -e
mkswap /dev/vda >/dev/null
swapon /dev/vda
echo "## swap: $(grep -v Filename /proc/swaps)"
echo 1 >/sys/module/zswap/parameters/enabled

modprobe zsmalloc_mod
echo "## loaded: $(grep zsmalloc_mod /proc/modules)"
echo zsmalloc_mod >/sys/module/zswap/parameters/zpool
for p in enabled zpool compressor max_pool_percent shrinker_enabled; do
	printf '## zswap %-17s %s\n' "$p" "$(cat /sys/module/zswap/parameters/$p)"
done
echo "## zsmalloc_mod pools: $(ls /sys/kernel/debug/zsmalloc_mod)"

/root/swapload -p 96 -f 32 -m 64

