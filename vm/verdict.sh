#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge a guest run from its console log and TAP stream (vm/run-guest.sh).
#
# usage: vm/verdict.sh [options] CONSOLE.log [STREAM.tap]
#   --timed-out SECONDS      the host-side timeout ended the guest
#   --qemu-exit STATUS       qemu's exit status, when it was not 0 (137: qemu
#                            was killed by SIGKILL)
#   --allow-skip NAME:REASON the skipped result NAME may pass; REASON says why
#                            it legitimately skips (repeatable; NAME: below)
#   --no-tap                 the script prints no TAP: judge the console and
#                            the script's exit status only
#
# Fails on:
#  - a timeout; qemu ending with a non-zero status (killed by a signal, 137
#    for SIGKILL: the timeout's KILL, the OOM killer...; or failing);
#  - a kernel splat anywhere in the console log: a line matching a pattern of
#    vm/splat-patterns (vm/splats.sh);
#  - a missing "# guest-init: exit 0" (the guest script failed or never
#    finished);
#  - unless --no-tap, in the TAP stream: a missing top-level plan, fewer or
#    more top-level results than it announced, a "Bail out!", any "not ok"
#    (nested ones included), a result number seen twice at one level (a
#    nested stream starts afresh at its "TAP version"/"KTAP version" line),
#    a top-level name seen twice, more results than a nested plan announced,
#    and any skipped result ("ok N name # SKIP reason"), top-level or nested,
#    that --allow-skip does not name.
#
# The NAME of a top-level result is its description ("ok 1 roundtrip -b
# zsmalloc # 34s": "roundtrip -b zsmalloc"). A nested result's is the name of
# the top-level result it is nested under (TAP prints it after its subtests),
# "/", and its own description or, when it has none (kselftest's "ok 3 #
# SKIP reason"), its reason: "roundtrip -b zsmalloc/our pool holds objects
# (backend zsmalloc)". NAME is compared whole and may not contain ":".
#
# Extra splat patterns: VERDICT_EXTRA='regex'; lines to forgive:
# VERDICT_IGNORE='regex' (both extended regular expressions).
# Exit: 0 pass, 1 fail, 2 usage error.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { echo "usage: verdict.sh [--timed-out S] [--qemu-exit N] [--allow-skip NAME:REASON]... [--no-tap] LOG [TAP]" >&2; exit 2; }
timed_out='' qemu_exit='' notap=''
declare -A allow=()
while [ $# -gt 0 ]; do
	case $1 in
	--timed-out) timed_out=${2:?}; shift ;;
	--qemu-exit) qemu_exit=${2:?}; shift ;;
	--allow-skip)
		a=${2:?} name=${2%%:*} reason=${2#*:}
		if [ "$name" = "$a" ] || [ -z "$name" ] || [ -z "${reason// /}" ]; then
			echo "verdict: --allow-skip wants NAME:REASON, got '$a'" >&2
			usage
		fi
		allow[$name]=$reason
		shift ;;
	--no-tap) notap=1 ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || usage
log=$1
tap=${2:-${log%.log}.tap}

fail=0
problem() {
	[ $fail = 0 ] && echo "verdict: FAIL  console: $log  tap: $tap"
	fail=1
	echo "verdict: $*"
}
clean() { tr -d '\r' <"$1" 2>/dev/null || true; }
indent() { sed 's/^/    /'; }

ended='' # the guest was stopped from outside: not finishing is no news then
if [ -n "$timed_out" ]; then
	problem "guest timed out after $timed_out s"
	ended=1
fi
if [ -n "$qemu_exit" ] && [ "$qemu_exit" != 0 ]; then
	case $qemu_exit in
	137) problem "qemu was killed by SIGKILL (exit status 137): the timeout's KILL when TERM did not stop it, or another process (the OOM killer?)" ;;
	129 | 1[3-9][0-9] | 2[0-5][0-9])
		problem "qemu was killed by signal $((qemu_exit - 128)) (exit status $qemu_exit)" ;;
	*) problem "qemu failed with exit status $qemu_exit" ;;
	esac
	ended=1
fi
if [ -n "$ended" ]; then
	echo "verdict: the last console lines:"
	clean "$log" | tail -15 | indent
fi

src=0
hits=$("$here/splats.sh" "$log") || src=$?
case $src in
0) ;;
1)
	problem "kernel splat in the console log (line: text):"
	printf '%s\n' "$hits" | head -20 | indent ;;
*) problem "cannot judge the console log for splats (vm/splats.sh status $src)" ;;
esac

status=$(clean "$tap" | sed -n 's/^# guest-init: exit \([0-9]*\)$/\1/p' | tail -1)
if [ -z "$status" ]; then
	[ -z "$ended" ] && problem "the guest script never finished (no '# guest-init: exit')"
elif [ "$status" != 0 ]; then
	problem "the guest script exited with status $status"
fi

if [ -n "$notap" ]; then
	[ $fail = 0 ] && echo "verdict: PASS  ($log)"
	exit $fail
fi

