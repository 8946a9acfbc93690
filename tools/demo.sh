#!/bin/sh
# What `make demo` shows inside the guest, step by step, for a person.
# scripts/demo.sh boots the guest twice on the same two disks (/dev/vda
# the data, /dev/vdb the journal; formatted by the host), with
# VFSB_DEMO_PHASE on the kernel command line:
#   crash   vbjournald journals /srv/data, a backup takes its cursor,
#           files change, then "DEMO kill" tells the host to kill QEMU
#   after   the next boot: vbjournald recovers, `vbjournal changes
#           --since` names what changed; then the primitives underneath
#           (the barrier, the record stream)
# Without a phase (scripts/run-guest.sh demo alone): the primitives only.
step() { printf '\n=== %s\n' "$*"; }
run() { echo "# $*"; "$@"; }
PATH=/tests:$PATH
phase=${VFSB_DEMO_PHASE:-}
cursor_file=/var/lib/backup-cursor

# disks: the data at /srv/data, the journal's filesystem at /var/lib
mount_disks() {
	mkdir -p /srv/data /var/lib
	mount -t ext4 /dev/vda /srv/data || { echo "DEMO FAIL: mount /dev/vda"; return 1; }
	mount -t ext4 /dev/vdb /var/lib || { echo "DEMO FAIL: mount /dev/vdb"; return 1; }
	insmod "$VFSB_KO" || { echo "DEMO FAIL: insmod"; return 1; }
}

# start_daemon: vbjournald from /etc/vbjournald.conf, in the background
# ($jd), once it says it watches every filesystem
start_daemon() {
	vbjournald --config /etc/vbjournald.conf >/tmp/jd.log 2>&1 &
	jd=$!
	i=0
	until grep -q "vbjournald: journal" /tmp/jd.log; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 $jd 2>/dev/null; then
			echo "DEMO FAIL: vbjournald did not start"
			cat /tmp/jd.log
			return 1
		fi
		sleep 0.1
	done
	echo "# vbjournald --config /etc/vbjournald.conf &"
	cat /tmp/jd.log
}

config() {
	cat >/etc/vbjournald.conf <<-EOF
		fs /srv/data
		journal /var/lib/vbjournal
		interval 1h
	EOF
}

journal_crash() {
	step "a file server: /srv/data (ext4 on /dev/vda), the journal on another disk (/var/lib, /dev/vdb)"
	mount_disks || return 1
	mkdir -p /srv/data/docs /srv/data/photos/2026 /srv/data/projects/site/css
	echo "draft" > /srv/data/docs/notes.txt
	echo "old" > /srv/data/docs/old.txt
	echo "body {}" > /srv/data/projects/site/css/main.css
	sync
	run find /srv/data -path /srv/data/lost+found -prune -o -print

	step "configure vbjournald and start it (the package's unit runs the same)"
	config
	# (with a long interval, so that the epoch is still open at the crash)
	run cat /etc/vbjournald.conf
	start_daemon || return 1

	step "the backup (or sync, or indexer) takes its cursor after its run"
	echo "# vbjournal checkpoint > $cursor_file"
	vbjournal checkpoint > $cursor_file || return 1
	sync
	run cat $cursor_file

	step "files change"
	run sh -c 'echo hello > /srv/data/photos/2026/img1.jpg'
	run sh -c 'echo more >> /srv/data/docs/notes.txt'
	run mkdir /srv/data/docs/drafts
	run rm /srv/data/docs/old.txt
	run mv /srv/data/projects/site /srv/data/projects/site-2025
	echo "# the changes reach the disk (as an application's fsync would make them);"
	echo "# no checkpoint: the epoch after the cursor is still open"
	run sync
	echo "DEMO kill: the host kills QEMU now (SIGKILL: no shutdown, no checkpoint)"
	sleep 600
}

journal_after() {
	step "booted again on the same disks"
	mount_disks || return 1
	config
	run cat $cursor_file
	echo "# vbjournald recovers the epoch the crash left open before it answers"
	start_daemon || return 1

	step "the backup asks what changed since its cursor"
	run vbjournal changes --since "$(cat $cursor_file)"
	echo "# exit $?"
	run vbjournal changes --since "$(cat $cursor_file)" --json
	echo "# and what the disk holds now:"
	run find /srv/data -path /srv/data/lost+found -prune -o -print

	step "stop vbjournald (systemctl stop does the same: SIGTERM)"
	echo "# kill -TERM \$(pidof vbjournald)"
	kill $jd
	wait $jd
	echo "# vbjournald exited with $?"
	umount /srv/data
	umount /var/lib
}

primitives() {
	step "underneath: the module's misc device, root only"
	if [ -e /sys/module/vfsbarrier ]; then
		echo "# (loaded)"
	else
		run insmod "$VFSB_KO"
	fi
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
}

case $phase in
crash)
	journal_crash
	# only reached when something failed before the kill
	echo "DEMO FAIL: not killed"
	;;
after)
	journal_after && primitives
	;;
*)
	primitives
	;;
esac
echo
echo "demo: done"
