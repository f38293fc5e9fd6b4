#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a throw-away qemu guest (TCG) on a busybox initramfs, run a script in
# it, and judge the run. Shared by scripts/check.sh, scripts/demo.sh, kunit/run.sh and
# the benchmarks: keep this interface stable.
#
# usage: vm/run-guest.sh --kernel BZIMAGE --init-script SCRIPT [options]
#   --kernel FILE        kernel image to boot
#   --init-script FILE   sh script run as root by the guest's /init; its stdout
#                        is the TAP stream (env TAP_DEV names the TAP channel)
#   --kver VER           kernel release (default: read from the image header)
#   --modules-dir DIR    a lib/modules/VER tree to take --modprobe modules from
#                        (default /lib/modules/VER when it exists)
#   --modprobe NAME      copy NAME and its dependencies, load at boot (repeatable)
#   --ko FILE            install FILE in /lib/modules/VER/extra, depmod'ed, not
#                        loaded (repeatable)
#   --files SRC[:DEST]   copy SRC into the guest, default DEST /root/NAME (repeatable)
#   --disk SIZE          fresh sparse raw virtio disk, /dev/vda in the guest
#                        (needs virtio_blk: built in or --modprobe virtio_blk)
#   --mem SIZE           guest RAM (default 1G)
#   --smp N              guest CPUs (default 2)
#   --append ARGS        extra kernel command line
#   --log FILE           console log (default out/guest.log); the TAP stream is
#                        saved next to it as FILE minus .log plus .tap
#   --timeout SECONDS    host-side limit for the whole boot (default 600)
#   --icount             -icount shift=0,sleep=off: guest time counts
#                        instructions (reproducible timings for benchmarks)
#   --accel ACCEL        qemu accelerator (default tcg; KVM fails nested here)
#   --cpu MODEL          qemu -cpu MODEL (default under TCG: qemu64,-cx16, see
#                        below; otherwise qemu's default)
#   --mttcg              one host thread per vCPU (faster, but the stock kernel
#                        sometimes oopses on int3 while live-patching code under
#                        multi-threaded TCG: about 1 boot in 12 here)
#   --no-tap             the script prints no TAP: judge only kernel splats,
#                        the script's exit status, qemu's and the timeout
#   --allow-skip NAME:REASON  the skipped TAP result NAME passes (repeatable;
#                        any other skip fails: see vm/verdict.sh for NAME)
#   --no-verdict         do not judge; exit with qemu's status
# exit status: 0 pass, 1 failed verdict, 2 usage error, 124 timeout (with
# --no-verdict); failures print the log paths and the offending lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

kernel='' script='' kver='' moddir='' disk='' append='' icount='' notap='' noverdict='' mttcg=''
mem=1G smp=2 timeout=600 accel=tcg cpu='' log=$top/out/guest.log
irargs=() vargs=()
usage() { sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--init-script) script=$2; shift ;;
	--kver) kver=$2; shift ;;
	--modules-dir) moddir=$2; shift ;;
	--modprobe | --ko | --files) irargs+=("$1" "$2"); shift ;;
	--disk) disk=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--append) append="$append $2"; shift ;;
	--log) log=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--icount) icount=1 ;;
	--accel) accel=$2; shift ;;
	--cpu) cpu=$2; shift ;;
	--mttcg) mttcg=1 ;;
	--no-tap) notap=1 ;;
	--allow-skip) vargs+=(--allow-skip "$2"); shift ;;
	--no-verdict) noverdict=1 ;;
	-h | --help) usage ;;
	*) echo "run-guest: unknown option $1" >&2; usage ;;
	esac
	shift
done
if [ -z "$kernel" ] || [ -z "$script" ]; then usage; fi
[ -f "$kernel" ] || { echo "run-guest: no kernel $kernel" >&2; exit 2; }

# The x86 boot header points (at 0x20e) to the version string, 0x200 further on.
if [ -z "$kver" ]; then
	off=$(od -An -j 526 -N2 -tu2 "$kernel" | tr -d ' ')
	kver=$(dd if="$kernel" bs=1 skip=$((off + 512)) count=200 status=none |
		tr '\0' '\n' | head -1 | cut -d' ' -f1)
