#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the stock Debian 6.12 guest RUNS times, each running Debian's
# stress-ng (--vm 2 --vm-bytes 80M --vm-method all --verify) in a memcg of
# 64M with zswap on lzo and the given zpool (stress/guest-stressng.sh).
# stress-ng and its libraries are copied from the host (apt: stress-ng).
#
# usage: stress/stressng.sh [--runs N] [--secs S] [--zpool NAME] [--ko FILE]
#                           [--cpu MODEL] [--mttcg] [--out DIR]
# Exit 0 when every boot passed vm/run-guest.sh's verdict (TAP, splats).
# Prints one line per boot and a count.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
runs=10 secs=120 zpool=zsmalloc_mod ko='' cpu='' mttcg='' out=$top/out/stressng
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift ;;
	--secs) secs=$2; shift ;;
	--zpool) zpool=$2; shift ;;
	--ko) ko=$2; shift ;;
	--cpu) cpu=$2; shift ;;
	--mttcg) mttcg=--mttcg ;;
	--out) out=$2; shift ;;
	*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
"$top/vm/apt-install.sh" stress-ng >/dev/null
abi=$("$top/vm/abi.sh")
if [ -z "$ko" ]; then
	"$top/vm/build-modules.sh" "$out/build" "/usr/src/linux-headers-$abi" "$out/build.log"
	ko=$out/build/zsmalloc_mod.ko
fi
files=(--files /usr/bin/stress-ng:/usr/bin/stress-ng)
for lib in $(ldd /usr/bin/stress-ng | grep -o '/[^ ]*'); do
	files+=(--files "$(readlink -f "$lib"):$lib")
done
mkdir -p "$out"
pass=0
for i in $(seq 1 "$runs"); do
	log=$out/$zpool-$i.log
	if "$top/vm/run-guest.sh" --kernel "/boot/vmlinuz-$abi" \
		--init-script "$here/guest-stressng.sh" --modprobe virtio_blk \
		--ko "$ko" --disk 1G --mem 1G --smp 2 ${cpu:+--cpu "$cpu"} $mttcg "${files[@]}" \
		--append "zsng_secs=$secs zsng_zpool=$zpool" \
		--timeout $((secs * 3 + 300)) --log "$log" >"$out/verdict-$i.txt" 2>&1; then
		pass=$((pass + 1))
		echo "stressng: boot $i of $runs ($zpool): pass"
	else
		echo "stressng: boot $i of $runs ($zpool): FAIL ($log)"
		grep -m3 -E 'BUG:|Oops|RIP:|EFLAGS' "$log" | sed 's/^/    /' || true
	fi
done
echo "stressng: $pass of $runs boots passed ($zpool, ${secs}s each${cpu:+, -cpu $cpu}${mttcg:+, MTTCG})"
[ "$pass" = "$runs" ]
