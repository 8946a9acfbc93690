#!/bin/sh
# The journal's byte cap (vbjournald --max-size, vbj_trim_bytes()):
# beyond it the oldest epochs go, acked or not (a consumer behind them
# is told "full rescan required"), the last closed epoch stays, and the
# pages freed go back to the filesystem (incremental vacuum).
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

# 20 closed epochs of 200 directories each (200-byte handles), one open
mkjournal "$T/j" <<'EOT'
INSERT INTO filesystems(fs, uuid, mount) VALUES(1, 'u1', '/srv/data');
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 21)
INSERT INTO epochs(epoch, state) SELECT i, i < 21 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
INSERT INTO changes(epoch, fs, handle) SELECT (i - 1) / 200 + 1, 1,
	randomblob(200) FROM n;
INSERT INTO consumers(name, epoch) VALUES('behind', 2);
EOT
before=$(stat -c %s "$T/j/journal.db")

t_begin "under the cap: only what every consumer acked goes"
"$VBJ_HELPERS/vbj-mkjournal" "$T/j" 10000000 $((before * 2)) </dev/null ||
	t_fail "vbj-mkjournal failed"
run vbjournal --journal "$T/j" status --json
expect_out '"first_epoch":3,'
expect_out '"directory_rows":3600,'
t_end

t_begin "over it: the oldest epochs go, the file shrinks"
"$VBJ_HELPERS/vbj-mkjournal" "$T/j" 10000000 262144 </dev/null ||
	t_fail "vbj-mkjournal failed"
run vbjournal --journal "$T/j" status --json
expect_rc 0
expect_out '"last_closed":20,'
expect_no_out '"first_epoch":3,'
after=$(stat -c %s "$T/j/journal.db")
[ "$after" -le $((262144 + 65536)) ] ||
	t_fail "journal.db is $after bytes (was $before), cap 262144"
t_end

t_begin "a consumer behind the cap: full rescan required"
run vbjournal --journal "$T/j" changes --consumer behind
expect_rc 3
expect_out "full rescan required"
t_end

t_begin "the last closed epoch stays, however small the cap"
"$VBJ_HELPERS/vbj-mkjournal" "$T/j" 10000000 1 </dev/null ||
	t_fail "vbj-mkjournal failed"
run vbjournal --journal "$T/j" status --json
expect_out '"first_epoch":20,'
expect_out '"directory_rows":200,'
t_end
