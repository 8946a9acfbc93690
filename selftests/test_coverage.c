// SPDX-License-Identifier: GPL-2.0
/*
 * The coverage matrix: every kind of write operation, on each kind of
 * filesystem, runs inside a write section of the watched superblock
 * (sections_begun grows) and leaves none open (in_flight back to 0,
 * nothing missed). And the negative: the same operation on an unwatched
 * tmpfs leaves the watched filesystem's counters alone.
 *
 * One table row per operation (COV() below); each row is one TEST_F of
 * the "cov" fixture, and the fixture's variants are the filesystems, so
 * each (operation, filesystem) pair is one KTAP result, named
 * cov.<fs>.<op>. A row may name errnos that mean "this filesystem does
 * not do that" (FICLONE on tmpfs, O_DIRECT on tmpfs): the result is then
 * a SKIP that says so, after checking that no section was left open.
 *
 * The filesystems are mounted and watched once, by the parent process
 * (the harness forks a child per test, which inherits the watching
 * descriptor), so the hooks stay registered for the whole run. Each test
 * works in directories of its own on them.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/io_uring.h>

#include "vfsb_uring.h"
#include "vfsb_util.h"
#include "kselftest_harness.h"

#define DIR_TMPFS	"/tmp/vc-tmpfs"
#define DIR_EXT4	"/tmp/vc-ext4"
#define DIR_UNWATCHED	"/tmp/vc-unwatched"

#define BUFSZ 4096

/* ---- raw Linux AIO ---- */

/* One IOCB_CMD_* on fd, waited for; *res is the event's res. */
static int aio_run(aio_context_t ctx, int fd, int opcode, const void *buf,
		   size_t len, off_t off, long long *res)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long n;

	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = opcode;
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	n = syscall(__NR_io_submit, ctx, 1, cbs);
	if (n < 0)
		return -errno;
	if (n != 1)
		return -EIO;
	for (;;) {
		n = syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL);
		if (n == 1)
			break;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	*res = ev.res;
	return 0;
}

/* ---- what every row works with ---- */

struct cov_ctx {
	const char *fs;			/* the variant's name, for messages */
	char d[PATH_MAX / 2];		/* this test's directory */
	char d2[PATH_MAX / 2];		/* and a second one (cross-dir rename) */
	char p[3][PATH_MAX];		/* path(c, i, name) results */
	int fd, src;			/* a file open for writing, a source */
	int pipefd[2];
	char *buf;			/* BUFSZ, page aligned (O_DIRECT) */
	struct ring ring;
	aio_context_t aio;
};

static const char *path(struct cov_ctx *c, int i, const char *name)
{
	snprintf(c->p[i], sizeof(c->p[i]), "%s/%s", c->d, name);
	return c->p[i];
}

static const char *path2(struct cov_ctx *c, int i, const char *name)
{
	snprintf(c->p[i], sizeof(c->p[i]), "%s/%s", c->d2, name);
	return c->p[i];
}

#define SYS(x) ((x) < 0 ? -errno : 0)

/* write(2)-like result: 0 when all of want was done. */
static int full(ssize_t n, size_t want)
{
	return n < 0 ? -errno : (size_t)n == want ? 0 : -EIO;
}

static int mkfile(const char *p, size_t len)
{
	char data[BUFSZ];
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	int ret;

	if (fd < 0)
		return -errno;
	memset(data, 'd', sizeof(data));
	ret = full(write(fd, data, len), len);
	close(fd);
	return ret;
}

/* ---- preparations (before the counters are sampled) ---- */

static int prep_file(struct cov_ctx *c)
{
	return mkfile(path(c, 0, "f"), 100);
}

static int prep_two_files(struct cov_ctx *c)
{
	int ret = mkfile(path(c, 0, "f"), 100);

	return ret ? ret : mkfile(path(c, 0, "g"), 50);
}

static int prep_dir(struct cov_ctx *c)
{
	return SYS(mkdir(path(c, 0, "sub"), 0755));
}

