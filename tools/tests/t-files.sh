#!/bin/sh
# Object ("file") entries: a file the module announced with
# VFSB_RECF_LINKS (several links, or changed through a name it no
# longer has) is answered with every name vbjournal finds for it when
# asked, in the directories the journal knows for it (its records'
# parents, its hard links' directories, the changed directories of the
# answer); fewer names than its link count is said, with what to do.
# The journals here hold real handles of files on the host's
# filesystem (root: open_by_handle_at).
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

C=00000000000000aa:1
if [ "$(id -u)" != 0 ] || ! "$VBJ_HELPERS/vbj-handle" "$T" >/dev/null 2>&1; then
	t_begin "object entries"
	t_skip "needs root and a filesystem with file handles"
	exit 0
fi
R=$(cd -P "$T" && pwd)/fs
mkdir -p "$R/A" "$R/B" "$R/C" "$R/E" "$R/S" "$R/D"
echo one >"$R/A/f"
ln "$R/A/f" "$R/B/f"
echo two >"$R/A/g"
ln "$R/A/g" "$R/B/g"
ln "$R/A/g" "$R/C/g"
echo three >"$R/D/t"
echo four >"$R/A/gone"
F=$(handle "$R/A/f") FI=$(ino "$R/A/f") FG=$(gen "$R/A/f")
G=$(handle "$R/A/g") GI=$(ino "$R/A/g")
TT=$(handle "$R/D/t") TI=$(ino "$R/D/t")
X=$(handle "$R/A/gone") XI=$(ino "$R/A/gone")
rm "$R/A/gone"
HA=$(handle "$R/A") HB=$(handle "$R/B") HS=$(handle "$R/S") HD=$(handle "$R/D")
# f: record in A, a hard link made in B; g: the same, and a third link
# in C that the journal does not know; t: changed through S (where it
# has no name), its name made in D; gone: deleted since
mkjournal "$T/j" <<EOT
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '$R');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(2, 1, x'$HA', '$R/A'), (2, 1, x'$HS', '$R/S'), (2, 1, x'$HD', '$R/D');
INSERT INTO objects(epoch, fs, handle, ino, generation) VALUES
	(2, 1, x'$F', $FI, $FG), (2, 1, x'$G', $GI, 0), (2, 1, x'$TT', $TI, 0),
	(2, 1, x'$X', $XI, 0);
INSERT INTO object_dirs(fs, handle, dir, epoch) VALUES
	(1, x'$F', x'$HA', 2), (1, x'$F', x'$HB', 1), (1, x'$G', x'$HA', 2),
	(1, x'$G', x'$HB', 2), (1, x'$TT', x'$HS', 2), (1, x'$X', x'$HA', 2);
EOT

t_begin "a file with two links: both names"
run vbjournal --journal "$T/j" changes --since "$C"
expect_rc 0
expect_out "file ino=$FI nlink=2 $R/A/f"
expect_out "file ino=$FI nlink=2 $R/B/f"
t_end

t_begin "a file with two links, in JSON"
run vbjournal --journal "$T/j" changes --since "$C" --json
expect_rc 0
expect_out "{\"kind\":\"file\",\"fs\":1,\"handle\":\"$F\",\"ino\":$FI,\"generation\":$FG,\"nlink\":2,\"gone\":false,\"names\":[{\"path\":\"$R/A/f\"},{\"path\":\"$R/B/f\"}],\"names_complete\":true}"
t_end

t_begin "a name in a directory the journal does not know: said"
run vbjournal --journal "$T/j" changes --since "$C"
expect_rc 0
expect_out "file ino=$GI nlink=3 $R/A/g"
expect_out "file ino=$GI nlink=3 $R/B/g"
expect_out "file ino=$GI nlink=3 ? (found 2 of 3 names:"
expect_no_out "$R/C/g"
run vbjournal --journal "$T/j" changes --since "$C" --json
expect_out "\"nlink\":3,\"gone\":false,\"names\":[{\"path\":\"$R/A/g\"},{\"path\":\"$R/B/g\"}],\"names_complete\":false}"
t_end

t_begin "changed through a directory without its name: its name is found"
run vbjournal --journal "$T/j" changes --since "$C"
expect_rc 0
expect_out "file ino=$TI nlink=1 $R/D/t"
t_end

t_begin "a file deleted since: gone"
run vbjournal --journal "$T/j" changes --since "$C"
expect_rc 0
expect_out "file ino=$XI nlink=0 ? (gone)"
run vbjournal --journal "$T/j" changes --since "$C" --json
expect_out "\"handle\":\"$X\",\"ino\":$XI,\"generation\":0,\"nlink\":0,\"gone\":true,\"names\":[],\"names_complete\":true}"
t_end

t_begin "--under keeps a file by any of its names"
run vbjournal --journal "$T/j" changes --since "$C" --under "$R/B"
expect_rc 0
expect_out "file ino=$FI nlink=2 $R/A/f"
expect_out "file ino=$FI nlink=2 $R/B/f"
expect_no_out "$R/D/t"
t_end

t_begin "--under keeps a file whose names are not all found"
run vbjournal --journal "$T/j" changes --since "$C" --under "$R/E"
expect_rc 0
expect_out "file ino=$GI nlink=3 ? (found 2 of 3 names:"
expect_no_out "ino=$FI"
expect_no_out "ino=$TI"
t_end

t_begin "a file without a handle: found by its inode, count unknown"
cp -r "$T/j" "$T/nh"
echo "INSERT INTO objects(epoch, fs, handle, ino, generation) VALUES
	(2, 1, 'ino:$FI:0', $FI, 0);
INSERT INTO object_dirs(fs, handle, dir, epoch) VALUES (1, 'ino:$FI:0', x'$HB', 2);" |
	mkjournal "$T/nh"
run vbjournal --journal "$T/nh" changes --since "$C"
expect_rc 0
expect_out "file ino=$FI nlink=? $R/B/f"
expect_out "file ino=$FI nlink=? $R/A/f"
expect_out "file ino=$FI nlink=? ? (found 2 names, of a link count not known: no file handle"
t_end

t_begin "not root: the names cannot be found, and it says so"
mkdir "$T/ro"
cp -r "$T/j" "$T/ro/j"
chmod 0755 "$T" "$T/ro" "$T/ro/j"
chmod 0644 "$T/ro/j/journal.db"
run setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$VBJ_BIN/vbjournal" --journal "$T/ro/j" changes --since "$C" --json
expect_rc 0
expect_out "\"handle\":\"$F\",\"ino\":$FI,\"generation\":$FG,\"nlink\":null,\"gone\":false,\"names\":[],\"names_complete\":false"
chmod 0700 "$T"
t_end
