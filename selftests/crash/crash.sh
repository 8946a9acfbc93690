#!/bin/sh
# Guest side of the crash test (guest/init, mode "crash"), one boot of
# one cycle: scripts/crashtest.sh boots the guest on the same two disks
# again and again, and kills it from the host while it writes.
#
# Disks: /dev/vda the watched ext4 (/data), /dev/vdb the journal's ext4
# (/jr); the host formats both before the first boot.
# Environment (kernel command line): VFSB_CRASH_SEED,
# VFSB_CRASH_PHASE: run (verify what the last crash left, then write
# until killed) or verify (verify only, then power off), and
# VFSB_CRASH_MODE: this boot's workload (mixed, hardlink, tmpfile,
# dirrename, restart, nfs, mirror, newdirs; crashload.c), which crashload
# reads itself.
# The mirror mode also runs `vbjournal mirror /data /jr/mirror` again and
# again while it writes (its first run is the full copy); the boot after
# one that mirrored catches the mirror up and compares it with /data
# (vbj-treecmp, not rsync): "CRASHTEST mirror: ..., D differences".
set -u
export PATH=/tests:/sbin:/bin
seed=${VFSB_CRASH_SEED:-1}
phase=${VFSB_CRASH_PHASE:-run}
say() { echo "CRASHTEST $*"; }
# publish: mixed's workload, and vbjournal-publish following the journal
# into redis-server (AOF on the journal's disk, appendfsync always); each
# boot first publishes what is closed (--once), then checks the stream
# (publish_check): every epoch since the registration, once, in order.
# VFSB_CRASH_AOF_FSYNC sets redis-server's appendfsync (default always).
publish=0
if [ "${VFSB_CRASH_MODE:-mixed}" = publish ]; then
	publish=1
	export VFSB_CRASH_MODE=mixed
fi
sock=/tmp/redis.sock stream='vbj:{crash}:epochs'
pub() {
	vbjournal-publish --journal /jr/journal --redis $sock --host crash "$@"
}
# Every epoch from the one after the registration (/jr/pub-registered)
# to the last closed one, in the stream once and in order, each "since"
# the one before: "CRASHTEST publish: ..." lines, and "CRASHTEST FAIL"
# (which the host counts) when not.
publish_check() {
	jid=$(vbjournal --journal /jr/journal cursor) || { say "FAIL publish: no cursor"; return; }
	last=${jid#*:} jid=${jid%%:*}
	reg=$(cat /jr/pub-registered)
	redis-cli -s $sock --raw XRANGE "$stream" - + >/tmp/xrange ||
		{ say "FAIL publish: XRANGE failed"; return; }
	awk -v jid="$jid" -v reg="${reg#*:}" -v last="$last" '
		f == "key" { split($0, k, ":"); j = k[1]; e = k[2] + 0 }
		f == "since" { s = $0 + 0 }
		f == "changes" && j == jid {
			n++
			if (n == 1)
				top = reg
			if (e <= top) {
				dup++
				print "CRASHTEST publish: duplicate " j ":" e
			} else if (s != top) {
				# epochs (top, s] are in no entry
				if (s > top)
					miss += s - top
				else
					bad++
				print "CRASHTEST publish: " j ":" e " is since " s ", the last was " top
			}
			if (e > top)
				top = e
		}
		{ f = $0 }
		END {
			if (!n)
				top = reg
			if (top < last) {
				miss += last - top
				print "CRASHTEST publish: the stream ends at " top ", the journal at " last
			}
			printf "CRASHTEST publish: %d entries, epochs %d to %d, %d missing, %d duplicates\n", n, reg + 1, last, miss, dup
			if (miss + dup + bad)
				print "CRASHTEST FAIL publish: the stream is not every epoch once, in order"
		}' /tmp/xrange
}

mkdir -p /data /jr
# VFSB_CRASH_DEBUG=S: S seconds into the boot, the blocked tasks'
# stacks (sysrq w), the daemon's, nfsd's and the writers' stacks and the
# daemon's log on the console (a stall: see crashtest.sh)
if [ -n "${VFSB_CRASH_DEBUG:-}" ]; then
	echo 8 >/proc/sys/kernel/printk
	(
		sleep "$VFSB_CRASH_DEBUG"
		echo w >/proc/sysrq-trigger
		for t in /proc/[0-9]*/task/[0-9]*; do
			c=$(cat "$t/comm" 2>/dev/null)
			case $c in vbjournald | crashload | vbjournal | nfsd) ;; *) continue ;; esac
			echo "DBG $t $c $(cut -d' ' -f3 "$t/stat") wchan=$(cat "$t/wchan")"
			sed 's/^/DBG   /' "$t/stack"
		done
		tail -n 30 /tmp/jd.log /jr/jd.log 2>/dev/null | sed 's/^/DBG jd: /'
	) &
