# vfsbarrier: top-level targets. See README.md.
# KVER selects the target kernel (default: Debian 12's 6.1, installed by
# `make deps`); every module load happens inside a QEMU guest.
#
# `make` (all, module, lib, selftests, tools, lint) builds with what is
# installed: no root, no network. Only the targets that boot a guest
# (demo, check, check-matrix, bench) install the dependencies first
# (scripts/deps.sh: apt, as root).
KVER ?=
# The build directory; scripts/*.sh honour VFSB_BUILD the same way.
BUILD := $(if $(VFSB_BUILD),$(VFSB_BUILD),$(CURDIR)/build)

.PHONY: all deps module lib selftests tools lint check check-host check-matrix demo \
	bench bench-realwork profile stress crashtest clean dkms-install dkms-uninstall install \
	uninstall deb deb-check

all: module selftests tools

deps:
	@scripts/deps.sh

module:
	@eval "$$(scripts/kernel.sh $(KVER))" && scripts/build-module.sh "$$KREL" "$$KDIR"

lib:
	$(MAKE) -C lib BUILD=$(BUILD)
	$(MAKE) -C lib/vbjournal BUILD=$(BUILD)

# Both link libvfsb (and would build it themselves): built first, once,
# so that make -j does not build it twice at the same time.
selftests: lib
	$(MAKE) -C selftests BUILD=$(BUILD)

tools: lib
	$(MAKE) -C tools BUILD=$(BUILD)

lint:
	@KVER=$(KVER) scripts/lint.sh

# The tools' tests that need no module and no guest (make check runs
# them too): tools/tests/run-host-tests.sh.
check-host: tools
	$(MAKE) -s -C tools BUILD=$(BUILD) host-tests
	@VFSB_BUILD=$(BUILD) tools/tests/run-host-tests.sh

# Lint first: a change that is not clean does not get tested. Then the
# suite and a short crash test (scripts/check.sh).
check: deps
	@KVER=$(KVER) scripts/lint.sh
	@scripts/check.sh $(KVER)

# The change journal's crash test: CRASHES kills (default 20) of a guest
# that writes, then the check of each; KIND: 6.1 6.12 (default) 7 debug;
# MODE: one workload (scripts/crashtest.sh), such as nfs.
crashtest: deps
	@VFSB_CRASH_CYCLES=$(or $(CRASHES),20) \
		$(if $(MODE),VFSB_CRASH_MODE=$(MODE)) scripts/crashtest.sh $(KIND)

# Every kernel the archive reaches (see scripts/check-matrix.sh).
check-matrix: deps
	@scripts/check-matrix.sh

# The change journal across a crash, then the primitives (scripts/demo.sh).
demo: deps
	@scripts/demo.sh $(KVER)

# Benchmarks, side by side in one guest boot, then the per-op phase in an
# icount boot (scripts/bench.sh, BENCHMARKS.md).
bench: deps
	@scripts/bench.sh $(KVER)

# Real work only (scripts/bench-realwork.sh): one -icount boot with
# untar, cp -a, git checkout, fio and an untar through NFS, each with
# and without the journal; SIZE=full for the larger source tree.
bench-realwork: deps
	@VFSB_BENCH_REALWORK_SIZE=$(or $(SIZE),small) scripts/bench-realwork.sh $(KVER)

# Instructions per function in the steady phase's loops or the real
# work runs (scripts/profile.sh, a QEMU TCG plugin; BENCHMARKS.md):
# PHASE=steady or realwork.
profile: deps
	@scripts/profile.sh $(or $(PHASE),steady) $(KVER)

# Hooks registered and removed in a loop under write load, in
# single-threaded TCG (see scripts/stress.sh, selftests/stress/README.md);
# KINDS: 6.1 6.12 7 debug.
stress: deps
	@scripts/stress.sh $(KINDS)

# Everything built: the build directory (modules for every kernel, DKMS
# trees, libvfsb, programs, guest images) and what a kbuild run in
# module/ itself (make -C module) leaves there.
clean:
	rm -rf $(BUILD)
	find module \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name '.*.d' \
		-o -name Module.symvers -o -name modules.order \
		-o -name '*.dwo' -o -name '.tmp_versions' \) -exec rm -rf {} +

