// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing hooked functions with the kernel's other users of ftrace: a
 * kprobe with a post_handler (which, like a livepatch, needs ftrace's
 * IPMODIFY on its function) loads while a filesystem is watched, and a
 * watch begins while one is held; where such a kprobe keeps intent mode
 * from making a call wait, the call goes on and its filesystem gets a
 * RESCAN; and a hook that ftrace's recursion guard skips (a hooked call
 * made from inside another tracer's handler) gives a RESCAN too.
 *
 * The other user is selftests/kmod's test module, which the harness
 * builds for each kernel and puts at TESTKO; each test loads it with
 * the parameters it needs and unloads it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "vfsb.h"
#include "aio.h"
#include "hold_calls.h"
#include "modparam.h"
#include "rec_batch.h"
#include "testfs.h"
#include "kselftest_harness.h"

#define TESTKO		"/lib/vfsb/vfsb_testkmod.ko"
#define TESTKO_PARAMS	"/sys/module/vfsb_testkmod/parameters/"
#define DIR_T		"/tmp/hs-t"
#define DIR_OV		"/tmp/hs-ov"
#define LONG_MS		60000	/* an intent timeout no test reaches */
#define POST_KPROBE	"kprobe=rw_verify_area post=1"

/* Loads the test module with params: 0 or -errno (finit_module's). */
static int testko_load(const char *params)
{
	int fd = open(TESTKO, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int testko_unload(void)
{
	return syscall(SYS_delete_module, "vfsb_testkmod", O_NONBLOCK) ?
	       -errno : 0;
}

static long testko_hits(void)
{
	char buf[32];

	if (sysfs_read(TESTKO_PARAMS "hits", buf, sizeof(buf)))
		return -1;
	return atol(buf);
}

static int append(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, "abc", 3);
	close(fd);
	return n == 3 ? 0 : n < 0 ? -errno : -EIO;
}

static long long size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -errno : st.st_size;
}

/* A whole record, items included. */
union rec {
	struct vfsb_record r;
	char bytes[VFSB_RECORD_MAX];
};

/*
 * Waits (10 s at most) for a record of want_type with all of want_flags
 * and copies it whole: 0 or -ETIMEDOUT.
 */
static int wait_record(int dev, int want_type, __u32 want_flags,
		       union rec *out)
{
	static struct rec_batch b;
	struct pollfd p = { .fd = dev, .events = POLLIN };
	int tries, i;

	for (tries = 0; tries < 100; tries++) {
		if (rec_drain(dev, &b))
			return -EIO;
		for (i = 0; i < b.n; i++) {
			struct vfsb_record *r = b.rec[i];

			if (r->type == want_type &&
			    (r->flags & want_flags) == want_flags) {
				memcpy(out, r, r->size);
				return 0;
			}
		}
		poll(&p, 1, 100);
	}
	return -ETIMEDOUT;
}

/*
 * Waits (10 s at most) for CHANGE records with any of want_reasons and
 * copies the last one of the first batch that has one: 0 or -ETIMEDOUT.
 */
static int wait_change(int dev, __u32 want_reasons, union rec *out)
{
	static struct rec_batch b;
	struct pollfd p = { .fd = dev, .events = POLLIN };
	int tries, i, found;

	for (tries = 0; tries < 100; tries++) {
		if (rec_drain(dev, &b))
			return -EIO;
		for (i = 0, found = 0; i < b.n; i++) {
			struct vfsb_record *r = b.rec[i];

			if (r->type == VFSB_REC_CHANGE &&
			    (r->reasons & want_reasons)) {
				memcpy(out, r, r->size);
				found = 1;
			}
		}
		if (found)
			return 0;
		poll(&p, 1, 100);
	}
	return -ETIMEDOUT;
}

/* A writer in a process of its own; its result (0 or -errno) on a pipe. */
struct child {
	pid_t pid;
	int res;
};

