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
# dirrename; crashload.c), which crashload reads itself.
set -u
export PATH=/tests:/sbin:/bin
seed=${VFSB_CRASH_SEED:-1}
phase=${VFSB_CRASH_PHASE:-run}
say() { echo "CRASHTEST $*"; }

mkdir -p /data /jr
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
# seeds refuse what cannot wait, and their io_uring writes go alone.
refuse=
[ $((seed % 2)) = 1 ] && refuse=--refuse-unwaited
# The modes of one scenario each hold the daemon after every ack, as a
# journal disk that lags would: what went on without its ack is then
# lost in most crashes, and the answer must not have needed it.
delay=
case ${VFSB_CRASH_MODE:-mixed} in
hardlink | tmpfile | dirrename) delay="--commit-delay 500ms" ;;
esac
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
[ "$phase" = verify ] && { kill $jd; wait $jd; exit 0; }
say "workload ${VFSB_CRASH_MODE:-mixed}, seed $seed${refuse:+, $refuse}${delay:+, $delay}"
if [ -n "$svc" ]; then
	(
		while sleep 1; do
			kill -USR2 $jd 2>/dev/null || exit 0
		done
	) &
fi
VFSB_CRASH_REFUSE=${refuse:+1} crashload run /data /jr "$seed"
