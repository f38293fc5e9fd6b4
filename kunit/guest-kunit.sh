#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the KUnit test guest (as /etc/test.sh of vm/initramfs.sh).
#
# Loads zsmalloc_mod.ko, then zsmalloc_mod_kunit.ko (KUnit runs the module's
# suites while insmod runs), then prints each suite's
# /sys/kernel/debug/kunit/<suite>/results between delimiter lines, every line
# prefixed with "# | " so that the stream stays valid TAP. kunit/run.sh
# extracts each block and feeds it to kunit.py parse on the host. Our own
# TAP: one line per suite, "ok" only when the suite's KTAP result is a plain
# "ok" (a skipped suite is "not ok" here: the test kernel has everything).
#
# The suites to expect come from kunit/run.sh, the one list of them, as
# zsmod_suites=a+b+c on the kernel command line; a suite the module runs
# that is not in the list fails too.
#
# No set -euo pipefail: a failed step is a "not ok" result and the steps
# after it still run; the exit status says whether a suite failed.
. /etc/guest-lib.sh
suites=$(echo "${zsmod_suites:?no zsmod_suites= on the kernel command line}" | tr '+' ' ')
mods=/lib/modules/$(uname -r)/extra
kunitdir=/sys/kernel/debug/kunit

# zsmod_repeat=N (kunit/run.sh: KUNIT_REPEAT=N): every suite runs N times
# (debugfs "run" after the first), and passes only if all N pass: a case
# that fails on luck shows here.
repeat=${zsmod_repeat:-1}
nplan=$(($(echo "$suites" | wc -w) + 5))
[ "$repeat" -gt 1 ] && nplan=$((nplan + $(echo "$suites" | wc -w)))
tap_plan $nplan

[ -d "$kunitdir" ] || guest_mount debugfs /sys/kernel/debug
echo "# numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)," \
	"cpus: $(grep -c ^processor /proc/cpuinfo), mem: $(sed -n 's/MemTotal: *//p' /proc/meminfo)"

if insmod "$mods/zsmalloc_mod.ko"; then
	tap_ok "insmod zsmalloc_mod.ko"
else
	tap_nok "insmod zsmalloc_mod.ko"
fi
start=$(cut -d' ' -f1 /proc/uptime)
if insmod "$mods/zsmalloc_mod_kunit.ko"; then
	tap_ok "insmod zsmalloc_mod_kunit.ko (suites ran in $(awk -v s="$start" '{ printf "%.0f", $1 - s }' /proc/uptime) s)"
else
	tap_nok "insmod zsmalloc_mod_kunit.ko"
fi

# The exit status: 1 when a suite failed, is missing or unlisted, or a
# module does not unload (a failed insmod shows as its "not ok" only).
status=0
for s in $suites; do
	f=$kunitdir/$s/results
	if [ ! -r "$f" ]; then
		tap_nok "$s # no $f"
		status=1
		continue
	fi
	echo "# ===== begin kunit results: $s ====="
	sed 's/^/# | /' "$f"
	echo "# ===== end kunit results: $s ====="
	last=$(grep -E "^(not )?ok [0-9]+ $s( |\$)" "$f" | tail -1)
	case "$last" in
	"ok "*"# SKIP"*)
		tap_nok "$s # suite skipped on the test kernel: ${last#*# SKIP}"
		status=1 ;;
	"ok "*)
		tap_ok "$s" ;;
	"")
		tap_nok "$s # no suite result line (crashed?)"
		status=1 ;;
	*)
		tap_nok "$s"
		status=1 ;;
	esac
done

if [ "$repeat" -gt 1 ]; then
	for s in $suites; do
		f=$kunitdir/$s/results passed=1 i=2 fails=
		if [ ! -r "$f" ]; then
			tap_nok "$s # no $f: not repeated"
			continue
		fi
		grep -qE "^ok [0-9]+ $s( |\$)" "$f" 2>/dev/null || passed=0
		while [ $i -le "$repeat" ]; do
			echo 1 >"$kunitdir/$s/run" 2>/dev/null
			if grep -qE "^ok [0-9]+ $s( |\$)" "$f" 2>/dev/null; then
				passed=$((passed + 1))
			else
				fails="$fails $i"
				echo "# ===== run $i of $s failed ====="
				grep -E "^ *(not ok|# .*(EXPECTATION|ASSERTION) FAILED)|Expected" "$f" |
					head -20 | sed 's/^/# | /'
			fi
			i=$((i + 1))
		done
		if [ $passed = "$repeat" ]; then
			tap_ok "$s passed $repeat runs of $repeat"
		else
			tap_nok "$s passed $passed runs of $repeat (failed:$fails)"
			status=1
		fi
	done
fi
unlisted=
for d in "$kunitdir"/zsmalloc_mod_*; do
	[ -d "$d" ] || continue
	case " $suites " in
	*" ${d##*/} "*) ;;
	*) unlisted="$unlisted ${d##*/}" ;;
	esac
done
if [ -z "$unlisted" ]; then
	tap_ok "no suite outside kunit/run.sh's list"
else
	tap_nok "suites missing from kunit/run.sh's list:$unlisted"
	status=1
fi

if [ -r $ZSMOD_DEBUG ] || [ -d $ZSMOD_DEBUG ]; then
	tap_note "zsmalloc_mod debugfs: $(ls $ZSMOD_DEBUG | tr '\n' ' ')"
fi
# Both modules unload cleanly (no pool or driver reference left behind).
for m in zsmalloc_mod_kunit zsmalloc_mod; do
	if rmmod "$m"; then
		tap_ok "rmmod $m"
	else
		tap_nok "rmmod $m"
		status=1
	fi
done
exit $status
