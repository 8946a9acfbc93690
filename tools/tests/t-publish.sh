#!/bin/sh
# vbjournal-publish without a Redis server: --help and --version touch
# nothing; every usage error exits 2; a missing journal 4; an engine
# that cannot be reached exits 10 with nothing acknowledged (and, as the
# negative control, --test-ack-first acknowledges all the same); one
# that refuses (a fake server answering an error) exits 11 with nothing
# acknowledged; against a stand-in that confirms (fakeredis.py), a
# consumer acknowledged ahead meanwhile is moved back, and an epoch the
# journal trimmed past as it was published is not acknowledged and a
# rescan entry follows; completion and the man page list what --help
# lists.
# The real server's tests are in the guest (selftests/test_publish.c).
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
man=$(cd "$here/../../man" && pwd)
pub=$VBJ_BIN/vbjournal-publish
if [ ! -x "$pub" ]; then
	t_begin "vbjournal-publish"
	t_skip "not built (no libhiredis-dev)"
	exit 0
fi

mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/srv');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES(2, 1, x'01', '/srv/a');
INSERT INTO consumers(name, epoch) VALUES('publish', 0), ('neg', 0);
EOT

# acked NAME: the consumer's epoch in $T/j
acked() {
	"$VBJ_BIN/vbjournal" --journal "$T/j" consumers |
		sed -n "s/^$1 epoch \([0-9]*\) .*/\1/p"
}

for o in --help --version; do
	t_begin "vbjournal-publish $o: exit 0, nothing touched"
	run "$pub" --journal "$T/new" "$o"
	expect_rc 0
	expect_out "vbjournal-publish"
	[ ! -s "$T/err" ] || { t_fail "stderr is not empty"; t_show; }
	[ ! -e "$T/new" ] || t_fail "it created $T/new"
	t_end
done

# usage NAME TEXT ARGS...: exit 2, TEXT on stderr, no journal touched
usage() {
	t_begin "usage: $1"
	text=$2
	shift 2
	run "$pub" --journal "$T/new" "$@"
	expect_rc 2 && expect_err "$text"
	[ ! -e "$T/new" ] || t_fail "it created $T/new"
	t_end
}
usage "no --redis" "--redis ADDR is required" --once
usage "an unknown option" "unknown option '--bogus'" --redis /s --bogus
usage "an argument" "takes no argument ('extra')" --redis /s extra
usage "a value missing" "--redis needs a value" --redis
usage "an empty host" "not HOST[:PORT]" --redis :6379
usage "a port out of range" "not HOST[:PORT]" --redis h:65536
usage "a port that is no number" "not HOST[:PORT]" --redis h:12x
usage "a bad time" "--retry-timeout: '5 s'" --redis /s --retry-timeout "5 s"
usage "a negative time" "--retry-timeout: '-1'" --redis /s --retry-timeout -1
usage "no replicas" "--replicas: '0'" --redis /s --replicas 0
usage "--wait-timeout alone" "applies to --replicas only" --redis /s --wait-timeout 1s
usage "an empty stream" "--stream: an empty key" --redis /s --stream ""
usage "an empty consumer" "--consumer: an empty name" --redis /s --consumer ""
usage "--test-die-after 0" "--test-die-after: '0'" --redis /s --test-die-after 0

t_begin "a missing journal: exit 4"
run "$pub" --journal "$T/none" --redis "$T/no.sock" --once
expect_rc 4
t_end

t_begin "an unreachable engine: exit 10, nothing acknowledged"
run "$pub" --journal "$T/j" --redis "unix:$T/no.sock" --once --retry-timeout 300ms
expect_rc 10 && expect_err "did not confirm 00000000000000aa:1 within 300 ms"
[ "$(acked publish)" = 0 ] || t_fail "the consumer is at $(acked publish), not 0"
t_end

# the negative control: the check above can fail
t_begin "negative control: --test-ack-first acknowledges what was not published"
run "$pub" --journal "$T/j" --consumer neg --redis "$T/no.sock" --once \
	--retry-timeout 100ms --test-ack-first
expect_rc 10
[ "$(acked neg)" = 1 ] || t_fail "neg is at '$(acked neg)', not 1: the control shows nothing"
t_end

t_begin "a new consumer is registered at the current cursor"
run "$pub" --journal "$T/j" --consumer fresh --redis "$T/no.sock" --once
expect_rc 0 && expect_err "registered consumer fresh at 00000000000000aa:2"
[ "$(acked fresh)" = 2 ] || t_fail "fresh is at '$(acked fresh)'"
t_end

# a fake server that answers every command with an error
if command -v python3 >/dev/null; then
	t_begin "a refusing engine: exit 11, nothing acknowledged"
	python3 - "$T/fake.sock" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
