#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the stress runs (stress/run.sh boots it with vm/run-guest.sh).
# stdout is the TAP stream; "# " lines carry the counts.
#
# Kernel command line (the kernel hands unknown parameters to init as
# environment variables):
#   zsstress_secs=S     time budget of the timed phases (default 120)
#   zsstress_writers=N  storm writer processes (default 4), in 2 memcgs
#   zsstress_mib=M      working set of each writer (default 40)
#   zsstress_control=0  no control runs on the built-in zsmalloc in the fault
#                       injection phase (default 1: each injector there too)
#
# Phases, one TAP result each:
#   1 setup      swap on /dev/vda, zswap on the built-in zsmalloc, baselines,
#                then zpool=zsmalloc_mod (auto-loads us through the alias)
#   2 storm      writers (checksummed zero/random/pattern/file/mixed pages,
#                re-read, rewritten, MADV_PAGEOUT) in memcgs, while other
#                tasks loop on compact_memory, memory.reclaim, memory.zswap.max
#                (writeback), zswap's shrinker, our debugfs compact/stats,
#                our shrinker_enabled, and cpu1 offline/online
#   3 rmmod      rmmod while our pool holds objects: refused every time
#   4 races      writers + zpool zsmalloc_mod <-> zsmalloc switching + rmmod
#                attempts + cpu1 hotplug, all at once
#   5 loadunload zswap enabled, writers running: zpool=zsmalloc_mod
#                (request_module loads us), traffic, zpool=zsmalloc, drain,
#                rmmod; repeated
#   6 faults     fail_page_alloc + failslab, task-filter, on writers only
#                (SKIP when the kernel has no fault injection: the host's
#                verdict fails it unless the caller allows it)
#   7 teardown   writers gone, swapoff; our pools empty then gone, rmmod
#                works, nr_zspages == baseline, MemFree within tolerance
#   8 dmesg      no splat in the kernel log, by the patterns of
#                vm/splat-patterns (the host's verdict checks the console too)
#
# No set -euo pipefail: a phase that fails is a "not ok" result, and the
# phases after it still run.
. /etc/guest-lib.sh
secs=${zsstress_secs:-120}
nwriters=${zsstress_writers:-4}
mib=${zsstress_mib:-40}
control=${zsstress_control:-1}
# MemFree may end lower than at the start by this much (KiB) without
# counting as a leak. Measured at both ends after sync, drop_caches=3 and
# compact_memory, best of three samples. What legitimately differs: per-cpu
# free page lists (pcp->high, a few hundred pages per CPU at most here),
# slabs kept partially used by freed objects (zswap entries, xarray nodes,
# our handles until kmem_cache_destroy), memcgs that are still dying, page
# tables: a few MiB. 8 MiB is 2% of what the run pushes through the pools;
# the exact detectors of lost zspages are nr_zspages (every page of ours is
# counted there) and rmmod's kmem_cache_destroy (which warns, a splat, on
# a leaked handle or zspage descriptor). With KASAN the quarantine holds up
# to 1/32 of RAM of freed slab objects: that much more.
memfree_tol_kb=${zsstress_memfree_tol_kb:-8192}
if dmesg | grep -q 'KernelAddressSanitizer initialized'; then
	memfree_tol_kb=$((memfree_tol_kb + $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / 32))
fi