static int prep_fd(struct cov_ctx *c)
{
	int ret = prep_file(c);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_RDWR | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int prep_xattr(struct cov_ctx *c)
{
	int ret = prep_fd(c);

	return ret ? ret : SYS(fsetxattr(c->fd, "trusted.vfsb", "v", 1, 0));
}

/* src: "s", BUFSZ bytes, read-only; fd: "f", empty, read-write */
static int prep_src_dst(struct cov_ctx *c)
{
	int ret = mkfile(path(c, 0, "s"), BUFSZ);

	if (ret)
		return ret;
	c->src = open(path(c, 0, "s"), O_RDONLY | O_CLOEXEC);
	if (c->src < 0)
		return -errno;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

/* two files of identical content, both open read-write (clone, dedupe) */
static int prep_twins(struct cov_ctx *c)
{
	int ret = mkfile(path(c, 0, "s"), BUFSZ);

	if (!ret)
		ret = mkfile(path(c, 0, "f"), BUFSZ);
	if (ret)
		return ret;
	c->src = open(path(c, 0, "s"), O_RDWR | O_CLOEXEC);
	c->fd = open(path(c, 0, "f"), O_RDWR | O_CLOEXEC);
	return c->src < 0 || c->fd < 0 ? -errno : 0;
}

static int prep_pipe(struct cov_ctx *c)
{
	int ret = prep_fd(c);

	if (ret)
		return ret;
	if (pipe2(c->pipefd, O_CLOEXEC))
		return -errno;
	/* a pipe is on pipefs: this write is nobody's business */
	return full(write(c->pipefd[1], c->buf, BUFSZ), BUFSZ);
}

static int prep_ring(struct cov_ctx *c)
{
	int ret = prep_fd(c);

	return ret ? ret : ring_init(&c->ring);
}

static int prep_ring_odirect(struct cov_ctx *c)
{
	int ret = ring_init(&c->ring);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

static int prep_ring_dir(struct cov_ctx *c)
{
	int ret = prep_file(c);

	return ret ? ret : ring_init(&c->ring);
}

static int prep_aio(struct cov_ctx *c)
{
	int ret = prep_fd(c);

	if (ret)
		return ret;
	return SYS(syscall(__NR_io_setup, 4, &c->aio));
}

static int prep_aio_odirect(struct cov_ctx *c)
{
	if (syscall(__NR_io_setup, 4, &c->aio))
		return -errno;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

/* ---- the operations under test ---- */

static int op_open_creat(struct cov_ctx *c)
{
	int fd = open(path(c, 0, "new"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int op_open_trunc(struct cov_ctx *c)
{
	int fd = open(path(c, 0, "f"), O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int op_mkdir(struct cov_ctx *c)
{
	return SYS(mkdir(path(c, 0, "newdir"), 0755));
}

static int op_mknod_fifo(struct cov_ctx *c)
{
	return SYS(mknod(path(c, 0, "fifo"), S_IFIFO | 0644, 0));
}

static int op_symlink(struct cov_ctx *c)
{
	return SYS(symlink("f", path(c, 0, "sl")));
}

static int op_link(struct cov_ctx *c)
{
	return SYS(link(path(c, 0, "f"), path(c, 1, "f2")));
}

static int op_unlink(struct cov_ctx *c)
{
	return SYS(unlink(path(c, 0, "f")));
}

static int op_rmdir(struct cov_ctx *c)
{
	return SYS(rmdir(path(c, 0, "sub")));
}

static int op_rename(struct cov_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path(c, 1, "renamed")));
}

static int op_rename_crossdir(struct cov_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path2(c, 1, "moved")));
}

static int op_renameat2_noreplace(struct cov_ctx *c)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, "renamed"), RENAME_NOREPLACE));
}

static int op_renameat2_exchange(struct cov_ctx *c)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, "g"), RENAME_EXCHANGE));
}

static int op_renameat2_whiteout(struct cov_ctx *c)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, "renamed"), RENAME_WHITEOUT));
}

static int op_chmod(struct cov_ctx *c)
{
	return SYS(chmod(path(c, 0, "f"), 0600));
}

static int op_fchmod(struct cov_ctx *c)
{
	return SYS(fchmod(c->fd, 0600));
}

