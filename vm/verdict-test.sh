#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of the run judge (vm/verdict.sh, vm/splats.sh, vm/splat-patterns,
# and vm/run-guest.sh's handling of qemu's exit) on synthetic logs: a clean
# run passes, and every failure it must catch does fail it, for the reason
# it must give. Run by scripts/check.sh before any guest ("harness self-test").
#
# Every pattern of vm/splat-patterns must have a sample below that it alone
# matches, so that each pattern is shown to catch something on its own; the
# samples are also fed to busybox grep the way stress/guest-stress.sh reads
# the patterns in the guest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

crlf() { local l; for l in "$@"; do printf '%s\r\n' "$l"; done; }

# A clean console (with lines that look alarming but are not splats) and a
# clean TAP stream: nested kselftest streams (numbered from 1 each) and a
# KUnit suite's KTAP with parameterised cases, as vm/guest-check.sh and
# kunit/guest-kunit.sh print them.
boot=$(crlf '[    0.000000] Linux version 6.12' \
	'[    0.000000] Kernel command line: console=ttyS0 oops=panic panic=-1 slub_debug=FZPU page_poison=1' \
	'[    0.100000] kasan: KernelAddressSanitizer initialized (generic)' \
	'[    0.200000] kfence: initialized - using 2097152 bytes for 255 objects' \
	'[    0.300000] NMI watchdog: Perf NMI watchdog permanently disabled' \
	'[    0.400000] FAULT_INJECTION: forcing a failure.' \
	'[    1.000000] Run /init as init process')$'\n'
tap_ok=$(crlf 'TAP version 13' '1..3' \
	'# TAP version 13' '# 1..2' '# ok 1 inner a' '# ok 2 inner b' '# # Totals: pass:2' \
	'ok 1 first # 3s' \
	'# TAP version 13' '# 1..1' '# ok 1 inner c' \
	'ok 2 second # 4s' \
	'# | KTAP version 1' '# | 1..1' \
	'# |     KTAP version 1' '# |     # Subtest: suite' '# |     1..2' \
	'# |         KTAP version 1' '# |         # Subtest: test_param' \
	'# |         ok 1 size 32' '# |         ok 2 size 64' \
	'# |     ok 1 test_param' \
	'# |         KTAP version 1' '# |         # Subtest: test_param2' \
	'# |         ok 1 size 32' \
	'# |     ok 2 test_param2' \
	'# | ok 1 suite' \
	'ok 3 suite' \
	'# guest-init: exit 0')$'\n'

report() {	# report NAME WANT RC WHY OUTPUT-FILE
	local name=$1 want=$2 rc=$3 why=$4 out=$5
	if [ "$rc" = "$want" ] && { [ -z "$why" ] || grep -qF -e "$why" "$out"; }; then
		echo "ok - $name"
	else
		echo "not ok - $name (exit $rc, want $want${why:+, saying \"$why\"})"
		sed 's/^/    /' "$out"
		fails=$((fails + 1))
	fi
}

# case_ NAME EXPECTED-EXIT WHY CONSOLE TAP [verdict options]: WHY, when not
# empty, must appear in the verdict's output (the failure is for that reason).
case_() {
	local name=$1 want=$2 why=$3 rc=0
	printf '%s' "$4" >"$tmp/c.log"
	printf '%s' "$5" >"$tmp/c.tap"
	shift 5
	"$here/verdict.sh" "$@" "$tmp/c.log" "$tmp/c.tap" >"$tmp/out" 2>&1 || rc=$?
	report "$name" "$want" "$rc" "$why" "$tmp/out"
}
sub() { printf '%s' "${1/"$2"/"$3"}"; }	# sub TEXT OLD NEW: the first OLD replaced

case_ "clean run passes" 0 "PASS" "$boot" "$tap_ok"

# ---- the script and the TAP stream ---------------------------------------
case_ "top-level not ok" 1 "failed tests" "$boot" "$(sub "$tap_ok" 'ok 1 first' 'not ok 1 first')"
case_ "nested not ok" 1 "failed tests" "$boot" "$(sub "$tap_ok" '# ok 1 inner c' '# not ok 1 inner c')"
case_ "KUnit case not ok" 1 "failed tests" "$boot" "$(sub "$tap_ok" '# |     ok 2 test_param2' '# |     not ok 2 test_param2')"
case_ "short plan" 1 "short TAP" "$boot" "$(sub "$tap_ok" $'\r\n1..3' $'\r\n1..4')"
case_ "missing plan" 1 "no TAP plan" "$boot" "$(sub "$tap_ok" $'\r\n1..3' '')"
case_ "bail out" 1 "bailed out" "$boot" "$(crlf 'Bail out! no swap' '# guest-init: exit 1')"
case_ "script exit status" 1 "exited with status 3" "$boot" "$(sub "$tap_ok" 'exit 0' 'exit 3')"
case_ "script never finished" 1 "never finished" "$boot" "$(sub "$tap_ok" '# guest-init: exit 0' '')"
case_ "more results than planned" 1 "more top-level results than planned" "$boot" \
	"$(sub "$tap_ok" $'\r\n1..3' $'\r\n1..2')"
