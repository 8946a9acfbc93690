# vfsbarrier: top-level targets. See README.md.
# KVER selects the target kernel (default: Debian 12's 6.1, installed by
# `make deps`); every module load happens inside a QEMU guest.
KVER ?=

.PHONY: all deps module selftests tools check demo lint clean

all: module selftests tools

deps:
	@scripts/deps.sh

module: deps
	@eval "$$(scripts/kernel.sh $(KVER))" && scripts/build-module.sh "$$KREL" "$$KDIR"

selftests: deps
	$(MAKE) -C selftests

tools:
	$(MAKE) -C tools

# Lint first: a change that is not kernel-clean does not get tested.
check: deps lint
	@scripts/run-guest.sh check $(KVER)

lint: deps
	@KVER=$(KVER) scripts/lint.sh

demo: deps
	@scripts/run-guest.sh demo $(KVER)

clean:
	rm -rf build
	find module -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name Module.symvers -o -name modules.order | xargs rm -f

# Every kernel the archive reaches (see scripts/check-matrix.sh).
check-matrix: deps
	@scripts/check-matrix.sh
.PHONY: check-matrix

# Benchmarks, side by side in one guest boot (see BENCHMARKS.md).
bench: deps
	@scripts/run-guest.sh bench $(KVER)
.PHONY: bench

# A real machine: DKMS builds it for the running kernel and every later one.
dkms-install:
	@scripts/dkms.sh install
dkms-uninstall:
	@scripts/dkms.sh uninstall
.PHONY: dkms-install dkms-uninstall
