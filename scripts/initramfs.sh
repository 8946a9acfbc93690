#!/bin/sh
# Pack the guest's initramfs: busybox, the in-tree modules the tests need
# (with their dependencies, in load order), vfsbarrier.ko, the selftests,
# the tools and the user-space programs the tests call, with their
# libraries.
# Usage: initramfs.sh OUT.cpio.gz KREL MODROOT VFSB_KO STAGE_BIN_DIR MODE [TEST_KO]
#   MODE: check | demo | bench | stress  (what guest/init runs)
#   TEST_KO: the selftests' test module (scripts/build-testkmod.sh), put
#   at /lib/vfsb/vfsb_testkmod.ko for the tests to load themselves
set -eu
out=$1 krel=$2 modroot=$3 ko=$4 bindir=$5 mode=$6 testko=${7:-}
top=$(cd "$(dirname "$0")/.." && pwd)

# In-tree modules the guest may need; missing ones (built-in on some
# kernels) are skipped.
MODS="virtio_pci virtio_blk ext4 btrfs xfs fuse overlay loop"
# Programs the tests run, copied with their shared libraries.
PROGS="mke2fs mkfs.ext4 e2fsck mkfs.btrfs mkfs.xfs"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/bin "$root"/sbin "$root"/lib/vfsb "$root"/tests "$root"/etc \
	"$root"/proc "$root"/sys "$root"/dev "$root"/tmp "$root"/mnt "$root"/root

cp /bin/busybox "$root"/bin/busybox
cp "$top"/guest/init "$root"/init
chmod +x "$root"/init
echo "$mode" > "$root"/etc/vfsb-mode
# DKMS compresses the module like the kernel's own (.ko.xz on kernels
# built with MODULE_COMPRESS_XZ); busybox insmod reads plain ELF only.
case "$ko" in
*.ko.xz) xz -dc "$ko" > "$root"/lib/vfsb/vfsbarrier.ko ;;
*.ko.zst) zstd -qdc "$ko" > "$root"/lib/vfsb/vfsbarrier.ko ;;
*.ko.gz) gzip -dc "$ko" > "$root"/lib/vfsb/vfsbarrier.ko ;;
*) cp "$ko" "$root"/lib/vfsb/vfsbarrier.ko ;;
esac
[ -z "$testko" ] || cp "$testko" "$root"/lib/vfsb/vfsb_testkmod.ko
cp -r "$bindir"/. "$root"/tests/

# Modules: resolve dependencies with the target's modules.dep, decompress
# what is compressed (busybox insmod reads plain ELF only), and write the
# load order.
: > "$root"/etc/vfsb-modules
for m in $MODS; do
	modprobe -d "$modroot" -S "$krel" --show-depends "$m" 2>/dev/null |
		awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r path; do
	# modprobe -d prints paths that already start with MODROOT.
	case "$path" in
	"${modroot%/}"/*) src=$path ;;
	*) src="${modroot%/}/${path#/}" ;;
	esac
	base=$(basename "$path")
	case "$base" in
	*.ko.xz) xz -dc "$src" > "$root/lib/vfsb/${base%.xz}"; base=${base%.xz} ;;
	*.ko.zst) zstd -qdc "$src" > "$root/lib/vfsb/${base%.zst}"; base=${base%.zst} ;;
	*.ko.gz) gzip -dc "$src" > "$root/lib/vfsb/${base%.gz}"; base=${base%.gz} ;;
	*) cp "$src" "$root/lib/vfsb/$base" ;;
	esac
	echo "$base" >> "$root"/etc/vfsb-modules
done

# Dynamic programs and their libraries, from this (build) machine.
for p in $PROGS; do
	bin=$(command -v "$p" || true)
	[ -n "$bin" ] || continue
	cp -L "$bin" "$root"/sbin/
	ldd "$bin" 2>/dev/null | awk '/=>/ { print $3 } /^[[:space:]]*\/lib/ { print $1 }' |
	while read -r lib; do
		[ -f "$lib" ] || continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done
# The dynamic loader must be at its canonical path.
mkdir -p "$root"/lib64
[ -e /lib64/ld-linux-x86-64.so.2 ] && cp -L /lib64/ld-linux-x86-64.so.2 "$root"/lib64/

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