fi
[ -z "$moddir" ] && [ -d "/lib/modules/$kver/kernel" ] && moddir=/lib/modules/$kver

mkdir -p "$(dirname "$log")"
log=$(cd "$(dirname "$log")" && pwd)/$(basename "$log")
tap=${log%.log}.tap
work=$(mktemp -d "$(dirname "$log")/.guest.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$here/initramfs.sh" --out "$work/initrd.gz" --kver "$kver" --init-script "$script" \
	${moddir:+--modules-dir "$moddir"} ${irargs[@]+"${irargs[@]}"}

# Single-threaded TCG by default: see --mttcg. -icount needs it anyway.
accelopt=$accel
[ "$accel" = tcg ] && [ -z "$mttcg" ] && accelopt=tcg,thread=single
qemu=(qemu-system-x86_64 -accel "$accelopt" -m "$mem" -smp "$smp" -nodefaults
	-display none -no-reboot
	-kernel "$kernel" -initrd "$work/initrd.gz"
	-serial "file:$log" -serial "file:$tap")
# shellcheck disable=SC2054 # the commas belong to one qemu argument
[ -n "$icount" ] && qemu+=(-icount shift=0,sleep=off)
# No CMPXCHG16B under TCG: qemu 7.2's TCG sometimes leaves bits of RBX in
# EFLAGS after SLUB's `cmpxchg16b %gs:(%rsi)` (reserved bits, TF, DF). TF
# gives a #DB in the kernel; DF alone runs the next `rep stos` backwards,
# which zeroed zsmod_malloc()'s handle (issue 30). Without the feature SLUB
# takes its locked path and never issues the instruction.
[ -z "$cpu" ] && [ "$accel" = tcg ] && cpu=qemu64,-cx16
[ -n "$cpu" ] && qemu+=(-cpu "$cpu")
if [ -n "$disk" ]; then
	# Sparse and fresh on every boot: no state leaks from one run to the next.
	truncate -s "$disk" "$work/disk.raw"
	qemu+=(-drive "file=$work/disk.raw,format=raw,if=virtio,cache=unsafe")
	append="$append zsmod_disk=vda"
fi
# oops=panic, panic=-1: an oops reboots at once, which ends qemu (-no-reboot)
# instead of leaving the guest hung until the timeout. Warnings do not stop it.
# watchdog_thresh=30 (soft lockups reported after 60 s instead of 20): TCG
# runs the guest 10 to 50 times slower than hardware, and a busy host may
# not run a vCPU thread for 20 s (seen as soft lockups in idle tasks).
qemu+=(-append "console=ttyS0 oops=panic panic=-1 loglevel=6 watchdog_thresh=30 $append")

echo "run-guest: booting $kver ($(basename "$kernel")), log $log" >&2
start=$(date +%s)
set +e
timeout -k 10 "$timeout" "${qemu[@]}" </dev/null
rc=$?
set -e
secs=$(($(date +%s) - start))
echo "run-guest: qemu exited with $rc after $secs s" >&2

[ -n "$noverdict" ] && exit "$rc"
# timeout(1): 124 when it ended qemu with TERM; 137 when qemu died of SIGKILL,
# sent by timeout -k 10 s after a TERM that did not stop it, or by anyone
# else (the OOM killer): a failure naming the cause either way.
case $rc in
0) ;;
124) vargs+=(--timed-out "$timeout") ;;
*)
	[ "$rc" = 137 ] && [ "$secs" -ge "$timeout" ] && vargs+=(--timed-out "$timeout")
	vargs+=(--qemu-exit "$rc") ;;
esac
[ -n "$notap" ] && vargs+=(--no-tap)
# Not exec: the EXIT trap must still remove the work directory and disk.
"$here/verdict.sh" ${vargs[@]+"${vargs[@]}"} "$log" "$tap"
