#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Crash rates of our qemu guests, counted (issue "Reliability", section 6):
# how often a short guest dies, and whether any death points at us.
#
#   icount   the micro-benchmark phase of bench/run.sh alone (bench/zsmod_bench.ko,
#            bench/guest-bench.sh with zsb_e2e=0) under -icount shift=0,sleep=off,
#            single-threaded TCG, 2 vCPUs, on the debug test kernel
#            (kunit/build-kernel.sh: KASAN, lockdep, UBSAN, KFENCE,
#            DEBUG_PAGEALLOC on by default) with slab_nomerge, as the bench
#            boots it. Asks: is the double fault with garbage EFLAGS after
#            SLUB's cmpxchg16b (bench/README.md) memory corruption that the
#            sanitizers would catch, or qemu's?
#   ours     multi-threaded TCG (-accel tcg,thread=multi), 2 vCPUs, the stock
#            kernel, zswap on zsmalloc_mod (auto-loaded through its alias),
#            parallel checksummed writers (stress/storm) pushing pages out
#            with MADV_PAGEOUT, swap on a brd RAM disk (stress/guest-mttcg.sh)
#   builtin  the same boots with zswap on the built-in zsmalloc; our module
#            is not even in the initramfs
#
# The three kinds of boot take turns until each has its count or the time
# budget is spent (no boot starts after it; one in flight finishes). Every
# qemu runs under nice -n 19, one at a time. Each boot is judged by
# vm/run-guest.sh (vm/verdict.sh: TAP, timeouts, vm/splat-patterns); a failed
# one is classified from its console log: double fault / int3 / Oops / KASAN
# / other, whether the first splat came before init ran ("early"), and which
# of our modules appear in the splat's trace ("[zsmalloc_mod]",
# "[zsmod_bench]"); a boot that ends in the timeout with no splat is a
# "hang". The icount boots panic on a soft lockup or a task hung for 60 s
# (guest time), so a hang without a splat means guest time stood still.
# A crash with zsmalloc_mod in its trace stops the run
# (unless --keep-going): that is a bug of ours until shown otherwise.
#
# usage: stress/crash-rate.sh [--icount-runs N] [--mttcg-boots N] [--budget MIN]
#                             [--micro-mib M] [--micro-reps N] [--icount-timeout S] [--secs S]
#                             [--writers N] [--mib M] [--out DIR] [--keep-going]
#        stress/crash-rate.sh --summarize DIR
#   --icount-runs N   icount boots of the debug kernel (default 50; 0: none)
#   --mttcg-boots N   MTTCG boots per group, ours and builtin (default 50)
#   --budget MIN      start no boot after MIN minutes (default 70)
#   --micro-mib M --micro-reps N  the micro module's input and repetitions
#                     (default 4 MiB, 1: about a minute per boot)
#   --icount-timeout S  host-side limit of an icount boot (default 300)
#   --secs S --writers N --mib M  the MTTCG workload: N writers of M MiB for
#                     S seconds (default 2 x 16 MiB, 5 s)
#   --out DIR         logs and summary (default out/crash-rate/<UTC time>)
#   --keep-going      do not stop at a crash with zsmalloc_mod in its trace
#   --summarize DIR   no build, no boot: classify the failed boots of an earlier run
#                     again from their logs and rewrite its results.tsv and
#                     summary.md
# Output: DIR/<kind>-<n>.{log,tap,verdict}, DIR/build.txt, DIR/results.tsv (one line a
# boot), DIR/summary.md (the table, also printed).
# Exit: 0 no crash, 1 some boot failed, 2 usage or build error,
# 3 stopped on a crash with zsmalloc_mod in its trace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top"

