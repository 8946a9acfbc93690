#!/usr/bin/env python3
"""Replay record traces through intent mode's epochs, with and without
carrying directories from one epoch into the next (issue 27, item 2).

A trace is what `vbctl stream PATH --json` printed while only the module
watched (one JSON object per line, gzip'd or not; tools/bench-realwork.sh's
carry mode writes them, scripts/bench-carry.sh brings them back). The
simulation cuts it into epochs of T seconds and, per epoch, does what
the module's intent set does (module/intent.c):

- a change is keyed by its directory (the record's parent), or by its
  object when the record is flagged `links`; a directory's rename also by
  the moved directory; the first record of the epoch with a key not in
  the set is an intent and waits (counted once per record, as vbjournald
  counts intents), its keys then acked (acks are taken as instant);
- a directory made by a mkdir whose parent is acked in the epoch counts
  as acked in that epoch (VFSB_SUB_NEW_DIRS). A mkdir's record comes
  before the directory exists and carries no inode: the new directory's
  inode is found from later records (its path as printed, its parent and
  name with an inode, or, last, the first never-seen directory that the
  same thread changes next); how many were found each way is printed.

Policies, each a set of directories pre-acked when epoch N+1 opens:
  none       today
  all        every directory changed in N
  topK       the K directories with the most records in N
  twice      the directories changed in both N-1 and N
(directories removed by the end of N are never carried). A carried
directory with no change in N+1 is a false positive: an entry of the
journal that names a directory that did not change. The journal's
entries under a policy are the keys changed in the epoch plus its false
positives.

Epoch boundaries fall at the run's start + phase + k*T; every figure is
the mean over --phases phases spread over [0, T). For one-shot workloads
the filesystem is taken as idle after the run (the epoch after the last
change gets the carried set, all false positives); for services
(--service, default spool,logs) only epochs that lie inside the run, as
does the one before them, are counted.

Fails (exit 1) on a missing or unreadable trace, a line that is not a
record, an OVERFLOW record or a gap in the sequence numbers (a trace
that lost records), unless --allow-loss is given, which still says so.
"""

import argparse
import gzip
import json
import os
import sys
from collections import Counter, defaultdict


class TraceError(Exception):
    pass


def die(msg):
    print(f"carry-sim: {msg}", file=sys.stderr)
    sys.exit(1)


def open_trace(path):
    if not os.path.isfile(path):
        raise TraceError(f"{path}: no such file")
    with open(path, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="surrogateescape")
    return open(path, "rt", encoding="utf-8", errors="surrogateescape")


def load(path, allow_loss):
    """The change records of a trace, in order, and notes about it."""
    recs = []
    notes = Counter()
    last_seq = None
    try:
        f = open_trace(path)
        with f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    raise TraceError(f"{path}:{n}: not JSON ({e})")
                if not isinstance(r, dict) or "type" not in r or "seq" not in r:
                    raise TraceError(f"{path}:{n}: not a record")
                seq = r["seq"]
                if last_seq is not None and seq != last_seq + 1 and r["type"] != "overflow":
                    if seq <= last_seq:
                        raise TraceError(f"{path}:{n}: seq {seq} after {last_seq}")
                    notes["seq_gap"] += seq - last_seq - 1
                last_seq = seq
                t = r["type"]
                if t == "overflow":
                    notes["overflow_records"] += 1
                    notes["lost"] += r.get("lost", 0)
                    continue
                if t == "rescan":
                    notes["rescan"] += 1
                    continue
                if t == "unmount":
                    notes["unmount"] += 1
                    continue
                if t != "change":
                    raise TraceError(f"{path}:{n}: record type {t!r}")
                for k in ("time_ns", "reasons", "parent_ino", "parent_generation",
                          "ino", "generation", "tid", "dev"):
                    if k not in r:
                        raise TraceError(f"{path}:{n}: change record without {k}")
                recs.append(r)
    except (OSError, EOFError, UnicodeError) as e:
        raise TraceError(f"{path}: {e}")
    if last_seq is None:
        raise TraceError(f"{path}: no records at all")
    if notes["overflow_records"] or notes["seq_gap"]:
        msg = (f"{path}: the trace lost records ({notes['overflow_records']} OVERFLOW "
               f"record(s), {notes['lost']} lost, {notes['seq_gap']} missing seq); "
               "it is incomplete (a larger --ring, or a slower workload)")
        if not allow_loss:
            raise TraceError(msg)
        print(f"carry-sim: warning: {msg}", file=sys.stderr)
    return recs, notes


def words(s):
    return set(s.split("|")) if s else set()


