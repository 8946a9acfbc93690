#!/bin/sh
# Every JSON shape of vbjournal is versioned and documented: changes,
# follow (one changes object a line), the full-rescan answer and
# consumers each carry "version": 1, and every key they print is one
# vbjournal(1), JSON OUTPUT, lists.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

man=$(cd "$(dirname "$0")/../../man" && pwd)
C=00000000000000aa:1
mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 2), (4, 0);
INSERT INTO changes(epoch, fs, handle, path) VALUES(2, 1, x'01', '/srv/a');
INSERT INTO moves(epoch, fs, handle, path) VALUES(3, 1, x'02', '/srv/b');
INSERT INTO gaps(epoch, fs, scope, reason, path) VALUES(3, 1, 'fs', 'overflow', '/srv');
INSERT INTO consumers(name, epoch) VALUES('backup', 1), ('late', 0);
EOT

if ! command -v python3 >/dev/null; then
	t_begin "json"
	t_skip "no python3"
	exit 0
fi

# The keys vbjournal(1) documents: every "word" in its JSON OUTPUT
# section.
sed -n '/^\.SH "\{0,1\}JSON OUTPUT/,/^\.SH /p' "$man/vbjournal.1" |
	grep -o '"[a-z_]*"' | tr -d '"' | sort -u >"$T/documented"

# check NAME FILE: each line of FILE is JSON; each object at the top (or
# each element of an array at the top) has "version": 1; every key at
# any depth is documented
check() {
	python3 - "$2" "$T/documented" >"$T/why" 2>&1 <<'EOP' ||
import json, sys
doc = set(open(sys.argv[2]).read().split())
lines = [l for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
if not lines:
    sys.exit("no output")
bad = []
def keys(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k not in doc:
                bad.append("undocumented key " + k)
            keys(x)
    elif isinstance(v, list):
        for x in v:
            keys(x)
for l in lines:
    v = json.loads(l)
    tops = v if isinstance(v, list) else [v]
    for o in tops:
        if not isinstance(o, dict) or o.get("version") != 1:
            bad.append("no \"version\": 1 in " + json.dumps(o)[:80])
    keys(v)
if bad:
    sys.exit("\n".join(sorted(set(bad))))
EOP
	{
		t_fail "$1"
		sed 's/^/#   /' "$T/why"
	}
}

t_begin "the man page documents JSON keys"
[ -s "$T/documented" ] || t_fail "vbjournal(1) has no JSON OUTPUT section with keys"
grep -qx version "$T/documented" || t_fail "vbjournal(1) does not document \"version\""
t_end

t_begin "changes --json: versioned and documented"
run vbjournal --journal "$T/j" changes --since "$C" --json
expect_rc 0 && check "changes --json" "$T/out"
t_end

t_begin "changes --json, full rescan required: versioned and documented"
run vbjournal --journal "$T/j" changes --since 0123456789abcdef:1 --json
expect_rc 3 && check "full rescan" "$T/out"
t_end

t_begin "follow --json: each line versioned and documented"
timeout 3 "$VBJ_BIN/vbjournal" --journal "$T/j" follow --since "$C" --json >"$T/out" 2>"$T/err"
[ "$(wc -l <"$T/out")" -ge 2 ] || t_fail "follow printed $(wc -l <"$T/out") lines, not one per epoch"
check "follow --json" "$T/out"
t_end

t_begin "consumers --json: versioned and documented"
run vbjournal --journal "$T/j" consumers --json
expect_rc 0 && check "consumers --json" "$T/out"
t_end
