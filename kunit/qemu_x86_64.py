# SPDX-License-Identifier: GPL-2.0
#
# kunit.py --qemu_config for the zsmalloc_mod suites: tools/testing/kunit's
# x86_64 machine, with what the suites need and this host allows.
#   -accel tcg,thread=multi   no usable KVM here (nested guests die); one
#                             host thread per vCPU, so that the two really
#                             run at once: KCSAN's watchpoints (an 80 us
#                             stall) see the other CPU only then, never
#                             under single-threaded TCG's 100 ms turns
#   -cpu qemu64,-cx16         QEMU 7.2's multi-threaded TCG corrupts EFLAGS
#                             after cmpxchg16b (vm/run-guest.sh says more)
#   -smp 2                    frees queued per CPU, hotplug, racing readers
#   -m 2G                     room for the pools (kunit.py's -m 1024 comes
#                             first on qemu's command line; the last wins)
#   kunit/cmdline             the command line both kinds of run share
#   oops=panic panic=-1       an oops ends the run (qemu -no-reboot)
#   watchdog_thresh=30        TCG is slow: no false soft lockups
import os

from ..qemu_config import QemuArchParams

with open(os.path.join(os.path.dirname(__file__), 'cmdline')) as f:
    SHARED_CMDLINE = ' '.join(line.strip() for line in f
                              if line.strip() and not line.startswith('#'))

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 oops=panic panic=-1 '
					       'watchdog_thresh=30 ' + SHARED_CMDLINE,
			   extra_qemu_params=['-accel', 'tcg,thread=multi',
					      '-cpu', 'qemu64,-cx16',
					      '-smp', '2', '-m', '2G',
					      '-bios', 'qboot.rom'])
