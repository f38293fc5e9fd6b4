#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The short stress run for `make check` (scripts/check.sh): every phase of
# stress/guest-stress.sh (storm, rmmod refusal, zpool switching races with
# cpu hotplug, module load/unload under zswap, teardown leak checks; fault
# injection is skipped on the stock kernel) with a 45 s budget for the timed
# phases: about 2.5 minutes of guest time, 3 to 4 minutes of wall time here.
#
# usage: stress/check-short.sh [--ko zsmalloc_mod.ko] [more stress/run.sh options]
# Exit 0 = pass. Logs: out/stress/short.{log,tap}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/run.sh" --kernel stock --secs 45 --writers 4 --mib 32 \
	--log "$here/../out/stress/short.log" "$@"
