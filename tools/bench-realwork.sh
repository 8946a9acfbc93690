#!/bin/sh
# make bench, phase realwork (tools/bench.sh runs it in the guest; only
# when VFSB_BENCH_ONLY names it: scripts/bench.sh's icount boot): real
# work on the watched ext4, each workload under four setups side by side
# in one boot:
#   none     the module not loaded
#   watch    the module loaded, the filesystem watched (vbctl watch), no
#            journal
#   jd       vbjournald in its default mode (intent: the first change of
#            each directory in each epoch waits for its ack)
#   refuse   vbjournald --refuse-unwaited
#   jdtmp    vbjournald with its journal in the guest's tmpfs, whose
#            fsync does nothing: against jd, what the journal's commits
#            cost (only when VFSB_BENCH_REALWORK_SETUPS names it)
# VFSB_BENCH_REALWORK_SETUPS: which, in order (default none watch jd
# refuse). VFSB_BENCH_PROF (scripts/profile.sh): marks around each run.
# Workloads:
#   untar    tar -xf of a part of linux-source-6.1 (/lib/vfsb/src.tar,
#            scripts/bench-src.sh)
#   cp       cp -a of that tree
#   git      git checkout between two revisions of a repository of that
#            tree made in the guest (the second: every 4th file changed,
#            every 7th deleted, every 10th directory renamed, a new
#            directory of files), there and back
#   fio      fio random 4 KiB writes with io_uring into one 16 MiB file
#   nfsuntar the untar through the kernel's NFS client (NFSv4.2 over
#            loopback) into the watched ext4 exported by nfsd
# Times come from the guest's clock: under -icount (VFSB_QEMU_ICOUNT=1)
# it counts executed instructions, so ratios do not move with the
# host's load. With vbjournald: its intents (each a first change of a
# directory in an epoch, which waited for its ack), per entry written,
# and per second; its ack latency; changes that went on unacked.
# Errors a client saw (a non-zero exit, a line on stderr) are counted.
#
# Carry mode (VFSB_BENCH_REALWORK_MODE=carry; tools/bench.sh's phase
# carry, scripts/bench-carry.sh): record traces for issue 27's carry
# simulation (scripts/carry-sim.py) instead of timing. Setups:
#   stream   the module loaded, every record of the filesystem written
#            to a trace by `vbctl stream --json` (no journal: nothing
#            waits, one record per change)
#   jd       vbjournald in its default mode, for its real intent count
# and two more workloads, service-like, VFSB_BENCH_REALWORK_SERVICE_S
# seconds each (default 30):
#   spool    8 queues of 2 directories (tmp, new): each message written
#            in a queue's tmp, renamed into its new, and deleted 16
#            messages later, as fast as the shell goes
#   logs     appends to 24 files in 6 directories, and now and then a
#            new file in a tree of 272 directories, at a service's pace
# The traces (gzip'd JSON lines) and runs.txt (per run: workload,
# setup, start and end on the guest's clock, the daemon's figures) go,
# as a tar, onto the raw third scratch disk (VFSB_SCRATCH_DEV3), where
# the host reads them after the boot.
# Usage: bench-realwork.sh OUT.json
# Environment: VFSB_BENCH_REALWORK_DISK (ram, the default, or virtio:
# VFSB_BENCH_FS's ext4:DIR and VFSB_SCRATCH_DEV2 for the journal's
# ext4), VFSB_BENCH_REALWORK_ONLY (workloads, default all),
# VFSB_BENCH_REALWORK_LIMIT (seconds a workload may take, default 1200).
set -u
outjson=$1
src=/lib/vfsb/src.tar
say() { echo "realwork: $*"; }
fs=$(echo "${VFSB_BENCH_FS:-}" | tr ' ' '\n' | sed -n 's/^ext4://p')
if [ -z "$fs" ] || [ ! -f "$src" ]; then
	say "no ext4 under test or no $src (scripts/initramfs.sh: VFSB_BENCH_REALWORK)"
	exit 1
