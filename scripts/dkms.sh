#!/bin/sh
# DKMS packaging.
#   dkms.sh install      real machine: copy the sources to /usr/src, then
#                        dkms add/build/install for the running kernel
#                        (AUTOINSTALL rebuilds it for later kernels) and
#                        modprobe it
#   dkms.sh uninstall    modprobe -r, dkms remove --all, drop /usr/src copy
#   dkms.sh build KREL KDIR
#                        test build in private DKMS trees under
#                        $VFSB_BUILD/dkms (the system's DKMS state and
#                        /lib/modules are not touched, nothing is loaded):
#                        dkms add, build and install --force for KREL
#                        against KDIR; prints the installed .ko's path
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
name=vfsbarrier
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

# The source tree DKMS builds from: the module, the UAPI header, dkms.conf,
# and a Makefile for DKMS's own "make clean" of its build area.
stage() {
	dst=$1/$name-$ver
	rm -rf "$dst"
	mkdir -p "$dst"
	cp -r "$top/dkms.conf" "$top/module" "$top/include" "$dst/"
	find "$dst/module" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' \
		-o -name '.*.cmd' -o -name Module.symvers -o -name modules.order \) \
		-exec rm -f {} +
	printf 'clean:\n\trm -f module/*.o module/*.ko module/*.mod* module/.*.cmd module/Module.symvers module/modules.order\n' \
		> "$dst/Makefile"
}

case "${1:-}" in
install)
	stage /usr/src
	dkms remove -m $name -v "$ver" --all >/dev/null 2>&1 || true
	dkms add -m $name -v "$ver"
	dkms build -m $name -v "$ver"
	dkms install -m $name -v "$ver"
	modprobe $name
	echo "dkms: $name $ver installed and loaded: $(ls -l /dev/vfsbarrier)"
	;;
uninstall)
	modprobe -r $name 2>/dev/null || true
	dkms remove -m $name -v "$ver" --all || true
	rm -rf "/usr/src/$name-$ver"
	;;
build)
	krel=$2 kdir=$3
	d=${VFSB_BUILD:-$top/build}/dkms/$krel
	rm -rf "$d"
	mkdir -p "$d/src" "$d/tree" "$d/install/$krel"
	stage "$d/src"
	opts="--dkmstree $d/tree --sourcetree $d/src --installtree $d/install"
	# shellcheck disable=SC2086
	{
		dkms add $opts -m $name -v "$ver"
		dkms build $opts -m $name -v "$ver" -k "$krel" --kernelsourcedir "$kdir"
	} > "$d/dkms.log" 2>&1 || { cat "$d/dkms.log" >&2; exit 1; }
	# install runs depmod for krel, which needs that kernel's module
	# tree: give it one (links to the kernel's own files, when known)
	mroot=$(cd "$kdir/../../.." && pwd)/lib/modules/$krel
	for f in "$mroot"/modules.*; do
		[ -e "$f" ] && ln -sf "$f" "$d/install/$krel/"
	done
	# shellcheck disable=SC2086
	if ! dkms install $opts -m $name -v "$ver" -k "$krel" --force >> "$d/dkms.log" 2>&1; then
		echo "dkms: install for $krel failed (see $d/dkms.log); using the module dkms built" >&2
	fi
	ko=$(find "$d/install" "$d/tree/$name/$ver/$krel" -name "$name.ko*" 2>/dev/null | head -n 1)
	[ -n "$ko" ] || { echo "dkms: no $name.ko built; see $d/dkms.log" >&2; exit 1; }
	echo "$ko"
	;;
*)
	echo "usage: dkms.sh install | uninstall | build KREL KDIR" >&2
	exit 2
	;;
esac
