// SPDX-License-Identifier: GPL-2.0
/*
 * The barrier waits for every kind of write operation held in flight:
 *  - fuse.<op>: a namespace, attribute or data operation on a watched
 *    FUSE mount whose request the server (fuse_hold.c) holds unanswered;
 *  - uffd.*: io_uring and Linux AIO writes on a watched tmpfs, held by a
 *    userfaultfd buffer (the io_uring write faults in an io-wq worker);
 *  - overlay.*: a write through an overlay whose upper layer is on a
 *    watched tmpfs (overlay itself unwatched, then watched too).
 * While the operation is held, an async barrier stays PENDING and a sync
 * barrier times out, while other operations on the same filesystem
 * complete; once it is released, a sync barrier completes and the async
 * one reports DONE. "Held" is proven by fh_wait_held() or the uffd fault
 * message, never by sleeping; the only timeouts bound broken runs.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#include "vfsb.h"
#include "vfsb_uring.h"
#include "aio.h"
#include "bg.h"
#include "fuse_hold.h"
#include "hold_calls.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define HOLD_TIMEOUT_MS	20000	/* bounds a broken run only */
#define POLL_BOUND_MS	30000	/* likewise */
#define SHORT_MS	200	/* the sync barrier that must time out */

#define DIR_FUSE	"/tmp/vh-fuse"
#define DIR_TMPFS	"/tmp/vh-tmpfs"
#define DIR_LOWER	"/tmp/vh-lower"
#define DIR_UPPER	"/tmp/vh-upper"
#define DIR_MERGED	"/tmp/vh-merged"

#define ULL(x) ((unsigned long long)(x))

/* ---- the checks shared by every test ---- */

struct held_check {
	const char *what;	/* the held operation, for messages */
	__u64 cookie;		/* async barrier started while it is held */
	bool reaped;		/* it was (wrongly) reported DONE already */
	struct vfsb_sb_stats at_start;
};

/*
 * The operation is held (proven by the caller). Its section is in flight,
 * so an async barrier stays pending and a sync one times out, while more
 * work on the same filesystem (other(), may be NULL) completes.
 */
static void check_held(struct __test_metadata *_metadata, int dev,
		       const char *dir, struct held_check *hc,
		       const struct bg *b,
		       void (*other)(struct __test_metadata *, void *),
		       void *other_arg)
{
	struct vfsb_sb_stats st, st2;
	int ret;

	ASSERT_EQ(0, vfsb_stats_path(dev, dir, &st));
	hc->at_start = st;
	EXPECT_LE(1, st.in_flight)
		TH_LOG("%s is held but no section is in flight on %s (%s): begun %llu, ended %llu, missed %llu",
		       hc->what, dir, st.fstype, ULL(st.sections_begun),
		       ULL(st.sections_ended), ULL(st.missed));
	ret = vfsb_barrier_start_path(dev, dir, 0, &hc->cookie);
	ASSERT_EQ(0, ret) TH_LOG("BARRIER_START: %s", strerror(-ret));
	ASSERT_NE(0, hc->cookie);
	hc->reaped = vfsb_barrier_poll(dev, hc->cookie, NULL) == VFSB_BARRIER_DONE;
	EXPECT_FALSE(hc->reaped)
		TH_LOG("the async barrier completed while %s was held", hc->what);
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(dev, dir, 0, SHORT_MS))
		TH_LOG("the sync barrier on %s did not wait for the held %s",
		       dir, hc->what);
	if (other) {
		other(_metadata, other_arg);
		ASSERT_EQ(0, vfsb_stats_path(dev, dir, &st2));
		/* the other work ran in sections of its own, and they ended */
		EXPECT_LT(st.sections_begun, st2.sections_begun)
			TH_LOG("the work done beside the held %s began no section", hc->what);
		EXPECT_EQ(st.in_flight, st2.in_flight)
			TH_LOG("the work done beside the held %s left sections open", hc->what);
	}
	if (b)
		EXPECT_FALSE(atomic_load(&b->done))
			TH_LOG("%s returned while it should be held", hc->what);
	if (!hc->reaped) {
		hc->reaped = vfsb_barrier_poll(dev, hc->cookie, NULL) == VFSB_BARRIER_DONE;
		EXPECT_FALSE(hc->reaped)
			TH_LOG("the async barrier completed while %s was held (after the other work)",
			       hc->what);
	}
}

