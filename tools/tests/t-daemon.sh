#!/bin/sh
# What vbjournald does before it has the device, and how vbjournal finds
# it: one daemon per journal (a lock in the journal's directory, taken
# first); no module: it says so and creates no journal; vbjournal
# checkpoint signals only the process that holds that lock, and status
# says "running" only for it (a pid in the journal, after a reboot or a
# crash, may be anyone's).
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

D="$VBJ_BIN/vbjournald"

t_begin "no module: no journal created"
if [ -e /dev/vfsbarrier ]; then
	t_skip "/dev/vfsbarrier exists here"
else
	run "$D" --fs / --journal "$T/new"
	expect_rc 1
	expect_err "is the vfsbarrier module loaded?"
	[ ! -e "$T/new/journal.db" ] || t_fail "journal.db was created"
	t_end
fi

mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 0);
INSERT INTO meta(key, value) VALUES('session_clean', '0');
EOT

# A process that is not vbjournald, with the journal's pid: what a
# reboot or a crash leaves behind. SIGUSR1 would end it.
sleep 60 &
other=$!
echo "INSERT OR REPLACE INTO meta(key, value) VALUES('pid', '$other');" |
	mkjournal "$T/j"

t_begin "status with no daemon: not running"
run vbjournal --journal "$T/j" status
expect_rc 0
expect_no_out "daemon running"
expect_out "daemon not running"
t_end

t_begin "checkpoint with no daemon signals nobody"
run vbjournal --journal "$T/j" checkpoint
expect_rc 1
expect_err "not running"
kill -0 "$other" 2>/dev/null || t_fail "it signalled pid $other, not a daemon"
t_end
kill "$other" 2>/dev/null

if ! command -v python3 >/dev/null 2>&1; then
	t_begin "a daemon holding the lock"
	t_skip "no python3 to hold the lock"
	exit 0
fi

# A stand-in for the daemon: holds the journal's lock as vbjournald does
# (fcntl, whole file), and on SIGUSR1 closes an epoch, as a checkpoint
# would.
python3 - "$T/j" "$T/ready" <<'EOP' &
import fcntl, os, signal, sqlite3, sys, time
d = sys.argv[1]
fd = os.open(os.path.join(d, "vbjournald.lock"), os.O_RDWR | os.O_CREAT, 0o600)
fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
def usr1(sig, frame):
    db = sqlite3.connect(os.path.join(d, "journal.db"))
    db.execute("UPDATE epochs SET state = 1 WHERE epoch = 2")
    db.execute("INSERT INTO epochs(epoch, state) VALUES(3, 0)")
    db.commit()
    db.close()
signal.signal(signal.SIGUSR1, usr1)
open(sys.argv[2], "w").close()
time.sleep(30)
EOP
holder=$!
i=0
while [ ! -e "$T/ready" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done

t_begin "a second daemon on the journal is refused"
run "$D" --fs / --journal "$T/j"
expect_rc 1
expect_err "in use by another vbjournald (pid $holder)"
t_end

t_begin "status: running, with the lock holder's pid"
run vbjournal --journal "$T/j" status
expect_rc 0
expect_out "daemon running (pid $holder)"
t_end

t_begin "checkpoint signals the lock holder"
run vbjournal --journal "$T/j" checkpoint
expect_rc 0
expect_out "00000000000000aa:2"
t_end
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null || :
