#!/bin/sh
# Run a command inside a build chroot, for kernels whose kbuild host tools
# do not run on this system (trixie-backports' 7.x needs glibc >= 2.38 and
# gcc-14; see scripts/kernels/fetch.sh 7): make for the plain build, dkms
# for the DKMS build, apt-get to complete an older chroot.
# Usage: chroot-run.sh CHROOT DIR... -- COMMAND [ARGS...]
#        chroot-run.sh --kdir KDIR DIR... -- COMMAND [ARGS...]
#   The second form is for building against the kbuild tree KDIR: when
#   KDIR's kernel cache root names a build chroot (its .vfsb-build-chroot
#   marker, written by scripts/kernels/fetch.sh), the command runs in
#   there with the cache root mounted too; otherwise it runs here as is.
# Each DIR (an absolute path: the kernel's cache root, the module's build
# directory) is bind-mounted at the same path inside CHROOT, so every path
# means the same on both sides and the built files land where the caller
# expects them. The mounts (and /proc, /dev) live in a private mount
# namespace (unshare -m) and go away when the command ends. Needs root.
set -eu
ch=${1:?usage: chroot-run.sh CHROOT|--kdir KDIR DIR... -- COMMAND [ARGS...]}
shift
kroot=""
if [ "$ch" = --kdir ]; then
	kroot=$(cd "${1:?chroot-run: --kdir needs a directory}/../../.." && pwd)
	shift
	if [ ! -f "$kroot/.vfsb-build-chroot" ]; then
		while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done
		[ "${1:-}" = -- ] && shift
		exec "$@"
	fi
	ch=$(cat "$kroot/.vfsb-build-chroot")
fi
[ -x "$ch/usr/bin/make" ] || {
	echo "chroot-run: $ch is not a usable build chroot (run scripts/kernels/fetch.sh 7)" >&2
	exit 1
}
dirs=$kroot
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case "$1" in /*) ;; *) echo "chroot-run: $1: not an absolute path" >&2; exit 1 ;; esac
	[ -d "$1" ] || { echo "chroot-run: $1: no such directory" >&2; exit 1; }
	dirs="$dirs $1"
	shift
done
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { echo "chroot-run: no command" >&2; exit 2; }

# The inner script gets CHROOT and the directories as $1..., then "--" and
# the command: its $ are its own (SC2016); $dirs splits into the
# directories, absolute paths checked above (SC2086).
# shellcheck disable=SC2016,SC2086
exec unshare --mount --propagation private sh -eu -c '
	ch=$1; shift
	while [ "$1" != -- ]; do
		mkdir -p "$ch$1"
		mount --bind "$1" "$ch$1"
		shift
	done
	shift
	mount -t proc proc "$ch/proc"
	mount --bind /dev "$ch/dev"
	exec chroot "$ch" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
' chroot-run "$ch" $dirs -- "$@"
