#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/run.sh --dropbehind (one boot of the test kernel,
# -icount): zswap on zsmalloc_mod, swap on brd's ram0 (built in, 64 MiB),
# and zsb_rounds=N rounds of two writeback storms of zsb_pages=P pages by
# bench/zsmod_dropbehind.ko, one with zswap.writeback_dropbehind=0
# (PG_reclaim, the stock behaviour), one with =1 (PG_dropbehind), the
# order alternating from round to round; round 0 is a warm-up.
# Every result goes to the TAP stream: "# db mode=reclaim|dropbehind
# round=R ..." lines, one "ok"/"not ok" per storm.
#
# No set -euo pipefail: a failed step is a "not ok" result (with its exit
# status) and the storms after it still run.
. /etc/guest-lib.sh
rounds=${zsb_rounds:-3}
pages=${zsb_pages:-4096}
tap_plan $((2 * (rounds + 1) + 1))

ok=0
swap_on /dev/ram0 || ok=1
zswap_enable || ok=1
modprobe zsmalloc_mod || ok=1
zswap_set zpool zsmalloc_mod || ok=1
echo "# swap: $(tail -n +2 /proc/swaps | tr -s ' ')"
echo "# mem: $(grep MemTotal /proc/meminfo | tr -s ' ')"
tap_status $ok "setup (swap on ram0, zswap on zsmalloc_mod)"
[ $ok = 0 ] || tap_bail "setup failed"

# storm MODE ROUND: one storm with zswap.writeback_dropbehind for MODE
storm() {
	case $1 in
	reclaim) zswap_write writeback_dropbehind 0 ;;
	dropbehind) zswap_write writeback_dropbehind 1 ;;
	esac
	sync
	echo 3 >/proc/sys/vm/drop_caches
	modprobe zsmod_dropbehind pages="$pages"
	rc=$?
	if [ -r /sys/kernel/debug/zsmod_dropbehind/results ]; then
		echo "# db mode=$1 round=$2 $(cat /sys/kernel/debug/zsmod_dropbehind/results)"
	else
		rc=7
	fi
	rmmod zsmod_dropbehind
	tap_status $rc "storm $1 round $2"
}

r=0
while [ $r -le "$rounds" ]; do
	if [ $((r % 2)) = 0 ]; then
		storm reclaim $r
		storm dropbehind $r
	else
		storm dropbehind $r
		storm reclaim $r
	fi
	r=$((r + 1))
done
grep -E '^(dropbehind|pgrotated|zswpwb|pswpout)' /proc/vmstat | sed 's/^/# vmstat /'
