#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test suite, from a fresh machine.
#   1. packages (vm/deps.sh); vm/verdict-test.sh checks the run judge itself
#   2. modules against the stock Debian 6.12 headers with W=1: any warning
#      fails; against the -rt (PREEMPT_RT) headers too, and -cloud (no zpool)
#      must refuse clearly (scripts/flavours.sh)
#   3. selftests (static binaries)
#   4. memdesc mode (make ZSMOD_MEMDESC=1, zpdesc.h): the module built with
#      W=1 and sparse
#   5. the KUnit test kernel (KASAN, UBSAN, KFENCE, DEBUG_PAGEALLOC, lockdep,
#      PREEMPT) and the module against it; in the background, at low
#      priority, the kernel of ./kunit/kunitpy.sh (KCSAN, PREEMPT_RT)
#   6. every guest, two at a time, longest first: on the stock kernel all
#      selftests (vm/guest-check.sh), the swap selftests on -rt, on the test
#      kernel and in memdesc mode; ./kunit/run.sh, also in memdesc mode; the
#      short stress runs (stock, -rt, memdesc, the test kernel with fault
#      injection) and the memcg-pressure runs (stock, test kernel); the
#      Debian 12 system (vm/debian-check.sh)
#   7. the suites built in, under kunit.py run, on the KCSAN/RT kernel
#   8. dkms build, make lint, make docs
# then a summary. Logs: out/check/.
#
# usage: scripts/check.sh [--only test1,test2] [--no-kunit]
#
# No set -e: a failed stage is recorded and the run goes on to the summary.
# shellcheck disable=SC2317 # the stage functions are called through stage()
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/out/check
mkdir -p "$out"
# Two runs at once would overwrite each other's build copy and logs.
exec 9>"$out/.lock"
flock -n 9 || { echo "check: another make check is running; waiting for it"; flock 9; }

only='' kunit=1
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=$2; shift ;;
	--no-kunit) kunit= ;;
	*) echo "usage: $0 [--only test1,test2] [--no-kunit]" >&2; exit 2 ;;
	esac
	shift
done

summary=() failed=0
# A failed stage's first lines that say why go to $why, printed last: CI
# shows only the end of this run's output.
why=$out/why.txt
rm -f "$why"
why_lines='FAIL|ERROR|[Ee]rror:|not ok|BUG:|WARNING:|Oops|KCSAN|[Tt]imeout|timed out'
stage() {	# stage NAME COMMAND...: run, time, record
	local name=$1 t0=$SECONDS rc copy
	shift
	echo "=== $name"
	copy=$(mktemp "$out/stage.XXXXXX")
	# (not a pipe: a stage function may set this shell's variables; tee's
	# pid is taken before the stage, which may start jobs of its own)
	local fd tee_pid
	exec {fd}> >(tee "$copy")
	tee_pid=$!
	"$@" >&"$fd" 2>&1
	rc=$?
	exec {fd}>&-
	wait "$tee_pid"
	summary+=("$(printf '%-30s %-5s %4ds' "$name" "$([ $rc = 0 ] && echo PASS || echo FAIL)" \
		$((SECONDS - t0)))")
	if [ $rc != 0 ]; then
		failed=1
		{ echo "$name:"; grep -E "$why_lines" "$copy" | grep -v '^=== ' | cut -c1-160 |
			head -6 | sed 's/^/    /'; } >>"$why"
	fi
	rm -f "$copy"
	return $rc
}
finish() {
	echo
	echo "=== summary (logs in $out)"
	printf '%s\n' "${summary[@]}"
	if [ -s "$why" ]; then
		echo "=== why the failed stages failed (first lines; logs in $out)"
		head -24 "$why"
	fi
	echo "total $((SECONDS / 60))m$((SECONDS % 60))s: $([ $failed = 0 ] && echo PASS || echo FAIL)"
	exit $failed
}