fi
mount -t ext4 /dev/vda /data || { say "FAIL: cannot mount /dev/vda"; exit 1; }
mount -t ext4 /dev/vdb /jr || { say "FAIL: cannot mount /dev/vdb"; exit 1; }
if [ ! -e /sys/module/vfsbarrier ]; then
	insmod /lib/vfsb/vfsbarrier.ko || { say "FAIL: insmod"; exit 1; }
fi
first=0
[ -f /jr/manifest ] || first=1
if [ $first = 1 ]; then
	say "populating"
	crashload populate /data || { say "FAIL: populate"; exit 1; }
fi
# The daemon recovers what the crash left open before it answers. Odd
# seeds refuse what cannot wait.
refuse=
[ $((seed % 2)) = 1 ] && refuse=--refuse-unwaited
# The modes of one scenario each hold the daemon after every ack, as a
# journal disk that lags would: what went on without its ack is then
# lost in most crashes, and the answer must not have needed it. In
# newdirs, what is made inside its new directories waits for no ack at
# all: only the records the daemon has not stored yet name them.
delay=
case ${VFSB_CRASH_MODE:-mixed} in
hardlink | tmpfile | dirrename | nfs | mirror | newdirs) delay="--commit-delay 500ms" ;;
esac
# nfs: nfsd's changes, a kernel thread's; each must wait for its ack in
# the daemon's default mode, so this mode never refuses.
[ "${VFSB_CRASH_MODE:-mixed}" = nfs ] && refuse=
# The restart mode runs it as a service with a file descriptor store,
# restarted every second or so (svcrun.c): no restart may need a gap.
# Its log then goes to the journal's disk, for the check after the crash.
# VFSB_CRASH_NO_STORE=1 keeps no descriptor: each restart is then a gap,
# which the harness counts as a failure (the negative control).
svc=''
log=/tmp/jd.log
if [ "${VFSB_CRASH_MODE:-mixed}" = restart ]; then
	svc="svcrun /tmp/notify" log=/jr/jd.log
	echo "== seed $seed" >>$log
fi
: >>$log
from=$(($(wc -l <$log) + 1))
[ -n "${VFSB_CRASH_NO_STORE:-}" ] && export SVCRUN_NO_STORE=1
# shellcheck disable=SC2086 # $svc, $refuse, $delay: words or none
$svc vbjournald --fs /data --journal /jr/journal --interval 3600000 $refuse \
	$delay >>$log 2>&1 &
jd=$!
i=0
until tail -n +$from $log | grep -q "vbjournald: journal"; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 $jd 2>/dev/null; then
		say "FAIL: the daemon did not start"; tail -n 20 $log; exit 1
	fi
	sleep 0.1
done
if [ $first = 0 ]; then
	crashload verify /data /jr
	say "verified (exit $?)"
fi
if [ $publish = 1 ]; then
	mkdir -p /jr/redis
	# VFSB_CRASH_AOF_FSYNC=no: the negative control (confirmed entries
	# still in the page cache when the guest dies: the check must fail)
	redis-server --port 0 --unixsocket $sock --dir /jr/redis --appendonly yes \
		--appendfsync "${VFSB_CRASH_AOF_FSYNC:-always}" --save '' \
		>/tmp/redis.log 2>&1 &
	i=0
	until redis-cli -s $sock ping 2>/dev/null | grep -q PONG; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			say "FAIL: redis-server did not start"; cat /tmp/redis.log; exit 1
		fi
		sleep 0.1
	done
	if [ $first = 1 ]; then
		if ! vbjournal --journal /jr/journal register publish >/jr/pub-registered; then
			say "FAIL: register"; exit 1
		fi
		sync
	else
		# what the crash left unpublished, then the check
		pub --once >/tmp/pub-once.log 2>&1
		say "publish --once: exit $?, $(grep -c '^published' /tmp/pub-once.log) published, $(grep -c '^duplicate' /tmp/pub-once.log) duplicate"
		publish_check
	fi
