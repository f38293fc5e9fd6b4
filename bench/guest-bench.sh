#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of bench/run.sh (one boot of the stock kernel, -icount).
#
# Kernel command line knobs (set by run.sh): zsb_rounds=N measured rounds
# (plus one warm-up round 0), zsb_mib=M working set, zsb_micro=0 skips the
# micro-benchmark module, zsb_micro_args="k=v+k=v" its module parameters,
# zsb_frag=1 runs it a second time with fragment=1, zsb_e2e=0 skips the
# end-to-end rounds, zsb_swap=disk swaps to the virtio disk, zsb_prof=1 adds
# one profiled end-to-end run per backend after the rounds (zsmod_prof.ko,
# sampling swap-out and swap-in only; "# prof BACKEND out|in COUNT FUNCTION"
# lines; not part of any timing), zsb_backends=a+b+c the zpools to compare
# (default zsmalloc+zbud+zsmalloc_mod), zsb_tail=B one more backend whose
# rounds all come after the others' in one pool that is never destroyed
# (for z3fold, whose pool destroy splats in 6.12: see
# Documentation/benchmarks.rst),
# zsb_compressor=NAME zswap's compressor (default lzo; run.sh loads its
# module).
# Every result goes to the TAP stream (the second serial port): "# e2e ..."
# and "# micro ..." comment lines, one "ok"/"not ok" per step.
#
# No set -euo pipefail: a failed step is a "not ok" result (with its exit
# status) and the measurements after it still run.
. /etc/guest-lib.sh
rounds=${zsb_rounds:-5}
[ "${zsb_e2e:-1}" = 0 ] && rounds=-1
mib=${zsb_mib:-64}
micro=${zsb_micro:-1}
backends=$(echo "${zsb_backends:-zsmalloc+zbud+zsmalloc_mod}" | tr '+' ' ')
nb=$(echo "$backends" | wc -w)
tail_backend=${zsb_tail:-}
corpus=/root/corpus,/bin/busybox
bin=/root/bench/zsmod_swap
cg=$CGROUP_ROOT/zsb

prof=${zsb_prof:-0}
plan=$(( (rounds + 1) * nb + 2 ))
[ -n "$tail_backend" ] && plan=$((plan + rounds + 1))
[ "$prof" = 1 ] && plan=$((plan + nb))
[ "$micro" = 1 ] && plan=$((plan + 1))
[ "$micro" = 1 ] && [ "${zsb_frag:-0}" = 1 ] && plan=$((plan + 1))
tap_plan $plan

# --- setup: swap device, zswap on, a memcg. Swap goes to a brd RAM disk by
# default (zsb_swap=ram): pages zswap rejects are then written and read
# synchronously, without the virtio disk whose waits make -icount time jump.
# zsb_swap=disk uses the virtio disk of run-guest.sh --disk instead.
ok=0
if [ "${zsb_swap:-ram}" = ram ]; then
	swap_brd $((mib * 2048)) || ok=1
	swapdev=/dev/ram0
else
	swapdev=/dev/vda
