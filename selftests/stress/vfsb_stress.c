// SPDX-License-Identifier: GPL-2.0
/*
 * vfsb_stress: hooks that come and go under write load (guest only).
 *
 * One static program, several roles (run by selftests/stress/stress.sh
 * in the guest, mode "stress" of guest/init):
 *
 *   vfsb_stress writers SECONDS DIR...
 *	per DIR, one process mixing every kind of write the module hooks
 *	(open O_CREAT|O_TRUNC, write, pwrite, ftruncate, truncate, chmod,
 *	utimes, setxattr, rename, unlink, mkdir/rmdir, mmap store,
 *	io_uring write, splice and creating openat, AIO write) and one
 *	process looping on the cheapest mnt_want_write()/mnt_drop_write()
 *	pair (fchmodat) and write(): the call sites being patched are
 *	executed as often as possible. Ends after SECONDS (or SIGTERM)
 *	and prints its counts.
 *
 *   vfsb_stress vfsb CYCLES SECONDS HOLD_MS DIR...
 *	the module churn: load vfsbarrier.ko, open /dev/vfsbarrier, watch
 *	every DIR (the first watch registers the hooks), keep the watches
 *	HOLD_MS, close, unload (delete_module, retried while busy: the
 *	unload takes the hooks out), again; CYCLES cycles or SECONDS,
 *	whichever ends first. One line per cycle. Every cycle also opens
 *	an intent subscriber that watches nothing (so that no write waits
 *	for it), before the watches on odd cycles and after them on even
 *	ones, and closes it first: the hooks that may move a call change
 *	ftrace_ops while the hooks come in, while they are in, and on its
 *	close (the module's hookreg.c, "Moving calls").
 *
 *   vfsb_stress tracefs KIND CYCLES SECONDS
 *	the same churn with no vfsbarrier at all, by tracefs alone:
 *	KIND ftrace:	 set_ftrace_filter = mnt_want_write mnt_drop_write
 *			 (and the _file variants), current_tracer function,
 *			 then nop
 *	     data:	 the same with the data-write functions as well
 *			 (vfs_write, rw_verify_area, do_truncate, ...)
 *	     kprobe:	 kprobe_events p: and r: probes on mnt_want_write*
 *			 and mnt_drop_write*, enabled, disabled, removed
 *	     instances:	 one tracefs instance per hooked function, each with
 *			 its own function tracer (one ftrace_ops and one
 *			 patching round per function, as the module does)
 *	     mix:	 ftrace, kprobe and instances in turn
 *
 * Every cycle prints "stress: cycle N ..." so that a hang shows how far
 * the run got; the console's kernel lines (soft lockup, RCU stall) say
 * where it hung.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/aio_abi.h>

#include "vfsb.h"
#include "vfsb_uring.h"
#include "../mixed_writes.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* one write per line: lines of several processes do not mix */
	if (write(1, buf, n) < 0)
		return;
}

/* ---- writers ---- */

/* Every kind of write, in turn, in DIR/w<id>. */
static unsigned long writer_mixed(const char *dir, int id, double end)
{
	struct mixed_writes m;

	mixed_writes_init(&m, dir, id);
	while (!stop && now() < end)
		mixed_writes_round(&m);
	mixed_writes_exit(&m);
	return m.rounds;
}

/* The hottest pair: mnt_want_write()/mnt_drop_write() and vfs_write(). */
static unsigned long writer_tight(const char *dir, int id, double end)
{
	char f[300];
	char b[64] = { 0 };
	unsigned long n = 0;
	int fd;

	snprintf(f, sizeof(f), "%s/t%d", dir, id);
	fd = open(f, O_CREAT | O_RDWR, 0644);
	while (!stop && fd >= 0) {
		int i;

		for (i = 0; i < 64; i++) {
			fchmodat(AT_FDCWD, f, (i & 1) ? 0600 : 0644, 0);
			(void)!pwrite(fd, b, sizeof(b), 0);
		}
		n += 64;
		if (now() >= end)
			break;
	}
	if (fd >= 0)
		close(fd);
	return n;
}