/*
 * The held operations have completed: every async barrier started while
 * they were held reports DONE. poll(POLLPRI) is the wait (the bound only
 * ends a broken run); with several cookies pending, a wakeup may be for
 * any of them, so each round asks each one still pending.
 */
static void wait_done(struct __test_metadata *_metadata, int dev,
		      struct held_check *const *hcs, int n)
{
	int i, left = 0;

	for (i = 0; i < n; i++)
		left += !hcs[i]->reaped;	/* reaped early: already failed */
	while (left) {
		struct pollfd pfd = { .fd = dev, .events = POLLPRI };
		int progress = 0;

		ASSERT_EQ(1, poll(&pfd, 1, POLL_BOUND_MS))
			TH_LOG("%d async barrier(s) did not complete within %d ms after %s was released",
			       left, POLL_BOUND_MS, hcs[0]->what);
		ASSERT_TRUE(pfd.revents & POLLPRI);
		for (i = 0; i < n; i++) {
			int state;

			if (hcs[i]->reaped)
				continue;
			state = vfsb_barrier_poll(dev, hcs[i]->cookie, NULL);
			ASSERT_LE(0, state) TH_LOG("BARRIER_POLL: %s", strerror(-state));
			if (state == VFSB_BARRIER_DONE) {
				hcs[i]->reaped = true;
				left--;
				progress++;
			}
		}
		/* readable means a completed cookie of ours awaits polling */
		ASSERT_LT(0, progress) TH_LOG("POLLPRI, but no cookie is DONE");
	}
	/* a cookie reported done is forgotten */
	for (i = 0; i < n; i++)
		EXPECT_EQ(-ENOENT, vfsb_barrier_poll(dev, hcs[i]->cookie, NULL));
}

/* ... and then a sync barrier completes and nothing is left open. */
static void check_released(struct __test_metadata *_metadata, int dev,
			   const char *dir, struct held_check *hc)
{
	struct vfsb_sb_stats st;

	EXPECT_EQ(0, vfsb_barrier_path(dev, dir, 0, 0));
	ASSERT_EQ(0, vfsb_stats_path(dev, dir, &st));
	EXPECT_EQ(0, st.in_flight)
		TH_LOG("after %s: %llu section(s) still open on %s (begun %llu, ended %llu)",
		       hc->what, ULL(st.in_flight), dir, ULL(st.sections_begun),
		       ULL(st.sections_ended));
	EXPECT_EQ(hc->at_start.missed, st.missed)
		TH_LOG("the module missed %llu write(s) on %s",
		       ULL(st.missed - hc->at_start.missed), dir);
}

/* ================= FUSE: each kind of operation, held ================= */

#define SYS(x) ((x) < 0 ? -errno : 0)

static int full(ssize_t n, size_t want)
{
	return n < 0 ? -errno : (size_t)n == want ? 0 : -EIO;
}

FIXTURE(fuse) {
	struct fuse_hold *fh;
	int dev;
	struct ctx c;
	struct bg bg;
};

FIXTURE_VARIANT(fuse) {
	uint32_t opcode;		/* the FUSE request to hold */
	int (*op)(struct ctx *c);	/* runs in a thread: 0 or -errno */
	const char *what;
};

#define FUSE_OP(name, opc, call, desc) \
	FIXTURE_VARIANT_ADD(fuse, name) { \
		.opcode = FUSE_##opc, .op = call, .what = desc, \
	}

