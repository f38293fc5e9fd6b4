#!/bin/bash
# Install what zsmalloc_mod's build, tests and guests need, idempotently.
# Prints nothing but errors when everything is already there.
# The newest 6.12 ABI for which both headers and unsigned image exist is
# resolved from apt metadata (see vm/abi.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

want_tools="qemu-system-x86 qemu-utils busybox-static cpio xz-utils zstd kmod sparse \
	build-essential bc bison flex libelf-dev libssl-dev rsync python3 dwarves \
	gnuplot-nox liblzo2-dev"

missing=()
for p in $want_tools; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done

updated=
apt_update() {
	[ -n "$updated" ] && return
	apt-get update -q >/dev/null
	updated=1
}

abi=$("$here/abi.sh" 2>/dev/null || true)
if [ -z "$abi" ]; then
	apt_update
	abi=$("$here/abi.sh")
fi
for p in "linux-headers-$abi" "linux-image-$abi-unsigned" linux-source-6.12; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	apt_update
	echo "deps: installing ${missing[*]}" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/tmp/zsmod-apt.log 2>&1 || {
		tail -20 /tmp/zsmod-apt.log >&2
		exit 1
	}
fi
echo "$abi"
