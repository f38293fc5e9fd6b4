#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test suite, from a fresh machine.
#   1. packages (vm/deps.sh); vm/verdict-test.sh checks the run judge itself
#   2. modules against the stock Debian 6.12 headers with W=1: any warning
#      fails; against the -rt (PREEMPT_RT) headers too, and -cloud (no zpool)
#      must refuse clearly (scripts/flavours.sh)
#   3. selftests (static binaries)
#   4. stock 6.12 guest: all selftests (vm/guest-check.sh) under
#      vm/run-guest.sh; beside it the swap selftests on the -rt kernel
#   5. ./kunit/run.sh (KUnit test kernel), then the selftests on that
#      kernel (KASAN, UBSAN, KFENCE, DEBUG_PAGEALLOC, lockdep, PREEMPT);
#      meanwhile the kernel of ./kunit/kunitpy.sh builds (KCSAN, PREEMPT_RT)
#   6. the short stress runs, on the stock kernel and on the test kernel
#      (with fault injection), each beside the memcg-pressure run; between
#      them the suites built in, under kunit.py run, on the KCSAN/RT kernel
#   7. memdesc mode (make ZSMOD_MEMDESC=1, zpdesc.h): the module built with
#      W=1 and sparse, the swap selftests on the stock kernel, KUnit, the
#      short stress on the stock kernel, beside the short stress on -rt
#   8. the Debian 12 system (vm/debian-check.sh), beside step 7
#   9. dkms build, make lint, make docs
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
stage() {	# stage NAME COMMAND...: run, time, record
	local name=$1 t0=$SECONDS rc
	shift
	echo "=== $name"
	"$@"
	rc=$?
	summary+=("$(printf '%-30s %-5s %4ds' "$name" "$([ $rc = 0 ] && echo PASS || echo FAIL)" \
		$((SECONDS - t0)))")
	[ $rc = 0 ] || failed=1
	return $rc
}
finish() {
	echo
	echo "=== summary (logs in $out)"
	printf '%s\n' "${summary[@]}"
	echo "total $((SECONDS / 60))m$((SECONDS % 60))s: $([ $failed = 0 ] && echo PASS || echo FAIL)"
	exit $failed
}

