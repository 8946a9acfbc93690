#!/bin/sh
# Issue 27, item 2's measurement: record traces of real work in the
# guest (tools/bench-realwork.sh's carry mode: untar, cp -a, git
# checkout, fio, and two services, spool and logs; each once with
# `vbctl stream --json` writing every record, once with vbjournald for
# its real intent count), bring them back from the guest's third
# scratch disk, and replay them with scripts/carry-sim.py: the waits
# and false positives of carrying an epoch's directories into the next.
# Usage: bench-carry.sh [KVER]
# Environment: what run-guest.sh takes; VFSB_BENCH_REALWORK_ONLY
# (workloads), VFSB_BENCH_REALWORK_SERVICE_S (seconds of each service,
# default 30); VFSB_CARRY_SIM_ARGS (more arguments for carry-sim.py).
# Output: $VFSB_BUILD/bench-carry/ (console.log, results.json, traces/,
# carry.txt and carry.json: the simulation's table).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${VFSB_BUILD:-$top/build}
eval "$(scripts/kernel.sh "${1:-}")"
dst=$build/bench-carry
rc=0
mkdir -p "$dst"
# the guest's scratch disks are ours, so that they outlive the guest
# (guest.sh removes its fresh ones when the guest ends): the third
# holds the traces
disks=
for d in a b c; do
	rm -f "$dst/disk-$d.img"
	truncate -s 512M "$dst/disk-$d.img"
	disks="$disks${disks:+ }$dst/disk-$d.img"
done
# the workloads' ext4 lives in the guest's memory, as in bench-realwork.sh
export VFSB_GUEST_MEM="${VFSB_GUEST_MEM:-2048}"
VFSB_BENCH_ONLY=carry VFSB_COLLECT_DIR=bench-carry VFSB_GUEST_DISKS=$disks \
	VFSB_GUEST_TIMEOUT=${VFSB_GUEST_TIMEOUT:-1800} \
	scripts/run-guest.sh bench "${1:-}" || rc=$?
img=$dst/disk-c.img
rm -rf "$dst/traces.new"
mkdir -p "$dst/traces.new"
# the guest wrote a tar on the raw disk; zeros follow it
if ! tar -xf "$img" -C "$dst/traces.new" || [ ! -s "$dst/traces.new/runs.txt" ]; then
	echo "bench-carry: no traces in $img" >&2
	exit 1
fi
rm -rf "$dst/traces" "$dst/disk-a.img" "$dst/disk-b.img"
mv "$dst/traces.new" "$dst/traces"
# shellcheck disable=SC2086 # VFSB_CARRY_SIM_ARGS: words
python3 scripts/carry-sim.py --traces "$dst/traces" --json "$dst/carry.json" \
	${VFSB_CARRY_SIM_ARGS:-} >"$dst/carry.txt" || rc=1
cat "$dst/carry.txt"
exit $rc
