#!/bin/sh
# make check after lint: the tools' host tests (no module, no guest:
# tools/tests/run-host-tests.sh), the selftest suite in a guest on one
# kernel, then a short run of the crash test (scripts/crashtest.sh) on
# it, and the closing line summed over all three.
# Usage: scripts/check.sh [KVER]   Environment: VFSB_CHECK_CRASHES
# (crash test cycles, default 3; 0 leaves it out), and what
# run-guest.sh and crashtest.sh take. The crashes are of the mixed mode,
# the mirror mode and the newdirs mode (VFSB_CRASH_MODE="mixed mirror
# newdirs"): the second boot verifies the first crash and runs vbjournal
# mirror under the writers, the third checks the mirror against the
# tree and makes new directories under the writers, the last one
# verifies what the recovery answers for them; no boot more than three
# crashes of mixed alone.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kver=${1:-}
build=${VFSB_BUILD:-$top/build}
logs=$build/check
mkdir -p "$logs"
crashes=${VFSB_CHECK_CRASHES:-3}

echo "check: host tests"
{ make -s -C tools BUILD="$build" host-tests &&
	VFSB_BUILD=$build tools/tests/run-host-tests.sh; } >"$logs/host.log" 2>&1
rc_host=$?
grep -E '^not ok|^[0-9]+ passed' "$logs/host.log"

scripts/run-guest.sh check "$kver" >"$logs/suite.log" 2>&1 &
pid=$!
tail -f --pid=$pid "$logs/suite.log" 2>/dev/null
wait $pid
rc_suite=$?
set -- "check: host tests" "$rc_host" "$logs/host.log" \
	"check: suite" "$rc_suite" "$logs/suite.log"
if [ "$crashes" -gt 0 ]; then
	echo "check: crash test, $crashes crashes"
	VFSB_CRASH_CYCLES=$crashes VFSB_CRASH_MODE=${VFSB_CRASH_MODE:-mixed mirror newdirs} \
		scripts/crashtest.sh "${kver:-6.1}" >"$logs/crash.log" 2>&1
	rc_crash=$?
	grep -E '^CRASHTEST cycle|^crashtest:' "$logs/crash.log"
	set -- "$@" "check: crash test" "$rc_crash" "$logs/crash.log"
fi
scripts/ktap-sum.sh "$@"
