#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: zsmalloc_mod against the in-kernel zsmalloc (and zbud), in one
# boot of the stock Debian 6.12 kernel under qemu TCG with -icount (guest
# time counts instructions, so timings repeat within about 1%).
#
#   1. build zsmalloc_mod.ko and bench/zsmod_bench.ko in a private copy of
#      the tree, and the static workload bench/zsmod_swap.c. Each run works
#      in its own out/bench/run.XXXXXX (build, logs), so runs do not clash
#   2. corpus of real content for the guest: decompressed .ko files of the
#      stock kernel and Python sources (out/bench/corpus)
#   3. one guest boot (bench/guest-bench.sh): end to end through zswap,
#      every backend once per round, order rotated, round 0 a warm-up; then
#      the micro-benchmark module on the same content stream
#   4. with --mttcg: short boots (--mttcg-boots N, default 3) without
#      -icount and with one host thread per vCPU, running only the micro
#      module, so that the two-thread operations really run in parallel.
#      Wall clock: noisy from boot to boot, and meaningless on a loaded
#      host; a failed boot is left out (MTTCG sometimes oopses)
#   5. bench/report.py: CSV, results.rst and gnuplot PNGs in bench/results/
#
# usage: bench/run.sh [--rounds N] [--mib M] [--mem SIZE] [--micro-mib M] [--micro-reps N]
#                     [--swap ram|disk] [--no-micro] [--mttcg] [--mttcg-boots N] [--frag] [--profile]
#                     [--profile-detail S] [--rev REV] [--compressor NAME]
#                     [--memdesc] [--out DIR]
#   --profile  after the rounds, one more end-to-end run per backend with the
#              sampling profiler bench/zsmod_prof.c on; its per-function
#              counts go to profile.txt and profile.rst (bench/profile.py)
#              in the results folder. --profile-detail S: the same, and
#              per address in functions whose symbol contains S
#   --frag     run the micro module a second time with fragment=1 (free
#              memory cut into order-0 pieces first; see zsmod_bench.c)
#   --kernel debug  the end-to-end rounds on the debug test kernel of
#              kunit/build-kernel.sh (built if not cached, about 5 minutes)
#              instead of the stock one, with z3fold as a fourth backend
#              (Debian does not build it), measured after the others in one
#              pool (destroying a z3fold pool splats in 6.12): swap on the
#              virtio disk (that kernel has no brd), no micro module or
#              profile; results go to
#              bench/results/debug-kernel unless --out says otherwise.
#              KASAN and lockdep slow everything: only ratios within the
#              boot mean anything
#   --compressor NAME  zswap's compressor for the end-to-end rounds [lzo]:
#              lzo, lz4, lz4hc, zstd or deflate (the stock kernel builds
#              all but lzo as modules, loaded in the guest). The
#              micro-benchmark compresses with lzo, so it is left out. Results go to
#              bench/results/compressors/NAME unless --out says otherwise
#   --memdesc  build zsmalloc_mod in memdesc mode (make ZSMOD_MEMDESC=1, see
#              zpdesc.h); results go to bench/results/memdesc unless --out
#              says otherwise. Its descriptor cache (zsmod_zpdesc) counts in
#              meta_bytes like the module's other caches. With overlay
#              results in bench/results, bench/modes.py writes the two modes
#              side by side into modes.rst
#   --dropbehind [--kernel bench|debug] [--rounds N] [--pages P] [--out DIR]
#              (first argument only) a zswap writeback storm out of
#              zsmalloc_mod on the bench kernel (the test kernel's patches,
#              Debian's configuration of what costs time) or the debug test
#              kernel, PG_reclaim against PG_dropbehind: the storm's time, how
#              long the written-back pages stay in the swap cache, how long
#              reclaim takes to free them. Runs bench/dropbehind.sh; results
#              in bench/results/dropbehind/KERNEL
#   --rev REV  build the allocator (zsmalloc_mod.[ch], zpdesc.h, Kbuild) from
#              commit REV instead of the working tree; bench/ always comes
#              from the working tree. results.rst records what was built.
# Environment: KDIR (kernel build tree), ABI (Debian kernel ABI).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# --dropbehind is a benchmark of its own (bench/dropbehind.sh)
if [ "${1:-}" = --dropbehind ]; then
	shift
	exec "$top/bench/dropbehind.sh" "$@"
fi