FUSE_OP(mkdir, MKDIR, call_mkdir, "mkdir (FUSE_MKDIR)");
FUSE_OP(create, CREATE, call_create, "open O_CREAT (FUSE_CREATE)");
FUSE_OP(mknod, MKNOD, call_mknod, "mknod S_IFIFO (FUSE_MKNOD)");
FUSE_OP(symlink, SYMLINK, call_symlink, "symlink (FUSE_SYMLINK)");
FUSE_OP(link, LINK, call_link, "link (FUSE_LINK)");
FUSE_OP(rename, RENAME, call_rename, "rename (FUSE_RENAME)");
FUSE_OP(rename_crossdir, RENAME, call_rename_crossdir, "rename across directories (FUSE_RENAME)");
FUSE_OP(rename_noreplace, RENAME2, call_rename_noreplace, "renameat2 RENAME_NOREPLACE (FUSE_RENAME2)");
FUSE_OP(chmod, SETATTR, call_chmod, "chmod (FUSE_SETATTR)");
FUSE_OP(truncate, SETATTR, call_truncate, "truncate(path) (FUSE_SETATTR)");
FUSE_OP(ftruncate, SETATTR, call_ftruncate, "ftruncate(fd) (FUSE_SETATTR)");
FUSE_OP(setxattr, SETXATTR, call_setxattr, "setxattr(path) (FUSE_SETXATTR)");
FUSE_OP(fsetxattr, SETXATTR, call_fsetxattr, "fsetxattr(fd) (FUSE_SETXATTR)");
FUSE_OP(removexattr, REMOVEXATTR, call_fremovexattr, "fremovexattr (FUSE_REMOVEXATTR)");
FUSE_OP(unlink, UNLINK, call_unlink, "unlink (FUSE_UNLINK)");
FUSE_OP(rmdir, RMDIR, call_rmdir, "rmdir (FUSE_RMDIR)");
FUSE_OP(write, WRITE, call_pwrite, "pwrite (FUSE_WRITE)");
FUSE_OP(pwritev, WRITE, call_pwritev, "pwritev (FUSE_WRITE)");
FUSE_OP(copy_file_range, WRITE, call_copy_file_range, "copy_file_range (FUSE_WRITE)");
FUSE_OP(sendfile, WRITE, call_sendfile, "sendfile (FUSE_WRITE)");
FUSE_OP(fallocate, FALLOCATE, call_fallocate, "fallocate (FUSE_FALLOCATE)");
FUSE_OP(uring_write, WRITE, call_uring_write, "io_uring write (FUSE_WRITE)");
FUSE_OP(aio_write, WRITE, call_aio_write, "Linux AIO write (FUSE_WRITE)");

/* held/ holds f ("hello", user.pre=1, open as c.fd), src ("12345") and
   the directory sub; other/ is for the work done beside the held op. */
FIXTURE_SETUP(fuse)
{
	self->c.held = self->c.other = self->c.fd = -1;
	self->dev = -1;
	mkdir(DIR_FUSE, 0755);
	self->fh = fh_mount(DIR_FUSE);
	ASSERT_NE(NULL, self->fh) TH_LOG("fh_mount: %s", strerror(errno));
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_FUSE));
	ASSERT_EQ(0, ctx_make(&self->c, DIR_FUSE, true));
}

/* Also after a failed assertion with the request still held: unmounting
   answers it, so the thread can be joined. */
FIXTURE_TEARDOWN(fuse)
{
	ctx_close(&self->c);
	if (self->fh)
		fh_release(self->fh);
	bg_join(&self->bg);
	if (self->dev >= 0)
		close(self->dev);
	fh_umount(self->fh);
}