class Rec:
    """What the simulation needs of a change record."""
    __slots__ = ("t", "tid", "parent", "pdir", "keys", "mkdir", "newdir", "rmdir",
                 "obj", "name", "ppath", "path", "isdir")


def prepare(raw):
    """Keys per record (module/intent.c, vfsb_intent_keys()), and the
    inode of each mkdir's new directory, found from later records."""
    out = []
    for r in raw:
        x = Rec()
        reasons = words(r["reasons"])
        flags = words(r.get("flags", ""))
        dev = r["dev"]
        x.t = r["time_ns"]
        x.tid = r["tid"]
        x.isdir = bool(r.get("dir"))
        x.obj = (dev, r["ino"], r["generation"])
        x.name = r.get("name")
        x.ppath = r.get("parent_path")
        x.path = r.get("path")
        links = "links" in flags
        keys = []
        x.parent = None
        x.pdir = ("d", dev, r["parent_ino"], r["parent_generation"]) if r["parent_ino"] else None
        if r["parent_ino"] and not links:
            x.parent = ("d", dev, r["parent_ino"], r["parent_generation"])
            keys.append(x.parent)
        if not keys and not links:
            keys.append(("d",) + x.obj)
        elif links or (x.isdir and "rename_to" in reasons):
            keys.append(("o",) + x.obj)
        x.keys = tuple(keys)
        x.mkdir = x.isdir and "create" in reasons and x.parent is not None
        x.rmdir = x.isdir and "delete" in reasons and r["ino"]
        x.newdir = None
        out.append(x)
    how = Counter()
    # 1. by path: the new directory's path is its parent's and its name;
    #    records inside it name it as their parent_path
    first_by_ppath = {}
    first_by_path = {}
    for i, x in enumerate(out):
        if x.ppath and x.parent:
            first_by_ppath.setdefault(x.ppath, []).append(i)
        if x.path and x.isdir and x.obj[1]:
            first_by_path.setdefault(x.path, []).append(i)
    # 2. by parent and name: a later record of the directory itself
    by_pname = defaultdict(list)
    for i, x in enumerate(out):
        if x.isdir and x.obj[1] and x.parent and x.name is not None:
            by_pname[(x.parent, x.name)].append(i)
    seen_dirs = set()  # keys seen so far, for 3.
    pending_tid = {}   # tid -> index of its last unresolved mkdir
    for i, x in enumerate(out):
        for k in x.keys:
            if k[0] == "d" and k not in seen_dirs:
                seen_dirs.add(k)
                j = pending_tid.get(x.tid)
                # 3. the same thread's next change in a directory never
                #    seen before, after its mkdir found no other way
                if j is not None and out[j].newdir is None and k == x.parent:
                    out[j].newdir = ("d",) + k[1:]
                    how["thread"] += 1
                    del pending_tid[x.tid]
        if not x.mkdir:
            continue
        found = None
        if x.ppath is not None and x.name is not None:
            p = x.ppath.rstrip("/") + "/" + x.name
            for j in first_by_ppath.get(p, []):
                if j > i:
                    found = out[j].parent
                    how["path"] += 1
                    break
            if found is None:
                for j in first_by_path.get(p, []):
                    if j > i:
                        found = ("d",) + out[j].obj
                        how["path"] += 1
                        break
        if found is None and x.name is not None:
            for j in by_pname.get((x.parent, x.name), []):
                if j > i:
                    found = ("d",) + out[j].obj
                    how["parent+name"] += 1
                    break
        if found is not None:
            x.newdir = found
            seen_dirs.add(found)
        else:
            pending_tid[x.tid] = i
    unresolved = sum(1 for x in out if x.mkdir and x.newdir is None)
    how["unresolved"] = unresolved
    return out, how