rounds=7 mib=64 mem=1G mttcg_boots=3 micro_mib=32 micro_reps=9 swap=ram micro=1 mttcg=0 frag=0 prof=0 prof_detail= rev=
guest_kernel=stock results= compressor=lzo memdesc=
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=$2; shift ;;
	--mib) mib=$2; shift ;;
	--mem) mem=$2; shift ;;
	--micro-mib) micro_mib=$2; shift ;;
	--micro-reps) micro_reps=$2; shift ;;
	--swap) swap=$2; shift ;;
	--no-micro) micro=0 ;;
	--mttcg) mttcg=1 ;;
	--mttcg-boots) mttcg=1; mttcg_boots=$2; shift ;;
	--frag) frag=1 ;;
	--profile) prof=1 ;;
	--profile-detail) prof=1; prof_detail=$2; shift ;;
	--rev) rev=$2; shift ;;
	--kernel) guest_kernel=$2; shift ;;
	--out) results=$2; shift ;;
	--compressor) compressor=$2; shift ;;
	--memdesc) memdesc=1 ;;
	*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done

t_start=$SECONDS
case $compressor in
lzo|lz4|lz4hc|zstd|deflate) ;;
*) echo "bench: --compressor lzo, lz4, lz4hc, zstd or deflate, not $compressor" >&2; exit 2 ;;
esac
if [ "$compressor" != lzo ]; then
	[ "$guest_kernel" = stock ] || {
		echo "bench: --compressor needs the stock kernel" >&2; exit 2; }
	results=${results:-$top/bench/results/compressors/$compressor}
	micro=0 mttcg=0 frag=0	# the micro-benchmark's objects are lzo's
fi
[ -z "$memdesc" ] || results=${results:-$top/bench/results/memdesc}
# the stock kernel's ABI names the corpus's .ko files in either case
abi=${ABI:-$(./vm/abi.sh)}
backends=zsmalloc+zbud+zsmalloc_mod tail=
case $guest_kernel in
stock)
	kdir=${KDIR:-/usr/src/linux-headers-$abi}
	kernel=/boot/vmlinuz-$abi
	kernel_name=$abi
	results=${results:-$top/bench/results}
	;;
debug)
	kdir=$(./kunit/build-kernel.sh -q)/build || {
		echo "bench: the debug test kernel did not build" >&2; exit 1; }
	kernel=$kdir/arch/x86/boot/bzImage
	kernel_name="$(make -s -C "$kdir" kernelrelease) (debug test kernel, kunit/config)"
	results=${results:-$top/bench/results/debug-kernel}
	backends=zsmalloc+zbud+zsmalloc_mod tail=z3fold
	swap=disk micro=0 mttcg=0 frag=0 prof=0
	;;
*)
	echo "bench: --kernel stock or debug, not $guest_kernel" >&2; exit 2 ;;
esac
[ -f "$kernel" ] && [ -d "$kdir" ] || {
	echo "bench: need $kernel and $kdir (make deps)" >&2; exit 1; }
mkdir -p "$top/out/bench" "$results"
work=$(mktemp -d "$top/out/bench/run.XXXXXX")
echo "=== work directory $work"

# --- 1. build (a private copy: other builds in the tree are left alone)
echo "=== build against $kdir"
bdir=$work/build
src="working tree"
[ -z "$rev" ] || src="commit $(git rev-parse --short "$rev")"
./vm/build-modules.sh ${rev:+--rev "$rev"} "$bdir" "$kdir" "$work/build.log" ZSMOD_BENCH=1 \
	${memdesc:+ZSMOD_MEMDESC=1} ||
	exit 1
gcc -O2 -Wall -Wextra -static -o "$work/zsmod_swap" bench/zsmod_swap.c

# --- 2. corpus: about 24 MiB of modules, text, and busybox in the guest
corpus=$top/out/bench/corpus
bench/corpus.sh "$corpus" "$abi"

# --- 3. the guest
echo "=== guest: $rounds rounds x {${backends//+/,}}${tail:+, then $tail}, $mib MiB, swap on $swap"
log=$work/guest.log
tap=$work/guest.tap
args=(--kernel "$kernel" --init-script bench/guest-bench.sh --icount
	--mem "$mem" --smp 2 --timeout 3600
	--ko "$bdir/zsmalloc_mod.ko" --ko "$bdir/bench/zsmod_bench.ko"
	--ko "$bdir/bench/zsmod_prof.ko"
	--files "$work/zsmod_swap:/root/bench/zsmod_swap"
	--files "$corpus:/root/corpus" --log "$log"
	--append "zsb_rounds=$rounds zsb_mib=$mib zsb_swap=$swap zsb_micro=$micro zsb_frag=$frag zsb_prof=$prof${prof_detail:+ zsb_prof_detail=$prof_detail}"
	--append "zsb_micro_mib=$micro_mib zsb_micro_args=reps=$micro_reps zsb_backends=$backends${tail:+ zsb_tail=$tail}"
	--append "zsb_compressor=$compressor"
	--append slab_nomerge)	# the backends' slab caches apart, for meta_bytes
