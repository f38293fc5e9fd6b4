#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh --dropbehind: how long the pages of a zswap writeback storm
# out of zsmalloc_mod stay in the swap cache, PG_reclaim (the stock
# behaviour) against PG_dropbehind (kunit/patches/0004-0005), in one boot of
# a test kernel under qemu TCG with -icount: the bench kernel (the same
# patches, configured as Debian's generic flavour: kunit/bench.config) or
# the debug test kernel of the KUnit suites (kunit/config).
#
#   1. kunit/build-kernel.sh [--bench]: the kernel (built if not cached)
#   2. zsmalloc_mod.ko and bench/zsmod_dropbehind.ko against it
#   3. bench/guest-dropbehind.sh: ROUNDS rounds of one storm of each kind
#   4. bench/dropbehind.py: dropbehind.csv, dropbehind.rst, dropbehind.png
#
# usage: bench/dropbehind.sh [--kernel bench|debug] [--rounds N] [--pages P]
#        [--out DIR]   (default the bench kernel, 3 rounds after a warm-up,
#        4096 pages, bench/results/dropbehind/KERNEL)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rounds=3 pages=4096 results='' kernel=bench
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--pages) pages=$2; shift ;;
	--out) results=$2; shift ;;
	*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done
case $kernel in
bench) kflag=--bench kdesc="bench kernel, kunit/config + kunit/bench.config" ;;
debug) kflag='' kdesc="debug test kernel, kunit/config" ;;
*) echo "bench: --kernel is bench or debug" >&2; exit 2 ;;
esac
results=${results:-$top/bench/results/dropbehind/$kernel}
# brd's ram0 has 64 MiB (kunit/config): room for the swap header
[ "$pages" -lt 16000 ] || { echo "bench: --pages must stay below 16000 (64 MiB of swap)" >&2; exit 2; }

t_start=$SECONDS
kdir=$(./kunit/build-kernel.sh -q $kflag)/build || {
	echo "bench: the $kernel kernel did not build" >&2; exit 1; }
mkdir -p "$top/out/bench" "$results"
work=$(mktemp -d "$top/out/bench/dropbehind.XXXXXX")
echo "=== work directory $work"
bdir=$work/build
./vm/build-modules.sh "$bdir" "$kdir" "$work/build.log" ZSMOD_BENCH=1

echo "=== guest: $rounds rounds (and a warm-up) x {reclaim, dropbehind}, $pages pages"
log=$work/guest.log
./vm/run-guest.sh --kernel "$kdir/arch/x86/boot/bzImage" \
	--init-script bench/guest-dropbehind.sh --icount --mem 1G --smp 2 --timeout 1800 \
	--ko "$bdir/zsmalloc_mod.ko" --ko "$bdir/bench/zsmod_dropbehind.ko" \
	--append "zsb_rounds=$rounds zsb_pages=$pages" --log "$log" || {
	echo "bench: the guest run failed (log $log)" >&2; exit 1; }

tr -d '\r' <"${log%.log}.tap" | grep -E '^# (db |vmstat |swap:|mem:)' >"$results/raw.txt" || true
{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit=$(git rev-parse --short HEAD)"
	echo "kind=$kernel"
	echo "kernel=$(make -s -C "$kdir" kernelrelease) ($kdesc)"
	echo "command=bench/run.sh --dropbehind --kernel $kernel --rounds $rounds --pages $pages"
	echo "total_wall_s=$((SECONDS - t_start))"
} >"$results/meta.txt"
python3 bench/dropbehind.py --raw "$results/raw.txt" --meta "$results/meta.txt" --out "$results"
rm -rf "$bdir"
echo "=== done in $((SECONDS - t_start)) s: $results/dropbehind.rst (logs in $work)"
