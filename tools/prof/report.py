#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per function between the marks of a profiling boot.

report.py DIR DIVISOR LABEL [LABEL ...]

DIR holds what scripts/profile.sh left: snap.N, the counts
tools/prof/tbcount.c saved at the guest's Nth mark, disk.img, whose
16 MiB slot K holds the guest's /proc/kallsyms as it was just before
run K, and console.log, whose "prof symbols K: LABEL" lines name run K
(marks 2K and 2K + 1). For each LABEL given (a substring of one run's
label), the instructions each function ran between that run's marks,
divided by DIVISOR (the run's operations); one column per LABEL, rows
sorted by the last column less the first, the largest first;
PROF_ROWS rows (default 50).
"""
import bisect
import collections
import os
import re
import sys

SLOT = 16 << 20


def load_snap(path):
    counts = {}
    with open(path) as f:
        for line in f:
            addr, insns, runs = line.split()
            counts[(int(addr, 16), int(insns))] = int(runs)
    return counts


def load_syms(disk, slot):
    with open(disk, 'rb') as f:
        f.seek(slot * SLOT)
        raw = f.read(SLOT).split(b'\0', 1)[0].decode(errors='replace')
    syms = []
    for line in raw.splitlines():
        p = line.split()
        if len(p) >= 3 and p[1] in 'tTwW':
            syms.append((int(p[0], 16), ' '.join(p[2:])))
    syms.sort()
    if not syms:
        sys.exit(f'report.py: no symbols in slot {slot} of {disk}')
    return [a for a, _ in syms], [n for _, n in syms]


def per_function(d, run, divisor):
    addrs, names = load_syms(f'{d}/disk.img', run)
    a = load_snap(f'{d}/snap.{2 * run}')
    b = load_snap(f'{d}/snap.{2 * run + 1}')
    out = collections.Counter()
    for key, runs in b.items():
        n = runs - a.get(key, 0)
        if n <= 0:
            continue
        addr, insns = key
        if addr < 1 << 47:
            name = '(user space)'
        else:
            i = bisect.bisect_right(addrs, addr) - 1
            name = names[i] if i >= 0 else '(unknown)'
        out[name] += insns * n
    return {k: v / divisor for k, v in out.items()}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    d, divisor = sys.argv[1], float(sys.argv[2])
    runs = {}
    with open(f'{d}/console.log', errors='replace') as f:
        for line in f:
            m = re.search(r'prof symbols (\d+): (.*)$', line.rstrip())
            if m:
                runs[int(m.group(1))] = m.group(2)
    cols = []
    for want in sys.argv[3:]:
        hit = [k for k, v in sorted(runs.items()) if want in v]
        if len(hit) != 1:
            sys.exit(f'report.py: "{want}" names {len(hit)} runs')
        cols.append((runs[hit[0]], per_function(d, hit[0], divisor)))
    keys = set().union(*(c for _, c in cols))
    first, last = cols[0][1], cols[-1][1]
    keys = sorted(keys, key=lambda k: first.get(k, 0) - last.get(k, 0))
    for i, (label, _) in enumerate(cols):
        print(f'column {i + 1}: {label}')
    print(f'{"function":48}' + ''.join(f'{i + 1:>10}' for i in range(len(cols))))
    print(f'{"all":48}' + ''.join(f'{sum(c.values()):10.0f}' for _, c in cols))
    for k in keys[:int(os.environ.get("PROF_ROWS", "50"))]:
        print(f'{k[:48]:48}' + ''.join(f'{c.get(k, 0):10.0f}' for _, c in cols))


if __name__ == '__main__':
    main()
