#!/bin/sh
# Output that cannot be written is an error: each tool checks its
# writes to stdout up to the final flush and close, and says so on
# stderr with a non-zero exit (a consumer must not take a truncated
# answer for a whole one).
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

if [ ! -w /dev/full ]; then
	t_begin "writes to /dev/full"
	t_skip "no /dev/full"
	exit 0
fi
mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/srv/data');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES(2, 1, x'01', '/srv/data/a');
INSERT INTO gaps(epoch, fs, scope, reason, path)
	VALUES(2, 1, 'fs', 'overflow', '/srv/data');
INSERT INTO consumers(name, epoch) VALUES('backup', 1);
EOT

# full NAME CMD...: CMD with stdout on /dev/full fails and says why.
full() {
	t_begin "$1"
	shift
	"$@" >/dev/full 2>"$T/err"
	rc=$?
	: >"$T/out"
	if [ "$rc" = 0 ]; then
		t_fail "exit 0 with its output lost"
		t_show
	fi
	expect_err "write error"
	t_end
}

full "vbjournal changes" vbjournal --journal "$T/j" changes --since 00000000000000aa:1
full "vbjournal changes --json" vbjournal --journal "$T/j" changes --since 00000000000000aa:1 --json
full "vbjournal cursor" vbjournal --journal "$T/j" cursor
full "vbjournal status" vbjournal --journal "$T/j" status
full "vbjournal status --json" vbjournal --journal "$T/j" status --json
full "vbjournal consumers" vbjournal --journal "$T/j" consumers
full "vbjournal register" vbjournal --journal "$T/j" register other
full "vbctl --help" "$VBJ_BIN/vbctl" --help
full "vbctl stream --help" "$VBJ_BIN/vbctl" stream --help

# follow prints until interrupted: a write error must end it
t_begin "vbjournal follow stops on a write error"
timeout 10 "$VBJ_BIN/vbjournal" --journal "$T/j" follow \
	--since 00000000000000aa:1 >/dev/full 2>"$T/err"
rc=$?
: >"$T/out"
case $rc in
0 | 124) t_fail "exit $rc: it went on writing into the void"; t_show ;;
esac
expect_err "write error"
t_end

# vbjournald's own output: its help and its settings
full "vbjournald --help" "$VBJ_BIN/vbjournald" --help
full "vbjournald --version" "$VBJ_BIN/vbjournald" --version
full "vbjournald --check-config" "$VBJ_BIN/vbjournald" --fs /srv/data \
	--journal "$T/nj" --check-config
full "vbjournal --version" vbjournal --version
full "vbctl --version" "$VBJ_BIN/vbctl" --version
