#!/bin/sh
# Guest side of the hook churn reproducer (guest/init, mode "stress"):
# writers of every kind on a tmpfs and an ext4 while hooks on their call
# sites are registered and removed in a loop, either by loading, watching
# with and unloading vfsbarrier, or (no vfsbarrier at all) by tracefs.
# scripts/stress.sh drives it from the host and judges the console.
#
# Environment (from the kernel command line, see scripts/stress.sh):
#   VFSB_STRESS_MODE    vfsb (default) | ftrace | data | kprobe |
#                       instances | mix   (see vfsb_stress.c)
#   VFSB_STRESS_CYCLES  churn cycles (default 500)
#   VFSB_STRESS_SECS    time limit of the churn (default 1200)
#   VFSB_STRESS_HOLD_MS watches held per cycle, vfsb mode (default 200)
#   VFSB_STRESS_COUNT=1 count patching rounds with kprobe events on
#                       ftrace_modify_all_code/text_poke_bp_batch first
#                       (a few cycles, then the counts)
set -u
export PATH=/tests:/sbin:/bin
mode=${VFSB_STRESS_MODE:-vfsb}
cycles=${VFSB_STRESS_CYCLES:-500}
secs=${VFSB_STRESS_SECS:-1200}
hold=${VFSB_STRESS_HOLD_MS:-200}
say() { echo "vfsb-stress: $*"; }

say "kernel $(uname -r), $(nproc) CPUs, mode $mode, $cycles cycles or ${secs}s, hold ${hold}ms"
say "hung_task_timeout_secs=$(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null)" \
	"softlockup_thresh=$(cat /proc/sys/kernel/watchdog_thresh 2>/dev/null)"

mkdir -p /mnt/st /mnt/se
mount -t tmpfs -o size=64m tmpfs /mnt/st || exit 1
# The watched directories, as the positional parameters (sh has no arrays).
set -- /mnt/st
if [ -n "${VFSB_SCRATCH_DEV:-}" ] && mkfs.ext4 -q -F "$VFSB_SCRATCH_DEV" >/dev/null 2>&1 &&
	mount -t ext4 "$VFSB_SCRATCH_DEV" /mnt/se; then
	set -- "$@" /mnt/se
else
	say "warning: no ext4 scratch filesystem; tmpfs only"
fi
[ -e /sys/module/vfsbarrier ] && rmmod vfsbarrier

T=/sys/kernel/tracing
[ -e $T/current_tracer ] || mount -t tracefs nodev $T 2>/dev/null

count_start() {
	# One kprobe event per patching entry point; kprobe_profile counts
	# hits. Absent or unprobeable functions are skipped.
	for f in ftrace_modify_all_code text_poke_bp_batch synchronize_rcu_tasks \
		synchronize_rcu_tasks_rude register_kprobe unregister_kprobes \
		register_ftrace_function unregister_ftrace_function; do
		echo "p:vfsbcount/vc_$f $f" >> $T/kprobe_events 2>/dev/null ||
			say "count: cannot probe $f"
	done
	echo 1 > $T/events/vfsbcount/enable 2>/dev/null
	echo 0 > $T/tracing_on
}
count_report() {
	say "count: kprobe_profile after $1:"
	grep " vc_" $T/kprobe_profile | sed 's/^/vfsb-stress:   /'
	echo 0 > $T/events/vfsbcount/enable 2>/dev/null
	echo > $T/kprobe_events
	echo 1 > $T/tracing_on
}

if [ "${VFSB_STRESS_COUNT:-0}" = 1 ] && [ "$mode" = vfsb ]; then
	# One load, one watch (registers every hook), one unload (removes
	# them), without writers: patching rounds per register/unregister.
	count_start
	vfsb_stress vfsb 1 60 0 "$@"
	count_report "1 cycle (load, watch, unload)"
	count_start
	insmod "$VFSB_KO"
	count_report "insmod alone"
	count_start
	rmmod vfsbarrier
	count_report "rmmod alone (no hooks live)"
fi

# The writers outlive the churn; they are stopped when it ends.
vfsb_stress writers $((secs + 120)) "$@" &
wpid=$!
sleep 2
say "churn starts (uptime $(cut -d' ' -f1 /proc/uptime))"
case "$mode" in
vfsb) vfsb_stress vfsb "$cycles" "$secs" "$hold" "$@" ;;
*) vfsb_stress tracefs "$mode" "$cycles" "$secs" ;;
esac
rc=$?
say "churn ended: exit $rc (uptime $(cut -d' ' -f1 /proc/uptime))"
kill -TERM $wpid 2>/dev/null
# the writer processes themselves
for p in $(ps -o pid,ppid | awk -v pp=$wpid '$2 == pp { print $1 }'); do
	kill -TERM "$p" 2>/dev/null
done
wait $wpid
say "result: mode $mode exit $rc"
[ -e /sys/module/vfsbarrier ] && rmmod vfsbarrier
exit $rc