static int child_start(struct child *ch, int (*fn)(const char *),
		       const char *path)
{
	int rp[2];

	if (pipe2(rp, O_CLOEXEC))
		return -errno;
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (!ch->pid) {
		int r, fd;

		/* not the subscriber's device: it must not count as its own */
		for (fd = 3; fd < 1024; fd++)
			if (fd != rp[1])
				close(fd);
		r = fn(path);
		_exit(write(rp[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(rp[1]);
	ch->res = rp[0];
	return 0;
}

/* The child's result within ms: 0 or -errno it reported; 1: none yet. */
static int child_result(struct child *ch, int ms, int *res)
{
	struct pollfd p = { .fd = ch->res, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return 1;
	if (read(ch->res, res, sizeof(*res)) != sizeof(*res))
		return -EIO;
	return 0;
}

static void child_end(struct child *ch)
{
	close(ch->res);
	kill(ch->pid, SIGKILL);
	waitpid(ch->pid, NULL, 0);
}

static int op_mkdir(const char *path)
{
	return mkdir(path, 0755) ? -errno : 0;
}

/* A fresh tmpfs with directories d and e and the file d/f. */
static int setup_fs(void)
{
	int ret = mount_tmpfs(DIR_T);

	if (ret)
		return ret;
	if (mkdir(DIR_T "/d", 0755) || mkdir(DIR_T "/e", 0755) ||
	    put_file(DIR_T "/d/f", ""))
		return -errno;
	return 0;
}

/*
 * A post_handler kprobe on a function the watch hooks (rw_verify_area)
 * loads while the watch is in, and fires.
 */
TEST(post_handler_kprobe_loads_while_watched)
{
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	ASSERT_EQ(0, testko_load(POST_KPROBE));
	EXPECT_EQ(0, append(DIR_T "/d/f"));
	EXPECT_LT(0, testko_hits());
	EXPECT_EQ(0, testko_unload());
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * The namespace helpers that kernel threads call (vfs_unlink() and the
 * rest) are redirected only for an intent subscriber: a post_handler
 * kprobe on one loads while a filesystem is watched without one, and
 * fires.
 */
TEST(post_handler_kprobe_on_a_namespace_helper_loads_while_watched)
{
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	ASSERT_EQ(0, testko_load("kprobe=vfs_unlink post=1"));
	EXPECT_EQ(0, unlink(DIR_T "/d/f"));
	EXPECT_LT(0, testko_hits());
	EXPECT_EQ(0, testko_unload());
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * No change of a watched filesystem went unbracketed, and the last
 * record of want_reasons was announced inside its section.
 */
static void expect_fenced(struct __test_metadata *_metadata, int dev,
			  __u32 want_reasons)
{
	struct vfsb_sb_stats st;
	union rec u;

	ASSERT_EQ(0, wait_change(dev, want_reasons, &u));
	EXPECT_FALSE(u.r.flags & VFSB_RECF_UNFENCED);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_T, &st));
	EXPECT_EQ(0, st.missed);
	EXPECT_EQ(0, st.in_flight);
}

/*
 * Write access and the kernel threads' data helpers are bracketed on
 * every watched filesystem, not only for an intent subscriber: a
 * post_handler kprobe (or a livepatch) on mnt_want_write() loads while
 * a filesystem is watched, fires, and the watched changes are still
 * announced inside their sections, none missed.
 */
TEST(post_handler_kprobe_on_write_access_loads_while_watched)
{
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	ASSERT_EQ(0, testko_load("kprobe=mnt_want_write post=1"));
	EXPECT_EQ(0, mkdir(DIR_T "/d/x", 0755));
	EXPECT_LT(0, testko_hits());
	expect_fenced(_metadata, dev, VFSB_R_CREATE);
	EXPECT_EQ(0, testko_unload());
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* The data helpers' writes, by a system call that reaches each. */
static int op_fallocate(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = fallocate(fd, 0, 0, 8192) ? -errno : 0;
	close(fd);
	return ret;
}

/* sendfile(2) to a regular file: do_splice_direct() */
static int op_sendfile(const char *path)
{
	int in = open(DIR_T "/e/src", O_RDONLY | O_CLOEXEC);
	int out = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (in >= 0 && out >= 0)
		n = sendfile(out, in, NULL, 3);
	if (n < 0)
		n = -errno;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n == 3 ? 0 : n < 0 ? (int)n : -EIO;
}

/* copy_file_range(2): vfs_copy_file_range() */
static int op_copy_range(const char *path)
{
	int in = open(DIR_T "/e/src", O_RDONLY | O_CLOEXEC);
	int out = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (in >= 0 && out >= 0)
		n = copy_file_range(in, NULL, out, NULL, 3, 0);
	if (n < 0)
		n = -errno;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n == 3 ? 0 : n < 0 ? (int)n : -EIO;
}

/* an io_uring write: io_write() */
static int op_uring_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = uring_write1(fd, "abc", 3, 0);
	close(fd);
	return ret;
}

/*
 * An AIO write through an overlay whose upper layer is in the watched
 * filesystem: overlayfs submits it to the upper file with
 * vfs_iocb_iter_write() and an iocb of its own, completed by the
 * upper filesystem.
 */
static int op_overlay_aio(const char *path)
{
	int fd, ret;

	if (mkdir(DIR_T "/u", 0755) || mkdir(DIR_T "/w", 0755))
		return -errno;
	mkdir(DIR_OV, 0755);
	if (mount("overlay", DIR_OV, "overlay", 0,
		  "lowerdir=" DIR_T "/e,upperdir=" DIR_T "/u,workdir="
		  DIR_T "/w"))
		return -errno;
	fd = open(DIR_OV "/f", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
	} else {
		ret = aio_write1(fd, "abc", 3, 0);
		close(fd);
	}
	umount2(DIR_OV, MNT_DETACH);
	if (!ret && size_of(DIR_T "/u/f") != 3)
		ret = -EIO;
	return ret;
}

static const struct data_helper {
	const char *params;	/* the test module's: who holds what */
	int (*op)(const char *path);
} data_helpers[] = {
	{ "ipmodify=vfs_fallocate", op_fallocate },
	{ "ipmodify=do_splice_direct", op_sendfile },
	{ "ipmodify=vfs_copy_file_range", op_copy_range },
	{ "ipmodify=io_write", op_uring_write },
	{ "ipmodify=vfs_iocb_iter_write", op_overlay_aio },
};

/*
 * The data helpers that kernel threads write through (vfs_fallocate(),
 * do_splice_direct(), vfs_copy_file_range() and the rest) and the async
 * submissions (io_uring's io_write(), the nested iocbs of
 * vfs_iocb_iter_write()) are moved into wrappers only for an intent
 * subscriber: with none, a livepatch (an ftrace_ops with IPMODIFY) on
 * one loads while a filesystem is watched, fires, and the write is
 * still announced inside its section, none missed.
 */
static void livepatch_loads_while_watched(struct __test_metadata *_metadata,
					  const struct data_helper *d)
{
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	ASSERT_EQ(0, put_file(DIR_T "/e/src", "xyz"));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	ASSERT_EQ(0, testko_load(d->params));
	EXPECT_EQ(0, d->op(DIR_T "/d/f"));
	EXPECT_LT(0, testko_hits());
	expect_fenced(_metadata, dev, VFSB_R_DATA_WRITE);
	EXPECT_EQ(0, testko_unload());
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * The other way round: with a livepatch on a data helper first, a
 * watch begins, and the helper's write is bracketed and recorded.
 */
static void watch_begins_beside_livepatch(struct __test_metadata *_metadata,
					  const struct data_helper *d)
{
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	ASSERT_EQ(0, put_file(DIR_T "/e/src", "xyz"));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, wait_hooks_off(dev));
	ASSERT_EQ(0, testko_load(d->params));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	EXPECT_EQ(0, d->op(DIR_T "/d/f"));
	EXPECT_LT(0, testko_hits());
	expect_fenced(_metadata, dev, VFSB_R_DATA_WRITE);
	close(dev);
	EXPECT_EQ(0, testko_unload());
	param_set("hooks_linger_ms", "10000");
	umount2(DIR_T, MNT_DETACH);
}

/* A test per helper: each registers the hooks anew (slow on debug kernels). */
#define DATA_HELPER_TESTS(name, i)					\
TEST(livepatch_on_##name##_loads_while_watched)				\
{									\
	livepatch_loads_while_watched(_metadata, &data_helpers[i]);	\
}									\
TEST(watch_begins_while_a_livepatch_holds_##name)			\
{									\
	watch_begins_beside_livepatch(_metadata, &data_helpers[i]);	\
}

DATA_HELPER_TESTS(vfs_fallocate, 0)
DATA_HELPER_TESTS(do_splice_direct, 1)
DATA_HELPER_TESTS(vfs_copy_file_range, 2)
DATA_HELPER_TESTS(io_write, 3)
DATA_HELPER_TESTS(vfs_iocb_iter_write, 4)

/*
 * A livepatch-like user of mnt_want_write()'s IPMODIFY first, then the
 * watch: it begins (the hooks go in beside it), and the watched changes
 * are bracketed and recorded.
 */
TEST(watch_begins_while_a_post_handler_kprobe_holds_write_access)
{
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, wait_hooks_off(dev));
	ASSERT_EQ(0, testko_load("kprobe=mnt_want_write post=1"));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	EXPECT_EQ(0, mkdir(DIR_T "/d/x", 0755));
	EXPECT_LT(0, testko_hits());
	expect_fenced(_metadata, dev, VFSB_R_CREATE);
	close(dev);
	EXPECT_EQ(0, testko_unload());
	param_set("hooks_linger_ms", "10000");
	umount2(DIR_T, MNT_DETACH);
}

/*
 * The other way round: with the kprobe held, the hooks go in and the
 * watch works (a write of the watched filesystem is recorded).
 */
TEST(watch_begins_while_a_post_handler_kprobe_is_held)
{
	union rec u;
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, wait_hooks_off(dev));
	ASSERT_EQ(0, testko_load(POST_KPROBE));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	EXPECT_EQ(0, vfsb_watch_path(dev, DIR_T));
	EXPECT_EQ(0, append(DIR_T "/d/f"));
	EXPECT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, 0, &u));
	EXPECT_TRUE(u.r.reasons & VFSB_R_DATA_WRITE);
	close(dev);
	EXPECT_EQ(0, testko_unload());
	param_set("hooks_linger_ms", "10000");
	umount2(DIR_T, MNT_DETACH);
}

/*
 * Intent mode with the kprobe held on rw_verify_area: vfsbarrier cannot
 * have that function's IPMODIFY, so a data write there cannot be made
 * to wait. VFSB_IOC_GET_VERSION says so (the data group's waits are
 * off), the write goes on unacked, and its filesystem gets a RESCAN
 * (VFSB_RESCAN_INTENT). Other functions still wait: a mkdir's intent
 * is acked before the directory exists.
 */
TEST(intent_wait_falls_back_where_a_kprobe_holds_ipmodify)
{
	struct vfsb_version v;
	union rec u;
	struct child ch;
	int dev, res;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, wait_hooks_off(dev));
	ASSERT_EQ(0, testko_load(POST_KPROBE));
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	ASSERT_EQ(0, vfsb_get_version(dev, &v));
	EXPECT_TRUE(v.intent_unwaited & VFSB_COV_DATA);
	EXPECT_FALSE(v.intent_unwaited & VFSB_COV_NAMESPACE);

	/* the write lands with no ack, and says what it could not do */
	ASSERT_EQ(0, child_start(&ch, append, DIR_T "/d/f"));
	ASSERT_EQ(0, child_result(&ch, 20000, &res));
	EXPECT_EQ(0, res);
	EXPECT_EQ(3, size_of(DIR_T "/d/f"));
	child_end(&ch);
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_RESCAN, 0, &u));
	EXPECT_TRUE(u.r.reasons & VFSB_RESCAN_INTENT);

	/* a hook whose IPMODIFY the module has still makes its call wait */
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/e/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(-ENOENT, size_of(DIR_T "/e/x"));
	ASSERT_EQ(0, vfsb_ack(dev, u.r.seq));
	ASSERT_EQ(0, child_result(&ch, 20000, &res));
	EXPECT_EQ(0, res);
	EXPECT_LE(0, size_of(DIR_T "/e/x"));
	child_end(&ch);

	close(dev);
	EXPECT_EQ(0, testko_unload());
	param_set("hooks_linger_ms", "10000");
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A write made while the task holds ftrace's recursion guard (as a
 * kprobe or ftrace handler that writes a file does) passes every
 * announcing hook as nested: they are skipped, and the watched
 * filesystem gets a RESCAN (VFSB_RESCAN_NO_HOOK) rather than nothing.
 */
