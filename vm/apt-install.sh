#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages named that are missing, idempotently: the one
# apt helper of the project (vm/deps.sh, scripts/docs.sh and
# scripts/dkms-check.sh use it). Prints nothing when all are there; the
# package index is refreshed only when something must be installed.
#
# usage: vm/apt-install.sh PACKAGE...
# Exit: 0 when every package is installed; else apt-get's log tail on stderr.
set -euo pipefail

missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0

echo "apt-install: installing ${missing[*]}" >&2
log=$(mktemp /tmp/zsmod-apt.XXXXXX)
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
	>"$log" 2>&1; then
	tail -20 "$log" >&2
	exit 1
fi
rm -f "$log"