icount_runs=50 mttcg_boots=50 budget=70 icount_timeout=300 micro_mib=4 micro_reps=1 secs=5 writers=2 mib=16
out='' keep='' resum='' stop_ours=''
usage() { sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--icount-runs) icount_runs=$2; shift ;;
	--mttcg-boots) mttcg_boots=$2; shift ;;
	--budget) budget=$2; shift ;;
	--micro-mib) micro_mib=$2; shift ;;
	--micro-reps) micro_reps=$2; shift ;;
	--icount-timeout) icount_timeout=$2; shift ;;
	--secs) secs=$2; shift ;;
	--writers) writers=$2; shift ;;
	--mib) mib=$2; shift ;;
	--out) out=$2; shift ;;
	--keep-going) keep=1 ;;
	--summarize) resum=1 out=$2; shift ;;
	*) usage ;;
	esac
	shift
done
for v in "$icount_runs" "$mttcg_boots" "$budget" "$micro_mib" "$micro_reps" "$icount_timeout" "$secs" "$writers" "$mib"; do
	[[ $v =~ ^[0-9]+$ ]] || usage
done

t0=$SECONDS
deadline=$((t0 + budget * 60))
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-$top/out/crash-rate/$stamp}
mkdir -p "$out"
out=$(cd "$out" && pwd)
results=$out/results.tsv

# classify LOG: "class<TAB>early<TAB>in_trace<TAB>first splat line"; a
# failure without a splat is a "hang" (the timeout ended it) or "other",
# with the last console line instead of the splat
classify() {
	local log=$1 hits first fline class early=no mods last
	hits=$(./vm/splats.sh "$log") || true
	if [ -z "$hits" ]; then
		class=other
		grep -q 'timed out\|timeout' "${log%.log}.verdict" && class=hang
		last=$(tr -d '\r' <"$log" | grep -v '^[[:space:]]*$' | tail -n 1 | tr '\t' ' ')
		printf '%s\t-\t-\tlast console line: %s\n' "$class" "$last"
		return
	fi
	first=${hits%%$'\n'*}
	fline=${first%%:*}
	if grep -q 'double fault' <<<"$hits"; then class=double-fault
	elif grep -q 'KASAN' <<<"$hits"; then class=KASAN
	elif grep -q 'Oops: int3' <<<"$hits"; then class=int3
	elif grep -qE 'Oops|BUG: unable to handle|general protection|kernel BUG' <<<"$hits"; then class=Oops
	else class=other
	fi
	# the first line of vm/guest-init.sh, our /init ("Run /init as init
	# process" is KERN_INFO, below the guests' loglevel)
	init=$(tr -d '\r' <"$log" | grep -n -m1 '^guest-init: kernel' | cut -d: -f1) || true
	[ -z "$init" ] || [ "$fline" -lt "$init" ] && early=yes
	# Modules in the trace: x86 prints "func+0x../0x.. [module]"; the
	# "Modules linked in:" line lists every loaded module and does not count.
	mods=$(tr -d '\r' <"$log" | tail -n +"$fline" | grep -v 'Modules linked in' |
		grep -oE '\[(zsmalloc_mod|zsmod_bench)\]' | sort -u | tr -d '[]' | paste -sd, -) || true
	printf '%s\t%s\t%s\t%s\n' "$class" "$early" "${mods:--}" "${first#*:}"
}

if [ -n "$resum" ]; then
	[ -f "$results" ] || { echo "crash-rate: no $results" >&2; exit 2; }
	{
		head -n 1 "$results"
		tail -n +2 "$results" | while IFS=$'\t' read -r kind n rc dt rest; do
			if [ "$rc" = 0 ]; then
				printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$n" "$rc" "$dt" "$rest"
			else
				printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$n" "$rc" "$dt" "$(classify "$out/$kind-$n.log")"
			fi
		done
	} >"$results.new"
	mv "$results.new" "$results"
else
echo "crash-rate: logs in $out, budget $budget min" >&2

abi=$(./vm/abi.sh)
stock_kernel=/boot/vmlinuz-$abi
stock_kdir=/usr/src/linux-headers-$abi
if [ ! -f "$stock_kernel" ] || [ ! -d "$stock_kdir" ]; then
	echo "crash-rate: need $stock_kernel and $stock_kdir (make deps)" >&2
	exit 2
