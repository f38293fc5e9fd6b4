#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what zsmalloc_mod's build, tests and guests need, idempotently.
# Prints nothing but errors when everything is already there.
# The newest 6.12 ABI for which both headers and unsigned image exist is
# resolved from apt metadata (see vm/abi.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

want_tools="qemu-system-x86 qemu-utils busybox-static cpio xz-utils zstd kmod sparse \
	build-essential bc bison flex libelf-dev libssl-dev rsync python3 dwarves \
	gnuplot-nox liblzo2-dev"

# The ABI needs the package index: refresh it only when it does not tell.
abi=$("$here/abi.sh" 2>/dev/null || true)
if [ -z "$abi" ]; then
	apt-get update -q >/dev/null
	abi=$("$here/abi.sh")
fi
# The flavours besides the generic one: -rt (PREEMPT_RT) is built for and
# booted, -cloud built for (see scripts/flavours.sh).
rt=$("$here/abi.sh" rt-amd64)
cloud=$("$here/abi.sh" cloud-amd64)
# shellcheck disable=SC2086 # the list is words
"$here/apt-install.sh" $want_tools "linux-headers-$abi" "linux-image-$abi-unsigned" \
	linux-source-6.12 "linux-headers-$rt" "linux-image-$rt-unsigned" \
	"linux-headers-$cloud"
echo "$abi"
