#!/bin/sh
# Counts the guest's executed instructions per function in the benchmark
# runs that mark themselves (VFSB_BENCH_PROF): bench_journal's steady
# phase (each configuration's loop) and tools/bench-realwork.sh's runs,
# under -icount as their benchmarks are, with the QEMU TCG plugin
# tools/prof/tbcount.c. A profile says where a ratio's instructions go:
# how many each function of the kernel, of the module and of user space
# ran between a run's two marks.
# Usage: profile.sh steady|realwork [KVER]
# Environment: what run-guest.sh and bench-realwork.sh take (e.g.
# VFSB_BENCH_REALWORK_ONLY=cp VFSB_BENCH_REALWORK_SETUPS="watch jd").
# Leaves in $VFSB_BUILD/prof (default build/prof): snap.N (the counts at
# the Nth mark), disk.img (the guest's kallsyms before each run) and
# console.log (which run is which); then, for instance:
#   tools/prof/report.py build/prof 2000 "tmpfs/journal-steady unwatched create" \
#       "tmpfs/journal-steady vbjournald create"
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
phase=${1:-}
[ -n "$phase" ] && shift
build=${VFSB_BUILD:-$top/build}
out=$build/prof
rm -rf "$out"
mkdir -p "$out"
${CC:-cc} -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
	-o "$out/tbcount.so" tools/prof/tbcount.c
# the guest's three disks: two scratch ones, the third for kallsyms
for d in scratch-a scratch-b disk; do
	truncate -s 512M "$out/$d.img"
done
export VFSB_GUEST_DISKS="$out/scratch-a.img $out/scratch-b.img $out/disk.img"
export VFSB_QEMU_PLUGIN="$out/tbcount.so,out=$out/snap"
export VFSB_BENCH_PROF=1
rc=0
case $phase in
steady)
	VFSB_QEMU_ICOUNT=1 VFSB_BENCH_ONLY=steady VFSB_BENCH_REPS=1 \
		scripts/run-guest.sh bench "$@" || rc=$?
	;;
realwork)
	VFSB_BENCH_REALWORK_ALSO='' scripts/bench-realwork.sh "$@" || rc=$?
	;;
*)
	echo "usage: profile.sh steady|realwork [KVER]" >&2
	exit 2
	;;
esac
# the console of the boot just run: the newest (paths without spaces)
# shellcheck disable=SC2012
log=$(ls -t "$build"/*/console-bench.log | head -n 1)
cp "$log" "$out/console.log"
n=0
for f in "$out"/snap.*; do
	[ -e "$f" ] && n=$((n + 1))
done
echo "profile: $n marks in $out"
exit $rc