fi
jrdir=/mnt/bench-jr
mkdir -p $jrdir
# Storage (VFSB_BENCH_REALWORK_DISK): ram (the default) puts the watched
# ext4 and the journal's ext4 on loop devices over files in the guest's
# tmpfs; virtio keeps them on the scratch disks. Under -icount
# (sleep=off) a vCPU that idles while the host completes a virtio
# request jumps its clock to its next timer: every wait for the disk
# (an NFS create's ext4 commit, vbjournald's fsync) then costs guest
# time that is no instruction and no real disk's latency either. With
# ram, a flush is the loop driver's work in the guest, counted like
# the rest: the ratios are instructions, and waits per entry (below)
# say how many commits a real disk would add.
disk=${VFSB_BENCH_REALWORK_DISK:-ram}
# ramdisk IMG SIZE DIR: an ext4 in a file of the guest's tmpfs, at DIR
ramdisk() {
	truncate -s "$2" "$1" && mkfs.ext4 -q -F "$1" >/dev/null 2>&1 &&
		mkdir -p "$3" && mount -t ext4 -o loop "$1" "$3"
}
case $disk in
ram)
	if ! ramdisk /tmp/realwork-fs.img 1G /mnt/realwork ||
		! ramdisk /tmp/realwork-jr.img 256M $jrdir; then
		say "no ext4 on a loop device in tmpfs (VFSB_BENCH_REALWORK_DISK=ram)"
		exit 1
	fi
	fs=/mnt/realwork
	;;
virtio)
	if [ -z "${VFSB_SCRATCH_DEV2:-}" ] || ! mkfs.ext4 -q -F "$VFSB_SCRATCH_DEV2" >/dev/null 2>&1 ||
		! mount -t ext4 "$VFSB_SCRATCH_DEV2" $jrdir; then
		say "no second scratch disk for the journal"
		exit 1
	fi
	;;
*)
	say "VFSB_BENCH_REALWORK_DISK=$disk: ram or virtio"
	exit 1
	;;
esac
say "storage: $disk ($fs, journal on $jrdir)"
limit=${VFSB_BENCH_REALWORK_LIMIT:-1200}
mode=${VFSB_BENCH_REALWORK_MODE:-time}
svc=${VFSB_BENCH_REALWORK_SERVICE_S:-30}
case $mode in
time)
	works=${VFSB_BENCH_REALWORK_ONLY:-untar cp git fio nfsuntar}
	setups=${VFSB_BENCH_REALWORK_SETUPS:-none watch jd refuse}
	;;
carry)
	works=${VFSB_BENCH_REALWORK_ONLY:-untar cp git fio spool logs}
	setups="stream jd"
	if [ -z "${VFSB_SCRATCH_DEV3:-}" ] || [ ! -b "$VFSB_SCRATCH_DEV3" ]; then
		say "carry: no third scratch disk for the traces"
		exit 1
	fi
	;;
*)
	say "VFSB_BENCH_REALWORK_MODE=$mode: time or carry"
	exit 1
	;;
esac
works=$(echo "$works" | tr ',' ' ')
tmp=/tmp/realwork
traces=/tmp/carry-traces
rm -rf $tmp $traces
mkdir -p $tmp $traces
export HOME=/tmp GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=bench \
	GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench \
	GIT_COMMITTER_EMAIL=bench@localhost

# the guest's monotonic clock in microseconds ("now at N nsecs": the
# hrtimer clock; /proc/uptime steps by 10 ms, 3 % of a 350 ms cp -a,
# and busybox date has no %N)
now_us() { awk '/^now at/ { printf "%d\n", $3 / 1000; exit }' /proc/timer_list; }

entries=$(tar -tf $src | wc -l)
dirs=$(tar -tf $src | grep -c '/$')
say "source: $entries entries, $dirs directories ($src)"

# ---- the setups ----
jd_pid='' w_pid='' s_pid='' z_pid=''
# unload: the module out (its hooks may linger a while after the last
# watch: retried for 30 s), so that "none" has no hook at all
unload() {
	i=0
	while [ -e /sys/module/vfsbarrier ]; do
		rmmod vfsbarrier 2>/dev/null && break
		i=$((i + 1))
		[ $i -lt 300 ] || { say "rmmod vfsbarrier: still busy"; return 1; }
		sleep 0.1
	done
	return 0
}
# started PATTERN LOG PID WHAT: waits up to 30 s for PATTERN in LOG
# while PID lives; 1, said why, when it does not come
started() {
	i=0
	until grep -qs "$1" "$2"; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$3" 2>/dev/null; then
			say "$4 did not start: $(cat "$2")"
			return 1
		fi
		sleep 0.1
	done
}

