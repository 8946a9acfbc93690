#!/bin/sh
# Kernel-grade lint: checkpatch --strict (no error, warning or check
# allowed) on every kernel source and header and the UAPI header; sparse
# (C=2: every file rechecked) against the default kernel with no
# warning; tools and selftests build with -Wall -Wextra -Werror.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
checkpatch=/usr/src/linux-source-6.1/scripts/checkpatch.pl
status=0

echo "lint: checkpatch --strict"
out=$(perl "$checkpatch" --strict --no-tree --terse --show-types \
	--ignore SPDX_LICENSE_TAG -f module/*.c module/*.h module/configure/*/test.c \
	include/uapi/linux/vfsbarrier.h 2>&1 | grep -v '^total: 0 errors, 0 warnings, 0 checks' || true)
if [ -n "$out" ]; then
	echo "$out"
	status=1
fi

echo "lint: sparse (C=2)"
eval "$(scripts/kernel.sh "${KVER:-}")"
# kbuild prints sparse's findings on stderr, next to the build's own
out=$(scripts/build-module.sh "$KREL" "$KDIR" C=2 2>&1 >/dev/null |
	grep -v 'Skipping BTF generation' || true)
if [ -n "$out" ]; then
	echo "$out"
	status=1
fi

echo "lint: tools and selftests with -Werror"
make -s -C selftests OUT="${VFSB_BUILD:-$top/build}/lint-bin" >/dev/null || status=1
make -s -C tools OUT="${VFSB_BUILD:-$top/build}/lint-bin" >/dev/null || status=1

[ $status = 0 ] && echo "lint: clean"
exit $status
