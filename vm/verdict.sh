#!/bin/bash
# Judge a guest run from its console log and TAP stream (vm/run-guest.sh).
#
# usage: vm/verdict.sh [--timed-out SECONDS] [--no-tap] CONSOLE.log [STREAM.tap]
#
# Fails on: a timeout; a kernel splat anywhere in the console log; a missing
# "# guest-init: exit 0" (the guest script failed or never finished); and,
# unless --no-tap: a missing top-level plan, fewer results than planned, or
# any "not ok" line, nested ones included.
# Extra splat patterns: VERDICT_EXTRA='regex'; lines to forgive:
# VERDICT_IGNORE='regex' (both extended regular expressions).
set -uo pipefail

timed_out='' notap=''
while [ $# -gt 0 ]; do
	case $1 in
	--timed-out) timed_out=$2; shift ;;
	--no-tap) notap=1 ;;
	*) break ;;
	esac
	shift
done
log=${1:?usage: verdict.sh [--timed-out S] [--no-tap] LOG [TAP]}
tap=${2:-${log%.log}.tap}

# Kernel messages that mean a bug, matched anywhere in a line (console lines
# may start with other output). "WARNING:" also covers lockdep's reports
# (possible circular/recursive locking, inconsistent lock state) and RCU's
# "suspicious RCU usage"; "BUG:" covers KASAN, sleeping-in-atomic, soft
# lockups, bad page state and KFENCE. "INFO: " catches hung tasks and RCU
# stalls.
splat='BUG:|WARNING:|Oops|Kernel panic|KASAN|UBSAN:|kernel BUG at|general protection fault'
splat+='|possible circular locking|possible recursive locking|inconsistent lock state'
splat+='|INFO: |rcu_sched self-detected stall|Unable to handle kernel|list_(add|del) corruption'
splat+='|kmemleak: [0-9]+ new suspected'
# slub_debug's reports ("BUG kmalloc-64 (Not tainted): Poison overwritten")
# and page_poison's, for guests booted with those debug options.
splat+='|BUG [^ ]+ \((Not tainted|Tainted)|pagealloc: (memory corruption|single bit error)'
[ -n "${VERDICT_EXTRA:-}" ] && splat+="|$VERDICT_EXTRA"

fail=0
problem() {
	[ $fail = 0 ] && echo "verdict: FAIL  console: $log  tap: $tap"
	fail=1
	echo "verdict: $*"
}

clean() { tr -d '\r' <"$1" 2>/dev/null; }

[ -n "$timed_out" ] && problem "guest timed out after $timed_out s (last console lines follow)" &&
	clean "$log" | tail -15 | sed 's/^/    /'

hits=$(clean "$log" | grep -nE "$splat" | { if [ -n "${VERDICT_IGNORE:-}" ]; then
	grep -vE "$VERDICT_IGNORE"; else cat; fi; })
if [ -n "$hits" ]; then
	problem "kernel splat in the console log (line: text):"
	echo "$hits" | head -20 | sed 's/^/    /'
fi

status=$(clean "$tap" | sed -n 's/^# guest-init: exit \([0-9]*\)$/\1/p' | tail -1)
if [ -z "$status" ]; then
	[ -z "$timed_out" ] && problem "the guest script never finished (no '# guest-init: exit')"
elif [ "$status" != 0 ]; then
	problem "the guest script exited with status $status"
fi

if [ -z "$notap" ]; then
	plan=$(clean "$tap" | sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' | head -1)
	results=$(clean "$tap" | grep -cE '^(not )?ok [0-9]+')
	if [ -z "$plan" ]; then
		problem "no TAP plan (1..N) in $tap"
	elif [ "$results" -lt "$plan" ]; then
		problem "short TAP: $results results for a plan of $plan"
	fi
	bail=$(clean "$tap" | grep -n 'Bail out!')
	[ -n "$bail" ] && problem "the guest bailed out: $bail"
	notok=$(clean "$tap" | grep -nE '(^|[# ])not ok ')
	if [ -n "$notok" ]; then
		problem "failed tests (line: text):"
		echo "$notok" | sed 's/^/    /'
	fi
fi

if [ $fail = 0 ]; then
	echo "verdict: PASS  ($log)"
	skips=$(clean "$tap" | grep -cE '(^|# )ok .*# SKIP')
	[ -z "$notap" ] && [ "$skips" != 0 ] && echo "verdict: $skips skipped result(s)"
fi
exit $fail