static int cmd_writers(int argc, char **argv)
{
	double secs, end;
	int i, k, nproc = 0;
	pid_t pids[64];

	if (argc < 2)
		return 2;
	secs = atof(argv[0]);
	end = now() + secs;
	for (i = 1; i < argc && nproc < 62; i++) {
		for (k = 0; k < 2; k++) {
			pid_t pid = fork();

			if (pid == 0) {
				unsigned long n;

				signal(SIGTERM, on_term);
				n = k ? writer_tight(argv[i], getpid(), end)
				      : writer_mixed(argv[i], getpid(), end);
				say("stress: writer %s %s: %lu rounds",
				    k ? "tight" : "mixed", argv[i], n);
				_exit(0);
			}
			if (pid > 0)
				pids[nproc++] = pid;
		}
	}
	for (i = 0; i < nproc; i++) {
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR) {
			if (stop) {
				for (k = 0; k < nproc; k++)
					kill(pids[k], SIGTERM);
			}
		}
	}
	return 0;
}

/* ---- the module churn ---- */

/* An intent subscriber that watches nothing: its fd, or -1 (said why). */
static int intent_open(int c)
{
	int fd = vfsb_open();
	int ret;

	if (fd < 0) {
		say("stress: cycle %d: open %s: %s", c, VFSB_DEVICE_PATH,
		    strerror(errno));
		return -1;
	}
	ret = vfsb_subscribe_intent(fd, 0, 0, 0, NULL);
	if (ret) {
		say("stress: cycle %d: intent subscriber: %s", c,
		    strerror(-ret));
		close(fd);
		return -1;
	}
	return fd;
}

static int cmd_vfsb(int argc, char **argv)
{
	int cycles, hold_ms, i, c, ret, busy, idev = -1;
	double secs, t0, end, ta, tb, tc, td;

	if (argc < 4)
		return 2;
	cycles = atoi(argv[0]);
	secs = atof(argv[1]);
	hold_ms = atoi(argv[2]);
	t0 = now();
	end = t0 + secs;
	for (c = 1; c <= cycles && !stop && now() < end; c++) {
		int dev;

		ta = now();
		ret = vfsb_module_load();
		if (ret && ret != -EEXIST) {
			say("stress: cycle %d: load failed: %s", c, strerror(-ret));
			return 1;
		}
		dev = vfsb_open();
		if (dev < 0) {
			say("stress: cycle %d: open %s: %s", c, VFSB_DEVICE_PATH,
			    strerror(errno));
			return 1;
		}
		tb = now();
		if (c & 1)
			idev = intent_open(c);
		for (i = 3; i < argc; i++) {
			ret = vfsb_watch_path(dev, argv[i]);
			if (ret)
				say("stress: cycle %d: watch %s: %s", c, argv[i],
				    strerror(-ret));
		}
		if (!(c & 1))
			idev = intent_open(c);
		tc = now();
		usleep(hold_ms * 1000);
		if (idev >= 0)
			close(idev);
		close(dev);
		/* busy until the tracking's teardown has let go of it */
		busy = 0;
		while ((ret = vfsb_module_unload()) == -EBUSY ||
		       ret == -EAGAIN || ret == -EWOULDBLOCK) {
			if (++busy > 6000) {
				say("stress: cycle %d: unload busy for 60 s (refcnt %d)",
				    c, vfsb_module_refcnt());
				return 1;
			}
			usleep(10000);
		}
		if (ret) {
			say("stress: cycle %d: unload: %s", c, strerror(-ret));
			return 1;
		}
		td = now();
		say("stress: cycle %d load+open %.0f ms watch %.0f ms unload %.0f ms (%d busy) t=%.0f s",
		    c, (tb - ta) * 1e3, (tc - tb) * 1e3, (td - tc) * 1e3 - hold_ms,
		    busy, td - t0);
	}
	say("stress: done: %d cycles in %.0f s", c - 1, now() - t0);
	return 0;
}

/* ---- tracefs churn ---- */

#define TRACEFS "/sys/kernel/tracing"

static int tf_write(const char *file, const char *val, bool append)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void tf_must(const char *file, const char *val, bool append, int c)
{
	int ret = tf_write(file, val, append);

	if (ret)
		say("stress: cycle %d: %s <- '%s': %s", c, file, val,
		    strerror(-ret));
}

static const char *const want_drop[] = {
	"mnt_want_write", "mnt_drop_write",
	"mnt_want_write_file", "mnt_drop_write_file", NULL,
};

/* the functions the module hooks (hooks.c, emit.c), as far as present */
static const char *const hooked[] = {
	"mnt_want_write", "mnt_drop_write",
	"mnt_want_write_file", "mnt_drop_write_file",
	"generic_shutdown_super", "io_complete_rw", "aio_complete_rw",
	"vfs_write", "vfs_iter_write", "vfs_fallocate", "do_truncate",
	"do_page_mkwrite", "io_write", "aio_write", "rw_verify_area",
	"security_inode_create", "security_inode_unlink",
	"security_inode_rename", "security_inode_setattr",
	"security_inode_setxattr", "security_inode_mkdir",
	"security_inode_rmdir", NULL,
};

