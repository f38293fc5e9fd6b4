#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the stress runs: build zsmalloc_mod.ko (in a copy of the
# tree, so the working tree's build products stay as they are) and the static
# storm writer, boot a guest with vm/run-guest.sh running
# stress/guest-stress.sh, and judge it (vm/verdict.sh: TAP + kernel splats).
#
# usage: stress/run.sh [--guest stress|pressure] [--secs S]
#                      [--kernel stock|rt|debug|BZIMAGE] [--ko FILE]
#                      [--writers N] [--mib M] [--mem SIZE] [--smp N]
#                      [--log FILE] [--timeout S] [--allow-skip NAME:REASON]...
#                      [--cpu MODEL] [--mttcg] [--no-control]
#   --guest G     the guest script stress/guest-G.sh: stress (default, the
#                 phases of guest-stress.sh) or pressure (guest-pressure.sh:
#                 threads of stress/pressure.c in a memcg held at its limit;
#                 --writers is then the number of processes)
#   --secs S      time budget of the guest's timed phases (default 120)
#   --writers N --mib M  storm writers and MiB each (default 4 x 40 on the
#                 stock kernel, 2 x 12 on the debug kernel)
#   --kernel      stock: /boot/vmlinuz-<vm/abi.sh> (default); rt: the same
#                 for Debian's PREEMPT_RT flavour; debug: the KUnit test
#                 kernel (kunit/build-kernel.sh, must exist already)
#   --ko FILE     use this module instead of building one
#   --allow-skip NAME:REASON  a phase that may skip (vm/run-guest.sh); any
#                 other skip fails. "fault injection" is allowed on the stock
#                 kernel when its config has no CONFIG_FAULT_INJECTION.
#   --cpu MODEL --mttcg  passed to vm/run-guest.sh (qemu's -cpu; one host
#                 thread per vCPU)
#   --no-control  the fault-injection phase without its control runs on
#                 the built-in zsmalloc (they only print counts to compare)
# Env: STRESS_KCFLAGS: extra KCFLAGS for the module build (workarounds)
# Exit: 0 pass, 1 fail (vm/verdict.sh), 2 usage/build error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

guest=stress secs=120 kernel=stock ko='' writers='' mib='' mem=1G smp=2 log='' timeout=''
allow=() qopts=() control=1
while [ $# -gt 0 ]; do
	case $1 in
	--guest) guest=$2; shift ;;
	--secs) secs=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--ko) ko=$2; shift ;;
	--writers) writers=$2; shift ;;
	--mib) mib=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--log) log=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--allow-skip) allow+=(--allow-skip "$2"); shift ;;
	--cpu) qopts+=(--cpu "$2"); shift ;;
	--mttcg) qopts+=(--mttcg) ;;
	--no-control) control=0 ;;
	-h | --help) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "stress: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

case $guest in
stress | pressure) ;;
*) echo "stress: unknown guest $guest" >&2; exit 2 ;;
esac
case $kernel in
stock | rt)
	# rt: Debian's PREEMPT_RT flavour (vm/deps.sh installs it)
	abi=$("$top/vm/abi.sh" "$([ "$kernel" = rt ] && echo rt-amd64 || echo amd64)")
	image=/boot/vmlinuz-$abi
	kdir=/usr/src/linux-headers-$abi
	tag=$kernel
	mods=(--modprobe virtio_blk)
	# Debian builds it without fault injection: the phase may skip there
	# (and only there, as long as its config says so).
	[ "$guest" != stress ] ||
	grep -qx 'CONFIG_FAULT_INJECTION=y' "/boot/config-$abi" 2>/dev/null ||
		allow+=(--allow-skip "fault injection:the kernel $abi is built without CONFIG_FAULT_INJECTION")
	;;
debug)
	# The test kernel is another helper's job: use it only once it is built
	# (build-kernel.sh prints the directory of a complete build at once).
	kd=$(ZSMOD_CACHE=${ZSMOD_CACHE:-/var/cache/zsmalloc_mod} "$top/kunit/build-kernel.sh" -q 2>/dev/null) || {
		echo "stress: no debug kernel (kunit/build-kernel.sh failed)" >&2; exit 2; }
	image=$kd/build/arch/x86/boot/bzImage
	kdir=$kd/build
	tag=debug
	mods=()
	;;
*)
	image=$kernel
	kdir=${KDIR:?set KDIR to the build tree of $kernel}
	tag=custom
	mods=()
	;;
esac
[ -f "$image" ] || { echo "stress: no kernel image $image" >&2; exit 2; }
# Working sets: the debug kernel (KASAN, lockdep, one vCPU: it has no ACPI)
# runs the same rounds about 10 times slower.
if [ "$guest" = pressure ]; then
	: "${writers:=2}" "${mib:=40}"
elif [ "$tag" = stock ] || [ "$tag" = rt ]; then
	: "${writers:=4}" "${mib:=40}"
else
	: "${writers:=2}" "${mib:=12}"
fi

out=$top/out/stress
mkdir -p "$out"
name=$tag
[ "$guest" = stress ] || name=$guest-$tag
[ -n "$log" ] || log=$out/$name-$secs.log

if [ -z "$ko" ]; then
	bdir=$out/build-$tag
	"$top/vm/build-modules.sh" "$bdir" "$kdir" "$out/build-$tag.log" \
		${STRESS_KCFLAGS:+KCFLAGS="$STRESS_KCFLAGS"} || {
		echo "stress: module build failed ($out/build-$tag.log)" >&2
		exit 2
	}
	ko=$bdir/zsmalloc_mod.ko
fi
make -s -C "$here" >/dev/null || { echo "stress: building stress/bin failed" >&2; exit 2; }

# Guest time is TCG time: the phases take about secs plus a fixed ~150 s of
# setup, drains and teardown; the debug kernel (KASAN, lockdep) is slower.
if [ -z "$timeout" ]; then
	timeout=$((secs * 3 + 400))
	[ "$tag" = debug ] && timeout=$((secs * 5 + 1000))
fi
if [ "$guest" = pressure ]; then
	append="zspress_secs=$secs zspress_procs=$writers zspress_mib=$mib"
else
	append="zsstress_secs=$secs zsstress_writers=$writers zsstress_mib=$mib zsstress_control=$control"
fi
rc=0
echo "stress: $guest on the $tag kernel $image, module $ko, secs=$secs writers=$writers mib=$mib, log $log" >&2
"$top/vm/run-guest.sh" --kernel "$image" --init-script "$here/guest-$guest.sh" \
	${mods[@]+"${mods[@]}"} --ko "$ko" --disk 1G --mem "$mem" --smp "$smp" \
	--files "$here/bin/storm:/root/stress/storm" \
	--files "$here/bin/pressure:/root/stress/pressure" \
	--files "$top/vm/splat-patterns:/root/stress/splat-patterns" ${allow[@]+"${allow[@]}"} \
	${qopts[@]+"${qopts[@]}"} --append "$append" \
	--log "$log" --timeout "$timeout" || rc=$?
tap=${log%.log}.tap
# The counts, for whoever called us.
tr -d '\r' <"$tap" | grep -E '^(not )?ok |^# (storm|races|rmmod|load|faults|teardown|baseline|during|zswap|memcg|pressure|storm )' >&2 || true
exit $rc
