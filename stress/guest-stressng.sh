#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of stress/stressng.sh: Debian's stress-ng, a verifying memory
# stressor, in a memcg held at its limit, zswap on lzo and zpool
# zsmalloc_mod (the reproducer of the zsmod_malloc() oops of issue 30).
#
# Kernel command line: zsng_secs=S (default 120), zsng_zpool=NAME (default
# zsmalloc_mod; zsmalloc and zbud are the controls).
# No set -euo pipefail: a failed step is a "not ok" result, and the splat
# check still runs.
. /etc/guest-lib.sh
secs=${zsng_secs:-120}
zpool=${zsng_zpool:-zsmalloc_mod}
tap_plan 2
err=
[ -b /dev/vda ] && swap_on /dev/vda || tap_bail "no swap on /dev/vda"
zswap_set compressor lzo || err="$err cannot select lzo"
zswap_set zpool "$zpool" || err="$err cannot select $zpool"
zswap_enable || err="$err cannot enable zswap"
memcg_enable && memcg_make zsng 64M || err="$err cannot make the memcg"
tap_result "setup: zswap on $zpool, memcg of 64M" "$err"
[ -z "$err" ] || tap_bail "setup failed"
# a subshell joins the memcg before stress-ng starts
(echo 0 >$CGROUP_ROOT/zsng/cgroup.procs &&
 exec /usr/bin/stress-ng --vm 2 --vm-bytes 80M --vm-method all --verify \
	-t "$secs" --metrics-brief) >/tmp/sng.out 2>&1
rc=$?
sed 's/^/# /' /tmp/sng.out | tail -15
tap_note "memcg: $(tr '\n' ' ' <$CGROUP_ROOT/zsng/memory.events)"
tap_note "zswap: stored_pages=$(zswap_stat stored_pages) reject_alloc_fail=$(zswap_stat reject_alloc_fail) written_back_pages=$(zswap_stat written_back_pages)"
tap_status $rc "stress-ng --vm 2 --vm-bytes 80M --vm-method all --verify -t $secs"