setup() {
	case $1 in
	none)
		unload || return 1
		;;
	*)
		[ -e /sys/module/vfsbarrier ] || insmod "$VFSB_KO" || return 1 ;;
	esac
	case $1 in
	watch)
		vbctl watch "$fs" >$tmp/watch.log 2>&1 &
		w_pid=$!
		i=0
		until vbctl list 2>/dev/null | awk -v m="$fs" '$4 == m && $3 > 0 { f = 1 } END { exit !f }'; do
			i=$((i + 1))
			[ $i -lt 100 ] || { say "vbctl watch did not start"; return 1; }
			sleep 0.1
		done
		;;
	stream)
		# every record, to the trace of workload $w (gzip'd as it
		# comes: the JSON of a 30 s service is tens of MB)
		rm -f $tmp/stream.fifo
		mkfifo $tmp/stream.fifo || return 1
		gzip -c <$tmp/stream.fifo >"$traces/$w.jsonl.gz" &
		z_pid=$!
		vbctl stream "$fs" --json --ring 64M >$tmp/stream.fifo 2>$tmp/stream.err &
		s_pid=$!
		started "^streaming" $tmp/stream.err $s_pid "vbctl stream" || return 1
		;;
	jd | refuse | jdtmp)
		rm -rf $jrdir/j /tmp/jtmp
		r=
		[ "$1" = refuse ] && r=--refuse-unwaited
		jj=$jrdir/j
		[ "$1" = jdtmp ] && jj=/tmp/jtmp
		# shellcheck disable=SC2086 # $r: a word or none
		vbjournald --fs "$fs" --journal "$jj" --verbose $r >$tmp/jd.log 2>&1 &
		jd_pid=$!
		started "vbjournald: journal" $tmp/jd.log $jd_pid vbjournald || return 1
		;;
	esac
	return 0
}

# teardown SETUP: stops what setup started; with a daemon, its session's
# figures into $tmp/stats (intents records ack_avg_ms unacked)
teardown() {
	: >$tmp/stats
	if [ -n "$w_pid" ]; then
		kill "$w_pid"
		wait "$w_pid" 2>/dev/null
		w_pid=''
	fi
	if [ -n "$s_pid" ]; then
		# SIGTERM: vbctl stream prints what the ring holds, then exits
		kill "$s_pid"
		wait "$s_pid" 2>/dev/null
		wait "$z_pid" 2>/dev/null
		s_pid='' z_pid=''
		n=$(gzip -dc "$traces/$w.jsonl.gz" | grep -c .)
		o=$(gzip -dc "$traces/$w.jsonl.gz" | grep -c '"type":"overflow"')
		say "$w trace: $n records, $o overflow record(s)$(grep -v '^streaming' $tmp/stream.err | head -n 3)"
	fi
	if [ -n "$jd_pid" ]; then
		# SIGTERM: a last checkpoint, the session's counters saved
		kill "$jd_pid"
		wait "$jd_pid" 2>/dev/null
		jd_pid=''
		vbjournal --journal "$jj" status --json >$tmp/status.json 2>&1
		for k in intents records ack_latency_avg_ms unacked_changes; do
			v=$(sed -n "s/.*\"$k\": *\([0-9.]*\).*/\1/p" $tmp/status.json | head -n 1)
			printf '%s ' "${v:-null}"
		done >$tmp/stats
	fi
	unload
}

# daemon_mark: the daemon's CPU time so far (ms, all its threads; 10 ms
# steps), its checkpoints so far ("epoch N durable", --verbose) and its
# threads' sleeps so far (voluntary context switches: its wake-ups);
# nothing without a daemon
daemon_mark() {
	[ -n "$jd_pid" ] || return 0
	printf '%s %s %s\n' "$(awk '{ print ($14 + $15) * 10 }' /proc/"$jd_pid"/stat 2>/dev/null)" \
		"$(grep -c ' durable' $tmp/jd.log)" \
		"$(cat /proc/"$jd_pid"/task/*/status 2>/dev/null |
			awk '$1 == "voluntary_ctxt_switches:" { n += $2 } END { print n + 0 }')"
}