def epochs_of(recs, start_ns, phase_ns, T_ns):
    """Records grouped by epoch index; epoch k is
    [start + phase + (k-1)*T, start + phase + k*T)."""
    by = defaultdict(list)
    base = start_ns + phase_ns - T_ns
    for x in recs:
        by[(x.t - base) // T_ns].append(x)
    return by


def simulate(recs, start_ns, end_ns, phase_ns, T_ns, policies, service):
    by = epochs_of(recs, start_ns, phase_ns, T_ns)
    base = start_ns + phase_ns - T_ns
    if not by:
        return {p: dict(waits=0, fp=0, entries=0, epochs=0) for p in policies}
    k_first, k_last = min(by), max(by)
    # one idle epoch after the last change (one-shot) gets the carried set
    ks = range(k_first, k_last + 2)

    def counted(k):
        if not service:
            return True
        lo = base + (k - 1) * T_ns  # the epoch before, whole inside the run
        hi = base + (k + 1) * T_ns
        return lo >= start_ns and hi <= end_ns

    changed = {}   # k -> set of directory keys changed
    counts = {}    # k -> Counter of records per directory key
    objs = {}      # k -> object keys (links, moved directories)
    removed = {}   # k -> directories removed by the end of k
    gone = set()
    for k in ks:
        c = Counter()
        o = set()
        for x in by.get(k, []):
            for key in x.keys:
                if key[0] == "d":
                    c[key] += 1
                else:
                    o.add(key)
            if x.pdir and x.pdir not in x.keys:
                # a links record: the journal stores its directory too
                c[x.pdir] += 1
            if x.rmdir:
                gone.add(("d",) + x.obj)
        counts[k] = c
        changed[k] = set(c)
        objs[k] = o
        removed[k] = set(gone)

    def carried(policy, k):
        prev = k - 1
        if prev not in changed:
            return set()
        if policy == "none":
            s = set()
        elif policy == "all":
            s = set(changed[prev])
        elif policy.startswith("top"):
            K = int(policy[3:])
            # ties by key, so the choice is the same every run
            s = {d for d, _ in sorted(counts[prev].items(),
                                      key=lambda kv: (-kv[1], kv[0]))[:K]}
        elif policy == "twice":
            s = changed[prev] & changed.get(prev - 1, set())
        else:
            raise ValueError(policy)
        return s - removed[prev]

    res = {}
    for p in policies:
        waits = fp = entries = n_ep = carried_n = 0
        for k in ks:
            pre = carried(p, k)
            acked = set(pre)
            newdirs = set()
            w = 0
            for x in by.get(k, []):
                need = False
                for key in x.keys:
                    if key in acked:
                        continue
                    if key in newdirs:
                        acked.add(key)
                        continue
                    need = True
                if need:
                    w += 1
                    acked.update(x.keys)
                # the mkdir (restarted after its wait, if it waited)
                # finds its parent acked: its directory is new
                if x.mkdir and x.newdir is not None and x.parent in acked:
                    newdirs.add(x.newdir)
            if not counted(k):
                continue
            n_ep += 1
            waits += w
            f = len(pre - changed[k])
            fp += f
            carried_n += len(pre)
            entries += len(changed[k]) + len(objs[k]) + f
        res[p] = dict(waits=waits, fp=fp, entries=entries, epochs=n_ep,
                      carried=carried_n)
    return res


def all_waits(recs, start_ns, phase_ns, T_ns):
    """Baseline waits over the whole trace (for the daemon's count)."""
    r = simulate(recs, start_ns, start_ns, phase_ns, T_ns, ["none"], False)
    return r["none"]["waits"]


def read_runs(path):
    runs = {}
    with open(path) as f:
        for line in f:
            v = line.split()
            if not v or v[0].startswith("#"):
                continue
            if len(v) < 6:
                die(f"{path}: short line: {line.strip()}")
            runs[(v[0], v[1])] = v
    return runs


def num(v):
    return None if v in ("null", "") else float(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--traces", help="a directory with runs.txt and WORKLOAD.jsonl.gz")
    ap.add_argument("--trace", action="append", default=[],
                    help="one trace (WORKLOAD=FILE); its run is the trace's first to last record")
    ap.add_argument("--epochs", default="1,2,5", help="epoch lengths in seconds")
    ap.add_argument("--phases", type=int, default=8)
    ap.add_argument("--top", default="8,64")
    ap.add_argument("--service", default="spool,logs")
    ap.add_argument("--allow-loss", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()

    Ts = [float(t) for t in a.epochs.split(",")]
    policies = ["none", "all"] + [f"top{k}" for k in a.top.split(",")] + ["twice"]
    services = set(a.service.split(",")) if a.service else set()
    work = []  # (name, path, start_ns, end_ns, daemon run or None)
    if a.traces:
        rp = os.path.join(a.traces, "runs.txt")
        if not os.path.isfile(rp):
            die(f"{rp}: no such file")
        runs = read_runs(rp)
        names = [w for (w, s) in runs if s == "stream"]
        if not names:
            die(f"{rp}: no stream run")
        for w in names:
            v = runs[(w, "stream")]
            p = os.path.join(a.traces, f"{w}.jsonl.gz")
            work.append((w, p, int(v[2]) * 1000000, int(v[3]) * 1000000,
                         runs.get((w, "jd"))))
    for t in a.trace:
        w, _, p = t.partition("=")
        if not p:
            die(f"--trace {t}: WORKLOAD=FILE")
        work.append((w, p, None, None, None))
    if not work:
        die("no trace (--traces DIR or --trace WORKLOAD=FILE)")

    out = {"epochs_s": Ts, "phases": a.phases, "workloads": {}}
    lines = []
    val = []
    for w, p, start, end, jd in work:
        try:
            raw, notes = load(p, a.allow_loss)
        except TraceError as e:
            die(str(e))
        recs, how = prepare(raw)
        if not recs:
            die(f"{p}: no change records")
        if start is None:
            start, end = recs[0].t, recs[-1].t + 1
        # /proc/uptime's steps: a record may come a little before the mark
        start = min(start, recs[0].t)
        end = max(end, recs[-1].t + 1)
        svc = w in services
        mk = sum(1 for x in recs if x.mkdir)
        ow = {"records": len(recs), "mkdirs": mk, "newdir_found": dict(how),
              "run_s": (end - start) / 1e9, "service": svc,
              "notes": dict(notes), "by_epoch": {}}
        lines.append(f"{w}: {len(recs)} change records over {(end - start) / 1e9:.1f} s"
                     f"{' (service: whole epochs only)' if svc else ''}; {mk} mkdirs, new directory "
                     f"found by path {how['path']}, by parent+name {how['parent+name']}, "
                     f"by thread {how['thread']}, not found {how['unresolved']}"
                     + (f"; rescan records {notes['rescan']}" if notes["rescan"] else ""))
        for T in Ts:
            T_ns = int(T * 1e9)
            acc = {pol: Counter() for pol in policies}
            base_all = []
            for i in range(a.phases):
                ph = T_ns * i // a.phases
                r = simulate(recs, start, end, ph, T_ns, policies, svc)
                for pol in policies:
                    acc[pol].update(r[pol])
                base_all.append(all_waits(recs, start, ph, T_ns))
            mean = {pol: {k: v / a.phases for k, v in acc[pol].items()} for pol in policies}
            for pol in policies:
                m = mean[pol]
                m["saved"] = mean["none"]["waits"] - m["waits"]
                m["fp_frac"] = m["fp"] / m["entries"] if m["entries"] else 0.0
            ow["by_epoch"][str(T)] = {"policies": mean,
                                      "baseline_all_epochs": {"min": min(base_all),
                                                              "max": max(base_all),
                                                              "mean": sum(base_all) / len(base_all)}}
            if T == 5.0 and jd is not None:
                val.append((w, jd, min(base_all), max(base_all), sum(base_all) / len(base_all)))
        out["workloads"][w] = ow

    print("carry simulation (issue 27, item 2): epochs of T s, mean over "
          f"{a.phases} phases of the checkpoints; waits = intents (first change of a key "
          "in an epoch); fp = carried directories with no change in the epoch")
    for l in lines:
        print(l)
    print()
    hdr = (f"{'workload':9} {'T s':>4} {'policy':7} {'epochs':>6} {'waits':>8} {'saved':>8} "
           f"{'saved%':>7} {'carried':>8} {'fp':>8} {'entries':>8} {'fp/entries':>10}")
    print(hdr)
    for w in out["workloads"]:
        for T in Ts:
            d = out["workloads"][w]["by_epoch"][str(T)]["policies"]
            b = d["none"]["waits"]
            for pol in policies:
                m = d[pol]
                pct = 100 * m["saved"] / b if b else 0.0
                print(f"{w:9} {T:4g} {pol:7} {m['epochs']:6.1f} {m['waits']:8.1f} {m['saved']:8.1f} "
                      f"{pct:6.1f}% {m['carried']:8.1f} {m['fp']:8.1f} {m['entries']:8.1f} "
                      f"{100 * m['fp_frac']:9.1f}%")
        print()
    if val:
        print("baseline against vbjournald (default mode, its own run of the workload, "
              "5 s interval): the daemon's intents, and the simulation's waits over the "
              "whole trace, min-max (mean) over the phases")
        out["validation"] = {}
        for w, jd, lo, hi, mean in val:
            it = num(jd[6]) if len(jd) > 6 else None
            ck = jd[12] if len(jd) > 12 else "null"
            print(f"  {w:6} daemon {it if it is None else int(it)} intents "
                  f"({jd[7] if len(jd) > 7 else '?'} records, {ck} checkpoints in the run, "
                  f"ack avg {jd[8] if len(jd) > 8 else '?'} ms); "
                  f"simulated {lo}-{hi} ({mean:.1f})")
            out["validation"][w] = {"daemon_intents": it, "sim_min": lo, "sim_max": hi,
                                    "sim_mean": mean,
                                    "ack_latency_avg_ms": num(jd[8]) if len(jd) > 8 else None,
                                    "daemon_checkpoints": num(ck)}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
