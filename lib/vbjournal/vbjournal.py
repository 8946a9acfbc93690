# SPDX-License-Identifier: LGPL-2.1-or-later
"""The vfsbarrier change journal from Python, over libvbjournal.

    import vbjournal
    with vbjournal.Journal() as j:            # /var/lib/vbjournal, read-only
        answer = j.changes(cursor)            # raises RescanRequired
        for e in answer:
            if e.kind == "dir": ...           # re-read its entries
            elif e.kind == "moved": ...       # re-read its subtree
            elif e.kind == "file": ...        # find e.names, compare
            elif e.kind == "rescan": ...      # walk e.path's filesystem
        cursor = answer.cursor                # ask from here next time

Paths are str decoded with os.fsdecode() (any byte survives, as a
surrogate escape; os.fsencode() gives the bytes back) and also given as
bytes (path_bytes, names_bytes). Failures raise Error, an OSError with
the library's errno and message. ctypes only: the standard library over
libvbjournal.so.1 (libvbjournal(3)); VBJOURNAL_LIBRARY names another
copy of it.
"""
import ctypes
import errno
import os
import select

__all__ = ["Journal", "Changes", "Entry", "Error", "RescanRequired",
           "DEFAULT_DIR"]

DEFAULT_DIR = "/var/lib/vbjournal"
_CURSOR_MAX = 40
_KINDS = {1: "dir", 2: "moved", 3: "file", 4: "rescan"}
_SOURCES = {0: "none", 1: "handle", 2: "stored"}

_c_char_pp = ctypes.POINTER(ctypes.c_char_p)


class _Entry(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("path", ctypes.POINTER(ctypes.c_char)),
        ("path_len", ctypes.c_size_t),
        ("path_source", ctypes.c_int),
        ("gone", ctypes.c_int),
        ("fs", ctypes.c_int64),
        ("handle", ctypes.POINTER(ctypes.c_ubyte)),
        ("handle_len", ctypes.c_size_t),
        ("ino", ctypes.c_uint64),
        ("generation", ctypes.c_uint32),
        ("nlink", ctypes.c_int64),
        ("names", _c_char_pp),
        ("nnames", ctypes.c_size_t),
        ("names_complete", ctypes.c_int),
        ("why", ctypes.c_char_p),
        ("scope", ctypes.c_char_p),
        ("reason", ctypes.c_char_p),
    ]


class _Consumer(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("cursor", ctypes.c_char_p),
        ("epoch", ctypes.c_int64),
        ("lag", ctypes.c_int64),
        ("rescan_required", ctypes.c_int),
    ]


class _Fs(ctypes.Structure):
    _fields_ = [
        ("fs", ctypes.c_int64),
        ("uuid", ctypes.c_char_p),
        ("mount", ctypes.c_char_p),
    ]


class _Status(ctypes.Structure):
    _fields_ = [
        ("journal_id", ctypes.c_char_p),
        ("epoch", ctypes.c_int64),
        ("last_closed", ctypes.c_int64),
        ("first_epoch", ctypes.c_int64),
        ("daemon", ctypes.c_char_p),
        ("pid", ctypes.c_int64),
        ("filesystems", ctypes.POINTER(ctypes.POINTER(_Fs))),
        ("nfilesystems", ctypes.c_size_t),
        ("db_bytes", ctypes.c_int64),
        ("wal_bytes", ctypes.c_int64),
        ("shm_bytes", ctypes.c_int64),
        ("size_bytes", ctypes.c_int64),
        ("directory_rows", ctypes.c_int64),
        ("gaps", ctypes.c_int64),
        ("session_ran", ctypes.c_int),
        ("session_seconds", ctypes.c_int64),
        ("intents", ctypes.c_uint64),
        ("records", ctypes.c_uint64),
        ("acks", ctypes.c_uint64),
        ("ack_ns_sum", ctypes.c_uint64),
        ("ack_ns_max", ctypes.c_uint64),
        ("unacked_changes", ctypes.c_uint64),
        ("consumers", ctypes.c_int64),
        ("largest_lag", ctypes.c_int64),
    ]


