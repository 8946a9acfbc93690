#!/bin/sh
# What `make demo` shows inside the guest, step by step, for a person.
step() { printf '\n=== %s\n' "$*"; }
run() { echo "# $*"; "$@"; }

step "load the module"
run insmod "$VFSB_KO"
run sh -c 'dmesg | grep vfsbarrier | tail -n 1'
run ls -l /dev/vfsbarrier
run /tests/vbctl version
step "unload it"
run rmmod vfsbarrier
run sh -c 'ls /dev/vfsbarrier 2>&1'
echo
echo "demo: done"
