#!/bin/sh
# make bench-realwork (and the last boot of make bench): real work on a
# watched ext4 (tools/bench-realwork.sh: untar, cp -a, git checkout, fio
# with io_uring, the untar through NFS), each with no module, the module
# watching, vbjournald and vbjournald --refuse-unwaited, side by side in
# one boot under -icount (one vCPU whose clock counts executed
# instructions: the host's load does not move the ratios), with the
# journal phase (per-operation steady state) in the same boot; then the
# targets of issue 27 into $VFSB_BUILD/bench-realwork/targets.md.
# Usage: bench-realwork.sh [KVER]
# Environment: what run-guest.sh takes; VFSB_BENCH_REALWORK_SIZE small
# (default: drivers/staging, scripts/bench-src.sh) or full (then
# VFSB_GUEST_MEM=4096 or more); VFSB_BENCH_REALWORK_DISK (ram, the
# default: 2048 MiB of guest memory unless VFSB_GUEST_MEM says, or
# virtio); VFSB_BENCH_REALWORK_ONLY (workloads);
# VFSB_BENCH_REALWORK_SETUPS (setups: tools/bench-realwork.sh);
# VFSB_BENCH_REALWORK_ALSO: the other phases in that boot (default
# journal; empty: none).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${VFSB_BUILD:-$top/build}
rc=0
echo "bench: real work, counted in instructions (-icount)"
also=${VFSB_BENCH_REALWORK_ALSO-journal}
# the workloads' ext4 and the journal's live in the guest's memory
# (tools/bench-realwork.sh, VFSB_BENCH_REALWORK_DISK=ram)
[ "${VFSB_BENCH_REALWORK_DISK:-ram}" != ram ] || export VFSB_GUEST_MEM="${VFSB_GUEST_MEM:-2048}"
VFSB_QEMU_ICOUNT=1 VFSB_BENCH_ONLY=realwork${also:+,$also} VFSB_COLLECT_DIR=bench-realwork \
	VFSB_GUEST_TIMEOUT=${VFSB_GUEST_TIMEOUT:-7200} \
	VFSB_BENCH_REPS=${VFSB_ICOUNT_REPS:-3} VFSB_BENCH_RUN_MS=${VFSB_ICOUNT_RUN_MS:-100} \
	scripts/run-guest.sh bench "${1:-}" || rc=$?
res=$build/bench-realwork/results.json
[ -s "$res" ] || exit 1
python3 - "$res" >"$build/bench-realwork/targets.md" <<'EOF' || rc=1
import json
import sys

d = json.load(open(sys.argv[1]))
rw = d.get("realwork") or {}
ws = rw.get("workloads") or {}
# issue 27: vbjournald (default mode) against no module
targets = {"untar": 1.10, "git": 1.10, "cp": 1.10, "nfsuntar": 1.20, "fio": 1.05}
names = {"untar": "untar (local)", "cp": "cp -a", "git": "git checkout B->A->B",
         "fio": "fio randwrite io_uring", "nfsuntar": "untar through NFSv4.2"}
print(f"Real work, kernel {d.get('kernel')}, source {rw.get('size')} "
      f"({rw.get('entries')} entries, {rw.get('directories')} directories); "
      "guest clock under -icount; ratios to no module.\n")
print("| workload | none ms | watched | vbjournald | --refuse-unwaited | target | verdict "
      "| intents per op | intents/s | ack avg ms | daemon CPU ms | checkpoints "
      "| daemon wake-ups | errors (default/refuse) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def f(v, nd=3):
    return "n/a" if v is None else f"{v:.{nd}f}"


for w, t in targets.items():
    o = ws.get(w)
    if not o:
        print(f"| {names[w]} | not run | | | | ≤ {t:.2f}x | not measured | | | | | | | |")
        continue
    jd = o.get("jd") or {}
    r = jd.get("ratio")
    # a ratio only where both runs finished without an error
    v = "not measured" if r is None else ("met" if r <= t else "**missed**")
    print(f"| {names[w]} | {o['none'].get('ms')} | {f(o['watch'].get('ratio'))}x "
          f"| {f(r)}x | {f(o['refuse'].get('ratio'))}x | ≤ {t:.2f}x | {v} "
          f"| {f(jd.get('intents_per_op'), 4)} | {f(jd.get('intents_per_s'), 1)} "
          f"| {f(jd.get('ack_latency_avg_ms'), 2)} "
          f"| {jd.get('daemon_cpu_ms', 'n/a')} | {jd.get('checkpoints', 'n/a')} "
          f"| {jd.get('daemon_wakeups', 'n/a')} "
          f"| {jd.get('errors')}/{o['refuse'].get('errors')} |")
j = d.get("journal") or {}
s = j.get("steady_ratio")
if s is not None:
    print(f"\nPer-operation steady state (phase journal, every directory announced), "
          f"same boot: {s:.3f}x, target ≤ 1.10x: {'met' if s <= 1.10 else '**missed**'}; "
          f"acks per second, 1 writer {j.get('acks_per_s_1_writer'):.0f}, "
          f"4 writers {j.get('acks_per_s_4_writers'):.0f}.")
errs = sum((o.get("jd") or {}).get("errors") or 0 for o in ws.values())
print(f"\nClient-visible errors in default mode: {errs} (target 0: "
      f"{'met' if errs == 0 else '**missed**'}).")
EOF
echo "===== real work targets ====="
cat "$build/bench-realwork/targets.md"
exit $rc