fi
if [ "$icount_runs" -gt 0 ]; then
	# built by another helper (make kunit); -q prints a complete build at once
	dk=$(./kunit/build-kernel.sh -q 2>/dev/null) || {
		echo "crash-rate: no debug test kernel (kunit/build-kernel.sh)" >&2; exit 2; }
	debug_kdir=$dk/build
	debug_kernel=$debug_kdir/arch/x86/boot/bzImage
fi

# --- build: private copies of the tree, one per kernel, removed at exit
bdir=$(mktemp -d /tmp/crash-rate.XXXXXX)
trap 'rm -rf "$bdir"' EXIT
build() {	# build DIR KDIR [make VAR=value...]: vm/build-modules.sh
	local d=$1 k=$2
	shift 2
	./vm/build-modules.sh "$d" "$k" "$out/build-$(basename "$d").log" "$@" || {
		echo "crash-rate: module build failed in $d" >&2
		exit 2
	}
	# what the modules were built from (the summary says it)
	echo "built from commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null ||
		echo ' with working-tree changes'), zsmalloc_mod.c sha1 $(sha1sum <"$d/zsmalloc_mod.c" | cut -c1-12)" >"$out/build.txt"
}
echo "crash-rate: building" >&2
if [ "$icount_runs" -gt 0 ]; then
	build "$bdir/debug" "$debug_kdir" ZSMOD_BENCH=1
	gcc -O2 -Wall -Wextra -static -o "$bdir/zsmod_swap" bench/zsmod_swap.c
	# The micro module reads the first --micro-mib MiB of the bench's content
	# stream (zsmod_swap: the corpus files in sorted order): the first
	# modules of the bench corpus are enough, and keep the initramfs small.
	corpus=$top/out/bench/corpus
	bench/corpus.sh "$corpus" "$abi" >&2
	mkdir -p "$bdir/corpus/ko"
	n=0
	while read -r f; do
		cp "$corpus/ko/$f" "$bdir/corpus/ko/"
		n=$((n + $(stat -c %s "$corpus/ko/$f")))
		[ $n -gt $(((micro_mib + 2) << 20)) ] && break
	done < <(find "$corpus/ko" -maxdepth 1 -type f -printf '%f\n' | LC_ALL=C sort)
fi
if [ "$mttcg_boots" -gt 0 ]; then
	build "$bdir/stock" "$stock_kdir"
	make -s -C "$bdir/stock/stress" >/dev/null
fi

# --- one boot
printf 'kind\tn\tstatus\tsecs\tclass\tearly\tin_trace\tfirst_splat\n' >"$results"
declare -A done_n=()


boot() {	# boot KIND N
	local kind=$1 n=$2 log=$out/$1-$2.log rc=0 t dt c
	local args=(--mem 1G --smp 2 --log "$log")
	case $kind in
	icount)
		args+=(--kernel "$debug_kernel" --init-script bench/guest-bench.sh --icount
			--timeout "$icount_timeout" --disk 256M
			--ko "$bdir/debug/zsmalloc_mod.ko" --ko "$bdir/debug/bench/zsmod_bench.ko"
			--files "$bdir/zsmod_swap:/root/bench/zsmod_swap"
			--files "$bdir/corpus:/root/corpus"
			--append "zsb_e2e=0 zsb_swap=disk zsb_micro=1 zsb_micro_mib=$micro_mib"
			--append "zsb_micro_args=reps=$micro_reps zsb_backends=zsmalloc+zsmalloc_mod"
			--append "slab_nomerge debug_pagealloc=on"
			--append "softlockup_panic=1 hung_task_panic=1 sysctl.kernel.hung_task_timeout_secs=60") ;;
	ours | builtin)
		args+=(--kernel "$stock_kernel" --init-script stress/guest-mttcg.sh --mttcg
			--timeout $((secs * 6 + 240)) --modprobe brd
			--files "$bdir/stock/stress/bin/storm:/root/storm")
		if [ "$kind" = ours ]; then
			args+=(--ko "$bdir/stock/zsmalloc_mod.ko" --append zscr_backend=zsmalloc_mod)
		else
			args+=(--append zscr_backend=zsmalloc)
		fi
		args+=(--append "zscr_secs=$secs zscr_writers=$writers zscr_mib=$mib") ;;
	esac
	t=$SECONDS
	nice -n 19 ./vm/run-guest.sh "${args[@]}" >"${log%.log}.verdict" 2>&1 || rc=$?
	dt=$((SECONDS - t))
	if [ $rc = 0 ]; then
		c=$(printf 'clean\t-\t-\t-')
	else
		c=$(classify "$log")
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$n" "$rc" "$dt" "$c" >>"$results"
	echo "crash-rate: $kind $n: rc $rc in ${dt}s: $(cut -f1-3 <<<"$c" | tr '\t' ' ')" >&2
	[ $rc = 0 ] || sed 's/^/    /' "${log%.log}.verdict" | grep -v '^    run-guest: booting' | head -12 >&2
	if [[ $(cut -f3 <<<"$c") == *zsmalloc_mod* ]]; then
		echo "crash-rate: CRASH WITH zsmalloc_mod IN THE TRACE: $log" >&2
		[ -n "$keep" ] || stop_ours=$log
	fi
}

