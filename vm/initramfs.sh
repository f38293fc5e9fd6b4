#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a gzip'ed newc initramfs for a test guest (called by vm/run-guest.sh).
#
# usage: vm/initramfs.sh --out FILE --kver VER --init-script S
#                        [--modules-dir /lib/modules/VER] [--modprobe NAME]...
#                        [--ko FILE.ko]... [--files SRC[:DEST]]...
#
# Layout of the guest root:
#   /init                       vm/guest-init.sh (mounts, loads modules, runs S)
#   /etc/test.sh                the init script S
#   /etc/guest-lib.sh           vm/guest-lib.sh, the guest library: every guest
#                               script sources it (TAP, swap, zswap, memcg)
#   /etc/modules-load           modules /init loads before S (the --modprobe list)
#   /bin/busybox + applets      busybox-static
#   /lib/modules/VER/kernel/    --modprobe modules and their dependencies from
#                               --modules-dir, decompressed (busybox cannot read .ko.xz)
#   /lib/modules/VER/extra/     --ko files, installed but not loaded
#   modules.* indexes           from depmod -b, so busybox modprobe and the kernel's
#                               request_module() resolve names and aliases
#   DEST (default /root/NAME)   --files
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

out='' kver='' script='' moddir=''
mods=() kos=() files=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--kver) kver=$2; shift ;;
	--init-script) script=$2; shift ;;
	--modules-dir) moddir=$2; shift ;;
	--modprobe) mods+=("$2"); shift ;;
	--ko) kos+=("$2"); shift ;;
	--files) files+=("$2"); shift ;;
	*) echo "initramfs: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] && [ -n "$kver" ] && [ -n "$script" ] || {
	echo "initramfs: --out, --kver and --init-script are required" >&2; exit 2; }

busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] || { echo "initramfs: no $busybox (install busybox-static)" >&2; exit 1; }
# A dynamic binary has a program interpreter (the initramfs has no libc).
readelf -l "$busybox" 2>/dev/null | grep -q 'Requesting program interpreter' && {
	echo "initramfs: $busybox is not static (install busybox-static)" >&2; exit 1; }

root=$(mktemp -d "${TMPDIR:-/tmp}/zsmod-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,root,run,mnt}
cp "$busybox" "$root/bin/busybox"
# Every applet but "busybox" itself: a link named busybox would replace the binary.
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$root/bin/$a"
done
# The kernel's request_module() runs CONFIG_MODPROBE_PATH, /sbin/modprobe.
ln -sf ../bin/busybox "$root/sbin/modprobe"

install -m 0755 "$here/guest-init.sh" "$root/init"
install -m 0755 "$script" "$root/etc/test.sh"
install -m 0644 "$here/guest-lib.sh" "$root/etc/guest-lib.sh"
: >"$root/etc/modules-load"

mdir=$root/lib/modules/$kver
mkdir -p "$mdir/kernel" "$mdir/extra"

# Stock modules and their dependencies, resolved with the host's kmod against
# the given tree. "builtin" lines need nothing.
if [ ${#mods[@]} -gt 0 ]; then
	[ -n "$moddir" ] || { echo "initramfs: --modprobe needs --modules-dir" >&2; exit 2; }
	base=$(cd "$moddir/../../.." && pwd)
	for m in "${mods[@]}"; do
		modprobe -d "$base" -S "$kver" --show-depends "$m" |
		while read -r kind path _; do
			[ "$kind" = insmod ] || continue
			rel=${path#"$base/lib/modules/$kver/"}
			dst=$mdir/${rel%.xz}
			dst=${dst%.zst}
			mkdir -p "$(dirname "$dst")"
			case $path in
			*.xz) xz -dc "$path" >"$dst" ;;
			*.zst) zstd -qdc "$path" >"$dst" ;;
			*) cp "$path" "$dst" ;;
			esac
		done
		echo "$m" >>"$root/etc/modules-load"
	done
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -f "$moddir/$f" ] && cp "$moddir/$f" "$mdir/"
	done
fi

# depmod warns when these are missing (no --modules-dir, e.g. a kernel
# without modules): empty ones mean "nothing built in, no order".
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$mdir/$f" ] || : >"$mdir/$f"
done
for k in ${kos[@]+"${kos[@]}"}; do
	cp "$k" "$mdir/extra/"
done
depmod -b "$root" "$kver"

for f in ${files[@]+"${files[@]}"}; do
	src=${f%%:*}
	dst=/root/$(basename "$src")
	[ "$f" != "$src" ] && dst=${f#*:}
	mkdir -p "$root$(dirname "$dst")"
	cp -a "$src" "$root$dst"
done

(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) |
	gzip -1 >"$out"
