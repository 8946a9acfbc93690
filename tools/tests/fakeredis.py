# SPDX-License-Identifier: GPL-2.0
"""A stand-in for Redis in t-publish.sh: fakeredis.py SOCKET LOG.

Listens on the Unix socket SOCKET and answers each EVAL of
vbjournal-publish as its script does when it appends an entry
({1, id}); before answering the Nth EVAL it runs the program
$FAKE_HOOK_N, if set, so that a test can change the journal at that
moment. Appends "KEY KIND" per EVAL to LOG. Anything but EVAL gets an
error. Serves until killed."""
import os
import socket
import subprocess
import sys


def command(f):
    """One RESP array of bulk strings from f: a list of bytes, or None."""
    line = f.readline()
    if not line.startswith(b"*"):
        return None
    args = []
    for _ in range(int(line[1:])):
        n = int(f.readline()[1:])
        args.append(f.read(n + 2)[:n])
    return args


def main():
    path, log = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(1)
    n = 0
    while True:
        c, _ = s.accept()
        f = c.makefile("rb")
        while True:
            args = command(f)
            if args is None:
                break
            if args[0].upper() != b"EVAL":
                c.sendall(b"-ERR fakeredis: EVAL only\r\n")
                continue
            n += 1
            hook = os.environ.get("FAKE_HOOK_%d" % n)
            if hook:
                subprocess.run([hook], check=False)
            # EVAL script 2 stream published jid epoch field value...
            fields = dict(zip(args[7::2], args[8::2]))
            with open(log, "a") as out:
                out.write("%s %s\n" % (fields[b"key"].decode(),
                                       fields[b"kind"].decode()))
            rid = b"%d-0" % n
            c.sendall(b"*2\r\n:1\r\n$%d\r\n%s\r\n" % (len(rid), rid))
        c.close()


main()