case_ "more nested results than their plan" 1 "more nested" "$boot" "$(sub "$tap_ok" '# 1..2' '# 1..1')"
case_ "duplicate top-level number" 1 "result number 1 twice at the top-level" "$boot" \
	"$(sub "$tap_ok" 'ok 2 second' 'ok 1 second')"
case_ "duplicate top-level name" 1 'top-level result "first" twice' "$boot" \
	"$(sub "$tap_ok" 'ok 2 second' 'ok 2 first')"
case_ "duplicate nested number" 1 "result number 1 twice at the nested" "$boot" \
	"$(sub "$tap_ok" '# ok 2 inner b' '# ok 1 inner b')"
case_ "duplicate KUnit parameter number" 1 "result number 1 twice at the nested" "$boot" \
	"$(sub "$tap_ok" '# |         ok 2 size 64' '# |         ok 1 size 64')"
case_ "--no-tap ignores a missing plan" 0 "PASS" "$boot" "$(crlf '# guest-init: exit 0')" --no-tap

# ---- skips: each fails unless the caller lists it with a reason -------------
skip_top=$(sub "$tap_ok" 'ok 2 second # 4s' 'ok 2 second # SKIP no disk')
case_ "skip: unlisted top-level skip fails" 1 "not on the allow-list" "$boot" "$skip_top"
case_ "skip: listed top-level skip passes" 0 "second: the guest has no disk" "$boot" "$skip_top" \
	--allow-skip "second:the guest has no disk"
case_ "skip: another name listed does not excuse it" 1 "not on the allow-list" "$boot" "$skip_top" \
	--allow-skip "first:reason"
case_ "skip: lower-case '# skip' is a skip" 1 "not on the allow-list" "$boot" \
	"$(sub "$tap_ok" 'ok 2 second # 4s' 'ok 2 second # skip')"
case_ "skip: a whole test skipped (kselftest's exit 4: no reason)" 1 \
	"second    (" "$boot" "$(sub "$tap_ok" 'ok 2 second # 4s' 'ok 2 second # SKIP')"
skip_nested=$(sub "$tap_ok" '# ok 2 inner b' '# ok 2 # SKIP inner b (backend zsmalloc)')
case_ "skip: unlisted nested kselftest skip fails" 1 "first/inner b (backend zsmalloc)" "$boot" "$skip_nested"
case_ "skip: listed nested kselftest skip passes" 0 "PASS" "$boot" "$skip_nested" \
	--allow-skip "first/inner b (backend zsmalloc):no pool of ours on zsmalloc"
skip_kunit=$(sub "$tap_ok" '# |         ok 2 size 64' '# |         ok 2 size 64 # SKIP no such class')
case_ "skip: unlisted KUnit skip fails" 1 "suite/size 64" "$boot" "$skip_kunit"
case_ "skip: listed KUnit skip passes" 0 "PASS" "$boot" "$skip_kunit" --allow-skip "suite/size 64:test reason"
case_ "skip: --allow-skip without a reason is refused" 2 "NAME:REASON" "$boot" "$skip_top" --allow-skip "second"
case_ "skip: --allow-skip with a blank reason is refused" 2 "NAME:REASON" "$boot" "$skip_top" --allow-skip "second: "

# ---- how qemu ended -----------------------------------------------------------
case_ "timeout" 1 "timed out after 60 s" "$boot" "$tap_ok" --timed-out 60
case_ "qemu killed by SIGKILL (137)" 1 "killed by SIGKILL" "$boot" "$tap_ok" --qemu-exit 137
case_ "qemu killed by another signal" 1 "killed by signal 15" "$boot" "$tap_ok" --qemu-exit 143
case_ "qemu failed" 1 "qemu failed with exit status 1" "$boot" "$tap_ok" --qemu-exit 1