ST=/root/stress
T=/tmp/zsstress
mkdir -p $T

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# Sum of a stats counter over every pool of ours.
ostat() {
	local s=0 f v
	for f in "$ZSMOD_DEBUG"/*/stats; do
		[ -f "$f" ] || continue
		v=$(awk -v k="$1" '$1 == k { print $2 }' "$f" 2>/dev/null)
		s=$((s + ${v:-0}))
	done
	echo $s
}
npools() { ls "$ZSMOD_DEBUG" 2>/dev/null | wc -l; }
settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	echo 1 >/proc/sys/vm/compact_memory
	sleep 2
}
# Pages on the per-cpu free lists (kB): free, but not in MemFree. Since 6.7
# pcp->high tunes itself up when a CPU frees a lot (a process exiting), so
# tens of MiB can sit there after a writer exits.
pcpfree() { awk '$1 == "count:" { s += $2 } END { print s * 4 }' /proc/zoneinfo; }
memfree() {	# best of three settled samples of MemFree + per-cpu free pages
	local best=0 i v
	for i in 1 2 3; do
		settle
		v=$(($(meminfo MemFree) + $(pcpfree)))
		[ "$v" -gt "$best" ] && best=$v
	done
	echo $best
}
phase_mem() {	# one settled sample after a phase: where memory goes
	settle
	tap_note "memory after $1 (uptime $(cut -d. -f1 /proc/uptime)s): MemFree+pcp $(($(meminfo MemFree) + $(pcpfree) - base_free))kB vs baseline (pcp $(pcpfree)kB), nr_zspages=$(vmstat nr_zspages), Slab=$(meminfo Slab)kB, PageTables=$(meminfo PageTables)kB, Shmem=$(meminfo Shmem)kB, AnonPages=$(meminfo AnonPages)kB, Percpu=$(meminfo Percpu)kB, our pools=$(npools) objs_used=$(ostat objs_used) pages_used=$(ostat pages_used)"
}
kmsg_pull() { dmesg -c >>$T/kmsg.all; }
# Call sites of the injected failures the kernel reported (verbose=2: a
# stack per report, rate-limited; allocations with __GFP_NOWARN, such as
# zswap's zpool_malloc(), are never reported): "count function" lines for
# the first caller above the allocator.
fault_sites() {	# fault_sites FROM-LINE
	tail -n +"$1" $T/kmsg.all | awk '
	{ sub(/^\[[^]]*\] */, "") }
	/FAULT_INJECTION: forcing a failure/ { inb = 1; found = 0; next }
	inb && /^ *[A-Za-z0-9_.]+\+0x[0-9a-f]+\/0x[0-9a-f]+/ && !found {
		f = $1; sub(/\+.*/, "", f)
		if (f ~ /^(dump_stack|should_fail|__should_fail|fail_dump|prepare_alloc_pages|__alloc_pages|alloc_pages|__alloc_frozen|alloc_frozen|__folio_alloc|folio_alloc|kmem_cache_alloc|__kmem_cache_alloc|__kmalloc|kmalloc|slab_pre_alloc_hook|allocate_slab|new_slab|___slab_alloc|__slab_alloc|kasan|kvmalloc|__kvmalloc|__get_free_pages|get_zeroed_page|alloc_slab_page|xas_alloc|xas_nomem|xas_create|xas_expand|radix_tree_node_alloc|mempool_alloc|alloc_pages_mpol|__alloc_pages_slowpath|should_failslab|should_fail_alloc_page)/) next
		n[f]++; found = 1; inb = 0
	}
	END { for (f in n) print n[f], f }' | sort -rn | head -8 | tr '\n' ',' | sed 's/,$//'
}
set_zpool() { zswap_write zpool "$1" 2>/dev/null; }
backend() { zswap_get zpool; }
loaded() { grep -q '^zsmalloc_mod ' /proc/modules; }

# ---- background tasks ---------------------------------------------------
# Each loop runs until $T/stop.<name> exists and leaves its counts in
# $T/cnt.<name> ("key=value ...").
bg_pids=
loop_start() {	# loop_start NAME FUNCTION
	rm -f "$T/stop.$1" "$T/cnt.$1"
	"$2" "$1" &
	bg_pids="$bg_pids $!"
}
loops_stop() {
	local name
	for name in "$@"; do touch "$T/stop.$name"; done
	for p in $bg_pids; do wait "$p"; done
	bg_pids=
}
running() { [ ! -e "$T/stop.$1" ]; }

