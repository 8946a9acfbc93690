#!/bin/sh
# Command-line conventions (util-linux's): --help and --version work
# with no journal and no module, touch nothing and exit 0; --journal=DIR
# goes anywhere; every usage error says what is wrong and exits 2 (a
# malformed cursor too: 3 is for a cursor the journal cannot answer);
# every long option --help lists is documented in the man page.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

man=$(cd "$(dirname "$0")/../../man" && pwd)
C=00000000000000aa:1
mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES(2, 1, x'01', '/srv/a');
INSERT INTO consumers(name, epoch) VALUES('backup', 1);
EOT

# info NAME TEXT CMD...: prints TEXT on stdout, nothing on stderr, exit
# 0, and creates no journal at $T/new
info() {
	t_begin "$1"
	text=$2
	shift 2
	run "$@"
	expect_rc 0
	expect_out "$text"
	[ ! -s "$T/err" ] || { t_fail "stderr is not empty"; t_show; }
	[ ! -e "$T/new" ] || t_fail "it created $T/new"
	t_end
}

info "vbjournal --help" "usage: vbjournal" vbjournal --journal "$T/new" --help
info "vbjournal changes --help" "usage: vbjournal" vbjournal changes --help
info "vbjournal --version" "vbjournal " vbjournal --version
info "vbjournald --help" "usage: vbjournald" "$VBJ_BIN/vbjournald" \
	--fs / --journal "$T/new" --help
info "vbjournald --version" "vbjournald " "$VBJ_BIN/vbjournald" --version
info "vbctl --version" "vbctl " "$VBJ_BIN/vbctl" --version

t_begin "--journal=DIR after the command"
run vbjournal changes --since "$C" --journal="$T/j"
expect_rc 0
expect_out "dir /srv/a"
t_end

t_begin "--journal between the options"
run vbjournal changes --json --journal "$T/j" --since="$C"
expect_rc 0
expect_out '"path":"/srv/a"'
t_end

# usage NAME MESSAGE ARGS...: vbjournal ARGS is a usage error saying it
usage() {
	t_begin "$1"
	msg=$2
	shift 2
	run vbjournal --journal "$T/j" "$@"
	expect_rc 2
	expect_err "$msg"
	[ ! -s "$T/out" ] || { t_fail "an answer on stdout"; t_show; }
	t_end
}

usage "no command" "no command" 
usage "an unknown command" "unknown command 'frob'" frob
usage "an unknown option" "unknown option '--bogus'" changes --since "$C" --bogus
usage "an option without its value" "--since needs a value" changes --since
usage "changes without a cursor" "changes needs --since CURSOR or --consumer NAME" changes
usage "both a cursor and a consumer" "--since or --consumer, not both" \
	changes --since "$C" --consumer backup
usage "an argument too many" "cursor takes no argument" cursor extra
usage "register without a name" "register needs NAME" register
usage "ack without a cursor" "ack needs NAME CURSOR" ack backup
usage "an option that does not apply" "--under does not apply to status" \
	status --under /
usage "--json where there is none" "--json does not apply to cursor" \
	cursor --json
usage "a malformed cursor" "'garbage' is not a cursor" changes --since garbage
usage "a cursor with junk" "is not a cursor" changes --since "$C"x
usage "a cursor without its epoch" "is not a cursor" changes --since 00aa:
usage "a negative epoch" "is not a cursor" changes --since 00aa:-1
usage "a malformed cursor to follow" "is not a cursor" follow --since 1:2:3
usage "a malformed cursor to ack" "is not a cursor" ack backup x:1

# dusage NAME MESSAGE ARGS...: the same for vbjournald
dusage() {
	t_begin "$1"
	msg=$2
	shift 2
	run "$VBJ_BIN/vbjournald" "$@"
	expect_rc 2
	expect_err "$msg"
	t_end
}
dusage "vbjournald: an unknown option" "unknown option '--bogus'" --bogus
dusage "vbjournald: an option without its value" "--fs needs a value" --fs
dusage "vbjournald: an argument" "unexpected argument 'extra'" \
	--fs / --journal "$T/new" extra

# documented TOOL PAGE HELP-CMD...: each --option in the help is in PAGE
documented() {
	t_begin "$1: every option of --help in $2"
	page=$2
	shift 2
	run "$@"
	expect_rc 0
	grep -o -- '--[a-z][a-z-]*' "$T/out" | sort -u >"$T/opts"
	[ -s "$T/opts" ] || t_fail "no option found in the help"
	while read -r opt; do
		esc=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$man/$page" || t_fail "$opt not in $page"
	done <"$T/opts"
	t_end
}
documented vbjournal vbjournal.1 vbjournal --help
documented vbjournald vbjournald.8 "$VBJ_BIN/vbjournald" --help
documented vbctl vbctl.8 "$VBJ_BIN/vbctl" --help
