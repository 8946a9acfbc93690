#!/bin/sh
# Boot the test guest under QEMU (TCG; there is no KVM here) and judge
# what its serial console printed.
# Usage: guest.sh VMLINUZ INITRAMFS LOG TIMEOUT_S MODE
# Environment: VFSB_QEMU_ACCEL (default tcg,thread=single; bench: tcg),
# VFSB_QEMU_SMP (default 2), VFSB_GUEST_MEM (MiB, default 1024),
# VFSB_CMDLINE (appended to the kernel command line), VFSB_GUEST_DISKS
# (disk images to attach, kept, in place of the fresh scratch disks),
# VFSB_QEMU_ICOUNT=1 (one vCPU whose clock counts executed instructions,
# -icount shift=0,sleep=off: a nanosecond per instruction, so that the
# host's load does not move the guest's timings; make bench's per-op
# figures).
# Exit status: 0 when the guest finished, no test failed and the kernel
# printed no BUG/WARNING/Oops/lockdep/KASAN/hung-task/RCU-stall line.
set -u
vmlinuz=$1 initrd=$2 log=$3 tmo=$4 mode=$5
top=$(cd "$(dirname "$0")/.." && pwd)
# Three scratch disks (sparse, 512 MiB each: XFS wants 300 MiB): ext4,
# btrfs and XFS tests, each on one of its own (guest/init names them).
scratch=$(dirname "$log")/scratch
set --
if [ -n "${VFSB_GUEST_DISKS:-}" ]; then
	# the crash test's disks: they outlive the guest, and a host-side
	# kill leaves on them what the guest had submitted (cache=unsafe
	# only skips the host's own flushes)
	for img in $VFSB_GUEST_DISKS; do
		set -- "$@" -drive "file=$img,if=virtio,format=raw,cache=unsafe"
	done
else
	for d in a b c; do
		rm -f "$scratch-$d.img"
		truncate -s 512M "$scratch-$d.img"
		set -- "$@" -drive "file=$scratch-$d.img,if=virtio,format=raw,cache=unsafe"
	done
fi

# The debug kernel (6.1, KASAN) runs with 4-level paging: -cpu max offers
# LA57, and 6.1's pgtable_l5_enabled() reads the boot CPU's capability
# bits, which identify_cpu() zeroes and re-reads at boot; an interrupt in
# that window made KASAN take direct-map addresses (0xff11...) for wild
# ones ("BUG: KASAN: wild-memory-access in do_raw_spin_lock" from
# handle_edge_irq, about one boot in 30 on a loaded host).
case "$(basename "$vmlinuz")" in
*-vfsb-debug) cmdline_kind=" no5lvl" ;;
*) cmdline_kind="" ;;
esac

# QEMU 7.2's multi-threaded TCG now and then runs a stale translation of
# kernel text that ftrace patching has changed: the guest hangs (README,
# "QEMU and code patching"). Every mode but bench, whose figures need two
# vCPUs running at once, runs single-threaded TCG: the 6.1 suite took
# 149 s that way against 153 s multi-threaded (2026-12-05).
case $mode in
bench) accel=${VFSB_QEMU_ACCEL:-tcg} ;;
*) accel=${VFSB_QEMU_ACCEL:-tcg,thread=single} ;;
esac

# icount needs one vCPU (with two, a 6.1 guest printed nothing in 5 min)
smp=${VFSB_QEMU_SMP:-2} icount=
# The limit, for guest/init's dump of the tasks near it; not under
# -icount, whose guest clock is not the host's.
limit_arg=" vfsb_limit=$tmo"
if [ "${VFSB_QEMU_ICOUNT:-0}" = 1 ]; then
	smp=1 icount="shift=0,sleep=off"
	limit_arg=""
fi