l_compact() {
	local c=0
	while running "$1"; do
		echo 1 >/proc/sys/vm/compact_memory && c=$((c + 1))
		sleep 0.3
	done
	echo "compact_memory=$c" >"$T/cnt.$1"
}
l_reclaim() {
	local c=0 e=0 g
	while running "$1"; do
		for g in $CGROUP_ROOT/zsst-*; do
			[ -d "$g" ] || continue
			if echo 4M >"$g/memory.reclaim" 2>/dev/null; then c=$((c + 1)); else e=$((e + 1)); fi
		done
		sleep 0.2
	done
	echo "memory.reclaim=$c reclaim_eagain=$e" >"$T/cnt.$1"
}
l_zswapmax() {	# a low memory.zswap.max makes zswap write entries back
	local c=0 v g
	while running "$1"; do
		for v in 0 1M 4M max 2M max; do
			for g in $CGROUP_ROOT/zsst-*; do
				[ -d "$g" ] && echo $v >"$g/memory.zswap.max" 2>/dev/null && c=$((c + 1))
			done
			sleep 0.5
			running "$1" || break
		done
	done
	for g in $CGROUP_ROOT/zsst-*; do [ -d "$g" ] && echo max >"$g/memory.zswap.max"; done
	echo "zswap.max_changes=$c" >"$T/cnt.$1"
}
l_ours() {	# our debugfs compact and readers, our shrinker switch
	local c=0 r=0 s=0 d
	while running "$1"; do
		for d in "$ZSMOD_DEBUG"/*; do
			[ -d "$d" ] || continue
			echo 1 >"$d/compact" 2>/dev/null && c=$((c + 1))
			cat "$d/classes" "$d/stats" >/dev/null 2>&1 && r=$((r + 1))
		done
		if [ -w /sys/module/zsmalloc_mod/parameters/shrinker_enabled ]; then
			echo $((s % 2)) >/sys/module/zsmalloc_mod/parameters/shrinker_enabled 2>/dev/null
			s=$((s + 1))
		fi
		sleep 0.4
	done
	[ -w /sys/module/zsmalloc_mod/parameters/shrinker_enabled ] &&
		echo 1 >/sys/module/zsmalloc_mod/parameters/shrinker_enabled
	echo "debugfs_compact=$c debugfs_reads=$r shrinker_toggles=$s" >"$T/cnt.$1"
}
l_hotplug() {
	local off=0 on=0 e=0 cpu=/sys/devices/system/cpu/cpu1/online
	if [ ! -w $cpu ]; then
		echo "cpu_hotplug=unavailable(no cpu1, $(nproc) cpu)" >"$T/cnt.$1"
		return
	fi
	while running "$1"; do
		if echo 0 >$cpu 2>/dev/null; then off=$((off + 1)); else e=$((e + 1)); fi
		sleep 0.7
		if echo 1 >$cpu 2>/dev/null; then on=$((on + 1)); else e=$((e + 1)); fi
		sleep 0.7
	done
	echo 1 >$cpu 2>/dev/null
	echo "cpu1_offline=$off cpu1_online=$on hotplug_errors=$e" >"$T/cnt.$1"
}
l_switch() {	# zswap zpool zsmalloc_mod <-> zsmalloc
	local c=0 e=0 l=0 r=0 b i=0
	while running "$1"; do
		i=$((i + 1))
		for b in zsmalloc zsmalloc_mod; do
			loaded || [ $b = zsmalloc ] || l=$((l + 1))
			# a switch to us that meets the module on its way out (the
			# rmmod agitator won) is refused by zswap: once more, after it
			if set_zpool $b; then
				c=$((c + 1))
			elif [ $b = zsmalloc_mod ] && sleep 1 && set_zpool $b; then
				c=$((c + 1)) r=$((r + 1))
			else
				e=$((e + 1))
			fi
			# Longer on zsmalloc, much longer every third time: our old
			# pools drain (the writers read their pages back) and rmmod
			# can win, so the switch back races with or follows an unload.
			if [ $b = zsmalloc_mod ]; then
				sleep 1.5
			elif [ $((i % 3)) = 0 ]; then
				sleep 12
			else
				sleep 3
			fi
		done
	done
	echo "zpool_switches=$c switch_errors=$e switch_retries=$r switches_that_loaded_us=$l" >"$T/cnt.$1"
	set_zpool zsmalloc_mod || echo "final switch to zsmalloc_mod failed" >>"$T/cnt.$1"
	return
}
l_rmmod() {	# rmmod attempts; success only possible with no pool of ours
	local refused=0 done=0 bad=0 pools
	while running "$1"; do
		cat "$T"/* >/dev/null 2>&1	# swap in tmpfs pages in old pools
		pools=$(npools)
		if rmmod zsmalloc_mod 2>/dev/null; then
			done=$((done + 1))
			# refused-while-in-use is the rule: a success right after we
			# saw a pool with objects would be a refcount bug
			[ "$pools" -gt 0 ] && tap_note "rmmod succeeded while $pools pool dir(s) existed a moment before"
		else
			refused=$((refused + 1))
		fi
		sleep 0.5
	done
	echo "rmmod_refused=$refused rmmod_succeeded=$done" >"$T/cnt.$1"
}
counts() {	# counts NAME...: the loops' counts as one line
	local s= name
	for name in "$@"; do s="$s $(cat "$T/cnt.$name" 2>/dev/null)"; done
	echo "$s"
}

# ---- writers --------------------------------------------------------------
files="-f /bin/busybox"
for f in /lib/modules/*/extra/*.ko /root/stress/storm; do
	[ -f "$f" ] && files="$files -f $f"
done
w_pids= wseq=0
# Two memcgs: memory.high at 3/4 of their writers' working sets keeps them
# reclaiming (to zswap) all the time; memory.max well above the set plus its
# compressed copy (zswap charges that to the memcg too) is a safety net only:
# with memory.max below the set the memcg OOM-killed writers during the fill.
memcgs_make() {	# memcgs_make NWRITERS MIB
	local set=$((($1 + 1) / 2 * $2))
	memcg_enable
	for g in a b; do
		memcg_make zsst-$g
		echo $((set * 3 / 4))M >$CGROUP_ROOT/zsst-$g/memory.high
		echo $((set * 2))M >$CGROUP_ROOT/zsst-$g/memory.max
	done
}
memcgs_remove() { for g in $CGROUP_ROOT/zsst-*; do [ -d "$g" ] && rmdir "$g"; done; }
writers_start() {	# writers_start TAG N MIB SECONDS [storm options]
	local tag=$1 nw=$2 m=$3 s=$4 i g
	shift 4
	rm -f "$T"/res."$tag".*
	wseq=$((wseq + 1))	# every writer gets its own seed
	for i in $(seq "$nw"); do
		g=a
		[ $((i % 2)) = 0 ] && g=b
		$ST/storm -n "$tag$i" -c $CGROUP_ROOT/zsst-$g -m "$m" -t "$s" -s $((wseq * 1000 + i)) \
			$files -r "$T/res.$tag.$i" "$@" >"$T/out.$tag.$i" 2>&1 &
		w_pids="$w_pids $!"
	done
}
writers_wait() {	# -> $wr_err (text), $wr_sum (counts)
	local p f k v verified=0 written=0 pageout=0 mism=0 nres=0
	wr_err=
	for p in $w_pids; do
		wait "$p" || wr_err="$wr_err writer pid $p exit $?"
	done
	w_pids=
	for f in "$T"/out.$1.*; do sed 's/^/# /' "$f"; done
	for f in "$T"/res.$1.*; do
		[ -f "$f" ] || continue
		nres=$((nres + 1))
		while read -r k v; do
			case $k in
			verified) verified=$((verified + v)) ;;
			written) written=$((written + v)) ;;
			pageout) pageout=$((pageout + v)) ;;
			mismatches) mism=$((mism + v)) ;;
			esac
		done <"$f"
	done
	wr_sum="writers=$nres verified=$verified written=$written pageout=$pageout mismatches=$mism"
	[ "$mism" = 0 ] || wr_err="$wr_err $mism checksum mismatches"
}

phases=8
tap_plan $phases
tap_note "zsstress: secs=$secs writers=$nwriters mib=$mib kernel $(uname -r) cpus $(nproc)"

# ---- 1 setup --------------------------------------------------------------
err=
[ -b /dev/vda ] && swap_on /dev/vda || tap_bail "no swap on /dev/vda"
set_zpool zsmalloc || err="$err cannot select zsmalloc"
zswap_enable || err="$err cannot enable zswap"
zswap_write shrinker_enabled Y || err="$err cannot enable zswap's shrinker"
# The kernel log is moved into $T/kmsg.all as we go (dmesg -c): the fault
# injection phase's stack dumps would overflow the 128 KiB ring buffer.
dmesg -c >$T/kmsg.all
kmsg_start=$(wc -l <$T/kmsg.all)
base_zspages=$(vmstat nr_zspages)
base_free=$(memfree)
cat /proc/meminfo >$T/meminfo.base
cat /proc/vmstat >$T/vmstat.base
tap_note "baseline: nr_zspages=$base_zspages MemFree+pcp=${base_free}kB (pcp $(pcpfree)kB) MemTotal=$(meminfo MemTotal)kB"
# The checker checks: one flipped bit must be reported as one mismatch.
if $ST/storm -n selftest -m 1 -t 1 -X 2>/dev/null | grep -q 'mismatches 1$'; then
	tap_note "storm self-test: a flipped bit is reported as 1 mismatch"
else
	err="$err storm -X did not report its flipped bit"
fi
loaded && err="$err zsmalloc_mod loaded before we asked for it"
set_zpool zsmalloc_mod || err="$err cannot select zsmalloc_mod"
loaded || err="$err zpool=zsmalloc_mod did not load the module"
[ "$(backend)" = zsmalloc_mod ] || err="$err zpool is $(backend)"
tap_note "zpool=$(backend) compressor=$(zswap_get compressor) pools=$(npools)"
tap_result "setup: swap, zswap, zpool=zsmalloc_mod auto-loaded" "$err"
[ -z "$err" ] || tap_bail "setup failed"

t_storm=$((secs * 35 / 100))
t_races=$((secs * 30 / 100))
t_lu=$((secs * 20 / 100))
t_fault=$((secs * 15 / 100))
[ $t_storm -lt 20 ] && t_storm=20
[ $t_races -lt 20 ] && t_races=20
[ $t_lu -lt 15 ] && t_lu=15
[ $t_fault -lt 15 ] && t_fault=15

# ---- 2 storm --------------------------------------------------------------
t0=$(date +%s)
memcgs_make "$nwriters" "$mib"
r0=$(zswap_stat reject_alloc_fail) wb0=$(zswap_stat written_back_pages)
writers_start storm "$nwriters" "$mib" "$t_storm"
sleep 3
for l in compact reclaim zswapmax ours hotplug; do loop_start $l l_$l; done
peak_objs=0 peak_pages=0 samples=0
while [ $(($(date +%s) - t0)) -lt $((t_storm + 120)) ]; do
	o=$(ostat objs_used) p=$(ostat pages_used)
	[ "$o" -gt "$peak_objs" ] && peak_objs=$o
	[ "$p" -gt "$peak_pages" ] && peak_pages=$p
	samples=$((samples + 1))
	# the writers end at their deadline; then stop the loops
	alive=0
	for p in $w_pids; do kill -0 "$p" 2>/dev/null && alive=1; done
	[ $alive = 0 ] && break
	sleep 2
done
pool_stats=$(cat "$ZSMOD_DEBUG"/*/stats 2>/dev/null | awk '{ s[$1] += $2 } END { for (k in s) printf "%s=%d ", k, s[k] }')
tap_note "during storm: peak objs_used=$peak_objs peak pages_used=$peak_pages (samples $samples), zswap stored_pages=$(zswap_stat stored_pages) pool_total_size=$(zswap_stat pool_total_size)"
writers_wait storm
loops_stop compact reclaim zswapmax ours hotplug
tap_note "storm ($(($(date +%s) - t0))s): $wr_sum"
tap_note "storm agitators:$(counts compact reclaim zswapmax ours hotplug)"
tap_note "storm zswap: written_back_pages +$(($(zswap_stat written_back_pages) - wb0)) reject_alloc_fail +$(($(zswap_stat reject_alloc_fail) - r0)) reject_compress_poor=$(zswap_stat reject_compress_poor) reject_compress_fail=$(zswap_stat reject_compress_fail) reject_reclaim_fail=$(zswap_stat reject_reclaim_fail)"
tap_note "storm pool stats: $pool_stats"
[ "$peak_objs" -gt 0 ] || wr_err="$wr_err our pool never held an object"
# the agitators must have done their job too
[ $(($(zswap_stat written_back_pages) - wb0)) -gt 0 ] || wr_err="$wr_err zswap wrote nothing back"
if [ -w /sys/devices/system/cpu/cpu1/online ] && ! grep -q 'cpu1_offline=[1-9]' $T/cnt.hotplug; then
	wr_err="$wr_err cpu1 never went offline"
