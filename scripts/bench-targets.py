#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Verdicts on the benchmark targets (issue 6) from a results.json.

Usage: bench-targets.py RESULTS.json [ICOUNT.json [HOOKS.json [ICOUNT.json...]]]
(markdown)

With the results of an icount boot (scripts/bench.sh: the per-op phase
with the guest's clock counting executed instructions), also the hot
path's targets (issue 14), judged on the icount figures, with the
wall-clock ones beside them; with the hook counts of a VFSB_HOOK_STATS
boot, what each hook callback costs; with the icount results of more
kernels, their hot path tables too (icount only: the wall-clock boot
ran the first kernel).

Each ratio has a median over rounds and a best-run figure (fastest run
over fastest baseline). A target is "met" when both are at or below it,
"missed" when both exceed it by more than the run's noise floor, and
"not resolved" otherwise. The noise floor of a filesystem is how far its
"unwatched" ratios (no hooks registered: truly 1) stray from 1.
"""
import json
import sys

META = ["create_unlink", "mkdir_rmdir", "rename", "chmod", "setxattr"]
DATA = ["pwrite_4k", "write_1b", "io_uring_4k"]


def verdict(med, best, target, floor):
    if med is None or best is None:
        return "not measured"
    if med <= target and best <= target:
        return "met"
    if med > target + floor and best > target + floor:
        return "**missed**"
    return "not resolved"


def noise_floor(ops):
    dev = [abs(o[k]["unwatched"] - 1) for o in ops.values()
           for k in ("ratio", "ratio_best") if o.get(k, {}).get("unwatched") is not None]
    return max(dev) if dev else 0.0


def fmt(v, nd=3):
    return "n/a" if v is None else f"{v:.{nd}f}"


def lossless_verdict(vfsb, fanotify, both_writer_bound):
    """vfsb's highest lossless rate against fanotify's on the same workload."""
    if vfsb >= fanotify:
        return "met"
    if both_writer_bound:
        return "not resolved (both writer-bound: the writers' speed, not the reader, set both)"
    return "**missed**"


def icount_tables(d, ic, hk=None):
    """Issue 14: watched, other-watched and streaming, judged on icount."""
    out = []
    wall = d.get("overhead_by_fs") or {}
    out.append("")
    out.append(f"Hot path (issue 14), kernel {ic.get('kernel')}: icount figures (one vCPU, "
               "-icount shift=0: 1 ns of guest time per executed instruction, so they count "
               "instructions, not cache misses or the cost of atomics), wall-clock figures "
               "(TCG, two vCPUs) beside them. Verdicts on icount: met at or below the target, "
               "missed above it by more than that operation's icount noise floor.\n")
    out.append("| fs | op | target | icount watched | verdict | wall watched (±spread) | "
               "icount other-watched ≤ 1.01 | verdict | icount streaming / fanotify | "
               "streaming ≤ fanotify |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for fs, ops in (ic.get("overhead_by_fs") or {}).items():
        for op in META + DATA:
            o = ops.get(op)
            if not o:
                continue
            # deterministic figures: each operation's own floor
            floor = noise_floor({op: o})
            t = 1.03 if op in META else 1.02
            r, rb = o["ratio"], o["ratio_best"]
            w = (wall.get(fs) or {}).get(op) or {}
            wmed = (w.get("ratio") or {}).get("watched")
            wsp = (w.get("ratio_spread_pct") or {}).get("watched")
            s_, f_ = r.get("streaming"), r.get("fanotify")
            sv = "not measured" if None in (s_, f_) else ("yes" if s_ <= f_ else "**no**")
            out.append(f"| {fs} | {op} | ≤ {t} | {fmt(r.get('watched'))} | "
                       f"{verdict(r.get('watched'), rb.get('watched'), t, floor)} | "
                       f"{fmt(wmed)} ±{fmt(wsp, 0)}% | {fmt(r.get('other_watched'))} | "
                       f"{verdict(r.get('other_watched'), rb.get('other_watched'), 1.01, floor)} | "
                       f"{fmt(s_)} / {fmt(f_)} | {sv} |")
    hooks = (hk or {}).get("hooks_per_op_by_fs") or {}
    if hooks:
        out.append("")
        out.append("Hook callbacks per operation (a module built with VFSB_HOOK_STATS=y), "
                   "and what each costs in the icount figures: (configuration - baseline) "
                   "/ callbacks, in instructions.\n")
        out.append("| fs | op | callbacks (watched) | by hooked function | instructions per "
                   "callback, watched | other-watched |")
        out.append("|---|---|---|---|---|---|")
        for fs, ops in (ic.get("overhead_by_fs") or {}).items():
            for op in META + DATA:
                o, h = ops.get(op), ((hooks.get(fs) or {}).get(op) or {}).get("watched")
                if not o or not h:
                    continue
                n = h.get("total") or 0
                by = ", ".join(f"{k} {v:.2f}" for k, v in sorted(h.items(), key=lambda kv: -kv[1])
                               if k != "total")
                base = o.get("baseline_ns")
                per = lambda c: fmt((o[c + "_ns"] - base) / n, 0) if n and base and \
                    o.get(c + "_ns") is not None else "n/a"
                out.append(f"| {fs} | {op} | {n:.2f} | {by} | {per('watched')} | "
                           f"{per('other_watched')} |")
    out.append("")
    out.append("Per operation and configuration, ns/op: icount (instructions) / wall clock.\n")
    confs = ["baseline", "unwatched", "other_watched", "watched", "streaming", "fanotify"]
    out.append("| fs | op | " + " | ".join(confs) + " |")
    out.append("|---|---|" + "---|" * len(confs))
    floors = []
    for fs, ops in (ic.get("overhead_by_fs") or {}).items():
        per_op = sorted((noise_floor({op: o}), op) for op, o in ops.items())
        floors.append(f"* icount noise floor on {fs}, per operation (unwatched against "
                      f"baseline, where no hook is in; each verdict uses its own): "
                      + ", ".join(f"{op} {f * 100:.2f}%" for f, op in per_op) + ".")
        for op in META + DATA:
            o = ops.get(op)
            if not o:
                continue
            w = (wall.get(fs) or {}).get(op) or {}
            cells = [f"{fmt(o.get(c + '_ns'), 0)} / {fmt(w.get(c + '_ns'), 0)}" for c in confs]
            out.append(f"| {fs} | {op} | " + " | ".join(cells) + " |")
    out.append("")
    out.extend(floors)
    return out


def main():
    d = json.load(open(sys.argv[1]))
    ic = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None
    hk = None
    if len(sys.argv) > 3:
        try:
            hk = json.load(open(sys.argv[3]))
        except (OSError, ValueError):
            hk = None
    byfs = d.get("overhead_by_fs") or {}
    out = []
    out.append(f"Kernel {d.get('kernel')}, clocksource {d.get('machine', {}).get('clocksource')}, "
               f"guest {d.get('guest_seconds')} s. met: median and best-run ratio at or below the "
               "target; missed: both above it by more than the noise floor; else not resolved.\n")
    out.append("| fs | op | target | watched median (±spread) | best | verdict | fanotify median / best | watched ≤ fanotify |")
    out.append("|---|---|---|---|---|---|---|---|")
    floors = {}
    for fs, ops in byfs.items():
        floor = floors[fs] = noise_floor(ops)
        for op in META + DATA:
            o = ops.get(op)
            if not o:
                continue
            t = 1.03 if op in META else 1.02
            med, best = o["ratio"].get("watched"), o["ratio_best"].get("watched")
            fmed, fbest = o["ratio"].get("fanotify"), o["ratio_best"].get("fanotify")
            spread = o.get("ratio_spread_pct", {}).get("watched")
            if None in (med, best, fmed, fbest):
                vs = "not measured"
            elif med <= fmed and best <= fbest:
                vs = "yes"
            elif med > fmed and best > fbest:
                vs = "**no**"
            else:
                vs = "not resolved"
            out.append(f"| {fs} | {op} | ≤ {t} | {fmt(med)} ±{fmt(spread, 0)}% | {fmt(best)} | "
                       f"{verdict(med, best, t, floor)} | {fmt(fmed)} / {fmt(fbest)} | {vs} |")
    out.append("")
    for fs, ops in byfs.items():
        vals = [o[k]["unwatched"] for o in ops.values() for k in ("ratio", "ratio_best")
                if o.get(k, {}).get("unwatched") is not None]
        if vals:
            out.append(f"* unwatched ≤ 1.005 on {fs}: met by construction (no hooks registered); "
                       f"measured {min(vals):.3f}-{max(vals):.3f}, so this run's noise floor there "
                       f"is {floors[fs] * 100:.1f}%.")
    for fs, st in (d.get("writer_stall_by_fs") or {}).items():
        r = st.get("p99_ratio", {})
        sp = st.get("p99_ratio_spread_pct", {})
        b = r.get("barrier")
        v = "not measured" if b is None else ("met" if b <= 1.1 else "**missed**")
        out.append(f"* writer p99 under a barrier storm ≤ 1.1x on {fs}: {fmt(b)}x ±{fmt(sp.get('barrier'), 0)}% "
                   f"({v}); expedited storm {fmt(r.get('expedited_barrier'))}x, FIFREEZE/FITHAW "
                   + ("n/a (cannot freeze)." if r.get('fsfreeze') is None
                      else f"{r['fsfreeze']:.1f}x."))
    rec = d.get("records") or {}
    v, f = rec.get("max_lossless_ops_per_s"), rec.get("fanotify_max_lossless_per_s")
    if v is not None and f is not None:
        wb = rec.get("max_lossless_writer_bound") and rec.get("fanotify_max_lossless_writer_bound")
        out.append(f"* lossless record rate ≥ fanotify's (eager reader): {v:.0f}/s vs {f:.0f}/s: "
                   f"{lossless_verdict(v, f, wb)}.")
    per = rec.get("periodic_reader") or {}
    fan = per.get("fanotify") or {}
    for key in ("vfsb_64k", "vfsb", "vfsb_4m"):
        vl = per.get(key) or {}
        v, f = vl.get("max_lossless_ops_per_s"), fan.get("max_lossless_ops_per_s")
        if v is None or f is None:
            continue
        out.append(f"* lossless record rate ≥ fanotify's (reader every {per.get('period_ms')} ms, "
                   f"{vl.get('listener')}): {v:.0f}/s vs {f:.0f}/s: "
                   f"{lossless_verdict(v, f, vl.get('writer_bound') and fan.get('writer_bound'))}.")
    if ic:
        out.extend(icount_tables(d, ic, hk))
    for more in sys.argv[4:]:
        try:
            out.extend(icount_tables({}, json.load(open(more))))
        except (OSError, ValueError) as e:
            out.append(f"\n{more}: not read ({e})")
    print("\n".join(out))


if __name__ == "__main__":
    main()