static int op_chown(struct cov_ctx *c)
{
	return SYS(chown(path(c, 0, "f"), 1000, 1000));
}

static int op_fchown(struct cov_ctx *c)
{
	return SYS(fchown(c->fd, 1000, 1000));
}

static int op_utimensat(struct cov_ctx *c)
{
	return SYS(utimensat(AT_FDCWD, path(c, 0, "f"), NULL, 0));
}

static int op_futimens(struct cov_ctx *c)
{
	return SYS(futimens(c->fd, NULL));
}

static int op_truncate(struct cov_ctx *c)
{
	return SYS(truncate(path(c, 0, "f"), 7));
}

static int op_ftruncate(struct cov_ctx *c)
{
	return SYS(ftruncate(c->fd, 7));
}

static int op_setxattr(struct cov_ctx *c)
{
	return SYS(setxattr(path(c, 0, "f"), "trusted.vfsb", "v", 1, 0));
}

static int op_fsetxattr(struct cov_ctx *c)
{
	return SYS(fsetxattr(c->fd, "trusted.vfsb", "v", 1, 0));
}

static int op_removexattr(struct cov_ctx *c)
{
	return SYS(removexattr(path(c, 0, "f"), "trusted.vfsb"));
}

static int op_fremovexattr(struct cov_ctx *c)
{
	return SYS(fremovexattr(c->fd, "trusted.vfsb"));
}

static int op_write(struct cov_ctx *c)
{
	return full(write(c->fd, c->buf, 64), 64);
}

static int op_pwrite64(struct cov_ctx *c)
{
	return full(pwrite(c->fd, c->buf, 64, 1000), 64);
}

static int op_writev(struct cov_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(writev(c->fd, iov, 2), 30);
}

static int op_pwritev2(struct cov_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(pwritev2(c->fd, iov, 2, 500, 0), 30);
}

static int op_pwritev2_dsync(struct cov_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(pwritev2(c->fd, iov, 2, 500, RWF_DSYNC), 30);
}

static int op_sendfile(struct cov_ctx *c)
{
	off_t off = 0;

	return full(sendfile(c->fd, c->src, &off, BUFSZ), BUFSZ);
}

static int op_splice(struct cov_ctx *c)
{
	return full(splice(c->pipefd[0], NULL, c->fd, NULL, BUFSZ, 0), BUFSZ);
}

static int op_copy_file_range(struct cov_ctx *c)
{
	return full(copy_file_range(c->src, NULL, c->fd, NULL, BUFSZ, 0), BUFSZ);
}

static int op_fallocate(struct cov_ctx *c)
{
	return SYS(fallocate(c->fd, 0, 0, 65536));
}

static int op_ficlone(struct cov_ctx *c)
{
	return SYS(ioctl(c->fd, FICLONE, c->src));
}

static int op_fideduperange(struct cov_ctx *c)
{
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info info;
	} a;

	memset(&a, 0, sizeof(a));
	a.r.src_offset = 0;
	a.r.src_length = BUFSZ;
	a.r.dest_count = 1;
	a.info.dest_fd = c->fd;
	if (ioctl(c->src, FIDEDUPERANGE, &a))
		return -errno;
	if (a.info.status < 0)
		return a.info.status;
	return a.info.status == FILE_DEDUPE_RANGE_SAME ? 0 : -EIO;
}

static int uring_io(struct cov_ctx *c, int opcode, __u8 flags,
		    unsigned long addr, unsigned int len, size_t want)
{
	struct io_uring_sqe sqe;
	int res, ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = opcode;
	sqe.flags = flags;
	sqe.fd = c->fd;
	sqe.addr = addr;
	sqe.len = len;
	sqe.off = 0;
	ret = ring_run(&c->ring, &sqe, &res);
	if (ret)
		return ret;
	return res < 0 ? res : (size_t)res == want ? 0 : -EIO;
}

static int op_uring_write(struct cov_ctx *c)
{
	return uring_io(c, IORING_OP_WRITE, 0, (uintptr_t)c->buf, BUFSZ, BUFSZ);
}

