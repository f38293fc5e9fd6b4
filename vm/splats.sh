#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel splats of a console log: its lines that match a pattern of
# vm/splat-patterns (the one list of them), as "LINE: TEXT", carriage returns
# removed. Used by vm/verdict.sh, kunit/run.sh and kunit/kunitpy.sh.
#
# usage: vm/splats.sh LOG
#        vm/splats.sh --report LOG OUT: the splats into OUT, and on stdout a
#        verdict line with the first 20 of them (same exit status)
# Env: VERDICT_EXTRA='regex' adds a pattern, VERDICT_IGNORE='regex' forgives
#      the lines it matches (both extended regular expressions).
# Exit: 0 no splat, 1 splats printed, 2 error (no log, no pattern).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
patterns=$here/splat-patterns

if [ "${1:-}" = --report ]; then
	log=${2:?usage: splats.sh --report LOG OUT} report=${3:?usage: splats.sh --report LOG OUT}
	rc=0
	"$0" "$log" >"$report" || rc=$?
	case $rc in
	0) ;;
	1)
		echo "kernel splats in $log:"
		head -20 "$report" | sed 's/^/    /' ;;
	*) echo "vm/splats.sh could not judge $log (status $rc)" ;;
	esac
	exit $rc
fi
log=${1:?usage: splats.sh LOG}
[ -r "$log" ] || { echo "splats: cannot read $log" >&2; exit 2; }
[ -r "$patterns" ] || { echo "splats: cannot read $patterns" >&2; exit 2; }
# One alternation of the file's patterns: comments and blank lines dropped.
splat=$(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$patterns" | paste -sd'|' -)
[ -n "$splat" ] || { echo "splats: no pattern in $patterns" >&2; exit 2; }
if [ -n "${VERDICT_EXTRA:-}" ]; then splat+="|$VERDICT_EXTRA"; fi

# grep: 0 lines found, 1 none, 2 error (a bad pattern must not pass a log).
rc=0
hits=$(tr -d '\r' <"$log" | grep -nE -e "$splat") || rc=$?
if [ $rc = 0 ] && [ -n "${VERDICT_IGNORE:-}" ]; then
	hits=$(printf '%s\n' "$hits" | grep -vE -e "$VERDICT_IGNORE") || rc=$?
fi
case $rc in
0) printf '%s\n' "$hits"; exit 1 ;;
1) exit 0 ;;
*) echo "splats: grep failed (status $rc): a bad pattern in $patterns or VERDICT_EXTRA/VERDICT_IGNORE?" >&2; exit 2 ;;
esac
