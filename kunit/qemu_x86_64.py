# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the zsmalloc_mod suites: tools/testing/kunit's
# x86_64 machine, with what the suites need and this host allows.
#   -accel tcg,thread=single  no usable KVM here (nested guests die)
#   -smp 2                    frees queued per CPU, hotplug, racing readers
#   -m 2G                     room for the pools (kunit.py's -m 1024 comes
#                             first on qemu's command line; the last wins)
#   numa=fake=2               two nodes; movablecore=50%: ZONE_MOVABLE, which
#                             alloc_contig_range() migrates our pages out of
#   oops=panic panic=-1       an oops ends the run (qemu -no-reboot)
#   watchdog_thresh=30        TCG is slow: no false soft lockups
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 numa=fake=2 movablecore=50% '
					       'oops=panic panic=-1 watchdog_thresh=30 '
					       'no_timer_check',
			   extra_qemu_params=['-accel', 'tcg,thread=single',
					      '-smp', '2', '-m', '2G',
					      '-bios', 'qboot.rom'])