/* Work in other/ while the request on held/ waits: it all completes. */
static void fuse_elsewhere(struct __test_metadata *_metadata, void *arg)
{
	int dir = *(int *)arg, fd;

	ASSERT_EQ(0, mkdirat(dir, "side", 0755));
	fd = openat(dir, "side/file", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(3, pwrite(fd, "abc", 3, 0));
	EXPECT_EQ(0, fchmod(fd, 0600));
	EXPECT_EQ(0, fsetxattr(fd, "user.side", "x", 1, 0));
	EXPECT_EQ(0, fallocate(fd, 0, 0, 4096));
	close(fd);
	EXPECT_EQ(0, renameat(dir, "side/file", dir, "side/moved"));
	EXPECT_EQ(0, unlinkat(dir, "side/moved", 0));
	EXPECT_EQ(0, unlinkat(dir, "side", AT_REMOVEDIR));
}

TEST_F_TIMEOUT(fuse, barrier_waits_for_held_op, 120)
{
	struct held_check hc = { .what = variant->what };

	ASSERT_EQ(0, fh_hold(self->fh, variant->opcode));
	ASSERT_EQ(0, bg_start(&self->bg, variant->op, &self->c));
	ASSERT_EQ(0, fh_wait_held(self->fh, HOLD_TIMEOUT_MS))
		TH_LOG("%s never sent its request (returned %d)", variant->what,
		       atomic_load(&self->bg.done) ? self->bg.ret : 1);
	check_held(_metadata, self->dev, DIR_FUSE, &hc, &self->bg,
		   fuse_elsewhere, &self->c.other);

	ASSERT_EQ(0, fh_release(self->fh));
	bg_join(&self->bg);
	ASSERT_TRUE(atomic_load(&self->bg.done));
	EXPECT_EQ(0, self->bg.ret) TH_LOG("%s: %s", variant->what,
					  strerror(-self->bg.ret));
	wait_done(_metadata, self->dev, (struct held_check *[]){ &hc }, 1);
	check_released(_metadata, self->dev, DIR_FUSE, &hc);
}

/* ============ io_uring and AIO on tmpfs, held by userfaultfd ============ */

static int op_uring_uffd(struct ctx *c)
{
	return uring_write1(c->fd, c->buf, c->len, 0);
}

static int op_aio_uffd(struct ctx *c)
{
	return aio_write1(c->fd, c->buf, c->len, 0);
}

FIXTURE(uffd) {
	int dev;
	struct ctx c;
	struct uffd_page u;
	struct bg bg;
};

FIXTURE_VARIANT(uffd) {
	int (*op)(struct ctx *c);
	const char *what;
};

FIXTURE_VARIANT_ADD(uffd, io_uring) {
	.op = op_uring_uffd, .what = "io_uring IORING_OP_WRITE",
};

FIXTURE_VARIANT_ADD(uffd, aio) {
	.op = op_aio_uffd, .what = "Linux AIO IOCB_CMD_PWRITE",
};

FIXTURE_SETUP(uffd)
{
	self->dev = -1;
	self->c.fd = self->c.held = self->c.other = -1;
	self->u.uffd = -1;
	ASSERT_EQ(0, mount_tmpfs(DIR_TMPFS));
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_TMPFS));
	self->c.fd = open(DIR_TMPFS "/held", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ASSERT_LE(0, self->c.fd);
	ASSERT_EQ(0, uffd_page_init(&self->u));
	self->c.buf = self->u.buf;
	self->c.len = self->u.page;
}

FIXTURE_TEARDOWN(uffd)
{
	uffd_page_close(&self->u);
	bg_join(&self->bg);
	uffd_page_unmap(&self->u);
	if (self->c.fd >= 0)
		close(self->c.fd);
	if (self->dev >= 0)
		close(self->dev);
	umount2(DIR_TMPFS, MNT_DETACH);
}

static void tmpfs_elsewhere(struct __test_metadata *_metadata, void *arg)
{
	int fd = open(DIR_TMPFS "/other", O_CREAT | O_RDWR | O_CLOEXEC, 0644);

	ASSERT_LE(0, fd);
	EXPECT_EQ(5, write(fd, "other", 5));
	EXPECT_EQ(0, ftruncate(fd, 2));
	EXPECT_EQ(0, fallocate(fd, 0, 0, 8192));
	EXPECT_EQ(0, uring_write1(fd, "ring", 4, 0));
	EXPECT_EQ(0, aio_write1(fd, "aio", 3, 4));
	close(fd);
	EXPECT_EQ(0, mkdir(DIR_TMPFS "/dir", 0755));
	EXPECT_EQ(0, rename(DIR_TMPFS "/other", DIR_TMPFS "/dir/moved"));
	EXPECT_EQ(0, unlink(DIR_TMPFS "/dir/moved"));
	EXPECT_EQ(0, rmdir(DIR_TMPFS "/dir"));
}

