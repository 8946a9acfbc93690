#!/bin/sh
# DKMS packaging.
#   dkms.sh install      real machine: copy the sources to /usr/src, then
#                        dkms add/build/install for the running kernel
#                        (AUTOINSTALL rebuilds it for later kernels) and
#                        modprobe it
#   dkms.sh uninstall    modprobe -r, dkms remove --all, drop /usr/src copy
#   dkms.sh stage DIR    only the source tree, as DIR/vfsbarrier-VERSION
#   dkms.sh build KREL KDIR
#                        test build in private DKMS trees under
#                        $VFSB_BUILD/dkms (the system's DKMS state and
#                        /lib/modules are not touched, nothing is loaded):
#                        dkms add, build and install --force for KREL
#                        against KDIR (inside the kernel's build chroot
#                        when it names one), then depmod -e on the private
#                        module tree; prints the installed .ko's path
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
stage)
	# the source tree alone, under DIR (the Debian package: debian/rules)
	stage "${2:?usage: dkms.sh stage DIR}"
	;;
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
	root=$d/root
	mkdir -p "$d/src" "$d/tree" "$root/lib/modules/$krel"
	d=$(cd "$d" && pwd) root=$d/root
	stage "$d/src"
	# dkms runs in the kernel's build chroot when it names one (7.x),
	# on the same paths (see scripts/kernels/chroot-run.sh).
	kroot=$(cd "$kdir/../../.." && pwd)
	run_dkms() {
		"$top"/scripts/kernels/chroot-run.sh --kdir "$kdir" "$d" -- dkms "$@"
	}
	opts="--dkmstree $d/tree --sourcetree $d/src --installtree $root/lib/modules"
	# dkms install runs depmod on /lib/modules/KREL of the machine it runs
	# on, which holds only the host's own kernels: install with
	# --no-depmod and run depmod below on the private tree instead.
	# shellcheck disable=SC2086
	{
		run_dkms add $opts -m $name -v "$ver"
		run_dkms build $opts -m $name -v "$ver" -k "$krel" --kernelsourcedir "$kdir"
		run_dkms install $opts -m $name -v "$ver" -k "$krel" --kernelsourcedir "$kdir" \
			--force --no-depmod
	} > "$d/dkms.log" 2>&1 || { cat "$d/dkms.log" >&2; exit 1; }
	ko=$(find "$root/lib/modules/$krel" -name "$name.ko*" | head -n 1)
	[ -n "$ko" ] || { cat "$d/dkms.log" >&2; echo "dkms: install put no $name.ko under $root" >&2; exit 1; }
	# depmod against the kernel's own modules and Module.symvers: every
	# symbol the installed module needs must resolve, with matching CRCs,
	# and modprobe must find it where DKMS put it.
	mods=$kroot/lib/modules/$krel
	for f in "$mods"/kernel "$mods"/modules.order "$mods"/modules.builtin \
		"$mods"/modules.builtin.modinfo; do
		[ -e "$f" ] && ln -s "$f" "$root/lib/modules/$krel/"
	done
	if ! depmod -b "$root" -e -E "$kdir/Module.symvers" "$krel" > "$d/depmod.log" 2>&1 ||
		grep -q "$name" "$d/depmod.log"; then
		cat "$d/depmod.log" >&2
		echo "dkms: depmod reports problems with the installed $name for $krel" >&2
		exit 1
	fi
	grep -q "/$name\.ko[.a-z]*:" "$root/lib/modules/$krel/modules.dep" || {
		echo "dkms: $name is not in modules.dep for $krel" >&2
		exit 1
	}
	echo "$ko"
	;;
*)
	echo "usage: dkms.sh install | uninstall | build KREL KDIR" >&2
	exit 2
	;;
esac
