#!/bin/sh
# Resolve a target kernel for building and booting.
# Usage: kernel.sh [KVER]   (KVER: a release such as 6.1.0-57-amd64, or a
# prefix such as 6.1, or "debug"; empty: the newest installed Debian 6.1
# kernel).
# Prints shell assignments: KREL, KDIR (kbuild tree), VMLINUZ, MODROOT
# (the root under which lib/modules/$KREL lives).
# Kernels fetched by scripts/kernels/fetch.sh live in $VFSB_KCACHE/<release>/
# with the same layout as an installed system.
set -eu
want=${1:-6.1}
cache=${VFSB_KCACHE:-/var/cache/vfsbarrier/kernels}

# match REL: REL is what KVER asks for. A prefix matches only at a
# component boundary (6.1 must not pick 6.12.x); the debug kernel built by
# scripts/kernels/fetch.sh (*-vfsb-debug) is chosen only when asked for
# ("debug" or a KVER naming it), never as the default 6.1.
match() {
	case "$1" in
	*-vfsb-debug)
		case "$want" in debug | *-vfsb-debug*) ;; *) return 1 ;; esac
		[ "$want" = debug ] && return 0 ;;
	*) [ "$want" != debug ] || return 1 ;;
	esac
	case "$1" in "$want" | "$want"[!0-9]*) return 0 ;; esac
	return 1
}

pick() {
	for root in "$cache"/*/ /; do
		[ -d "${root}lib/modules" ] || continue
		for d in "${root}"lib/modules/*/; do
			rel=$(basename "$d")
			match "$rel" || continue
			[ -f "${root}boot/vmlinuz-$rel" ] || continue
			[ -e "${root}usr/src/linux-headers-$rel/Makefile" ] || continue
			echo "$rel ${root%/}"
		done
	done | sort -V | tail -n 1
}

found=$(pick)
if [ -z "$found" ]; then
	echo "kernel.sh: no kernel image + headers for '$want' (run: make deps, or scripts/kernels/fetch.sh 6.12|7|debug)" >&2
	exit 1
fi
rel=${found% *}
root=${found#* }
echo "KREL=$rel"
echo "KDIR=$root/usr/src/linux-headers-$rel"
echo "VMLINUZ=$root/boot/vmlinuz-$rel"
echo "MODROOT=${root:-/}"
