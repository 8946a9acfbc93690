#!/bin/sh
# make demo: what the change journal is for, in two boots of the guest
# on the same two disks (tools/demo.sh is the guest's side). The first
# runs vbjournald, takes a cursor, changes files, and is killed from the
# host (QEMU SIGKILL, as the crash test does: scripts/crashtest.sh); the
# second recovers and asks `vbjournal changes --since` that cursor, then
# shows the primitives underneath.
# Usage: scripts/demo.sh [KVER]
# Environment: VFSB_NO_DKMS, VFSB_KO, VFSB_QEMU_*: see scripts/run-guest.sh.
# Output: the guest's demo lines; the consoles in build/demo/<kernel>/.
# Exit status: 0 when the second boot finished its demo.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
eval "$(scripts/kernel.sh "${1:-}")" || exit 1
build=${VFSB_BUILD:-$top/build}
# one module for both boots (DKMS's, as run-guest.sh would build it)
if [ -z "${VFSB_KO:-}" ]; then
	if [ -n "${VFSB_NO_DKMS:-}" ]; then
		VFSB_KO=$(scripts/build-module.sh "$KREL" "$KDIR") || exit 1
	else
		VFSB_KO=$(scripts/dkms.sh build "$KREL" "$KDIR") || exit 1
	fi
	export VFSB_KO
fi
dir=$build/demo/$KREL
rm -rf "$dir"
mkdir -p "$dir"
console=$build/$KREL/console-demo.log

# descendants PID: every process below PID
descendants() {
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}

# the guest only mounts them
for d in data journal; do
	truncate -s 256M "$dir/$d.img"
	mkfs.ext4 -q -F "$dir/$d.img" || exit 1
done
export VFSB_GUEST_DISKS="$dir/data.img $dir/journal.img"

echo "demo: first boot (its console: $dir/boot-1.log)"
rm -f "$console"
VFSB_DEMO_PHASE=crash scripts/run-guest.sh demo "$KREL" >"$dir/boot-1.out" 2>&1 &
pid=$!
t=0
until grep -q '^DEMO kill' "$console" 2>/dev/null; do
	sleep 1
	t=$((t + 1))
	if ! kill -0 $pid 2>/dev/null || [ $t -ge 600 ]; then
		break
	fi
done
for q in $(descendants $pid); do
	case "$(ps -o comm= -p "$q" 2>/dev/null)" in
	qemu-system*) kill -9 "$q" 2>/dev/null ;;
	esac
done
wait $pid
cp "$console" "$dir/boot-1.log" 2>/dev/null
# demo_lines FROM TO LOG: the demo's lines, without the kernel's
demo_lines() {
	tr -d '\r' <"$3" | sed -n "/$1/,/$2/p" | grep -v '^\[ *[0-9.]*\] '
}
demo_lines '^=== ' '^DEMO ' "$dir/boot-1.log"
if ! grep -q '^DEMO kill' "$dir/boot-1.log"; then
	echo "demo: the first boot did not get to its changes; see $dir/boot-1.log"
	exit 1
fi
echo
echo "=== the host killed QEMU (kill -9): the guest got no shutdown"
echo
echo "demo: second boot, on the same disks (its console: $dir/boot-2.log)"
rm -f "$console"
rc=0
VFSB_DEMO_PHASE=after scripts/run-guest.sh demo "$KREL" >"$dir/boot-2.out" 2>&1 || rc=$?
cp "$console" "$dir/boot-2.log" 2>/dev/null
demo_lines '^=== ' '^demo: done' "$dir/boot-2.log"
if [ $rc != 0 ] || grep -q '^DEMO FAIL' "$dir/boot-2.log" ||
	! grep -q '^demo: done' "$dir/boot-2.log"; then
	echo "demo: the second boot failed (exit $rc); see $dir/boot-2.out"
	tail -n 20 "$dir/boot-2.out"
	exit 1
fi