# settle: until the daemon's CPU time stays put for 200 ms (at most
# 10 s). A daemon just started works on for a while after it says it
# is ready (about 170 ms of CPU in the 2026-12-06 boots: an idle second
# after its start took that much), which is not the workload's cost;
# the timed run starts after it.
settle() {
	[ -n "$jd_pid" ] || return 0
	i=0
	while [ $i -lt 50 ]; do
		a=$(daemon_mark)
		sleep 0.2
		[ "$(daemon_mark)" != "$a" ] || return 0
		i=$((i + 1))
	done
	say "the daemon did not settle in 10 s"
}

# ---- the workloads: prepare (untimed), run (timed) ----
nfs_up=0
nfs_mount() {
	[ $nfs_up = 1 ] && return 0
	vfsb-servers nfs-start "$fs" || return 1
	mkdir -p /mnt/nfs
	# a client as a user mounts it: NFSv4.2, default caching
	i=0
	until mount -t nfs4 -o vers=4.2,proto=tcp,addr=127.0.0.1,clientaddr=127.0.0.1,hard \
		127.0.0.1:"$fs" /mnt/nfs 2>$tmp/mount.err; do
		i=$((i + 1))
		[ $i -lt 100 ] || { say "mount NFSv4.2: $(cat $tmp/mount.err)"; return 1; }
		sleep 0.2
	done
	nfs_up=1
}

prepare() {
	w=$1 s=$2
	case $w in
	cp)
		if [ ! -d "$fs/cpsrc/linux" ]; then
			mkdir -p "$fs/cpsrc" && tar -xf $src -C "$fs/cpsrc" || return 1
		fi
		;;
	git)
		[ -d "$fs/git/.git" ] || (
			mkdir -p "$fs/git" && cd "$fs/git" || exit 1
			tar -xf $src
			git init -q && git add -A && git commit -q -m A && git tag A || exit 1
			find linux -type f | awk 'NR % 4 == 0' | while read -r f; do
				echo "/* changed */" >>"$f"
			done
			find linux -type f | awk 'NR % 7 == 3' | xargs rm -f
			# deepest first: a directory renamed after those below it
			find linux -mindepth 2 -type d | sort -r | awk 'NR % 10 == 5' |
				while read -r d; do mv "$d" "$d.renamed"; done
			mkdir -p linux/newdir
			i=0
			while [ $i -lt 100 ]; do
				mkdir -p "linux/newdir/d$((i % 10))"
				echo "$i" >"linux/newdir/d$((i % 10))/f$i.c"
				i=$((i + 1))
			done
			git add -A && git commit -q -m B && git tag B || exit 1
			echo "git: $(git diff --name-only A B | wc -l) paths differ between A and B"
		) >$tmp/git-prepare.log 2>&1 || { say "git repository: $(tail -n 5 $tmp/git-prepare.log)"; return 1; }
		grep '^git: ' $tmp/git-prepare.log | while read -r l; do say "$l"; done
		: >$tmp/git-prepare.log
		echo 0 >$tmp/untimed
		(cd "$fs/git" && git_settle) || return 1
		;;
	fio)
		mkdir -p "$fs/fio"
		[ -f "$fs/fio/file" ] ||
			fio --name=lay --filename="$fs/fio/file" --size=16m --rw=write \
				--bs=1m --ioengine=psync >/dev/null 2>&1
		;;
	nfsuntar) nfs_mount || return 1 ;;
	spool)
		rm -rf "$fs/spool"
		for q in 0 1 2 3 4 5 6 7; do
			mkdir -p "$fs/spool/q$q/tmp" "$fs/spool/q$q/new" || return 1
		done
		;;
	logs)
		rm -rf "$fs/logs"
		for a in 0 1 2 3 4 5; do
			mkdir -p "$fs/logs/app$a" || return 1
			for f in 0 1 2 3; do
				echo start >"$fs/logs/app$a/log$f" || return 1
			done
		done
		# the larger tree: 16 x 16 directories below 16
		awk -v d="$fs/logs/tree" 'BEGIN { for (i = 0; i < 16; i++) for (j = 0; j < 16; j++)
			printf "%s/a%d/b%d\n", d, i, j }' | xargs mkdir -p || return 1
		;;
	esac
	# on disk, and still in the page cache: what a workload reads costs
	# no disk read, whose time under -icount is the host's, not counted
	# instructions (a cp -a after drop_caches moved 90 s to 128 s from
	# one setup to the next, module or not)
	sync
	return 0
}