static int op_uring_write_async(struct cov_ctx *c)
{
	/* IOSQE_ASYNC: issued by an io-wq worker, never inline */
	return uring_io(c, IORING_OP_WRITE, IOSQE_ASYNC, (uintptr_t)c->buf,
			BUFSZ, BUFSZ);
}

static int op_uring_writev(struct cov_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 100 }, { c->buf + 100, 200 } };

	return uring_io(c, IORING_OP_WRITEV, 0, (uintptr_t)iov, 2, 300);
}

static int op_uring_fallocate(struct cov_ctx *c)
{
	struct io_uring_sqe sqe;
	int res, ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_FALLOCATE;
	sqe.fd = c->fd;
	sqe.off = 0;		/* offset */
	sqe.addr = 65536;	/* length */
	sqe.len = 0;		/* mode */
	ret = ring_run(&c->ring, &sqe, &res);
	return ret ? ret : res;
}

static int op_uring_mkdirat(struct cov_ctx *c)
{
	struct io_uring_sqe sqe;
	int res, ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_MKDIRAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (uintptr_t)path(c, 0, "ringdir");
	sqe.len = 0755;
	ret = ring_run(&c->ring, &sqe, &res);
	return ret ? ret : res;
}

static int op_uring_renameat(struct cov_ctx *c)
{
	struct io_uring_sqe sqe;
	int res, ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_RENAMEAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (uintptr_t)path(c, 0, "f");
	sqe.len = AT_FDCWD;
	sqe.addr2 = (uintptr_t)path(c, 1, "renamed");
	ret = ring_run(&c->ring, &sqe, &res);
	return ret ? ret : res;
}

static int op_aio_write(struct cov_ctx *c)
{
	long long res;
	int ret = aio_run(c->aio, c->fd, IOCB_CMD_PWRITE, c->buf, BUFSZ, 0, &res);

	return ret ? ret : res < 0 ? (int)res : res == BUFSZ ? 0 : -EIO;
}

static int op_aio_writev(struct cov_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 100 }, { c->buf + 100, 200 } };
	long long res;
	int ret = aio_run(c->aio, c->fd, IOCB_CMD_PWRITEV, iov, 2, 0, &res);

	return ret ? ret : res < 0 ? (int)res : res == 300 ? 0 : -EIO;
}

/* ---- the fixture: one variant per filesystem ---- */

enum { FS_TMPFS, FS_EXT4, FS_UNWATCHED, FS_N };

static const char *const fs_dir[FS_N] = { DIR_TMPFS, DIR_EXT4, DIR_UNWATCHED };
/* Set up once by the parent (cov_global_setup), inherited by each test. */
static int g_dev = -1, g_dev_err;
static int g_err[FS_N];		/* 0: mounted (and watched if it should be) */
static bool g_mounted[FS_N];

FIXTURE(cov) {
	struct cov_ctx c;
};

FIXTURE_VARIANT(cov) {
	int fs;			/* FS_*: where the operation runs */
	int watched;		/* FS_*: whose counters are checked */
	bool negative;		/* the op runs elsewhere: counters unchanged */
};

FIXTURE_VARIANT_ADD(cov, tmpfs) { .fs = FS_TMPFS, .watched = FS_TMPFS };
FIXTURE_VARIANT_ADD(cov, ext4) { .fs = FS_EXT4, .watched = FS_EXT4 };
FIXTURE_VARIANT_ADD(cov, unwatched_tmpfs) {
	.fs = FS_UNWATCHED, .watched = FS_TMPFS, .negative = true,
};

static const char *const fs_name[FS_N] = { "tmpfs", "ext4", "unwatched tmpfs" };

/* Nothing here may fail the test outright: a missing ext4 is a SKIP,
   reported by cov_run(). */
FIXTURE_SETUP(cov)
{
	struct cov_ctx *c = &self->c;

	c->fd = c->src = -1;
	c->pipefd[0] = c->pipefd[1] = -1;
	c->fs = fs_name[variant->fs];
	if (g_dev < 0 || g_err[variant->fs] || g_err[variant->watched])
		return;
	snprintf(c->d, sizeof(c->d), "%s/%s", fs_dir[variant->fs], _metadata->name);
	snprintf(c->d2, sizeof(c->d2), "%s/%s.2", fs_dir[variant->fs], _metadata->name);
	ASSERT_EQ(0, mkdir(c->d, 0755));
	ASSERT_EQ(0, mkdir(c->d2, 0755));
	c->buf = mmap(NULL, BUFSZ, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, c->buf);
	memset(c->buf, 'w', BUFSZ);
}

