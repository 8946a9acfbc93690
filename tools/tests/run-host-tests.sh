#!/bin/sh
# The host tests of the tools: no module, no guest. Runs each t-*.sh of
# DIR (default: this script's directory), numbers their results as TAP,
# and closes with "N passed, N failed, N skipped" (scripts/ktap-sum.sh
# sums it with the guest's). A test file that exits non-zero without a
# failing result, or prints no result at all, counts as one failure.
# Usage: run-host-tests.sh [DIR]
# Environment: VBJ_BIN (default $VFSB_BUILD/tools or build/tools),
# VBJ_HELPERS (default $VFSB_BUILD/obj/tests): built by
# `make -C tools host-tests`.
# Exit status: 0 when every test passed, else 1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
dir=${1:-$here}
build=${VFSB_BUILD:-$top/build}
VBJ_BIN=${VBJ_BIN:-$build/tools}
VBJ_HELPERS=${VBJ_HELPERS:-$build/obj/tests}
export VBJ_BIN VBJ_HELPERS
LC_ALL=C
export LC_ALL

n=0 passed=0 failed=0 skipped=0
log=$(mktemp "${TMPDIR:-/tmp}/vbj-host.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
echo "TAP version 13"
for t in "$dir"/t-*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	echo "# $name"
	sh "$t" >"$log" 2>&1
	rc=$?
	results=0 bad=0
	while IFS= read -r line; do
		case $line in
		"ok - "*)
			n=$((n + 1)) results=$((results + 1))
			case $line in
			*"# SKIP"*) skipped=$((skipped + 1)) ;;
			*) passed=$((passed + 1)) ;;
			esac
			echo "ok $n $name: ${line#ok - }" ;;
		"not ok - "*)
			n=$((n + 1)) results=$((results + 1)) bad=$((bad + 1))
			failed=$((failed + 1))
			echo "not ok $n $name: ${line#not ok - }" ;;
		*)
			echo "# $line" ;;
		esac
	done <"$log"
	if [ "$results" = 0 ] || { [ "$rc" != 0 ] && [ "$bad" = 0 ]; }; then
		n=$((n + 1)) failed=$((failed + 1))
		echo "not ok $n $name (exit $rc, $results results)"
	fi
done
echo "1..$n"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$n" -gt 0 ]