# One pass over the TAP stream. A line's level is its prefix of "#", "|" and
# blanks ("" top level, "# " a kselftest's TAP under run_tests.sh, "# |     "
# a KUnit case). Prints "P|problem", "S|name|line: text" for a skipped
# result, and "T|plan|results" for the top level, "|" being \037 (not a
# blank: read must keep empty fields).
# shellcheck disable=SC2016 # awk's $ fields
tapcheck='
function problem(s) { print "P" FS_ s }
function forget(p, self,   k, n) {	# levels below p (and p itself if self)
	for (k in cnt) {
		if ((p != "" && index(k, p) != 1) || (!self && k == p))
			continue
		delete cnt[k]; delete plan[k]; delete over[k]
		for (n in seen) {
			split(n, a, SUBSEP)
			if (a[1] == k)
				delete seen[n]
		}
	}
}
{
	match($0, /^[#| \t]*/)
	pre = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
	if (rest ~ /^K?TAP version [0-9]/) {
		if (pre != "")	# a nested stream starts; the top level is one
			forget(pre, 1)
		next
	}
	if (rest ~ /^1\.\.[0-9]+/) {
		n = rest; sub(/^1\.\./, "", n); n = n + 0
		if (pre == "") { if (topplan == "") topplan = n }
		else plan[pre] = n
		if (!(pre in cnt)) cnt[pre] = 0
		next
	}
	if (rest !~ /^(not )?ok [0-9]+/)
		next
	forget(pre, 0)	# a result ends the subtests nested under it
	notok = rest ~ /^not /
	s = rest; sub(/^(not )?ok /, "", s)
	num = s; sub(/[^0-9].*$/, "", num)
	s = substr(s, length(num) + 1)
	# TAP: the description runs up to the first "#", the directive follows
	desc = s; dir = ""
	if ((i = index(s, "#")) > 0) { desc = substr(s, 1, i - 1); dir = substr(s, i + 1) }
	sub(/^[ \t]*(-[ \t]+)?/, "", desc); sub(/[ \t]+$/, "", desc)
	sub(/^[ \t]+/, "", dir); sub(/[ \t]+$/, "", dir)
	where = (pre == "" ? "top-level" : "nested (\"" pre "\")")
	if ((pre, num) in seen)
		problem("result number " num " twice at the " where " level, lines " seen[pre, num] " and " NR ": " $0)
	seen[pre, num] = NR
	cnt[pre]++
	if ((pre in plan) && cnt[pre] > plan[pre] && !over[pre]) {
		problem("more " where " results than the plan of " plan[pre] ", from line " NR ": " $0)
		over[pre] = 1
	}
	skipped = !notok && toupper(dir) ~ /^SKIP/
	if (skipped) {
		reason = dir; sub(/^[A-Za-z]+[ \t:]*/, "", reason)
		id = (desc != "" ? desc : reason != "" ? reason : "(unnamed)")
	}
	if (pre != "") {
		if (skipped)
			pend[++npend] = id FS_ NR ": " $0
		next
	}
	top++
	if (desc != "" && (desc in names))
		problem("top-level result \"" desc "\" twice, lines " names[desc] " and " NR)
	names[desc] = NR
	for (j = 1; j <= npend; j++)
		print "S" FS_ desc "/" pend[j]
	npend = 0
	if (skipped)
		print "S" FS_ id FS_ NR ": " $0
}
END {
	for (j = 1; j <= npend; j++)
		print "S" FS_ "(no top-level result)/" pend[j]
	if (topplan != "" && top > topplan)
		problem("more top-level results than planned: " top " for a plan of " topplan)
	print "T" FS_ topplan FS_ top + 0
}'
plan='' results=0 skips=() skiplines=()
while IFS=$'\037' read -r kind a b; do
	case $kind in
	P) problem "$a${b:+ $b}" ;;
	S) skips+=("$a") skiplines+=("$b") ;;
	T) plan=$a results=$b ;;
	esac
done < <(clean "$tap" | awk -v FS_=$'\037' "$tapcheck")

if [ -z "$plan" ]; then
	problem "no TAP plan (1..N) in $tap"
elif [ "$results" -lt "$plan" ]; then
	problem "short TAP: $results results for a plan of $plan"
fi
bail=$(clean "$tap" | grep -n 'Bail out!' || true)
[ -n "$bail" ] && problem "the guest bailed out: $bail"
notok=$(clean "$tap" | grep -nE '(^|[# ])not ok ' || true)
if [ -n "$notok" ]; then
	problem "failed tests (line: text):"
	printf '%s\n' "$notok" | indent
fi

# Skips: each must be on the caller's allow-list, with its reason.
declare -A seen_allowed=()
unlisted=() listed=()
for i in "${!skips[@]}"; do
	name=${skips[$i]}
	if [ -n "${allow[$name]+set}" ]; then
		listed+=("$name: ${allow[$name]}")
		seen_allowed[$name]=1
	else
		unlisted+=("$name    (${skiplines[$i]})")
	fi
done
if [ ${#unlisted[@]} != 0 ]; then
	problem "skipped results not on the allow-list (vm/run-guest.sh --allow-skip 'NAME:REASON'):"
	printf '%s\n' "${unlisted[@]}" | indent
fi

if [ $fail = 0 ]; then
	echo "verdict: PASS  ($log)"
fi
if [ ${#listed[@]} != 0 ]; then
	echo "verdict: ${#listed[@]} skipped result(s) on the allow-list:"
	printf '%s\n' "${listed[@]}" | indent
fi
for name in "${!allow[@]}"; do
	[ -n "${seen_allowed[$name]+set}" ] ||
		echo "verdict: note: --allow-skip '$name' did not skip in this run"
done
exit $fail
