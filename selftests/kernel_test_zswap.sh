#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own zswap selftest (tools/testing/selftests/cgroup/
# test_zswap.c of the 6.12 source, built as bin/test_zswap) with zswap on
# the zpool backend named by $1, for run_tests.sh. vm/guest-check.sh runs it
# once on the built-in zsmalloc and once on zsmalloc_mod in the same boot:
# both must pass every case.
#
# usage: kernel_test_zswap.sh ZPOOL
# Exit: 0 when every case passed; 1 on any failure or skip (the test itself
# exits 0 when cases skip), or when zswap does not take the backend.
set -euo pipefail
. /etc/guest-lib.sh
dir=$(dirname "$0")
zpool=${1:?usage: $0 ZPOOL}

if ! zswap_set zpool "$zpool"; then
	echo "zswap did not take zpool $zpool (it has $(zswap_get zpool))"
	exit 1
fi
echo "zswap: zpool $(zswap_get zpool), compressor $(zswap_get compressor)"

rc=0
"$dir/test_zswap" >/tmp/test_zswap.out 2>&1 || rc=$?
cat /tmp/test_zswap.out
passed=$(grep -c '^ok ' /tmp/test_zswap.out || true)
skipped=$(grep -c '^ok .*# SKIP' /tmp/test_zswap.out || true)
failed=$(grep -c '^not ok ' /tmp/test_zswap.out || true)
echo "test_zswap on $zpool: exit $rc, $passed passed (of which $skipped skipped), $failed failed"
[ "$rc" = 0 ] && [ "$failed" = 0 ] && [ "$skipped" = 0 ] && [ "$passed" -gt 0 ]