TEST_F_TIMEOUT(uffd, barrier_waits_for_held_write, 120)
{
	struct held_check hc = { .what = variant->what };
	struct stat st;

	ASSERT_EQ(0, bg_start(&self->bg, variant->op, &self->c));
	ASSERT_EQ(0, uffd_page_wait_fault(&self->u, HOLD_TIMEOUT_MS))
		TH_LOG("the %s never faulted on its buffer (returned %d)", variant->what,
		       atomic_load(&self->bg.done) ? self->bg.ret : 1);
	check_held(_metadata, self->dev, DIR_TMPFS, &hc, &self->bg,
		   tmpfs_elsewhere, NULL);

	ASSERT_EQ(0, uffd_page_fill(&self->u));
	bg_join(&self->bg);
	ASSERT_TRUE(atomic_load(&self->bg.done));
	EXPECT_EQ(0, self->bg.ret) TH_LOG("%s: %s", variant->what,
					  strerror(-self->bg.ret));
	ASSERT_EQ(0, fstat(self->c.fd, &st));
	EXPECT_EQ((off_t)self->u.page, st.st_size);
	wait_done(_metadata, self->dev, (struct held_check *[]){ &hc }, 1);
	check_released(_metadata, self->dev, DIR_TMPFS, &hc);
}

/* ============ overlayfs: sections on the upper layer's fs ============ */

FIXTURE(overlay) {
	int dev;
	bool lower, upper, merged;	/* mounted */
	bool holding;			/* h started, not released */
	struct uffd_hold h;
	int fd;
};

FIXTURE_VARIANT(overlay) {
	bool watch_overlay;
};

FIXTURE_VARIANT_ADD(overlay, upper_watched) { .watch_overlay = false };
FIXTURE_VARIANT_ADD(overlay, both_watched) { .watch_overlay = true };

/*
 * lower: a tmpfs with files lf, lf2, lf3 (watched: a barrier there must
 * not wait for writes that go to the upper layer); upper: a tmpfs with
 * upper/ and work/ (watched); merged: the overlay (watched or not).
 */
FIXTURE_SETUP(overlay)
{
	self->dev = -1;
	self->fd = -1;
	ASSERT_EQ(0, mount_tmpfs(DIR_LOWER));
	self->lower = true;
	ASSERT_EQ(0, put_file(DIR_LOWER "/lf", "lower data"));
	ASSERT_EQ(0, put_file(DIR_LOWER "/lf2", "lower two"));
	ASSERT_EQ(0, put_file(DIR_LOWER "/lf3", "lower three"));
	ASSERT_EQ(0, mount_tmpfs(DIR_UPPER));
	self->upper = true;
	ASSERT_EQ(0, mkdir(DIR_UPPER "/upper", 0755));
	ASSERT_EQ(0, mkdir(DIR_UPPER "/work", 0755));
	mkdir(DIR_MERGED, 0755);
	ASSERT_EQ(0, mount("overlay", DIR_MERGED, "overlay", 0,
			   "lowerdir=" DIR_LOWER ",upperdir=" DIR_UPPER
			   "/upper,workdir=" DIR_UPPER "/work"))
		TH_LOG("mount overlay: %s", strerror(errno));
	self->merged = true;
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_UPPER));
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_LOWER));
	if (variant->watch_overlay)
		ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_MERGED));
}

FIXTURE_TEARDOWN(overlay)
{
	if (self->holding)
		uffd_hold_release(&self->h);
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0)
		close(self->dev);
	if (self->merged)
		umount2(DIR_MERGED, MNT_DETACH);
	if (self->upper)
		umount2(DIR_UPPER, MNT_DETACH);
	if (self->lower)
		umount2(DIR_LOWER, MNT_DETACH);
}

static void expect_quiet(struct __test_metadata *_metadata, int dev,
			 const char *dir, const char *after)
{
	struct vfsb_sb_stats st;

	ASSERT_EQ(0, vfsb_stats_path(dev, dir, &st));
	EXPECT_EQ(0, st.in_flight)
		TH_LOG("after %s: %llu section(s) open on %s (%s): begun %llu, ended %llu",
		       after, ULL(st.in_flight), dir, st.fstype,
		       ULL(st.sections_begun), ULL(st.sections_ended));
	EXPECT_EQ(0, st.missed) TH_LOG("after %s: %llu missed on %s", after,
				       ULL(st.missed), dir);
}

