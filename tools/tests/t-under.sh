#!/bin/sh
# changes --under PATH: any spelling of a directory (trailing slash,
# ".", "..", a symlink, relative, "/") asks about the same directories;
# a directory that is gone can still be asked about; a path outside
# every journaled filesystem is refused (exit 2), never answered with
# an empty list.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

R=$(cd -P "$T" && pwd)
mkdir -p "$R/fs/a/b" "$R/fs/c" "$R/fs/ab"
ln -s "$R/fs/a" "$R/link"
mkjournal "$T/j" <<EOT
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '$R/fs');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(2, 1, x'$(handle "$R/fs/a")', '$R/fs/a'),
	(2, 1, x'$(handle "$R/fs/a/b")', '$R/fs/a/b'),
	(2, 1, x'$(handle "$R/fs/c")', '$R/fs/c'),
	(2, 1, x'$(handle "$R/fs/ab")', '$R/fs/ab'),
	(2, 1, x'05', '$R/fs/gone/x');
EOT
# the paths now, from the handles: root's (else the stored ones, said)
sp=
[ "$(id -u)" = 0 ] || sp=" (stored path)"
printf "dir %s$sp\n" "$R/fs/a" "$R/fs/a/b" >"$T/want-a"
printf "dir %s$sp\n" "$R/fs/a" "$R/fs/a/b" "$R/fs/ab" "$R/fs/c" >"$T/want-all"
printf 'dir %s\n' "$R/fs/gone/x (stored path)" >>"$T/want-all"
printf 'dir %s\n' "$R/fs/gone/x (stored path)" >"$T/want-gone"

# under NAME WANT PATH: the dir lines of changes --under PATH are WANT's.
under() {
	t_begin "$1"
	run vbjournal --journal "$T/j" changes --since 00000000000000aa:1 \
		--under "$3"
	expect_rc 0
	grep '^dir ' "$T/out" >"$T/dirs"
	if ! cmp -s "$2" "$T/dirs"; then
		t_fail "--under '$3' named other directories"
		diff "$2" "$T/dirs" | sed 's/^/#   /'
	fi
	t_end
}

under "canonical path" "$T/want-a" "$R/fs/a"
under "trailing slash" "$T/want-a" "$R/fs/a/"
under "dot and dot-dot" "$T/want-a" "$R/fs/./c/../a"
under "double slash" "$T/want-a" "$R//fs//a"
under "symlink to it" "$T/want-a" "$R/link"
under "symlink, trailing slash" "$T/want-a" "$R/link/"
under "the root" "$T/want-all" "/"
under "the filesystem" "$T/want-all" "$R/fs"
under "a directory that is gone" "$T/want-gone" "$R/fs/gone"
under "a directory that is gone, trailing slash" "$T/want-gone" "$R/fs/gone/"
(cd "$R/fs" && under "relative" "$T/want-a" "a")

t_begin "outside every journaled filesystem"
run vbjournal --journal "$T/j" changes --since 00000000000000aa:1 \
	--under /proc/self
expect_rc 2
expect_err "not inside a journaled filesystem"
expect_no_out "cursor"
t_end

# (checked before the consumer is looked up: the usage error first)
t_begin "outside every journaled filesystem, with a consumer not registered"
run vbjournal --journal "$T/j" changes --consumer nobody --under /proc/self
expect_rc 2
expect_err "not inside a journaled filesystem"
t_end
