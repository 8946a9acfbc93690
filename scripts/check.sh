#!/bin/sh
# make check after lint: the selftest suite in a guest on one kernel,
# then a short run of the crash test (scripts/crashtest.sh) on it, and
# the closing line summed over both.
# Usage: scripts/check.sh [KVER]   Environment: VFSB_CHECK_CRASHES
# (crash test cycles, default 2; 0 leaves it out), and what
# run-guest.sh and crashtest.sh take.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kver=${1:-}
build=${VFSB_BUILD:-$top/build}
logs=$build/check
mkdir -p "$logs"
crashes=${VFSB_CHECK_CRASHES:-2}

scripts/run-guest.sh check "$kver" >"$logs/suite.log" 2>&1 &
pid=$!
tail -f --pid=$pid "$logs/suite.log" 2>/dev/null
wait $pid
rc_suite=$?
set -- "check: suite" "$rc_suite" "$logs/suite.log"
if [ "$crashes" -gt 0 ]; then
	echo "check: crash test, $crashes crashes"
	VFSB_CRASH_CYCLES=$crashes scripts/crashtest.sh "${kver:-6.1}" >"$logs/crash.log" 2>&1
	rc_crash=$?
	grep -E '^CRASHTEST cycle|^crashtest:' "$logs/crash.log"
	set -- "$@" "check: crash test" "$rc_crash" "$logs/crash.log"
fi
scripts/ktap-sum.sh "$@"