TEST(hook_skipped_as_recursive_gives_a_rescan)
{
	union rec u;
	int dev;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	ASSERT_EQ(0, testko_load(""));
	ASSERT_EQ(0, sysfs_write(TESTKO_PARAMS "recurse_write",
				 DIR_T "/d/f"));
	EXPECT_LT(0, size_of(DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_RESCAN, 0, &u));
	EXPECT_TRUE(u.r.reasons & VFSB_RESCAN_NO_HOOK);
	EXPECT_EQ(0, testko_unload());
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * While an intent subscriber exists, the hooks that may move a call run
 * from the ops that holds their functions' IPMODIFY, and go back to the
 * entry callbacks' ops when the last one closes (hookreg.c, "Moving
 * calls"). Handed over and back again and again while a task creates,
 * writes and unlinks on a watched filesystem (the intent subscriber
 * watches another, so that nothing there waits), no call may go
 * unhooked or be hooked twice: a plain subscriber gets exactly one
 * CREATE and one DELETE record per file, and nothing is missed,
 * unfenced or left in flight. A load check: it fails only if a call
 * meets a hand-over at the wrong moment, which 16 rounds each way
 * under some thousands of calls give every chance to (a hand-over
 * with its steps in the wrong order lost about 20 % of the files).
 */
#define DIR_I	"/tmp/hs-i"
#define HANDOVERS	16

static void create_write_unlink_until(int stop_fd, int count_fd)
{
	struct pollfd p = { .fd = stop_fd, .events = POLLIN };
	char path[64];
	long n = 0;
	int fd;

	while (poll(&p, 1, 0) == 0) {
		snprintf(path, sizeof(path), DIR_T "/d/x%ld", n);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) ||
		    unlink(path))
			_exit(1);
		n++;
	}
	_exit(write(count_fd, &n, sizeof(n)) == sizeof(n) ? 0 : 1);
}