# --- take turns until the counts or the budget
target() { case $1 in icount) echo "$icount_runs" ;; *) echo "$mttcg_boots" ;; esac; }
while [ -z "$stop_ours" ] && [ $SECONDS -lt $deadline ]; do
	more=''
	for kind in icount ours builtin; do
		n=${done_n[$kind]:-0}
		[ "$n" -lt "$(target $kind)" ] || continue
		if [ -n "$stop_ours" ] || [ $SECONDS -ge $deadline ]; then break; fi
		more=1
		done_n[$kind]=$((n + 1))
		boot "$kind" $((n + 1))
	done
	[ -n "$more" ] || break
done

fi	# not --summarize

# --- summary
summary=$out/summary.md
{
	echo "crash-rate $(date -u -r "$results" +%Y-%m-%d), $(qemu-system-x86_64 --version | head -1)," \
		"host $(nproc) CPUs; $(cat "$out/build.txt" 2>/dev/null || echo 'build unknown')"
	echo
	echo "| boots | kernel, accel | runs | clean | failed | double fault | int3 | Oops | KASAN | other | hang (no splat) | early (before init) | zsmalloc_mod in trace | s/boot (median) |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for kind in icount ours builtin; do
		case $kind in
		icount) what="micro phase: debug kernel, -icount, slab_nomerge, debug_pagealloc" ;;
		ours) what="stock, MTTCG, zswap on zsmalloc_mod" ;;
		builtin) what="stock, MTTCG, zswap on zsmalloc, module not loaded" ;;
		esac
		med=$(awk -F'\t' -v k="$kind" 'NR > 1 && $1 == k { print $4 }' "$results" | sort -n |
			awk '{ s[NR] = $1 } END { if (NR) print (NR % 2) ? s[(NR + 1) / 2] : (s[NR / 2] + s[NR / 2 + 1]) / 2 }')
		awk -F'\t' -v k="$kind" -v what="$what" -v med="$med" '
			NR > 1 && $1 == k {
				n++
				if ($3 == 0) clean++
				else {
					crash++; cls[$5]++
					if ($6 == "yes") early++
					if ($7 ~ /zsmalloc_mod/) ours++
				}
			}
			END {
				if (!n) exit
				printf "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n",
					k, what, n, clean, crash, cls["double-fault"], cls["int3"], cls["Oops"],
					cls["KASAN"], cls["other"], cls["hang"], early, ours, med
			}' "$results"
	done
	echo
	awk -F'\t' 'NR > 1 && $3 != 0 {
		printf "- %s %s: %s, early %s, our modules in trace: %s: `%s` (%s-%s.log)\n",
			$1, $2, $5, $6, $7, $8, $1, $2 }' "$results"
} >"$summary"
cat "$summary"
echo "crash-rate: $summary, $results" >&2
[ -z "$stop_ours" ] || { echo "crash-rate: stopped: zsmalloc_mod in the trace of $stop_ours" >&2; exit 3; }
awk -F'\t' 'NR > 1 && $3 != 0 { bad = 1 } END { exit bad }' "$results" || exit 1
exit 0
