#!/bin/sh
# vfsb-servers: the guest's file servers, for selftests/test_servers.c
# (selftests/servers.c runs it). Debian's userland, put into the
# initramfs by scripts/initramfs.sh from scripts/servers-fetch.sh's
# cache; the kernel's nfsd and ksmbd, serving 127.0.0.1 only.
# Usage: vfsb-servers nfs-start DIR   export DIR (NFSv3 and v4.x)
#        vfsb-servers smb-start DIR   share DIR as //127.0.0.1/vfsb
#        vfsb-servers stop            stop both (what this script started)
#        vfsb-servers logs            what the daemons printed
# Starting an already running server is a no-op (same DIR).
# Exit status: 0 done; 4 this guest cannot run that server (the reason
# on stderr: no userland, no kernel support); 1 it failed to start.
set -u
run=/run/vfsb-servers
mkdir -p "$run"

skip() { echo "vfsb-servers: $*" >&2; exit 4; }
# A server that failed to start fails at once the next time (for the
# next test): its first message again.
fail() {
	echo "vfsb-servers: $*" >&2
	[ -z "${what:-}" ] || echo "$*" > "$run/$what.failed"
	exit 1
}
failed_before() {
	what=$1
	if [ -f "$run/$what.failed" ]; then
		echo "vfsb-servers: $what failed to start before: $(cat "$run/$what.failed")" >&2
		exit 1
	fi
}

# The modules of the servers and clients, in load order
# (scripts/initramfs.sh); loaded once.
load_modules() {
	[ -f /etc/vfsb-server-modules ] ||
		skip "no server modules in this initramfs (scripts/initramfs.sh: VFSB_SERVERS)"
	[ -e "$run/modules" ] && return 0
	while read -r m; do
		insmod "/lib/vfsb/$m" 2>/dev/null
	done < /etc/vfsb-server-modules
	: > "$run/modules"
}

lo_up() {
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up ||
		fail "cannot bring up lo"
}

# daemon NAME CMD...: start CMD (which must stay in the foreground) and
# keep its pid; fail when it is gone at once
daemon() {
	name=$1
	shift
	"$@" > "$run/$name.log" 2>&1 &
	echo $! > "$run/$name.pid"
}

# mounted DIR: whether DIR is a mount point (busybox has no mountpoint)
mounted() {
	awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts
}

alive() {
	[ -f "$run/$1.pid" ] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null
}

# wait_for WHAT CMD...: until CMD succeeds, 10 s at most
wait_for() {
	for_what=$1
	shift
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "no $for_what in 10 s; $(logs)"
		sleep 0.1
	done
}

registered() {
	rpcinfo | grep -qw "$1"
}