# The tools, the UAPI header, man pages, bash completion, the journal's
# systemd unit and libvbjournal (library, header, pkg-config file,
# Python module), for those who do not use the packages (the module:
# DKMS, below). DESTDIR stages, PREFIX places; STATIC= links the tools
# dynamically (the packages do).
PREFIX ?= /usr/local
UNITDIR ?= $(PREFIX)/lib/systemd/system
# libvbjournal's shared object and pkg-config file (the packages: the
# multiarch directory), and its Python module
LIBDIR ?= $(PREFIX)/lib
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
VBJ_OUT = $(BUILD)/lib/vbjournal
VBJ_SO = libvbjournal.so.1.0.0
INSTALL_FILES = \
	$(BUILD)/tools/vbctl:0755:sbin/vbctl \
	$(BUILD)/tools/vbjournald:0755:sbin/vbjournald \
	$(BUILD)/tools/vbjournal:0755:bin/vbjournal \
	include/uapi/linux/vfsbarrier.h:0644:include/linux/vfsbarrier.h \
	man/vbctl.8:0644:share/man/man8/vbctl.8 \
	man/vbjournald.8:0644:share/man/man8/vbjournald.8 \
	man/vbjournal.1:0644:share/man/man1/vbjournal.1 \
	man/vfsbarrier.4:0644:share/man/man4/vfsbarrier.4 \
	tools/vbctl/vbctl.bash-completion:0644:share/bash-completion/completions/vbctl \
	tools/journal/vbjournal.bash-completion:0644:share/bash-completion/completions/vbjournal \
	tools/journal/vbjournald.bash-completion:0644:share/bash-completion/completions/vbjournald \
	tools/journal/vbjournald.conf.example:0644:share/doc/vfsbarrier/vbjournald.conf.example \
	docs/JOURNAL-SCHEMA.md:0644:share/doc/vfsbarrier/JOURNAL-SCHEMA.md \
	lib/vbjournal/vbjournal.h:0644:include/vbjournal.h \
	man/libvbjournal.3:0644:share/man/man3/libvbjournal.3 \
	$(PUBLISH_FILES)
# vbjournal-publish, built where hiredis is (tools/Makefile)
PUBLISH_FILES = $(if $(wildcard /usr/include/hiredis/hiredis.h), \
	$(BUILD)/tools/vbjournal-publish:0755:bin/vbjournal-publish \
	man/vbjournal-publish.1:0644:share/man/man1/vbjournal-publish.1 \
	tools/publish/vbjournal-publish.bash-completion:0644:share/bash-completion/completions/vbjournal-publish)

install:
	$(MAKE) -C lib BUILD=$(BUILD)
	$(MAKE) -C lib/vbjournal BUILD=$(BUILD) PREFIX=$(PREFIX) LIBDIR=$(LIBDIR)
	$(MAKE) -C tools BUILD=$(BUILD) programs
	@set -e; for f in $(INSTALL_FILES); do \
		src=$${f%%:*}; rest=$${f#*:}; mode=$${rest%%:*}; dst=$${rest#*:}; \
		echo "install $$src -> $(DESTDIR)$(PREFIX)/$$dst"; \
		install -D -m $$mode "$$src" "$(DESTDIR)$(PREFIX)/$$dst"; \
	done
	sed 's|/usr/sbin/vbjournald|$(PREFIX)/sbin/vbjournald|' \
		tools/journal/vbjournald.service > $(BUILD)/vbjournald.service
	install -D -m 0644 $(BUILD)/vbjournald.service \
		$(DESTDIR)$(UNITDIR)/vbjournald.service
	install -D -m 0644 $(VBJ_OUT)/$(VBJ_SO) $(DESTDIR)$(LIBDIR)/$(VBJ_SO)
	ln -sf $(VBJ_SO) $(DESTDIR)$(LIBDIR)/libvbjournal.so.1
	ln -sf libvbjournal.so.1 $(DESTDIR)$(LIBDIR)/libvbjournal.so
	install -D -m 0644 $(VBJ_OUT)/vbjournal.pc \
		$(DESTDIR)$(LIBDIR)/pkgconfig/vbjournal.pc
	install -D -m 0644 lib/vbjournal/vbjournal.py \
		$(DESTDIR)$(PYTHONDIR)/vbjournal.py

uninstall:
	@for f in $(INSTALL_FILES); do \
		rm -fv "$(DESTDIR)$(PREFIX)/$${f##*:}"; \
	done
	rm -fv $(DESTDIR)$(UNITDIR)/vbjournald.service
	rm -fv $(DESTDIR)$(LIBDIR)/$(VBJ_SO) $(DESTDIR)$(LIBDIR)/libvbjournal.so.1 \
		$(DESTDIR)$(LIBDIR)/libvbjournal.so \
		$(DESTDIR)$(LIBDIR)/pkgconfig/vbjournal.pc \
		$(DESTDIR)$(PYTHONDIR)/vbjournal.py

# vfsbarrier-dkms and vfsbarrier-tools, with the Debian archive's
# debhelper and dh-dkms, into $(BUILD)/deb (scripts/deb.sh).
deb:
	@scripts/deb.sh build

# The packages as a user installs them: in a Debian 12 chroot with the
# 6.1 and 6.12 headers, DKMS builds the module; the suite runs on each
# kernel with that module; apt purge leaves nothing (scripts/deb.sh).
deb-check: deps
	@scripts/deb.sh check

# A real machine: DKMS builds it for the running kernel and every later one.
dkms-install:
	@scripts/dkms.sh install
dkms-uninstall:
	@scripts/dkms.sh uninstall
