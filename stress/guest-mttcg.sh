#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of stress/crash-rate.sh's MTTCG boots: swap on a brd RAM disk,
# zswap on one backend, parallel checksummed writers (stress/storm).
# Kernel command line:
#   zscr_backend=zsmalloc_mod|zsmalloc zscr_secs=S zscr_writers=N zscr_mib=M
#
# No set -euo pipefail: each step's failure is collected into the setup's
# "not ok" reason or the writers' status, and reported as a TAP result.
. /etc/guest-lib.sh
b=${zscr_backend:-zsmalloc} secs=${zscr_secs:-5} nw=${zscr_writers:-2} mib=${zscr_mib:-16}
tap_plan 2
why=
swap_brd $((nw * mib * 1024)) || why="$why brd"
swap_on /dev/ram0 || why="$why swapon"
zswap_enable || why="$why zswap"
zswap_write zpool "$b" || why="$why zpool"
[ "$(zswap_get zpool)" = "$b" ] || why="$why zpool-is-$(zswap_get zpool)"
if [ "$b" = zsmalloc_mod ]; then
	[ -d /sys/module/zsmalloc_mod ] || why="$why not-loaded"
else
	[ -d /sys/module/zsmalloc_mod ] && why="$why zsmalloc_mod-loaded"
fi
tap_note "backend $b, $(grep -c ^processor /proc/cpuinfo) CPUs online"
if [ -n "$why" ]; then tap_nok "setup:$why"; tap_bail; fi
tap_ok "setup (brd swap, zswap on $b)"
out0=$(sed -n 's/^zswpout //p' /proc/vmstat)
i=1
while [ $i -le "$nw" ]; do
	/root/storm -n w$i -m "$mib" -t "$secs" -s "$i" -f /bin/busybox -r /tmp/w$i >/dev/null &
	i=$((i + 1))
done
rc=0
for p in $(jobs -p); do wait "$p" || rc=$?; done
wait || rc=$?
mism=0
for f in /tmp/w*; do
	m=$(sed -n 's/^mismatches //p' "$f")
	mism=$((mism + ${m:-1}))
done
out=$(($(sed -n 's/^zswpout //p' /proc/vmstat) - out0))
tap_note "writers $nw x $mib MiB, $secs s: mismatches $mism, zswpout +$out, stored_pages $(cat $ZSWAP_DEBUG/stored_pages 2>/dev/null)"
[ "$rc" = 0 ] && [ "$mism" = 0 ] && [ "$out" -gt 0 ] || rc=1
if [ "$rc" = 0 ]; then tap_ok "writers"; else tap_nok "writers"; fi
exit "$rc"
