#!/bin/sh
# The journal's schema has a version (PRAGMA user_version): a new
# journal has the current one, with the object entries' tables; a
# journal of an older version is brought up to date by the daemon's
# open (vbj_open(VBJ_CREATE), which vbj-mkjournal uses too), keeping
# what it holds, and answers queries before that as well; a journal of
# a newer version is refused by the daemon, never written.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

C=00000000000000aa:1

# tables DIR: the journal's tables, one a line, sorted
tables() {
	sqlite3 "$1/journal.db" "SELECT name FROM sqlite_master WHERE \
type = 'table' ORDER BY name"
}

t_begin "a new journal has the current schema"
mkjournal "$T/new" </dev/null || t_fail "vbj-mkjournal failed"
[ "$(sqlite3 "$T/new/journal.db" 'PRAGMA user_version')" = 1 ] ||
	t_fail "user_version $(sqlite3 "$T/new/journal.db" 'PRAGMA user_version')"
tables "$T/new" | grep -qx objects || t_fail "no objects table"
tables "$T/new" | grep -qx object_dirs || t_fail "no object_dirs table"
t_end

# the schema of version 0 (before the object entries), as it was made
mkdir "$T/old"
sqlite3 "$T/old/journal.db" >/dev/null <<'EOT'
PRAGMA journal_mode=WAL;
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE filesystems(fs INTEGER PRIMARY KEY, uuid TEXT UNIQUE, mount TEXT);
CREATE TABLE epochs(epoch INTEGER PRIMARY KEY, state INTEGER NOT NULL DEFAULT 0,
	opened INTEGER, closed INTEGER);
CREATE TABLE changes(epoch INTEGER NOT NULL, fs INTEGER NOT NULL,
	handle BLOB NOT NULL, path TEXT, PRIMARY KEY(epoch, fs, handle))
	WITHOUT ROWID;
CREATE INDEX changes_by_path ON changes(path, epoch);
CREATE TABLE moves(epoch INTEGER NOT NULL, fs INTEGER NOT NULL,
	handle BLOB NOT NULL, path TEXT, PRIMARY KEY(epoch, fs, handle))
	WITHOUT ROWID;
CREATE TABLE gaps(id INTEGER PRIMARY KEY, epoch INTEGER NOT NULL, fs INTEGER,
	scope TEXT NOT NULL, reason TEXT NOT NULL, path TEXT);
CREATE INDEX gaps_by_epoch ON gaps(epoch);
CREATE TABLE consumers(name TEXT PRIMARY KEY, epoch INTEGER NOT NULL);
INSERT INTO meta VALUES('journal_id', '00000000000000aa');
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/srv');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES(2, 1, x'01', '/srv/a');
EOT
cp -r "$T/old" "$T/old-copy"

t_begin "a journal of version 0 answers as it is"
run vbjournal --journal "$T/old" changes --since "$C"
expect_rc 0
expect_out "dir /srv/a"
run vbjournal --journal "$T/old" changes --since "$C" --json
expect_rc 0
expect_out '"files":[]'
t_end

t_begin "the daemon's open brings version 0 up to date"
mkjournal "$T/old" </dev/null || t_fail "vbj-mkjournal failed"
[ "$(sqlite3 "$T/old/journal.db" 'PRAGMA user_version')" = 1 ] ||
	t_fail "user_version $(sqlite3 "$T/old/journal.db" 'PRAGMA user_version')"
tables "$T/old" | grep -qx objects || t_fail "no objects table"
tables "$T/old" | grep -qx object_dirs || t_fail "no object_dirs table"
sqlite3 "$T/old/journal.db" "SELECT ident FROM filesystems" >/dev/null 2>&1 ||
	t_fail "filesystems has no ident column"
run vbjournal --journal "$T/old" changes --since "$C"
expect_rc 0
expect_out "dir /srv/a"
t_end

t_begin "a journal of a newer version is refused by the daemon's open"
sqlite3 "$T/old-copy/journal.db" 'PRAGMA user_version = 99'
cp "$T/old-copy/journal.db" "$T/newer.db"
run "$VBJ_HELPERS/vbj-mkjournal" "$T/old-copy" </dev/null
expect_rc 1
expect_err "newer"
cmp -s "$T/newer.db" "$T/old-copy/journal.db" || t_fail "it was written"
t_end
