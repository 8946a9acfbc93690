#!/bin/sh
# Build vfsbarrier.ko for one kernel in its own directory, so that several
# kernels can be built side by side: build/<release>/src/module.
# Usage: build-module.sh KREL KDIR [extra make args]   Prints the .ko path.
set -eu
krel=$1 kdir=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
dst=${VFSB_BUILD:-$top/build}/$krel/src
mkdir -p "$dst"
# Copy only what changed, so that kbuild's own dependency tracking holds.
for d in module include; do
	mkdir -p "$dst/$d"
	cp -ru "$top/$d/." "$dst/$d/"
done
# module/Kbuild reads the release string from dkms.conf
cp -u "$top/dkms.conf" "$dst/"
# In the kernel's build chroot when it names one (7.x: its kbuild tools
# need glibc >= 2.38 and gcc-14; see scripts/kernels/chroot-run.sh).
"$top"/scripts/kernels/chroot-run.sh --kdir "$kdir" "$dst" -- \
	make -s -C "$kdir" M="$dst/module" "$@" modules >&2
echo "$dst/module/vfsbarrier.ko"
