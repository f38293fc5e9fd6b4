#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check dkms.conf for real: `dkms add` + `dkms build -k <abi>` of the work
# tree against the stock Debian 6.12 headers, then `dkms remove` again.
#
#  1. install dkms and linux-headers-<abi> from apt when missing; <abi> is
#     vm/abi.sh's newest Debian 6.12 ABI (or $1)
#  2. stage the work tree's files (tracked or untracked, not ignored) as
#     /usr/src/zsmalloc_mod-<version>-dkmscheck: a version of its own, so an
#     installed zsmalloc_mod/<version> is never touched
#  3. dkms add, dkms build -k <abi>; check the .ko DKMS built: its name,
#     vermagic (<abi>), alias zpool-zsmalloc_mod
#  4. dkms remove --all and delete the staged source, also on failure
#
# usage: scripts/dkms-check.sh [ABI]
# Exit status: 0 when the build succeeded and the module checks out.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

say() { echo "dkms-check: $*"; }
die() { echo "dkms-check: FAIL: $*" >&2; exit 1; }


# --- 1. packages ------------------------------------------------------------
abi=${1:-}
if [ -z "$abi" ]; then
	abi=$(./vm/deps.sh) || die "no 6.12 ABI"
fi
./vm/apt-install.sh dkms "linux-headers-$abi" || die "installing dkms failed"
kdir=/usr/src/linux-headers-$abi
[ -f "$kdir/.config" ] || die "no $kdir/.config"

name=$(sed -n 's/^PACKAGE_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' dkms.conf)
[ "$name" = zsmalloc_mod ] || die "dkms.conf: PACKAGE_NAME is '$name'"
grep -q '^PACKAGE_VERSION="#MODULE_VERSION#"$' dkms.conf ||
	die "dkms.conf: PACKAGE_VERSION is not the placeholder #MODULE_VERSION# (the version is debian/changelog's)"
ver=$(./scripts/version.sh) || die "no version"
cver=$ver-dkmscheck
src=/usr/src/$name-$cver
say "$name $ver (checked as $cver) for $abi, dkms $(dkms --version | sed 's/^dkms-//')"

# One check at a time on this machine: both would use the same DKMS tree.
mkdir -p /var/lock
exec 9>/var/lock/zsmalloc_mod-dkms-check.lock
flock -n 9 || { say "another dkms check is running; waiting for it"; flock 9; }

# --- 4. cleanup, whatever happens -------------------------------------------
cleanup() {
	if dkms status "$name/$cver" 2>/dev/null | grep -q .; then
		dkms remove "$name/$cver" --all >/tmp/zsmod-dkms-remove.log 2>&1 ||
			{ cat /tmp/zsmod-dkms-remove.log >&2; echo "dkms-check: dkms remove failed" >&2; }
	fi
	rm -rf "$src" "/var/lib/dkms/$name/$cver"
	rmdir "/var/lib/dkms/$name" 2>/dev/null || true
}
trap cleanup EXIT
cleanup

# --- 2. stage the sources ---------------------------------------------------
mkdir -p "$src"
./scripts/stage-sources.sh "$src"
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$cver\"/" "$src/dkms.conf"

# --- 3. add, build, check -----------------------------------------------------
rc=0
dkms add "$name/$cver" >/tmp/zsmod-dkms-add.log 2>&1 ||
	{ cat /tmp/zsmod-dkms-add.log >&2; die "dkms add failed"; }
say "dkms add: ok"
t0=$SECONDS
if dkms build "$name/$cver" -k "$abi" >/tmp/zsmod-dkms-build.log 2>&1; then
	say "dkms build -k $abi: ok ($((SECONDS - t0)) s)"
else
	rc=$?
	cat /tmp/zsmod-dkms-build.log >&2
	log=/var/lib/dkms/$name/$cver/build/make.log
	[ -f "$log" ] && tail -40 "$log" >&2
	die "dkms build -k $abi failed with status $rc"
fi
dkms status "$name/$cver" 2>/dev/null | sed 's/^/dkms-check: status: /'

ko=$(find "/var/lib/dkms/$name/$cver/$abi" -name 'zsmalloc_mod.ko*' | head -1)
[ -n "$ko" ] || die "no zsmalloc_mod.ko under /var/lib/dkms/$name/$cver/$abi"
vermagic=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
alias=$(modinfo -F alias "$ko")
say "built $ko: vermagic $vermagic, alias $alias"
[ "$vermagic" = "$abi" ] || die "vermagic $vermagic is not $abi"
[ "$alias" = zpool-zsmalloc_mod ] || die "alias is '$alias', not zpool-zsmalloc_mod"
if grep -q 'warning:' "/var/lib/dkms/$name/$cver/build/make.log" 2>/dev/null; then
	grep 'warning:' "/var/lib/dkms/$name/$cver/build/make.log" | head -20 >&2
	die "compiler warnings in the DKMS build"
fi
say "PASS"
