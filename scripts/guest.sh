#!/bin/sh
# Boot the test guest under QEMU (TCG; there is no KVM here) and judge
# what its serial console printed.
# Usage: guest.sh VMLINUZ INITRAMFS LOG TIMEOUT_S MODE
# Exit status: 0 when the guest finished, no test failed and the kernel
# printed no BUG/WARNING/Oops/lockdep/KASAN/hung-task/RCU-stall line.
set -u
vmlinuz=$1 initrd=$2 log=$3 tmo=$4 mode=$5
top=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(dirname "$log")/scratch.img

rm -f "$scratch"
truncate -s 512M "$scratch"

echo "guest: booting $(basename "$vmlinuz") (mode $mode, limit ${tmo}s, console -> $log)"
start=$(date +%s)
timeout --foreground -k 5 "$tmo" qemu-system-x86_64 \
	-accel tcg -cpu max -smp 2 -m ${VFSB_GUEST_MEM:-1024} \
	-nographic -no-reboot -net none -monitor none -serial stdio \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-drive file="$scratch",if=virtio,format=raw,cache=unsafe \
	-append "console=ttyS0 panic=-1 loglevel=5 hung_task_timeout_secs=60 ${VFSB_CMDLINE:-}" \
	< /dev/null 2>&1 | tee "$log" | awk -v mode="$mode" '
		# Show the test lines live; everything else only goes to the log.
		mode != "check" { print; fflush(); next }
		/^vfsb-guest: ----- dmesg/ { quiet = 1 }
		!quiet && (/^ *(not )?ok [0-9]/ || /^ *# / || /^vfsb-guest/) { print; fflush() }'
rc=$?
end=$(date +%s)
rm -f "$scratch"
echo "guest: ran $((end - start))s"

status=0
if ! grep -q '^vfsb-guest: ----- end -----' "$log"; then
	echo "guest: DID NOT FINISH within ${tmo}s (qemu rc=$rc); console tail:"
	tail -n 40 "$log"
	status=1
fi
if grep -nE 'BUG:|WARNING:|Oops|general protection|INFO: task .* blocked|soft lockup|RCU stall|rcu_sched self-detected|KASAN|possible recursive locking|possible circular locking|suspicious RCU usage|kmemleak: [0-9]+ new suspected|UBSAN' "$log" >/dev/null; then
	echo "guest: the kernel reported a problem:"
	grep -nE -A12 'BUG:|WARNING:|Oops|general protection|INFO: task .* blocked|soft lockup|RCU stall|rcu_sched self-detected|KASAN|possible recursive locking|possible circular locking|suspicious RCU usage|kmemleak: [0-9]+ new suspected|UBSAN' "$log" | head -n 80
	status=1
fi
if [ "$mode" = check ]; then
	awk -f "$top"/scripts/ktap-summary.awk "$log" || status=1
fi
exit $status
