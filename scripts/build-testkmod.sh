#!/bin/sh
# Build the selftests' test module (selftests/kmod) for one kernel, next
# to the main module's build: build/<release>/src/testkmod. It is built
# with kbuild whether the module under test comes from DKMS or not: it
# is no part of what gets installed.
# Usage: build-testkmod.sh KREL KDIR   Prints the .ko path.
set -eu
krel=$1 kdir=$2
top=$(cd "$(dirname "$0")/.." && pwd)
dst=${VFSB_BUILD:-$top/build}/$krel/src
mkdir -p "$dst/testkmod"
# Copy only what changed, so that kbuild's own dependency tracking holds.
cp -ru "$top/selftests/kmod/." "$dst/testkmod/"
# In the kernel's build chroot when it names one (see build-module.sh).
"$top"/scripts/kernels/chroot-run.sh --kdir "$kdir" "$dst" -- \
	make -s -C "$kdir" M="$dst/testkmod" modules >&2
echo "$dst/testkmod/vfsb_testkmod.ko"
