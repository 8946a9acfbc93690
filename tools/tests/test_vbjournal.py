# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python module's test (t-python.sh): test_vbjournal.py RO RW, two
copies of the fixture journal (lib-fixture.sql). Prints "ok - NAME" or
"not ok - NAME" per check, with why on "#" lines."""
import errno
import os
import select
import sys

import vbjournal

RO, RW = sys.argv[1], sys.argv[2]
ID = "00000000000000aa"
failed = 0


def check(name, fn):
    global failed
    try:
        fn()
        print("ok - python: " + name)
    except Exception as e:  # a check that fails, whatever raised it
        failed += 1
        print("# %s: %r" % (name, e))
        print("not ok - python: " + name)


def expect(what, got, want):
    if got != want:
        raise AssertionError("%s: %r, expected %r" % (what, got, want))


def changes_since_1():
    with vbjournal.Journal(RO) as j:
        expect("id", j.id, ID)
        expect("cursor", j.cursor(), ID + ":3")
        answer = j.changes(ID + ":1")
        entries = list(answer)
        expect("cursor", answer.cursor, ID + ":3")
        expect("kinds", [e.kind for e in entries],
               ["dir", "dir", "dir", "moved", "file", "rescan"])
        expect("paths", [e.path_bytes for e in entries[:4]],
               [b"/srv/vbj-fixture/a", b"/srv/vbj-fixture/b",
                b"/srv/vbj-fixture/n\xff", b"/srv/vbj-fixture/m"])
        # not UTF-8: a surrogate escape that gives the bytes back
        expect("fsencode", os.fsencode(entries[2].path), entries[2].path_bytes)
        expect("source", entries[0].path_source, "stored")
        expect("handle", entries[0].handle, b"\x01")
        f = entries[4]
        expect("file", (f.ino, f.nlink, f.names, f.handle, f.why),
               (77, None, [], None, "no file handle"))
        r = entries[5]
        expect("rescan", (r.scope, r.reason, r.path),
               ("fs", "overflow", "/srv/vbj-fixture"))


def one_epoch_and_under():
    with vbjournal.Journal(RO) as j:
        answer = j.changes(ID + ":2", one_epoch=True)
        expect("one epoch", [e.path for e in answer if e.kind == "dir"],
               ["/srv/vbj-fixture/b", "/srv/vbj-fixture/n\udcff"])
        expect("its cursor", answer.cursor, ID + ":3")
        expect("none closed after 3", j.changes(ID + ":3", one_epoch=True),
               None)
        under = [e.path for e in j.changes(ID + ":1", "/srv/vbj-fixture/b")
                 if e.kind in ("dir", "moved")]
        expect("under", under, ["/srv/vbj-fixture/b"])


def consumers():
    with vbjournal.Journal(RW, write=True) as j:
        expect("register", j.register("py"), ID + ":3")
        expect("consumers", [(c["name"], c["cursor"], c["lag"])
                             for c in j.consumers()],
               [("backup", ID + ":1", 2), ("py", ID + ":3", 0)])
        j.ack("backup", ID + ":2")
        expect("acked", j.consumer_cursor("backup"), ID + ":2")
        j.unregister("py")
        expect("after unregister", [c["name"] for c in j.consumers()],
               ["backup"])
        # at a cursor of its own; moved back and forth
        expect("register_at", j.register_at("at", ID + ":2"), ID + ":2")
        expect("its cursor", j.consumer_cursor("at"), ID + ":2")
        raises(vbjournal.Error, errno.EEXIST, j.register_at, "at", ID + ":1")
        expect("moved back", j.register_at("at", ID + ":1", move=True),
               ID + ":1")
        expect("moved to now", j.register_at("at", move=True), ID + ":3")
        expect("kept", j.consumer_cursor("at"), ID + ":3")
        j.unregister("at")


def raises(exc, err, fn, *args):
    try:
        fn(*args)
    except exc as e:
        expect("errno", e.errno, err)
        if not e.strerror:
            raise AssertionError("no message")
        return e
    raise AssertionError("%s: no %s" % (fn.__name__, exc.__name__))


def errors():
    e = raises(vbjournal.Error, errno.ENOENT, vbjournal.Journal,
               os.path.join(RO, "nothing-here"))
    expect("message", "no journal here" in e.strerror, True)
    with vbjournal.Journal(RO) as j:
        e = raises(vbjournal.RescanRequired, errno.ESTALE, j.changes,
                   "ffffffffffffffff:1")
        expect("message", e.strerror, "the cursor is of another journal")
        raises(vbjournal.RescanRequired, errno.ESTALE, j.changes, ID + ":9")
        raises(vbjournal.Error, errno.EINVAL, j.changes, "not a cursor")
        # read-only: the consumers table cannot be written
        raises(vbjournal.Error, errno.EACCES, j.register, "nope")
        raises(vbjournal.Error, errno.EACCES, j.register_at, "nope",
               ID + ":1")
        raises(vbjournal.Error, errno.EXDEV, j.changes, ID + ":1", "/proc")
    with vbjournal.Journal(RW, write=True) as j:
        raises(vbjournal.Error, errno.ENOENT, j.ack, "nobody", ID + ":3")
        raises(vbjournal.Error, errno.ERANGE, j.ack, "backup", ID + ":1")
        raises(vbjournal.Error, errno.EEXIST, j.register, "backup")
        raises(vbjournal.RescanRequired, errno.ESTALE, j.register_at, "x",
               "ffffffffffffffff:1")
        raises(vbjournal.RescanRequired, errno.ESTALE, j.register_at, "x",
               ID + ":9")
        # epoch 4 is open: not a cursor an answer gives yet
        raises(vbjournal.Error, errno.ERANGE, j.register_at, "x", ID + ":4")
        raises(vbjournal.Error, errno.EINVAL, j.register_at, "x", "nope")
        expect("none of them registered",
               [c["name"] for c in j.consumers()], ["backup"])


def status():
    with vbjournal.Journal(RO) as j:
        s = j.status()
        expect("status", (s["journal_id"], s["epoch"], s["last_closed"],
                          s["daemon"], s["consumers"]),
               (ID, 4, 3, "never started", 1))
        expect("filesystems", s["filesystems"],
               [{"fs": 1, "uuid": "u1", "mount": "/srv/vbj-fixture"}])


def follow_fd():
    """A write to the journal wakes the descriptor."""
    with vbjournal.Journal(RW) as reader, \
            vbjournal.Journal(RW, write=True) as writer:
        fd = reader.fileno()
        reader.process()
        p = select.poll()
        p.register(fd, select.POLLIN)
        expect("quiet", p.poll(0), [])
        writer.register("wake")
        expect("woken", bool(p.poll(5000)), True)
        expect("process", reader.process(), True)
        expect("drained", p.poll(0), [])
        expect("follow, nothing new",
               list(reader.follow(ID + ":3", timeout=0.3)), [])
        expect("follow from 1", [a.cursor for a in
                                 reader.follow(ID + ":1", timeout=0.3)],
               [ID + ":2", ID + ":3"])


for name, fn in (("changes since a cursor", changes_since_1),
                 ("one epoch, under", one_epoch_and_under),
                 ("register, ack, unregister", consumers),
                 ("errors raise with errno and message", errors),
                 ("status", status),
                 ("the descriptor to follow with", follow_fd)):
    check(name, fn)
sys.exit(1 if failed else 0)
