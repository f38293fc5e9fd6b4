#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
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
suites=$(echo "${zsmod_suites:?no zsmod_suites= on the kernel command line}" | tr '+' ' ')
mods=/lib/modules/$(uname -r)/extra
kunitdir=/sys/kernel/debug/kunit

echo "TAP version 13"
echo "1..$(($(echo $suites | wc -w) + 5))"

if [ ! -d "$kunitdir" ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fi
echo "# numa nodes: $(ls -d /sys/devices/system/node/node* 2>/dev/null | wc -l)," \
	"cpus: $(grep -c ^processor /proc/cpuinfo), mem: $(sed -n 's/MemTotal: *//p' /proc/meminfo)"

if insmod "$mods/zsmalloc_mod.ko"; then
	echo "ok 1 insmod zsmalloc_mod.ko"
else
	echo "not ok 1 insmod zsmalloc_mod.ko"
fi
start=$(cut -d' ' -f1 /proc/uptime)
if insmod "$mods/zsmalloc_mod_kunit.ko"; then
	echo "ok 2 insmod zsmalloc_mod_kunit.ko (suites ran in $(awk -v s="$start" '{ printf "%.0f", $1 - s }' /proc/uptime) s)"
else
	echo "not ok 2 insmod zsmalloc_mod_kunit.ko"
fi

n=2
status=0
for s in $suites; do
	n=$((n + 1))
	f=$kunitdir/$s/results
	if [ ! -r "$f" ]; then
		echo "not ok $n $s # no $f"
		status=1
		continue
	fi
	echo "# ===== begin kunit results: $s ====="
	sed 's/^/# | /' "$f"
	echo "# ===== end kunit results: $s ====="
	last=$(grep -E "^(not )?ok [0-9]+ $s( |\$)" "$f" | tail -1)
	case "$last" in
	"ok "*"# SKIP"*)
		echo "not ok $n $s # suite skipped on the test kernel: ${last#*# SKIP}"
		status=1 ;;
	"ok "*)
		echo "ok $n $s" ;;
	"")
		echo "not ok $n $s # no suite result line (crashed?)"
		status=1 ;;
	*)
		echo "not ok $n $s"
		status=1 ;;
	esac
done

n=$((n + 1))
unlisted=
for d in "$kunitdir"/zsmalloc_mod_*; do
	[ -d "$d" ] || continue
	case " $suites " in
	*" ${d##*/} "*) ;;
	*) unlisted="$unlisted ${d##*/}" ;;
	esac
done
if [ -z "$unlisted" ]; then
	echo "ok $n no suite outside kunit/run.sh's list"
else
	echo "not ok $n suites missing from kunit/run.sh's list:$unlisted"
	status=1
fi

if [ -r /sys/kernel/debug/zsmalloc_mod ] || [ -d /sys/kernel/debug/zsmalloc_mod ]; then
	echo "# zsmalloc_mod debugfs: $(ls /sys/kernel/debug/zsmalloc_mod | tr '\n' ' ')"
fi
# Both modules unload cleanly (no pool or driver reference left behind).
for m in zsmalloc_mod_kunit zsmalloc_mod; do
	n=$((n + 1))
	if rmmod "$m"; then
		echo "ok $n rmmod $m"
	else
		echo "not ok $n rmmod $m"
		status=1
	fi
done
exit $status
