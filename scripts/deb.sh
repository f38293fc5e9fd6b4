#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make deb`: build the Debian package zsmalloc-mod-dkms with Debian's own
# tools (dpkg-buildpackage, debhelper, dh-dkms) and check it with lintian.
#
#  1. install debhelper, dh-dkms, lintian when missing (vm/apt-install.sh)
#  2. stage the work tree's files (tracked or untracked, not ignored) as
#     OUT/zsmalloc-mod-<version>/: dpkg-buildpackage writes next to the
#     tree, so its products land in OUT, and out/ and .git stay out of the
#     source package
#  3. dpkg-buildpackage -us -uc (source + binary); lintian on the .changes:
#     any error or warning fails (the remaining tags are overridden, with the
#     reason, in debian/*.lintian-overrides)
#
# usage: scripts/deb.sh [--out DIR] [--version VERSION]
#   --out DIR          where the tree is staged and the products go (default
#                      out/deb); the .deb's path is printed on stdout
#   --version VERSION  build as VERSION instead of debian/changelog's, with a
#                      changelog entry of its own (the upgrade test's older
#                      package); the work tree is not touched
# Exit status: 0 when the package was built and lintian is clean.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

say() { echo "deb: $*" >&2; }
die() { echo "deb: ERROR: $*" >&2; exit 1; }

out=$top/out/deb want=
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--version) want=$2; shift ;;
	*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
	shift
done

# --- 1. tools ---------------------------------------------------------------
./vm/apt-install.sh dpkg-dev debhelper dh-dkms lintian fakeroot ||
	die "installing the packaging tools failed"

# --- 2. stage ---------------------------------------------------------------
ver=${want:-$(./scripts/version.sh)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tree=$out/zsmalloc-mod-$ver
rm -rf "$tree" "$out"/zsmalloc-mod*_"$ver"[._]*
mkdir -p "$tree"
./scripts/stage-sources.sh "$tree"
if [ -n "$want" ]; then
	{
		printf 'zsmalloc-mod (%s) unstable; urgency=medium\n\n' "$want"
		printf '  * Built as %s by scripts/deb.sh --version.\n\n' "$want"
		printf ' -- %s  %s\n\n' "$(sed -n 's/^Maintainer: //p' debian/control)" "$(date -R)"
		cat debian/changelog
	} >"$tree/debian/changelog"
fi

# --- 3. build, lintian --------------------------------------------------------
say "dpkg-buildpackage -us -uc in $tree"
(cd "$tree" && dpkg-buildpackage -us -uc) >"$out/build-$ver.log" 2>&1 ||
	{ tail -30 "$out/build-$ver.log" >&2; die "dpkg-buildpackage failed (log $out/build-$ver.log)"; }
deb=$out/zsmalloc-mod-dkms_${ver}_all.deb
[ -f "$deb" ] || die "no $deb"
changes=$(ls "$out"/zsmalloc-mod_"$ver"_*.changes)
# --fail-on warning: errors and warnings fail; info and pedantic tags are
# shown, as are the overridden ones.
if ! lintian --fail-on error,warning --display-info --show-overrides \
	"$changes" >"$out/lintian-$ver.log" 2>&1; then
	cat "$out/lintian-$ver.log" >&2
	die "lintian found problems (log $out/lintian-$ver.log)"
fi
sed 's/^/deb: lintian: /' "$out/lintian-$ver.log" >&2
say "built $deb"
echo "$deb"