# stage_bg [--tap TAP] NAME COMMAND...: stage() in the background, its
# output kept for stage_wait, which prints it and records the result (and
# one line per test of TAP under it).
bgs=()
stage_bg() {
	local f=$out/stage-bg-${#bgs[@]}
	bgs+=("$f")
	rm -f "$f.tap"
	[ "$1" != --tap ] || { echo "$2" >"$f.tap"; shift 2; }
	(stage "$@" >"$f.log" 2>&1; printf '%s\n' "${summary[-1]}" >"$f.sum") &
}
# job [--tap TAP] NAME COMMAND...: stage_bg with at most two jobs running:
# a guest under single-threaded TCG uses one host core, and there are two.
jobs_running=()
job() {
	local p live
	while :; do
		live=()
		for p in "${jobs_running[@]}"; do
			kill -0 "$p" 2>/dev/null && live+=("$p")
		done
		jobs_running=("${live[@]}")
		[ ${#jobs_running[@]} -ge 2 ] || break
		wait -n "${jobs_running[@]}"
	done
	stage_bg "$@"
	jobs_running+=($!)
}
stage_wait() {
	local f line
	wait
	for f in "${bgs[@]}"; do
		cat "$f.log"
		line=$(cat "$f.sum" 2>/dev/null) || line="$(basename "$f") FAIL (no result)"
		summary+=("$line")
		case $line in *" FAIL "*|*"(no result)") failed=1 ;; esac
		[ ! -f "$f.tap" ] || results "$(cat "$f.tap")"
		rm -f "$f.log" "$f.sum" "$f.tap"
	done
	bgs=() jobs_running=()
}
# results TAP: one summary line per test of a guest's TAP stream
results() {
	local line
	while read -r line; do
		summary+=("    $line")
	done < <(tr -d '\r' <"$1" 2>/dev/null | grep -E '^(not )?ok ')
}

deps() { abi=$(./vm/deps.sh) && echo "kernel ABI $abi" && summary+=("kernel ABI $abi"); }
stage deps deps || finish

# The judge first: vm/verdict.sh must catch every failure on synthetic logs.
vtest() { ./vm/verdict-test.sh >"$out/verdict-test.log" 2>&1 || { cat "$out/verdict-test.log"; false; }; }
stage "harness self-test" vtest
kdir=/usr/src/linux-headers-$abi

# In a private copy of the tree (vm/build-modules.sh); W=1 makes the
# compiler strict, and any warning fails.
bdir=$out/build
build() {
	./vm/build-modules.sh "$bdir" "$kdir" "$out/build.log" ZSMOD_BENCH=1 W=1 || return 1
	(cd "$bdir" && ls -l ./*.ko bench/*.ko 2>/dev/null; true)
}
stage "modules build (W=1)" build || finish
# Debian's other flavours: -rt built with W=1 (out/check/build-rt, booted
# below), -cloud (no zpool, no zswap) refused with a clear message.
rm -rf "$out/build-rt" "$out/rt-guest.tap"
stage "flavours build (rt W=1, cloud)" ./scripts/flavours.sh "$out"

stage selftests-build make -s -C selftests || finish

# The stock kernel has no KASAN, but its boot-time debug options catch much
# of the same: slub_debug checks every slab object (ours included) for
# overflows and writes after free, page_poison every freed page (zspages).
debug_opts="slub_debug=FZPU page_poison=1"
# Every skipped result fails the verdict but these (NAME:REASON, NAME as
# vm/verdict.sh spells it): the control run of roundtrip on the in-kernel
# zsmalloc skips its checks of our own pool's counters.
allow_skip=(
	"roundtrip -b zsmalloc/our pool holds objects (backend zsmalloc):a check of our pool; the control run on the in-kernel zsmalloc has none"
	"roundtrip -b zsmalloc/one object per zswap entry (backend zsmalloc):a check of our pool; the control run on the in-kernel zsmalloc has none"
)
# selftest_guest KERNEL KO LOG TIMEOUT [run-guest.sh options]: the selftests
# in a guest of KERNEL with 1 GiB, 2 vCPUs and a fresh 1 GiB swap disk
selftest_guest() {
	local kernel=$1 ko=$2 log=$3 timeout=$4 args=() t
	shift 4
	for t in selftests/bin/* selftests/run_tests.sh; do
		args+=(--files "$t:/root/selftests/$(basename "$t")")
	done
	for t in "${allow_skip[@]}"; do
		args+=(--allow-skip "$t")
	done
	./vm/run-guest.sh --kernel "$kernel" --init-script vm/guest-check.sh \
		--disk 1G --mem 1G --smp 2 --timeout "$timeout" --ko "$ko" "${args[@]}" "$@" \
		--log "$log"
}
guest() {
	selftest_guest "/boot/vmlinuz-$abi" "$bdir/zsmalloc_mod.ko" "$out/stock-guest.log" 600 \
		--modprobe virtio_blk --append "$debug_opts" \
		${only:+--append "zsmod_tests=${only//,/+}"}
}
# The same swap selftests on Debian's PREEMPT_RT kernel.
rt_guest() {
	local rt tests=roundtrip+writeback+migrate+tracepoints
	tests+=+kernel_test_zswap.sh:zsmalloc+kernel_test_zswap.sh:zsmalloc_mod
	[ -z "$only" ] || tests=${only//,/+}
	rt=$(./vm/abi.sh rt-amd64) || return 1
	selftest_guest "/boot/vmlinuz-$rt" "$out/build-rt/zsmalloc_mod.ko" \
		"$out/rt-guest.log" 900 --modprobe virtio_blk \
		--append "$debug_opts zsmod_tests=$tests"
}
# The same selftests, but the one whose checks do not apply (lifecycle,
# badinput: knobs and module life, the same on every kernel), on the KUnit
# test kernel: KASAN, UBSAN, KFENCE, DEBUG_PAGEALLOC, slab debugging,
# lockdep and full preemption watch real swap traffic through the module.
# The kernel's test_zswap runs on the stock and -rt guests only: here it
# took 200 of the guest's 630 s and reaches no path of the module that the
# storm and the pressure run below do not. dropbehind_user: the test
# kernel's PG_dropbehind path with a real process's memory.
ddir=$out/build-debug
debug_guest() {
	local tests=roundtrip+writeback+migrate+tracepoints+dropbehind_user:-s,10
	[ -z "$only" ] || tests=${only//,/+}
	selftest_guest "$tkdir/build/arch/x86/boot/bzImage" "$ddir/zsmalloc_mod.ko" \
		"$out/debug-guest.log" 1200 --append "page_poison=1 zsmod_tests=$tests"
}

# memdesc mode: the same module with a separately allocated zpdesc. The
# selftests that move data (lifecycle and badinput test knobs, the same in
# both modes), KUnit on the sanitizer kernel, the short storm with its
# migration and compaction agitators.
mdir=$out/build-memdesc
md_build() {
	./vm/build-modules.sh "$mdir" "$kdir" "$out/build-memdesc.log" \
		ZSMOD_MEMDESC=1 W=1 C=2 || return 1
	[ "$(modinfo -F zpdesc "$mdir/zsmalloc_mod.ko")" = memdesc ]
}
md_guest() {
	local tests=roundtrip+writeback+migrate+tracepoints+kernel_test_zswap.sh:zsmalloc_mod
	[ -z "$only" ] || tests=${only//,/+}
	selftest_guest "/boot/vmlinuz-$abi" "$mdir/zsmalloc_mod.ko" \
		"$out/stock-guest-memdesc.log" 600 --modprobe virtio_blk \
		--append "$debug_opts zsmod_tests=$tests"
}
md=''
stage "memdesc: modules build (W=1, sparse)" md_build && md=1

# The test kernel, the module built against it, and kunit.py's kernel
# (KCSAN, PREEMPT_RT), which builds at low priority beside the guests below.
tkdir=''
if [ -z "$kunit" ]; then
	summary+=("kunit                          skipped (--no-kunit)")
elif [ -x kunit/run.sh ]; then
	stage "test kernel build" ./kunit/build-kernel.sh -q && tkdir=$(./kunit/build-kernel.sh -q)
	if [ -n "$tkdir" ]; then
		stage "modules build (test kernel, W=1)" ./vm/build-modules.sh "$ddir" \
			"$tkdir/build" "$out/build-debug.log" W=1 || tkdir=''
	fi
	kpybuild() { nice ./kunit/kunitpy.sh --build-only >"$out/kunitpy-build.log" 2>&1 ||
		{ tail -40 "$out/kunitpy-build.log"; false; }; }
	[ -z "$tkdir" ] || stage_bg "kunit.py kernel build (KCSAN, RT)" kpybuild
else
	summary+=("kunit                          skipped (no kunit/run.sh)")
fi
[ -n "$only" ] || stage "stress programs build" make -s -C stress

# Every guest, two at a time (a guest uses one host core under TCG), the
# longest first so that the two lanes end together. The short storm and
# races (stress/) on every kernel, the sanitizer kernel adding the
# fault-injection phase; beside them a memcg held at its limit
# (stress/pressure.c): threads fault pages back in from zswap while the
# charge for them reclaims, so the module allocates in direct reclaim
# inside swap-in faults, in many tasks at once; every page is checked byte
# for byte. The Debian 12 system (vm/debian-check.sh) is the
# administrator's path: the package from apt, DKMS, the initramfs,
# zswap.zpool=zsmalloc_mod at boot, upgrade, purge.
debian() { ./vm/debian-check.sh >"$out/debian-check.log" 2>&1 ||
	{ grep -E '^not ok|FAIL' "$out/debian-check.log" | head -40; tail -20 "$out/debian-check.log"; false; }; }
full=''
[ -n "$only" ] || full=1
dko=(--ko "$ddir/zsmalloc_mod.ko")
rko=$out/build-rt/zsmalloc_mod.ko
if [ -n "$tkdir" ] && [ -n "$full" ]; then
	job "stress (short, test kernel)" ./stress/run.sh --kernel debug --secs 20 \
		--no-control "${dko[@]}" --log "$top/out/stress/debug-short.log"
fi
[ -z "$full" ] || job "Debian 12 system: package, DKMS, boot (vm/debian-check.sh)" debian
[ -z "$tkdir" ] || job --tap "$out/debug-guest.tap" "test kernel selftests (sanitizers)" debug_guest
[ -z "$tkdir" ] || job "kunit (kunit/run.sh)" ./kunit/run.sh
if [ -n "$tkdir" ] && [ -n "$md" ]; then
	job "memdesc: kunit" env ZSMOD_MEMDESC=1 KUNIT_OUT="$top/out/kunit-memdesc" ./kunit/run.sh
fi
if [ -n "$tkdir" ] && [ -n "$full" ]; then
	job "memcg pressure (test kernel)" ./stress/run.sh --guest pressure \
		--kernel debug "${dko[@]}" --secs 60 --mem 1G
fi
if [ -n "$full" ] && [ -f "$rko" ]; then
	job "stress (short, rt 6.12)" ./stress/check-short.sh --kernel rt \
		--ko "$rko" --log "$top/out/stress/short-rt.log"
fi
if [ -n "$full" ] && [ -n "$md" ]; then
	job "memdesc: stress (short, stock)" ./stress/check-short.sh \
		--ko "$mdir/zsmalloc_mod.ko" --log "$top/out/stress/short-memdesc.log"
fi
[ -z "$full" ] || job "stress (short, stock 6.12)" ./stress/check-short.sh --ko "$bdir/zsmalloc_mod.ko"
job --tap "$out/stock-guest.tap" "stock 6.12 guest selftests" guest
[ ! -f "$rko" ] || job --tap "$out/rt-guest.tap" "rt 6.12 guest selftests" rt_guest
if [ -n "$full" ]; then
	job "memcg pressure (stock 6.12)" ./stress/run.sh --guest pressure \
		--ko "$bdir/zsmalloc_mod.ko" --secs 90 --mem 512M
fi
[ -z "$md" ] || job --tap "$out/stock-guest-memdesc.tap" "memdesc: stock 6.12 guest selftests" md_guest
stage_wait

# The suites built in, under kunit.py run, on the second sanitizer kernel:
# KCSAN and PREEMPT_RT, two vCPUs on two host threads (both host cores)
if [ -n "$tkdir" ] && [ -x kunit/kunitpy.sh ]; then
	kunitpy() { ./kunit/kunitpy.sh >"$out/kunitpy.log" 2>&1 || { tail -60 "$out/kunitpy.log"; false; }; }
	stage "kunit.py run (KCSAN, PREEMPT_RT)" kunitpy
fi

# Packaging and style: dkms.conf builds against the stock headers, and
# checkpatch --strict plus sparse find nothing.
if [ -z "$only" ]; then
	stage "dkms build ($abi)" ./scripts/dkms-check.sh "$abi"
	stage "lint (checkpatch, sparse)" ./scripts/lint.sh
	stage "docs (kernel-doc, Sphinx)" ./scripts/docs.sh
fi
finish
