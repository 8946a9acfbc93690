#!/bin/sh
# kselftest-style runner inside the guest: every test program's own KTAP
# output is nested (indented) under one result line per program.
# Exit code 4 from a program means skip, as in kselftest.
cd /tests || exit 1
insmod "$VFSB_KO" || echo "# insmod vfsbarrier failed"

tests=$(cat /tests/tests.list)
n=0
for t in $tests; do n=$((n + 1)); done
echo "KTAP version 1"
echo "1..$n"
i=0
for t in $tests; do
	i=$((i + 1))
	echo "# selftests: vfsbarrier: $t"
	# Each program must be able to run alone: reload the module if a
	# previous one left it out.
	[ -e /sys/module/vfsbarrier ] || insmod "$VFSB_KO"
	t0=$(cut -d' ' -f1 /proc/uptime)
	# Stream the program's output, indented, while it runs.
	{ "./$t" 2>&1; echo $? > /tmp/rc; } | sed 's/^/  /'
	rc=$(cat /tmp/rc)
	case $rc in
	0) echo "ok $i selftests: vfsbarrier: $t" ;;
	4) echo "ok $i selftests: vfsbarrier: $t # SKIP" ;;
	*) echo "not ok $i selftests: vfsbarrier: $t # exit=$rc" ;;
	esac
	# what each program costs (the CI's time budget): uptime seconds
	awk -v t="$t" -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" \
		'BEGIN { printf "vfsb-guest: %s took %.1f s\n", t, b - a }'
done
echo "vfsb-guest: tests done"
