#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module against Debian's other 6.12 flavours (vm/deps.sh installs
# their headers):
#   rt-amd64     PREEMPT_RT: built with W=1 (any warning fails) into
#                OUT/build-rt, for the RT guest stages of scripts/check.sh
#   cloud-amd64  built without zpool and zswap: the build must refuse with
#                Kbuild's message, and dkms.conf's BUILD_EXCLUSIVE_CONFIG
#                must name what the flavour lacks, so DKMS skips it
#
# usage: scripts/flavours.sh OUT
# Exit: 0 when both behave as above.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${1:?usage: scripts/flavours.sh OUT}
mkdir -p "$out"
rc=0

rt=$(./vm/abi.sh rt-amd64)
grep -qx 'CONFIG_PREEMPT_RT=y' "/usr/src/linux-headers-$rt/.config" || {
	echo "flavours: $rt is not a PREEMPT_RT kernel" >&2; rc=1; }
if ./vm/build-modules.sh "$out/build-rt" "/usr/src/linux-headers-$rt" \
	"$out/build-rt.log" W=1 >/dev/null; then
	echo "flavours: $rt: built with W=1, $(modinfo -F vermagic "$out/build-rt/zsmalloc_mod.ko")"
else
	echo "flavours: $rt: build failed ($out/build-rt.log)" >&2
	rc=1
fi

cloud=$(./vm/abi.sh cloud-amd64)
cfg=/usr/src/linux-headers-$cloud/.config
if grep -qx 'CONFIG_ZPOOL=y' "$cfg"; then
	# the day Debian adds zswap to -cloud, this is one more flavour to test
	echo "flavours: $cloud now has CONFIG_ZPOOL: build and test it" >&2
	rc=1
elif make -s KDIR="/usr/src/linux-headers-$cloud" modules >"$out/build-cloud.log" 2>&1; then
	echo "flavours: $cloud: built without CONFIG_ZPOOL" >&2
	rc=1
elif ! grep -q 'no CONFIG_ZPOOL' "$out/build-cloud.log"; then
	echo "flavours: $cloud: failed without Kbuild's message ($out/build-cloud.log)" >&2
	rc=1
else
	echo "flavours: $cloud: no CONFIG_ZPOOL/CONFIG_ZSWAP, the build refuses as it should"
fi
for c in CONFIG_ZPOOL CONFIG_ZSWAP; do
	grep -q "^BUILD_EXCLUSIVE_CONFIG=.*\b$c\b" dkms.conf || {
		echo "flavours: dkms.conf does not require $c" >&2; rc=1; }
done
exit $rc