fi
tap_result "storm: checksummed writers + compaction, reclaim, writeback, shrinkers, hotplug" "$wr_err"

phase_mem "storm"

# ---- 3 rmmod while in use ---------------------------------------------------
err=
writers_start rm 2 "$mib" 15
sleep 8
refused=0 tries=0
while [ $tries -lt 10 ]; do
	tries=$((tries + 1))
	o=$(ostat objs_used)
	if [ "$o" -gt 0 ] && [ "$(backend)" = zsmalloc_mod ]; then
		if rmmod zsmalloc_mod 2>/dev/null; then
			err="$err rmmod succeeded with $o objects in our pool"
			set_zpool zsmalloc_mod
		else
			refused=$((refused + 1))
		fi
	fi
	sleep 0.5
done
writers_wait rm
err="$err$wr_err"
[ $refused -gt 0 ] || err="$err no attempt found objects in the pool"
loaded || err="$err module gone"
tap_note "rmmod in use: $refused of $tries attempts made with objects in the pool, all refused; $wr_sum"
tap_result "rmmod while pools exist: refused" "$err"

phase_mem "rmmod"

# ---- 4 races ------------------------------------------------------------
t0=$(date +%s)
writers_start race "$nwriters" "$mib" "$t_races"
sleep 2
for l in switch rmmod hotplug compact; do loop_start $l l_$l; done
writers_wait race
loops_stop switch rmmod hotplug compact
set_zpool zsmalloc_mod
tap_note "races ($(($(date +%s) - t0))s): $wr_sum"
agitators=$(counts switch rmmod hotplug compact)
tap_note "races agitators:$agitators"
loaded || wr_err="$wr_err module not loaded after the last switch to zsmalloc_mod"
# the agitators must have done their job, or the phase proved nothing
for want in zpool_switches compact_memory; do
	echo "$agitators" | grep -q " $want=[1-9]" || wr_err="$wr_err no $want"
