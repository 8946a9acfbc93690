#!/bin/sh
# vbjournal mirror SRC DST: the first run copies the tree whole from a
# cursor taken before; later runs copy what the journal's answer names
# (dir: its entries, moved: its subtree, a directory the mirror never
# had: whole, file: its names), a rescan a full run; and the copy must
# then equal the tree, as vbj-treecmp (not rsync) sees it: names with a
# newline or bytes that are not UTF-8, a file replaced by a directory
# and back, a subtree moved, a file written through one of its hard
# links. Leaving out a kind of entry (VBJOURNAL_MIRROR_SKIP) must leave
# a difference: the check can fail. The journals hold real handles of
# directories on the host's filesystem (root).
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

C=00000000000000aa
J=$T/j

t_begin "mirror: usage"
run vbjournal mirror
expect_rc 2
expect_err "mirror needs SRC DST"
run vbjournal mirror "$T" "$T/x" --bogus
expect_rc 2
run vbjournal mirror --help
expect_rc 0
expect_out "usage: vbjournal [--journal DIR] mirror SRC DST"
[ ! -e "$T/x" ] || t_fail "--help made DST"
run vbjournal --help
expect_out "  mirror SRC DST"
run vbjournal --journal "$T/none" mirror "$T" "$T/in"
expect_rc 2
expect_err "one inside the other"
t_end

if [ "$(id -u)" != 0 ] || ! "$VBJ_HELPERS/vbj-handle" "$T" >/dev/null 2>&1 ||
	! command -v rsync >/dev/null; then
	t_begin "mirror: runs"
	t_skip "needs root, file handles and rsync"
	exit 0
fi

treecmp() {
	"$VBJ_HELPERS/vbj-treecmp" "$@" >"$T/cmp" 2>&1
}

# expect_same A B / expect_differ A B
expect_same() {
	treecmp "$1" "$2" && return 0
	t_fail "the copy differs"
	head -n 20 "$T/cmp" | sed 's/^/#   /'
	t_show
}

expect_differ() {
	! treecmp "$1" "$2" && return 0
	t_fail "no difference found: $(cat "$T/cmp")"
}

R=$(cd -P "$T" && pwd)/fs
S=$R/src D=$T/copy
nl='
'
mkdir -p "$S/d1" "$S/d2/x.dir" "$S/mv/sub" "$S/h1" "$S/h2" "$S/keep"
echo aaaa >"$S/d1/a"
echo bbbb >"$S/d1/b"
echo xxxx >"$S/d2/x"
echo inner >"$S/d2/x.dir/in"
echo yyyy >"$S/mv/sub/y"
echo same >"$S/keep/k"
echo link >"$S/h1/f"
ln "$S/h1/f" "$S/h2/g"
chmod 640 "$S/d1/b"
command -v setfattr >/dev/null && setfattr -n user.t -v one "$S/d1/a"
mkjournal "$J" <<EOT
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '$R');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 0);
EOT

# The rsync the mirror runs, with a look at the journal first: a full
# run (no --files-from) adds the consumers as it finds them to $T/spy,
# which shows whether the journal keeps what comes after the run's
# cursor while it copies; an incremental one, with SPY_TRIM set, first
# closes epochs SPY_TRIM and trims the journal as vbjournald's size cap
# does (vbj-mkjournal DIR MAX_CHANGES MAX_BYTES).
cat >"$T/rsync-spy" <<EOS
#!/bin/sh
full=1
for a; do case \$a in --files-from=*) full= ;; esac; done
if [ -n "\$full" ]; then
	"$VBJ_BIN/vbjournal" --journal "$J" consumers >>"$T/spy" || exit 99
elif [ -n "\${SPY_TRIM:-}" ]; then
	echo "\$SPY_TRIM" | "$VBJ_HELPERS/vbj-mkjournal" "$J" 1000000 1 || exit 99
fi
exec rsync "\$@"
EOS
chmod +x "$T/rsync-spy"

# expect_spy LINE: what a full run found in the journal as it copied
expect_spy() {
	grep -qF -- "$1" "$T/spy" && return 0
	t_fail "the full run did not find '$1' in the journal"
	sed 's/^/#   spy: /' "$T/spy"
}

