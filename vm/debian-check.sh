#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The administrator's path, tested for real: the Debian package installed
# with apt into a real Debian 12 system, booted under qemu with
# `zswap.enabled=1 zswap.zpool=zsmalloc_mod`, then purged and booted again.
#
#  1. the packages: this commit's (scripts/deb.sh, lintian clean) and an
#     older one (version OLD, default 0.0.1) built from a temporary copy
#  2. the disk: a copy of vm/debian-image.sh's cached bookworm image
#     (systemd, initramfs-tools, dkms, the stock 6.12 kernel); in a chroot
#     (native speed): the boot loader's command line (/etc/kernel/cmdline),
#     an option in /etc/modprobe.d/, a swap file, the guest's check unit;
#     `apt install ./OLD.deb`, then `apt install ./NEW.deb` (the upgrade),
#     then the -rt kernel of the same N (DKMS must build for it unasked);
#     the hook's switch ZSMALLOC_MOD_INITRAMFS=no and back on its initramfs
#  3. boot 1 (stock kernel, the initramfs update-initramfs made): the guest
#     (vm/guest-debian.sh) checks zswap's pool from boot, modinfo, dkms
#     status for both kernels, the modprobe.d option, a workload under
#     `systemd-run --scope -p MemoryMax=` read back byte for byte through
#     zswap, systemctl --failed
#  4. `apt purge zsmalloc-mod-dkms` in the chroot; boot 2: zswap falls back
#     to zsmalloc with its message, the workload, systemd's targets
#  5. judge: every expected TAP line "ok", none "not ok", the guests' TAP
#     plans complete, no kernel splat in either console log (vm/splats.sh),
#     no timeout
#
# Output: TAP-like "ok N - ..." / "not ok N - ..." lines on stdout, the
# guests' lines included; logs under out/debian/ (console-*.log,
# results-*.tap, chroot-*.log).
#
# usage: vm/debian-check.sh [--old VERSION] [--timeout SECONDS] [--keep-disk]
#   --timeout  per boot (default 900)
#   --keep-disk  leave out/debian/disk.img (4 GiB sparse) for a look
# Env: ZSMOD_CACHE (default /var/cache/zsmalloc_mod): the image cache.
# Exit status: 0 when everything holds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cd "$top"
# shellcheck source=vm/debian-chroot.sh
. "$here/debian-chroot.sh"

old=0.0.1 timeout=900 keep=
while [ $# -gt 0 ]; do
	case $1 in
	--old) old=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--keep-disk) keep=1 ;;
	*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done

out=$top/out/debian
mkdir -p "$out"
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
check() { # check NAME COMMAND...
	local name=$1
	shift
	if "$@"; then ok "$name"; else notok "$name"; fi
}
say() { echo "# $*"; }
die() { notok "$*"; echo "# debian-check: FAIL ($fails failed)"; exit 1; }
t_start=$SECONDS

# --- 1. packages ----------------------------------------------------------------
abi=$("$here/deps.sh") || die "no 6.12 ABI (vm/deps.sh)"
rt=$("$here/abi.sh" rt-amd64) || die "no -rt ABI"
ver=$(./scripts/version.sh)
dpkg --compare-versions "$old" lt "$ver" || die "--old $old is not lower than $ver"
./vm/apt-install.sh gcc libc6-dev e2fsprogs || die "installing gcc failed"
new_deb=$(./scripts/deb.sh --out "$out/deb") || die "scripts/deb.sh failed"
ok "zsmalloc-mod-dkms $ver built, lintian clean ($(basename "$new_deb"))"
old_deb=$(./scripts/deb.sh --out "$out/deb-old" --version "$old") ||
	die "scripts/deb.sh --version $old failed"
ok "zsmalloc-mod-dkms $old built from a temporary copy ($(basename "$old_deb"))"
gcc -static -O2 -Wall -Wextra -Werror -o "$out/zsmod-verify" vm/debian-verify.c ||
	die "building vm/debian-verify.c failed"