static void filter_set(const char *file, const char *const *fns)
{
	int i;

	tf_write(file, "", false);
	for (i = 0; fns[i]; i++)
		tf_write(file, fns[i], true);	/* absent ones just fail */
}

static void cycle_function(int c, const char *const *fns)
{
	filter_set("set_ftrace_filter", fns);
	tf_must("current_tracer", "function", false, c);
	usleep(20000);
	tf_must("current_tracer", "nop", false, c);
}

static void cycle_kprobe(int c)
{
	static const char *const ev[] = {
		"p:vfsbs/pww mnt_want_write", "r:vfsbs/rww mnt_want_write",
		"p:vfsbs/pwwf mnt_want_write_file",
		"r:vfsbs/rwwf mnt_want_write_file",
		"p:vfsbs/pdw mnt_drop_write", "p:vfsbs/pdwf mnt_drop_write_file",
		NULL,
	};
	int i;

	for (i = 0; ev[i]; i++)
		tf_must("kprobe_events", ev[i], true, c);
	tf_must("events/vfsbs/enable", "1", false, c);
	usleep(20000);
	tf_must("events/vfsbs/enable", "0", false, c);
	tf_must("kprobe_events", "", false, c);
}

static int ninst;

static void cycle_instances(int c)
{
	char path[256], file[300];
	int i;

	for (i = 0; i < ninst; i++) {
		snprintf(file, sizeof(file), "instances/vs%d/set_ftrace_filter", i);
		if (tf_write(file, hooked[i], false))
			continue;	/* absent on this kernel */
		snprintf(file, sizeof(file), "instances/vs%d/current_tracer", i);
		tf_must(file, "function", false, c);
	}
	usleep(20000);
	for (i = 0; i < ninst; i++) {
		snprintf(path, sizeof(path), "instances/vs%d/current_tracer", i);
		tf_write(path, "nop", false);
	}
}

static int cmd_tracefs(int argc, char **argv)
{
	const char *kind;
	int cycles, c, i;
	double t0, end, ta;
	char path[256];

	if (argc < 3)
		return 2;
	kind = argv[0];
	cycles = atoi(argv[1]);
	t0 = now();
	end = t0 + atof(argv[2]);
	if (access(TRACEFS "/current_tracer", F_OK) &&
	    mount("nodev", TRACEFS, "tracefs", 0, NULL)) {
		say("stress: cannot mount tracefs: %s", strerror(errno));
		return 1;
	}
	tf_write("tracing_on", "1", false);
	tf_write("buffer_size_kb", "64", false);
	if (!strcmp(kind, "instances") || !strcmp(kind, "mix")) {
		for (i = 0; hooked[i]; i++) {
			snprintf(path, sizeof(path), TRACEFS "/instances/vs%d", i);
			if (mkdir(path, 0755) && errno != EEXIST) {
				say("stress: mkdir %s: %s", path, strerror(errno));
				return 1;
			}
			snprintf(path, sizeof(path), "instances/vs%d/buffer_size_kb", i);
			tf_write(path, "16", false);
		}
		ninst = i;
	}
	for (c = 1; c <= cycles && !stop && now() < end; c++) {
		const char *k = kind;

		if (!strcmp(kind, "mix"))
			k = (const char *[]){ "ftrace", "kprobe", "instances",
					      "data" }[c % 4];
		ta = now();
		if (!strcmp(k, "ftrace"))
			cycle_function(c, want_drop);
		else if (!strcmp(k, "data"))
			cycle_function(c, hooked);
		else if (!strcmp(k, "kprobe"))
			cycle_kprobe(c);
		else if (!strcmp(k, "instances"))
			cycle_instances(c);
		else
			return 2;
		say("stress: cycle %d %s %.0f ms t=%.0f s", c, k,
		    (now() - ta) * 1e3, now() - t0);
	}
	say("stress: done: %d cycles in %.0f s", c - 1, now() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "writers"))
		return cmd_writers(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "vfsb"))
		return cmd_vfsb(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "tracefs"))
		return cmd_tracefs(argc - 2, argv + 2);
	fprintf(stderr,
		"usage: vfsb_stress writers SECONDS DIR...\n"
		"       vfsb_stress vfsb CYCLES SECONDS HOLD_MS DIR...\n"
		"       vfsb_stress tracefs ftrace|data|kprobe|instances|mix CYCLES SECONDS\n");
	return 2;
}
