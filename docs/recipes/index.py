#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A Watchman-style indexer kept up to date from the change journal.

    index.py [--journal DIR] [--consumer NAME] SRC INDEX   bring INDEX up to date
    index.py --crawl SRC                                   the index of a full crawl

INDEX is a JSON file mapping each path under SRC (relative; bytes as
surrogate-escaped text) to [type, size, mtime_ns, mode, ino], plus the
consumer's cursor. The recipe of docs/CONSUMERS.md, executable:
  - no index yet, a rescan, or exit 3 ("full rescan required", as
    Watchman's "fresh instance"): crawl SRC whole;
  - dir P: re-read P's entries; names gone are removed (with what was
    under them), new names read (a new directory whole), known names
    compared;
  - moved P: P's subtree dropped and read whole;
  - file: each of its names stat'ed again; with names_complete false, the
    inode looked up in the index (every name of it re-stat'ed);
then the index is written (rename) and only then the consumer acked.
"""
import json
import os
import stat
import subprocess
import sys


def entry(path):
    st = os.lstat(path)
    kind = "d" if stat.S_ISDIR(st.st_mode) else \
        "l" if stat.S_ISLNK(st.st_mode) else "f"
    return [kind, st.st_size if kind == "f" else 0, st.st_mtime_ns,
            st.st_mode, st.st_ino]


def crawl(root, rel, index):
    """Everything under root/rel into index."""
    base = os.path.join(root, rel) if rel else root
    for name in os.listdir(base):
        r = os.path.join(rel, name) if rel else name
        try:
            e = entry(os.path.join(root, r))
        except FileNotFoundError:
            continue
        index[r] = e
        if e[0] == "d":
            crawl(root, r, index)


def drop(index, rel):
    """rel and everything under it."""
    for k in [k for k in index if k == rel or k.startswith(rel + "/")]:
        del index[k]


def reread(root, rel, index):
    """A dir entry: rel's entries, new subtrees whole."""
    base = os.path.join(root, rel) if rel else root
    try:
        now = set(os.listdir(base))
        if rel:
            index[rel] = entry(base)    # its own times and mode
    except (FileNotFoundError, NotADirectoryError):
        return      # gone: its parent is named too
    prefix = rel + "/" if rel else ""
    known = {k[len(prefix):] for k in index
             if k.startswith(prefix) and "/" not in k[len(prefix):] and k}
    for name in known - now:
        drop(index, prefix + name)
    for name in now:
        r = prefix + name
        try:
            e = entry(os.path.join(root, r))
        except FileNotFoundError:
            continue
        old = index.get(r)
        if e[0] == "d" and (old is None or old[0] != "d"):
            drop(index, r)
            index[r] = e
            crawl(root, r, index)
        else:
            if old and old[0] == "d" and e[0] != "d":
                drop(index, r)
            index[r] = e


def path_of(obj):
    """An answer's path as bytes-in-text: path_hex when there."""
    if obj.get("path_hex"):
        return os.fsdecode(bytes.fromhex(obj["path_hex"]))
    return obj.get("path")


def rel_of(src, path):
    if path == src:
        return ""
    if path and path.startswith(src.rstrip("/") + "/"):
        return path[len(src.rstrip("/")) + 1:]
    return None


def vbjournal(journal, *args):
    return subprocess.run(["vbjournal", "--journal", journal, *args],
                          capture_output=True, text=True)


def update(journal, consumer, src, index_file):
    src = os.path.realpath(src)
    try:
        with open(index_file) as f:
            saved = json.load(f)
        index, full = saved["index"], False
    except FileNotFoundError:
        index, full = {}, True
        # the cursor first, then the crawl: what changes meanwhile is
        # in the next answer
        r = vbjournal(journal, "register", consumer)
        if r.returncode not in (0, 1):
            sys.exit("index.py: vbjournal register: " + r.stderr)
    r = vbjournal(journal, "changes", "--consumer", consumer, "--under",
                  src, "--json")
    if r.returncode == 3:
        full = True
        cursor = vbjournal(journal, "cursor").stdout.strip()
    elif r.returncode:
        sys.exit("index.py: vbjournal changes: " + r.stderr)
    else:
        answer = json.loads(r.stdout)
        cursor = answer["cursor"]
        for gap in answer["rescan"]:
            p = path_of(gap)
            if p is None or rel_of(src, p) is not None or \
                    rel_of(p, src) is not None:
                full = True
    if full:
        index = {}
        crawl(src, "", index)
    else:
        for d in answer["dirs"]:
            rel = rel_of(src, path_of(d) or "")
            if d["gone"] or rel is None:
                continue
            reread(src, rel, index)
        for d in answer["moved"]:
            rel = rel_of(src, path_of(d) or "")
            if rel is None:
                continue
            drop(index, rel)
            if os.path.isdir(os.path.join(src, rel)):
                index[rel] = entry(os.path.join(src, rel))
                crawl(src, rel, index)
        for f in answer["files"]:
            names = [rel_of(src, path_of(n)) for n in f["names"]]
            if not f["names_complete"] and f["ino"]:
                names += [k for k, e in index.items() if e[4] == f["ino"]]
            for rel in names:
                if rel is None:
                    continue
                try:
                    index[rel] = entry(os.path.join(src, rel))
                except FileNotFoundError:
                    index.pop(rel, None)
    tmp = index_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"cursor": cursor, "index": index}, f)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, index_file)
    r = vbjournal(journal, "ack", consumer, cursor)
    if r.returncode:
        sys.exit("index.py: vbjournal ack: " + r.stderr)
    print(cursor)


def main(argv):
    journal, consumer, args = "/var/lib/vbjournal", "indexer", []
    i = 0
    while i < len(argv):
        if argv[i] in ("--journal", "--consumer") and i + 1 < len(argv):
            if argv[i] == "--journal":
                journal = argv[i + 1]
            else:
                consumer = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) == 2 and args[0] == "--crawl":
        index = {}
        crawl(os.path.realpath(args[1]), "", index)
        json.dump(index, sys.stdout, sort_keys=True)
        print()
        return 0
    if len(args) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    update(journal, consumer, args[0], args[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