# --- 2. the disk ------------------------------------------------------------------
img=$("$here/debian-image.sh" "$abi") || die "vm/debian-image.sh failed"
say "image $img ($(cat "$(dirname "$img")/contents"))"
disk=$out/disk.img mnt=$out/mnt
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		chroot_leave "$mnt"
		umount "$mnt" || umount -l "$mnt"
	fi
	[ -n "$keep" ] || rm -f "$disk"
	if [ -n "${qpid:-}" ] && kill -0 "$qpid" 2>/dev/null; then kill "$qpid"; fi
}
trap cleanup EXIT
cp --sparse=always "$img" "$disk"

mount_disk() {
	mkdir -p "$mnt"
	mount -o loop "$disk" "$mnt"
	chroot_enter "$mnt"
}
umount_disk() {
	chroot_leave "$mnt"
	umount "$mnt"
}
# in_chroot LOG CMD...: run CMD in the guest's tree, its output appended to LOG
in_chroot() {
	local log=$1
	shift
	echo "+ $*" >>"$log"
	chroot_run "$mnt" "$@" >>"$log" 2>&1
}
dkms_status() { chroot_run "$mnt" dkms status zsmalloc_mod 2>/dev/null; }
# in_initrd KVER REGEX: a path in the initramfs of KVER matches REGEX (the
# listing is read whole first: grep -q in a pipe would end lsinitramfs early
# with SIGPIPE, a failure under pipefail)
in_initrd() {
	local list
	list=$(chroot_run "$mnt" lsinitramfs "/boot/initrd.img-$1") || return 2
	grep -Eq "$2" <<<"$list"
}
has_module() { in_initrd "$1" '/zsmalloc_mod\.ko'; }
no_module() { ! in_initrd "$1" '/zsmalloc_mod\.ko|zsmalloc_mod/'; }
copy_boot() { # the kernel and initramfs to boot, as update-initramfs left them
	cp "$mnt/boot/vmlinuz-$abi" "$out/vmlinuz"
	cp "$mnt/boot/initrd.img-$abi" "$out/initrd-$1.img"
}

param=auto_compact param_value=N
cmdline="root=/dev/vda ro console=ttyS0 oops=panic panic=-1 watchdog_thresh=30 zswap.enabled=1 zswap.zpool=zsmalloc_mod"
mount_disk
log=$out/chroot-install.log
: >"$log"
# What the administrator configures: the boot loader's command line (here
# /etc/kernel/cmdline, read by the hook's "auto" mode; qemu boots with the
# same line) and the module's options.
echo "$cmdline" >"$mnt/etc/kernel/cmdline"
echo "options zsmalloc_mod $param=0" >"$mnt/etc/modprobe.d/zsmalloc_mod.conf"
# Swap: a file, as a small installation would have it.
fallocate -l 1G "$mnt/swapfile"
chmod 600 "$mnt/swapfile"
mkswap -q "$mnt/swapfile"
printf '/swapfile\tnone\tswap\tsw\t0\t0\n' >>"$mnt/etc/fstab"
# The check: a oneshot unit once multi-user.target is reached.
install -m 0755 "$out/zsmod-verify" "$mnt/usr/local/bin/zsmod-verify"
install -D -m 0755 vm/guest-debian.sh "$mnt/usr/local/sbin/zsmod-guest-check"
cat >"$mnt/etc/systemd/system/zsmod-check.service" <<'EOF'
[Unit]
Description=zsmalloc_mod check of vm/debian-check.sh (results on ttyS1, then poweroff)
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/zsmod-guest-check
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
mkdir -p "$mnt/etc/systemd/system/multi-user.target.wants"
ln -sf ../zsmod-check.service "$mnt/etc/systemd/system/multi-user.target.wants/zsmod-check.service"
guest_conf() { # guest_conf MODE
	cat >"$mnt/etc/zsmod-check.conf" <<EOF
MODE=$1
VERSION=$ver
ABI=$abi
RT=$rt
PARAM=$param
PARAM_VALUE=$param_value
MEMMAX=64M
WORKMIB=128
EOF
}
guest_conf package
cp "$old_deb" "$new_deb" "$mnt/root/"

t0=$SECONDS
in_chroot "$log" apt-get install -y --no-install-recommends "./root/$(basename "$old_deb")" ||
	die "apt install ./$(basename "$old_deb") failed (log $log)"
