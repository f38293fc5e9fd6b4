#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A real Debian 12 system for vm/debian-check.sh, as a raw ext4 disk image:
# debootstrap (minbase) of bookworm from Debian's mirror with systemd,
# initramfs-tools, dkms and the stock 6.12 kernel (image + headers of
# vm/abi.sh's ABI), and the -rt flavour's image + headers of the same N
# downloaded into its apt cache, not installed (the check installs that
# kernel later, so that DKMS has to build for it on its own).
#
# The image is cached as $ZSMOD_CACHE/debian-guest-<key>/rootfs.img
# (ZSMOD_CACHE defaults to /var/cache/zsmalloc_mod), <key> a hash of the
# package list, both ABIs and this script; .complete is written last, and a
# directory without it is rebuilt, and images of other keys are removed
# once a new one is complete. Nothing else depends on the cache: with
# an empty one the image is built (about 5 minutes here).
#
# usage: vm/debian-image.sh [ABI]   prints the image's path on stdout
#        ABI: the generic 6.12 ABI (default: vm/deps.sh's, which installs
#        the host's packages, debootstrap included, when missing)
# Env:   ZSMOD_MIRROR (default http://deb.debian.org/debian) and
#        ZSMOD_SECURITY_MIRROR (default http://deb.debian.org/debian-security)
# Exit: 0 with the image ready.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=vm/debian-chroot.sh
. "$here/debian-chroot.sh"

say() { echo "debian-image: $*" >&2; }
die() { echo "debian-image: ERROR: $*" >&2; exit 1; }

abi=${1:-}
[ -n "$abi" ] || abi=$("$here/deps.sh") || die "no 6.12 ABI"
rt=$("$here/abi.sh" rt-amd64) || die "no -rt ABI"
"$here/apt-install.sh" debootstrap e2fsprogs || die "installing debootstrap failed"
mirror=${ZSMOD_MIRROR:-http://deb.debian.org/debian}
secmirror=${ZSMOD_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# debootstrap's part (bookworm main) and apt's (the kernels, from -security)
base="systemd,systemd-sysv,udev,dbus,initramfs-tools,zstd,kmod,dkms,openssl,procps"
kpkgs="linux-image-$abi-unsigned linux-headers-$abi"
rtpkgs="linux-image-$rt-unsigned linux-headers-$rt"
key=$( {
	echo "$base|$kpkgs|$rtpkgs|$mirror|$secmirror"
	cat "$0" "$here/debian-chroot.sh"
} | sha256sum | cut -c1-16)
cache=${ZSMOD_CACHE:-/var/cache/zsmalloc_mod}
dir=$cache/debian-guest-$key
img=$dir/rootfs.img
if [ -f "$dir/.complete" ] && [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

mkdir -p "$cache"
# One builder per image: a second caller waits and then finds it complete.
exec 9>"$dir.lock"
flock 9
if [ -f "$dir/.complete" ] && [ -f "$img" ]; then
	echo "$img"
	exit 0
fi
say "building $img (bookworm, $abi, $rt downloaded)"
rm -rf "$dir"
mkdir -p "$dir"
root=$dir/root
cleanup() { chroot_leave "$root"; rm -rf "$root"; }
trap cleanup EXIT
t0=$SECONDS

nice debootstrap --variant=minbase --include="$base" bookworm "$root" "$mirror" \
	>"$dir/debootstrap.log" 2>&1 ||
	{ tail -20 "$dir/debootstrap.log" >&2; die "debootstrap failed (log $dir/debootstrap.log)"; }
say "debootstrap: $((SECONDS - t0)) s"

cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $secmirror bookworm-security main
EOF
echo debian-guest >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tdebian-guest\n' >"$root/etc/hosts"
printf '/dev/vda\t/\text4\terrors=remount-ro\t0\t1\n' >"$root/etc/fstab"
# No password: the guest is only ever driven by its test unit.
sed -i 's/^root:[^:]*:/root::/' "$root/etc/shadow"
# The host's copies of the kernel packages, when it has them: fewer downloads.
mkdir -p "$root/var/cache/apt/archives"
for f in /var/cache/apt/archives/linux-*"${abi%-amd64}"*.deb \
	/var/cache/apt/archives/linux-*"${rt%-rt-amd64}"*.deb; do
	[ -f "$f" ] && cp "$f" "$root/var/cache/apt/archives/"
done

chroot_enter "$root"
{
	chroot_run "$root" apt-get update -q
	# shellcheck disable=SC2086 # the lists are words
	chroot_run "$root" nice apt-get install -y -q --no-install-recommends $kpkgs
	# shellcheck disable=SC2086
	chroot_run "$root" apt-get install -y -q --no-install-recommends --download-only $rtpkgs
} >"$dir/apt.log" 2>&1 ||
	{ tail -30 "$dir/apt.log" >&2; die "apt in the chroot failed (log $dir/apt.log)"; }
chroot_leave "$root"
say "kernel installed: $((SECONDS - t0)) s"
[ -f "$root/boot/vmlinuz-$abi" ] || die "no /boot/vmlinuz-$abi in the image"
ls "$root/var/cache/apt/archives/linux-image-$rt-unsigned_"*.deb >/dev/null ||
	die "the -rt image was not downloaded"
rm -f "$root/etc/resolv.conf"

# 4 GiB, sparse: about 1.6 GiB used; the check adds a swap file.
truncate -s 4G "$img.tmp"
mkfs.ext4 -q -L debian-guest -d "$root" "$img.tmp" ||
	die "mkfs.ext4 -d failed"
mv "$img.tmp" "$img"
echo "$base $kpkgs; downloaded: $rtpkgs" >"$dir/contents"
touch "$dir/.complete"
say "done in $((SECONDS - t0)) s: $img"
# Images of other keys are stale (another script or package list): remove
# those no one is building (their lock is free). Only debian-guest-*.
for d in "$cache"/debian-guest-*/; do
	d=${d%/}
	[ "$d" = "$dir" ] && continue
	if (flock -n 8 && rm -rf "$d") 8>"$d.lock"; then
		rm -f "$d.lock"
		say "removed the stale image $d"
	fi
done
echo "$img"
