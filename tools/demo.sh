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
echo "# the first watch put the hooks in: which write paths they cover"
run vbctl version

step "every write operation on it runs inside an SRCU section"
run sh -c 'mkdir /mnt/data/dir && echo hello > /mnt/data/dir/file && mv /mnt/data/dir/file /mnt/data/dir/renamed && chmod 600 /mnt/data/dir/renamed'
run vbctl stats

step "the barrier waits for every write in flight, and blocks no new write"
run vbctl barrier /mnt/data
run vbctl barrier /mnt/data --expedited
run vbctl stats --json

step "pre-modify records: told before each change, where it happens"
vbctl stream /mnt/data > /tmp/stream.txt 2>/dev/null & streamer=$!
# wait until the subscriber's watch is in place (2 watchers)
while ! vbctl stats --json | grep -q '"watchers":2'; do :; done
run sh -c 'mkdir /mnt/data/photos && echo jpeg > /mnt/data/photos/a.jpg && mv /mnt/data/photos/a.jpg /mnt/data/photos/b.jpg && setfattr -n trusted.tag -v 1 /mnt/data/photos/b.jpg 2>/dev/null; truncate -s 1 /mnt/data/photos/b.jpg; rm /mnt/data/photos/b.jpg; rmdir /mnt/data/photos'
kill -INT $streamer; wait $streamer
run cat /tmp/stream.txt
echo "# the consumer's protocol: read a batch, then barrier: every change it announced is complete"
run vbctl barrier /mnt/data

step "the same stream as JSON lines, with a small ring overflowing"
vbctl stream /mnt/data --json --ring 16384 > /tmp/stream.json 2>/dev/null & streamer=$!
while ! vbctl stats --json | grep -q '"watchers":2'; do :; done
kill -STOP $streamer
run sh -c 'for i in $(seq 1 300); do : > /mnt/data/f$i; done'
kill -CONT $streamer
kill -INT $streamer; wait $streamer
run sh -c "head -n 3 /tmp/stream.json; echo ...; grep overflow /tmp/stream.json; tail -n 2 /tmp/stream.json"

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
