#!/bin/sh
# The host test machinery itself: the runner counts passes, failures,
# skips and a test file that dies without a result, and fails the run;
# vbj-mkjournal makes a journal that vbjournal reads.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

t_begin "runner counts and fails"
mkdir "$T/tests"
cat >"$T/tests/t-a.sh" <<'EOT'
echo "ok - passes"
echo "not ok - fails"
echo "ok - skipped # SKIP no reason"
EOT
printf 'echo "ok - then dies"\nexit 1\n' >"$T/tests/t-b.sh"
printf 'exit 0\n' >"$T/tests/t-c.sh"
run sh "$(dirname "$0")/run-host-tests.sh" "$T/tests"
expect_rc 1
expect_out "not ok 2 t-a: fails"
expect_out "not ok 5 t-b (exit 1, 1 results)"
expect_out "not ok 6 t-c (exit 0, 0 results)"
[ "$(tail -n 1 "$T/out")" = "2 passed, 3 failed, 1 skipped" ] ||
	t_fail "closing line: $(tail -n 1 "$T/out")"
t_end

t_begin "runner passes a clean run"
rm "$T/tests/"*
echo 'echo "ok - fine"' >"$T/tests/t-a.sh"
run sh "$(dirname "$0")/run-host-tests.sh" "$T/tests"
expect_rc 0
[ "$(tail -n 1 "$T/out")" = "1 passed, 0 failed, 0 skipped" ] ||
	t_fail "closing line: $(tail -n 1 "$T/out")"
t_end

t_begin "vbj-mkjournal makes a journal vbjournal reads"
echo "INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 0);" |
	mkjournal "$T/j"
run vbjournal --journal "$T/j" cursor
expect_rc 0
expect_out "00000000000000aa:1"
t_end
