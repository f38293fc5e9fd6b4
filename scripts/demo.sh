#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: install what is missing, build zsmalloc_mod against the stock
# Debian 6.12 headers, boot that kernel in qemu, select zsmalloc_mod as
# zswap's zpool and swap a real workload through it (vm/guest-demo.sh).
# The guest's output streams here; the full console log is in out/demo/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/out/demo
mkdir -p "$out"

abi=$(./vm/deps.sh)
echo "demo: kernel $abi; building zsmalloc_mod and the workload"
make -s KDIR="/usr/src/linux-headers-$abi" modules >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log"; exit 1; }
make -s -C selftests bin/swapload

: >"$out/guest.tap"
./vm/run-guest.sh --kernel "/boot/vmlinuz-$abi" --init-script vm/guest-demo.sh \
	--modprobe virtio_blk --disk 2G --mem 1G --smp 2 --timeout 600 \
	--ko zsmalloc_mod.ko --files selftests/bin/swapload:/root/swapload \
	--no-tap --log "$out/guest.log" &
guest=$!
# The guest script's stdout (the .tap stream) as it comes.
tail -n +1 -f --pid=$guest "$out/guest.tap" | sed -u -e 's/\r$//' -e '/^# guest-init/d'
wait $guest
