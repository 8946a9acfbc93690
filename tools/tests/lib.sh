# shellcheck shell=sh
# Helpers for the host tests (run-host-tests.sh runs each t-*.sh with
# VBJ_BIN: the programs, VBJ_HELPERS: the test helpers). No module, no
# guest: what the tools do before and without the device.
#
# A test file is cases: t_begin NAME, checks, t_end. A check that fails
# says why on a "#" line; t_end prints "ok - NAME" or "not ok - NAME".
set -u
: "${VBJ_BIN:?VBJ_BIN: the directory of vbctl, vbjournal, vbjournald}"
: "${VBJ_HELPERS:?VBJ_HELPERS: the directory of vbj-mkjournal}"
# absolute: tests change directories
VBJ_BIN=$(cd "$VBJ_BIN" && pwd) || exit 1
VBJ_HELPERS=$(cd "$VBJ_HELPERS" && pwd) || exit 1
# libvbjournal's build (its .so, .a and vbjournal.pc): beside the tools'
VBJ_LIB=${VBJ_LIB:-$VBJ_BIN/../lib/vbjournal}
VBJ_LIB=$(cd "$VBJ_LIB" 2>/dev/null && pwd) || VBJ_LIB=$VBJ_BIN/../lib/vbjournal
T=$(mktemp -d "${TMPDIR:-/tmp}/vbj-test.XXXXXX") || exit 1
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
t_name="" t_bad=""

t_begin() {
	t_name=$1 t_bad=
}

t_fail() {
	echo "# $t_name: $*"
	t_bad=1
}

t_end() {
	if [ -n "$t_bad" ]; then
		echo "not ok - $t_name"
	else
		echo "ok - $t_name"
	fi
}

t_skip() {
	echo "ok - $t_name # SKIP $*"
}

# What the last run printed, for a failing check.
t_show() {
	echo "#   exit $rc"
	head -n 20 "$T/out" | sed 's/^/#   stdout: /'
	head -n 20 "$T/err" | sed 's/^/#   stderr: /'
}

# run CMD ARGS...: stdout in $T/out, stderr in $T/err, exit code in rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

expect_rc() {
	[ "$rc" = "$1" ] && return 0
	t_fail "exit $rc, expected $1"
	t_show
	return 1
}

# expect_out TEXT / expect_err TEXT: a fixed string in stdout / stderr.
expect_out() {
	grep -qF -- "$1" "$T/out" && return 0
	t_fail "stdout lacks '$1'"
	t_show
	return 1
}

expect_err() {
	grep -qF -- "$1" "$T/err" && return 0
	t_fail "stderr lacks '$1'"
	t_show
	return 1
}

expect_no_out() {
	grep -qF -- "$1" "$T/out" || return 0
	t_fail "stdout has '$1'"
	t_show
	return 1
}

# expect_out_exactly FILE: stdout is FILE's content, byte for byte.
expect_out_exactly() {
	cmp -s "$1" "$T/out" && return 0
	t_fail "stdout is not as expected"
	diff "$1" "$T/out" | head -n 20 | sed 's/^/#   /'
	return 1
}

# mkjournal DIR [SQL on stdin]: a journal with the schema of store.c and
# journal id 00000000000000aa, then the SQL run on it.
mkjournal() {
	"$VBJ_HELPERS/vbj-mkjournal" "$1"
}

vbjournal() {
	"$VBJ_BIN/vbjournal" "$@"
}

# handle PATH: PATH's file handle in hex, as the records carry it;
# ino PATH, gen PATH: its inode number, its generation (vbj-handle)
handle() {
	"$VBJ_HELPERS/vbj-handle" "$1" | cut -d' ' -f1
}

ino() {
	"$VBJ_HELPERS/vbj-handle" "$1" | cut -d' ' -f2
}

gen() {
	"$VBJ_HELPERS/vbj-handle" "$1" | cut -d' ' -f3
}

# expect_line LINE / expect_no_line LINE: a whole line of stdout is (is
# not) LINE
expect_line() {
	grep -qxF -- "$1" "$T/out" && return 0
	t_fail "stdout has no line '$1'"
	t_show
	return 1
}

expect_no_line() {
	grep -qxF -- "$1" "$T/out" || return 0
	t_fail "stdout has the line '$1'"
	t_show
	return 1
}
