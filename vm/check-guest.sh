#!/bin/sh
# Guest side of vm/check.sh: swap on the fresh virtio disk, zswap on, then
# every selftest as one TAP stream. zsmod_tests=a+b on the kernel command
# line (vm/check.sh --only a,b) narrows the list.
# Last, the kernel's own test_zswap on the built-in zsmalloc, then on ours.
tests="roundtrip:-b,zsmalloc lifecycle badinput roundtrip writeback migrate \
kernel_test_zswap.sh:zsmalloc kernel_test_zswap.sh:zsmalloc_mod"
[ -n "$zsmod_tests" ] && tests=$(echo "$zsmod_tests" | tr '+' ' ')

if ! mkswap /dev/vda >/dev/null || ! swapon /dev/vda; then
	echo "Bail out! no swap on /dev/vda"
	exit 1
fi
echo 1 >/sys/module/zswap/parameters/enabled

# shellcheck disable=SC2086
/root/selftests/run_tests.sh -t 300 $tests