# lzo is built in; the others are modules of the stock and the debug kernel
[ "$compressor" = lzo ] || args+=(--modprobe "$compressor")
if [ "$swap" = disk ]; then
	args+=(--disk 1G)
	[ "$guest_kernel" = stock ] && args+=(--modprobe virtio_blk)
else
	args+=(--modprobe brd)
fi
t_guest=$SECONDS
./vm/run-guest.sh "${args[@]}" || {
	echo "bench: the guest run failed (log $log, tap $tap)" >&2; exit 1; }
guest_s=$((SECONDS - t_guest))

mt_raw=
rm -f "$results/raw-mttcg.txt" "$results/micro_mttcg.csv"
if [ "$mttcg" = 1 ] && [ "$micro" = 1 ]; then
	# wall clock on a shared host wanders from boot to boot: several boots
	mt_raw=$results/raw-mttcg.txt
	: >"$mt_raw"
	margs=()
	for a in "${args[@]}"; do
		[ "$a" = --icount ] || margs+=("$a")
	done
	for b in $(seq 1 "$mttcg_boots"); do
		echo "=== guest 2.$b: micro only, --mttcg without -icount (parallel vCPUs)"
		mlog=$work/guest-mttcg-$b.log
		if ./vm/run-guest.sh "${margs[@]}" --mttcg --log "$mlog" \
			--append "zsb_e2e=0 zsb_micro_args=reps=$((micro_reps + 6))"; then
			echo "# mttcg-boot $b" >>"$mt_raw"
			tr -d '\r' <"${mlog%.log}.tap" | grep -E '^# micro ' >>"$mt_raw" || true
		else
			echo "bench: MTTCG boot $b failed; it is left out (log $mlog)" >&2
		fi
	done
	grep -q '^# mttcg-boot' "$mt_raw" || { rm -f "$mt_raw"; mt_raw=; }
fi

# --- 4. report
{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "commit=$(git rev-parse --short HEAD)"
	echo "allocator built from the $src: zsmalloc_mod.c sha1=$(sha1sum "$bdir/zsmalloc_mod.c" | cut -c1-12) zpdesc.h sha1=$(sha1sum "$bdir/zpdesc.h" | cut -c1-12)"
	[ -z "$rev" ] && echo "working tree status: $(git status --short zsmalloc_mod.c zsmalloc_mod.h zsmalloc_mod_internal.h zsmalloc_mod_trace.h zpdesc.h | tr '\n' ' ')"
	echo "zpdesc=$(modinfo -F zpdesc "$bdir/zsmalloc_mod.ko")"
	echo "kernel=$kernel_name"
	echo "guest_kernel=$guest_kernel"
	echo "guest_mem=$mem"
	echo "swap=$swap"
	echo "compressor=$compressor"
	echo "qemu=$(qemu-system-x86_64 --version | head -1)"
	echo "host=$(nproc) CPUs, $(uname -r)"
	echo "command=bench/run.sh$([ "$guest_kernel" = debug ] && echo ' --kernel debug') --rounds $rounds --mib $mib$([ "$mem" = 1G ] || echo " --mem $mem") --micro-mib $micro_mib --micro-reps $micro_reps --swap $swap$([ $micro = 1 ] || echo ' --no-micro')$([ $mttcg = 1 ] && echo " --mttcg-boots $mttcg_boots")$([ $frag = 1 ] && echo ' --frag')$([ $prof = 1 ] && echo ' --profile')$([ "$compressor" = lzo ] || echo " --compressor $compressor")${memdesc:+ --memdesc}${rev:+ --rev $rev}"
	echo "guest_wall_s=$guest_s"
	echo "total_wall_s=$((SECONDS - t_start))"
} >"$work/meta.txt"
tr -d '\r' <"$tap" | grep -E '^# (e2e |micro |micro-frag |param |swap:|mem:|end )' >"$results/raw.txt" || true
if [ "$prof" = 1 ]; then
	tr -d '\r' <"$tap" | sed -n 's/^# prof //p' >"$results/profile.txt"
	python3 bench/profile.py --in "$results/profile.txt" --out "$results/profile.rst" \
		--what "$src at $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d)"
fi
python3 bench/report.py --raw "$results/raw.txt" --meta "$work/meta.txt" --out "$results" \
	${mt_raw:+--raw-mttcg "$mt_raw"}
# memdesc mode against the overlay results of bench/results, when there are any
if [ -n "$memdesc" ] && [ -f bench/results/e2e_summary.csv ]; then
	python3 bench/modes.py --overlay bench/results --memdesc "$results" \
		--out "$results/modes.rst"
fi
rm -rf "$bdir"
echo "=== done in $((SECONDS - t_start)) s: $results/results.rst (logs in $work)"