done
echo "$agitators" | grep -q ' switch_errors=0' || wr_err="$wr_err zpool switches failed"
if [ -w /sys/devices/system/cpu/cpu1/online ] && ! echo "$agitators" | grep -q ' cpu1_offline=[1-9]'; then
	wr_err="$wr_err cpu1 never went offline"
fi
tap_result "races: zpool switching, rmmod attempts, cpu hotplug under writes" "$wr_err"

phase_mem "races"

# ---- 5 load/unload while zswap is enabled ---------------------------------
t0=$(date +%s)
err= loads=0 unloads=0 cycles=0
writers_start lu 2 "$mib" "$t_lu"
while [ $(($(date +%s) - t0)) -lt "$t_lu" ]; do
	cycles=$((cycles + 1))
	loaded && was=1 || was=0
	set_zpool zsmalloc_mod || err="$err switch to zsmalloc_mod failed"
	[ $was = 0 ] && loaded && loads=$((loads + 1))
	sleep 3
	set_zpool zsmalloc
	# The old pool goes once its entries are gone: the writers read theirs
	# back; tmpfs pages charged to the memcgs (the writers' output files)
	# come back when read.
	i=0
	while [ $i -lt 40 ] && loaded; do
		cat "$T"/* >/dev/null 2>&1
		rmmod zsmalloc_mod 2>/dev/null && { unloads=$((unloads + 1)); break; }
		i=$((i + 1))
		sleep 0.5
	done
done
writers_wait lu
err="$err$wr_err"
tap_note "load/unload ($(($(date +%s) - t0))s): cycles=$cycles module_loads=$loads unloads=$unloads; $wr_sum"
set_zpool zsmalloc_mod
[ $unloads -gt 0 ] || err="$err the module never unloaded"
tap_result "module load/unload while zswap is enabled" "$err"

phase_mem "load/unload"

# ---- 6 fault injection ----------------------------------------------------
# One half with fail_page_alloc, one with failslab, each restricted to the
# writers (task-filter + make-it-fail, set by storm -F after its fill). Only
# allocations that cannot reclaim are failed (ignore-gfp-wait=Y): zswap's
# zpool_malloc() (our zspage pages, handles, zspage structs) and a few
# others (swap cache xarray nodes: the page then simply stays in memory).
# Page faults and zswap's own GFP_KERNEL allocations are left alone.
if fault_available; then
	err= fsum=
	budget=1000000
	half=$(((t_fault + 1) / 2))
	# every report, not 10 per 5 s: they are counted below
	fault_setup 0 0 2
	set_zpool zsmalloc_mod
	# The reports go to the log (read with dmesg -c as we go) but not to
	# the serial console, which would take minutes: console level 4. BUG
	# and KASAN reports (level 3) still reach the console; a WARNING
	# (level 4) during this phase is caught by the dmesg phase below.
	printk_was=$(cut -f1 /proc/sys/kernel/printk)
	dmesg -n 4
	# Each injector on us, then (zsstress_control=1) on the built-in
	# zsmalloc as a control: the injections that never become rejects on
	# zsmalloc too are the kernel's own (swap cache insertion...); ours
	# also include the contiguous zspage attempt that falls back to single
	# pages, silently by design.
	backends=zsmalloc_mod
	[ "$control" = 0 ] || backends="$backends zsmalloc"
	for d in $FAULT_PAGE $FAULT_SLAB; do
	for be in $backends; do
		fname=${d##*/}
		set_zpool $be
		echo 25 >$d/probability
		echo $budget >$d/times
		ra0=$(zswap_stat reject_alloc_fail) rk0=$(zswap_stat reject_kmemcache_fail)
		t0=$(date +%s)
		kmsg_pull
		k0=$(($(wc -l <$T/kmsg.all) + 1))
		writers_start "f$fname-$be" "$nwriters" "$mib" "$half" -F
		peak=0
		while :; do
			kmsg_pull
			alive=0
			for p in $w_pids; do kill -0 "$p" 2>/dev/null && alive=1; done
			o=$(ostat objs_used)
			[ "$o" -gt "$peak" ] && peak=$o
			[ $alive = 0 ] && break
			sleep 2
		done
		writers_wait "f$fname-$be"
		kmsg_pull
		inj=$((budget - $(cat $d/times)))
		echo 0 >$d/probability
		echo 0 >$d/times
		nrep=$(tail -n +$k0 $T/kmsg.all | grep -c 'FAULT_INJECTION: forcing')
		ra=$(($(zswap_stat reject_alloc_fail) - ra0)) rk=$(($(zswap_stat reject_kmemcache_fail) - rk0))
		tap_note "faults $fname on $be ($(($(date +%s) - t0))s): injected=$inj: $nrep reported (no __GFP_NOWARN; first callers: $(fault_sites $k0)), $((inj - nrep)) silent (__GFP_NOWARN: zpool_malloc(), swap cache insertion...); zswap reject_alloc_fail +$ra reject_kmemcache_fail +$rk; our pool peak objs_used=$peak; $wr_sum"
		err="$err$wr_err"
		[ $be = zsmalloc_mod ] || continue
		fsum="$fsum $fname:injected=$inj,reject_alloc_fail=+$ra"
		[ "$inj" -gt 0 ] || err="$err $fname: no fault injected"
		[ "$ra" -gt 0 ] || err="$err $fname: no failure surfaced as a zswap reject_alloc_fail"
		[ "$peak" -gt 0 ] || err="$err $fname: our pool stored nothing"
		[ "$ra" -le $((inj - nrep)) ] ||
			err="$err $fname: more zswap allocation rejects ($ra) than silent injected failures ($((inj - nrep)))"
	done
	done
	set_zpool zsmalloc_mod
	dmesg -n "$printk_was"
	tap_note "faults: pool stats now: $(cat "$ZSMOD_DEBUG"/*/stats 2>/dev/null | awk '{ s[$1] += $2 } END { for (k in s) printf "%s=%d ", k, s[k] }')"
	tap_result "fault injection on the writers:$fsum, data intact" "$err"
