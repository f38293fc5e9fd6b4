#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test guests built by vm/initramfs.sh.
#
# Mounts the usual filesystems, loads /etc/modules-load, then runs
# /etc/test.sh. The script's stdout is the TAP stream: it goes to the second
# serial port (/dev/ttyS1, captured by the host as the .tap file, free of
# kernel messages) and is echoed on the console so that the console log shows
# each result next to the kernel messages it caused. stderr goes to the
# console only. Finally "# guest-init: exit N" (N = the script's status) ends
# the TAP stream, and reboot -f makes qemu (-no-reboot) exit.
#
# No set -euo pipefail: /init must reach the reboot whatever fails (a dying
# init is a kernel panic), and the test script's status is reported instead.
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root

. /etc/guest-lib.sh
guest_mounts

[ -c /dev/console ] || mknod /dev/console c 5 1
[ -c /dev/ttyS1 ] || mknod /dev/ttyS1 c 4 65
# Raw mode: no "\n" -> "\r\n" translation, no echo back into the stream.
stty -F /dev/ttyS1 raw -echo 115200 2>/dev/null
export TAP_DEV=/dev/ttyS1

exec </dev/null >/dev/console 2>&1

echo "guest-init: kernel $(uname -r), cmdline: $(cat /proc/cmdline)"
while read -r m; do
	[ -n "$m" ] && { modprobe "$m" || echo "guest-init: modprobe $m failed"; }
done </etc/modules-load

# run-guest.sh --disk passes zsmod_disk=vda on the command line (the kernel
# hands unknown parameters to init as environment variables). The device of a
# freshly loaded driver shows up asynchronously: wait for it.
if [ -n "$zsmod_disk" ]; then
	for _ in $(seq 100); do
		[ -b "/dev/$zsmod_disk" ] && break
		sleep 0.1
	done
	[ -b "/dev/$zsmod_disk" ] || echo "guest-init: /dev/$zsmod_disk did not appear"
fi

cd /root || exit 1
{
	sh /etc/test.sh 2>/dev/console
	echo "# guest-init: exit $?"
} | tee "$TAP_DEV"

sync
echo "guest-init: done, rebooting"
reboot -f
sleep 10
