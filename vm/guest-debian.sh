#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of vm/debian-check.sh: run by the oneshot unit
# zsmod-check.service of the Debian guest once multi-user.target is
# reached, it checks the boot and the installed package, writes TAP to the
# second serial port (/dev/ttyS1, the host's results file) and powers off.
#
# Its settings come from /etc/zsmod-check.conf, written by the host:
#   MODE     package (zsmalloc-mod-dkms installed) or purged (after apt purge)
#   VERSION  the package's version; ABI, RT: the generic and -rt kernels
#   PARAM, PARAM_VALUE  a module parameter set in /etc/modprobe.d/
#   MEMMAX, WORKMIB     the workload's memcg limit and working set
# usage: (in the guest) /usr/local/sbin/zsmod-guest-check
# No set -e: every check runs and reports its result, failed ones included.
set -uo pipefail
# shellcheck source=/dev/null
. /etc/zsmod-check.conf

exec 3>/dev/ttyS1
n=0
fails=0
tap() { echo "$*" >&3; echo "zsmod-check: $*"; }
ok() { n=$((n + 1)); tap "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); tap "not ok $n - $*"; }
check() { # check NAME COMMAND...: ok when COMMAND succeeds
	local name=$1
	shift
	if "$@"; then ok "$name"; else notok "$name"; fi
}
diag() { tap "# $*"; }
finish() {
	diag "done: $n tests, $fails failed"
	echo "1..$n" >&3
	exec 3>&-
	sync
	systemctl --no-block poweroff
	exit 0
}

kver=$(uname -r)
diag "mode $MODE, kernel $kver, cmdline $(cat /proc/cmdline)"
# systemd-analyze time waits for the end of the boot, which this unit is
# part of: the target's own timestamp (microseconds since the kernel started).
us=$(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target)
diag "multi-user.target reached $((us / 1000000)).$((us / 100000 % 10)) s after the kernel started (guest clock, TCG)"
zpool=$(cat /sys/module/zswap/parameters/zpool)
diag "zswap: enabled=$(cat /sys/module/zswap/parameters/enabled) zpool=$zpool" \
	"compressor=$(cat /sys/module/zswap/parameters/compressor)"
dmesg >/tmp/dmesg.txt
grep -E 'zswap|zpool|zsmalloc_mod' /tmp/dmesg.txt | sed 's/^/# dmesg: /' >&3
# The kernel's line numbers of the pool message and of the handover to the
# initramfs' /init: "from boot" means before any user-space command.
pool_line=$(grep -n 'zswap: loaded using pool' /tmp/dmesg.txt | head -1 | cut -d: -f1)
init_line=$(grep -n 'Run /init as init process' /tmp/dmesg.txt | head -1 | cut -d: -f1)

if [ "$MODE" = package ]; then
	want_pool=zsmalloc_mod
else
	want_pool=zsmalloc
fi
check "zswap's zpool parameter is $want_pool" [ "$zpool" = "$want_pool" ]
check "kernel log: zswap: loaded using pool .../$want_pool" \
	grep -Eq "zswap: loaded using pool [^/]+/$want_pool\$" /tmp/dmesg.txt
# shellcheck disable=SC2317 # called through check
before_init() { [ -n "$pool_line" ] && [ -n "$init_line" ] && [ "$pool_line" -lt "$init_line" ]; }
check "the pool was created before the initramfs' /init ran (dmesg line ${pool_line:-none} < ${init_line:-none})" \
	before_init

if [ "$MODE" = package ]; then
	ko=$(modinfo -F filename zsmalloc_mod 2>/dev/null)
	diag "modinfo: $(modinfo zsmalloc_mod 2>&1 | grep -E '^(filename|version|vermagic|srcversion|signer|sig_key|sig_hashalgo|parm):' | tr -s ' ' | paste -sd';')"
	check "modinfo: the module is DKMS's, in /lib/modules/$kver/updates/dkms/ ($ko)" \
		[ "${ko%/*}" = "/lib/modules/$kver/updates/dkms" ]
	check "modinfo: version $VERSION" [ "$(modinfo -F version zsmalloc_mod)" = "$VERSION" ]
	check "modinfo: vermagic is the running kernel's" \
		[ "$(modinfo -F vermagic zsmalloc_mod | cut -d' ' -f1)" = "$kver" ]
	built=/var/lib/dkms/zsmalloc_mod/$VERSION/$kver/x86_64/module/${ko##*/}
	check "the installed file is the one DKMS built ($built)" cmp -s "$ko" "$built"
	check "the loaded module is that file (srcversion $(cat /sys/module/zsmalloc_mod/srcversion 2>/dev/null))" \
		[ "$(cat /sys/module/zsmalloc_mod/srcversion 2>/dev/null)" = "$(modinfo -F srcversion zsmalloc_mod)" ]
	if [ -f /var/lib/dkms/mok.pub ]; then
		cn=$(openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout -subject -nameopt multiline |
			sed -n 's/^ *commonName *= *//p')
		diag "DKMS key /var/lib/dkms/mok.pub: CN '$cn'"
		check "modinfo: signed with DKMS's key (signer '$(modinfo -F signer zsmalloc_mod)')" \
			[ "$(modinfo -F signer zsmalloc_mod)" = "$cn" ]
	else
		diag "no /var/lib/dkms/mok.pub: DKMS did not sign"
		check "modinfo: no signer when DKMS has no key" [ -z "$(modinfo -F signer zsmalloc_mod)" ]
	fi
	diag "kernel log on the signature: $(grep -m1 'zsmalloc_mod: module verification' /tmp/dmesg.txt || echo none)"
	diag "dkms status: $(dkms status zsmalloc_mod 2>/dev/null | paste -sd';')"
	for k in "$ABI" "$RT"; do
		check "dkms status: zsmalloc_mod/$VERSION installed for $k" \
			grep -q "^zsmalloc_mod/$VERSION, $k, x86_64: installed" <(dkms status zsmalloc_mod 2>/dev/null)
	done
	check "dkms status lists no other version" \
		bash -c "! dkms status zsmalloc_mod | grep -v '^zsmalloc_mod/$VERSION,' | grep -q ."
	got=$(cat "/sys/module/zsmalloc_mod/parameters/$PARAM" 2>/dev/null)
	check "/etc/modprobe.d took effect at boot: $PARAM=$got" [ "$got" = "$PARAM_VALUE" ]
	check "zsmalloc_mod has a debugfs pool directory" \
		bash -c 'ls -d /sys/kernel/debug/zsmalloc_mod/zswap* >/dev/null 2>&1'
else
	check "no zsmalloc_mod module is installed (modinfo fails)" bash -c '! modinfo zsmalloc_mod >/dev/null 2>&1'
	check "zsmalloc_mod is not loaded" [ ! -d /sys/module/zsmalloc_mod ]
	check "kernel log: zpool zsmalloc_mod not available, using default zsmalloc" \
		grep -q 'zswap: zpool zsmalloc_mod not available, using default zsmalloc' /tmp/dmesg.txt
	check "dkms status lists no zsmalloc_mod" bash -c '! dkms status zsmalloc_mod 2>/dev/null | grep -q .'
fi

# --- the workload: a memcg smaller than its working set, through zswap ------
swapon --show=NAME,SIZE,USED --noheadings | sed 's/^/# swap: /' >&3
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
out0=$(vm zswpout) in0=$(vm zswpin)
max=0 ours=0
systemd-run --quiet --scope -p MemoryMax="$MEMMAX" -p MemorySwapMax=infinity \
	/usr/local/bin/zsmod-verify "$WORKMIB" 2 >/tmp/verify.out 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	s=$(cat /sys/kernel/debug/zswap/pool_total_size 2>/dev/null || echo 0)
	[ "$s" -gt "$max" ] && max=$s
	# zsmalloc_mod's own count of its pages, over all its pools
	p=$(cat /sys/kernel/debug/zsmalloc_mod/*/stats 2>/dev/null | awk '$1 == "pages_used" { t += $2 } END { print t + 0 }')
	[ "$p" -gt "$ours" ] && ours=$p
	sleep 0.5
done
wait "$pid"
rc=$?
out1=$(vm zswpout) in1=$(vm zswpin)
diag "workload ($WORKMIB MiB in MemoryMax=$MEMMAX): $(cat /tmp/verify.out), exit $rc"
diag "zswpout +$((out1 - out0)), zswpin +$((in1 - in0)), max pool_total_size $max bytes"
check "the workload read every page back byte for byte" \
	bash -c "[ $rc = 0 ] && grep -q 'mismatches=0\$' /tmp/verify.out"
check "zswpout moved (+$((out1 - out0)))" [ "$out1" -gt "$out0" ]
check "zswpin moved (+$((in1 - in0)))" [ "$in1" -gt "$in0" ]
check "pool_total_size > 0 during the run (max $max)" [ "$max" -gt 0 ]
if [ "$MODE" = package ]; then
	check "zsmalloc_mod held the pages: its pages_used reached $ours ($((ours * 4096)) bytes; zswap's max pool_total_size $max)" \
		[ "$ours" -gt 0 ]
fi

# --- the system as a whole ---------------------------------------------------
check "multi-user.target is active" systemctl -q is-active multi-user.target
check "default target $(systemctl get-default) is active" systemctl -q is-active "$(systemctl get-default)"
failed=$(systemctl --failed --no-legend --plain | paste -sd' ')
check "systemctl --failed lists no unit${failed:+ ($failed)}" [ -z "$failed" ]
dmesg | grep -Ei 'zsmalloc_mod|zswap' | tail -3 | sed 's/^/# dmesg (end): /' >&3
finish
