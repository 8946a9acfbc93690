#!/bin/sh
# Debian packages (make deb).
#   deb.sh build     vfsbarrier-dkms, vfsbarrier-tools, libvbjournal1,
#                    libvbjournal-dev and python3-vbjournal, built with the
#                    archive's debhelper and dh-dkms (debian/) from a copy
#                    of the tree, into $VFSB_BUILD/deb; then lintian, which
#                    must report no error. Installs its build dependencies
#                    (apt, as root) when they are missing.
#   deb.sh check [KIND...]
#                    what a user does, tested (make deb-check; KINDs:
#                    6.1 6.12 by default): build the packages;
#                    in a Debian 12 chroot (debootstrap minbase, cached
#                    next to the kernel cache) that has the kernels'
#                    linux-headers, apt install the .debs; dkms status
#                    must say the module is installed for each kernel;
#                    a program builds against the installed libvbjournal
#                    with pkg-config and reads a fixture journal, and
#                    the installed Python module passes its test;
#                    boot each kernel in the guest with the module DKMS
#                    built there and run the selftest suite; apt purge
#                    them all, after which DKMS, /lib/modules, /usr/src,
#                    the tools and the library must hold nothing of
#                    vfsbarrier. Prints
#                    each step's result and the closing line summed over
#                    the steps and the suites.
#   deb.sh chroot [KIND...]
#                    only the chroot and the kernels' headers.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${VFSB_BUILD:-$top/build}
mkdir -p "$build"
build=$(cd "$build" && pwd)
out=$build/deb
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

say() { echo "deb: $*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# need PKG...: installs those not installed.
need() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "apt-get install$missing"
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		$missing >"$build/deb-apt.log" 2>&1 ||
		{ tail -n 20 "$build/deb-apt.log" >&2; die "apt-get install failed"; }
}

# The tree to package: what git tracks (and new files it does not
# ignore), or without git everything but the build directory.
copy_tree() {
	mkdir -p "$1"
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 cp -P --parents -t "$1")
	else
		(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) |
			(cd "$1" && tar -xf -)
	fi
}

