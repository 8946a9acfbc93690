#!/bin/sh
# Build everything for one kernel and run the guest in MODE.
# Usage: run-guest.sh MODE [KVER]   MODE: check | demo | bench | stress | crash
# Environment: VFSB_KO=path uses an already built module (e.g. DKMS's).
set -eu
mode=$1 kver=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

eval "$(scripts/kernel.sh "$kver")"
echo "run-guest: kernel $KREL ($VMLINUZ)"

# The module under test is the one DKMS builds and installs (into private
# trees; inside the build chroot for kernels that name one), as on a
# user's machine; VFSB_NO_DKMS=1 uses the plain kbuild build instead
# (quicker while developing).
ko=${VFSB_KO:-}
if [ -z "$ko" ] && [ -z "${VFSB_NO_DKMS:-}" ]; then
	ko=$(scripts/dkms.sh build "$KREL" "$KDIR")
fi
if [ -z "$ko" ]; then
	ko=$(scripts/build-module.sh "$KREL" "$KDIR")
fi
echo "run-guest: module $ko"
# The selftests' test module (selftests/kmod), built with kbuild in
# every mode: it is loaded by tests only, never installed.
testko=$(scripts/build-testkmod.sh "$KREL" "$KDIR")

build=${VFSB_BUILD:-$top/build}
bindir=$build/guest-bin
make -s -C selftests OUT="$bindir"
make -s -C tools OUT="$bindir"
[ "$mode" != stress ] || make -s -C selftests/stress OUT="$bindir"
[ "$mode" != crash ] || make -s -C selftests/crash OUT="$bindir"
# VFSB_TESTS="test_a test_b" runs only those selftests.
# (selftests/Makefile rewrites tests.list with every test on each run.)
if [ -n "${VFSB_TESTS:-}" ]; then
	echo "$VFSB_TESTS" > "$bindir/tests.list"
fi

work=$build/$KREL
mkdir -p "$work"
scripts/initramfs.sh "$work/initramfs-$mode.cpio.gz" "$KREL" "$MODROOT" "$ko" "$bindir" "$mode" "$testko"
case "$mode" in
check) tmo=${VFSB_GUEST_TIMEOUT:-1500} ;;
bench) tmo=${VFSB_GUEST_TIMEOUT:-2400}
	# VFSB_BENCH_*=... reach the guest's init as environment variables.
	VFSB_CMDLINE="${VFSB_CMDLINE:-} $(env | sed -n 's/^\(VFSB_BENCH_[A-Za-z0-9_]*\)=\(.*\)/\1="\2"/p' | tr '\n' ' ')"
	export VFSB_CMDLINE ;;
crash) tmo=${VFSB_GUEST_TIMEOUT:-600}
	# VFSB_CRASH_*=... reach the guest's init (scripts/crashtest.sh).
	VFSB_CMDLINE="${VFSB_CMDLINE:-} $(env | sed -n 's/^\(VFSB_CRASH_[A-Za-z0-9_]*\)=\(.*\)/\1="\2"/p' | tr '\n' ' ')"
	export VFSB_CMDLINE ;;
stress) tmo=${VFSB_GUEST_TIMEOUT:-1500}
	# VFSB_STRESS_*=... reach the guest's init as environment variables
	# (scripts/stress.sh, selftests/stress/stress.sh).
	VFSB_CMDLINE="${VFSB_CMDLINE:-} $(env | sed -n 's/^\(VFSB_STRESS_[A-Za-z0-9_]*\)=\(.*\)/\1="\2"/p' | tr '\n' ' ')"
	export VFSB_CMDLINE ;;
demo) tmo=${VFSB_GUEST_TIMEOUT:-600}
	# VFSB_DEMO_PHASE reaches the guest's tools/demo.sh (scripts/demo.sh).
	VFSB_CMDLINE="${VFSB_CMDLINE:-} $(env | sed -n 's/^\(VFSB_DEMO_[A-Za-z0-9_]*\)=\(.*\)/\1="\2"/p' | tr '\n' ' ')"
	export VFSB_CMDLINE ;;
*) tmo=${VFSB_GUEST_TIMEOUT:-600} ;;
esac
rc=0
scripts/guest.sh "$VMLINUZ" "$work/initramfs-$mode.cpio.gz" "$work/console-$mode.log" "$tmo" "$mode" || rc=$?
if [ "$mode" = bench ]; then
	VFSB_BUILD=$build scripts/bench-collect.sh "$work/console-bench.log" || rc=1
fi
exit $rc
