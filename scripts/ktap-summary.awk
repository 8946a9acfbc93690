# Count the leaf results of the guest's KTAP stream and print the closing
# line. A program's own result line counts only when it produced no
# nested results (e.g. it crashed before printing any).
# Exit status 1 when any test failed or no test ran at all.
/^vfsb-guest: ----- dmesg/ { stop = 1 }
stop { next }
/^# selftests: vfsbarrier: / { prog = $4; nested = 0; next }
/^  +(not )?ok [0-9]+ / {
	nested++
	record($0, prog ": ")
	next
}
/^(not )?ok [0-9]+ selftests: vfsbarrier: / {
	if (!nested || $0 ~ /^not ok/ && !nested_fail)
		record($0, "")
	nested_fail = 0
	next
}
function record(line, prefix,    name, skip) {
	sub(/^ +/, "", line)
	skip = line ~ /# *SKIP/
	name = line
	sub(/^(not )?ok [0-9]+ /, "", name)
	if (line ~ /^not ok/) {
		failed++; nested_fail = 1
		printf "FAIL  %s%s\n", prefix, name
	} else if (skip) {
		skipped++
		printf "SKIP  %s%s\n", prefix, name
	} else {
		passed++
		printf "PASS  %s%s\n", prefix, name
	}
}
END {
	printf "%d passed, %d failed, %d skipped\n", passed, failed, skipped
	exit (failed > 0 || passed + failed == 0) ? 1 : 0
}
