# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# No set -e here: the file is sourced, the caller's options apply.
#
# Chroot helpers for a Debian root tree, sourced (not run) by
# vm/debian-image.sh and vm/debian-check.sh:
#
#   chroot_enter DIR   mount /proc, /sys and /dev (with /dev/pts) in DIR, give it
#                      the host's resolv.conf and a policy-rc.d that keeps
#                      maintainer scripts from starting services
#   chroot_run DIR CMD...  run CMD in DIR (noninteractive apt, C locale)
#   chroot_leave DIR   undo chroot_enter (idempotent: safe in an EXIT trap,
#                      also after a partial chroot_enter)
#
# Mounts are private to DIR: nothing is mounted over the host's own trees.

chroot_enter() {
	local d=$1 m
	for m in proc sys dev; do mkdir -p "$d/$m"; done
	mountpoint -q "$d/proc" || mount -t proc proc "$d/proc"
	# rbind, then rslave: the host's submounts come along, and nothing
	# mounted or unmounted under DIR propagates back to the host.
	for m in sys dev; do
		if ! mountpoint -q "$d/$m"; then
			mount --rbind "/$m" "$d/$m"
			mount --make-rslave "$d/$m"
		fi
	done
	rm -f "$d/etc/resolv.conf"
	cp -L /etc/resolv.conf "$d/etc/resolv.conf"
	mkdir -p "$d/usr/sbin"
	printf '#!/bin/sh\nexit 101\n' >"$d/usr/sbin/policy-rc.d"
	chmod 755 "$d/usr/sbin/policy-rc.d"
}

chroot_run() {
	local d=$1
	shift
	LC_ALL=C.UTF-8 LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$d" "$@"
}

chroot_leave() {
	local d=$1 m
	for m in dev sys proc; do
		if mountpoint -q "$d/$m"; then
			umount -R "$d/$m" 2>/dev/null || umount -R -l "$d/$m"
		fi
	done
	rm -f "$d/usr/sbin/policy-rc.d"
}
