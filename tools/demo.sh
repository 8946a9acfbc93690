#!/bin/sh
# What `make demo` shows inside the guest, step by step, for a person.
step() { printf '\n=== %s\n' "$*"; }
run() { echo "# $*"; "$@"; }
PATH=/tests:$PATH

step "load the module: a root-only misc device appears"
run insmod "$VFSB_KO"
run ls -l /dev/vfsbarrier
run vbctl version

step "watch a filesystem (a tmpfs at /mnt/data)"
mkdir -p /mnt/data && mount -t tmpfs tmpfs /mnt/data
vbctl watch /mnt/data & watcher=$!
# wait until the watch is in place (vbctl stats lists it)
while ! vbctl stats | grep -q tmpfs; do :; done
run vbctl stats

step "every write operation on it runs inside an SRCU section"
run sh -c 'mkdir /mnt/data/dir && echo hello > /mnt/data/dir/file && mv /mnt/data/dir/file /mnt/data/dir/renamed && chmod 600 /mnt/data/dir/renamed'
run vbctl stats

step "the barrier waits for every write in flight, and blocks no new write"
run vbctl barrier /mnt/data
run vbctl barrier /mnt/data --expedited
run vbctl stats --json

step "errors are explicit"
run vbctl barrier /tmp
run vbctl barrier /nonexistent

step "stop watching: the hooks leave the kernel once the last watch is gone"
kill $watcher; wait $watcher 2>/dev/null
run vbctl stats
while [ "$(cat /sys/module/vfsbarrier/refcnt)" != 0 ]; do :; done
run rmmod vfsbarrier
run sh -c 'ls /dev/vfsbarrier 2>&1'
echo
echo "demo: done"
