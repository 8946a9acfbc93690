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
#include <stdbool.h>
#include <sys/mount.h>

#include "vfsb.h"
#include "matrix_fs.h"
#include "write_ops.h"
#include "kselftest_harness.h"

#define DIR_TMPFS	"/tmp/vc-tmpfs"
#define DIR_EXT4	"/tmp/vc-ext4"
#define DIR_BTRFS	"/tmp/vc-btrfs"
#define DIR_XFS		"/tmp/vc-xfs"
#define DIR_UNWATCHED	"/tmp/vc-unwatched"

/* ---- the fixture: one variant per filesystem ---- */

enum { FS_TMPFS, FS_EXT4, FS_BTRFS, FS_XFS, FS_UNWATCHED, FS_N };

/* Set up once by the parent (cov_global_setup), inherited by each test. */
static struct matrix_fs g_fs[FS_N] = {
	[FS_TMPFS] = { .name = "tmpfs", .dir = DIR_TMPFS, .watch = true },
	[FS_EXT4] = { .name = "ext4", .dir = DIR_EXT4, .kind = TESTFS_EXT4,
		      .watch = true },
	[FS_BTRFS] = { .name = "btrfs", .dir = DIR_BTRFS, .kind = TESTFS_BTRFS,
		       .watch = true },
	[FS_XFS] = { .name = "xfs", .dir = DIR_XFS, .kind = TESTFS_XFS,
		     .watch = true },
	[FS_UNWATCHED] = { .name = "unwatched tmpfs", .dir = DIR_UNWATCHED },
};
static int g_dev = -1;

FIXTURE(cov) {
	struct wop_ctx c;
};

FIXTURE_VARIANT(cov) {
	int fs;			/* FS_*: where the operation runs */
	int watched;		/* FS_*: whose counters are checked */
	bool negative;		/* the op runs elsewhere: counters unchanged */
};

FIXTURE_VARIANT_ADD(cov, tmpfs) { .fs = FS_TMPFS, .watched = FS_TMPFS };
FIXTURE_VARIANT_ADD(cov, ext4) { .fs = FS_EXT4, .watched = FS_EXT4 };
FIXTURE_VARIANT_ADD(cov, btrfs) { .fs = FS_BTRFS, .watched = FS_BTRFS };
FIXTURE_VARIANT_ADD(cov, xfs) { .fs = FS_XFS, .watched = FS_XFS };
FIXTURE_VARIANT_ADD(cov, unwatched_tmpfs) {
	.fs = FS_UNWATCHED, .watched = FS_TMPFS, .negative = true,
};

/* Nothing here may fail the test outright: a missing ext4 is a SKIP,
   reported by cov_run(). */
FIXTURE_SETUP(cov)
{
	struct wop_ctx *c = &self->c;

	wop_ctx_init(c, g_fs[variant->fs].name);
	if (g_dev < 0 || g_fs[variant->fs].err || g_fs[variant->watched].err)
		return;
	ASSERT_EQ(0, wop_ctx_dirs(c, g_fs[variant->fs].dir, _metadata->name));
}

FIXTURE_TEARDOWN(cov)
{
	wop_ctx_release(&self->c);
}

struct cov_op {
	const char *name;
	const char *what;		/* for messages */
	int (*prep)(struct wop_ctx *c);	/* 0 or -errno; may be NULL */
	int (*run)(struct wop_ctx *c);	/* 0 or -errno */
	int unsupported[4];		/* errnos meaning "this fs can't": SKIP */
};

static bool cov_unsupported(const struct cov_op *op, int err)
{
	return wop_errno_in(op->unsupported, sizeof(op->unsupported) /
			    sizeof(op->unsupported[0]), err);
}

#define ULL(x) ((unsigned long long)(x))