# close_with_change N HANDLE PATH: epoch N closed (N + 1 opened), with
# a change of the directory HANDLE (hex) at PATH in it
close_with_change() {
	mkjournal "$J" <<EOT
INSERT INTO epochs(epoch, state) VALUES($(($1 + 1)), 0);
UPDATE epochs SET state = 1 WHERE epoch = $1;
INSERT INTO changes(epoch, fs, handle, path) VALUES ($1, 1, x'$2', '$3');
EOT
}

t_begin "mirror: the first run copies everything, from a cursor taken first"
: >"$T/spy"
VBJOURNAL_RSYNC=$T/rsync-spy run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_out "$C:1"
expect_err "first run: cursor $C:1 taken; full copy of $S"
expect_same "$S" "$D"
# registered at the cursor before the copy began
expect_spy "mirror epoch 1 lag 0"
run vbjournal --journal "$J" consumers
expect_out "mirror epoch 1 lag 0"
t_end

# epoch 2: changes the journal names
printf 'AAAA\n' >"$S/d1/a"		# same size, same second
touch -r "$D/d1/a" "$S/d1/a"
rm "$S/d1/b"
printf 'n\n' >"$S/d1/new${nl}line"
printf 'u\n' >"$S/d1/bad$(printf '\377\376')"
rm "$S/d2/x"
mkdir "$S/d2/x"
echo z >"$S/d2/x/z"
rm -r "$S/d2/x.dir"
echo nowfile >"$S/d2/x.dir"
mv "$S/mv" "$S/d2/mv2"
echo more >>"$S/d2/mv2/sub/y"
printf 'LINK\n' >"$S/h1/f"
touch -r "$D/h1/f" "$S/h1/f"
HR=$(handle "$S") H1=$(handle "$S/d1") H2=$(handle "$S/d2") HM=$(handle "$S/d2/mv2")
HH1=$(handle "$S/h1") HH2=$(handle "$S/h2") F=$(handle "$S/h1/f") FI=$(ino "$S/h1/f")
mkjournal "$J" <<EOT
INSERT INTO epochs(epoch, state) VALUES(3, 0);
UPDATE epochs SET state = 1 WHERE epoch = 2;
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(2, 1, x'$HR', '$S'), (2, 1, x'$H1', '$S/d1'), (2, 1, x'$H2', '$S/d2'),
	(2, 1, x'$HH1', '$S/h1');
INSERT INTO moves(epoch, fs, handle, path) VALUES (2, 1, x'$HM', '$S/d2/mv2');
INSERT INTO objects(epoch, fs, handle, ino, generation) VALUES (2, 1, x'$F', $FI, 0);
INSERT INTO object_dirs(fs, handle, dir, epoch) VALUES
	(1, x'$F', x'$HH1', 2), (1, x'$F', x'$HH2', 2);
EOT
cp -a "$D" "$T/before"

t_begin "mirror: each kind of entry left out leaves a difference"
for k in dir moved,new file; do
	rm -rf "$T/ctl"
	cp -a "$T/before" "$T/ctl"
	VBJOURNAL_MIRROR_SKIP=$k run vbjournal --journal "$J" mirror "$S" "$T/ctl"
	expect_rc 0
	expect_differ "$S" "$T/ctl"
done
t_end

t_begin "mirror: dir, moved, file entries and new directories, then equal"
run vbjournal --journal "$J" mirror "$S" "$D" --verbose
expect_rc 0
expect_out "$C:2"
expect_err "$C:1 to $C:2: 4 directories"
expect_no_out "full"
expect_same "$S" "$D"
run vbjournal --journal "$J" consumers
expect_out "mirror epoch 2 lag 0"
t_end

t_begin "mirror: a directory replaced by a file and back"
rm -r "$S/d2/x"
echo nowfile >"$S/d2/x"
rm "$S/d2/x.dir"
mkdir -p "$S/d2/x.dir/deep"
echo d >"$S/d2/x.dir/deep/d"
close_with_change 3 "$H2" "$S/d2"
run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_out "$C:3"
expect_same "$S" "$D"
t_end

t_begin "mirror: rsync fails: exit 10, the cursor stays"
echo later >"$S/keep/k2"
close_with_change 4 "$(handle "$S/keep")" "$S/keep"
VBJOURNAL_RSYNC=false run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 10
expect_err "the cursor stays at $C:3"
grep -q "^cursor $C:3\$" "$D/.vbjournal-mirror/state" || t_fail "state moved"
run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_out "$C:4"
expect_same "$S" "$D"
t_end

