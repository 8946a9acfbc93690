#!/bin/sh
# Install what building, booting and testing vfsbarrier needs, with apt.
# Idempotent: does nothing when every package is already installed.
# Never loads anything into the running kernel.
set -eu

PKGS="build-essential make gcc bc flex bison libelf-dev libssl-dev \
linux-headers-amd64 linux-image-amd64 linux-source-6.1 \
qemu-system-x86 busybox-static cpio kmod xz-utils zstd \
e2fsprogs btrfs-progs xfsprogs fuse3 libfuse3-dev liburing-dev libaio-dev \
sparse shellcheck dwarves dkms debootstrap gawk libsqlite3-dev groff-base \
mandoc dpkg-dev debhelper dh-dkms lintian libsystemd-dev pkg-config libhiredis-dev \
rsync git fio"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done

if [ -n "$missing" ]; then
	echo "deps: installing:$missing"
	if [ "$(id -u)" != 0 ]; then
		echo "deps: need root to apt-get install (run as root or with sudo)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

# The kernel source tree provides checkpatch.pl and kselftest_harness.h.
if [ ! -f /usr/src/linux-source-6.1/scripts/checkpatch.pl ]; then
	echo "deps: unpacking /usr/src/linux-source-6.1.tar.xz"
	tar -C /usr/src -xf /usr/src/linux-source-6.1.tar.xz
fi

# Debian's file-server userland for the guest's server tests, into a
# cache (nothing is installed here): scripts/servers-fetch.sh.
"$(dirname "$0")"/servers-fetch.sh >/dev/null
# and redis-server, for the stream publisher's test (test_publish)
"$(dirname "$0")"/servers-fetch.sh redis >/dev/null