static void cov_run(struct __test_metadata *_metadata,
		    FIXTURE_DATA(cov) *self,
		    const FIXTURE_VARIANT(cov) *variant,
		    const struct cov_op *op)
{
	const char *wdir = g_fs[variant->watched].dir;
	struct wop_ctx *c = &self->c;
	struct vfsb_sb_stats a, b;
	int ret;

	ASSERT_LE(0, g_dev) TH_LOG("open " VFSB_DEVICE_PATH ": %s", strerror(-g_dev));
	/* only a missing scratch disk or filesystem is a reason to skip */
	if (g_fs[variant->fs].kind != TESTFS_TMPFS &&
	    g_fs[variant->fs].err == -ENODEV)
		SKIP(return, "%s on %s: no scratch disk for it, or no such filesystem in this kernel",
		     op->name, g_fs[variant->fs].name);
	ASSERT_EQ(0, g_fs[variant->fs].err) TH_LOG("mounting/watching %s failed: %s",
						   g_fs[variant->fs].name,
						   strerror(-g_fs[variant->fs].err));
	ASSERT_EQ(0, g_fs[variant->watched].err) TH_LOG("mounting/watching %s failed: %s",
							g_fs[variant->watched].name,
							strerror(-g_fs[variant->watched].err));
	if (op->prep) {
		ret = op->prep(c);
		if (ret && cov_unsupported(op, ret))
			SKIP(return, "%s on %s: not supported by %s (%s while preparing)",
			     op->name, c->fs, c->fs, strerror(-ret));
		ASSERT_EQ(0, ret) TH_LOG("%s on %s: preparing failed: %s",
					 op->name, c->fs, strerror(-ret));
	}
	ASSERT_EQ(0, vfsb_stats_path(g_dev, wdir, &a))
		TH_LOG("%s: no stats for the watched %s", op->name, g_fs[variant->watched].name);
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
		.name = #n, .what = desc, .prep = prep_fn, .run = wop_##n, \
		.unsupported = { __VA_ARGS__ }, \
	}; \
	TEST_F(cov, n) \
	{ \
		cov_run(_metadata, self, variant, &cov_op_##n); \
	}

/* namespace operations */
COV(open_creat, "open(O_CREAT|O_EXCL)", NULL)
COV(open_trunc, "open(O_TRUNC) of an existing file", wop_prep_file)
COV(mkdir, "mkdir", NULL)
COV(mknod_fifo, "mknod(S_IFIFO)", NULL)
COV(symlink, "symlink", NULL)
COV(link, "link", wop_prep_file)
COV(unlink, "unlink", wop_prep_file)
COV(rmdir, "rmdir", wop_prep_dir)
COV(rename, "rename in one directory", wop_prep_file)
COV(rename_crossdir, "rename across directories", wop_prep_file)
COV(renameat2_noreplace, "renameat2(RENAME_NOREPLACE)", wop_prep_file)
COV(renameat2_exchange, "renameat2(RENAME_EXCHANGE)", wop_prep_two_files)
COV(renameat2_whiteout, "renameat2(RENAME_WHITEOUT)", wop_prep_file, EINVAL, EOPNOTSUPP)
/* attributes */
COV(chmod, "chmod", wop_prep_file)
COV(fchmod, "fchmod", wop_prep_fd)
COV(chown, "chown", wop_prep_file)
COV(fchown, "fchown", wop_prep_fd)
COV(utimensat, "utimensat(path, NULL)", wop_prep_file)
COV(futimens, "futimens(fd, NULL)", wop_prep_fd)
COV(truncate, "truncate(path)", wop_prep_file)
COV(ftruncate, "ftruncate(fd)", wop_prep_fd)
COV(setxattr, "setxattr(trusted.*)", wop_prep_file)
COV(fsetxattr, "fsetxattr(trusted.*)", wop_prep_fd)
COV(removexattr, "removexattr(trusted.*)", wop_prep_xattr)
COV(fremovexattr, "fremovexattr(trusted.*)", wop_prep_xattr)
/* data */
COV(write, "write", wop_prep_fd)
COV(pwrite64, "pwrite64", wop_prep_fd)
COV(writev, "writev", wop_prep_fd)
COV(pwritev2, "pwritev2(flags 0)", wop_prep_fd)
COV(pwritev2_dsync, "pwritev2(RWF_DSYNC)", wop_prep_fd)
COV(sendfile, "sendfile into a file", wop_prep_src_dst)
COV(splice, "splice from a pipe into a file", wop_prep_pipe)
COV(copy_file_range, "copy_file_range", wop_prep_src_dst)
COV(fallocate, "fallocate", wop_prep_fd)
COV(ficlone, "ioctl(FICLONE)", wop_prep_twins, EOPNOTSUPP, EINVAL, EXDEV)
COV(fideduperange, "ioctl(FIDEDUPERANGE)", wop_prep_twins, EOPNOTSUPP, EINVAL, EXDEV)
/* asynchronous interfaces */
COV(append_write, "write to an O_APPEND file", wop_prep_file)
COV(fallocate_collapse, "fallocate(COLLAPSE_RANGE)", wop_prep_fd_3pages, EOPNOTSUPP, EINVAL)
COV(chattr, "ioctl(FS_IOC_SETFLAGS)", wop_prep_fd, ENOTTY, EOPNOTSUPP)
COV(fssetxattr, "ioctl(FS_IOC_FSSETXATTR)", wop_prep_fd, ENOTTY, EOPNOTSUPP)
COV(verity_enable, "ioctl(FS_IOC_ENABLE_VERITY)", wop_prep_file, ENOTTY, EOPNOTSUPP)
COV(fscrypt_policy, "ioctl(FS_IOC_SET_ENCRYPTION_POLICY)", wop_prep_dir, ENOTTY, EOPNOTSUPP)

COV(uring_write, "io_uring IORING_OP_WRITE", wop_prep_ring)
COV(uring_write_async, "io_uring IORING_OP_WRITE with IOSQE_ASYNC (io-wq)", wop_prep_ring)
COV(uring_writev, "io_uring IORING_OP_WRITEV", wop_prep_ring)
COV(uring_fallocate, "io_uring IORING_OP_FALLOCATE", wop_prep_ring)
COV(uring_mkdirat, "io_uring IORING_OP_MKDIRAT", wop_prep_ring_dir)
COV(uring_renameat, "io_uring IORING_OP_RENAMEAT", wop_prep_ring_dir)
COV(aio_write, "Linux AIO IOCB_CMD_PWRITE", wop_prep_aio)
COV(aio_writev, "Linux AIO IOCB_CMD_PWRITEV", wop_prep_aio)

/* O_DIRECT: completes asynchronously (ext4; tmpfs has no O_DIRECT on 6.1) */
COV(uring_write_odirect, "io_uring IORING_OP_WRITE on an O_DIRECT file", wop_prep_ring_odirect, EINVAL)
COV(aio_write_odirect, "Linux AIO IOCB_CMD_PWRITE on an O_DIRECT file", wop_prep_aio_odirect, EINVAL)

/* ---- once per run, in the parent ---- */

static void __attribute__((constructor(200))) cov_global_setup(void)
{
	g_dev = matrix_fs_setup(g_fs, FS_N);
}

/* Runs in the parent only: the harness's children leave by _exit(). */
static void __attribute__((destructor)) cov_global_teardown(void)
{
	matrix_fs_teardown(g_dev, g_fs, FS_N);
}

TEST_HARNESS_MAIN
