#!/bin/sh
# The crash test of the change journal: an ext4 on one virtio disk is
# journaled by vbjournald onto a second disk while a workload runs
# (selftests/crash/crashload.c: its mode, below), a manifest of the tree
# is written after each checkpoint, and the guest is killed from the
# host (QEMU SIGKILL) at a moment drawn from the cycle's seed. The next
# boot, on the same disks, checks the answer of `vbjournal changes` since
# the manifest's cursor as a consumer would use it: every path (file or
# directory) that differs from the last manifest must be led to by an
# entry (its directory named, a moved or new subtree above it, a file
# entry for one of its names, a gap), then writes until killed again. A
# last boot only checks.
#
# Usage: scripts/crashtest.sh [KIND]     KIND: 6.1 6.12 (default) 7 debug
# Environment:
#   VFSB_CRASH_CYCLES  crashes (default 20)
#   VFSB_CRASH_BASE    seed of the first cycle (default: the time)
#   VFSB_CRASH_MODE    the workload: mixed, hardlink, tmpfile, dirrename,
#                      restart (mixed's, the daemon restarted through its
#                      fd store every second: no gap allowed), nfs
#                      (mixed's, written through an NFS client's mount
#                      of the watched ext4 over loopback: nfsd's
#                      changes), mirror (a bit of each, names of every
#                      kind, while `vbjournal mirror` runs again and
#                      again: the next boot's caught-up mirror must
#                      equal the tree), newdirs (mostly directories made
#                      and written in, which wait for nothing: after a
#                      crash the recovery must name them), or all (each
#                      boot the next of the eight); a list of modes takes
#                      them in turn; default all, but mixed for runs of
#                      fewer than 8 crashes; publish (not in all): mixed's, with
#                      vbjournal-publish into redis-server, each boot
#                      checking the stream (selftests/crash/crash.sh)
#   VFSB_CRASH_NFS     the nfs mode's protocol: 3 or 4.2 (default: odd
#                      seeds NFSv3, even ones NFSv4.2)
#   VFSB_CRASH_DEBUG   S: S seconds into each boot, the stacks of the
#                      blocked tasks, the daemon, nfsd and the writers
#                      and the daemon's log, on the console
#   VFSB_NO_DKMS, VFSB_KO, VFSB_QEMU_*: see scripts/run-guest.sh;
#   VFSB_QEMU_ACCEL defaults to tcg,thread=single here (see below)
# A checkpoint that does not finish within vbjournal's 30 s (a writer
# stalled on an ack the checkpoint holds back) fails the boot: "CRASHTEST
# FAIL: checkpoint failed".
# Output: one "CRASHTEST cycle ..." line per check, the totals per mode
# (differing paths, missed, false positives) and "N passed, N failed"
# (one test per check).
# Logs: build/crash/<kernel>/.
set -u
# Twenty boots per run: under multi-threaded TCG (QEMU 7.2) one of them
# now and then oopses on an int3 of the kernel's own boot-time text
# patching, before any module is loaded (6.12, 2026-12-05: "Oops: int3"
# at sched_clock_idle_wakeup_event+0x5, 4 s into boot; the emulator's
# stale translations, selftests/stress/README.md). One host thread for
# both vCPUs does not have that fault.
export VFSB_QEMU_ACCEL="${VFSB_QEMU_ACCEL:-tcg,thread=single}"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kind=${1:-6.12}
cycles=${VFSB_CRASH_CYCLES:-20}
base=${VFSB_CRASH_BASE:-$(date +%s)}
modes=${VFSB_CRASH_MODE:-}
if [ -z "$modes" ]; then
	modes=all
	[ "$cycles" -ge 8 ] || modes=mixed
fi
[ "$modes" = all ] && modes="mixed hardlink tmpfile dirrename restart nfs mirror newdirs"
for m in $modes; do
	case $m in
	mixed | hardlink | tmpfile | dirrename | restart | nfs | mirror | newdirs) ;;
	# vbjournal-publish into redis-server as well (not in "all")
	publish) export VFSB_REDIS=1 ;;
	*) echo "crashtest: VFSB_CRASH_MODE: no mode $m" >&2; exit 2 ;;
	esac
done
# mode_of I: cycle I's workload
mode_of() {
	n=$1
	# shellcheck disable=SC2086 # $modes: the words are the modes
	set -- $modes
	shift $((n % $#))
	echo "$1"
}
case "$kind" in
6.1) kver=6.1 ;;
6.12 | 7 | debug) kver=$(scripts/kernels/fetch.sh "$kind") || exit 1 ;;
*) kver=$kind ;;
esac
eval "$(scripts/kernel.sh "$kver")" || exit 1
[ "$kind" = debug ] && export VFSB_GUEST_MEM="${VFSB_GUEST_MEM:-2048}"
build=${VFSB_BUILD:-$top/build}
# one module for every boot (DKMS's, as run-guest.sh would build it)
if [ -z "${VFSB_KO:-}" ]; then
	if [ -n "${VFSB_NO_DKMS:-}" ]; then
		VFSB_KO=$(scripts/build-module.sh "$KREL" "$KDIR") || exit 1
	else
		VFSB_KO=$(scripts/dkms.sh build "$KREL" "$KDIR") || exit 1
	fi
	export VFSB_KO
fi
dir=$build/crash/$KREL
rm -rf "$dir"
mkdir -p "$dir"
console=$build/$KREL/console-crash.log

# descendants PID: every process below PID
descendants() {
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}