FIXTURE_TEARDOWN(cov)
{
	struct cov_ctx *c = &self->c;

	if (c->fd >= 0)
		close(c->fd);
	if (c->src >= 0)
		close(c->src);
	if (c->pipefd[0] >= 0) {
		close(c->pipefd[0]);
		close(c->pipefd[1]);
	}
	ring_exit(&c->ring);
	if (c->aio)
		syscall(__NR_io_destroy, c->aio);
}

struct cov_op {
	const char *name;
	const char *what;		/* for messages */
	int (*prep)(struct cov_ctx *c);	/* 0 or -errno; may be NULL */
	int (*run)(struct cov_ctx *c);	/* 0 or -errno */
	int unsupported[4];		/* errnos meaning "this fs can't": SKIP */
};

static bool cov_unsupported(const struct cov_op *op, int err)
{
	unsigned int i;

	for (i = 0; i < sizeof(op->unsupported) / sizeof(op->unsupported[0]); i++)
		if (op->unsupported[i] && op->unsupported[i] == -err)
			return true;
	return false;
}

#define ULL(x) ((unsigned long long)(x))

static void cov_run(struct __test_metadata *_metadata,
		    FIXTURE_DATA(cov) *self,
		    const FIXTURE_VARIANT(cov) *variant,
		    const struct cov_op *op)
{
	const char *wdir = fs_dir[variant->watched];
	struct cov_ctx *c = &self->c;
	struct vfsb_sb_stats a, b;
	int ret;

	ASSERT_LE(0, g_dev) TH_LOG("open " VFSB_DEVICE_PATH ": %s", strerror(-g_dev_err));
	/* only a missing scratch disk is a reason to skip */
	if (variant->fs == FS_EXT4 && g_err[FS_EXT4] == -ENODEV)
		SKIP(return, "%s on ext4: no scratch disk (VFSB_SCRATCH_DEV unset)", op->name);
	ASSERT_EQ(0, g_err[variant->fs]) TH_LOG("mounting/watching %s failed: %s",
						fs_name[variant->fs],
						strerror(-g_err[variant->fs]));
	ASSERT_EQ(0, g_err[variant->watched]) TH_LOG("mounting/watching %s failed: %s",
						     fs_name[variant->watched],
						     strerror(-g_err[variant->watched]));
	if (op->prep) {
		ret = op->prep(c);
		if (ret && cov_unsupported(op, ret))
			SKIP(return, "%s on %s: not supported by %s (%s while preparing)",
			     op->name, c->fs, c->fs, strerror(-ret));
		ASSERT_EQ(0, ret) TH_LOG("%s on %s: preparing failed: %s",
					 op->name, c->fs, strerror(-ret));
	}
	ASSERT_EQ(0, vfsb_stats_path(g_dev, wdir, &a))
		TH_LOG("%s: no stats for the watched %s", op->name, fs_name[variant->watched]);
	ret = op->run(c);
	ASSERT_EQ(0, vfsb_stats_path(g_dev, wdir, &b));
	if (ret && cov_unsupported(op, ret)) {
		/* the call may have entered a hook before it failed: then the
		   section must have been closed on the failure path */
		EXPECT_EQ(0, b.in_flight)
			TH_LOG("%s (%s) failed with %s on %s and left a section open: begun %llu -> %llu, ended %llu -> %llu",
			       op->name, op->what, strerror(-ret), c->fs,
			       ULL(a.sections_begun), ULL(b.sections_begun),
			       ULL(a.sections_ended), ULL(b.sections_ended));
		if (!_metadata->passed)
			return;
		SKIP(return, "%s on %s: not supported by %s (%s); sections begun +%llu, in_flight %llu",
		     op->name, c->fs, c->fs, strerror(-ret),
		     ULL(b.sections_begun - a.sections_begun), ULL(b.in_flight));
	}
	ASSERT_EQ(0, ret) TH_LOG("%s (%s) on %s failed: %s",
				 op->name, op->what, c->fs, strerror(-ret));
	if (variant->negative) {
		EXPECT_EQ(a.sections_begun, b.sections_begun)
			TH_LOG("%s on an unwatched tmpfs began a section on the watched tmpfs: begun %llu -> %llu",
			       op->name, ULL(a.sections_begun), ULL(b.sections_begun));
		EXPECT_EQ(a.sections_ended, b.sections_ended)
			TH_LOG("%s on an unwatched tmpfs ended sections on the watched tmpfs: ended %llu -> %llu",
			       op->name, ULL(a.sections_ended), ULL(b.sections_ended));
		EXPECT_EQ(0, b.in_flight);
		EXPECT_EQ(a.missed, b.missed);
		return;
	}
	EXPECT_LT(a.sections_begun, b.sections_begun)
		TH_LOG("%s (%s) on %s ran outside any write section: begun %llu -> %llu, ended %llu -> %llu, in_flight %llu, missed %llu -> %llu",
		       op->name, op->what, c->fs,
		       ULL(a.sections_begun), ULL(b.sections_begun),
		       ULL(a.sections_ended), ULL(b.sections_ended),
		       ULL(b.in_flight), ULL(a.missed), ULL(b.missed));
	EXPECT_EQ(0, b.in_flight)
		TH_LOG("%s (%s) on %s left %llu section(s) open: begun %llu -> %llu, ended %llu -> %llu",
		       op->name, op->what, c->fs, ULL(b.in_flight),
		       ULL(a.sections_begun), ULL(b.sections_begun),
		       ULL(a.sections_ended), ULL(b.sections_ended));
	EXPECT_EQ(a.missed, b.missed)
		TH_LOG("%s on %s: the module missed %llu write(s) it could not bracket",
		       op->name, c->fs, ULL(b.missed - a.missed));
	/* and what began has ended: a barrier completes at once */
	EXPECT_EQ(0, vfsb_barrier_path(g_dev, wdir, 0, 5000))
		TH_LOG("%s on %s: barrier did not complete", op->name, c->fs);
}

