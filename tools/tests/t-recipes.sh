#!/bin/sh
# The recipes of docs/CONSUMERS.md that are executable: the Watchman-style
# indexer (docs/recipes/index.py) keeps its index from the journal's
# answers, and after each update it must equal a full crawl of the tree;
# an answer that lacks the changes must leave it different (the check
# can fail). The journals hold real handles (root), as in t-paths.sh.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
index_py=$here/../../docs/recipes/index.py
if [ "$(id -u)" != 0 ] || ! "$VBJ_HELPERS/vbj-handle" "$T" >/dev/null 2>&1 ||
	! command -v python3 >/dev/null; then
	t_begin "recipes: the indexer"
	t_skip "needs root, file handles and python3"
	exit 0
fi
# index.py runs vbjournal from PATH
PATH=$VBJ_BIN:$PATH
export PATH

R=$(cd -P "$T" && pwd)/fs
S=$R/src J=$T/j
mkdir -p "$S/a/deep" "$S/b" "$S/mv/sub"
echo 1 >"$S/a/f"
echo 2 >"$S/a/deep/g"
echo 3 >"$S/mv/sub/y"
mkjournal "$J" <<EOT
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '$R');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 0);
EOT

# same_as_crawl INDEX: the index equals a full crawl of $S
same_as_crawl() {
	python3 "$index_py" --crawl "$S" >"$T/crawl.json"
	python3 - "$1" "$T/crawl.json" <<'EOP'
import json, sys
idx = json.load(open(sys.argv[1]))["index"]
crawl = json.load(open(sys.argv[2]))
for k in sorted(set(idx) | set(crawl)):
    if idx.get(k) != crawl.get(k):
        print("# differs:", repr(k), idx.get(k), crawl.get(k))
        sys.exit(1)
EOP
}

t_begin "recipes: the indexer's first run crawls from a cursor taken first"
run python3 "$index_py" --journal "$J" "$S" "$T/index.json"
expect_rc 0
expect_out "00000000000000aa:1"
same_as_crawl "$T/index.json" || t_fail "the index is not the crawl"
run vbjournal --journal "$J" consumers
expect_out "indexer epoch 1"
t_end

echo 11 >"$S/a/f"
rm -r "$S/a/deep"
mkdir -p "$S/a/new/inner"
echo n >"$S/a/new/inner/n"
printf 'x\n' >"$S/b/line${nl:-
}break$(printf '\377')"
mv "$S/mv" "$S/b/mv2"
chmod 700 "$S/b"
cp "$T/index.json" "$T/stale.json"
HA=$(handle "$S/a") HB=$(handle "$S/b") HR=$(handle "$S") HM=$(handle "$S/b/mv2")

t_begin "recipes: an answer without the changes leaves the index stale"
mkjournal "$J" <<EOT
INSERT INTO epochs(epoch, state) VALUES(3, 0);
UPDATE epochs SET state = 1 WHERE epoch = 2;
INSERT INTO consumers(name, epoch) VALUES('stale', 1);
EOT
run python3 "$index_py" --journal "$J" --consumer stale "$S" "$T/stale.json"
expect_rc 0
! same_as_crawl "$T/stale.json" >/dev/null || t_fail "no difference found"
t_end

t_begin "recipes: dir and moved entries bring the index up to date"
mkjournal "$J" <<EOT
INSERT INTO changes(epoch, fs, handle, path) VALUES
	(2, 1, x'$HA', '$S/a'), (2, 1, x'$HB', '$S/b'), (2, 1, x'$HR', '$S');
INSERT INTO moves(epoch, fs, handle, path) VALUES (2, 1, x'$HM', '$S/b/mv2');
EOT
run python3 "$index_py" --journal "$J" "$S" "$T/index.json"
expect_rc 0
expect_out "00000000000000aa:2"
same_as_crawl "$T/index.json" || t_fail "the index is not the crawl"
t_end

t_begin "recipes: a rescan: the indexer crawls again"
echo unnamed >"$S/a/unnamed"
mkjournal "$J" <<EOT
INSERT INTO epochs(epoch, state) VALUES(4, 0);
UPDATE epochs SET state = 1 WHERE epoch = 3;
INSERT INTO gaps(epoch, fs, scope, reason, path) VALUES (3, 1, 'fs', 'overflow', '$R');
EOT
run python3 "$index_py" --journal "$J" "$S" "$T/index.json"
expect_rc 0
same_as_crawl "$T/index.json" || t_fail "the index is not the crawl"
t_end
