#!/bin/sh
# make bench: the benchmarks in one TCG boot with two vCPUs (every
# phase; wall-clock figures, ratios measured side by side), then the
# per-operation phase again in a boot under QEMU's -icount (one vCPU
# whose clock counts executed instructions: figures the host's load does
# not move, to resolve the hot path's targets), then a third boot with a
# module that counts its hook callbacks (hooks per operation), and the
# targets from all three into $VFSB_BUILD/bench/targets.md; real work
# in a boot of its own (scripts/bench-realwork.sh); and vbjournal mirror
# against rsync (phase mirror) in a boot of its own under -icount, so
# that the host's load moves neither side of its ratios (results in
# $VFSB_BUILD/bench-mirror/).
# Usage: bench.sh [KVER]   Environment: what run-guest.sh takes;
# VFSB_BENCH_ICOUNT=0 skips the icount boot. The icount boot runs only
# when the per-operation phase is among VFSB_BENCH_ONLY (or it is unset).
# VFSB_BENCH_ICOUNT_ALSO: more kernels (run-guest.sh's KIND) whose
# per-operation phase is counted too, for the hot path's targets on
# each (default 6.12; empty: none).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kver=${1:-}
build=${VFSB_BUILD:-$top/build}
rc=0
# The mirror phase runs in its own -icount boot (below), not in this one.
all="overhead,scaling,barrier,rate,stall,records,journal"
only=$(echo "${VFSB_BENCH_ONLY:-$all,mirror}" | tr ' ' ',')
first=$(echo "$only" | tr ',' '\n' | grep -vx -e mirror -e '' | paste -sd, -)
if [ -n "$first" ]; then
	VFSB_BENCH_ONLY=$first scripts/run-guest.sh bench "$kver" || rc=$?
fi
case ",$only," in
*,mirror,*)
	echo "bench: vbjournal mirror against rsync, counted in instructions (-icount)"
	# 100 000 files under -icount: 35 min of wall time up to the
	# 10 000-change step on a loaded host (BENCHMARKS.md)
	VFSB_QEMU_ICOUNT=1 VFSB_BENCH_ONLY=mirror VFSB_COLLECT_DIR=bench-mirror \
		VFSB_GUEST_TIMEOUT=${VFSB_GUEST_TIMEOUT:-7200} \
		scripts/run-guest.sh bench "$kver" || rc=$?
	;;
esac
# Real work (untar, cp -a, git checkout, fio, untar through NFS) in a
# boot of its own under -icount: scripts/bench-realwork.sh. Skipped
# with VFSB_BENCH_REALWORK=0 or a VFSB_BENCH_ONLY.
if [ "${VFSB_BENCH_REALWORK:-1}" = 1 ] && [ -z "${VFSB_BENCH_ONLY:-}" ]; then
	scripts/bench-realwork.sh "$kver" || rc=$?
fi
case " $(echo "${VFSB_BENCH_ONLY:-overhead}" | tr ',' ' ') " in
*" overhead "*) ;;
*) exit $rc ;;
esac
[ "${VFSB_BENCH_ICOUNT:-1}" = 1 ] || exit $rc
echo "bench: the per-operation phase again, counted in instructions (-icount)"
# Deterministic figures need no long loops or many rounds: 3 rounds of
# 100 ms loops (VFSB_ICOUNT_REPS, VFSB_ICOUNT_RUN_MS). The journal's
# steady state split (bench_journal steady) counts in the same boot.
VFSB_QEMU_ICOUNT=1 VFSB_BENCH_ONLY=overhead,steady VFSB_COLLECT_DIR=bench-icount \
	VFSB_BENCH_REPS=${VFSB_ICOUNT_REPS:-3} VFSB_BENCH_RUN_MS=${VFSB_ICOUNT_RUN_MS:-100} \
	scripts/run-guest.sh bench "$kver" || rc=$?
# How many hook callbacks make each ratio: a module built to count them
# (VFSB_HOOK_STATS=y, never installed: the counting costs), one more boot.
echo "bench: hook callbacks per operation (a module built with VFSB_HOOK_STATS=y)"
eval "$(scripts/kernel.sh "$kver")"
ko=$(VFSB_BUILD=$build/hookstats scripts/build-module.sh "$KREL" "$KDIR" VFSB_HOOK_STATS=y)
VFSB_KO=$ko VFSB_BENCH_ONLY=hooks VFSB_COLLECT_DIR=bench-hooks \
	scripts/run-guest.sh bench "$kver" || rc=$?
more=
for k in ${VFSB_BENCH_ICOUNT_ALSO-6.12}; do
	echo "bench: the per-operation phase counted in instructions on $k"
	VFSB_QEMU_ICOUNT=1 VFSB_BENCH_ONLY=overhead VFSB_COLLECT_DIR=bench-icount-$k \
		VFSB_BENCH_REPS=${VFSB_ICOUNT_REPS:-3} VFSB_BENCH_RUN_MS=${VFSB_ICOUNT_RUN_MS:-100} \
		scripts/run-guest.sh bench "$k" || rc=$?
	more="$more $build/bench-icount-$k/results.json"
done
if [ -s "$build/bench/results.json" ] && [ -s "$build/bench-icount/results.json" ]; then
	# shellcheck disable=SC2086 # one path per word
	python3 scripts/bench-targets.py "$build/bench/results.json" \
		"$build/bench-icount/results.json" "$build/bench-hooks/results.json" \
		$more > "$build/bench/targets.md" || rc=1
	echo "===== targets (wall clock and icount) ====="
	cat "$build/bench/targets.md"
fi
exit $rc