# ---- kernel splats ----------------------------------------------------------
# One sample per pattern of vm/splat-patterns, matched by that pattern only.
samples=(
	"BUG: scheduling while atomic: storm/123/0x00000002"
	"kernel BUG at mm/zsmalloc_mod.c:123!"
	"WARNING: CPU: 1 PID: 2 at mm/zsmalloc_mod.c:10 zs_free+0x1/0x2"
	"Oops: 0002 [#1] PREEMPT SMP NOPTI"
	"Kernel panic - not syncing: Fatal exception"
	"general protection fault, maybe for address 0x10: 0000 [#1] SMP NOPTI"
	"Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008"
	"KASAN: null-ptr-deref in range [0x0000000000000008-0x000000000000000f]"
	"KFENCE: use-after-free read in zs_free+0x1/0x2"
	"UBSAN: shift-out-of-bounds in mm/zsmalloc_mod.c:1:2"
	"possible circular locking dependency detected"
	"possible recursive locking detected"
	"inconsistent lock state"
	"possible irq lock inversion dependency detected"
	"HARDIRQ-safe -> HARDIRQ-unsafe lock order detected"
	"bad unlock balance detected!"
	"held lock freed!"
	"suspicious RCU usage"
	"watchdog: soft lockup - CPU#0 stuck for 22s! [storm:123]"
	"Watchdog detected hard LOCKUP on cpu 1"
	"task kworker/0:1:12 blocked for more than 120 seconds."
	"rcu_preempt self-detected stall on CPU"
	"INFO: lockdep is turned off."
	"PANIC: double fault, error_code: 0x0"
	"Bad page state in process storm  pfn:12345"
	"list_del corruption. prev->next should be ffff888003c0b000, but was dead000000000100"
	"BUG kmalloc-64 (Not tainted): Object already free"
	"[Right Redzone overwritten] 0xffff888003c0b040-0xffff888003c0b047 @offset=64. First byte 0x0 instead of 0xcc"
	"[Poison overwritten] 0xffff888003c0b000-0xffff888003c0b000 @offset=0. First byte 0x6a instead of 0x6b"
	"[Object padding overwritten] 0xffff888003c0b078-0xffff888003c0b07f @offset=120. First byte 0x0 instead of 0x5a"
	"Padding overwritten. 0xffff888003c0bf80-0xffff888003c0bfff @offset=3968"
	"pagealloc: memory corruption"
)
# Whole lines as the kernel prints them (most match several patterns).
real=(
	"BUG: KASAN: slab-use-after-free in zsmod_free+0x1/0x2"
	"BUG: KFENCE: use-after-free read in zsmod_free+0x1/0x2"
	"Oops: general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN NOPTI"
	"WARNING: possible circular locking dependency detected"
	"INFO: task kworker/0:1:12 blocked for more than 120 seconds."
	"rcu: INFO: rcu_preempt self-detected stall on CPU"
	"watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [storm:123]"
	"Kernel panic - not syncing: Hard LOCKUP"
	"traps: PANIC: double fault, error_code: 0x0"
	"BUG: Bad page state in process storm  pfn:12345"
	"BUG zsmod_handle (Tainted: G           OE     ): Object corrupt"
)
mapfile -t patterns < <(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$here/splat-patterns")
[ ${#patterns[@]} -gt 10 ] || { echo "not ok - vm/splat-patterns has only ${#patterns[@]} patterns"; fails=$((fails + 1)); }
declare -A own=()
for s in "${samples[@]}"; do
	matched=()
	for p in "${patterns[@]}"; do
		if grep -qE -e "$p" <<<"$s"; then matched+=("$p"); fi
	done
	if [ ${#matched[@]} = 1 ]; then
		own[${matched[0]}]=$s
	else
		echo "not ok - sample '$s' matches ${#matched[@]} patterns, not 1: ${matched[*]}"
		fails=$((fails + 1))
	fi
	# Anywhere in a line: console lines may start with other output.
	case_ "splat: $s" 1 "kernel splat" "$boot""garbage[  5.1] $s"$'\r\n' "$tap_ok"
done
for p in "${patterns[@]}"; do
	if [ -n "${own[$p]+set}" ]; then
		echo "ok - pattern '$p' catches a line on its own"
	else
		echo "not ok - pattern '$p' has no sample in vm/verdict-test.sh that it alone matches"
		fails=$((fails + 1))
	fi
done
for s in "${real[@]}"; do
	case_ "splat (whole line): $s" 1 "kernel splat" "$boot""[  5.1] $s"$'\r\n' "$tap_ok"
done
# The guest's reader (stress/guest-stress.sh): busybox grep -E -f on the
# pattern file without its comments.
if command -v busybox >/dev/null; then
	busybox sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$here/splat-patterns" >"$tmp/re"
	miss=0
	for s in "${samples[@]}" "${real[@]}"; do
		printf '[ 5.1] %s\n' "$s" | busybox grep -qE -f "$tmp/re" ||
			{ echo "not ok - busybox grep misses '$s'"; miss=1; }
	done
	if tr -d '\r' <<<"$boot" | busybox grep -E -f "$tmp/re"; then
		echo "not ok - busybox grep finds a splat in the clean boot"; miss=1
	fi
	if [ $miss = 0 ]; then echo "ok - busybox grep -E -f (the guest's reader) agrees"; else fails=$((fails + 1)); fi
else
	echo "ok - busybox grep not checked # SKIP no busybox on this host"
fi
VERDICT_IGNORE='WARNING: CPU: .* at lib/expected\.c' \
	case_ "VERDICT_IGNORE forgives" 0 "PASS" "$boot""[ 2.0] WARNING: CPU: 0 PID: 1 at lib/expected.c:1"$'\r\n' "$tap_ok"
VERDICT_EXTRA='zsmod: custom failure' \
	case_ "VERDICT_EXTRA adds a pattern" 1 "kernel splat" "$boot""[ 2.0] zsmod: custom failure"$'\r\n' "$tap_ok"
VERDICT_EXTRA='unbalanced(' \
	case_ "a bad pattern fails rather than passing" 1 "cannot judge the console log" "$boot" "$tap_ok"

# ---- vm/run-guest.sh end to end, with a fake qemu ------------------------------
# It writes the console and TAP files qemu's serial ports would, then ends as
# FAKE_QEMU says: an exit status, "kill" (SIGKILL itself), "hang" (ignores
# TERM: timeout -k 10 s kills it).
mkdir -p "$tmp/bin"
cat >"$tmp/bin/qemu-system-x86_64" <<'EOF'
#!/bin/bash
ports=()
while [ $# -gt 0 ]; do
	[ "$1" = -serial ] && ports+=("${2#file:}")
	shift
done
printf '%s' "$FAKE_CONSOLE" >"${ports[0]}"
printf '%s' "$FAKE_TAP" >"${ports[1]}"
case $FAKE_QEMU in
kill) kill -KILL $$ ;;
hang) trap '' TERM; sleep 60 ;;
*) exit "$FAKE_QEMU" ;;
esac
EOF
chmod +x "$tmp/bin/qemu-system-x86_64"
printf '#!/bin/sh\n' >"$tmp/guest.sh"
: >"$tmp/bzImage"
rg() {	# rg NAME EXPECTED-EXIT WHY FAKE_QEMU TAP [run-guest options]
	local name=$1 want=$2 why=$3 rc=0
	FAKE_QEMU=$4 FAKE_TAP=$5 FAKE_CONSOLE=$boot PATH="$tmp/bin:$PATH" \
		"$here/run-guest.sh" --kernel "$tmp/bzImage" --kver 6.12.0-fake \
		--init-script "$tmp/guest.sh" --log "$tmp/rg/guest.log" "${@:6}" \
		>"$tmp/out" 2>&1 || rc=$?
	report "run-guest: $name" "$want" "$rc" "$why" "$tmp/out"
}
rg "clean run passes" 0 "PASS" 0 "$tap_ok" --timeout 30
rg "qemu killed by SIGKILL fails, naming it" 1 "killed by SIGKILL" kill "$tap_ok" --timeout 30
rg "qemu failing fails" 1 "qemu failed with exit status 1" 1 "$tap_ok" --timeout 30
rg "timeout, then SIGKILL: both named" 1 "timed out after 1 s" hang "$tap_ok" --timeout 1
if grep -qF "killed by SIGKILL" "$tmp/out"; then
	echo "ok - run-guest: ... and its SIGKILL named too"
else
	echo "not ok - run-guest: the timeout's SIGKILL is not named"
	fails=$((fails + 1))
fi
rg "unlisted skip fails" 1 "not on the allow-list" 0 "$skip_top" --timeout 30
rg "--allow-skip reaches the verdict" 0 "PASS" 0 "$skip_top" --timeout 30 \
	--allow-skip "second:the guest has no disk"

if [ $fails = 0 ]; then
	echo "verdict-test: all cases behave"
else
	echo "verdict-test: $fails case(s) wrong"
fi
exit $((fails > 0))
