#!/bin/sh
# The journal as vbjournal finds it: opened read-only (a read-only copy
# answers; the database is never changed); a journal that is missing,
# unreadable, empty, foreign, truncated or corrupt gets one clear
# message and its own exit status (vbjournal(1), EXIT STATUS); a gap
# without a path does not crash it.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

C=00000000000000aa:1
mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES(2, 1, x'01', '/srv/a');
INSERT INTO consumers(name, epoch) VALUES('backup', 1);
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000)
INSERT INTO changes(epoch, fs, handle, path)
	SELECT 1, 1, randomblob(16), '/srv/old/' || x FROM n;
EOT

t_begin "a gap without a path, in JSON"
cp -r "$T/j" "$T/gap"
echo "INSERT INTO gaps(epoch, fs, scope, reason, path) VALUES(2, 1, 'fs', 'overflow', NULL);" |
	mkjournal "$T/gap"
run vbjournal --journal "$T/gap" changes --since "$C" --json
expect_rc 0
expect_out '{"scope":"fs","reason":"overflow","path":null}'
t_end

t_begin "a gap without a path, in text"
run vbjournal --journal "$T/gap" changes --since "$C"
expect_rc 0
expect_out "rescan fs ? (overflow)"
t_end

t_begin "queries do not change the journal"
cp -r "$T/j" "$T/same"
cp "$T/same/journal.db" "$T/before.db"
for cmd in "changes --since $C" "changes --since $C --json" cursor status \
	"status --json" consumers "changes --consumer backup"; do
	# shellcheck disable=SC2086 # cmd: words
	run vbjournal --journal "$T/same" $cmd
	expect_rc 0 || t_fail "vbjournal $cmd"
done
cmp -s "$T/before.db" "$T/same/journal.db" || t_fail "journal.db changed"
t_end

# as_reader CMD...: CMD as a user who cannot write the copy (root
# writes anything: as nobody then)
as_reader() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		"$@"
	fi
}

t_begin "a read-only copy answers"
mkdir "$T/ro"
cp -r "$T/j" "$T/ro/j"
chmod 0755 "$T" "$T/ro"
chmod 0444 "$T/ro/j/journal.db"
chmod 0555 "$T/ro/j"
run as_reader "$VBJ_BIN/vbjournal" --journal "$T/ro/j" changes --since "$C"
expect_rc 0
expect_out "dir /srv/a"
run as_reader "$VBJ_BIN/vbjournal" --journal "$T/ro/j" status
expect_rc 0
ls "$T/ro/j" >"$T/files"
[ "$(cat "$T/files")" = journal.db ] || t_fail "files made: $(cat "$T/files")"
t_end

t_begin "permission denied"
mkdir -m 0700 "$T/priv"
if [ "$(id -u)" != 0 ]; then
	t_skip "not root: cannot make a journal nobody may read"
else
	cp -r "$T/j" "$T/priv/j"
	chmod 0711 "$T/priv"
	chmod 0600 "$T/priv/j/journal.db"
	chmod 0755 "$T/priv/j"
	run as_reader "$VBJ_BIN/vbjournal" --journal "$T/priv/j" cursor
	expect_rc 5
	expect_err "permission denied"
	t_end
fi

# bad NAME STATUS MESSAGE: the journal at $T/bad gives them
bad() {
	t_begin "$1"
	run vbjournal --journal "$T/bad" changes --since "$C"
	expect_rc "$2"
	expect_err "$3"
	[ "$(wc -l <"$T/err")" = 1 ] || t_fail "not one message"
	[ ! -s "$T/out" ] || t_fail "an answer on stdout"
	t_end
}

rm -rf "$T/bad"
bad "no journal directory" 4 "no journal"
mkdir "$T/bad"
bad "no journal.db" 4 "no journal"
: >"$T/bad/journal.db"
bad "zero-length journal.db" 7 "empty"
[ "$(wc -c <"$T/bad/journal.db")" = 0 ] || t_fail "it wrote into the empty file"
rm "$T/bad/journal.db"
echo "CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT);" |
	sqlite3 "$T/bad/journal.db" 2>"$T/err" || t_fail "sqlite3: $(cat "$T/err")"
bad "a foreign database" 6 "not a vbjournal journal"
rm -f "$T/bad/"*
cp "$T/j/journal.db" "$T/bad/journal.db"
size=$(wc -c <"$T/bad/journal.db")
truncate -s $((size / 2)) "$T/bad/journal.db"
bad "a truncated journal" 8 "truncated"
rm -f "$T/bad/"*
cp "$T/j/journal.db" "$T/bad/journal.db"
truncate -s $((size / 2 + 100)) "$T/bad/journal.db"
bad "a journal truncated mid-page" 8 "truncated"
rm -f "$T/bad/"*
head -c 8192 /dev/urandom >"$T/bad/journal.db"
bad "not a database" 9 "corrupt"
rm -f "$T/bad/"*
cp "$T/j/journal.db" "$T/bad/journal.db"
# every page after the first two: garbage where the tables were
head -c $((size - 8192)) /dev/zero | tr '\0' '\125' |
	dd of="$T/bad/journal.db" bs=4096 seek=2 conv=notrunc 2>/dev/null
bad "a corrupt journal" 9 "corrupt"

t_begin "status of a journal no session has run on"
run vbjournal --journal "$T/j" status
expect_rc 0
expect_line "daemon never started"
expect_no_out "session:"
run vbjournal --journal "$T/j" status --json
expect_rc 0
expect_out '"session_seconds":0,'
t_end