# git_settle: an untimed pause in git's run, its length added to
# $tmp/untimed (us). Git takes an entry whose file's mtime is not older
# than the index's, in seconds, as "racy" and hashes the file again at
# its next command: after a checkout, the files written in the index's
# last second. How many those are depends on where the second's edges
# fall, which the module moves (git checkout B->A->B with no module
# took 2090 ms in one boot and 2463 ms in another). A second's sleep,
# then a refresh, writes an index newer than every file: each checkout
# starts from none racy, whatever the setup.
git_settle() {
	u0=$(now_us)
	sleep 1 && git update-index -q --refresh >/dev/null
	r=$?
	u1=$(now_us)
	echo $(($(cat $tmp/untimed) + u1 - u0)) >$tmp/untimed
	return $r
}

# run W SETUP: the timed part, less $tmp/untimed; its stderr into $tmp/err
run() {
	w=$1 s=$2
	case $w in
	untar) mkdir -p "$fs/untar-$s" && timeout "$limit" tar -xf $src -C "$fs/untar-$s" ;;
	cp) timeout "$limit" cp -a "$fs/cpsrc/linux" "$fs/cp-$s" ;;
	git) (cd "$fs/git" && timeout "$limit" git checkout -q A &&
		git_settle && timeout "$limit" git checkout -q B) ;;
	fio) timeout "$limit" fio --name=rw --filename="$fs/fio/file" --size=16m \
		--rw=randwrite --bs=4k --ioengine=io_uring --iodepth=8 \
		--io_size=64m --randrepeat=1 --norandommap \
		--output="$tmp/fio-$s.txt" ;;
	nfsuntar) mkdir -p "/mnt/nfs/nfsuntar-$s" &&
		timeout "$limit" tar -xf $src -C "/mnt/nfs/nfsuntar-$s" ;;
	spool) spool ;;
	logs) logs ;;
	esac
}

# spool: message n written into queue q's tmp, renamed into its new,
# and deleted 16 messages later (the queue it went to is remembered by
# awk, which draws the queues), for $svc seconds; the messages made
# into $tmp/ops. The clock is read every 25 messages.
spool() {
	end=$(($(now_ms) + svc * 1000))
	awk 'BEGIN { srand(27)
		for (n = 0; ; n++) {
			o = "-"
			if (n >= 16)
				o = old[n % 16]
			q = int(rand() * 8)
			printf "%d %d %s\n", n, q, o
			old[n % 16] = q " m" n
		} }' 2>/dev/null | {
		while read -r n q oq om; do
			echo "message $n" >"$fs/spool/q$q/tmp/m$n" &&
				mv "$fs/spool/q$q/tmp/m$n" "$fs/spool/q$q/new/m$n" || exit 1
			if [ "$oq" != - ]; then
				rm "$fs/spool/q$oq/new/$om" || exit 1
			fi
			if [ $((n % 25)) = 0 ] && [ "$(now_ms)" -ge $end ]; then
				echo "$n" >$tmp/ops
				exit 0
			fi
		done
		exit 1
	}
}

# logs: each tick, 8 lines appended to log files drawn from 24 (6
# directories), with probability 0.3 a new file in one of the 272
# directories of the tree, then 50 ms of sleep; for $svc seconds.
# Appends and new files made into $tmp/ops.
logs() {
	end=$(($(now_ms) + svc * 1000))
	awk 'BEGIN { srand(27)
		for (t = 0; ; t++) {
			for (k = 0; k < 8; k++)
				printf "a app%d/log%d\n", int(rand() * 6), int(rand() * 4)
			if (rand() < 0.3)
				printf "n tree/a%d/b%d/f%d\n", int(rand() * 16), int(rand() * 16), t
			print "t"
		} }' 2>/dev/null | {
		ops=0
		while read -r op p; do
			case $op in
			a) echo "line $ops of $p" >>"$fs/logs/$p" || exit 1 ;;
			n) echo "new" >"$fs/logs/$p" || exit 1 ;;
			t)
				if [ "$(now_ms)" -ge $end ]; then
					echo "$ops" >$tmp/ops
					exit 0
				fi
				sleep 0.05
				continue
				;;
			esac
			ops=$((ops + 1))
		done
		exit 1
	}
}

# entries each workload writes, for intents per entry
written() {
	case $1 in
	untar | cp | nfsuntar) echo "$entries" ;;
	git) (cd "$fs/git" && git diff --name-only A B | wc -l | awk '{ print 2 * $1 }') ;;
	fio) echo 16384 ;;
	spool | logs) cat $tmp/ops 2>/dev/null || echo null ;;
	esac
}

