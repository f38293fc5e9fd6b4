#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of scripts/check.sh: swap on the fresh virtio disk, zswap on,
# then every selftest as one TAP stream. zsmod_tests=a+b on the kernel
# command line (scripts/check.sh --only a,b) narrows the list.
# Last, the kernel's own test_zswap on the built-in zsmalloc, then on ours.
#
# No set -euo pipefail: zsmod_tests may be unset, and the selftests' results
# are the TAP stream (selftests/run_tests.sh), not this script's status.
. /etc/guest-lib.sh
tests="roundtrip:-b,zsmalloc lifecycle badinput roundtrip writeback migrate tracepoints \
kernel_test_zswap.sh:zsmalloc kernel_test_zswap.sh:zsmalloc_mod"
[ -n "$zsmod_tests" ] && tests=$(echo "$zsmod_tests" | tr '+' ' ')

swap_on /dev/vda || tap_bail "no swap on /dev/vda"
zswap_enable

# shellcheck disable=SC2086
/root/selftests/run_tests.sh -t 300 $tests
