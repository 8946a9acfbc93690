#!/bin/sh
# Sums the results of several test runs (for check-matrix.sh and .ci/run).
# Usage: ktap-sum.sh LABEL RC LOG [LABEL RC LOG ...]
#   A run's result is the last closing line "N passed, N failed[, N
#   skipped]" in its LOG (the one scripts/ktap-summary.awk prints after a
#   guest run, or the summed one of an earlier ktap-sum.sh). A run with no
#   such line (it did not get that far; LOG may not even exist), or whose
#   exit code RC is not 0 although no test failed (the guest did not
#   finish, its kernel reported a problem), counts as one failure.
# Prints "LABEL: N passed, N failed, N skipped" per run, with a note when
# it counted a failure, then the summed closing line.
# Exit status: 0 when every run passed (RC 0 and no failure).
set -u
if [ $# = 0 ] || [ $(($# % 3)) != 0 ]; then
	echo "usage: ktap-sum.sh LABEL RC LOG [LABEL RC LOG ...]" >&2
	exit 2
fi
tp=0 tf=0 ts=0 status=0
while [ $# -gt 0 ]; do
	label=$1 rc=$2 log=$3
	shift 3
	res=$(grep -sE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	[ "$rc" = 0 ] || status=1
	if [ -z "$res" ]; then
		[ -e "$log" ] || log="none"
		echo "$label: 0 passed, 1 failed, 0 skipped (no result: exit $rc; log: $log)"
		tf=$((tf + 1)) status=1
		continue
	fi
	read -r p f s <<-EOF
	$(echo "$res" | awk '{ print $1, $3, ($5 == "" ? 0 : $5) }')
	EOF
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "$label: $p passed, $f failed, $s skipped (but the run failed: exit $rc; log: $log; counted as 1 failure)"
		tf=$((tf + 1))
	else
		echo "$label: $p passed, $f failed, $s skipped"
		[ "$f" = 0 ] || status=1
	fi
done
echo "$tp passed, $tf failed, $ts skipped"
exit $status
