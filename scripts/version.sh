#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print zsmalloc_mod's version: the upstream part of the newest entry of
# debian/changelog, the one place the version is written (dh_dkms copies it
# into the packaged dkms.conf, Kbuild into MODULE_VERSION, scripts/deb.sh
# into the package's file name).
#
# usage: scripts/version.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
v=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$top/debian/changelog" | sed 's/-[^-]*$//')
[ -n "$v" ] || { echo "version: no version in $top/debian/changelog" >&2; exit 1; }
echo "$v"
