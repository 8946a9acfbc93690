#!/bin/sh
# Bash completion offers exactly what --help lists: for vbjournald every
# option; for vbjournal the commands, the options before a command and
# each command's options (those on its line of --help, and --journal,
# which goes anywhere); for vbctl the commands and each one's options
# (as `vbctl COMMAND --help` gives them).
# Then a few values (consumers for --consumer, mount points for --fs).
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
comp=$(cd "$here/../journal" && pwd)
vbctl_comp=$(cd "$here/../vbctl" && pwd)/vbctl.bash-completion

if ! command -v bash >/dev/null; then
	t_begin "completion"
	t_skip "no bash"
	exit 0
fi

# completions FILE WORD...: the replies, sorted, one a line, into $T/got
completions() {
	f=$1
	shift
	PATH=$VBJ_BIN:$PATH bash "$here/complete.bash" "$f" "$@" |
		sort >"$T/got"
}

# opts: the long options in stdin, sorted, one a line
opts() {
	grep -o -- '--[a-z][a-z-]*' | sort -u
}

# same NAME EXPECTED-FILE: $T/got is EXPECTED-FILE
same() {
	if ! cmp -s "$2" "$T/got"; then
		t_fail "$1: completion and --help differ (< --help, > completion)"
		diff "$2" "$T/got" | grep '^[<>]' | sed 's/^/#   /'
	fi
}

# vbjournald: every option of --help
t_begin "vbjournald: completion offers the options --help lists"
"$VBJ_BIN/vbjournald" --help | opts >"$T/want"
[ -s "$T/want" ] || t_fail "vbjournald --help lists no option"
completions "$comp/vbjournald.bash-completion" vbjournald --
same "vbjournald --" "$T/want"
t_end

t_begin "vbjournald: --fs again, the others once, --help alone"
completions "$comp/vbjournald.bash-completion" vbjournald --fs / --interval 5s --
grep -qx -- --fs "$T/got" || t_fail "--fs not offered again"
! grep -qx -- --interval "$T/got" || t_fail "--interval offered twice"
! grep -qx -- --help "$T/got" || t_fail "--help offered after options"
completions "$comp/vbjournald.bash-completion" vbjournald --help ""
[ ! -s "$T/got" ] || t_fail "something offered after --help: $(cat "$T/got")"
t_end

t_begin "vbjournald: --fs offers mount points"
completions "$comp/vbjournald.bash-completion" vbjournald --fs /
grep -qx / "$T/got" || t_fail "/ not offered"
! grep -qx /bin "$T/got" || grep -q ' /bin ' /proc/self/mountinfo ||
	t_fail "/bin offered: not a mount point"
t_end

# vbjournal: the help's sections
"$VBJ_BIN/vbjournal" --help >"$T/help"
# the commands: the words that begin the lines of "commands:"
sed -n '/^commands:/,/^$/p' "$T/help" | sed -n 's/^  \([a-z][a-z]*\).*/\1/p' |
	sort -u >"$T/cmds"

t_begin "vbjournal: completion offers the commands --help lists"
[ -s "$T/cmds" ] || t_fail "vbjournal --help lists no command"
completions "$comp/vbjournal.bash-completion" vbjournal ""
same "vbjournal <TAB>" "$T/cmds"
t_end

t_begin "vbjournal: before a command, the options --help lists"
# the usage lines and the section of options
{
	sed -n '1,/^commands:/p' "$T/help"
	sed -n '/^options/,/^$/p' "$T/help"
} | opts >"$T/want"
[ -s "$T/want" ] || t_fail "no options found in --help"
completions "$comp/vbjournal.bash-completion" vbjournal --
same "vbjournal --" "$T/want"
t_end

# each command: the options on its line, and --journal
all="$T/all"
: >"$all"
while read -r c; do
	t_begin "vbjournal $c: completion offers the options --help lists"
	{
		sed -n '/^commands:/,/^$/p' "$T/help" | grep "^  $c\\( \\|\$\\)"
		echo --journal
	} | opts >"$T/want"
	cat "$T/want" >>"$all"
	completions "$comp/vbjournal.bash-completion" vbjournal "$c" --
	same "vbjournal $c --" "$T/want"
	# with --journal before the command: the others
	completions "$comp/vbjournal.bash-completion" vbjournal --journal "$T" "$c" --
	grep -vx -- --journal "$T/want" >"$T/want2"
	same "vbjournal --journal DIR $c --" "$T/want2"
	t_end
done <"$T/cmds"

t_begin "vbjournal: every option of --help is offered somewhere"
opts <"$T/help" >"$T/want"
{
	cat "$all"
	completions "$comp/vbjournal.bash-completion" vbjournal --
	cat "$T/got"
} | sort -u >"$T/got2"
mv "$T/got2" "$T/got"
same "all" "$T/want"
t_end

t_begin "vbjournal: --since or --consumer, once each"
completions "$comp/vbjournal.bash-completion" vbjournal changes --since x:1 --
! grep -qx -- --consumer "$T/got" || t_fail "--consumer offered after --since"
! grep -qx -- --since "$T/got" || t_fail "--since offered twice"
grep -qx -- --under "$T/got" || t_fail "--under not offered"
t_end

t_begin "vbjournal: --consumer and ack offer the registered consumers"
mkjournal "$T/j" <<'EOT'
INSERT INTO epochs(epoch, state) VALUES(1, 1);
INSERT INTO consumers(name, epoch) VALUES('backup', 1), ('indexer', 1);
EOT
printf 'backup\nindexer\n' >"$T/want"
completions "$comp/vbjournal.bash-completion" vbjournal --journal "$T/j" changes --consumer ""
same "changes --consumer" "$T/want"
completions "$comp/vbjournal.bash-completion" vbjournal --journal="$T/j" ack ""
same "ack" "$T/want"
completions "$comp/vbjournal.bash-completion" vbjournal --journal "$T/j" ack backup ""
[ ! -s "$T/got" ] || t_fail "ack NAME: a consumer offered for the cursor"
t_end

# vbctl: its commands (vbctl --help) and each one's options (vbctl
# COMMAND --help: its usage line)
"$VBJ_BIN/vbctl" --help >"$T/help"
sed -n '/^commands:/,/^$/p' "$T/help" | sed -n 's/^  \([a-z][a-z]*\).*/\1/p' |
	sort -u >"$T/cmds"
t_begin "vbctl: completion offers the commands --help lists"
[ -s "$T/cmds" ] || t_fail "vbctl --help lists no command"
completions "$vbctl_comp" vbctl ""
same "vbctl <TAB>" "$T/cmds"
t_end
while read -r c; do
	t_begin "vbctl $c: completion offers the options --help lists"
	{
		"$VBJ_BIN/vbctl" "$c" --help
		echo --help
	} | opts >"$T/want"
	completions "$vbctl_comp" vbctl "$c" --
	same "vbctl $c --" "$T/want"
	t_end
done <"$T/cmds"
