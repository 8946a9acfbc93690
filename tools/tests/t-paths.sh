#!/bin/sh
# Paths in answers are the tree's when asked: each directory's handle
# is opened (open_by_handle_at, root) and its path read back; the path
# the daemon stored when it committed is only the fallback, and said
# to be ("(stored path)"; JSON "path_source"); a directory that no
# longer exists is said to be gone. The journals here hold real
# handles of directories on the host's filesystem.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

C=00000000000000aa:1
if [ "$(id -u)" != 0 ] || ! "$VBJ_HELPERS/vbj-handle" "$T" >/dev/null 2>&1; then
	t_begin "paths from handles"
	t_skip "needs root and a filesystem with file handles"
	exit 0
fi
R=$(cd -P "$T" && pwd)/fs
mkdir -p "$R/old" "$R/rm" "$R/mv/sub" "$R/stay"
HO=$(handle "$R/old") HR=$(handle "$R/rm") HM=$(handle "$R/mv")
HS=$(handle "$R/stay")
mkjournal "$T/j" <<EOT
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '$R');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(2, 1, x'$HO', '$R/old'), (2, 1, x'$HR', '$R/rm'),
	(2, 1, x'$HS', '$R/stay'), (2, 1, x'01', '/srv/x'), (2, 1, x'02', '');
INSERT INTO moves(epoch, fs, handle, path) VALUES (2, 1, x'$HM', '$R/mv');
EOT
# after the daemon stored their paths: renamed, removed
mv "$R/old" "$R/new"
mv "$R/mv" "$R/stay/mv2"
rmdir "$R/rm"

t_begin "a directory renamed since: its path now"
run vbjournal --journal "$T/j" changes --since "$C"
expect_rc 0
expect_line "dir $R/new"
expect_no_out "$R/old"
expect_line "dir $R/stay"
t_end

t_begin "a moved directory: its path now"
run vbjournal --journal "$T/j" changes --since "$C"
expect_line "moved $R/stay/mv2"
expect_no_line "moved $R/mv"
t_end

t_begin "a handle that cannot be opened: the stored path, said"
run vbjournal --journal "$T/j" changes --since "$C"
expect_line "dir /srv/x (stored path)"
t_end

t_begin "a directory that no longer exists: gone"
run vbjournal --journal "$T/j" changes --since "$C"
expect_line "dir $R/rm (gone)"
t_end

t_begin "in JSON: path_source and gone"
run vbjournal --journal "$T/j" changes --since "$C" --json
expect_rc 0
expect_out "{\"path\":\"$R/new\",\"path_source\":\"handle\",\"gone\":false,\"fs\":1,\"handle\":\"$HO\"}"
expect_out "{\"path\":\"/srv/x\",\"path_source\":\"stored\",\"gone\":false,\"fs\":1,\"handle\":\"01\"}"
expect_out "{\"path\":\"$R/rm\",\"path_source\":\"stored\",\"gone\":true,\"fs\":1,\"handle\":\"$HR\"}"
expect_out "{\"path_source\":\"none\",\"gone\":false,\"fs\":1,\"handle\":\"02\"}"
expect_out "\"moved\":[{\"path\":\"$R/stay/mv2\",\"path_source\":\"handle\""
t_end

t_begin "not root: every path is the stored one, said"
mkdir "$T/ro"
cp -r "$T/j" "$T/ro/j"
chmod 0755 "$T" "$T/ro" "$T/ro/j"
chmod 0644 "$T/ro/j/journal.db"
run setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$VBJ_BIN/vbjournal" --journal "$T/ro/j" changes --since "$C"
expect_rc 0
expect_line "dir $R/old (stored path)"
expect_line "moved $R/mv (stored path)"
chmod 0700 "$T"
t_end

# --under asks about the tree as it is: a directory renamed into the
# subtree, or whose ancestors were renamed, is under its path now
mkdir -p "$R/x/D" "$R/p/q/r" "$R/sub" "$R/z"
HD=$(handle "$R/x/D") HQ=$(handle "$R/p/q/r") HP=$(handle "$R/p")
mkjournal "$T/u" <<EOT
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '$R');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(2, 1, x'$HD', '$R/x/D'), (2, 1, x'$HQ', '$R/p/q/r'),
	(2, 1, x'01', '$R/sub/stored');
INSERT INTO moves(epoch, fs, handle, path) VALUES (2, 1, x'$HP', '$R/p');
EOT
mv "$R/x/D" "$R/sub/D2"
mv "$R/p" "$R/z/p2"

t_begin "--under: a directory renamed into the subtree is in it"
run vbjournal --journal "$T/u" changes --since "$C" --under "$R/sub"
expect_rc 0
expect_line "dir $R/sub/D2"
expect_line "dir $R/sub/stored (stored path)"
expect_no_out "$R/z"
run vbjournal --journal "$T/u" changes --since "$C" --under "$R/x"
expect_rc 0
expect_no_out "dir "
t_end

t_begin "--under: a directory whose ancestor was renamed, at its path now"
run vbjournal --journal "$T/u" changes --since "$C" --under "$R/z"
expect_rc 0
expect_line "dir $R/z/p2/q/r"
expect_line "moved $R/z/p2"
expect_no_out "$R/sub"
run vbjournal --journal "$T/u" changes --since "$C" --under "$R/z/p2/q"
expect_line "dir $R/z/p2/q/r"
expect_line "moved $R/z/p2"
run vbjournal --journal "$T/u" changes --since "$C" --under "$R/p"
expect_no_out "dir "
expect_no_out "moved "
t_end

# the filesystem the daemon saw (filesystems.ident), or another mounted
# at its place since: there its handles mean nothing
t_begin "another filesystem at the mount point: stored paths, none gone"
cp -r "$T/j" "$T/other"
echo "UPDATE filesystems SET ident = 'fsid:0000000000000001';" |
	mkjournal "$T/other"
run vbjournal --journal "$T/other" changes --since "$C"
expect_rc 0
expect_line "dir $R/old (stored path)"
expect_line "dir $R/rm (stored path)"
expect_no_out "(gone)"
t_end

t_begin "the filesystem the daemon saw: paths from handles"
cp -r "$T/j" "$T/same"
echo "UPDATE filesystems SET ident = 'fsid:$(printf '%016x' \
	"0x$(stat -f -c %i "$R")")';" | mkjournal "$T/same"
run vbjournal --journal "$T/same" changes --since "$C"
expect_rc 0
expect_line "dir $R/new"
expect_line "dir $R/rm (gone)"
t_end
