#!/bin/sh
# vbjournal unregister NAME: a consumer that is gone stops holding the
# journal's epochs (the next checkpoint may trim what only it needed);
# an unknown name is an error, and the other consumers stay.
# shellcheck source=tools/tests/lib.sh
. "$(dirname "$0")/lib.sh"

mkjournal "$T/j" <<'EOT'
INSERT INTO epochs(epoch, state) VALUES(1, 1), (2, 1), (3, 1), (4, 0);
INSERT INTO consumers(name, epoch) VALUES('old', 1), ('app', 3);
EOT

t_begin "unregister a consumer"
run vbjournal --journal "$T/j" unregister old
expect_rc 0
run vbjournal --journal "$T/j" consumers
expect_rc 0
grep -q '^old ' "$T/out" && t_fail "old is still listed"
expect_out "app"
t_end

t_begin "unregister a name not registered: exit 1"
run vbjournal --journal "$T/j" unregister old
expect_rc 1
expect_err "consumer old: not registered"
t_end

t_begin "unregister without a name: usage"
run vbjournal --journal "$T/j" unregister
expect_rc 2
t_end

t_begin "its epochs are no longer kept for it"
"$VBJ_HELPERS/vbj-mkjournal" "$T/j" 10000000 </dev/null ||
	t_fail "vbj-mkjournal failed"
run vbjournal --journal "$T/j" status --json
expect_out '"first_epoch":3,'
t_end