# stage_bg NAME COMMAND...: stage() in the background, its output kept for
# stage_wait, which prints it and records the result. A guest under
# single-threaded TCG uses one host core: two side by side take the time of
# the longer one.
bgs=()
stage_bg() {
	local f=$out/stage-bg-${#bgs[@]}
	bgs+=("$f")
	(stage "$@" >"$f.log" 2>&1; printf '%s\n' "${summary[-1]}" >"$f.sum") &
}
stage_wait() {
	local f line
	wait
	for f in "${bgs[@]}"; do
		cat "$f.log"
		line=$(cat "$f.sum" 2>/dev/null) || line="$(basename "$f") FAIL (no result)"
		summary+=("$line")
		case $line in *" FAIL "*|*"(no result)") failed=1 ;; esac
		rm -f "$f.log" "$f.sum"
	done
	bgs=()
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
# results TAP: one summary line per selftest of the guest's TAP stream,
# under its stage's line
results() {
	local line
	while read -r line; do
		summary+=("    $line")
	done < <(tr -d '\r' <"$1" 2>/dev/null | grep -E '^(not )?ok ')
}
# The same swap selftests on Debian's PREEMPT_RT kernel, beside the stock
# guest (each guest uses one host core).
rt_guest() {
	local rt tests=roundtrip+writeback+migrate+tracepoints
	tests+=+kernel_test_zswap.sh:zsmalloc+kernel_test_zswap.sh:zsmalloc_mod
	[ -z "$only" ] || tests=${only//,/+}
	rt=$(./vm/abi.sh rt-amd64) || return 1
	selftest_guest "/boot/vmlinuz-$rt" "$out/build-rt/zsmalloc_mod.ko" \
		"$out/rt-guest.log" 900 --modprobe virtio_blk \
		--append "$debug_opts zsmod_tests=$tests"
}
stage_bg "stock 6.12 guest selftests" guest
[ -f "$out/build-rt/zsmalloc_mod.ko" ] && stage_bg "rt 6.12 guest selftests" rt_guest
stage_wait
results "$out/stock-guest.tap"
[ -f "$out/rt-guest.tap" ] && results "$out/rt-guest.tap"

# The same selftests, but the one whose checks do not apply (lifecycle,
# badinput: knobs and module life, the same on every kernel), on the KUnit
# test kernel: KASAN, UBSAN, KFENCE, DEBUG_PAGEALLOC, slab debugging,
# lockdep and full preemption watch real swap traffic through the module.
debug_guest() {
	local kd b=$out/build-debug
	local tests=roundtrip+writeback+migrate+tracepoints
	# test_zswap on ours only: its control run on zsmalloc is the stock guest's
	tests+=+kernel_test_zswap.sh:zsmalloc_mod
	[ -z "$only" ] || tests=${only//,/+}
	kd=$(./kunit/build-kernel.sh -q) || return 1
	./vm/build-modules.sh "$b" "$kd/build" "$out/build-debug.log" W=1 || return 1
	selftest_guest "$kd/build/arch/x86/boot/bzImage" "$b/zsmalloc_mod.ko" \
		"$out/debug-guest.log" 1200 --append "page_poison=1 zsmod_tests=$tests"
}

if [ -z "$kunit" ]; then
	summary+=("kunit                          skipped (--no-kunit)")
elif [ -x kunit/run.sh ]; then
	stage "test kernel build" ./kunit/build-kernel.sh -q
	# kunit.py's kernel (KCSAN, PREEMPT_RT) builds beside the next guests,
	# which use one host core each; its run comes after the stock stress
	kpybuild() { nice ./kunit/kunitpy.sh --build-only >"$out/kunitpy-build.log" 2>&1 ||
		{ tail -40 "$out/kunitpy-build.log"; false; }; }
	stage_bg "kunit.py kernel build (KCSAN, RT)" kpybuild
	stage "kunit (kunit/run.sh)" ./kunit/run.sh
	stage "test kernel selftests (sanitizers)" debug_guest
	results "$out/debug-guest.tap"
else
	summary+=("kunit                          skipped (no kunit/run.sh)")
fi

# Reliability, on the stock kernel, then on the sanitizer kernel, where the
# storm's fault-injection phase runs too: the short storm/races (stress/),
# and beside it a memcg held at its limit (stress/pressure.c): threads fault
# pages back in from zswap while the charge for them reclaims, so the module
# allocates in direct reclaim inside swap-in faults, in many tasks at once;
# every page is checked byte for byte.
if [ -z "$only" ]; then
	# built once here: the runs side by side would each build them
	stage "stress programs build" make -s -C stress
	stage_bg "stress (short, stock 6.12)" ./stress/check-short.sh --ko "$bdir/zsmalloc_mod.ko"
	stage_bg "memcg pressure (stock 6.12)" ./stress/run.sh --guest pressure \
		--ko "$bdir/zsmalloc_mod.ko" --secs 90 --mem 512M
	stage_wait
fi
# The suites built in, under kunit.py run, on the second sanitizer kernel:
# KCSAN and PREEMPT_RT, two vCPUs on two host threads (both host cores)
if [ -n "$kunit" ] && [ -x kunit/kunitpy.sh ]; then
	kunitpy() { ./kunit/kunitpy.sh >"$out/kunitpy.log" 2>&1 || { tail -60 "$out/kunitpy.log"; false; }; }
	stage "kunit.py run (KCSAN, PREEMPT_RT)" kunitpy
fi
if [ -z "$only" ]; then
	if [ -n "$kunit" ]; then
		# the module of the test-kernel selftests, if that stage built it;
		# otherwise the first run.sh would build it while the second does
		dko=()
		if [ -f "$out/build-debug/zsmalloc_mod.ko" ]; then
			dko=(--ko "$out/build-debug/zsmalloc_mod.ko")
		elif stage "stress: module build (test kernel)" ./vm/build-modules.sh \
			"$top/out/stress/build-debug" "$(./kunit/build-kernel.sh -q)/build" \
			"$top/out/stress/build-debug.log"; then
			dko=(--ko "$top/out/stress/build-debug/zsmalloc_mod.ko")
		fi
		stage_bg "stress (short, test kernel)" ./stress/run.sh --kernel debug --secs 20 \
			"${dko[@]}" --log "$top/out/stress/debug-short.log"
		stage_bg "memcg pressure (test kernel)" ./stress/run.sh --guest pressure \
			--kernel debug "${dko[@]}" --secs 60 --mem 1G
		stage_wait
	fi
fi

# The administrator's path on a real Debian 12 system (vm/debian-check.sh:
# the package from apt, DKMS, the initramfs, zswap.zpool=zsmalloc_mod at
# boot, upgrade, purge), beside the memdesc stages: one TCG guest at a time
if [ -z "$only" ]; then
	debian() { ./vm/debian-check.sh >"$out/debian-check.log" 2>&1 ||
		{ grep -E '^not ok|FAIL' "$out/debian-check.log" | head -40; tail -20 "$out/debian-check.log"; false; }; }
	stage_bg "Debian 12 system: package, DKMS, boot (vm/debian-check.sh)" debian
fi

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
if stage "memdesc: modules build (W=1, sparse)" md_build; then
	stage "memdesc: stock 6.12 guest selftests" md_guest
	results "$out/stock-guest-memdesc.tap"
	if [ -n "$kunit" ]; then
		stage "memdesc: kunit" env ZSMOD_MEMDESC=1 KUNIT_OUT="$top/out/kunit-memdesc" \
			./kunit/run.sh
	fi
	if [ -z "$only" ]; then
		stage_bg "memdesc: stress (short, stock)" ./stress/check-short.sh \
			--ko "$mdir/zsmalloc_mod.ko" --log "$top/out/stress/short-memdesc.log"
	fi
fi
# The short stress on the PREEMPT_RT kernel, beside the memdesc one.
if [ -z "$only" ] && [ -f "$out/build-rt/zsmalloc_mod.ko" ]; then
	stage_bg "stress (short, rt 6.12)" ./stress/check-short.sh --kernel rt \
		--ko "$out/build-rt/zsmalloc_mod.ko" --log "$top/out/stress/short-rt.log"
fi
stage_wait

# Packaging and style: dkms.conf builds against the stock headers, and
# checkpatch --strict plus sparse find nothing.
if [ -z "$only" ]; then
	stage "dkms build ($abi)" ./scripts/dkms-check.sh "$abi"
	stage "lint (checkpatch, sparse)" ./scripts/lint.sh
	stage "docs (kernel-doc, Sphinx)" ./scripts/docs.sh
fi
finish