# What the daemons said.
logs() {
	for f in "$run"/*.log; do
		[ -s "$f" ] && sed "s|^|$(basename "$f" .log): |" "$f"
	done
}

nfs_start() {
	dir=$1
	failed_before nfs
	if [ -f "$run/nfs.dir" ]; then
		[ "$(cat "$run/nfs.dir")" = "$dir" ] && return 0
		fail "nfsd already exports $(cat "$run/nfs.dir")"
	fi
	for p in rpcbind rpc.nfsd rpc.mountd exportfs nfsdcld; do
		command -v $p >/dev/null || skip "no $p in this initramfs"
	done
	load_modules
	grep -qw nfsd /proc/filesystems || skip "kernel $(uname -r) has no nfsd"
	grep -qw nfs /proc/filesystems || skip "kernel $(uname -r) has no NFS client"
	lo_up
	mkdir -p /proc/fs/nfsd /var/lib/nfs/rpc_pipefs /var/lib/nfs/nfsdcld \
		/run/rpcbind
	mounted /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		fail "cannot mount the nfsd filesystem"
	mounted /var/lib/nfs/rpc_pipefs ||
		mount -t rpc_pipefs sunrpc /var/lib/nfs/rpc_pipefs ||
		fail "cannot mount rpc_pipefs"
	: > /var/lib/nfs/etab
	: > /var/lib/nfs/rmtab
	alive rpcbind || daemon rpcbind rpcbind -f -w
	# (its local socket: over 127.0.0.1 it refuses rpcinfo's dump)
	wait_for "rpcbind to answer" rpcinfo
	# nfsdcld keeps the NFSv4 clients' records: with none to reclaim,
	# nfsd skips the 90 s grace period in which NFSv4 opens fail.
	alive nfsdcld || daemon nfsdcld nfsdcld -F
	# and should it not: a grace period of 10 s, the least nfsd takes
	echo 10 > /proc/fs/nfsd/nfsv4gracetime 2>/dev/null
	echo 10 > /proc/fs/nfsd/nfsv4leasetime 2>/dev/null
	echo "$dir 127.0.0.1(rw,sync,no_subtree_check,no_root_squash,insecure,fsid=1)" \
		> /etc/exports
	exportfs -ra || fail "exportfs failed"
	# at a fixed port, which the client is given: rpcbind refuses its
	# questions over 127.0.0.1 ("requires stronger authentication")
	alive mountd || daemon mountd rpc.mountd -F -p 20048
	wait_for "rpc.mountd to register" registered mountd
	rpc.nfsd 4 || fail "rpc.nfsd failed: $(dmesg | tail -n 5)"
	echo "$dir" > "$run/nfs.dir"
}

ksmbd_running() {
	grep -qw running /sys/class/ksmbd-control/stats
}

smb_start() {
	dir=$1
	failed_before smb
	if [ -f "$run/smb.dir" ]; then
		[ "$(cat "$run/smb.dir")" = "$dir" ] && return 0
		fail "ksmbd already shares $(cat "$run/smb.dir")"
	fi
	for p in ksmbd.mountd ksmbd.adduser ksmbd.control; do
		command -v $p >/dev/null || skip "no $p in this initramfs"
	done
	# Debian's 6.1.0-57 (6.1.192) ksmbd oopses on the first directory a
	# client opens without a directory lease (6.1's CIFS client asks for
	# none): smb_grant_oplock() grants nothing and smb2_open() calls
	# opinfo_put(NULL) (fs/smb/server/smb2pdu.c:3442, oplock.c:1280).
	case "$(uname -r)" in
	6.1.*) skip "kernel $(uname -r): its ksmbd oopses in smb2_open() on opinfo_put(NULL) for any directory open" ;;
	esac
	load_modules
	[ -d /sys/module/ksmbd ] || skip "kernel $(uname -r) has no ksmbd"
	grep -qw cifs /proc/filesystems || skip "kernel $(uname -r) has no CIFS client"
	lo_up
	mkdir -p /etc/ksmbd
	cat > /etc/ksmbd/ksmbd.conf <<-EOF
	[global]
	[vfsb]
		path = $dir
		read only = no
		force user = root
		force group = root
	EOF
	rm -f /etc/ksmbd/ksmbdpwd.db
	ksmbd.adduser -a root -p vfsb >/dev/null || fail "ksmbd.adduser failed"
	daemon ksmbd ksmbd.mountd -n
	# ksmbd listens once ksmbd.mountd has started it
	wait_for "ksmbd to run" ksmbd_running
	echo "$dir" > "$run/smb.dir"
}

stop() {
	rm -f "$run"/*.failed
	if [ -f "$run/nfs.dir" ]; then
		rpc.nfsd 0
		exportfs -au
		rm -f "$run/nfs.dir"
	fi
	if [ -f "$run/smb.dir" ]; then
		ksmbd.control -s >/dev/null 2>&1
		rm -f "$run/smb.dir"
	fi
	for d in ksmbd mountd nfsdcld rpcbind; do
		if alive $d; then
			kill "$(cat "$run/$d.pid")"
		fi
		rm -f "$run/$d.pid"
	done
}

case "${1:-}" in
logs) logs ;;
nfs-start) nfs_start "${2:?DIR}" ;;
smb-start) smb_start "${2:?DIR}" ;;
stop) stop ;;
*) echo "usage: vfsb-servers nfs-start DIR | smb-start DIR | stop" >&2; exit 2 ;;
esac
