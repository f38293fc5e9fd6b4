#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side: run selftest binaries as one TAP stream, kselftest-runner style:
# a top-level plan, one result per binary, each binary's own TAP nested as
# "# " comment lines. Exit codes follow kselftest: 0 pass, 4 skip, else fail.
#
# usage: run_tests.sh [-t SECONDS] TEST[:ARGS]...   (ARGS comma-separated,
#        e.g. roundtrip:-b,zbud); binaries are looked up next to this script.
#
# No set -euo pipefail: a test that fails is a "not ok" result and the next
# one still runs; its status is read from /tmp/.rc, not from the pipeline.
. /etc/guest-lib.sh
dir=$(dirname "$0")
limit=300
[ "$1" = -t ] && { limit=$2; shift 2; }

tap_plan $#
for t in "$@"; do
	name=${t%%:*}
	args=
	[ "$name" != "$t" ] && args=$(echo "${t#*:}" | tr ',' ' ')
	label="$name${args:+ $args}"
	start=$(date +%s)
	# shellcheck disable=SC2086
	{ timeout "$limit" "$dir/$name" $args 2>&1; echo $? >/tmp/.rc; } | sed 's/^/# /'
	rc=$(cat /tmp/.rc)
	secs=$(($(date +%s) - start))
	case $rc in
	0) tap_ok "$label # ${secs}s" ;;
	4) tap_ok "$label # SKIP" ;;
	124|143) tap_nok "$label # TIMEOUT ${limit}s" ;;
	*) tap_nok "$label # exit=$rc ${secs}s" ;;
	esac
done
