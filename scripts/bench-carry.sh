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
# the workloads' ext4 lives in the guest's memory, as in bench-realwork.sh
export VFSB_GUEST_MEM="${VFSB_GUEST_MEM:-2048}"
VFSB_BENCH_ONLY=carry VFSB_COLLECT_DIR=bench-carry \
	VFSB_GUEST_TIMEOUT=${VFSB_GUEST_TIMEOUT:-1800} \
	scripts/run-guest.sh bench "${1:-}" || rc=$?
img=$build/$KREL/scratch-c.img
rm -rf "$dst/traces"
mkdir -p "$dst/traces"
# the guest wrote a tar on the raw disk; zeros follow it
if ! tar -xf "$img" -C "$dst/traces" || [ ! -s "$dst/traces/runs.txt" ]; then
	echo "bench-carry: no traces in $img" >&2
	exit 1
fi
# shellcheck disable=SC2086 # VFSB_CARRY_SIM_ARGS: words
python3 scripts/carry-sim.py --traces "$dst/traces" --json "$dst/carry.json" \
	${VFSB_CARRY_SIM_ARGS:-} >"$dst/carry.txt" || rc=1
cat "$dst/carry.txt"
exit $rc