say "dkms status after installing $old: $(dkms_status | paste -sd';')"
check "apt install $old: dkms built and installed zsmalloc_mod/$old for $abi" \
	grep -q "^zsmalloc_mod/$old, $abi, x86_64: installed" <(dkms_status)
in_chroot "$log" apt-get install -y --no-install-recommends "./root/$(basename "$new_deb")" ||
	die "apt install ./$(basename "$new_deb") (upgrade) failed (log $log)"
say "dkms status after the upgrade to $ver: $(dkms_status | paste -sd';')"
check "upgrade $old -> $ver: zsmalloc_mod/$ver installed for $abi" \
	grep -q "^zsmalloc_mod/$ver, $abi, x86_64: installed" <(dkms_status)
no_old() {
	! chroot_run "$mnt" dkms status "zsmalloc_mod/$old" 2>/dev/null | grep -q . &&
		[ ! -e "$mnt/usr/src/zsmalloc_mod-$old" ]
}
check "upgrade: no zsmalloc_mod/$old left (dkms status, /usr/src)" no_old
check "the package's postinst put zsmalloc_mod in initrd.img-$abi (hook, auto mode)" has_module "$abi"
grep -E 'zsmalloc_mod|update-initramfs|Sign|sign' "$log" | grep -v '^+' | awk '!seen[$0]++' | head -20 | sed 's/^/# install: /'
# A second kernel ABI, installed after the package: the kernel's postinst
# runs DKMS's hook (/etc/kernel/postinst.d/dkms) before initramfs-tools'.
in_chroot "$log" apt-get install -y --no-install-recommends "linux-image-$rt-unsigned" "linux-headers-$rt" ||
	die "installing the $rt kernel failed (log $log)"
say "dkms status after installing $rt: $(dkms_status | paste -sd';')"
check "a second kernel ($rt) got zsmalloc_mod/$ver from DKMS unasked" \
	grep -q "^zsmalloc_mod/$ver, $rt, x86_64: installed" <(dkms_status)
check "initrd.img-$rt holds zsmalloc_mod too" has_module "$rt"
check "the modprobe.d file is in the initramfs" in_initrd "$abi" 'etc/modprobe\.d/zsmalloc_mod\.conf$'

# The hook's switch: "no" keeps the module out even with the command line
# naming it; back to "auto", it is in again (on the -rt kernel's initramfs,
# so that the one booted below stays as the package's postinst made it).
conf=$mnt/etc/zsmalloc_mod/initramfs.conf
if [ -f "$conf" ]; then
	cp -p "$conf" "$out/initramfs.conf.orig"
	sed -i 's/^ZSMALLOC_MOD_INITRAMFS=.*/ZSMALLOC_MOD_INITRAMFS=no/' "$conf"
	in_chroot "$log" update-initramfs -u -k "$rt" || die "update-initramfs -k $rt failed (log $log)"
	check "ZSMALLOC_MOD_INITRAMFS=no: update-initramfs leaves zsmalloc_mod out of initrd.img-$rt" no_module "$rt"
	cp -p "$out/initramfs.conf.orig" "$conf"
	in_chroot "$log" update-initramfs -u -k "$rt" || die "update-initramfs -k $rt failed (log $log)"
	check "ZSMALLOC_MOD_INITRAMFS=auto again: zsmalloc_mod is back in initrd.img-$rt" has_module "$rt"
else
	notok "the package installed no /etc/zsmalloc_mod/initramfs.conf"
fi
# DKMS cleans before and after each build; its log of the install says
# "(bad exit status: N)" for any step that failed.
clean_dkms_log() {
	if grep -n 'bad exit status' "$log" | sed 's/^/# /'; then return 1; fi
}
check "DKMS reported no failed step (no 'bad exit status' in $(basename "$log"))" clean_dkms_log
say "chroot install, upgrade, second kernel: $((SECONDS - t0)) s"
copy_boot package
umount_disk

