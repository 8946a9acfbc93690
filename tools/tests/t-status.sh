#!/bin/sh
# vbjournal status: the journaled filesystems (so that fs=N in an answer
# maps to a mount), the size on disk with the WAL (-wal, -shm), and a
# journal that no daemon has run on yet said as such; --json carries a
# version.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/srv/data'),
	(2, 'u2', '/srv/my data');
EOT

t_begin "a journal no daemon ran on"
run vbjournal --journal "$T/j" status
expect_rc 0
expect_line "daemon never started"
expect_no_out "session:"
t_end

t_begin "the journaled filesystems, fs=N to a mount"
expect_line "fs=1 u1 /srv/data"
expect_line "fs=2 u2 /srv/my data"
t_end

t_begin "--json: version, filesystems, never started"
run vbjournal --journal "$T/j" status --json
expect_rc 0
expect_out '{"version":1,'
expect_out '"filesystems":[{"fs":1,"uuid":"u1","mount":"/srv/data"},{"fs":2,"uuid":"u2","mount":"/srv/my data"}]'
expect_out '"daemon":"never started"'
t_end

if ! command -v python3 >/dev/null 2>&1; then
	t_begin "the size counts the WAL"
	t_skip "no python3 to hold a WAL open"
	exit 0
fi

# A writer that keeps its WAL (no checkpoint) while status reads.
python3 - "$T/j/journal.db" "$T/ready" <<'EOP' &
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
for i in range(200):
    db.execute("INSERT INTO gaps(epoch, fs, scope, reason) VALUES(1, 1, 'fs', ?)",
               ("x" * 2000,))
open(sys.argv[2], "w").close()
time.sleep(30)
EOP
writer=$!
i=0
while [ ! -e "$T/ready" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

t_begin "the size counts the WAL"
db=$(stat -c %s "$T/j/journal.db")
wal=$(stat -c %s "$T/j/journal.db-wal")
shm=$(stat -c %s "$T/j/journal.db-shm")
[ "$wal" -gt 100000 ] || t_fail "the WAL is only $wal bytes"
run vbjournal --journal "$T/j" status --json
expect_rc 0
expect_out "\"size_bytes\":$((db + wal + shm)),\"db_bytes\":$db,\"wal_bytes\":$wal,\"shm_bytes\":$shm"
run vbjournal --journal "$T/j" status
expect_line "size $((db + wal + shm)) bytes (journal.db $db, -wal $wal, -shm $shm), 0 directory rows, 200 gaps"
t_end
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null || :
