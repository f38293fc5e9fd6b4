#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge the KCSAN reports of a console log (kunit/kunitpy.sh, whose kernel
# has KCSAN: kunit/kunitpy.config).
#
# A report ("BUG: KCSAN: data-race in f / g" up to its closing "====" line)
# is *ours* when one of the racing accesses is: when f or g (the accessing
# functions KCSAN names, also the first frame of each stack) is a function
# of ours, defined in the objects of mm/zsmalloc_mod/ (the module and the
# suites) and in no other object of the kernel (vmlinux.a: the built-in
# zsmalloc has a free_zspage() too, headers' inline functions are
# everywhere). Ours fail the run: fix the race, or mark an intended one
# with data_race()/READ_ONCE() and say why there. Any other report, also
# one that our code only called into, passes only if its title is on the
# named list KNOWN, one line each:
#     data-race in f / g: why it is not ours and what it is
# An unlisted one fails, as a skipped test does, until someone reads it; so
# does a report cut short (no closing line). The log must also show that
# KCSAN was on ("kcsan: enabled early").
#
# usage: kunit/kcsan.sh LOG BUILD KNOWN [TABLE]
#   BUILD: the kernel's build directory (with vmlinux.a and mm/zsmalloc_mod/)
#   TABLE: where to write the reports found, one line each (default: stdout)
# Exit: 0 nothing ours and nothing unknown, 1 otherwise, 2 error.
set -euo pipefail
usage="usage: kcsan.sh LOG BUILD KNOWN [TABLE]"
log=${1:?$usage} build=${2:?$usage} known=${3:?$usage} table=${4:-}

[ -r "$log" ] || { echo "kcsan: cannot read $log" >&2; exit 2; }
[ -r "$known" ] || { echo "kcsan: cannot read $known" >&2; exit 2; }
[ -r "$build/vmlinux.a" ] || { echo "kcsan: no $build/vmlinux.a" >&2; exit 2; }
grep -q 'kcsan: enabled early' "$log" ||
	{ echo "kcsan: FAIL: no 'kcsan: enabled early' in $log: KCSAN was not on"; exit 1; }

# Functions by object: "OBJECT NAME" for every text symbol of vmlinux.a
# (compiler suffixes such as .constprop.0 dropped); ours are those of
# mm/zsmalloc_mod/ that no other object defines.
ours=$(mktemp)
trap 'rm -f "$ours"' EXIT
(cd "$build" && nm -A --defined-only vmlinux.a 2>/dev/null) | awk '
	$(NF - 1) ~ /^[tT]$/ {
		split($1, f, ":"); name = $NF; sub(/\..*/, "", name)
		if (f[2] ~ /^mm\/zsmalloc_mod\//) mine[name] = 1; else other[name] = 1
	}
	END { for (n in mine) if (!(n in other)) print n }' | sort >"$ours"
[ -s "$ours" ] || { echo "kcsan: no functions of mm/zsmalloc_mod/ in $build/vmlinux.a" >&2; exit 2; }

# One line per report: "TITLE<TAB>accessing functions", the title's
# offsets dropped ("race at unknown origin" reports print f+0x1a/0x40) and
# the functions being the title's and each stack's first frame.
reports=$(tr -d '\r' <"$log" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' | awk '
	function flush(how) {
		if (inside) print how title "\t" funcs
		inside = 0
	}
	/^BUG: KCSAN: / {
		flush("INCOMPLETE ")
		title = substr($0, 13); gsub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", title)
		funcs = title; sub(/^[^ ]+ in /, "", funcs); gsub(/ \/ /, " ", funcs)
		inside = 1; top = 0; next
	}
	inside && / to 0x[0-9a-f]+ of [0-9]+ bytes by / { top = 1; next }
	inside && top && /^ *[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
		f = $1; sub(/\+.*/, "", f); funcs = funcs " " f; top = 0; next
	}
	inside && /^====/ { flush(""); next }
	END { flush("INCOMPLETE ") }')

if [ -n "$table" ]; then exec 3>"$table"; else exec 3>&1; fi
fail=0
{
	echo "# KCSAN reports in $log: verdict, title, accessing functions of ours"
	[ -n "$reports" ] || echo "# none"
	while IFS=$'\t' read -r title funcs; do
		[ -n "$title" ] || continue
		case $title in
		"INCOMPLETE "*)
			echo "INCOMPLETE ${title#INCOMPLETE }    (no closing line: the log was cut)"
			fail=1
			continue ;;
		esac
		mine=$(tr ' ' '\n' <<<"${funcs//./ }" | grep -xFf "$ours" | sort -u | paste -sd' ' - || true)
		if [ -n "$mine" ]; then
			echo "OURS    $title    [$mine]"
			fail=1
		elif awk -v t="$title:" '!/^#/ && index($0, t) == 1 { found = 1 } END { exit !found }' "$known"; then
			echo "known   $title"
		else
			echo "UNKNOWN $title    (not ours: read it, then list it in $known)"
			fail=1
		fi
	done <<<"$reports"
} >&3
exit $fail
