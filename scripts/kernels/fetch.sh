#!/bin/sh
# Fetch (or build) one extra target kernel into the cache layout that
# scripts/kernel.sh understands:
#   $VFSB_KCACHE/<release>/boot/vmlinuz-<release>
#   $VFSB_KCACHE/<release>/lib/modules/<release>/   (with modules.dep)
#   $VFSB_KCACHE/<release>/usr/src/linux-headers-<release>/
# Usage: fetch.sh KIND
#   6.12   newest 6.12 amd64 kernel of bookworm-backports
#          (linux-image-REL-unsigned, linux-headers-REL, -common, kbuild;
#          headers built with gcc-12: modules build on this host directly)
#   7      newest 7.x amd64 kernel of trixie-backports (7.x splits the
#          image into linux-binary-unsigned-REL, linux-modules-REL and
#          linux-base-REL; the headers need those too); its kbuild tools
#          need glibc >= 2.38 and gcc-14, so modules for it are built in a
#          trixie chroot ($VFSB_KCACHE/../trixie-chroot); the cache root
#          gets a marker file .vfsb-build-chroot that scripts/build-module.sh
#          honours (see scripts/kernels/chroot-run.sh)
#   debug  6.1 from /usr/src/linux-source-6.1 with tinyconfig +
#          kvm_guest.config + scripts/kernels/debug.config (lockdep, KASAN,
#          kmemleak, debug objects...), built under $VFSB_KCACHE/../src
# Prints the release it produced on stdout (nothing else); progress goes
# to stderr. Idempotent: a kernel of that KIND already complete in the
# cache is reused without touching the network (VFSB_REFRESH=1 looks for a
# newer package first). Concurrent runs of the same KIND wait for each
# other (flock).
#
# Environment: VFSB_KCACHE (default /var/cache/vfsbarrier/kernels),
# VFSB_MIRROR (default http://deb.debian.org/debian), VFSB_JOBS (make -j,
# default: number of CPUs), VFSB_REFRESH=1.
#
# What it needs from apt (scripts/deps.sh installs all of it): apt and
# dpkg (dpkg-deb), kmod (depmod), util-linux (flock, unshare), dwarves
# (pahole: the 6.12/7.x headers ship BTF), xz-utils and zstd (compressed
# modules), debootstrap (KIND 7), and for KIND debug linux-source-6.1,
# build-essential, bc, flex, bison, libelf-dev, libssl-dev.
# Packages come from deb.debian.org through a private apt configuration
# under $VFSB_KCACHE/../apt: the system's apt sources, lists and package
# cache are left alone, nothing is installed on the host, and nothing is
# ever loaded into the running kernel.
set -eu

