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
# Programs the tests run, copied with their shared libraries (rsync:
# vbjournal mirror's transfers).
PROGS="mke2fs mkfs.ext4 e2fsck mkfs.btrfs mkfs.xfs rsync"

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

# add_mods LIST ORDER DIR: the modules of LIST with their dependencies,
# resolved with the target's modules.dep, into DIR under /lib/vfsb
# (decompressed: busybox insmod reads plain ELF only), their load order
# appended to ORDER (paths under /lib/vfsb); one already in /lib/vfsb is
# not copied twice.
add_mods() {
	for m in $1; do
		modprobe -d "$modroot" -S "$krel" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r path; do
		# modprobe -d prints paths that already start with MODROOT.
		case "$path" in
		"${modroot%/}"/*) src=$path ;;
		*) src="${modroot%/}/${path#/}" ;;
		esac
		base=$(basename "$path")
		base=${base%.xz} base=${base%.zst} base=${base%.gz}
		if [ -e "$root/lib/vfsb/$base" ]; then
			echo "$base" >> "$2"
			continue
		fi
		case "$path" in
		*.ko.xz) xz -dc "$src" > "$3$base" ;;
		*.ko.zst) zstd -qdc "$src" > "$3$base" ;;
		*.ko.gz) gzip -dc "$src" > "$3$base" ;;
		*) cp "$src" "$3$base" ;;
		esac
		echo "${3#"$root"/lib/vfsb/}$base" >> "$2"
	done
}
: > "$root"/etc/vfsb-modules
add_mods "$MODS" "$root"/etc/vfsb-modules "$root"/lib/vfsb/

# add_prog BIN [LIBPATH]: a dynamic program into /sbin, and its shared
# libraries at their paths (found in LIBPATH first: the servers' cache,
# whose prefix SRVROOT is taken off).
add_prog() {
	cp -L "$1" "$root"/sbin/
	LD_LIBRARY_PATH=${2:-} ldd "$1" 2>/dev/null |
		awk '/not found/ { print "MISSING " $1; next }
			/=>/ { print $3 } /^[[:space:]]*\/lib/ { print $1 }' |
	while read -r lib name; do
		if [ "$lib" = MISSING ]; then
			echo "initramfs: $1 needs $name, not found" >&2
			exit 1
		fi
		[ -f "$lib" ] || continue
		dst=${lib#"${SRVROOT:-/nonexistent}"}
		mkdir -p "$root$(dirname "$dst")"
		cp -L "$lib" "$root$dst"
	done
}

# Dynamic programs and their libraries, from this (build) machine.
for p in $PROGS; do
	bin=$(command -v "$p" || true)
	[ -n "$bin" ] || continue
	add_prog "$bin"
done

# make bench's realwork phase (tools/bench-realwork.sh), when the bench
# boot's VFSB_BENCH_ONLY names it: a part of linux-source-6.1 as a tar
# (scripts/bench-src.sh; VFSB_BENCH_REALWORK_SIZE small or full), git
# and fio (Debian's, from this machine: apt-get install git fio), and
# the file servers below. The carry phase (the same script's carry
# mode, scripts/bench-carry.sh) takes the same, but no file server.
realwork=0 carry=0
if [ "$mode" = bench ]; then
	case ",$(echo "${VFSB_BENCH_ONLY:-}" | tr " " ","),," in
	*,realwork,*) realwork=1 ;;
	esac
	case ",$(echo "${VFSB_BENCH_ONLY:-}" | tr " " ","),," in
	*,carry,*) carry=1 ;;
	esac
fi
if [ "$realwork" = 1 ] || [ "$carry" = 1 ]; then
	cp "$("$top"/scripts/bench-src.sh "${VFSB_BENCH_REALWORK_SIZE:-small}")" "$root"/lib/vfsb/src.tar
	for p in git fio; do
		bin=$(command -v "$p") || {
			echo "initramfs: no $p on this machine (apt-get install $p)" >&2
			exit 1
		}
		add_prog "$bin"
	done
fi

# The file servers (selftests/test_servers.c): nfsd with Debian's
# nfs-kernel-server and rpcbind, ksmbd with ksmbd-tools, the kernel's NFS
# and CIFS clients. Only in a guest that runs the server tests (they add
# about 10 MB of modules): VFSB_SERVERS=1 always, 0 never, auto (the
# default) when the check's test list names test_servers, or for a
# crash test boot of the nfs mode. Their modules
# are loaded when a test starts a server (guest/servers.sh), not at boot;
# the crypto ones are loaded by hand, as the guest has no modprobe for
# the kernel's requests.
servers=${VFSB_SERVERS:-auto}
if [ "$servers" = auto ]; then
	servers=0
	if [ "$mode" = check ] && grep -qw test_servers "$bindir/tests.list" 2>/dev/null; then
		servers=1
	fi
	# the crash test's nfs mode (its boot's VFSB_CRASH_MODE)
	[ "$mode" != crash ] || [ "${VFSB_CRASH_MODE:-}" != nfs ] || servers=1
	# make bench's realwork phase (its untar through NFS)
	[ "$realwork" = 0 ] || servers=1
fi
if [ "$servers" = 1 ]; then
	SRVROOT=$("$top"/scripts/servers-fetch.sh)
	mkdir -p "$root"/lib/vfsb/servers
	: > "$root"/etc/vfsb-server-modules
	add_mods "nfsd nfsv3 nfsv4 ksmbd cifs nls_utf8 md4 md5 hmac sha256 sha512 \
cmac ecb aes gcm ccm crc32 des3_ede" "$root"/etc/vfsb-server-modules "$root"/lib/vfsb/servers/
	libpath=$SRVROOT/lib/x86_64-linux-gnu:$SRVROOT/usr/lib/x86_64-linux-gnu
	for p in sbin/rpcbind usr/sbin/rpcinfo usr/sbin/rpc.nfsd usr/sbin/rpc.mountd \
		usr/sbin/exportfs usr/sbin/nfsdcld; do
		add_prog "$SRVROOT/$p" "$libpath"
	done
	# trixie's ksmbd-tools, with its own C library in /opt/ksmbd (see
	# scripts/servers-fetch.sh); one program named by argv[0]
	kroot=${SRVROOT%/root}/ksmbd/root
	klib=$kroot/usr/lib/x86_64-linux-gnu
	mkdir -p "$root"/opt/ksmbd/lib
	cp "$kroot"/usr/libexec/ksmbd.tools "$root"/opt/ksmbd/
	cp -L "$klib"/ld-linux-x86-64.so.2 "$root"/opt/ksmbd/
	"$klib"/ld-linux-x86-64.so.2 --list --library-path "$klib" "$kroot"/usr/libexec/ksmbd.tools |
		awk '/=>/ { print $3 }' | while read -r lib; do
		case "$lib" in
		"$kroot"/*) cp -L "$lib" "$root"/opt/ksmbd/lib/ ;;
		*) echo "initramfs: ksmbd.tools needs $lib, not in $kroot" >&2; exit 1 ;;
		esac
	done
	for p in ksmbd.mountd ksmbd.adduser ksmbd.control; do
		printf '%s\n' '#!/bin/sh' \
			"exec /opt/ksmbd/ld-linux-x86-64.so.2 --library-path /opt/ksmbd/lib --argv0 $p /opt/ksmbd/ksmbd.tools \"\$@\"" \
			> "$root/sbin/$p"
		chmod +x "$root/sbin/$p"
	done
	for f in netconfig services protocols rpc; do
		cp "$SRVROOT/etc/$f" "$root/etc/$f"
	done
	# rpcbind runs as _rpc; the others as root
	printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' \
		'_rpc:x:100:65534::/run/rpcbind:/bin/false' \
		'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' > "$root"/etc/passwd
	printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' > "$root"/etc/group
	printf '%s\n' '127.0.0.1 localhost' '::1 localhost ip6-localhost' > "$root"/etc/hosts
	# libtirpc finds rpcbind at /var/run/rpcbind.sock
	mkdir -p "$root"/var
	ln -s ../run "$root"/var/run
	cp "$top"/guest/servers.sh "$root"/sbin/vfsb-servers
	chmod +x "$root"/sbin/vfsb-servers
fi
# Debian's redis-server and redis-cli, for the stream publisher's test
# (selftests/test_publish.c), from scripts/servers-fetch.sh's cache:
# VFSB_REDIS=1 always, 0 never, auto (the default) when the check's
# test list names test_publish.
redis=${VFSB_REDIS:-auto}
if [ "$redis" = auto ]; then
	redis=0
	if [ "$mode" = check ] && grep -qw test_publish "$bindir/tests.list" 2>/dev/null; then
		redis=1
	fi
fi
if [ "$redis" = 1 ]; then
	SRVROOT=$("$top"/scripts/servers-fetch.sh redis)
	for p in redis-server redis-cli; do
		add_prog "$SRVROOT/usr/bin/$p" "$SRVROOT/usr/lib/x86_64-linux-gnu"
	done
fi
# The dynamic loader must be at its canonical path.
mkdir -p "$root"/lib64
[ -e /lib64/ld-linux-x86-64.so.2 ] && cp -L /lib64/ld-linux-x86-64.so.2 "$root"/lib64/

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
