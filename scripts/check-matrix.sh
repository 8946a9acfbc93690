#!/bin/sh
# Build and test vfsbarrier on every target kernel the archive reaches:
#   6.1    the system's Debian 12 kernel (scripts/deps.sh installs it)
#   6.12   bookworm-backports' newest 6.12 (scripts/kernels/fetch.sh 6.12)
#   7      trixie-backports' newest 7.x, module built in a trixie chroot
#   debug  6.1 from linux-source-6.1 with lockdep, KASAN, kmemleak...
# Kernels are fetched or built first when the cache lacks them (see
# scripts/kernels/fetch.sh for what that takes: the debug kernel build
# takes about 11 minutes on 2 CPUs, once).
# Usage: check-matrix.sh [KIND...]   (default: 6.1 6.12 7 debug)
# Environment:
#   VFSB_MATRIX=build    only build the module for each kernel
#   VFSB_BUILD           build directory (default: build/ in the repo)
#   VFSB_DEBUG_MEM       guest memory for the debug kernel (default 2048)
#   VFSB_DEBUG_TIMEOUT   guest time limit for the debug kernel (default 3000)
#   VFSB_NO_DKMS=1       test the plain kbuild build instead of the .ko
#                        DKMS builds and installs (the default, on every
#                        kernel: scripts/dkms.sh build)
#   VFSB_KCACHE, VFSB_TESTS, VFSB_GUEST_MEM, VFSB_GUEST_TIMEOUT as for
#   scripts/run-guest.sh and scripts/kernels/fetch.sh (the debug kernel
#   runs every program but test_vbctl, test_publish and test_journal unless
#   VFSB_TESTS says otherwise)
# Output: per kernel "KERNEL <release>: N passed, N failed, N skipped"
# (from the closing line of the guest run) or "KERNEL <release>: built",
# then the closing line "N passed, N failed, N skipped" summed over the
# kernels. A kernel that could not be fetched or built, or whose run
# failed without a failing test (the guest did not finish, or its kernel
# reported BUG/lockdep/KASAN...), adds one failure to the sum.
# Exit status: 0 only when every kernel passed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kinds=${*:-6.1 6.12 7 debug}
mode=${VFSB_MATRIX:-check}
build=${VFSB_BUILD:-$top/build}
logs=$build/matrix
mkdir -p "$logs"
case "$mode" in check | build) ;; *) echo "check-matrix: VFSB_MATRIX must be check or build" >&2; exit 2 ;; esac

status=0
summary=""
note() { echo "check-matrix: $*" >&2; }

# The selftest programs the debug kernel runs: all but the tools' own.
debug_tests() {
	for t in "$top"/selftests/test_*.c; do
		t=${t##*/}
		case "$t" in
		test_vbctl.c | test_publish.c | test_journal.c) ;;
		*) printf '%s ' "${t%.c}" ;;
		esac
	done
}
# line TEXT: a build result line, shown now (stderr) and in the summary
# at the end (stdout).
line() {
	note "$1"
	summary="$summary$1
"
}
# show LABEL RC LOG: the result line of a run, now; the runs are summed
# at the end (scripts/ktap-sum.sh, with the positional parameters).
show() {
	note "$(scripts/ktap-sum.sh "$1" "$2" "$3" | head -n 1)"
}
set --

for kind in $kinds; do
	t0=$(date +%s)
	note "===== $kind ($mode)"
	# Fetch or build the kernel; find the release to ask kernel.sh for.
	fail=""
	case "$kind" in
	6.1) kver=6.1 ;;
	6.12 | 7 | debug)
		kver=$(scripts/kernels/fetch.sh "$kind") ||
			fail="fetch/build of the kernel failed" ;;
	*) kver=$kind ;;
	esac
	if [ -z "$fail" ] && ! kenv=$(scripts/kernel.sh "$kver"); then
		fail="no such kernel"
	fi
	if [ -n "$fail" ]; then
		if [ "$mode" = build ]; then
			line "KERNEL $kind: BUILD FAILED ($fail)"
			status=1
		else
			set -- "$@" "KERNEL $kind ($fail)" 1 "$logs/$kind.none"
			show "KERNEL $kind ($fail)" 1 "$logs/$kind.none"
		fi
		continue
	fi
	eval "$kenv"
	log=$logs/$KREL.log
	if [ "$mode" = build ]; then
		if [ -n "${VFSB_NO_DKMS:-}" ]; then
			how=kbuild
			cmd=scripts/build-module.sh
		else
			how="dkms build + install"
			cmd="scripts/dkms.sh build"
		fi
		# shellcheck disable=SC2086 # cmd is a script and its subcommand
		if $cmd "$KREL" "$KDIR" >"$log" 2>&1; then
			line "KERNEL $KREL: built ($how: $(tail -n 1 "$log"))"
		else
			cat "$log" >&2
			line "KERNEL $KREL: BUILD FAILED (log: $log)"
			status=1
		fi
		note "$kind took $(($(date +%s) - t0))s"
		continue
	fi

	if [ "$kind" = debug ]; then
		# KASAN, lockdep and kmemleak make the guest slower and hungrier.
		# test_vbctl, test_publish and test_journal test user-space
		# tools (vbctl's output, the stream publisher, vbjournald and
		# vbjournal), whose kernel side test_intent and test_records
		# drive here too; they run on every other kernel, and here they
		# were 51, 37 and 119 s of about 1200 (2026-12-08). VFSB_TESTS
		# still picks.
		VFSB_TESTS=${VFSB_TESTS:-$(debug_tests)} \
			VFSB_GUEST_MEM=${VFSB_DEBUG_MEM:-2048} \
			VFSB_GUEST_TIMEOUT=${VFSB_DEBUG_TIMEOUT:-3000} \
			scripts/run-guest.sh check "$KREL" >"$log" 2>&1 &
	else
		scripts/run-guest.sh check "$KREL" >"$log" 2>&1 &
	fi
	pid=$!
	# Show the run live while it goes to the log.
	tail -n +1 -f --pid=$pid "$log" >&2 &
	tailpid=$!
	wait $pid
	rc=$?
	wait $tailpid 2>/dev/null
	set -- "$@" "KERNEL $KREL" "$rc" "$log"
	show "KERNEL $KREL" "$rc" "$log"
	note "$kind took $(($(date +%s) - t0))s (log: $log)"
done

echo "===== matrix ($mode)"
if [ "$mode" = check ]; then
	scripts/ktap-sum.sh "$@"
	exit
fi
printf '%s' "$summary"
if [ "$status" = 0 ]; then
	echo "all kernels built"
else
	echo "$(printf '%s' "$summary" | grep -c 'BUILD FAILED') kernels failed to build"
fi
exit $status
