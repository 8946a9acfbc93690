#!/bin/sh
# libvbjournal as a vendor links it: a program built from the public
# header alone against the shared library (vbj-libtest, libtest.c)
# reads the fixture journal (lib-fixture.sql) and gives the expected
# answer, registers, acks and unregisters, and is refused another
# journal's cursor; the library exports the API and nothing else, under
# its soname and symbol version; the header stands alone; vbjournal.pc
# gives the flags to build with.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
so=$VBJ_LIB/libvbjournal.so.1
map=$here/../../lib/vbjournal/libvbjournal.map
ver=$(sed -n 's/^PACKAGE_VERSION="*\([^"]*\)"*/\1/p' "$here/../../dkms.conf")

mkjournal "$T/j" <"$here/lib-fixture.sql"
sed -e "s/@VERSION@/$ver/" -e "s/@FF@/$(printf '\377')/" \
	"$here/lib-expected.txt" >"$T/expected"

t_begin "a program linked with libvbjournal.so.1 reads the fixture"
run "$VBJ_HELPERS/vbj-libtest" "$T/j" 00000000000000aa:1
expect_rc 0 && expect_out_exactly "$T/expected"
t_end

t_begin "it runs with the library it was linked with (soname)"
run ldd "$VBJ_HELPERS/vbj-libtest"
expect_rc 0 && expect_out "libvbjournal.so.1 => $VBJ_LIB/libvbjournal.so.1"
t_end

t_begin "soname libvbjournal.so.1"
run readelf -d "$so"
expect_rc 0 && expect_out "Library soname: [libvbjournal.so.1]"
t_end

t_begin "it exports the API of its version script, each under its node, and nothing else"
# what the map lists, each function with the node it is in, and what
# the object exports (the version nodes themselves are absolute symbols)
awk '/^VBJOURNAL_[0-9.]+ *[{]/ { node = $1 }
	/^[[:space:]]*vbjournal_[a-z_]*;$/ {
		sub(/^[[:space:]]*/, ""); sub(/;$/, ""); print $0 "@@" node
	}' "$map" | sort >"$T/want"
nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' | sort >"$T/have"
if [ ! -s "$T/want" ] || ! cmp -s "$T/want" "$T/have"; then
	t_fail "exported symbols differ from the map's"
	diff "$T/want" "$T/have" | sed 's/^/#   /'
fi
t_end

t_begin "every function the header declares is exported"
sed -n 's/^[a-z].*[ *]\(vbjournal_[a-z_]*\)(.*/\1/p' \
	"$here/../../lib/vbjournal/vbjournal.h" | sort >"$T/decl"
sed 's/@.*//' "$T/have" >"$T/names"
if [ ! -s "$T/decl" ] || ! cmp -s "$T/decl" "$T/names"; then
	t_fail "declared and exported functions differ"
	diff "$T/decl" "$T/names" | sed 's/^/#   /'
fi
t_end

t_begin "a function added after 1.0 is in a node of its own, which the header names"
# VBJOURNAL_1.0 stays what it was; a program using a later function
# needs the later node (readelf -V of vbj-libtest, which calls one)
grep -q '^vbjournal_register_at@@VBJOURNAL_1.1$' "$T/have" ||
	t_fail "vbjournal_register_at is not VBJOURNAL_1.1"
grep -q ' VBJOURNAL_1.1\. Registers' "$here/../../lib/vbjournal/vbjournal.h" ||
	t_fail "the header does not say vbjournal_register_at is VBJOURNAL_1.1"
run readelf -V "$VBJ_HELPERS/vbj-libtest"
expect_rc 0 && expect_out "Name: VBJOURNAL_1.1"
t_end

t_begin "the public header stands alone (C99, pedantic) and includes only the C library's"
printf '#include <vbjournal.h>\nint main(void)\n{\n\tstruct vbjournal *j;\n\n\treturn vbjournal_open(&j, "x", 0);\n}\n' >"$T/h.c"
run cc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only \
	-I"$here/../../lib/vbjournal" "$T/h.c"
expect_rc 0
run grep '^#include' "$here/../../lib/vbjournal/vbjournal.h"
expect_rc 0
if grep -v -e '<stddef.h>' -e '<stdint.h>' "$T/out" | grep -q .; then
	t_fail "the header includes more than stddef.h and stdint.h"
	t_show
fi
t_end

t_begin "vbjournal.pc: cflags and libs for the installed copy"
run env PKG_CONFIG_PATH="$VBJ_LIB" pkg-config --cflags --libs vbjournal
expect_rc 0 && expect_out "-lvbjournal"
run env PKG_CONFIG_PATH="$VBJ_LIB" pkg-config --modversion vbjournal
expect_rc 0 && expect_line "$ver"
t_end

t_begin "vbjournal, its mirror and vbjournal-publish use the public API alone"
# what a vendor's program sees: vbjournal.h, no private header of the
# library, no SQLite (the schema is private behind it)
for f in journal/vbjournal.c journal/mirror.c journal/mirror.h publish/publish.c; do
	if grep -nE '"(store|internal|resolve|lock)\.h"|<sqlite3\.h>|sqlite3_|vbj_store' \
		"$here/../$f" >"$T/out"; then
		t_fail "tools/$f reaches past vbjournal.h"
		sed 's/^/#   /' "$T/out"
	fi
done
t_end
