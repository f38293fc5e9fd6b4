#!/bin/bash
# Self-test of vm/verdict.sh on synthetic logs: a clean run passes, and each
# failure it must catch does fail it. Run by vm/check.sh before any guest.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

boot=$'[    0.000000] Linux version 6.12\r\n[    1.000000] Run /init as init process\r\n'
tap_ok=$'TAP version 13\r\n1..2\r\n# 1..1\r\n# ok 1 inner\r\nok 1 a\r\nok 2 b # SKIP\r\n# guest-init: exit 0\r\n'
fails=0

# case NAME EXPECTED(0|1) CONSOLE TAP [verdict options]
case_() {
	local name=$1 want=$2 rc
	printf '%s' "$3" >"$tmp/c.log"
	printf '%s' "$4" >"$tmp/c.tap"
	shift 4
	"$here/verdict.sh" "$@" "$tmp/c.log" "$tmp/c.tap" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name (verdict exit $rc, want $want)"
		sed 's/^/    /' "$tmp/out"
		fails=$((fails + 1))
	fi
}

case_ "clean run passes" 0 "$boot" "$tap_ok"
case_ "top-level not ok" 1 "$boot" "${tap_ok/ok 1 a/not ok 1 a}"
case_ "nested not ok" 1 "$boot" "${tap_ok/\# ok 1 inner/\# not ok 1 inner}"
case_ "short plan" 1 "$boot" "${tap_ok/1..2/1..3}"
case_ "missing plan" 1 "$boot" "${tap_ok/1..2/}"
case_ "bail out" 1 "$boot" "Bail out! no swap"$'\r\n'"# guest-init: exit 1"$'\r\n'
case_ "script exit status" 1 "$boot" "${tap_ok/exit 0/exit 3}"
case_ "script never finished" 1 "$boot" "${tap_ok/\# guest-init: exit 0/}"
case_ "timeout" 1 "$boot" "$tap_ok" --timed-out 60
for splat in "BUG: KASAN: slab-use-after-free in zsmod_free+0x1/0x2" \
	"WARNING: CPU: 1 PID: 2 at mm/zsmalloc_mod.c:10 f+0x1/0x2" \
	"Oops: general protection fault, probably for non-canonical address" \
	"WARNING: possible circular locking dependency detected" \
	"INFO: task kworker/0:1:12 blocked for more than 120 seconds." \
	"Kernel panic - not syncing: Fatal exception" \
	"UBSAN: array-index-out-of-bounds in zsmalloc_mod.c:1:2" \
	"BUG zsmod_handle (Tainted: G           OE     ): Poison overwritten" \
	"BUG: KFENCE: use-after-free read in zsmod_free+0x1/0x2" \
	"pagealloc: memory corruption"; do
	# Splats may share a line with other output: match anywhere.
	case_ "splat: ${splat%% in *}" 1 "$boot""garbage[  5.1] $splat"$'\r\n' "$tap_ok"
done
case_ "--no-tap ignores a missing plan" 0 "$boot" $'# guest-init: exit 0\r\n' --no-tap
VERDICT_IGNORE='WARNING: CPU: .* at lib/expected\.c' \
	case_ "VERDICT_IGNORE forgives" 0 "$boot""[ 2.0] WARNING: CPU: 0 PID: 1 at lib/expected.c:1"$'\r\n' "$tap_ok"

[ $fails = 0 ] && echo "verdict-test: all cases behave" || echo "verdict-test: $fails case(s) wrong"
exit $((fails > 0))
