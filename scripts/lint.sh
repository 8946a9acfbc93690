#!/bin/sh
# Lint, zero findings allowed:
#   checkpatch --strict on every kernel source and header (the
#     selftests' test module's too) and the UAPI header;
#   sparse (C=2: every file rechecked) against the target kernel (KVER),
#     or against the default kernel when the target's kbuild cannot run
#     the host's sparse (7.x: its kbuild runs in a trixie chroot without
#     sparse, and its Makefile wants scripts/checker-valid.sh, which the
#     kbuild package does not ship);
#   every shell script through shellcheck;
#   the man pages (man/) through groff -ww and mandoc -Tlint: no warning;
#   lib/, tools/ and selftests/ built with -Wall -Wextra -Werror.
# Needs what scripts/deps.sh installs (it does not install it: lint runs
# without root); says what is missing.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${VFSB_BUILD:-$top/build}
checkpatch=/usr/src/linux-source-6.1/scripts/checkpatch.pl
status=0

need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "lint: $1 not found (make deps installs it)"
	status=1
	return 1
}

echo "lint: checkpatch --strict"
if [ -f "$checkpatch" ]; then
	out=$(perl "$checkpatch" --strict --no-tree --terse --show-types \
		--ignore SPDX_LICENSE_TAG -f module/*.c module/*.h module/configure/*/test.c \
		selftests/kmod/*.c \
		include/uapi/linux/vfsbarrier.h 2>&1 |
		grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)
	if [ -n "$out" ]; then
		echo "$out"
		status=1
	fi
else
	echo "lint: $checkpatch not found (make deps installs linux-source-6.1)"
	status=1
fi

# can_sparse KDIR: its kbuild runs here (no build chroot), and has what
# its Makefile checks sparse with. Debian's arch headers include the
# common ones, where the Makefile and scripts/ are.
can_sparse() {
	kroot=$(cd "$1/../../.." && pwd)
	[ ! -f "$kroot/.vfsb-build-chroot" ] || return 1
	src=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$1/Makefile" | head -n 1)
	src=${src:-$1}
	! grep -qs 'scripts/checker-valid.sh' "$src/Makefile" ||
		[ -e "$src/scripts/checker-valid.sh" ]
}

eval "$(scripts/kernel.sh "${KVER:-}")"
if ! can_sparse "$KDIR"; then
	target=$KREL
	eval "$(scripts/kernel.sh)"
	echo "lint: sparse (C=2) against $KREL ($target's kbuild cannot run the host's sparse)"
else
	echo "lint: sparse (C=2) against $KREL"
fi
if need sparse; then
	# kbuild prints sparse's findings on stderr, next to the build's own
	out=$(scripts/build-module.sh "$KREL" "$KDIR" C=2 2>&1 >/dev/null |
		grep -v 'Skipping BTF generation' || true)
	if [ -n "$out" ]; then
		echo "$out"
		status=1
	fi
fi

echo "lint: shellcheck"
# is_script FILE: a shell script, by its name or by its #! line
# (guest/init runs busybox sh).
is_script() {
	case "$1" in *.sh) return 0 ;; esac
	head -n 1 "$1" | grep -qE '^#!.*[/ ](ba)?sh$'
}
scripts=$(
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$top" ls-files
	else
		find . -path ./build -prune -o -type f -print | sed 's|^\./||'
	fi | while read -r f; do
		if [ -f "$f" ] && is_script "$f"; then
			echo "$f"
		fi
	done
)
if need shellcheck; then
	for f in $scripts; do
		shellcheck --shell="$(head -n 1 "$f" | grep -q bash && echo bash || echo sh)" \
			--external-sources "$f" || status=1
	done
fi

# not a script by its name or first line: sourced by bash
if command -v shellcheck >/dev/null 2>&1; then
	shellcheck --shell=bash tools/vbctl/vbctl.bash-completion \
		tools/journal/vbjournal.bash-completion \
		tools/journal/vbjournald.bash-completion \
		tools/publish/vbjournal-publish.bash-completion \
		tools/tests/complete.bash || status=1
fi

echo "lint: man pages"
if need groff && need mandoc; then
	for f in man/*.[1-8]; do
		out=$(groff -ww -man -z "$f" 2>&1; mandoc -Tlint -Wstyle "$f" 2>&1)
		if [ -n "$out" ]; then
			echo "$out"
			status=1
		fi
	done
fi

echo "lint: lib, tools, selftests, stress and crash with -Wall -Wextra -Werror"
make -s -C lib BUILD="$build" >/dev/null || status=1
make -s -C selftests BUILD="$build" OUT="$build/lint-bin" >/dev/null || status=1
make -s -C tools BUILD="$build" OUT="$build/lint-bin" >/dev/null || status=1
make -s -C selftests/stress BUILD="$build" OUT="$build/lint-bin" >/dev/null || status=1
make -s -C selftests/crash BUILD="$build" OUT="$build/lint-bin" >/dev/null || status=1

[ $status = 0 ] && echo "lint: clean"
exit $status
