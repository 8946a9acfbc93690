#!/bin/sh
# vbjournald's messages carry syslog priorities: on systemd's journal
# stream (JOURNAL_STREAM names standard error's device and inode) each
# line starts with sd-daemon's "<N>" and no program name; elsewhere with
# "vbjournald: " and no number.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

D="$VBJ_BIN/vbjournald"

# the stream systemd would give: a file whose DEV:INO is in JOURNAL_STREAM
: >"$T/err"
stream=$(stat -c '%d:%i' "$T/err")

t_begin "on the journal stream: <3> for an error"
JOURNAL_STREAM=$stream "$D" --fs / --journal "$T/j" --interval 5x \
	>"$T/out" 2>>"$T/err"
rc=$?
expect_rc 2
expect_err "<3>--interval: '5x' is not a time"
grep -q '^<3>vbjournald' "$T/err" && t_fail "the program's name after <3>"
t_end

t_begin "on the journal stream: a config file's error is <3> FILE:LINE"
printf 'fs /\njournal %s\nfrobnicate 1\n' "$T/j" >"$T/conf"
: >"$T/err"
stream=$(stat -c '%d:%i' "$T/err")
JOURNAL_STREAM=$stream "$D" --config "$T/conf" >"$T/out" 2>>"$T/err"
rc=$?
expect_rc 2
expect_err "<3>$T/conf:3: unknown key 'frobnicate'"
t_end

t_begin "another stream (a file, a terminal): no <N>"
run env JOURNAL_STREAM=1:1 "$D" --fs / --journal "$T/j" --interval 5x
expect_rc 2
expect_err "vbjournald: --interval: '5x' is not a time"
grep -q '^<' "$T/err" && t_fail "a <N> prefix off the journal stream"
t_end
