# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The guest library: what every script that runs inside a test guest needs,
# written once. vm/initramfs.sh installs it as /etc/guest-lib.sh in every
# initramfs; the guest scripts (vm/guest-*.sh, kunit/guest-kunit.sh,
# stress/guest-*.sh, bench/guest-bench.sh, Documentation/guest-*.sh) start
# with
#
#   . /etc/guest-lib.sh
#
# Busybox ash (the guests' /bin/sh, busybox-static) and POSIX sh: no arrays,
# no [[ ]] (`local` is fine). Sourcing it only defines functions and variables.
#
# No set -euo pipefail: a library must not change its caller's shell options
# (most guest scripts report each failed step as a TAP result and go on).

# ---- paths -------------------------------------------------------------
ZSWAP_PARAMS=/sys/module/zswap/parameters	# zswap's module parameters
ZSWAP_DEBUG=/sys/kernel/debug/zswap		# zswap's counters (once enabled)
ZSMOD_DEBUG=/sys/kernel/debug/zsmalloc_mod	# one directory per pool of ours
CGROUP_ROOT=/sys/fs/cgroup			# cgroup v2, mounted by /init

# ---- TAP ---------------------------------------------------------------
# Results are numbered by tap_n; tap_failed becomes 1 at the first "not ok".
tap_n=0 tap_failed=0
tap_plan() {	# tap_plan N: the header and the plan
	echo "TAP version 13"
	echo "1..$1"
}
tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n $*"; }
tap_nok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n $*"; tap_failed=1; }
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1 # SKIP $2"; }	# tap_skip NAME REASON
tap_note() { echo "# $*"; }
tap_bail() {	# tap_bail [REASON]: end the stream and the script
	echo "Bail out!${1:+ $1}"
	exit 1
}
# tap_status STATUS NAME: ok when STATUS is 0, else "not ok NAME # rc=STATUS"
tap_status() {
	if [ "$1" = 0 ]; then tap_ok "$2"; else tap_nok "$2 # rc=$1"; fi
}
# tap_result NAME ERRORS: ok when ERRORS is empty, else "not ok NAME #ERRORS"
# (ERRORS as collected by err="$err text": it starts with a blank)
tap_result() {
	if [ -z "$2" ]; then tap_ok "$1"; else tap_nok "$1 #$2"; fi
}

# ---- filesystems -------------------------------------------------------
# guest_mounts: what /init (vm/guest-init.sh) mounts before anything runs
guest_mounts() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev 2>/dev/null || mdev -s
	mount -t tmpfs tmpfs /tmp
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	mount -t cgroup2 cgroup2 $CGROUP_ROOT 2>/dev/null
}
# guest_mount TYPE DIR: mount TYPE on DIR unless something is there already
guest_mount() {
	grep -q " $2 " /proc/mounts 2>/dev/null || mount -t "$1" "$1" "$2" 2>/dev/null
}

# ---- swap --------------------------------------------------------------
swap_on() { mkswap "$1" >/dev/null && swapon "$1"; }	# swap_on DEV
# swap_brd KIB: a fresh brd RAM disk of KIB KiB, /dev/ram0 (swap_on it)
swap_brd() {
	rmmod brd 2>/dev/null
	modprobe brd rd_nr=1 rd_size="$1"
}

# ---- zswap -------------------------------------------------------------
zswap_enable() { echo 1 >$ZSWAP_PARAMS/enabled; }
zswap_get() { cat "$ZSWAP_PARAMS/$1"; }			# zswap_get PARAM
zswap_write() { echo "$2" >"$ZSWAP_PARAMS/$1"; }	# zswap_write PARAM VALUE
# zswap_set PARAM VALUE: fails when zswap does not end up with VALUE (it
# keeps its old zpool or compressor when the new one is not available)
zswap_set() {
	zswap_write "$1" "$2"
	[ "$(zswap_get "$1")" = "$2" ]
}
zswap_stat() { cat "$ZSWAP_DEBUG/$1" 2>/dev/null || echo 0; }	# zswap_stat NAME

# ---- memcg -------------------------------------------------------------
memcg_enable() { echo +memory >$CGROUP_ROOT/cgroup.subtree_control; }
# memcg_make NAME [MEMORY.MAX]: a child of the root memcg
memcg_make() {
	mkdir -p "$CGROUP_ROOT/$1" || return
	[ -z "${2:-}" ] || echo "$2" >"$CGROUP_ROOT/$1/memory.max"
}

# Fault injection (kernels with fail_page_alloc and failslab in debugfs).
FAULT_PAGE=/sys/kernel/debug/fail_page_alloc FAULT_SLAB=/sys/kernel/debug/failslab
fault_available() { [ -d $FAULT_PAGE ] && [ -d $FAULT_SLAB ]; }
# fault_setup PROBABILITY TIMES VERBOSE: both attributes for the tasks that
# set make-it-fail only, allocations that may not sleep only (ignore-gfp-
# wait), highmem and every order included; every report when VERBOSE > 0
fault_setup() {
	for _fd in $FAULT_PAGE $FAULT_SLAB; do
		echo Y >$_fd/task-filter
		echo "$1" >$_fd/probability
		echo 1 >$_fd/interval
		echo "$2" >$_fd/times
		echo 0 >$_fd/space
		echo "$3" >$_fd/verbose
		[ "$3" = 0 ] || echo 1000000 >$_fd/verbose_ratelimit_burst
		echo Y >$_fd/ignore-gfp-wait
	done
	echo N >$FAULT_PAGE/ignore-gfp-highmem
	echo 0 >$FAULT_PAGE/min-order
}