fi
swap_on $swapdev || ok=1
zswap_enable || ok=1
comp=${zsb_compressor:-lzo}
# zswap keeps its old compressor if the new one is unavailable: checked
zswap_set compressor "$comp" || ok=1
modprobe zsmalloc_mod || ok=1
memcg_enable
memcg_make zsb || ok=1
for f in $ZSWAP_PARAMS/*; do
	echo "# param $(basename "$f")=$(cat "$f")"
done
echo "# swap: $(tail -n +2 /proc/swaps | tr -s ' ')"
echo "# mem: $(grep MemTotal /proc/meminfo | tr -s ' ')"
tap_status $ok "setup (swap, zswap, memcg, zsmalloc_mod)"
[ $ok = 0 ] || tap_bail "setup failed"

# use_backend B: later zswap stores go to a fresh pool of backend B, with
# the page cache dropped; prints the zpool zswap reports now
use_backend() {
	zswap_write zpool "$1"
	zswap_get zpool
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# slab_caches B: name prefixes of backend B's own slab caches (zbud has
# none: its header lives in the page)
slab_caches() {
	case $1 in
	zsmalloc) echo zs_handle,zspage ;;
	zsmalloc_mod) echo zsmod_ ;;
	z3fold) echo z3fold_ ;;
	*) echo - ;;
	esac
}

# run_micro PREFIX TEXT [PARAM...]: load the micro-benchmark module with
# PARAMs, print its results with "micro " turned into PREFIX, report TEXT
run_micro() {
	prefix=$1 text=$2
	shift 2
	# shellcheck disable=SC2086
	modprobe zsmod_bench src=/tmp/corpus.bin "$@" $args
	rc=$?
	if [ -r /sys/kernel/debug/zsmod_bench/results ]; then
		sed "s/^micro /# $prefix /" /sys/kernel/debug/zsmod_bench/results
		grep -q '^micro done' /sys/kernel/debug/zsmod_bench/results || rc=8
	else
		rc=7
	fi
	rmmod zsmod_bench
	tap_status $rc "$text"
}

# --- end to end: every backend once per round, order rotated per round
r=0
while [ $r -le "$rounds" ]; do
	set -- $backends
	k=0
	while [ $k -lt $((r % nb)) ]; do
		b=$1; shift; set -- "$@" "$b"; k=$((k + 1))
	done
	pos=0
	for b in "$@"; do
		pos=$((pos + 1))
		got=$(use_backend "$b")
		# in the last round, our classes table at the peak of the run
		peak=''
		if [ "$b" = zsmalloc_mod ] && [ "$r" = "$rounds" ]; then
			d=$(ls -dt $ZSMOD_DEBUG/*/ 2>/dev/null | head -n 1)
			[ -n "$d" ] && peak="--peak-copy ${d}classes /tmp/peak-classes"
		fi
		# shellcheck disable=SC2086
		line=$($bin --cg $cg --mib "$mib" --corpus $corpus --tag "backend=$b round=$r pos=$pos" \
			--slab "$(slab_caches "$b")" $peak)
		rc=$?
		[ -n "$peak" ] && [ -r /tmp/peak-classes ] &&
			sed 's/^/# peak-classes /' /tmp/peak-classes
		[ "$got" = "$b" ] || rc=9
		echo "# $line zpool=$got"
		tap_status $rc "e2e $b round $r"
	done
	r=$((r + 1))
done

# --- the tail backend: all its rounds in one pool, never switched away from
r=0
while [ -n "$tail_backend" ] && [ $r -le "$rounds" ]; do
	b=$tail_backend
	got=$(use_backend "$b")
	line=$($bin --cg $cg --mib "$mib" --corpus $corpus --tag "backend=$b round=$r pos=$((nb + 1))" \
		--slab "$(slab_caches "$b")")
	rc=$?
	[ "$got" = "$b" ] || rc=9
	echo "# $line zpool=$got"
	tap_status $rc "e2e $b round $r (tail)"
	r=$((r + 1))
done

# --- profiled runs: where each backend's end-to-end run spends its time
if [ "$prof" = 1 ]; then
	modprobe zsmod_prof detail="${zsb_prof_detail:-}"
	for b in $backends; do
		use_backend "$b" >/dev/null
		line=$($bin --cg $cg --mib "$mib" --corpus $corpus --tag "backend=$b profiled" \
			--prof /sys/kernel/debug/zsmod_prof)
		rc=$?
		echo "# prof-e2e $line"
		sed "s/^/# prof $b out /" /tmp/prof-out
		sed "s/^/# prof $b in /" /tmp/prof-in
		tap_status $rc "profiled e2e $b"
	done
	rmmod zsmod_prof
fi
[ -z "$tail_backend" ] && zswap_write zpool zsmalloc

# --- micro-benchmark module, fed with the same content stream
if [ "$micro" = 1 ]; then
	$bin --dump /tmp/corpus.bin --mib "${zsb_micro_mib:-16}" --corpus $corpus
	args=$(echo "${zsb_micro_args:-}" | tr '+' ' ')
	run_micro micro "micro zsmod_bench"

	# again on fragmented free memory, with zsb_frag=1 (run.sh --frag)
	if [ "${zsb_frag:-0}" = 1 ]; then
		# no proactive compaction refilling the high orders meanwhile
		echo 0 >/proc/sys/vm/compaction_proactiveness
		echo 1 >/proc/sys/vm/drop_caches
		run_micro micro-frag "micro zsmod_bench fragment=1" fragment=1
	fi
fi

# --- leftovers: every pool should be empty again
echo "# end stored_pages=$(cat $ZSWAP_DEBUG/stored_pages) pool_total_size=$(cat $ZSWAP_DEBUG/pool_total_size)"
for d in $ZSMOD_DEBUG/*/; do
	[ -d "$d" ] && sed "s|^|# end $(basename "$d") |" "$d/stats"
done
tap_status 0 "teardown"
