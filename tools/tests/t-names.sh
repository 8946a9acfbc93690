#!/bin/sh
# Directory names may hold any byte but "/" and NUL: text output escapes
# them (C escapes for control characters and backslash, \xNN for bytes
# that are not UTF-8), so that a name cannot forge a line; JSON carries
# them losslessly ("path", and "path_hex" beside it when the name is
# not UTF-8) and is valid JSON.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

# hex STRING: its bytes in hex, for SQL's x'..'
hex() {
	printf '%s' "$1" | od -An -tx1 | tr -d ' \n'
}

nl='
'
tab=$(printf '\t')
cr=$(printf '\r')
ff=$(printf '\377')
soh=$(printf '\001')
del=$(printf '\177')
# name and what text output must print for it
set -- \
	"/fs/evil${nl}dir /etc" '/fs/evil\ndir /etc' \
	"/fs/t${tab}ab${cr}x" '/fs/t\tab\rx' \
	'/fs/back\slash' '/fs/back\\slash' \
	"/fs/bad${ff}byte" '/fs/bad\xffbyte' \
	"/fs/ctl${soh}${del}" '/fs/ctl\x01\x7f' \
	'/fs/café' '/fs/café' \
	'/fs/quote"and space' '/fs/quote"and space'
sql="INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', x'$(hex "/fs${nl}x")');
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 0);
INSERT INTO gaps(epoch, fs, scope, reason, path)
	VALUES(2, 1, 'fs', 'overflow', CAST(x'$(hex "/fs${nl}x")' AS TEXT));"
i=0
: >"$T/want"
: >"$T/names"
while [ $# -gt 0 ]; do
	i=$((i + 1))
	sql="$sql
INSERT INTO changes(epoch, fs, handle, path)
	VALUES(2, 1, x'0$i', CAST(x'$(hex "$1")' AS TEXT));"
	hex "$1" >>"$T/names"
	echo >>"$T/names"
	# no handle to open: the path stored, said so
	printf 'dir %s (stored path)\n' "$2" >>"$T/want"
	shift 2
done
echo "$sql" | mkjournal "$T/j"
printf 'rescan fs %s (overflow)\n' '/fs\nx' >>"$T/want"
echo "cursor 00000000000000aa:2" >>"$T/want"
sort "$T/want" >"$T/want.sorted"

t_begin "text: one line per directory, escaped"
run vbjournal --journal "$T/j" changes --since 00000000000000aa:1
expect_rc 0
sort "$T/out" >"$T/out.sorted"
if ! cmp -s "$T/want.sorted" "$T/out.sorted"; then
	t_fail "lines differ"
	diff "$T/want.sorted" "$T/out.sorted" | sed 's/^/#   /'
fi
t_end

t_begin "json: valid, and every name's bytes in it"
if ! command -v python3 >/dev/null 2>&1; then
	t_skip "no python3 to read the JSON"
else
	run vbjournal --journal "$T/j" changes --since 00000000000000aa:1 --json
	expect_rc 0
	if ! python3 - "$T/out" "$T/names" <<'EOP' >"$T/py" 2>&1; then
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
want = {bytes.fromhex(l.strip()) for l in open(sys.argv[2]) if l.strip()}
got = set()
for d in doc["dirs"]:
    raw = d["path"].encode("utf-8")
    if "path_hex" in d:
        b = bytes.fromhex(d["path_hex"])
        assert b != raw, "path_hex beside a UTF-8 name: %r" % d
        got.add(b)
    else:
        got.add(raw)
assert got == want, "names differ: got %r want %r" % (got, want)
r = doc["rescan"][0]
rb = bytes.fromhex(r["path_hex"]) if "path_hex" in r else r["path"].encode()
assert rb == b"/fs\nx", r
EOP
		t_fail "the JSON does not carry the names"
		sed 's/^/#   /' "$T/py"
		t_show
	fi
	t_end
fi