def _load():
    lib = ctypes.CDLL(os.environ.get("VBJOURNAL_LIBRARY",
                                     "libvbjournal.so.1"))
    p, i, u, s = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_char_p
    sz = ctypes.c_size_t
    for name, res, args in (
            ("vbjournal_version", s, []),
            ("vbjournal_open", i, [ctypes.POINTER(p), s, u]),
            ("vbjournal_close", None, [p]),
            ("vbjournal_errmsg", s, [p]),
            ("vbjournal_id", ctypes.c_uint64, [p]),
            ("vbjournal_cursor", i, [p, s, sz]),
            ("vbjournal_checkpoint", i, [p, i, s, sz]),
            ("vbjournal_changes", i, [p, s, s, u, ctypes.POINTER(p)]),
            ("vbjournal_changes_next", i,
             [p, ctypes.POINTER(ctypes.POINTER(_Entry))]),
            ("vbjournal_changes_cursor", s, [p]),
            ("vbjournal_changes_free", None, [p]),
            ("vbjournal_fd", i, [p]),
            ("vbjournal_process", i, [p]),
            ("vbjournal_register", i, [p, s, s, sz]),
            ("vbjournal_register_at", i, [p, s, s, u, s, sz]),
            ("vbjournal_ack", i, [p, s, s]),
            ("vbjournal_unregister", i, [p, s]),
            ("vbjournal_consumer_cursor", i, [p, s, s, sz]),
            ("vbjournal_consumers", i,
             [p, ctypes.POINTER(ctypes.POINTER(ctypes.POINTER(_Consumer)))]),
            ("vbjournal_consumers_free", None,
             [ctypes.POINTER(ctypes.POINTER(_Consumer))]),
            ("vbjournal_status", i,
             [p, ctypes.POINTER(ctypes.POINTER(_Status))]),
            ("vbjournal_status_free", None, [ctypes.POINTER(_Status)])):
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


_lib = _load()


def version():
    """The library's release."""
    return _lib.vbjournal_version().decode()


class Error(OSError):
    """A failure of libvbjournal: errno and the library's message."""


class RescanRequired(Error):
    """The journal cannot answer from this cursor: rescan everything."""


def _enc(s):
    return None if s is None else os.fsencode(s)


def _dec(b):
    return None if b is None else os.fsdecode(b)


class Entry:
    """One entry of an answer (its fields: libvbjournal(3))."""

    __slots__ = ("kind", "path", "path_bytes", "path_source", "gone", "fs",
                 "handle", "ino", "generation", "nlink", "names",
                 "names_bytes", "names_complete", "why", "scope", "reason")

    def __init__(self, e):
        self.kind = _KINDS.get(e.kind, str(e.kind))
        self.path_bytes = (ctypes.string_at(e.path, e.path_len)
                           if e.path else None)
        self.path = _dec(self.path_bytes)
        self.path_source = _SOURCES.get(e.path_source)
        self.gone = bool(e.gone)
        self.fs = e.fs
        self.handle = (bytes(ctypes.string_at(e.handle, e.handle_len))
                       if e.handle else None)
        self.ino = e.ino
        self.generation = e.generation
        self.nlink = None if e.nlink < 0 else e.nlink
        self.names_bytes = [e.names[k] for k in range(e.nnames)]
        self.names = [_dec(n) for n in self.names_bytes]
        self.names_complete = bool(e.names_complete)
        self.why = _dec(e.why)
        self.scope = _dec(e.scope)
        self.reason = _dec(e.reason)

    def __repr__(self):
        return "Entry(%s %r)" % (self.kind, self.path or self.names)


class Changes:
    """An answer: iterate it for its entries; cursor: ask from there."""

    def __init__(self, journal, it):
        self._journal = journal
        self._it = ctypes.c_void_p(it)
        self.cursor = _lib.vbjournal_changes_cursor(self._it).decode()

    def __iter__(self):
        return self

    def __next__(self):
        if not self._it:
            raise StopIteration
        e = ctypes.POINTER(_Entry)()
        ret = _lib.vbjournal_changes_next(self._it, ctypes.byref(e))
        if ret < 0:
            self._journal._raise(ret)
        if ret == 0:
            self.close()
            raise StopIteration
        return Entry(e.contents)

    def close(self):
        if self._it:
            _lib.vbjournal_changes_free(self._it)
            self._it = ctypes.c_void_p()

    def __del__(self):
        self.close()


