#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the newest Debian 6.12 kernel ABI (e.g. 6.12.118+deb12-amd64) for
# which apt knows both linux-headers-<abi> and linux-image-<abi>-unsigned.
set -euo pipefail
heads=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb[0-9]+-amd64$' |
	sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb[0-9]*-amd64\) .*/\1/p')
imgs=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64-unsigned$' |
	sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb[0-9]*-amd64\)-unsigned .*/\1/p')
abi=$(comm -12 <(echo "$heads" | sort) <(echo "$imgs" | sort) | sort -V | tail -1)
[ -n "$abi" ] || { echo "abi: no 6.12 headers+image pair in apt" >&2; exit 1; }
echo "$abi"