t_begin "mirror: a rescan of the filesystem: a full run, the consumer kept at the old cursor"
echo unseen >"$S/keep/unnamed"
mkjournal "$J" <<EOT
INSERT INTO epochs(epoch, state) VALUES(6, 0);
UPDATE epochs SET state = 1 WHERE epoch = 5;
INSERT INTO gaps(epoch, fs, scope, reason, path) VALUES (5, 1, 'fs', 'daemon_died', '$R');
EOT
# acked ahead of what the copy holds (by hand, say): the full run puts
# it back at the copy's cursor until the copy is done
run vbjournal --journal "$J" ack mirror "$C:5"
expect_rc 0
: >"$T/spy"
VBJOURNAL_RSYNC=$T/rsync-spy run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_err "the journal requires a rescan"
expect_out "$C:5"
expect_same "$S" "$D"
expect_spy "mirror epoch 4 lag 1"
run vbjournal --journal "$J" consumers
expect_out "mirror epoch 5 lag 0"
t_end

t_begin "mirror: a cursor of another journal: a full run"
sed -i "s/^cursor .*/cursor 00000000000000bb:5/" "$D/.vbjournal-mirror/state"
echo unseen2 >"$S/keep/unnamed2"
run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_err "full rescan required"
expect_same "$S" "$D"
t_end

t_begin "mirror: DST of another SRC is refused"
mkdir -p "$R/other"
run vbjournal --journal "$J" mirror "$R/other" "$D"
expect_rc 2
expect_err "mirrors $S, not $R/other"
t_end

t_begin "mirror: a named path rsync cannot read: a full run, not a failure"
# An answer's path can stop being a directory before rsync reads it
# (seen in make check's mirror crash: "link_stat .../d failed: Not a
# directory", exit 23 twice); --ignore-missing-args covers ENOENT only.
cat >"$T/rsync23" <<'EOS'
#!/bin/sh
for a; do case $a in --files-from=*) exit 23 ;; esac; done
exec rsync "$@"
EOS
chmod +x "$T/rsync23"
echo after >"$S/keep/k3"
HK=$(handle "$S/keep")
close_with_change 6 "$HK" "$S/keep"
VBJOURNAL_RSYNC=$T/rsync23 run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_err "a full run instead"
expect_out "$C:6"
expect_same "$S" "$D"
t_end

t_begin "mirror: a consumer unregistered between runs is registered again at the copy's cursor"
run vbjournal --journal "$J" unregister mirror
expect_rc 0
echo again >"$S/keep/k4"
close_with_change 7 "$HK" "$S/keep"
run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_out "$C:7"
expect_err "consumer mirror was not registered: registered again at $C:7"
expect_same "$S" "$D"
run vbjournal --journal "$J" consumers
expect_out "mirror epoch 7 lag 0"
t_end

t_begin "mirror: the journal trimmed past the cursor while rsync ran: done, the next run a full one"
echo trimmed >"$S/keep/k5"
close_with_change 8 "$HK" "$S/keep"
SPY_TRIM="UPDATE epochs SET state = 1 WHERE epoch = 9;
INSERT INTO epochs(epoch, state) VALUES(10, 1), (11, 0);" \
	VBJOURNAL_RSYNC=$T/rsync-spy run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_out "$C:8"
expect_err "the journal no longer holds the epochs after $C:8"
grep -q "^cursor $C:8\$" "$D/.vbjournal-mirror/state" || t_fail "state not at $C:8"
expect_same "$S" "$D"
# the consumer is not put where the journal cannot answer from
run vbjournal --journal "$J" consumers
expect_out "mirror epoch 7 "
echo after-trim >"$S/keep/k6"
: >"$T/spy"
VBJOURNAL_RSYNC=$T/rsync-spy run vbjournal --journal "$J" mirror "$S" "$D"
expect_rc 0
expect_err "full rescan required"
expect_out "$C:10"
expect_same "$S" "$D"
expect_spy "mirror epoch 10 lag 0"
run vbjournal --journal "$J" consumers
expect_out "mirror epoch 10 lag 0"
t_end
