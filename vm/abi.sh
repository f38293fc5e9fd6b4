#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the newest Debian 6.12 kernel ABI of a flavour (e.g.
# 6.12.118+deb12-amd64) for which apt knows both linux-headers-<abi> and
# linux-image-<abi>-unsigned.
#
# usage: vm/abi.sh [FLAVOUR]   amd64 (default), cloud-amd64 or rt-amd64
set -euo pipefail
fl=${1:-amd64}
case $fl in
amd64 | cloud-amd64 | rt-amd64) ;;
*) echo "abi: unknown flavour $fl" >&2; exit 2 ;;
esac
re="6\.12\.[0-9]+\+deb[0-9]+-${fl}"
heads=$(apt-cache search --names-only "^linux-headers-${re}\$" |
	sed -En "s/^linux-headers-(${re}) .*/\1/p")
imgs=$(apt-cache search --names-only "^linux-image-${re}-unsigned\$" |
	sed -En "s/^linux-image-(${re})-unsigned .*/\1/p")
abi=$(comm -12 <(echo "$heads" | sort) <(echo "$imgs" | sort) | sort -V | tail -1)
[ -n "$abi" ] || { echo "abi: no 6.12 $fl headers+image pair in apt" >&2; exit 1; }
echo "$abi"