: >$tmp/results
for w in $works; do
	for s in $setups; do
		if ! prepare "$w" "$s"; then
			say "$w: could not prepare"
			echo "$w $s null null null null null null 1" >>$tmp/results
			continue
		fi
		setup "$s" || { teardown "$s"; echo "$w $s null null null null null null 1" >>$tmp/results; continue; }
		# a run that hits its limit: the stacks of what it waits for
		# (the sleep's output not the phase's: killed, the subshell
		# leaves it behind, and it would hold tools/bench.sh's tee open)
		(
			sleep $((limit - 10)) >/dev/null 2>&1
			for t in /proc/[0-9]*; do
				case $(cat "$t/comm" 2>/dev/null) in
				tar | cp | git | fio | nfsd) ;; *) continue ;; esac
				echo "realwork: stuck? $t $(cat "$t/comm") $(cut -d' ' -f3 "$t/stat") $(cat "$t/wchan")"
				sed 's/^/realwork:   /' "$t/stack"
			done
		) &
		dump=$!
		settle
		m0=$(daemon_mark)
		echo 0 >$tmp/untimed
		# scripts/profile.sh: symbols, then a mark (as bench_journal's)
		if [ -n "${VFSB_BENCH_PROF:-}" ]; then
			dd if=/proc/kallsyms of=/dev/vdc bs=16M seek="${prof_n:=0}" iflag=fullblock conv=sync,notrunc status=none
			say "prof symbols $prof_n: $w $s"
			prof_n=$((prof_n + 1))
			prof_mark
		fi
		t0=$(now_us)
		run "$w" "$s" 2>$tmp/err
		rc=$?
		t1=$(now_us)
		[ -z "${VFSB_BENCH_PROF:-}" ] || prof_mark
		t1=$((t1 - $(cat $tmp/untimed)))
		m1=$(daemon_mark)
		# the daemon's CPU, checkpoints and wake-ups within the timed run
		dm="null null null"
		if [ -n "$m0" ] && [ -n "$m1" ]; then
			# shellcheck disable=SC2086 # three numbers each
			dm=$(echo $m0 $m1 | awk '{ print $4 - $1, $5 - $2, $6 - $3 }')
		fi
		kill $dump 2>/dev/null
		# the data on disk is part of the work: a sync each, timed apart
		sync
		teardown "$s"
		# the copies are not read again: room in the guest's memory
		case $w in
		untar | cp | nfsuntar) rm -rf "${fs:?}/$w-$s" ;;
		esac
		errs=$(grep -c . $tmp/err)
		[ $rc = 0 ] || errs=$((errs + 1))
		[ "$errs" = 0 ] || say "$w $s: exit $rc: $(head -n 3 $tmp/err)"
		ms=$(((t1 - t0 + 500) / 1000))
		st=$(cat $tmp/stats)
		[ -n "$st" ] || st="null null null null "
		say "$w $s: $ms ms, errors $errs${st:+, daemon: $st}, daemon CPU ms, checkpoints and wake-ups in the run: $dm"
		echo "$w $s $ms $(written "$w") $st$errs $dm" >>$tmp/results
		# carry: when, on the clock of the traces' time_ns (the
		# guest's monotonic clock, in /proc/uptime's 10 ms steps)
		echo "$w $s $t0 $t1 $ms $(written "$w") $st$errs $dm" >>$traces/runs.txt
	done
done
[ $nfs_up = 1 ] && { umount /mnt/nfs; vfsb-servers stop; }
umount $jrdir
[ "$disk" = ram ] && umount "$fs"

if [ "$mode" = carry ]; then
	# the traces to the host: a tar on the raw disk (scripts/bench-carry.sh)
	echo "# workload setup start_ms end_ms ms written intents records ack_latency_avg_ms unacked errors daemon_cpu_ms checkpoints daemon_wakeups" >$traces/README
	tar -cf "$VFSB_SCRATCH_DEV3" -C $traces . || { say "carry: could not write the traces"; exit 1; }
	sync
	say "carry: traces on $VFSB_SCRATCH_DEV3: $(cd $traces && echo *)"
	awk -v out="$outjson" '
		function num(v) { return v == "null" || v == "" ? "null" : v + 0 }
		{ j = j (NR > 1 ? ", " : "") sprintf("{\"workload\": \"%s\", \"setup\": \"%s\", \"ms\": %s, \"written\": %s, \"intents\": %s, \"records\": %s, \"errors\": %s, \"checkpoints\": %s}",
			$1, $2, num($5), num($6), num($7), num($8), num($11), num($13))
		  printf "carry: %-6s %-6s %6s ms, written %s, intents %s, records %s, errors %s, checkpoints %s\n", $1, $2, $5, $6, $7, $8, $11, $13 }
		END { print "{\"carry\": {\"runs\": [" j "]}}" > out }' $traces/runs.txt
	exit 0