/* Counts the CREATE and DELETE records of x* in what dev holds now. */
static int count_records(int dev, long *creates, long *deletes)
{
	static char buf[1 << 20];
	ssize_t got;

	while ((got = read(dev, buf, sizeof(buf))) > 0) {
		struct vfsb_record *r;
		size_t off;

		for (off = 0; (r = vfsb_rec_at(buf, got, off)); off += r->size) {
			char name[32];

			if (r->type != VFSB_REC_CHANGE ||
			    strncmp(vfsb_rec_name(r, name, sizeof(name)), "x", 1))
				continue;
			*creates += !!(r->reasons & VFSB_R_CREATE);
			*deletes += !!(r->reasons & VFSB_R_DELETE);
		}
	}
	return errno == EAGAIN ? 0 : -errno;
}

TEST(hooks_change_hands_while_writes_run)
{
	int stop[2], count[2], dev, idev, i, status;
	long ops = 0, creates = 0, deletes = 0;
	struct vfsb_sb_stats st;
	pid_t pid;

	testko_unload();
	ASSERT_EQ(0, setup_fs());
	ASSERT_EQ(0, mount_tmpfs(DIR_I));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 16 << 20, VFSB_R_CREATE |
				    VFSB_R_DELETE, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	ASSERT_EQ(0, pipe(stop));
	ASSERT_EQ(0, pipe(count));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(stop[1]);
		create_write_unlink_until(stop[0], count[1]);
	}
	close(stop[0]);
	for (i = 0; i < HANDOVERS; i++) {
		idev = vfsb_open();
		ASSERT_LE(0, idev);
		ASSERT_EQ(0, vfsb_subscribe_intent(idev, 0, 0, LONG_MS, NULL));
		ASSERT_EQ(0, vfsb_watch_path(idev, DIR_I));
		close(idev);
		/* read as it goes: the ring holds a few hand-overs' worth */
		ASSERT_EQ(0, count_records(dev, &creates, &deletes));
	}
	close(stop[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(sizeof(ops), read(count[0], &ops, sizeof(ops)));
	close(count[0]);
	close(count[1]);
	ASSERT_EQ(0, count_records(dev, &creates, &deletes));
	TH_LOG("%ld files in %d hand-overs each way", ops, HANDOVERS);
	EXPECT_LT(0, ops);
	EXPECT_EQ(ops, creates);
	EXPECT_EQ(ops, deletes);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_T, &st));
	EXPECT_EQ(0, st.missed);
	EXPECT_EQ(0, st.unfenced);
	EXPECT_EQ(0, st.in_flight);
	EXPECT_EQ(0, st.records_lost);
	close(dev);
	umount2(DIR_I, MNT_DETACH);
	umount2(DIR_T, MNT_DETACH);
}

TEST_HARNESS_MAIN