/* One row of the table: the op's description, and one TEST_F per row. */
#define COV(n, desc, prep_fn, ...) \
	static const struct cov_op cov_op_##n = { \
		.name = #n, .what = desc, .prep = prep_fn, .run = op_##n, \
		.unsupported = { __VA_ARGS__ }, \
	}; \
	TEST_F(cov, n) \
	{ \
		cov_run(_metadata, self, variant, &cov_op_##n); \
	}

/* namespace operations */
COV(open_creat, "open(O_CREAT|O_EXCL)", NULL)
COV(open_trunc, "open(O_TRUNC) of an existing file", prep_file)
COV(mkdir, "mkdir", NULL)
COV(mknod_fifo, "mknod(S_IFIFO)", NULL)
COV(symlink, "symlink", NULL)
COV(link, "link", prep_file)
COV(unlink, "unlink", prep_file)
COV(rmdir, "rmdir", prep_dir)
COV(rename, "rename in one directory", prep_file)
COV(rename_crossdir, "rename across directories", prep_file)
COV(renameat2_noreplace, "renameat2(RENAME_NOREPLACE)", prep_file)
COV(renameat2_exchange, "renameat2(RENAME_EXCHANGE)", prep_two_files)
COV(renameat2_whiteout, "renameat2(RENAME_WHITEOUT)", prep_file, EINVAL, EOPNOTSUPP)
/* attributes */
COV(chmod, "chmod", prep_file)
COV(fchmod, "fchmod", prep_fd)
COV(chown, "chown", prep_file)
COV(fchown, "fchown", prep_fd)
COV(utimensat, "utimensat(path, NULL)", prep_file)
COV(futimens, "futimens(fd, NULL)", prep_fd)
COV(truncate, "truncate(path)", prep_file)
COV(ftruncate, "ftruncate(fd)", prep_fd)
COV(setxattr, "setxattr(trusted.*)", prep_file)
COV(fsetxattr, "fsetxattr(trusted.*)", prep_fd)
COV(removexattr, "removexattr(trusted.*)", prep_xattr)
COV(fremovexattr, "fremovexattr(trusted.*)", prep_xattr)
/* data */
COV(write, "write", prep_fd)
COV(pwrite64, "pwrite64", prep_fd)
COV(writev, "writev", prep_fd)
COV(pwritev2, "pwritev2(flags 0)", prep_fd)
COV(pwritev2_dsync, "pwritev2(RWF_DSYNC)", prep_fd)
COV(sendfile, "sendfile into a file", prep_src_dst)
COV(splice, "splice from a pipe into a file", prep_pipe)
COV(copy_file_range, "copy_file_range", prep_src_dst)
COV(fallocate, "fallocate", prep_fd)
COV(ficlone, "ioctl(FICLONE)", prep_twins, EOPNOTSUPP, EINVAL, EXDEV)
COV(fideduperange, "ioctl(FIDEDUPERANGE)", prep_twins, EOPNOTSUPP, EINVAL, EXDEV)
/* asynchronous interfaces */
COV(uring_write, "io_uring IORING_OP_WRITE", prep_ring)
COV(uring_write_async, "io_uring IORING_OP_WRITE with IOSQE_ASYNC (io-wq)", prep_ring)
COV(uring_writev, "io_uring IORING_OP_WRITEV", prep_ring)
COV(uring_fallocate, "io_uring IORING_OP_FALLOCATE", prep_ring)
COV(uring_mkdirat, "io_uring IORING_OP_MKDIRAT", prep_ring_dir)
COV(uring_renameat, "io_uring IORING_OP_RENAMEAT", prep_ring_dir)
COV(aio_write, "Linux AIO IOCB_CMD_PWRITE", prep_aio)
COV(aio_writev, "Linux AIO IOCB_CMD_PWRITEV", prep_aio)

/* O_DIRECT: completes asynchronously (ext4; tmpfs has no O_DIRECT on 6.1) */
static int op_uring_write_odirect(struct cov_ctx *c)
{
	return uring_io(c, IORING_OP_WRITE, 0, (uintptr_t)c->buf, BUFSZ, BUFSZ);
}

static int op_aio_write_odirect(struct cov_ctx *c)
{
	return op_aio_write(c);
}

COV(uring_write_odirect, "io_uring IORING_OP_WRITE on an O_DIRECT file", prep_ring_odirect, EINVAL)
COV(aio_write_odirect, "Linux AIO IOCB_CMD_PWRITE on an O_DIRECT file", prep_aio_odirect, EINVAL)

/* ---- once per run, in the parent ---- */

static void __attribute__((constructor(200))) cov_global_setup(void)
{
	int i;

	for (i = 0; i < FS_N; i++)
		g_err[i] = -EIO;
	g_dev = vfsb_open();
	if (g_dev < 0) {
		g_dev_err = -errno;
		return;
	}
	g_err[FS_TMPFS] = vfsb_mount_tmpfs(DIR_TMPFS);
	g_err[FS_EXT4] = vfsb_mount_ext4(DIR_EXT4);
	g_err[FS_UNWATCHED] = vfsb_mount_tmpfs(DIR_UNWATCHED);
	for (i = 0; i < FS_N; i++)
		g_mounted[i] = !g_err[i];
	if (!g_err[FS_TMPFS])
		g_err[FS_TMPFS] = vfsb_watch_path(g_dev, DIR_TMPFS);
	if (!g_err[FS_EXT4])
		g_err[FS_EXT4] = vfsb_watch_path(g_dev, DIR_EXT4);
}

/* Runs in the parent only: the harness's children leave by _exit(). */
static void __attribute__((destructor)) cov_global_teardown(void)
{
	int i;

	if (g_dev >= 0)
		close(g_dev);
	for (i = 0; i < FS_N; i++)
		if (g_mounted[i])
			umount2(fs_dir[i], MNT_DETACH);
}

TEST_HARNESS_MAIN