fi

# ---- table and JSON ----
awk -v size="${VFSB_BENCH_REALWORK_SIZE:-small}" -v ent="$entries" -v dirs="$dirs" -v out="$outjson" '
	function num(v) { return v == "null" || v == "" ? "null" : v + 0 }
	{ w = $1; s = $2; ms[w, s] = $3; n[w] = $4; it[w, s] = $5; rec[w, s] = $6
	  lat[w, s] = $7; un[w, s] = $8; er[w, s] = $9; cpu[w, s] = $10; ck[w, s] = $11; wk[w, s] = $12
	  if (!(w in seen)) { seen[w] = 1; order[++nw] = w } }
	END {
		ns = split("none watch jd refuse", S, " ")
		printf "\nreal work (%s: %d entries, %d directories), guest clock; ratio to no module\n", size, ent, dirs
		printf "%-9s %9s %9s %6s %9s %6s %9s %6s %8s %8s %8s %7s\n", "workload", "none ms",
		    "watch ms", "x", "jd ms", "x", "refuse ms", "x", "waits/op", "intent/s", "ack ms", "errors"
		j = "{\"realwork\": {\"size\": \"" size "\", \"entries\": " ent ", \"directories\": " dirs ", \"workloads\": {"
		for (i = 1; i <= nw; i++) {
			w = order[i]
			b = ms[w, "none"]
			line = sprintf("%-9s %9s", w, b)
			j = j (i > 1 ? ", " : "") "\"" w "\": {\"written\": " num(n[w])
			errs = 0
			for (k = 1; k <= ns; k++) {
				s = S[k]
				if (!((w, s) in ms))
					ms[w, s] = er[w, s] = it[w, s] = "null"
				r = (b > 0 && !er[w, "none"] && ms[w, s] != "null" && !er[w, s]) ? ms[w, s] / b : "null"
				if (k > 1)
					line = line sprintf(" %9s %6s", ms[w, s], r == "null" ? "-" : sprintf("%.3f", r))
				j = j ", \"" s "\": {\"ms\": " num(ms[w, s]) ", \"ratio\": " (r == "null" ? "null" : sprintf("%.4f", r)) \
				    ", \"errors\": " num(er[w, s])
				if (s == "jd" || s == "refuse")
					j = j ", \"intents\": " num(it[w, s]) ", \"records\": " num(rec[w, s]) \
					    ", \"ack_latency_avg_ms\": " num(lat[w, s]) ", \"unacked\": " num(un[w, s]) \
					    ", \"intents_per_op\": " (it[w, s] != "null" && n[w] > 0 ? sprintf("%.4f", it[w, s] / n[w]) : "null") \
					    ", \"intents_per_s\": " (it[w, s] != "null" && ms[w, s] > 0 ? sprintf("%.1f", it[w, s] * 1000 / ms[w, s]) : "null") \
					    ", \"daemon_cpu_ms\": " num(cpu[w, s]) ", \"checkpoints\": " num(ck[w, s]) ", \"daemon_wakeups\": " num(wk[w, s])
				j = j "}"
			}
			j = j "}"
			ipo = (it[w, "jd"] != "null" && n[w] > 0) ? sprintf("%.4f", it[w, "jd"] / n[w]) : "-"
			ips = (it[w, "jd"] != "null" && ms[w, "jd"] > 0) ? sprintf("%.1f", it[w, "jd"] * 1000 / ms[w, "jd"]) : "-"
			printf "%s %8s %8s %8s %3s/%-3s\n", line, ipo, ips, lat[w, "jd"], er[w, "jd"], er[w, "refuse"]
		}
		print "(waits/op, intent/s, ack ms: vbjournald default mode; errors: default/refuse)"
		print j "}}}" > out
	}' $tmp/results
