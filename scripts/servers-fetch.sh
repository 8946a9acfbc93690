#!/bin/sh
# Fetch Debian's file-server userland for the guest (the server tests,
# selftests/test_servers.c): nfs-kernel-server (rpc.nfsd, rpc.mountd,
# exportfs, nfsdcld), rpcbind and ksmbd-tools, and the libraries they
# need beyond the C library, downloaded with apt-get download and
# extracted (dpkg-deb -x) into a cache. Nothing is installed on this
# machine: no server starts here. scripts/initramfs.sh copies what it
# needs from the cache into the guest.
# ksmbd-tools comes from trixie (3.5.3), with trixie's C library in a
# directory of its own (ksmbd/): bookworm's 3.4.7 leaves the share
# config response's payload_sz unset, which the 6.1 kernel's ksmbd now
# checks (fs/smb/server/transport_ipc.c ipc_validate_msg()), so every
# tree connect failed with BAD_NETWORK_NAME.
# Usage: servers-fetch.sh [redis]  (idempotent; prints the cache's root)
# Environment: VFSB_SERVERS_CACHE (default /var/cache/vfsbarrier/servers),
# VFSB_MIRROR (default http://deb.debian.org/debian).
# servers-fetch.sh redis: only Debian's redis-server (the stream
# publisher's test, selftests/test_publish.c) and the libraries it
# needs beyond this machine's, into redis/ of the cache, with a stamp
# of its own (the file servers' cache is not touched); prints its root.
set -eu
cache=${VFSB_SERVERS_CACHE:-/var/cache/vfsbarrier/servers}
if [ "${1:-}" = redis ]; then
	RPKGS="redis-server redis-tools libjemalloc2 liblzf1"
	rstamp=$cache/redis/root/.vfsb-packages
	if [ -f "$rstamp" ] && [ "$(cat "$rstamp")" = "$RPKGS" ]; then
		echo "$cache/redis/root"
		exit 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "servers-fetch: $cache/redis is missing or stale; run as root (make deps)" >&2
		exit 1
	fi
	rm -rf "$cache/redis"
	mkdir -p "$cache/redis/debs" "$cache/redis/root"
	chmod 755 "$cache" "$cache/redis" "$cache/redis/debs"
	chown _apt "$cache/redis/debs" 2>/dev/null || true
	# shellcheck disable=SC2086
	(cd "$cache/redis/debs" && apt-get download -q $RPKGS) >&2
	for deb in "$cache"/redis/debs/*.deb; do
		dpkg-deb -x "$deb" "$cache/redis/root"
	done
	echo "$RPKGS" > "$rstamp"
	echo "$cache/redis/root"
	exit 0
fi
# The programs, and the libraries (and config files: libtirpc-common's
# /etc/netconfig, netbase's /etc/services, /etc/rpc) they need that a
# minimal Debian 12 may lack. Bookworm's, like this machine's C library.
PKGS="nfs-kernel-server nfs-common rpcbind \
libtirpc3 libtirpc-common libwrap0 libevent-core-2.1-7 libnfsidmap1 \
libsqlite3-0 libnsl2 \
libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 \
libcom-err2 libblkid1 libuuid1 libcap2 libpcre2-8-0 netbase"

# trixie's, all of them (the C library too) into ksmbd/
KPKGS="ksmbd-tools libglib2.0-0t64 libnl-3-200 libnl-genl-3-200 libc6 \
libpcre2-8-0 libatomic1"
mirror=${VFSB_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

stamp=$cache/root/.vfsb-packages
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$PKGS $KPKGS" ]; then
	echo "$cache/root"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "servers-fetch: $cache is missing or stale; run as root (make deps)" >&2
	exit 1
fi
rm -rf "$cache/root" "$cache/debs" "$cache/ksmbd"
mkdir -p "$cache/debs" "$cache/root" "$cache/ksmbd/debs" "$cache/ksmbd/root" \
	"$cache/apt/lists/partial" "$cache/apt/archives/partial"
# apt's sandbox user must be able to write the download directory
chmod 755 "$cache" "$cache/debs"
chown _apt "$cache/debs" 2>/dev/null || true
# shellcheck disable=SC2086
(cd "$cache/debs" && apt-get download -q $PKGS) >&2
for deb in "$cache"/debs/*.deb; do
	dpkg-deb -x "$deb" "$cache/root"
done

# trixie's ksmbd-tools, through a private apt configuration
echo "deb [signed-by=$keyring] $mirror trixie main" > "$cache/apt/sources.list"
apt_opts="-o Dir::Etc::SourceList=$cache/apt/sources.list \
-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$cache/apt/lists \
-o Dir::Cache=$cache/apt -o Dir::Cache::Archives=$cache/apt/archives \
-o Dir::State::status=/dev/null -o Dir::Etc::Preferences=/dev/null \
-o Dir::Etc::PreferencesParts=/dev/null -o APT::Architecture=amd64 \
-o APT::Architectures::=amd64 -o APT::Sandbox::User=root -o Acquire::Languages=none"
# shellcheck disable=SC2086
apt-get $apt_opts -q update >&2
# shellcheck disable=SC2086
(cd "$cache/ksmbd/debs" && apt-get $apt_opts -q download $KPKGS) >&2
for deb in "$cache"/ksmbd/debs/*.deb; do
	dpkg-deb -x "$deb" "$cache/ksmbd/root"
done
echo "$PKGS $KPKGS" > "$stamp"
echo "$cache/root"
