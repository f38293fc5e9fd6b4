#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest script behind the debugfs samples of admin-guide.rst. Run it in a
# stock Debian 6.12 guest:
#
#   abi=$(./vm/deps.sh) && make KDIR=/usr/src/linux-headers-$abi
#   ./vm/run-guest.sh --kernel /boot/vmlinuz-$abi \
#       --init-script Documentation/guest-debugfs-sample.sh \
#       --modprobe virtio_blk --disk 1G --mem 1G --smp 2 \
#       --ko zsmalloc_mod.ko --no-tap --log out/debugfs-sample.log
#
# zswap on zsmalloc_mod (loaded through its alias), a process in a 48 MiB
# memcg writes about 69 MiB to tmpfs (kernel modules, busybox copies, text,
# random bytes) and the memcg limit pushes most of it out to zswap; then
# files are deleted with auto_compact off and on, the pool is compacted
# through debugfs, and memory compaction migrates pool pages. Every step
# prints the classes/stats files it changed.
#
# No set -euo pipefail: a sample, run with --no-tap; a step that fails shows
# in the output it prints.
. /etc/guest-lib.sh
swap_on /dev/vda
zswap_write zpool zsmalloc_mod
zswap_enable
echo "# zswap zpool: $(zswap_get zpool)"
echo "# module: $(grep zsmalloc_mod /proc/modules)"
for p in /sys/module/zsmalloc_mod/parameters/*; do
	echo "# parameter $(basename "$p") = $(cat "$p")"
done

memcg_enable
memcg_make sample 48M
mount -t tmpfs -o size=600M tmpfs /mnt
sh -c '
echo $$ >/sys/fs/cgroup/sample/cgroup.procs
i=0
for f in $(find /lib/modules -name "*.ko"); do
	i=$((i + 1)); cat "$f" >/mnt/ko$i; cat "$f" >/mnt/kob$i
done
for i in $(seq 20); do cat /bin/busybox >/mnt/bb$i; done
seq 1 3000000 >/mnt/seq
dd if=/dev/urandom of=/mnt/rnd bs=1M count=8 2>/dev/null
echo "# written: $(du -sh /mnt | cut -f1)"
'
for f in $ZSWAP_DEBUG/*; do
	echo "# zswap $(basename "$f") $(cat "$f")"
done
# our pool: zswap1, the only one in this guest
for d in $ZSMOD_DEBUG/*; do :; done
echo "# pool $d"
echo "===== classes"; cat "$d/classes"
echo "===== stats"; cat "$d/stats"

echo N >/sys/module/zsmalloc_mod/parameters/auto_compact
rm -f /mnt/bb1*
sleep 5
echo "===== auto_compact=N, bb1* deleted: classes Total"; tail -1 "$d/classes"
echo 1 >"$d/compact"
echo "===== after echo 1 > compact: stats"; cat "$d/stats"
echo "===== classes Total"; tail -1 "$d/classes"
echo 2 >"$d/compact" || echo "# echo 2 > compact: refused"

echo Y >/sys/module/zsmalloc_mod/parameters/auto_compact
rm -f /mnt/bb2* /mnt/bb3 /mnt/bb4 /mnt/bb5 /mnt/bb6
echo "===== auto_compact=Y, bb2-6 deleted: classes Total"; tail -1 "$d/classes"
sleep 5
echo "===== 5 s later: classes Total"; tail -1 "$d/classes"
echo "===== stats"; cat "$d/stats"
echo 1 >/proc/sys/vm/compact_memory
echo "===== after compact_memory: stats"; cat "$d/stats"
grep -E '^(nr_zspages|zswpout|zswpin|zswpwb) ' /proc/vmstat | sed 's/^/# /'
exit 0