kind=${1:?usage: fetch.sh 6.12|7|debug}
here=$(cd "$(dirname "$0")" && pwd)
cache=${VFSB_KCACHE:-/var/cache/vfsbarrier/kernels}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
base=$(dirname "$cache")
mirror=${VFSB_MIRROR:-http://deb.debian.org/debian}
jobs=${VFSB_JOBS:-$(nproc)}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
logdir=$base/logs
mkdir -p "$logdir"

say() { echo "fetch[$kind]: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# One fetch per KIND at a time.
exec 9>"$base/.fetch-$kind.lock"
flock 9

# cache_complete ROOT REL: the cache root has everything kernel.sh and
# initramfs.sh need.
cache_complete() {
	[ -f "$1/boot/vmlinuz-$2" ] && [ -f "$1/lib/modules/$2/modules.dep" ] &&
		[ -e "$1/usr/src/linux-headers-$2/Makefile" ]
}

# cached KIND: newest complete release of that kind in the cache.
cached() {
	for r in "$cache"/*/; do
		[ -f "${r}.vfsb-kind" ] || continue
		[ "$(cat "${r}.vfsb-kind")" = "$1" ] || continue
		rel=$(basename "$r")
		cache_complete "${r%/}" "$rel" && echo "$rel"
	done | sort -V | tail -n 1
}

# Remove a half-made directory, never following into mounts left behind.
scrub() {
	[ -e "$1" ] || return 0
	awk -v d="$1/" 'index($2 "/", d) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do umount -l "$m" || true; done
	rm -rf --one-file-system "$1"
}

# ---- private apt ---------------------------------------------------------
# apt_setup SUITE: sets $aptdir and $apt_opts, refreshes the lists when
# they are missing, older than a day, or VFSB_REFRESH=1.
apt_setup() {
	aptdir=$base/apt/$1
	mkdir -p "$aptdir/lists/partial" "$aptdir/archives/partial" "$aptdir/cache" "$aptdir/debs"
	echo "deb [signed-by=$keyring] $mirror $1 main" > "$aptdir/sources.list"
	apt_opts="-o Dir::Etc::SourceList=$aptdir/sources.list \
-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$aptdir/lists \
-o Dir::Cache=$aptdir/cache -o Dir::Cache::Archives=$aptdir/archives \
-o Dir::State::status=/dev/null -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null \
-o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
-o APT::Sandbox::User=root -o Acquire::Languages=none"
	stamp=$aptdir/lists/.updated
	if [ "${VFSB_REFRESH:-0}" = 1 ] || [ ! -f "$stamp" ] ||
		[ -n "$(find "$stamp" -mmin +1440 2>/dev/null)" ]; then
		say "apt-get update ($1, private lists in $aptdir)"
		# shellcheck disable=SC2086
		apt-get $apt_opts -q update >"$logdir/apt-$1.log" 2>&1 ||
			{ tail -n 20 "$logdir/apt-$1.log" >&2; die "apt-get update $1 failed"; }
		touch "$stamp"
	fi
}

# shellcheck disable=SC2086
apt_cache() { apt-cache $apt_opts "$@"; }

# first_file GLOB-RESULT...: the first that is a file (an unmatched glob
# stays a pattern), or nothing.
first_file() {
	for g in "$@"; do
		[ -f "$g" ] && echo "$g" && return 0
	done
	return 0
}

# download PKG...: the .deb files into $aptdir/debs (kept, so a rebuild of
# the cache root needs no network); prints their paths.
download() {
	for p in "$@"; do
		ver=$(apt_cache show --no-all-versions "$p" 2>/dev/null | awk '/^Version:/ { print $2; exit }')
		[ -n "$ver" ] || die "package $p not found in $(basename "$aptdir")"
		# apt-get download names it PKG_VERSION_ARCH.deb, ':' as %3a.
		want="$aptdir/debs/${p}_$(echo "$ver" | sed 's/:/%3a/g')_"
		f=$(first_file "$want"*.deb)
		if [ -z "$f" ]; then
			say "downloading $p $ver"
			# shellcheck disable=SC2086
			(cd "$aptdir/debs" && apt-get $apt_opts -q download "$p=$ver" >&2) ||
				die "apt-get download $p failed"
			f=$(first_file "$want"*.deb)
			[ -n "$f" ] || die "apt-get download $p left no $want*.deb"
		fi
		echo "$f"
	done
}

# deps_of PKG: the kernel packages PKG depends on (headers-common,
# kbuild, linux-base; the image is already in the list).
deps_of() {
	apt_cache depends --no-recommends --no-suggests "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-(headers|kbuild|base)/ { print $2 }'
}

# ---- trixie chroot (for 7.x) ---------------------------------------------
make_chroot() {
	ch=$base/trixie-chroot
	if [ -f "$ch/.vfsb-complete" ]; then
		chroot_dkms
		return 0
	fi
	say "creating the trixie build chroot $ch (debootstrap minbase, ~1 min, ~460 MB)"
	t0=$(date +%s)
	scrub "$ch.tmp"
	debootstrap --variant=minbase --keyring="$keyring" \
		--include=gcc-14,make,pahole,libelf1t64,libssl3t64,zlib1g,kmod,dkms \
		trixie "$ch.tmp" "$mirror" >"$logdir/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$logdir/debootstrap.log" >&2; scrub "$ch.tmp"; die "debootstrap failed (log: $logdir/debootstrap.log)"; }
	# The cache is bind-mounted at its own path inside the chroot.
	mkdir -p "$ch.tmp$cache"
	date > "$ch.tmp/.vfsb-complete"
	scrub "$ch"
	mv "$ch.tmp" "$ch"
	say "chroot ready in $(($(date +%s) - t0))s"
}

# chroot_dkms: the DKMS build of the module for 7.x runs dkms inside the
# chroot (scripts/dkms.sh); chroots made before dkms was in the package
# list get it from the trixie archive here, once.
chroot_dkms() {
	[ -x "$ch/usr/sbin/dkms" ] && return 0
	say "installing dkms into the build chroot $ch"
	cp /etc/resolv.conf "$ch/etc/resolv.conf"
	"$here"/chroot-run.sh "$ch" -- sh -c \
		"apt-get -q update && apt-get -qy install --no-install-recommends dkms" \
		>"$logdir/chroot-dkms.log" 2>&1 ||
		{ tail -n 20 "$logdir/chroot-dkms.log" >&2; die "installing dkms in the chroot failed (log: $logdir/chroot-dkms.log)"; }
}

# ---- Debian kernel packages (6.12, 7) --------------------------------------
# fetch_debian SUITE IMAGE_REGEX [chroot]
fetch_debian() {
	suite=$1 regex=$2 inchroot=${3:-}
	have=$(cached "$kind")
	if [ -n "$have" ] && [ "${VFSB_REFRESH:-0}" != 1 ]; then
		[ -z "$inchroot" ] || make_chroot
		say "cached: $have"
		echo "$have"
		return 0
	fi
	apt_setup "$suite"
	hdrpkg=$(apt_cache pkgnames linux-headers- | grep -E "$regex" | sort -V | tail -n 1)
	[ -n "$hdrpkg" ] || die "no package matching $regex in $suite"
	rel=${hdrpkg#linux-headers-}
	# The kernel itself: up to 6.12 one linux-image-REL-unsigned package;
	# from 7.x split into linux-binary-unsigned-REL (vmlinuz),
	# linux-modules-REL and linux-base-REL (config, modules.builtin...).
	if apt_cache show "linux-image-$rel-unsigned" >/dev/null 2>&1; then
		img="linux-image-$rel-unsigned"
	elif apt_cache show "linux-binary-unsigned-$rel" >/dev/null 2>&1; then
		img="linux-binary-unsigned-$rel linux-modules-$rel"
	else
		die "no unsigned image package for $rel in $suite"
	fi
	say "newest in $suite: $rel ($img)"
	[ -z "$inchroot" ] || make_chroot
	root=$cache/$rel
	if cache_complete "$root" "$rel" && [ -f "$root/.vfsb-kind" ]; then
		say "cached: $rel"
		echo "$rel"
		return 0
	fi

	pkgs="$img $hdrpkg"
	for p in $pkgs; do
		for d in $(deps_of "$p"); do
			pkgs="$pkgs $d"
			for dd in $(deps_of "$d"); do pkgs="$pkgs $dd"; done
		done
	done
	pkgs=$(echo "$pkgs" | tr ' ' '\n' | awk 'NF && !seen[$0]++')
	# package names: no blanks, one word each
	# shellcheck disable=SC2086
	debs=$(download $pkgs)

	tmp=$cache/.tmp-$rel
	scrub "$tmp"
	mkdir -p "$tmp"
	for f in $debs; do
		say "extracting $(basename "$f")"
		dpkg-deb -x "$f" "$tmp"
	done
	# trixie's packages ship /usr/lib/modules; kmod looks in /lib/modules.
	if [ ! -d "$tmp/lib/modules" ] && [ -d "$tmp/usr/lib/modules" ]; then
		if [ -e "$tmp/lib" ]; then
			ln -s ../usr/lib/modules "$tmp/lib/modules"
		else
			ln -s usr/lib "$tmp/lib"
		fi
	fi
	# 7.x ships the image as lib/modules/REL/vmlinuz[.unsigned] only.
	if [ ! -f "$tmp/boot/vmlinuz-$rel" ]; then
		for v in vmlinuz.unsigned vmlinuz; do
			[ -f "$tmp/lib/modules/$rel/$v" ] || continue
			mkdir -p "$tmp/boot"
			cp "$tmp/lib/modules/$rel/$v" "$tmp/boot/vmlinuz-$rel"
			break
		done
	fi
	hdr=$tmp/usr/src/linux-headers-$rel
	[ -f "$hdr/Makefile" ] || die "headers package has no $hdr/Makefile"
	[ -f "$tmp/boot/vmlinuz-$rel" ] || die "image package has no boot/vmlinuz-$rel"
	# The arch headers' stub Makefile includes the common headers by an
	# absolute path (and 7.x sets KBUILD_OUTPUT to its own absolute path):
	# point them at the extracted copy (its final location).
	sed -i -e "s|^include /usr/src/|include $root/usr/src/|" \
		-e "s|^KBUILD_OUTPUT *= */usr/src/|KBUILD_OUTPUT=$root/usr/src/|" "$hdr/Makefile"
	if grep -n '[ =]/usr/src/' "$hdr/Makefile" >&2; then
		die "unexpected absolute path left in $hdr/Makefile"
	fi
	# Absolute symlinks would point into the host's /usr: make them
	# relative to the cache root.
	find "$tmp" -type l -lname '/*' | while read -r l; do
		t=$(readlink "$l")
		ln -sfn "$root$t" "$l"
	done
	say "depmod -b $root $rel"
	depmod -b "$tmp" "$rel" || die "depmod failed"
	echo "$kind" > "$tmp/.vfsb-kind"
	echo "$pkgs" > "$tmp/.vfsb-packages"
	[ -z "$inchroot" ] || echo "$base/trixie-chroot" > "$tmp/.vfsb-build-chroot"
	scrub "$root"
	mv "$tmp" "$root"
	# depmod ran on the temporary path; the files it wrote hold no paths.
	cache_complete "$root" "$rel" || die "incomplete cache root $root"
	say "ready: $root"
	echo "$rel"
}

# ---- debug kernel (6.1 with lockdep, KASAN, kmemleak) ---------------------
fetch_debug() {
	frag=$here/debug.config
	have=$(cached debug)
	if [ -n "$have" ] && cmp -s "$frag" "$cache/$have/.vfsb-fragment"; then
		say "cached: $have"
		echo "$have"
		return 0
	fi
	src=/usr/src/linux-source-6.1
	tree=$base/src/linux-6.1-vfsb-debug
	mk() { make -C "$tree" LOCALVERSION= "$@"; }
	if [ ! -f "$tree/.vfsb-unpacked" ]; then
		scrub "$tree"
		mkdir -p "$tree"
		if [ -f "$src/Makefile" ] && [ -f "$src/kernel/configs/kvm_guest.config" ]; then
			say "copying $src to $tree"
			cp -a "$src/." "$tree/"
		elif [ -f "$src.tar.xz" ]; then
			say "unpacking $src.tar.xz to $tree"
			tar -C "$tree" --strip-components=1 -xf "$src.tar.xz"
		else
			die "no $src or $src.tar.xz (apt-get install linux-source-6.1)"
		fi
		# A tree with a stale configuration or objects cannot be used.
		[ ! -f "$tree/.config" ] || mk -s mrproper
		touch "$tree/.vfsb-unpacked"
	fi

	if ! cmp -s "$frag" "$tree/.vfsb-fragment"; then
		say "configuring: tinyconfig + kvm_guest.config + $(basename "$frag")"
		mk tinyconfig kvm_guest.config >"$logdir/debug-config.log" 2>&1 ||
			{ tail -n 20 "$logdir/debug-config.log" >&2; die "make tinyconfig failed"; }
		cat "$frag" >> "$tree/.config"
		mk olddefconfig >>"$logdir/debug-config.log" 2>&1 ||
			{ tail -n 20 "$logdir/debug-config.log" >&2; die "make olddefconfig failed"; }
		# kconfig drops what it cannot satisfy without a word: check.
		bad=$(awk -v cfg="$tree/.config" '
			BEGIN { while ((getline l < cfg) > 0) {
				if (l ~ /^CONFIG_/) { split(l, kv, "="); val[kv[1]] = substr(l, length(kv[1]) + 2) }
			} }
			/^CONFIG_LOCALVERSION=/ { next }
			/^CONFIG_/ { split($0, kv, "="); want = substr($0, length(kv[1]) + 2)
				if (val[kv[1]] != want) printf " %s=%s(got:%s)", kv[1], want, (kv[1] in val) ? val[kv[1]] : "unset" }
			/^# CONFIG_.* is not set/ { if (val[$2] == "y" || val[$2] == "m") printf " %s=n(got:%s)", $2, val[$2] }
			' "$frag")
		[ -z "$bad" ] || die "configuration lacks:$bad"
		cp "$frag" "$tree/.vfsb-fragment"
	fi
	say "building in $tree (make -j$jobs bzImage modules; about 11 min on 2 CPUs; log $logdir/debug-build.log)"
	t0=$(date +%s)
	rm -f "$logdir/debug-build.rc"
	{ mk -j"$jobs" bzImage modules 2>&1; echo $? > "$logdir/debug-build.rc"; } |
		tee "$logdir/debug-build.log" |
		awk -v k="$kind" '
			/ error |Error [0-9]|error:/ { print "fetch[" k "]: " $0 > "/dev/stderr" }
			NR % 500 == 0 { printf "fetch[%s]: ... %d build steps: %s\n", k, NR, $0 > "/dev/stderr" }'
	[ "$(cat "$logdir/debug-build.rc")" = 0 ] ||
		{ tail -n 30 "$logdir/debug-build.log" >&2; die "kernel build failed (log: $logdir/debug-build.log)"; }
	# Known only once the build has synced the configuration.
	rel=$(cat "$tree/include/config/kernel.release")
	say "built $rel in $(($(date +%s) - t0))s"

	root=$cache/$rel
	tmp=$cache/.tmp-$rel
	scrub "$tmp"
	mkdir -p "$tmp/boot" "$tmp/usr/src"
	mk -s modules_install INSTALL_MOD_PATH="$tmp" >"$logdir/debug-install.log" 2>&1 ||
		{ tail -n 20 "$logdir/debug-install.log" >&2; die "modules_install failed"; }
	cp "$tree/arch/x86/boot/bzImage" "$tmp/boot/vmlinuz-$rel"
	cp "$tree/System.map" "$tmp/boot/System.map-$rel"
	cp "$tree/.config" "$tmp/boot/config-$rel"
	# External modules build against the tree itself: make -C TREE M=...
	ln -s "$tree" "$tmp/usr/src/linux-headers-$rel"
	depmod -b "$tmp" "$rel" || die "depmod failed"
	echo debug > "$tmp/.vfsb-kind"
	cp "$frag" "$tmp/.vfsb-fragment"
	scrub "$root"
	mv "$tmp" "$root"
	cache_complete "$root" "$rel" || die "incomplete cache root $root"
	say "ready: $root"
	echo "$rel"
}

case "$kind" in
6.12) fetch_debian bookworm-backports '^linux-headers-6\.12\.[0-9]+\+[^-]*-amd64$' ;;
7) fetch_debian trixie-backports '^linux-headers-7\.[0-9]+(\.[0-9]+)?\+[^-]*-amd64$' chroot ;;
debug) fetch_debug ;;
*) die "unknown KIND '$kind' (6.12, 7 or debug)" ;;
esac