fi
# The mirror the boot before kept (killed in the middle of a run, maybe):
# caught up after the recovery, it must equal /data exactly.
if [ -f /jr/mirror/.vbjournal-mirror/state ]; then
	# what the boot before's runs were (verbose: one line a run)
	if [ -f /jr/mirror-loop.log ]; then
		say "mirror loop: $(grep -c ' directories, ' /jr/mirror-loop.log) incremental, $(grep -c 'full copy done' /jr/mirror-loop.log) full runs done, $(grep -c 'rsync failed' /jr/mirror-loop.log) failed"
		rm -f /jr/mirror-loop.log
	fi
	t0=$(date +%s)
	vbjournal --journal /jr/journal mirror /data /jr/mirror --checkpoint \
		--verbose >/tmp/mirror.out 2>/tmp/mirror.err
	rc=$?
	t1=$(date +%s)
	sed 's/^/CRASHTEST mirror-log: /' /tmp/mirror.err | head -n 20
	vbj-treecmp /data /jr/mirror >/tmp/treecmp.out 2>&1
	grep '^DIFF' /tmp/treecmp.out | head -n 20 | sed 's/^/CRASHTEST mirror /'
	# a failed mirror run counts as a difference
	d=$(sed -n 's/^treecmp: .* \([0-9]*\) differences.*/\1/p' /tmp/treecmp.out)
	[ -n "$d" ] || d=1
	[ $rc = 0 ] || d=$((d + 1))
	kind=incremental
	grep -q 'full copy done' /tmp/mirror.err && kind=full
	say "mirror: exit $rc in $((t1 - t0)) s, $kind run, $(tail -n 1 /tmp/treecmp.out), differences $d"
fi
[ "$phase" = verify ] && { kill $jd; wait $jd; exit 0; }
# nfs: nfsd exports /data and the kernel's NFS client mounts it over
# loopback (guest/servers.sh, as selftests/servers.c does); the writers
# write through the client's mount, the manifest and the check read
# /data itself. Odd seeds mount NFSv3, even ones NFSv4.2
# (VFSB_CRASH_NFS=3 or 4.2: that one only).
wdir=''
nfsv=''
if [ "${VFSB_CRASH_MODE:-mixed}" = nfs ]; then
	vfsb-servers nfs-start /data || { say "FAIL: nfsd did not start"; vfsb-servers logs; exit 1; }
	mkdir -p /mnt/nfs
	o=noac,lookupcache=none,sync,hard,proto=tcp,addr=127.0.0.1
	v=${VFSB_CRASH_NFS:-}
	[ -n "$v" ] || v=$((seed % 2 ? 3 : 4))
	if [ "$v" = 3 ]; then
		nfsv=3 t=nfs
		o=vers=3,port=2049,mountproto=tcp,mountport=20048,nolock,$o
	else
		nfsv=4.2 t=nfs4 o=vers=4.2,clientaddr=127.0.0.1,$o
	fi
	crashload mount 127.0.0.1:/data /mnt/nfs $t $o ||
		{ say "FAIL: cannot mount NFSv$nfsv"; exit 1; }
	wdir=/mnt/nfs
fi
if [ "${VFSB_CRASH_MODE:-mixed}" = mirror ]; then
	# its first run, the full copy, before the writes; then again and
	# again until killed.
	if [ ! -f /jr/mirror/.vbjournal-mirror/state ]; then
		vbjournal --journal /jr/journal mirror /data /jr/mirror \
			--checkpoint 2>&1 >/dev/null | sed 's/^/CRASHTEST mirror-first: /'
	fi
	(
		while :; do
			vbjournal --journal /jr/journal mirror /data /jr/mirror \
				--verbose \
				>/dev/null 2>>/jr/mirror-loop.log
			sleep 0.3
		done
	) &
fi
say "workload ${VFSB_CRASH_MODE:-mixed}, seed $seed${refuse:+, $refuse}${delay:+, $delay}${nfsv:+, through NFSv$nfsv}"
if [ -n "$svc" ]; then
	(
		while sleep 1; do
			kill -USR2 $jd 2>/dev/null || exit 0
		done
	) &
fi
# the publisher follows the epochs crashload closes, until the crash
[ $publish = 0 ] || pub >>/tmp/pub.log 2>&1 &
# shellcheck disable=SC2086 # $wdir: a word or none
crashload run /data /jr "$seed" $wdir