# boot: one run of the guest, its console into $log
boot() {
	echo "guest: booting $(basename "$vmlinuz") (mode $mode, limit ${tmo}s, console -> $log)"
	start=$(date +%s)
	timeout --foreground -k 5 "$tmo" qemu-system-x86_64 \
		-accel "$accel" -cpu max -smp "$smp" -m "${VFSB_GUEST_MEM:-1024}" \
		${icount:+-icount} ${icount:+"$icount"} \
		${VFSB_QEMU_PLUGIN:+-plugin} ${VFSB_QEMU_PLUGIN:+"$VFSB_QEMU_PLUGIN"} \
		-nographic -no-reboot -net none -monitor none -serial stdio \
		-kernel "$vmlinuz" -initrd "$initrd" \
		"$@" \
		-append "console=ttyS0 panic=-1 loglevel=5$cmdline_kind$limit_arg ${VFSB_CMDLINE:-}" \
		< /dev/null 2>&1 | tee "$log" | awk -v mode="$mode" '
			# Show the test lines live; everything else only goes to the log.
			mode != "check" { print; fflush(); next }
			/^vfsb-guest: ----- dmesg/ { quiet = 1 }
			!quiet && (/^ *(not )?ok [0-9]/ || /^ *# / || /^vfsb-guest/) { print; fflush() }'
	rc=$?
}

boot "$@"
# Multi-threaded TCG (QEMU 7.2) now and then runs a stale translation of
# text the kernel patched at boot: "Oops: int3" before init has run,
# before any module is loaded (6.12, twice in about 40 boots on
# 2026-12-05). Nothing under test ran; boot once more, and say so. An
# oops after init started is judged below like any other.
if grep -q 'Oops: int3' "$log" && ! grep -q '^vfsb-guest: kernel ' "$log"; then
	echo "guest: the kernel oopsed on an int3 at boot, before init ran (QEMU's multi-threaded TCG; see scripts/guest.sh): booting again"
	grep -m1 -A4 'Oops: int3' "$log" | sed 's/^/guest:   /'
	boot "$@"
fi
end=$(date +%s)
rm -f "$scratch"-?.img
echo "guest: ran $((end - start))s"

status=0
if ! grep -q '^vfsb-guest: ----- end -----' "$log"; then
	echo "guest: DID NOT FINISH within ${tmo}s (qemu rc=$rc); console tail:"
	tail -n 40 "$log"
	status=1
fi
# The kernel's own reports. kmemleak's findings are judged below, from
# the reports guest/init prints (whose hex dumps may hold any text, so
# they are left out here).
bad='BUG:|WARNING:|Oops|general protection|INFO: task .* blocked|soft lockup|RCU stall|rcu_sched self-detected|KASAN|possible recursive locking|possible circular locking|suspicious RCU usage|UBSAN'
if awk '/^vfsb-guest: ----- kmemleak report/ { k = 1 } !k { print } /^vfsb-guest: ----- kmemleak end/ { k = 0 }' "$log" |
	grep -qE "$bad"; then
	echo "guest: the kernel reported a problem:"
	awk '/^vfsb-guest: ----- kmemleak report/ { k = 1 } !k { printf "%d:%s\n", NR, $0 } /^vfsb-guest: ----- kmemleak end/ { k = 0 }' "$log" |
		grep -E -A12 "$bad" | head -n 80
	status=1
fi
# kmemleak (debug kernel): guest/init scans after the tests and again
# after unloading the module, and prints each report. An unreferenced
# object whose allocation backtrace involves the module (vfsb_...,
# [vfsbarrier], or text of the unloaded module) fails the run; others
# are the kernel's own or the harness's, shown but not failed on.
if grep -q '^vfsb-guest: ----- kmemleak report' "$log"; then
	awk '
		function flush() {
			if (blk == "") return
			if (ours) { nv++; vb = vb blk } else { no++; ob = ob blk }
			blk = ""; ours = 0
		}
		/^vfsb-guest: ----- kmemleak report/ { inrep = 1; when = $0; sub(/^[^(]*\(/, "", when); sub(/\) -----.*/, "", when); next }
		/^vfsb-guest: ----- kmemleak end/ { flush(); inrep = 0; next }
		!inrep { next }
		/^unreferenced object / { flush(); blk = "  [" when "]\n"; inbt = 0 }
		{ blk = blk "  " $0 "\n" }
		/^ +backtrace:/ { inbt = 1 }
		inbt && /vfsb_|vfsbarrier/ { ours = 1 }
		END {
			flush()
			if (nv) printf "guest: KMEMLEAK: %d unreferenced object(s) allocated by vfsbarrier:\n%s", nv, vb
			if (no) printf "guest: kmemleak (not a failure): %d unreferenced object(s) unrelated to vfsbarrier (kernel or harness):\n%s", no, ob
			if (!nv && !no) print "guest: kmemleak: no unreferenced objects"
			exit nv ? 1 : 0
		}' "$log" >"$log.kmemleak"
	krc=$?
	# The unrelated ones can be long: their first lines here, all in the file.
	head -n 150 "$log.kmemleak"
	[ "$(wc -l <"$log.kmemleak")" -le 150 ] || echo "guest: ... (all of it in $log.kmemleak)"
	[ $krc = 0 ] || status=1
fi
grep '^vfsb-guest: kmemleak: NOT CHECKED\|^vfsb-guest: kmemleak: rmmod' "$log" | sed 's/^vfsb-guest: /guest: /'
if [ "$mode" = check ]; then
	awk -f "$top"/scripts/ktap-summary.awk "$log" || status=1
fi
exit $status