build_debs() {
	need dpkg-dev debhelper dh-dkms lintian libsqlite3-dev libsystemd-dev pkg-config
	rm -rf "$out"
	src=$out/src/vfsbarrier-$ver
	copy_tree "$src"
	say "dpkg-buildpackage (log: $out/build.log)"
	(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log" >&2; die "dpkg-buildpackage failed"; }
	for d in "$out"/src/*.deb; do
		mv "$d" "$out/"
	done
	mv "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
	say "lintian"
	lintian --fail-on error --display-info "$out"/*.changes | tee "$out/lintian.log" ||
		die "lintian reported errors ($out/lintian.log)"
	ls -l "$out"/*.deb
}

# ---- the install test ----------------------------------------------------
kcache=${VFSB_KCACHE:-/var/cache/vfsbarrier/kernels}
base=$(dirname "$kcache")
ch=$base/bookworm-deb-chroot
mirror=${VFSB_MIRROR:-http://deb.debian.org/debian}
security=${VFSB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
logs=$out/check

# in_chroot DIR... -- COMMAND: in the chroot, DIRs bind-mounted.
in_chroot() {
	"$top/scripts/kernels/chroot-run.sh" "$ch" "$@"
}

make_chroot() {
	[ -f "$ch/.vfsb-complete" ] && return 0
	need debootstrap
	say "creating the Debian 12 chroot $ch (debootstrap minbase)"
	rm -rf --one-file-system "$ch.tmp"
	debootstrap --variant=minbase --include=dkms,ca-certificates bookworm \
		"$ch.tmp" "$mirror" >"$build/deb-debootstrap.log" 2>&1 ||
		{ tail -n 20 "$build/deb-debootstrap.log" >&2; die "debootstrap failed"; }
	printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
		"$mirror" "$mirror" "$security" >"$ch.tmp/etc/apt/sources.list"
	date >"$ch.tmp/.vfsb-complete"
	mv "$ch.tmp" "$ch"
}

# headers KIND: the kernel's release on stdout; its linux-headers in the
# chroot (6.1 from the archive; 6.12 from the .debs scripts/kernels/
# fetch.sh keeps of bookworm-backports, the image with them).
headers() {
	kind=$1
	case "$kind" in
	6.1) ;;
	*) "$top/scripts/kernels/fetch.sh" "$kind" >/dev/null ;;
	esac
	krel=$("$top/scripts/kernel.sh" "$kind" | sed -n 's/^KREL=//p')
	[ -n "$krel" ] || die "no kernel $kind"
	# (lib/modules/REL/build is an absolute link: look at its target)
	if [ ! -e "$ch/usr/src/linux-headers-$krel/Makefile" ]; then
		say "linux-headers-$krel into the chroot"
		cp /etc/resolv.conf "$ch/etc/resolv.conf"
		debs=$base/apt/bookworm-backports/debs
		case "$kind" in
		6.1) pkgs="linux-headers-$krel" dirs="" ;;
		*)
			v=${krel%-amd64}
			pkgs=
			# the headers depend on the image too
			for f in "$debs"/linux-headers-"$v"*.deb "$debs"/linux-image-"$v"*.deb \
				"$debs"/linux-kbuild-"$v"_*.deb "$debs"/linux-base_*.deb; do
				[ -f "$f" ] && pkgs="$pkgs $f"
			done
			[ -n "$pkgs" ] || die "no cached headers of $krel in $debs"
			dirs=$debs
			;;
		esac
		# shellcheck disable=SC2086 # lists of words
		in_chroot $dirs -- sh -c "apt-get -q update && apt-get -qy install \
			--no-install-recommends $pkgs" >"$logs/headers-$kind.log" 2>&1 ||
			{ tail -n 20 "$logs/headers-$kind.log" >&2; die "headers of $krel"; }
	fi
	echo "$krel"
}

np=0 nf=0
step() {
	if [ "$1" = 0 ]; then
		echo "PASS  deb: $2"
		np=$((np + 1))
	else
		echo "FAIL  deb: $2"
		nf=$((nf + 1))
	fi
}

# The packaged vbctl (linked dynamically) for the guest, which has no
# glibc: with the chroot's loader and libc beside it, and a test that runs
# it as an administrator would after apt install: version, then a watch
# and a first barrier.
guest_vbctl() {
	bindir=$build/guest-bin
	mkdir -p "$bindir/deb"
	cp "$ch/usr/sbin/vbctl" "$ch/lib64/ld-linux-x86-64.so.2" \
		"$ch/lib/x86_64-linux-gnu/libc.so.6" "$bindir/deb/"
	cat >"$bindir/deb_vbctl.sh" <<-'GUEST'
	#!/bin/sh
	# deb-check: vbctl from vfsbarrier-tools, as installed by apt.
	d=/tests/deb
	vbctl() { "$d/ld-linux-x86-64.so.2" --library-path "$d" "$d/vbctl" "$@"; }
	echo "KTAP version 1"
	echo "1..2"
	out=$(vbctl version 2>&1)
	echo "$out" | sed 's/^/# /'
	rc=0
	case $out in
	*"vfsbarrier module"*) echo "ok 1 packaged vbctl version" ;;
	*) echo "not ok 1 packaged vbctl version"; rc=1 ;;
	esac
	mkdir -p /tmp/deb-w && mount -t tmpfs tmpfs /tmp/deb-w
	out=$(echo "barrier /tmp/deb-w" | vbctl watch /tmp/deb-w --stdin 2>&1)
	echo "$out" | sed 's/^/# /'
	umount /tmp/deb-w
	case $out in
	*"barrier on /tmp/deb-w complete"*) echo "ok 2 packaged vbctl: watch, first barrier" ;;
	*) echo "not ok 2 packaged vbctl: watch, first barrier"; rc=1 ;;
	esac
	exit $rc
	GUEST
	chmod +x "$bindir/deb_vbctl.sh"
}

# make install and make uninstall, for those who do not use the packages:
# into a staging root, every file where the README says, then nothing.
install_uninstall() {
	stage=$out/install-root
	rc=0
	rm -rf "$stage"
	make -C "$top" -s install DESTDIR="$stage" PREFIX=/usr/local \
		BUILD="$out/install-build" >"$logs/make-install.log" 2>&1 || rc=1
	for f in sbin/vbctl sbin/vbjournald bin/vbjournal include/linux/vfsbarrier.h \
		share/man/man4/vfsbarrier.4 share/man/man8/vbctl.8 \
		share/man/man8/vbjournald.8 share/man/man1/vbjournal.1 \
		share/bash-completion/completions/vbctl lib/systemd/system/vbjournald.service \
		include/vbjournal.h lib/libvbjournal.so.1 lib/libvbjournal.so \
		lib/pkgconfig/vbjournal.pc share/man/man3/libvbjournal.3 \
		lib/python3/dist-packages/vbjournal.py; do
		[ -e "$stage/usr/local/$f" ] || { echo "make install: no /usr/local/$f" >&2; rc=1; }
	done
	grep -q '^ExecStart=/usr/local/sbin/vbjournald ' \
		"$stage/usr/local/lib/systemd/system/vbjournald.service" 2>/dev/null || rc=1
	make -C "$top" -s uninstall DESTDIR="$stage" PREFIX=/usr/local \
		BUILD="$out/install-build" >>"$logs/make-install.log" 2>&1 || rc=1
	left=$(find "$stage" -type f 2>/dev/null || true)
	[ -z "$left" ] || { echo "make uninstall left: $left" >&2; rc=1; }
	step $rc "make install (DESTDIR, PREFIX) puts every file in place; make uninstall removes them"
}

# What a vendor does with the packages, in the chroot: builds the test
# program of the host tests (tools/tests/libtest.c) against the
# installed libvbjournal with pkg-config alone, runs it on the fixture
# journal (tools/tests/lib-fixture.sql, made here by vbj-mkjournal: no
# daemon) and requires the host test's expected output; then the
# Python module's test, against the installed module and library.
lib_test() {
	d=$logs/lib
	rm -rf "$d"
	mkdir -p "$d"
	rc=0
	make -s -C "$top/tools" BUILD="$build" "$build/obj/tests/vbj-mkjournal" \
		>"$d/make.log" 2>&1 || rc=1
	"$build/obj/tests/vbj-mkjournal" "$d/j" <"$top/tools/tests/lib-fixture.sql" \
		>>"$d/make.log" 2>&1 || rc=1
	cp -r "$d/j" "$d/w"
	cp -r "$d/j" "$d/c"
	sed -e "s/@VERSION@/$ver/" -e "s/@FF@/$(printf '\377')/" \
		"$top/tools/tests/lib-expected.txt" >"$d/expected"
	cp "$top/tools/tests/libtest.c" "$top/tools/tests/test_vbjournal.py" "$d/"
	[ $rc = 0 ] && in_chroot "$out" -- sh -c "set -ex; cd '$d'
		pkg-config --cflags --libs vbjournal
		cc -Wall -Werror -o libtest libtest.c \$(pkg-config --cflags --libs vbjournal)
		ldd ./libtest
		ldd ./libtest | grep -qE 'libvbjournal.so.1 => (/usr)?/lib/x86_64-linux-gnu/libvbjournal.so.1 '
		./libtest c 00000000000000aa:1 >out
		cmp out expected
		python3 -c 'import vbjournal; print(vbjournal.__file__, vbjournal.version())'
		python3 test_vbjournal.py j w" >"$d/test.log" 2>&1 || rc=1
	grep -E '^(ok|not ok) ' "$d/test.log" >&2 || true
	[ $rc = 0 ] || tail -n 20 "$d/test.log" >&2
	step $rc "libvbjournal: a program builds with pkg-config against the installed library and reads a journal; the installed Python module passes its test"
}

check_debs() {
	kinds=${*:-6.1 6.12}
	rc=0
	# always from the tree as it is: never an older build's packages
	build_debs >"$build/deb-build.log" 2>&1 || rc=1
	mkdir -p "$logs"
	step $rc "make deb builds the packages, lintian reports no error"
	[ $rc = 0 ] || return 0
	install_uninstall
	make_chroot
	krels=
	for k in $kinds; do
		krels="$krels $(headers "$k")"
	done
	# nothing of an earlier, interrupted run
	in_chroot -- dpkg --purge python3-vbjournal libvbjournal-dev vfsbarrier-tools \
		libvbjournal1 vfsbarrier-dkms >/dev/null 2>&1 || true
	say "apt install the packages in the chroot (log: $logs/install.log)"
	rc=0
	# (pkg-config and libc6-dev from the archive: to build against
	# libvbjournal-dev, as build-essential would)
	in_chroot "$out" -- sh -c "apt-get -qy install $out/vfsbarrier-dkms_${ver}_all.deb \
		$out/vfsbarrier-tools_${ver}_amd64.deb $out/libvbjournal1_${ver}_amd64.deb \
		$out/libvbjournal-dev_${ver}_amd64.deb $out/python3-vbjournal_${ver}_all.deb \
		pkg-config libc6-dev && dkms status && vbctl --help >/dev/null" \
		>"$logs/install.log" 2>&1 || rc=1
	for krel in $krels; do
		grep -q "^vfsbarrier/$ver, $krel, x86_64: installed" "$logs/install.log" || rc=1
	done
	grep -A20 '^vfsbarrier/' "$logs/install.log" | head -n 5 >&2 || true
	step $rc "apt install: dkms status says installed for$krels; vbctl runs"
	lib_test
	guest_vbctl
	tests=
	for t in "$top"/selftests/test_*.c; do
		t=${t##*/}
		tests="$tests ${t%.c}"
	done
	tests="$tests deb_vbctl.sh"
	set --
	for k in $kinds; do
		krel=$("$top/scripts/kernel.sh" "$k" | sed -n 's/^KREL=//p')
		ko=$(find "$ch/lib/modules/$krel/updates/dkms" -name 'vfsbarrier.ko*' 2>/dev/null | head -n 1)
		mkdir -p "$out/ko/$krel"
		case "$ko" in
		*.xz) xz -dc "$ko" >"$out/ko/$krel/vfsbarrier.ko" ;;
		*.zst) zstd -qdc "$ko" >"$out/ko/$krel/vfsbarrier.ko" ;;
		*.ko) cp "$ko" "$out/ko/$krel/vfsbarrier.ko" ;;
		*) rm -f "$out/ko/$krel/vfsbarrier.ko" ;;
		esac
		say "the suite on $krel with the module DKMS built in the chroot"
		rc=0
		if [ -s "$out/ko/$krel/vfsbarrier.ko" ]; then
			VFSB_KO=$out/ko/$krel/vfsbarrier.ko VFSB_TESTS=$tests \
				"$top/scripts/run-guest.sh" check "$k" \
				>"$logs/suite-$k.log" 2>&1 || rc=$?
		else
			echo "no module for $krel in the chroot" >"$logs/suite-$k.log"
			rc=1
		fi
		tail -n 1 "$logs/suite-$k.log" >&2
		set -- "$@" "deb: suite on $krel" "$rc" "$logs/suite-$k.log"
	done
	say "apt purge (log: $logs/remove.log)"
	rc=0
	in_chroot -- apt-get -qy purge vfsbarrier-dkms vfsbarrier-tools libvbjournal1 \
		libvbjournal-dev python3-vbjournal >"$logs/remove.log" 2>&1 || rc=1
	in_chroot -- dkms status >"$logs/dkms-after.log" 2>&1 || rc=1
	if grep -q vfsbarrier "$logs/dkms-after.log"; then
		cat "$logs/dkms-after.log" >&2
		rc=1
	fi
	left=$(find "$ch/lib/modules" "$ch/usr/src" "$ch/var/lib/dkms" "$ch/usr/sbin" \
		"$ch/usr/bin" "$ch/usr/include" "$ch/lib/systemd/system" \
		"$ch/usr/lib/x86_64-linux-gnu" "$ch/usr/lib/python3/dist-packages" \
		\( -name '*vfsbarrier*' -o -name vbctl -o -name 'vbjournal*' \
		-o -name 'libvbjournal*' \) -print 2>/dev/null || true)
	if [ -n "$left" ]; then
		echo "left behind: $left" >&2
		rc=1
	fi
	step $rc "apt purge leaves nothing (dkms status, /lib/modules, /usr/src, tools, library)"
	echo "$np passed, $nf failed, 0 skipped" >"$logs/steps.log"
	"$top/scripts/ktap-sum.sh" "deb: packages" "$([ $nf = 0 ] && echo 0 || echo 1)" \
		"$logs/steps.log" "$@"
}

case "${1:-}" in
build)
	build_debs
	;;
check)
	shift
	check_debs "$@"
	;;
chroot)
	# only the chroot and the kernels' headers (what check caches)
	shift
	mkdir -p "$logs"
	make_chroot
	[ $# -gt 0 ] || set -- 6.1 6.12
	for k in "$@"; do
		headers "$k"
	done
	;;
*)
	echo "usage: deb.sh build | check [KIND...] | chroot [KIND...]" >&2
	exit 2
	;;
esac
