#!/bin/sh
# Guest side of `make bench` (guest/init runs it in mode bench): mount
# the filesystems under test, run every benchmark program in one boot,
# then print the results table and results.json on the console.
# scripts/bench-collect.sh extracts both from the console log on the host.
#
# Environment (from the kernel command line, see scripts/run-guest.sh):
#   VFSB_BENCH_QUICK=1   tiny loop counts, for trying the harness out
#   VFSB_BENCH_ONLY="overhead,stall"  run only these phases
#   the programs' own knobs (VFSB_BENCH_ITERS, _REPS, ...; BENCHMARKS.md)
set -u
export PATH=/tests:/sbin:/bin
out=/tmp/bench
rm -rf "$out"
mkdir -p "$out"
t_start=$(date +%s)
case ${VFSB_BENCH_QUICK:-0} in
0 | "") quick=false ;;
*) quick=true ;;
esac
say() { echo "bench: $*"; }

say "kernel $(uname -r), $(nproc) CPUs, quick=$quick"

# ---- the filesystems under test ----
mkdir -p /mnt/bench-tmpfs /mnt/bench-other /mnt/bench-ext4
mount -t tmpfs -o size=256m tmpfs /mnt/bench-tmpfs || exit 1
mount -t tmpfs -o size=16m tmpfs /mnt/bench-other || exit 1
VFSB_BENCH_FS="tmpfs:/mnt/bench-tmpfs"
if [ -n "${VFSB_SCRATCH_DEV:-}" ] && mkfs.ext4 -q -F "$VFSB_SCRATCH_DEV" >/dev/null 2>&1 &&
	mount -t ext4 "$VFSB_SCRATCH_DEV" /mnt/bench-ext4; then
	VFSB_BENCH_FS="$VFSB_BENCH_FS ext4:/mnt/bench-ext4"
else
	say "warning: no ext4 scratch filesystem; tmpfs only"
fi
export VFSB_BENCH_FS VFSB_BENCH_OTHER=/mnt/bench-other
# The baseline is "module not loaded"; note its version on the way.
[ -e /sys/module/vfsbarrier ] || insmod "$VFSB_KO"
modver=$(cat /sys/module/vfsbarrier/version 2>/dev/null)
rmmod vfsbarrier
say "module vfsbarrier ${modver:-?} ($VFSB_KO)"

# ---- phases: NAME, its JSON members when it fails, the command ----
phases_run=""
phase() {
	name=$1 fallback=$2
	shift 2
	case " $(echo "${VFSB_BENCH_ONLY:-$name}" | tr ',' ' ') " in
	*" $name "*) ;;
	*) echo "{$fallback}" > "$out/$name.json"; return ;;
	esac
	say "=== phase $name: $* ==="
	t0=$(date +%s)
	{ "$@" "$out/$name.json"; echo $? > "$out/$name.rc"; } | tee "$out/$name.txt"
	rc=$(cat "$out/$name.rc")
	t=$(( $(date +%s) - t0 ))
	say "=== phase $name: exit $rc after ${t}s ==="
	if [ "$rc" != 0 ] || [ ! -s "$out/$name.json" ]; then
		say "warning: phase $name failed; its figures are null"
		echo "{$fallback}" > "$out/$name.json"
		echo "phase $name FAILED (exit $rc)" >> "$out/$name.txt"
		[ -e /sys/module/vfsbarrier ] && rmmod vfsbarrier
	fi
	phases_run="$phases_run${phases_run:+, }\"$name\": $t"
}

phase overhead '"overhead": null, "overhead_by_fs": null' bench_overhead overhead
phase scaling '"watched_sbs": null, "subscribers": null' bench_overhead scaling
phase barrier '"barrier": null, "barrier_by_fs": null' bench_barrier latency
phase rate '"section_rate": null' bench_barrier rate
phase stall '"writer_stall": null, "writer_stall_by_fs": null' bench_stall stall
phase records '"records": {"max_lossless_ops_per_s": null, "fanotify_max_lossless_per_s": null, "note": "phase not run or failed"}' bench_records records
phase journal '"journal": null' bench_journal journal
phase steady '"journal_steady": null' bench_journal steady
phase mirror '"mirror": null' bench_mirror mirror
# only with a VFSB_HOOK_STATS=y module (scripts/bench.sh's third boot)
phase hooks '"hooks_per_op": null, "hooks_per_op_by_fs": null' bench_overhead hooks
# real work (bench-realwork.sh): only when VFSB_BENCH_ONLY names it
# (scripts/bench.sh's realwork boot, under -icount)
case " $(echo "${VFSB_BENCH_ONLY:-}" | tr ',' ' ') " in
*" realwork "*) phase realwork '"realwork": null' bench-realwork.sh ;;
*) echo '{"realwork": null}' > "$out/realwork.json" ;;
esac
# record traces of real work for issue 27's carry simulation
# (bench-realwork.sh's carry mode; scripts/bench-carry.sh): only when
# VFSB_BENCH_ONLY names it
case " $(echo "${VFSB_BENCH_ONLY:-}" | tr ',' ' ') " in
*" carry "*) phase carry '"carry": null' env VFSB_BENCH_REALWORK_MODE=carry bench-realwork.sh ;;
*) echo '{"carry": null}' > "$out/carry.json" ;;
esac

t_total=$(( $(date +%s) - t_start ))

# ---- the table ----
echo
echo "===== vfsbarrier benchmark results ====="
echo "kernel $(uname -r); guest under QEMU/TCG: absolute times are inflated, compare ratios within this boot"
[ "$quick" = true ] && echo "QUICK MODE (VFSB_BENCH_QUICK=1): tiny loop counts, figures are not meaningful"
for p in overhead scaling barrier rate stall records journal steady mirror realwork carry; do
	[ -s "$out/$p.txt" ] && cat "$out/$p.txt"
done
echo
echo "guest time for all phases: ${t_total}s"
echo "===== end of results ====="

# ---- results.json: one object, from each phase's members ----
members() { sed -e 's/^{//' -e 's/}$//' "$1"; }
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
memkb=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)
{
	printf '{"kernel": "%s", "module_version": "%s", "quick": %s, ' "$(uname -r)" "$modver" "$quick"
	printf '"machine": {"accel": "qemu-tcg", "cpus": %s, "mem_kb": %s, "clocksource": "%s"}, ' \
		"$(nproc)" "${memkb:-0}" "$clocksource"
	printf '"filesystems": "%s", ' "$VFSB_BENCH_FS"
	for p in overhead scaling barrier rate stall records journal steady mirror hooks realwork carry; do
		case $p in scaling|rate) continue ;; esac
		printf '%s, ' "$(members "$out/$p.json")"
	done
	printf '"scaling": {%s, %s}, ' "$(members "$out/scaling.json")" "$(members "$out/rate.json")"
	printf '"phase_seconds": {%s}, "guest_seconds": %s}\n' "$phases_run" "$t_total"
} > "$out/results.json"

# Chunks with a prefix: the host joins them (scripts/bench-collect.sh).
echo "VFSB-JSON-BEGIN"
awk '{ for (i = 1; i <= length($0); i += 160) print "VFSB-JSON: " substr($0, i, 160) }' "$out/results.json"
echo "VFSB-JSON-END"

umount /mnt/bench-ext4 2>/dev/null
umount /mnt/bench-other /mnt/bench-tmpfs 2>/dev/null
say "done in ${t_total}s"