# Fresh disks, formatted here: the guest only mounts them.
for d in data journal; do
	truncate -s 256M "$dir/$d.img"
	mkfs.ext4 -q -F "$dir/$d.img" || exit 1
done
export VFSB_GUEST_DISKS="$dir/data.img $dir/journal.img"

pass=0 fail=0
: >"$dir/results"
: >"$dir/mirror-results"
# Judges the check the boot of cycle $1 printed (of the crash before).
judge() {
	line=$(grep -m1 '^CRASHTEST verify:' "$dir/cycle-$1.console.log" | tr -d '\r')
	if [ -z "$line" ]; then
		echo "CRASHTEST cycle $1: FAIL (no verification; see $dir/cycle-$1.console.log)"
		grep '^CRASHTEST' "$dir/cycle-$1.console.log" | head -5
		fail=$((fail + 1))
		return
	fi
	grep -E '^CRASHTEST (MISSED|gap|full|control|publish|mirror)' "$dir/cycle-$1.console.log" | head -40
	# field NAME: the number after NAME in the verify line
	field() { echo "$line" | sed -n "s/.*[ (]$1 \([0-9]*\).*/\1/p"; }
	m=$(field missed)
	echo "$(echo "$line" | sed -n 's/.* mode \([a-z?]*\),.*/\1/p')" \
		"$(field differing)" "$m" "$(field named)" \
		"$(field 'false positives')" "$(field gaps)" >>"$dir/results"
	# restart: the daemon restarted through its fd store needs no gap
	g=$(field gaps)
	case "$line" in
	*" mode restart,"*) [ "$g" = 0 ] || m="$m (and $g gaps)" ;;
	esac
	# the mirror the boot before kept: caught up, it must equal the tree
	mline=$(grep -m1 '^CRASHTEST mirror: exit' "$dir/cycle-$1.console.log" | tr -d '\r')
	if [ -n "$mline" ]; then
		md=$(echo "$mline" | sed -n 's/.*differences \([0-9]*\)$/\1/p')
		case "$mline" in
		*" full run,"*) mk=full ;;
		*) mk=incremental ;;
		esac
		echo "${md:-1} $mk" >>"$dir/mirror-results"
		[ "${md:-1}" = 0 ] || m="$m (and ${md:-?} mirror differences)"
	fi
	if [ "$m" = 0 ]; then
		pass=$((pass + 1)) v=PASS
	else
		fail=$((fail + 1)) v=FAIL
	fi
	echo "CRASHTEST cycle $1: $v ${line#CRASHTEST verify: }"
}

i=0
while [ $i -le "$cycles" ]; do
	seed=$((base + i))
	if [ $i = "$cycles" ]; then
		phase=verify
	else
		phase=run
	fi
	rm -f "$console"
	mode=$(mode_of $i)
	VFSB_CRASH_SEED=$seed VFSB_CRASH_PHASE=$phase VFSB_CRASH_MODE=$mode \
		scripts/run-guest.sh crash "$KREL" >"$dir/cycle-$i.out" 2>&1 &
	pid=$!
	if [ $phase = run ]; then
		# the kill: 1 to 5 s after the first manifest, by the seed
		delay=$(awk -v s="$seed" 'BEGIN { srand(s); printf "%.2f", 1 + 4 * rand() }')
		t=0
		until grep -q '^CRASHTEST \(running\|FAIL\)' "$console" 2>/dev/null; do
			sleep 1
			t=$((t + 1))
			if ! kill -0 $pid 2>/dev/null || [ $t -ge 600 ]; then
				break
			fi
		done
		sleep "$delay"
		for q in $(descendants $pid); do
			case "$(ps -o comm= -p "$q" 2>/dev/null)" in
			qemu-system*) kill -9 "$q" 2>/dev/null ;;
			esac
		done
	fi
	wait $pid
	cp "$console" "$dir/cycle-$i.console.log" 2>/dev/null
	if grep -q '^CRASHTEST FAIL' "$dir/cycle-$i.console.log"; then
		grep '^CRASHTEST FAIL' "$dir/cycle-$i.console.log"
		fail=$((fail + 1))
	fi
	[ $i = 0 ] || judge $i
	[ $phase = run ] && echo "CRASHTEST cycle $i: $mode, seed $seed, killed ${delay}s after its first manifest"
	i=$((i + 1))
done
# per mode: crashes, differing paths, missed, false positives of named
awk -v k="$KREL" '
	{ c[$1]++; d[$1] += $2; m[$1] += $3; n[$1] += $4; f[$1] += $5; g[$1] += ($6 > 0)
	  C++; D += $2; M += $3; N += $4; F += $5 }
	END {
		for (x in c)
			printf "crashtest: %s, mode %s: %d crashes, %d differing paths, %d missed, %d of %d named unchanged (%.1f%% false positives), %d with a gap\n",
			    k, x, c[x], d[x], m[x], f[x], n[x], n[x] ? 100 * f[x] / n[x] : 0, g[x]
		printf "crashtest: %s, %d crashes, %d differing paths, %d missed, %d of %d named unchanged (%.1f%% false positives)\n",
		    k, C, D, M, F, N, N ? 100 * F / N : 0
	}' "$dir/results"
if [ -s "$dir/mirror-results" ]; then
	awk -v k="$KREL" '{ n++; d += $1; f += ($1 > 0); inc += ($2 == "incremental") }
		END { printf "crashtest: %s, mirror: %d checks (%d caught up incrementally, %d by a full run), %d differences, %d checks with a difference\n", k, n, inc, n - inc, d, f }' \
		"$dir/mirror-results"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