static void overlay_elsewhere(struct __test_metadata *_metadata, void *arg)
{
	EXPECT_EQ(0, mkdir(DIR_MERGED "/side", 0755));
	EXPECT_EQ(0, put_file(DIR_MERGED "/side/new", "new data"));
	EXPECT_EQ(0, rename(DIR_MERGED "/side/new", DIR_MERGED "/side/renamed"));
	EXPECT_EQ(0, unlink(DIR_MERGED "/side/renamed"));
	EXPECT_EQ(0, rmdir(DIR_MERGED "/side"));
}

TEST_F_TIMEOUT(overlay, write_held_holds_upper_section, 120)
{
	struct held_check hc = { .what = "write() through the overlay" };
	struct held_check ho = { .what = "write() through the overlay" };
	struct vfsb_sb_stats a, b;

	/* opening a lower file for writing copies it up, in sections */
	ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_UPPER, &a));
	self->fd = open(DIR_MERGED "/lf", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_UPPER, &b));
	EXPECT_LT(a.sections_begun, b.sections_begun)
		TH_LOG("the copy-up of lf wrote to the upper fs outside any section");
	expect_quiet(_metadata, self->dev, DIR_UPPER, "copy-up");

	ASSERT_EQ(0, uffd_hold_start(&self->h, self->fd));
	self->holding = true;
	check_held(_metadata, self->dev, DIR_UPPER, &hc, NULL,
		   overlay_elsewhere, NULL);
	if (variant->watch_overlay)
		check_held(_metadata, self->dev, DIR_MERGED, &ho, NULL, NULL, NULL);
	/* the write is not on the lower fs: a barrier there completes */
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_LOWER, 0, 5000));
	EXPECT_FALSE(uffd_hold_done(&self->h));

	self->holding = false;
	EXPECT_EQ((ssize_t)self->h.u.page, uffd_hold_release(&self->h));
	wait_done(_metadata, self->dev, (struct held_check *[]){ &hc, &ho },
		  variant->watch_overlay ? 2 : 1);
	check_released(_metadata, self->dev, DIR_UPPER, &hc);
	if (variant->watch_overlay)
		check_released(_metadata, self->dev, DIR_MERGED, &ho);
	/* the data reached the upper layer */
	ASSERT_EQ(0, access(DIR_UPPER "/upper/lf", F_OK));
	expect_quiet(_metadata, self->dev, DIR_LOWER, "the held write");
}

/* what, done through the overlay, ran in sections of fs (counters a
   before, b after), and left none open. */
static void expect_sections(struct __test_metadata *_metadata,
			    const char *what, const char *fs,
			    const struct vfsb_sb_stats *a,
			    const struct vfsb_sb_stats *b)
{
	EXPECT_LT(a->sections_begun, b->sections_begun)
		TH_LOG("%s through the overlay wrote to %s outside any section (begun %llu -> %llu)",
		       what, fs, ULL(a->sections_begun), ULL(b->sections_begun));
	EXPECT_EQ(0, b->in_flight)
		TH_LOG("%s through the overlay left %llu section(s) open on %s (begun %llu -> %llu, ended %llu -> %llu)",
		       what, ULL(b->in_flight), fs,
		       ULL(a->sections_begun), ULL(b->sections_begun),
		       ULL(a->sections_ended), ULL(b->sections_ended));
}

/* Each operation through the overlay: a section on the upper fs (and on
   the overlay when watched), all closed afterwards. */
struct ovl_op {
	const char *name;
	int (*fn)(void);
};

