#!/bin/sh
# The source tree of make bench's realwork phase: a part of Debian's
# linux-source-6.1 (/usr/src/linux-source-6.1.tar.xz, package
# linux-source-6.1), packed once into a plain tar in the cache, which
# scripts/initramfs.sh puts into the guest as /lib/vfsb/src.tar.
# Usage: bench-src.sh [SIZE]   Prints the tar's path.
#   SIZE: small (default; drivers/staging: 275 directories, 1728 files,
#   22 MB) or full (drivers/staging, drivers/net, drivers/media, sound,
#   net, fs and arch/arm64: 1242 directories, about 21000 files, 350 MB;
#   the guest then needs VFSB_GUEST_MEM=3072 or more)
# Environment: VFSB_KCACHE's parent (default /var/cache/vfsbarrier)
# holds the tar; VFSB_LINUX_SOURCE: another linux-source tarball.
set -eu
size=${1:-small}
case $size in
small) parts="drivers/staging" ;;
full) parts="drivers/staging drivers/net drivers/media sound net fs arch/arm64" ;;
*) echo "bench-src: SIZE is small or full, not $size" >&2; exit 2 ;;
esac
src=${VFSB_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
cache=$(dirname "${VFSB_KCACHE:-/var/cache/vfsbarrier/kernels}")/bench
out=$cache/linux-6.1-$size.tar
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi
if [ ! -f "$src" ]; then
	echo "bench-src: no $src (apt-get install linux-source-6.1)" >&2
	exit 1
fi
top=$(basename "$src")
top=${top%%.tar*}
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/src.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
members=
for p in $parts; do
	members="$members $top/$p"
done
# shellcheck disable=SC2086 # $members: one member per word
tar -xJf "$src" -C "$tmp" $members
# one top directory, "linux", owned by root, in name order
# shellcheck disable=SC2086 # $parts: one directory per word
tar -C "$tmp/$top" --sort=name --owner=0 --group=0 --numeric-owner \
	--transform 's,^,linux/,' -cf "$tmp/out.tar" $parts
mv "$tmp/out.tar" "$out"
echo "$out"
