#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make stress DURATION=S`: the long reliability run. stress/run.sh on the
# stock Debian 6.12 kernel with S seconds (default 600) for the timed phases,
# then the same on the KUnit debug kernel (KASAN, lockdep, DEBUG_VM, fault
# injection: adds the fault injection phase), built by kunit/build-kernel.sh
# if it is not there yet. Each guest prints its counts as TAP comments.
#
# usage: scripts/stress.sh [DURATION] [--no-debug] [--debug-only]
# Env: STRESS_WRITERS, STRESS_MIB (defaults: see stress/run.sh), STRESS_KCFLAGS.
# Logs: out/stress/{stock,debug}-<S>.{log,tap}
#
# No set -e: a failed run is recorded, the next one still runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=600 stock=1 debug=1
for a in "$@"; do
	case $a in
	--no-debug) debug= ;;
	--debug-only) stock= ;;
	[0-9]*) secs=$a ;;
	'') ;;
	*) echo "usage: $0 [DURATION] [--no-debug] [--debug-only]" >&2; exit 2 ;;
	esac
done
opts=(--secs "$secs" ${STRESS_WRITERS:+--writers "$STRESS_WRITERS"} ${STRESS_MIB:+--mib "$STRESS_MIB"})
rc=0 summary=()
run() {
	local t0=$SECONDS r=0
	echo "=== stress on the $1 kernel, $secs s"
	"$top/stress/run.sh" --kernel "$1" "${opts[@]}" || r=$?
	summary+=("$(printf '%-8s %-5s %5ds' "$1" "$([ $r = 0 ] && echo PASS || echo FAIL)" $((SECONDS - t0)))")
	[ $r = 0 ] || rc=1
}
[ -n "$stock" ] && run stock
[ -n "$debug" ] && run debug
echo "=== stress summary"
printf '%s\n' "${summary[@]}"
exit $rc
