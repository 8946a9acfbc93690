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
# A kernel fetched by scripts/kernels/fetch.sh whose kbuild tools cannot
# run here (7.x: glibc >= 2.38, gcc-14) names a build chroot in a marker
# file at its cache root; make then runs in there, with the same paths.
kroot=$(cd "$kdir/../../.." && pwd)
if [ -f "$kroot/.vfsb-build-chroot" ]; then
	"$top"/scripts/kernels/chroot-run.sh "$(cat "$kroot/.vfsb-build-chroot")" \
		"$kroot" "$dst" -- make -s -C "$kdir" M="$dst/module" "$@" modules >&2
else
	make -s -C "$kdir" M="$dst/module" "$@" modules >&2
fi
echo "$dst/module/vfsbarrier.ko"