# --- boots --------------------------------------------------------------------------
# boot NAME: the stock kernel on the disk with $out/initrd-NAME.img; the
# guest's TAP from ttyS1 into results-NAME.tap, its console into
# console-NAME.log; prints the TAP lines, judges splats and completeness.
boot() {
	local name=$1 con=$out/console-$1.log res=$out/results-$1.tap t rc=0
	rm -f "$con" "$res"
	say "boot $name: $abi, -accel tcg, 2 vCPUs, 1536 MiB, console $con"
	t=$SECONDS
	# shellcheck disable=SC2054 # the commas belong to qemu arguments
	timeout -k 10 "$timeout" qemu-system-x86_64 -accel tcg,thread=single -cpu qemu64,-cx16 \
		-m 1536M -smp 2 -nodefaults -display none -no-reboot \
		-kernel "$out/vmlinuz" -initrd "$out/initrd-$name.img" -append "$cmdline" \
		-drive "file=$disk,format=raw,if=virtio,cache=unsafe" \
		-serial "file:$con" -serial "file:$res" </dev/null || rc=$?
	t=$((SECONDS - t))
	local plan
	plan=$(tr -d '\r' <"$res" 2>/dev/null | grep -E '^1\.\.[0-9]+$' | tail -1 || true)
	# The guest's lines, renumbered into this script's stream.
	tr -d '\r' <"$res" 2>/dev/null | grep -E '^(ok|not ok) |^# ' |
		sed "s/^ok [0-9]* - /ok - [$name] /; s/^not ok [0-9]* - /not ok - [$name] /" \
		>"$out/results-$name.txt" || true
	while IFS= read -r l; do
		case $l in
		'ok - '*) ok "${l#ok - }" ;;
		'not ok - '*) notok "${l#not ok - }" ;;
		*) echo "$l" ;;
		esac
	done <"$out/results-$name.txt"
	check "[$name] qemu powered off by the guest within ${timeout} s (exit $rc after $t s)" [ "$rc" = 0 ]
	check "[$name] the guest's results are complete (${plan:-no plan})" \
		bash -c "[ -n '$plan' ] && grep -q '^# done: ' '$out/results-$name.txt'"
	local splats=$out/splats-$name.txt
	if "$here/splats.sh" "$con" >"$splats"; then
		ok "[$name] no kernel splat in the console log"
	else
		notok "[$name] kernel splats in $con: $(head -3 "$splats" | paste -sd' ')"
	fi
	say "boot $name: $t s wall, qemu start to poweroff"
	secs[$name]=$t
}
declare -A secs

boot package

# --- 4. purge, boot 2 ----------------------------------------------------------------
mount_disk
log=$out/chroot-purge.log
: >"$log"
guest_conf purged
in_chroot "$log" apt-get purge -y zsmalloc-mod-dkms || die "apt purge failed (log $log)"
grep -E 'zsmalloc_mod|update-initramfs|dkms' "$log" | grep -v '^+' | awk '!seen[$0]++' | head -10 | sed 's/^/# purge: /'
check "apt purge: dkms lists no zsmalloc_mod" bash -c "[ -z \"\$(chroot '$mnt' dkms status zsmalloc_mod 2>/dev/null)\" ]"
nothing_left() {
	local f
	for f in "$mnt"/usr/src/zsmalloc_mod-* "$mnt"/usr/share/initramfs-tools/hooks/zsmalloc_mod \
		"$mnt"/etc/zsmalloc_mod "$mnt"/lib/modules/*/updates/dkms/zsmalloc_mod.ko* \
		"$mnt"/var/lib/dkms/zsmalloc_mod; do
		if [ -e "$f" ]; then echo "# left after purge: ${f#"$mnt"}"; return 1; fi
	done
}
check "apt purge: no sources, hook, configuration file or module left" nothing_left
check "apt purge: dpkg forgot the package" bash -c "! chroot '$mnt' dpkg -s zsmalloc-mod-dkms >/dev/null 2>&1"
for k in "$abi" "$rt"; do
	check "apt purge: initrd.img-$k no longer holds zsmalloc_mod" no_module "$k"
done
copy_boot purged
umount_disk
boot purged

say "boot times: with the package ${secs[package]:-?} s, after purge ${secs[purged]:-?} s; whole check $((SECONDS - t_start)) s"
echo "1..$n"
if [ "$fails" -gt 0 ]; then
	echo "# debian-check: FAIL ($fails of $n failed; logs in $out)"
	exit 1
fi
echo "# debian-check: PASS ($n tests; logs in $out)"
