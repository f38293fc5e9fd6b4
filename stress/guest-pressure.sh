#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the memcg-pressure run (stress/run.sh --guest pressure boots
# it with vm/run-guest.sh). stdout is the TAP stream; "# " lines carry the counts.
#
# Kernel command line (unknown parameters reach init as variables):
#   zspress_secs=S     how long the pressure programs run (default 60)
#   zspress_procs=P    pressure processes (default 2), each -t threads
#   zspress_threads=T  threads per process (default 8)
#   zspress_mib=M      working set of each process (default 40)
#   zspress_max=M      the memcg's memory.max in MiB (default 64)
#   zspress_zswap_max=M  its memory.zswap.max in MiB (default half of it)
#
# Results:
#   1 setup     swap on /dev/vda, zswap on, zpool=zsmalloc_mod, the checker
#               reports a corrupted byte
#   2 pressure  P processes of T threads in one memcg whose working set is
#               larger than its memory.max: every page read back byte for
#               byte; the memcg hit its limit (memory.events max), pages
#               came back from zswap (zswpin), and zswap stored into our pool.
#               On a kernel with fault injection (the sanitizer kernel),
#               fail_page_alloc and failslab fail 1 in 10 of the allocations
#               that cannot reclaim made by these threads (task-filter,
#               ignore-gfp-wait): zswap's and ours in direct reclaim; then
#               zswap must have seen our allocations fail (reject_alloc_fail)
#   3 dmesg     no splat in the kernel log (vm/splat-patterns)
# No set -euo pipefail: a step that fails is a "not ok" result and the run
# goes on to the splat check.
. /etc/guest-lib.sh
secs=${zspress_secs:-60}
procs=${zspress_procs:-2}
threads=${zspress_threads:-8}
mib=${zspress_mib:-40}
max=${zspress_max:-64}
zmax=${zspress_zswap_max:-$((max / 2))}
ST=/root/stress
T=/tmp/zspress
mkdir -p $T
CG=$CGROUP_ROOT/zspress

memstat() { awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.stat"; }
memevent() { awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.events"; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

tap_plan 3
tap_note "zspress: secs=$secs procs=$procs threads=$threads mib=$mib memory.max=${max}M memory.zswap.max=${zmax}M kernel $(uname -r) cpus $(nproc)"

# ---- 1 setup --------------------------------------------------------------
err=
[ -b /dev/vda ] && swap_on /dev/vda || tap_bail "no swap on /dev/vda"
zswap_set compressor lzo || err="$err cannot select lzo"
zswap_set zpool zsmalloc_mod || err="$err cannot select zsmalloc_mod"
zswap_enable || err="$err cannot enable zswap"
memcg_enable && memcg_make zspress "${max}M" || err="$err cannot make the memcg"
# zswap charges the compressed bytes to the memcg, and only its writeback
# can reclaim them: bounded here, so that they never crowd out the pages
# reclaim can free (the working set is sized so that the bound is not
# reached: stress/README.md). Past it pages go to the swap disk.
echo "${zmax}M" >"$CG/memory.zswap.max" || err="$err cannot set memory.zswap.max"
$ST/pressure -m 1 -t 2 -s 1 -X 2>/dev/null | grep -q 'mismatches=1$' ||
	err="$err pressure -X did not report its corrupted byte"
dmesg -c >$T/kmsg.all
tap_note "zpool=$(zswap_get zpool) compressor=$(zswap_get compressor)"
tap_result "setup: swap, zswap, zpool=zsmalloc_mod, memcg of ${max}M" "$err"
[ -z "$err" ] || tap_bail "setup failed"

# ---- 2 pressure -----------------------------------------------------------
err= fflag=
if fault_available; then
	fault_setup 10 -1 0
	fflag=-F
	tap_note "fault injection: 1 in 10 allocations without reclaim of the pressure threads fail"
fi
stored0=$(zswap_stat stored_pages)
fail0=$(zswap_stat reject_alloc_fail)
stall0=$(vmstat allocstall_movable)
i=0 pids=
while [ $i -lt "$procs" ]; do
	$ST/pressure -c "$CG" -m "$mib" -t "$threads" -s "$secs" -S $((i + 1)) $fflag \
		>$T/p$i.out 2>$T/p$i.err &
	pids="$pids $!"
	i=$((i + 1))
done
peak=0 zpeak=0
while kill -0 $pids 2>/dev/null; do
	s=$(zswap_stat stored_pages)
	[ "$s" -gt "$peak" ] && peak=$s
	s=$(memstat zswap)
	[ "${s:-0}" -gt "$zpeak" ] && zpeak=$s
	sleep 2
done
i=0
for p in $pids; do
	wait "$p"
	rc=$?
	tap_note "$(cat $T/p$i.out) rc=$rc"
	sed 's/^/# /' $T/p$i.err | head -12
	[ $rc = 0 ] || err="$err process $i rc=$rc"
	i=$((i + 1))
done
hit=$(memevent max) oom=$(memevent oom_kill)
zin=$(memstat zswpin) zout=$(memstat zswpout)
tap_note "memcg: memory.events max=$hit oom_kill=$oom; memory.stat zswpout=$zout zswpin=$zin pswpin=$(vmstat pswpin) pswpout=$(vmstat pswpout), peak zswap charge $((zpeak >> 10))kB"
tap_note "zswap: peak stored_pages=$peak (was $stored0) reject_alloc_fail +$(($(zswap_stat reject_alloc_fail) - fail0)) written_back_pages=$(zswap_stat written_back_pages) reject_reclaim_fail=$(zswap_stat reject_reclaim_fail) pool_limit_hit=$(zswap_stat pool_limit_hit); allocstall_movable +$(($(vmstat allocstall_movable) - stall0))"
[ "${hit:-0}" -gt 0 ] || err="$err the memcg never hit memory.max"
[ "${oom:-0}" = 0 ] || err="$err $oom OOM kills"
[ "${zin:-0}" -gt 0 ] || err="$err no page came back from zswap"
[ "$peak" -gt "$stored0" ] || err="$err zswap stored nothing"
if [ -n "$fflag" ]; then
	for d in $FAULT_PAGE $FAULT_SLAB; do echo 0 >$d/probability; done
	[ "$(zswap_stat reject_alloc_fail)" -gt "$fail0" ] ||
		err="$err fault injection made no allocation of ours fail"
fi
tap_result "pressure: $procs x $threads threads, ${mib}M each in ${max}M, every page verified" "$err"

# ---- 3 dmesg --------------------------------------------------------------
dmesg -c >>$T/kmsg.all
pat=/root/stress/splat-patterns
if sed -e '/^#/d' -e '/^[[:space:]]*$/d' $pat >$T/splat.re 2>/dev/null && [ -s $T/splat.re ]; then
	if grep -E -f $T/splat.re $T/kmsg.all >$T/splats; then
		head -5 $T/splats | sed 's/^/# dmesg: /'
		tap_nok "no kernel splat during the run"
	else
		tap_ok "no kernel splat during the run"
	fi
else
	tap_nok "no kernel splat during the run # no patterns in $pat"
fi
