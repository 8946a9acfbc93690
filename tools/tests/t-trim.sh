#!/bin/sh
# What the daemon's checkpoint drops (vbj_trim()): the epochs every
# consumer has acked, with their directories, moves, gaps and object
# entries; but not what the journal knows of where a file's names are
# (object_dirs: the directories its hard links were made in), which a
# later change of that file still needs, unless beyond the size cap.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! "$VBJ_HELPERS/vbj-handle" "$T" >/dev/null 2>&1; then
	t_begin "trim"
	t_skip "needs root and a filesystem with file handles"
	exit 0
fi
R=$(cd -P "$T" && pwd)/fs
mkdir -p "$R/A" "$R/B"
echo one >"$R/A/f"
ln "$R/A/f" "$R/B/f"
F=$(handle "$R/A/f") FI=$(ino "$R/A/f")
HA=$(handle "$R/A") HB=$(handle "$R/B")
# the link made in epoch 1, the file written through A in epoch 6; the
# consumer has acked epoch 5
sql="INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '$R');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 1), (4, 1), (5, 1),
	(6, 1), (7, 0);
INSERT INTO consumers(name, epoch) VALUES('c', 5);
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(1, 1, x'$HB', '$R/B'), (6, 1, x'$HA', '$R/A');
INSERT INTO objects(epoch, fs, handle, ino, generation) VALUES
	(2, 1, x'$F', $FI, 0), (6, 1, x'$F', $FI, 0);
INSERT INTO object_dirs(fs, handle, dir, epoch) VALUES
	(1, x'$F', x'$HB', 1), (1, x'$F', x'$HA', 6);"

t_begin "acked epochs go, a hard link's directory stays"
echo "$sql" | "$VBJ_HELPERS/vbj-mkjournal" "$T/j" 1000000 ||
	t_fail "vbj-mkjournal failed"
n=$(sqlite3 "$T/j/journal.db" "SELECT count(*) FROM objects")
[ "$n" = 1 ] || t_fail "$n object rows, expected 1 (epoch 6's)"
run vbjournal --journal "$T/j" changes --consumer c
expect_rc 0
expect_line "file ino=$FI nlink=2 $R/A/f"
expect_line "file ino=$FI nlink=2 $R/B/f"
t_end

t_begin "beyond the size cap, the oldest hard links' directories go"
echo "$sql" | "$VBJ_HELPERS/vbj-mkjournal" "$T/k" 1 ||
	t_fail "vbj-mkjournal failed"
n=$(sqlite3 "$T/k/journal.db" "SELECT count(*) FROM object_dirs")
[ "$n" = 1 ] || t_fail "$n object_dirs rows, expected 1 (the newest)"
t_end
