#!/bin/sh
# vbjournald reads its options and its config file strictly: durations
# with units, booleans in any usual spelling, values with spaces; any
# unknown key, malformed or out-of-range value is fatal (exit 2, and
# "FILE:LINE: reason" for the file) before the journal or the device is
# touched. --check-config prints the settings it would run with.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

D="$VBJ_BIN/vbjournald"

# good NAME WANT-LINE... : the config in $T/conf gives those settings
good() {
	t_begin "$1"
	shift
	run "$D" --config "$T/conf" --check-config
	expect_rc 0
	for want in "$@"; do
		grep -qxF -- "$want" "$T/out" || { t_fail "no line '$want'"; t_show; }
	done
	[ ! -e "$T/j" ] || t_fail "the journal was created"
	t_end
}

# bad NAME MESSAGE ARGS...: vbjournald ARGS fails with exit 2 and
# MESSAGE, and touches nothing
bad() {
	t_begin "$1"
	msg=$2
	shift 2
	rm -rf "$T/j"
	run "$D" "$@"
	expect_rc 2
	expect_err "$msg"
	[ ! -e "$T/j" ] || t_fail "the journal was created"
	t_end
}

conf() {
	printf '%s\n' "$@" >"$T/conf"
}

conf "fs /srv/data" "journal $T/j" "fail-closed true" "refuse-unwaited 1"
good "booleans: true and 1" "fail-closed yes" "refuse-unwaited yes"
conf "fs /srv/data" "journal $T/j" "fail-closed no" "refuse-unwaited off"
good "booleans: no and off" "fail-closed no" "refuse-unwaited no"
conf "fs /srv/data" "journal $T/j" "interval 5s" "timeout 500ms"
good "durations with units" "interval 5000ms" "timeout 500ms"
conf "fs /srv/data" "journal $T/j" "interval 2m" "timeout 1500"
good "minutes, and bare milliseconds" "interval 120000ms" "timeout 1500ms"
conf "fs /srv/my data" "fs \"/srv/quoted path \"" "journal $T/j" \
	"  # an indented comment" "" "max-changes 1000000   "
good "values with spaces, quoted, comments, blank lines" \
	"fs /srv/my data" "fs /srv/quoted path " "max-changes 1000000"
conf "fs /srv/data" "journal $T/j"
good "defaults" "interval 5000ms" "timeout 10000ms" \
	"max-changes 10000000" "fail-closed no" "refuse-unwaited no" \
	"verbose no"
conf "fs /srv/data" "journal $T/j" "max-size 512M"
good "a byte cap with a unit" "max-size 536870912" "max-changes 10000000"
conf "fs /srv/data" "journal $T/j"
good "no byte cap by default" "max-size 0"

t_begin "--max-size after --config overrides it"
conf "fs /srv/data" "journal $T/j" "max-size 1G"
run "$D" --config "$T/conf" --max-size 2G --check-config
expect_rc 0
expect_out "max-size 2147483648"
t_end

conf "fs /srv/data" "journal $T/j" "verbose yes"
good "verbose: a line per checkpoint" "verbose yes"

t_begin "--verbose after --config overrides it"
conf "fs /srv/data" "journal $T/j" "verbose no"
run "$D" --config "$T/conf" --verbose --check-config
expect_rc 0
expect_out "verbose yes"
t_end

t_begin "the example config"
run "$D" --config "$(dirname "$0")/../journal/vbjournald.conf.example" \
	--check-config
expect_rc 0
expect_out "fs /srv/data"
t_end

t_begin "options after the file win"
conf "fs /srv/data" "journal $T/j" "interval 5s"
run "$D" --config "$T/conf" --interval 250ms --check-config
expect_rc 0
grep -qx "interval 250ms" "$T/out" || { t_fail "interval not 250ms"; t_show; }
t_end

conf "fs /srv/data" "journal $T/j" "fail-closed maybe"
bad "a boolean that is not one" "$T/conf:3: fail-closed: 'maybe' is not" \
	--config "$T/conf"
conf "fs /srv/data" "journal $T/j" "max-changes 1e6"
bad "a count in exponent form" "$T/conf:3: max-changes: '1e6'" \
	--config "$T/conf"
conf "fs /srv/data" "journal $T/j" "max-changes 0"
bad "a count of zero" "$T/conf:3: max-changes: '0'" --config "$T/conf"
conf "fs /srv/data" "journal $T/j" "max-size 512X"
bad "a size in unknown units" "$T/conf:3: max-size: '512X' is not a size" \
	--config "$T/conf"
bad "--max-size negative" "--max-size: '-1' is not a size" \
	--fs /srv/data --journal "$T/j" --max-size -1
conf "fs /srv/data" "journal $T/j" "interval 5 s"
bad "a duration with a space" "$T/conf:3: interval: '5 s'" --config "$T/conf"
conf "fs /srv/data" "journal $T/j" "interval 5y"
bad "a duration in unknown units" "$T/conf:3: interval: '5y'" \
	--config "$T/conf"
conf "fs /srv/data" "journal $T/j" "timeout 5000000000"
bad "a timeout out of range" "$T/conf:3: timeout: '5000000000'" \
	--config "$T/conf"
conf "fs /srv/data" "journal $T/j" "" "fail_closed yes"
bad "an unknown key" "$T/conf:4: unknown key 'fail_closed'" \
	--config "$T/conf"
conf "fs /srv/data" "journal $T/j" "interval"
bad "a key without a value" "$T/conf:3: interval: no value" \
	--config "$T/conf"
conf "fs \"/srv/data" "journal $T/j"
bad "an unclosed quote" "$T/conf:1: fs: unterminated quote" \
	--config "$T/conf"
bad "a config file that is not there" "$T/none" --config "$T/none"
bad "a negative interval" "--interval: '-5'" --fs /srv/data \
	--journal "$T/j" --interval -5
bad "a zero interval" "--interval: '0'" --fs /srv/data --journal "$T/j" \
	--interval 0
bad "an interval that is not a number" "--interval: 'soon'" \
	--fs /srv/data --journal "$T/j" --interval soon
bad "max-changes with junk" "--max-changes: '10x'" --fs /srv/data \
	--journal "$T/j" --max-changes 10x
bad "no filesystem" "no filesystem" --journal "$T/j"
bad "no journal" "no journal" --fs /srv/data
bad "seventeen filesystems" "at most 16" --journal "$T/j" \
	--fs /1 --fs /2 --fs /3 --fs /4 --fs /5 --fs /6 --fs /7 --fs /8 \
	--fs /9 --fs /10 --fs /11 --fs /12 --fs /13 --fs /14 --fs /15 \
	--fs /16 --fs /17

# vbctl takes numbers through the same parser
t_begin "vbctl: a malformed number"
run "$VBJ_BIN/vbctl" stream --count 1e6 /
expect_rc 2
expect_err "--count: '1e6'"
t_end
t_begin "vbctl: octal is not a thing"
run "$VBJ_BIN/vbctl" stream --count 010x /
expect_rc 2
expect_err "--count: '010x'"
t_end
