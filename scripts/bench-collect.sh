#!/bin/sh
# Host side of `make bench`: take results.json and the results table out
# of the guest's console log into $VFSB_BUILD/bench/ (results.json,
# results.txt).
# Usage: bench-collect.sh [KREL | CONSOLE_LOG]
#   Default: the newest $VFSB_BUILD/*/console-bench.log.
#   VFSB_COLLECT_DIR: another directory under $VFSB_BUILD than bench/
#   (scripts/bench.sh puts the icount boot's figures in bench-icount/).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${VFSB_BUILD:-$top/build}
arg=${1:-}
if [ -f "$arg" ]; then
	log=$arg
elif [ -n "$arg" ]; then
	log=$build/$arg/console-bench.log
else
	# the newest; ls -t is the portable way to say that, and these names
	# are ours (a kernel release each)
	# shellcheck disable=SC2012
	log=$(ls -t "$build"/*/console-bench.log 2>/dev/null | head -n 1 || true)
fi
if [ -z "$log" ] || [ ! -f "$log" ]; then
	echo "bench-collect: no console log (${log:-$build/*/console-bench.log})" >&2
	exit 1
fi
dst=$build/${VFSB_COLLECT_DIR:-bench}
mkdir -p "$dst"
cp "$log" "$dst/console.log"

# The serial console ends lines with CR LF; the guest printed the JSON
# in prefixed chunks, to be joined without separators.
tr -d '\r' < "$log" | sed -n 's/^VFSB-JSON: //p' | tr -d '\n' > "$dst/results.json.tmp"
if [ ! -s "$dst/results.json.tmp" ]; then
	rm -f "$dst/results.json.tmp"
	echo "bench-collect: no results in $log (did the guest finish?)" >&2
	exit 1
fi
echo >> "$dst/results.json.tmp"
if command -v python3 >/dev/null 2>&1; then
	# Which sources: the tree as it is now (the guest cannot know).
	commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git -C "$top" status --porcelain -- module include 2>/dev/null | wc -l)
	if ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["source"] = {"commit_at_collection": sys.argv[2],
               "module_or_uapi_files_modified": int(sys.argv[3])}
json.dump(d, sys.stdout, indent=2)
print()' "$dst/results.json.tmp" "$commit" "$dirty" > "$dst/results.json.pretty"; then
		rm -f "$dst/results.json.pretty"
		mv "$dst/results.json.tmp" "$dst/results.json.broken"
		echo "bench-collect: the JSON in $log does not parse; kept as $dst/results.json.broken" >&2
		exit 1
	fi
	mv "$dst/results.json.pretty" "$dst/results.json"
	rm -f "$dst/results.json.tmp"
else
	mv "$dst/results.json.tmp" "$dst/results.json"
fi
tr -d '\r' < "$log" |
	sed -n '/^===== vfsbarrier benchmark results =====/,/^===== end of results =====/p' \
	> "$dst/results.txt"
if command -v python3 >/dev/null 2>&1 &&
	python3 "$top/scripts/bench-targets.py" "$dst/results.json" > "$dst/targets.md"; then
	echo "===== targets (issue 6) ====="
	cat "$dst/targets.md"
fi
echo "bench-collect: $dst/results.json, $dst/results.txt, $dst/targets.md (from $log)"
