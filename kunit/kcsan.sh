#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge the KCSAN reports of a console log (kunit/kunitpy.sh, whose kernel
# has KCSAN: kunit/kunitpy.config).
#
# A report ("BUG: KCSAN: data-race in f / g" up to its closing "====" line)
# is *ours* when a frame of either access's stack is a function defined in
# our objects (nm of OBJDIR, the tree's mm/zsmalloc_mod/: the module and the
# suites). Ours fail the run: fix the race, or mark an intended one with
# data_race()/READ_ONCE() and say why there. A report with no frame of ours
# passes only if its title is on the named list KNOWN, one line each:
#     data-race in f / g: why it is not ours and what it is
# An unlisted one fails, as a skipped test does, until someone reads it.
# The log must also show that KCSAN was on ("kcsan: enabled early").
#
# usage: kunit/kcsan.sh LOG OBJDIR KNOWN [TABLE]
#   TABLE: where to write the reports found, one line each (default: stdout)
# Exit: 0 nothing ours and nothing unknown, 1 otherwise, 2 error.
set -euo pipefail
log=${1:?usage: kcsan.sh LOG OBJDIR KNOWN [TABLE]}
objdir=${2:?usage: kcsan.sh LOG OBJDIR KNOWN [TABLE]}
known=${3:?usage: kcsan.sh LOG OBJDIR KNOWN [TABLE]}
table=${4:-}

[ -r "$log" ] || { echo "kcsan: cannot read $log" >&2; exit 2; }
[ -r "$known" ] || { echo "kcsan: cannot read $known" >&2; exit 2; }
grep -q 'kcsan: enabled early' "$log" ||
	{ echo "kcsan: FAIL: no 'kcsan: enabled early' in $log: KCSAN was not on"; exit 1; }

mapfile -t objs < <(find "$objdir" -name '*.o' ! -name '*.mod.o' ! -name 'built-in*')
[ ${#objs[@]} -gt 0 ] || { echo "kcsan: no objects under $objdir" >&2; exit 2; }
ours=$(mktemp)
trap 'rm -f "$ours"' EXIT
nm --defined-only "${objs[@]}" 2>/dev/null | awk '$2 ~ /^[tT]$/ { print $3 }' |
	sed 's/\..*//' | sort -u >"$ours"
[ -s "$ours" ] || { echo "kcsan: no functions defined in $objdir" >&2; exit 2; }

# One line per report: "TITLE<TAB>frame frame ...", the frames' function
# names without their compiler suffixes (.constprop.0, .isra.0, ...).
reports=$(tr -d '\r' <"$log" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' | awk '
	/^BUG: KCSAN: / { title = substr($0, 13); frames = ""; inside = 1; next }
	inside && /^====/ { print title "\t" frames; inside = 0; next }
	inside && /^ *[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/ {
		f = $1; sub(/\+.*/, "", f); sub(/\..*/, "", f); frames = frames " " f
	}')

if [ -n "$table" ]; then exec 3>"$table"; else exec 3>&1; fi
fail=0
{
	echo "# KCSAN reports in $log: verdict, title, frames of ours"
	[ -n "$reports" ] || echo "# none"
	while IFS=$'\t' read -r title frames; do
		[ -n "$title" ] || continue
		mine=$(tr ' ' '\n' <<<"$frames" | grep -xFf "$ours" | sort -u | paste -sd' ' - || true)
		if [ -n "$mine" ]; then
			echo "OURS    $title    [$mine]"
			fail=1
		elif grep -qF -- "$title:" "$known"; then
			echo "known   $title"
		else
			echo "UNKNOWN $title    (not ours: read it, then list it in $known)"
			fail=1
		fi
	done <<<"$reports"
} >&3
exit $fail