c, _ = s.accept()
c.recv(65536)
c.sendall(b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n")
c.recv(65536)
PY
	fake=$!
	i=0
	while [ ! -S "$T/fake.sock" ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	run "$pub" --journal "$T/j" --redis "$T/fake.sock" --once
	expect_rc 11 && expect_err "the engine refused 00000000000000aa:1: WRONGTYPE"
	[ "$(acked publish)" = 0 ] || t_fail "the consumer is at $(acked publish), not 0"
	kill "$fake" 2>/dev/null
	wait "$fake" 2>/dev/null
	t_end

	# fake_start: a stand-in for Redis that confirms every entry
	# (fakeredis.py), its log of what it was sent in $T/sent
	fake_start() {
		rm -f "$T/redis.sock" "$T/sent"
		: >"$T/sent"
		python3 "$here/fakeredis.py" "$T/redis.sock" "$T/sent" &
		fake=$!
		i=0
		while [ ! -S "$T/redis.sock" ] && [ $i -lt 100 ]; do
			sleep 0.05
			i=$((i + 1))
		done
	}
	fake_stop() {
		kill "$fake" 2>/dev/null
		wait "$fake" 2>/dev/null
	}
	# hook FILE: a script of stdin's commands, for FAKE_HOOK_N
	hook() {
		{ echo "#!/bin/sh"; cat; } >"$1" && chmod +x "$1"
	}

	t_begin "acknowledged ahead meanwhile: moved back to what was published"
	# by hand, or by another publisher of the same name: the journal
	# must keep what this one has not published
	echo "INSERT INTO consumers(name, epoch) VALUES('back', 0);" |
		mkjournal "$T/j"
	hook "$T/ack-ahead" <<EOS
"$VBJ_BIN/vbjournal" --journal "$T/j" ack back 00000000000000aa:2
EOS
	hook "$T/look" <<EOS
"$VBJ_BIN/vbjournal" --journal "$T/j" consumers >"$T/spy"
EOS
	FAKE_HOOK_1=$T/ack-ahead FAKE_HOOK_2=$T/look
	export FAKE_HOOK_1 FAKE_HOOK_2
	fake_start
	unset FAKE_HOOK_1 FAKE_HOOK_2
	run "$pub" --journal "$T/j" --consumer back --redis "$T/redis.sock" --once
	fake_stop
	expect_rc 0 && expect_out "published 00000000000000aa:2 epoch"
	grep -q "^back epoch 1 " "$T/spy" ||
		t_fail "as epoch 2 was published: $(grep '^back' "$T/spy")"
	[ "$(acked back)" = 2 ] || t_fail "back is at '$(acked back)', not 2"
	t_end

	t_begin "the journal trimmed past an epoch as it was published: not acknowledged, then a rescan entry"
	mkjournal "$T/t" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/srv');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES(2, 1, x'01', '/srv/a');
INSERT INTO consumers(name, epoch) VALUES('publish', 0);
EOT
	# as vbjournald's size cap does: epochs 3 and 4 closed, all but
	# the last closed one dropped
	hook "$T/trim" <<EOS
"$VBJ_HELPERS/vbj-mkjournal" "$T/t" 1000000 1 <<EOT
UPDATE epochs SET state = 1 WHERE epoch = 3;
INSERT INTO epochs(epoch, state) VALUES(4, 1), (5, 0);
EOT
EOS
	FAKE_HOOK_1=$T/trim
	export FAKE_HOOK_1
	fake_start
	unset FAKE_HOOK_1
	run "$pub" --journal "$T/t" --redis "$T/redis.sock" --once
	expect_rc 0
	expect_err "00000000000000aa:1 not acknowledged: the epochs after the cursor were trimmed"
	"$VBJ_BIN/vbjournal" --journal "$T/t" consumers >"$T/spy"
	grep -q "^publish epoch 0 " "$T/spy" ||
		t_fail "the consumer moved to a trimmed cursor: $(cat "$T/spy")"
	# the next run: a rescan entry for what was trimmed, then epoch 4
	run "$pub" --journal "$T/t" --redis "$T/redis.sock" --once
	fake_stop
	expect_rc 0 && expect_out "published 00000000000000aa:3 rescan" &&
		expect_out "published 00000000000000aa:4 epoch"
	"$VBJ_BIN/vbjournal" --journal "$T/t" consumers >"$T/spy"
	grep -q "^publish epoch 4 " "$T/spy" ||
		t_fail "the consumer is not at 4: $(cat "$T/spy")"
	t_end
else
	t_begin "a refusing engine"
	t_skip "no python3 for the fake server"
fi

t_begin "completion offers the options --help lists"
"$pub" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$T/want"
PATH=$VBJ_BIN:$PATH bash "$here/complete.bash" \
	"$here/../publish/vbjournal-publish.bash-completion" vbjournal-publish -- |
	sort >"$T/got"
cmp -s "$T/want" "$T/got" || {
	t_fail "completion and --help differ (< --help, > completion)"
	diff "$T/want" "$T/got" | grep '^[<>]' | sed 's/^/#   /'
}
t_end

t_begin "the man page documents every option"
for o in $(cat "$T/want") --test-die-after --test-ack-first; do
	grep -qF -- "$(echo "$o" | sed 's/-/\\-/g')" "$man/vbjournal-publish.1" ||
		t_fail "vbjournal-publish(1) lacks $o"
done
t_end
