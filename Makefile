# SPDX-License-Identifier: GPL-2.0
#
# zsmalloc_mod: a zpdesc-based zsmalloc as a zpool backend for zswap.
# `make help` lists the targets.

# Kernel build tree to build against. Default: the running kernel's; when
# that has no build tree, the newest installed Debian 6.12 headers.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(sort $(wildcard /usr/src/linux-headers-6.12.*-amd64))))

PWD := $(CURDIR)
KMAKE = $(MAKE) -C $(KDIR) M=$(PWD)

.PHONY: all modules clean modules_install lint check demo kunit kunit-run bench \
	stress docs deps deb help

all: modules

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "No kernel build tree: set KDIR=/path/to/build (or run make deps)"; \
		exit 1; }
	$(KMAKE) modules

clean:
	$(if $(KDIR),$(KMAKE) clean,)
	$(if $(wildcard selftests/Makefile),$(MAKE) -C selftests clean)
	rm -rf out

# Kbuild skips depmod when the build tree has no System.map (Debian's
# headers), so run it here.
modules_install:
	$(KMAKE) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$$(cat $(KDIR)/include/config/kernel.release)

# checkpatch (from the linux-source-6.12 tree) and sparse, on every file we own.
lint:
	./scripts/lint.sh

deps:
	./vm/deps.sh

# Every test suite: stock Debian 6.12 guest, then the KUnit test kernel.
check:
	./scripts/check.sh

# Boot the stock kernel, select zsmalloc_mod in zswap, swap, show stats.
demo:
	./scripts/demo.sh

# KUnit suites on our 6.12 test kernel, verdict by kunit.py parse.
kunit:
	./kunit/run.sh

# The same suites built into the test kernel, run by kunit.py run; a filter
# glob as ARGS: make kunit-run ARGS='zsmalloc_mod_free.*'
kunit-run:
	set -f; ./kunit/kunitpy.sh $(ARGS)

# Side-by-side benchmarks against the in-kernel allocators.
bench:
	./bench/run.sh

# Long reliability run: make stress DURATION=600
stress:
	./scripts/stress.sh $(DURATION)

docs:
	./scripts/docs.sh

# The Debian package zsmalloc-mod-dkms_<version>_all.deb, in out/deb/.
deb:
	./scripts/deb.sh

help:
	@echo 'Targets:'
	@echo '  all (default)    build zsmalloc_mod.ko (and the KUnit module on a KUnit kernel)'
	@echo '                   against KDIR; ZSMOD_BENCH=1 adds bench/zsmod_bench.ko'
	@echo '                   ZSMOD_MEMDESC=1: memdesc mode (a separately allocated zpdesc)'
	@echo '  clean            remove build products'
	@echo '  modules_install  install into /lib/modules/<kver>/updates'
	@echo '  lint             checkpatch --strict and sparse (C=2)'
	@echo '  deps             install missing packages with apt-get'
	@echo '  check            every test suite on live kernels (CI runs this)'
	@echo '  demo             zswap on zsmalloc_mod in a stock 6.12 guest'
	@echo '  kunit            KUnit suites on the 6.12 test kernel, as a module'
	@echo '  kunit-run        the same, built in, by kunit.py run (ARGS=<filter glob>)'
	@echo '  bench            benchmarks against in-kernel zsmalloc and zbud'
	@echo '  stress           long reliability run (DURATION=seconds)'
	@echo '  docs             build Documentation/ with Sphinx'
	@echo '  deb              the Debian package zsmalloc-mod-dkms (out/deb/), lintian-checked'
	@echo 'Variables: KDIR=<kernel build tree>  W=1  C=2'