else
	# the host's verdict fails this unless its caller allows it (the stock
	# kernel has no fault injection: stress/run.sh --kernel stock does)
	tap_skip "fault injection" "no $FAULT_PAGE / $FAULT_SLAB in this kernel"
fi

phase_mem "faults"

# ---- 7 teardown and leak checks ---------------------------------------------
err=
memcgs_remove
swapoff /dev/vda || err="$err swapoff failed"
objs=$(ostat objs_used)
tap_note "after swapoff: our pools=$(npools) objs_used=$objs pages_used=$(ostat pages_used) zswap stored_pages=$(zswap_stat stored_pages)"
[ "$objs" = 0 ] || err="$err objs_used=$objs with no swap left"
set_zpool zsmalloc
i=0
while [ $i -lt 60 ] && [ "$(npools)" -gt 0 ]; do i=$((i + 1)); sleep 0.5; done
[ "$(npools)" = 0 ] || err="$err $(npools) pool(s) of ours still exist with zpool=zsmalloc: $(ls $ZSMOD_DEBUG)"
i=0
while [ $i -lt 30 ] && loaded; do rmmod zsmalloc_mod 2>/dev/null || sleep 1; i=$((i + 1)); done
loaded && err="$err rmmod still refused: $(grep '^zsmalloc_mod ' /proc/modules)"
end_free=$(memfree)
end_zspages=$(vmstat nr_zspages)
# Where the difference is: meminfo fields that moved by 1 MiB or more,
# vmstat nr_* counters that moved by 256 pages or more.
tap_note "meminfo end-start (kB, |d| >= 1024): $(awk 'NR == FNR { b[$1] = $2; next } { d = $2 - b[$1]; if (d >= 1024 || d <= -1024) printf "%s%+d ", $1, d }' $T/meminfo.base /proc/meminfo)"
tap_note "vmstat end-start (pages, |d| >= 256): $(awk 'NR == FNR { b[$1] = $2; next } $1 ~ /^nr_/ { d = $2 - b[$1]; if (d >= 256 || d <= -256) printf "%s=%+d ", $1, d }' $T/vmstat.base /proc/vmstat)"
[ "$end_zspages" = "$base_zspages" ] || err="$err nr_zspages $end_zspages, baseline $base_zspages"
lost=$((base_free - end_free))
[ $lost -le "$memfree_tol_kb" ] || err="$err MemFree+pcp ${lost}kB below baseline (tolerance ${memfree_tol_kb}kB)"
tap_note "teardown: nr_zspages $base_zspages -> $end_zspages; MemFree+pcp ${base_free}kB -> ${end_free}kB (lost ${lost}kB, tolerance ${memfree_tol_kb}kB)"
tap_note "zswap at the end: $(cd $ZSWAP_DEBUG && for f in *; do printf '%s=%s ' "$f" "$(cat "$f")"; done)"
tap_result "teardown: pools empty and gone, module unloads, nr_zspages and MemFree back" "$err"

# ---- 8 dmesg --------------------------------------------------------------
# The kernel log, not just the console: the fault injection phase lowers the
# console level. The patterns are vm/splat-patterns, the one list every
# checker reads (stress/run.sh copies it in).
pat=/root/stress/splat-patterns
kmsg_pull
if [ -r $pat ] && sed -e '/^#/d' -e '/^[[:space:]]*$/d' $pat >$T/splat.re && [ -s $T/splat.re ]; then
	tail -n +$((kmsg_start + 1)) $T/kmsg.all | grep -E -f $T/splat.re >$T/splats
	rc=$?	# grep's: 0 found, 1 none, 2 error
else
	rc=3
fi
case $rc in
0)
	head -5 $T/splats | sed 's/^/# dmesg: /'
	tap_nok "no kernel splat during the run" ;;
1) tap_ok "no kernel splat during the run ($(grep -c 'FAULT_INJECTION' $T/kmsg.all) fault injection reports)" ;;
3) tap_nok "no kernel splat during the run # no splat patterns in $pat" ;;
*) tap_nok "no kernel splat during the run # grep -E -f $pat failed ($rc)" ;;
esac
exit $tap_failed