static int ovl_mkdir(void) { return SYS(mkdir(DIR_MERGED "/d", 0755)); }
static int ovl_create(void) { return put_file(DIR_MERGED "/f", ""); }
static int ovl_write(void) { return put_file(DIR_MERGED "/f", "written"); }
static int ovl_chmod(void) { return SYS(chmod(DIR_MERGED "/f", 0600)); }
static int ovl_truncate(void) { return SYS(truncate(DIR_MERGED "/f", 3)); }
static int ovl_setxattr(void)
{
	return SYS(setxattr(DIR_MERGED "/f", "trusted.vfsb", "v", 1, 0));
}
static int ovl_symlink(void) { return SYS(symlink("f", DIR_MERGED "/sl")); }
static int ovl_link(void) { return SYS(link(DIR_MERGED "/f", DIR_MERGED "/f2")); }
static int ovl_rename(void)
{
	return SYS(rename(DIR_MERGED "/f2", DIR_MERGED "/d/f2"));
}
static int ovl_unlink(void) { return SYS(unlink(DIR_MERGED "/d/f2")); }
static int ovl_rmdir(void) { return SYS(rmdir(DIR_MERGED "/d")); }
/* copy-up of metadata only, then of data */
static int ovl_chmod_lower(void) { return SYS(chmod(DIR_MERGED "/lf2", 0600)); }
static int ovl_append_lower(void)
{
	int fd = open(DIR_MERGED "/lf3", O_WRONLY | O_APPEND | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = full(write(fd, "+", 1), 1);
	close(fd);
	return ret;
}
static int ovl_fallocate(void)
{
	int fd = open(DIR_MERGED "/f", O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = SYS(fallocate(fd, 0, 0, 8192));
	close(fd);
	return ret;
}
static int ovl_unlink_lower(void) { return SYS(unlink(DIR_MERGED "/lf")); }

TEST_F(overlay, ops_pair_sections_on_both)
{
	static const struct ovl_op ops[] = {
		{ "mkdir", ovl_mkdir }, { "create", ovl_create },
		{ "write", ovl_write }, { "chmod", ovl_chmod },
		{ "truncate", ovl_truncate }, { "setxattr trusted.*", ovl_setxattr },
		{ "symlink", ovl_symlink }, { "link", ovl_link },
		{ "rename", ovl_rename }, { "unlink", ovl_unlink },
		{ "rmdir", ovl_rmdir },
		{ "chmod of a lower file (metadata copy-up)", ovl_chmod_lower },
		{ "append to a lower file (data copy-up)", ovl_append_lower },
		{ "fallocate", ovl_fallocate },
		{ "unlink of a lower file (whiteout)", ovl_unlink_lower },
	};
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct vfsb_sb_stats ua, ub, oa, ob;
		int ret;

		ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_UPPER, &ua));
		if (variant->watch_overlay)
			ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_MERGED, &oa));
		ret = ops[i].fn();
		EXPECT_EQ(0, ret) TH_LOG("%s through the overlay: %s",
					 ops[i].name, strerror(-ret));
		ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_UPPER, &ub));
		expect_sections(_metadata, ops[i].name, "the upper tmpfs", &ua, &ub);
		if (!variant->watch_overlay)
			continue;
		ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_MERGED, &ob));
		expect_sections(_metadata, ops[i].name, "the watched overlay", &oa, &ob);
	}
	expect_quiet(_metadata, self->dev, DIR_UPPER, "the overlay operations");
	if (variant->watch_overlay)
		expect_quiet(_metadata, self->dev, DIR_MERGED, "the overlay operations");
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_UPPER, 0, 5000));
	if (variant->watch_overlay)
		EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_MERGED, 0, 5000));
}

/*
 * The hooks are in place only while some superblock is tracked, and
 * putting them in (and taking them out) takes seconds under TCG. The
 * parent keeps one tmpfs watched for the whole run, so that each test's
 * first watch finds them there; the tests never look at that tmpfs.
 */
#define DIR_KEEP "/tmp/vh-keep"
static int g_keep_dev = -1;
static bool g_keep_mounted;

static void __attribute__((constructor(200))) keep_hooks(void)
{
	g_keep_mounted = mount_tmpfs(DIR_KEEP) == 0;
	g_keep_dev = vfsb_open();
	if (g_keep_dev >= 0 && g_keep_mounted)
		vfsb_watch_path(g_keep_dev, DIR_KEEP);
}

/* In the parent only: the harness's children leave by _exit(). */
static void __attribute__((destructor)) drop_hooks(void)
{
	if (g_keep_dev >= 0)
		close(g_keep_dev);
	if (g_keep_mounted)
		umount2(DIR_KEEP, MNT_DETACH);
}

TEST_HARNESS_MAIN
