#!/bin/sh
# Host tests of the crash test's verifier (crashload verify), no guest
# and no root: a tree, its manifest, a change, and answers written by
# hand (VFSB_CRASH_ANSWER) that must be judged covered or missed.
# Usage: test-verify.sh CRASHLOAD     (make -C selftests/crash test)
set -u
cl=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
pass=0 fail=0

# answer DIRS MOVED FILES: the JSON of vbjournal changes --json
answer() {
	printf '{"cursor":"x:2","dirs":[%s],"moved":[%s],"files":[%s],"rescan":[],"count":0}\n' \
		"$1" "$2" "$3" >"$t/answer.json"
}
d() { printf '{"path":"%s/fs/%s","gone":false}' "$t" "$1"; }

# expect NAME MISSED: the verifier's exit status and missed count
expect() {
	out=$(VFSB_CRASH_ANSWER=$t/answer.json "$cl" verify "$t/fs" "$t/jr")
	rc=$?
	m=$(echo "$out" | sed -n 's/^CRASHTEST verify:.* missed \([0-9]*\),.*/\1/p')
	want_rc=0
	[ "$2" = 0 ] || want_rc=1
	if [ "$m" = "$2" ] && [ $rc = $want_rc ]; then
		echo "ok - $1"
		pass=$((pass + 1))
	else
		echo "not ok - $1 (missed ${m:-?}, expected $2; exit $rc)"
		echo "$out" | sed 's/^/#   /'
		fail=$((fail + 1))
	fi
}

# fresh: a tree A/f = B/g (hard links), A/h, r/s/x/f, and its manifest
fresh() {
	rm -rf "$t/fs" "$t/jr"
	mkdir -p "$t/fs/A" "$t/fs/B" "$t/fs/r/s/x" "$t/jr"
	echo one >"$t/fs/A/f"
	ln "$t/fs/A/f" "$t/fs/B/g"
	echo two >"$t/fs/A/h"
	echo three >"$t/fs/r/s/x/f"
	"$cl" manifest "$t/fs" "$t/jr" x:1 || exit 1
	ino=$(stat -c %i "$t/fs/A/f")
}

fresh
answer "" "" ""
expect "nothing changed, nothing named" 0

echo more >>"$t/fs/A/h"
answer "" "" ""
expect "a change, an empty answer: missed" 1
answer "$(d A)" "" ""
expect "a change, its directory named" 0
answer "$(d B)" "" ""
expect "a change, another directory named: missed" 1

fresh
echo more >>"$t/fs/A/f"
answer "$(d A)" "" ""
expect "written through A/f, dir A only: B/g missed" 1
answer "$(d A)" "" "{\"kind\":\"file\",\"fs\":1,\"handle\":\"00\",\"ino\":$ino,\"generation\":0,\"nlink\":2,\"gone\":false,\"names\":[{\"path\":\"$t/fs/A/f\"},{\"path\":\"$t/fs/B/g\"}],\"names_complete\":true}"
expect "written through A/f, a file entry with both names" 0
answer "" "" "{\"kind\":\"file\",\"fs\":1,\"handle\":\"00\",\"ino\":$ino,\"generation\":0,\"nlink\":2,\"gone\":false,\"names\":[],\"names_complete\":false}"
expect "a file entry with no names: found by the inode map" 0
answer "" "" "{\"kind\":\"file\",\"fs\":1,\"handle\":\"00\",\"ino\":1,\"generation\":0,\"nlink\":2,\"gone\":false,\"names\":[{\"path\":\"$t/fs/A/f\"}],\"names_complete\":false}"
expect "a file entry of A/f alone, another inode: B/g missed" 1

fresh
mv "$t/fs/r/s" "$t/fs/r/s2"
echo more >>"$t/fs/r/s2/x/f"
answer "" "" ""
expect "a subtree renamed and written in, nothing named" 6
answer "$(d r)" "" ""
expect "renamed: its parent named (a new name: read whole)" 0
answer "$(d r/s/x)" "" ""
expect "renamed: only the old path inside it named" 4
answer "$(d r/s2/x)" "" ""
expect "renamed: the new path's inner directory named" 5
answer "" "$(d r/s2)" ""
expect "renamed: moved names the new path (the old one is not seen gone)" 3

fresh
mkdir -p "$t/fs/r/s2/x"
mv "$t/fs/r/s/x/f" "$t/fs/r/s2/x/f"
rm -r "$t/fs/r/s"
answer "$(d r)" "" ""
expect "a subtree deleted, one made: the parent named" 0

fresh
echo gap >>"$t/fs/A/h"
printf '{"cursor":"x:2","dirs":[],"moved":[],"files":[],"rescan":[{"scope":"fs","reason":"daemon_died","path":"%s/fs"}],"count":0}\n' "$t" >"$t/answer.json"
expect "a rescan of the filesystem covers everything" 0

echo "$pass passed, $fail failed"
[ $fail = 0 ]