class Journal:
    """A journal (vbjournald's directory), read-only unless write=True
    (register, ack, unregister)."""

    def __init__(self, directory=DEFAULT_DIR, write=False):
        self._j = ctypes.c_void_p()
        ret = _lib.vbjournal_open(ctypes.byref(self._j),
                                  os.fsencode(directory), 1 if write else 0)
        if ret < 0:
            try:
                self._raise(ret)
            finally:
                self.close()

    def _raise(self, ret):
        msg = _lib.vbjournal_errmsg(self._j) if self._j else None
        msg = _dec(msg) or os.strerror(-ret)
        cls = RescanRequired if ret == -errno.ESTALE else Error
        raise cls(-ret, msg)

    def _check(self, ret):
        if ret < 0:
            self._raise(ret)
        return ret

    def close(self):
        if self._j:
            _lib.vbjournal_close(self._j)
            self._j = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    @property
    def id(self):
        """The journal id, 16 hex digits."""
        return "%016x" % _lib.vbjournal_id(self._j)

    def _cursor_call(self, fn, *args):
        buf = ctypes.create_string_buffer(_CURSOR_MAX)
        self._check(fn(self._j, *args, buf, _CURSOR_MAX))
        return buf.value.decode()

    def cursor(self):
        """The current cursor (the last closed epoch's)."""
        return self._cursor_call(_lib.vbjournal_cursor)

    def checkpoint(self, timeout_ms=30000):
        """Has the daemon close the epoch; the new cursor."""
        return self._cursor_call(_lib.vbjournal_checkpoint, timeout_ms)

    def changes(self, since, under=None, one_epoch=False):
        """What may have changed after since (a Changes). Raises
        RescanRequired when the journal cannot answer from it; with
        one_epoch, returns None while no epoch has closed after it."""
        it = ctypes.c_void_p()
        ret = _lib.vbjournal_changes(self._j, since.encode(), _enc(under),
                                     1 if one_epoch else 0, ctypes.byref(it))
        if one_epoch and ret == -errno.EAGAIN:
            return None
        self._check(ret)
        return Changes(self, it.value)

    def fileno(self):
        """A descriptor that polls readable when the journal may have
        changed (then call process())."""
        return self._check(_lib.vbjournal_fd(self._j))

    def process(self):
        """Drains fileno(): whether the journal was written."""
        return bool(self._check(_lib.vbjournal_process(self._j)))

    def follow(self, since, under=None, timeout=None):
        """Each epoch's Changes as it closes, from since on; waits up to
        timeout seconds (None: for ever) for the next one."""
        poller = select.poll()
        poller.register(self.fileno(), select.POLLIN)
        while True:
            answer = self.changes(since, under, one_epoch=True)
            if answer is None:
                # the descriptor, and a look every 200 ms all the same
                waited = 0.0
                while answer is None:
                    if timeout is not None and waited >= timeout:
                        return
                    if poller.poll(200):
                        self.process()
                    waited += 0.2
                    answer = self.changes(since, under, one_epoch=True)
            since = answer.cursor
            yield answer

    def register(self, name):
        """A named consumer from the current cursor, which it returns."""
        return self._cursor_call(_lib.vbjournal_register, name.encode())

    def register_at(self, name, cursor=None, move=False):
        """A named consumer at cursor (None: the current one), which it
        returns; the journal keeps every epoch after it from then on.
        With move, one of that name is moved there, forwards or back.
        Raises RescanRequired when the journal cannot answer from the
        cursor. Needs libvbjournal 1.1 (VBJOURNAL_1.1)."""
        return self._cursor_call(_lib.vbjournal_register_at, name.encode(),
                                 _enc(cursor), 1 if move else 0)

    def ack(self, name, cursor):
        """The consumer has processed everything up to cursor."""
        self._check(_lib.vbjournal_ack(self._j, name.encode(),
                                       cursor.encode()))

    def unregister(self, name):
        self._check(_lib.vbjournal_unregister(self._j, name.encode()))

    def consumer_cursor(self, name):
        return self._cursor_call(_lib.vbjournal_consumer_cursor,
                                 name.encode())

    def consumers(self):
        """Every consumer: a list of dicts (name, cursor, epoch, lag,
        rescan_required)."""
        lst = ctypes.POINTER(ctypes.POINTER(_Consumer))()
        n = self._check(_lib.vbjournal_consumers(self._j, ctypes.byref(lst)))
        try:
            return [{"name": _dec(c.name), "cursor": c.cursor.decode(),
                     "epoch": c.epoch, "lag": c.lag,
                     "rescan_required": bool(c.rescan_required)}
                    for c in (lst[k].contents for k in range(n))]
        finally:
            _lib.vbjournal_consumers_free(lst)

    def status(self):
        """The journal, the daemon and the consumers, as a dict."""
        st = ctypes.POINTER(_Status)()
        self._check(_lib.vbjournal_status(self._j, ctypes.byref(st)))
        try:
            s = st.contents
            out = {name: getattr(s, name) for name, _ in _Status._fields_
                   if name not in ("filesystems", "nfilesystems")}
            out["journal_id"] = s.journal_id.decode()
            out["daemon"] = s.daemon.decode()
            out["session_ran"] = bool(s.session_ran)
            out["filesystems"] = [
                {"fs": f.fs, "uuid": _dec(f.uuid), "mount": _dec(f.mount)}
                for f in (s.filesystems[k].contents
                          for k in range(s.nfilesystems))]
            return out
        finally:
            _lib.vbjournal_status_free(st)
