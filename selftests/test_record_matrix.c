// SPDX-License-Identifier: GPL-2.0
/*
 * The record matrix: every write operation of the coverage matrix
 * (test_coverage.c), on tmpfs and on ext4, announces exactly the
 * records it should, with every field right.
 *
 * For each (operation, filesystem) pair, one KTAP result named
 * rm.<fs>.<op>: prepare, drain the ring, run the operation once, drain
 * again, and compare what was read with the row's expectation: which
 * records (reasons, flags, in which directory, under which name, about
 * which object), in which order, and nothing else. Each record is then
 * checked field by field:
 *  - reasons and flags exactly (DIR, EXCHANGE; never NO_HANDLE here:
 *    tmpfs and ext4 encode handles);
 *  - dev (the mount's st_dev), fs_uuid (ext4: the superblock's), pid,
 *    uid, time_ns within the operation, seq increasing, header_size;
 *  - parent_ino, and the PARENT_FH item resolving (open_by_handle_at on
 *    the mount's root) to that directory;
 *  - the NAME item;
 *  - ino/generation and the OBJECT_FH item resolving to the object,
 *    where the object exists before the operation; ino 0 and no
 *    OBJECT_FH where it does not (creations);
 *  - cookie: nonzero and shared by a rename's records, 0 elsewhere;
 *  - offset/length: the byte range of data writes, the new size of a
 *    truncate, 0 elsewhere; lost 0.
 * A row may name errnos meaning "this filesystem cannot do that"
 * (FICLONE, O_DIRECT on tmpfs): a SKIP saying so and how many records
 * the failed call announced (records are pre-modify: a call that fails
 * after its hook has announced itself).
 *
 * The filesystems are mounted, watched and subscribed to once, by the
 * parent process; each test (a forked child) drains the shared ring
 * before and after its operation. Tests run one at a time, and nothing
 * else writes to these mounts, so what the child reads after its
 * operation is exactly what that operation announced.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/io_uring.h>

#include "vfsb_records.h"
#include "vfsb_uring.h"
#include "kselftest_harness.h"

#define DIR_TMPFS	"/tmp/vrm-tmpfs"
#define DIR_EXT4	"/tmp/vrm-ext4"

#define BUFSZ 4096

/* ---- raw Linux AIO ---- */

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

struct rm_ctx {
	const char *fs;			/* the variant's name, for messages */
	char d[PATH_MAX / 2];		/* this test's directory */
	char d2[PATH_MAX / 2];		/* and a second one (cross-dir rename) */
	char p[3][PATH_MAX];		/* path(c, i, name) results */
	int fd, src;			/* a file open for writing, a source */
	int pipefd[2];
	char *buf;			/* BUFSZ, page aligned (O_DIRECT) */
	struct ring ring;
	aio_context_t aio;
	char *map;			/* a shared mapping of "f" */
	size_t maplen;
};

static const char *path(struct rm_ctx *c, int i, const char *name)
{
	snprintf(c->p[i], sizeof(c->p[i]), "%s/%s", c->d, name);
	return c->p[i];
}

static const char *path2(struct rm_ctx *c, int i, const char *name)
{
	snprintf(c->p[i], sizeof(c->p[i]), "%s/%s", c->d2, name);
	return c->p[i];
}

#define SYS(x) ((x) < 0 ? -errno : 0)

static int full(ssize_t n, size_t want)
{
	return n < 0 ? -errno : (size_t)n == want ? 0 : -EIO;
}

static int mkfile(const char *p, size_t len)
{
	char data[2 * BUFSZ];
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	int ret;

	if (fd < 0)
		return -errno;
	memset(data, 'd', sizeof(data));
	ret = full(write(fd, data, len), len);
	close(fd);
	return ret;
}

/* ---- preparations (before the ring is drained) ---- */

static int prep_file(struct rm_ctx *c)
{
	return mkfile(path(c, 0, "f"), 100);
}

static int prep_two_files(struct rm_ctx *c)
{
	int ret = mkfile(path(c, 0, "f"), 100);

	return ret ? ret : mkfile(path(c, 0, "g"), 50);
}

static int prep_file_and_dir(struct rm_ctx *c)
{
	int ret = mkfile(path(c, 0, "f"), 100);

	return ret ? ret : SYS(mkdir(path(c, 0, "sub"), 0755));
}

static int prep_dir(struct rm_ctx *c)
{
	return SYS(mkdir(path(c, 0, "sub"), 0755));
}

static int prep_fd(struct rm_ctx *c)
{
	int ret = prep_file(c);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_RDWR | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int prep_xattr(struct rm_ctx *c)
{
	int ret = prep_fd(c);

	return ret ? ret : SYS(fsetxattr(c->fd, "trusted.vfsb", "v", 1, 0));
}

/* src: "s", BUFSZ bytes, read-only; fd: "f", empty, read-write */
static int prep_src_dst(struct rm_ctx *c)
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

static int prep_twins(struct rm_ctx *c)
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

static int prep_pipe(struct rm_ctx *c)
{
	int ret = prep_fd(c);

	if (ret)
		return ret;
	if (pipe2(c->pipefd, O_CLOEXEC))
		return -errno;
	/* a pipe is on pipefs: this write is nobody's business */
	return full(write(c->pipefd[1], c->buf, BUFSZ), BUFSZ);
}

static int prep_ring(struct rm_ctx *c)
{
	int ret = prep_fd(c);

	return ret ? ret : ring_init(&c->ring);
}

static int prep_ring_odirect(struct rm_ctx *c)
{
	int ret = ring_init(&c->ring);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

static int prep_ring_dir(struct rm_ctx *c)
{
	int ret = prep_file(c);

	return ret ? ret : ring_init(&c->ring);
}

static int prep_aio(struct rm_ctx *c)
{
	int ret = prep_fd(c);

	if (ret)
		return ret;
	return SYS(syscall(__NR_io_setup, 4, &c->aio));
}

static int prep_aio_odirect(struct rm_ctx *c)
{
	if (syscall(__NR_io_setup, 4, &c->aio))
		return -errno;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

/* "f": two clean pages (written back), mapped shared and writable */
static int prep_map(struct rm_ctx *c)
{
	size_t pg = sysconf(_SC_PAGESIZE);
	int ret = mkfile(path(c, 0, "f"), 2 * pg);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	if (fsync(c->fd))
		return -errno;
	c->maplen = 2 * pg;
	c->map = mmap(NULL, c->maplen, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->fd, 0);
	if (c->map == MAP_FAILED) {
		c->map = NULL;
		return -errno;
	}
	/* read both pages in: the store below is a write fault on a
	   present, write-protected page (page_mkwrite) */
	return c->map[0] == 'd' && c->map[pg] == 'd' ? 0 : -EIO;
}

/* ---- the operations under test ---- */

static int op_open_creat(struct rm_ctx *c)
{
	int fd = open(path(c, 0, "new"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int op_open_creat_trunc(struct rm_ctx *c)
{
	int fd = open(path(c, 0, "new"), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int op_open_trunc(struct rm_ctx *c)
{
	int fd = open(path(c, 0, "f"), O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int op_mkdir(struct rm_ctx *c)
{
	return SYS(mkdir(path(c, 0, "newdir"), 0755));
}

static int op_mknod_fifo(struct rm_ctx *c)
{
	return SYS(mknod(path(c, 0, "fifo"), S_IFIFO | 0644, 0));
}

static int op_symlink(struct rm_ctx *c)
{
	return SYS(symlink("f", path(c, 0, "sl")));
}

static int op_link(struct rm_ctx *c)
{
	return SYS(link(path(c, 0, "f"), path(c, 1, "f2")));
}

static int op_unlink(struct rm_ctx *c)
{
	return SYS(unlink(path(c, 0, "f")));
}

static int op_rmdir(struct rm_ctx *c)
{
	return SYS(rmdir(path(c, 0, "sub")));
}

static int op_rename(struct rm_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path(c, 1, "renamed")));
}

static int op_rename_crossdir(struct rm_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path2(c, 1, "moved")));
}

static int op_rename_dir_crossdir(struct rm_ctx *c)
{
	return SYS(rename(path(c, 0, "sub"), path2(c, 1, "sub2")));
}

static int op_rename_replace(struct rm_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path(c, 1, "g")));
}

static int op_renameat2_noreplace(struct rm_ctx *c)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, "renamed"), RENAME_NOREPLACE));
}

static int op_renameat2_exchange(struct rm_ctx *c)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, "g"), RENAME_EXCHANGE));
}

static int op_renameat2_exchange_dir(struct rm_ctx *c)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, "sub"), RENAME_EXCHANGE));
}

static int op_renameat2_whiteout(struct rm_ctx *c)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, "renamed"), RENAME_WHITEOUT));
}

static int op_chmod(struct rm_ctx *c)
{
	return SYS(chmod(path(c, 0, "f"), 0600));
}

static int op_fchmod(struct rm_ctx *c)
{
	return SYS(fchmod(c->fd, 0600));
}

static int op_chown(struct rm_ctx *c)
{
	return SYS(chown(path(c, 0, "f"), 1000, 1000));
}

static int op_fchown(struct rm_ctx *c)
{
	return SYS(fchown(c->fd, 1000, 1000));
}

static int op_utimensat(struct rm_ctx *c)
{
	return SYS(utimensat(AT_FDCWD, path(c, 0, "f"), NULL, 0));
}

static int op_futimens(struct rm_ctx *c)
{
	return SYS(futimens(c->fd, NULL));
}

static int op_truncate(struct rm_ctx *c)
{
	return SYS(truncate(path(c, 0, "f"), 7));
}

static int op_ftruncate(struct rm_ctx *c)
{
	return SYS(ftruncate(c->fd, 7));
}

static int op_setxattr(struct rm_ctx *c)
{
	return SYS(setxattr(path(c, 0, "f"), "trusted.vfsb", "v", 1, 0));
}

static int op_fsetxattr(struct rm_ctx *c)
{
	return SYS(fsetxattr(c->fd, "trusted.vfsb", "v", 1, 0));
}

static int op_removexattr(struct rm_ctx *c)
{
	return SYS(removexattr(path(c, 0, "f"), "trusted.vfsb"));
}

static int op_fremovexattr(struct rm_ctx *c)
{
	return SYS(fremovexattr(c->fd, "trusted.vfsb"));
}

static int op_write(struct rm_ctx *c)
{
	return full(write(c->fd, c->buf, 64), 64);
}

static int op_pwrite64(struct rm_ctx *c)
{
	return full(pwrite(c->fd, c->buf, 64, 1000), 64);
}

static int op_writev(struct rm_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(writev(c->fd, iov, 2), 30);
}

static int op_pwritev2(struct rm_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(pwritev2(c->fd, iov, 2, 500, 0), 30);
}

static int op_pwritev2_dsync(struct rm_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(pwritev2(c->fd, iov, 2, 500, RWF_DSYNC), 30);
}

static int op_sendfile(struct rm_ctx *c)
{
	off_t off = 0;

	return full(sendfile(c->fd, c->src, &off, BUFSZ), BUFSZ);
}

static int op_splice(struct rm_ctx *c)
{
	return full(splice(c->pipefd[0], NULL, c->fd, NULL, BUFSZ, 0), BUFSZ);
}

static int op_copy_file_range(struct rm_ctx *c)
{
	return full(copy_file_range(c->src, NULL, c->fd, NULL, BUFSZ, 0), BUFSZ);
}

static int op_fallocate(struct rm_ctx *c)
{
	return SYS(fallocate(c->fd, 0, 0, 65536));
}

static int op_ficlone(struct rm_ctx *c)
{
	return SYS(ioctl(c->fd, FICLONE, c->src));
}

static int op_fideduperange(struct rm_ctx *c)
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

static int uring_io(struct rm_ctx *c, int opcode, __u8 flags,
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

static int op_uring_write(struct rm_ctx *c)
{
	return uring_io(c, IORING_OP_WRITE, 0, (uintptr_t)c->buf, BUFSZ, BUFSZ);
}

static int op_uring_write_async(struct rm_ctx *c)
{
	return uring_io(c, IORING_OP_WRITE, IOSQE_ASYNC, (uintptr_t)c->buf,
			BUFSZ, BUFSZ);
}

static int op_uring_writev(struct rm_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 100 }, { c->buf + 100, 200 } };

	return uring_io(c, IORING_OP_WRITEV, 0, (uintptr_t)iov, 2, 300);
}

static int op_uring_fallocate(struct rm_ctx *c)
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

static int op_uring_mkdirat(struct rm_ctx *c)
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

static int op_uring_renameat(struct rm_ctx *c)
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

static int op_aio_write(struct rm_ctx *c)
{
	long long res;
	int ret = aio_run(c->aio, c->fd, IOCB_CMD_PWRITE, c->buf, BUFSZ, 0, &res);

	return ret ? ret : res < 0 ? (int)res : res == BUFSZ ? 0 : -EIO;
}

static int op_aio_writev(struct rm_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 100 }, { c->buf + 100, 200 } };
	long long res;
	int ret = aio_run(c->aio, c->fd, IOCB_CMD_PWRITEV, iov, 2, 0, &res);

	return ret ? ret : res < 0 ? (int)res : res == 300 ? 0 : -EIO;
}

static int op_uring_write_odirect(struct rm_ctx *c)
{
	return op_uring_write(c);
}

static int op_aio_write_odirect(struct rm_ctx *c)
{
	return op_aio_write(c);
}

/* one store into the second page */
static int op_mmap_store(struct rm_ctx *c)
{
	volatile char *m = c->map;

	m[c->maplen / 2 + 5] = 's';
	return 0;
}

/* ---- expectations ---- */

enum { IN_D = 1, IN_D2 = 2 };

struct exp {
	__u32 reasons;		/* exactly; 0 ends the list */
	__u32 flags;		/* exactly */
	int dir;		/* IN_D or IN_D2: the parent directory */
	const char *name;	/* the NAME item; NULL: none */
	const char *obj;	/* the object, before the operation, in d
				   (or obj_in); NULL: none yet (ino 0, no
				   OBJECT_FH) */
	int obj_in;		/* IN_D2: obj is in d2; 0: in d */
	bool gone;		/* the operation frees the object: its handle
				   may be stale afterwards */
	int cookie;		/* 0: cookie 0; n: nonzero, shared within n */
	__u64 offset, length;
	bool any_order;		/* may come anywhere in the batch */
	const char *what;	/* what it is, for messages */
};

#define EXP_MAX 4

struct row {
	const char *name;
	const char *what;		/* for messages */
	int (*prep)(struct rm_ctx *c);	/* 0 or -errno; may be NULL */
	int (*run)(struct rm_ctx *c);	/* 0 or -errno */
	int unsupported[4];		/* errnos meaning "this fs can't": SKIP */
	struct exp exp[EXP_MAX];
	int none_on_tmpfs;		/* documented: tmpfs announces nothing */
	const char *none_why;
};

/* shorthands for the table */
#define R(x)		VFSB_R_##x
#define NSOP(rs, fl, nm, ob)	{ .reasons = (rs), .flags = (fl), .dir = IN_D, .name = (nm), .obj = (ob) }
#define DATA(off, len)	{ .reasons = R(DATA_WRITE), .dir = IN_D, .obj = "f", \
			  .offset = (off), .length = (len), .what = "the data write" }

/* ---- the fixture: one variant per filesystem ---- */

enum { FS_TMPFS, FS_EXT4, FS_N };

static const char *const fs_dir[FS_N] = { DIR_TMPFS, DIR_EXT4 };
static const char *const fs_name[FS_N] = { "tmpfs", "ext4" };

/* Set up once by the parent (rm_global_setup), inherited by each test. */
static int g_dev = -1, g_dev_err, g_sub_err = -EIO;
static int g_err[FS_N];		/* 0: mounted and watched */
static bool g_mounted[FS_N];
static int g_mnt[FS_N] = { -1, -1 };	/* root fds, for open_by_handle_at */
static dev_t g_stdev[FS_N];
static __u8 g_uuid[FS_N][16];
static bool g_uuid_known[FS_N];

static struct rec_batch batch;

FIXTURE(rm) {
	struct rm_ctx c;
};

FIXTURE_VARIANT(rm) {
	int fs;
};

FIXTURE_VARIANT_ADD(rm, tmpfs) { .fs = FS_TMPFS };
FIXTURE_VARIANT_ADD(rm, ext4) { .fs = FS_EXT4 };

FIXTURE_SETUP(rm)
{
	struct rm_ctx *c = &self->c;

	c->fd = c->src = -1;
	c->pipefd[0] = c->pipefd[1] = -1;
	c->fs = fs_name[variant->fs];
	if (g_dev < 0 || g_sub_err || g_err[variant->fs])
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

FIXTURE_TEARDOWN(rm)
{
	struct rm_ctx *c = &self->c;

	if (c->map)
		munmap(c->map, c->maplen);
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

#define ULL(x) ((unsigned long long)(x))

static const char *reasons_str(__u32 r, char *buf, size_t sz)
{
	static const char *const names[] = {
		"CREATE", "DELETE", "RENAME_FROM", "RENAME_TO", "HARDLINK",
		"ATTRIB", "TRUNCATE", "XATTR", "DATA_WRITE", "MMAP_WRITE",
	};
	size_t n = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 0; i < 32; i++) {
		if (!(r & (1U << i)))
			continue;
		if (i < sizeof(names) / sizeof(names[0]))
			n += snprintf(buf + n, sz - n, "%s%s", n ? "|" : "", names[i]);
		else
			n += snprintf(buf + n, sz - n, "%sbit%u", n ? "|" : "", i);
		if (n >= sz)
			break;
	}
	if (!buf[0])
		snprintf(buf, sz, "none");
	return buf;
}

static const char *flags_str(__u32 f, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s%s%s%s%s",
		 f & VFSB_RECF_DIR ? "DIR " : "",
		 f & VFSB_RECF_NO_HANDLE ? "NO_HANDLE " : "",
		 f & VFSB_RECF_EXCHANGE ? "EXCHANGE " : "",
		 f & VFSB_RECF_MORE_DEVS ? "MORE_DEVS " : "",
		 f & ~0xfU ? "unknown " : "",
		 f ? "" : "0");
	return buf;
}

/* What the row's op and fs print before every problem. */
struct rm_check {
	struct __test_metadata *md;
	const char *op, *fs;
	int problems;
};

static void __attribute__((format(printf, 2, 3)))
bad(struct rm_check *k, const char *fmt, ...)
{
	struct __test_metadata *_metadata = k->md;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	TH_LOG("%s on %s: %s", k->op, k->fs, msg);
	k->problems++;
	_metadata->passed = 0;
}

/* The record as one line, for messages. */
static const char *rec_str(struct vfsb_record *r, int mnt, char *out, size_t sz)
{
	char rs[128], fs[64], nb[NAME_MAX + 1];

	if (r->type != VFSB_REC_CHANGE) {
		snprintf(out, sz, "seq=%llu type=%u lost=%llu", ULL(r->seq),
			 r->type, ULL(r->lost));
		return out;
	}
	snprintf(out, sz,
		 "seq=%llu %s flags=%s parent_ino=%llu (fh->%lld) name='%s' ino=%llu gen=%u (fh->%lld) cookie=%llu range=%llu+%llu items=%u pid=%u tid=%u",
		 ULL(r->seq), reasons_str(r->reasons, rs, sizeof(rs)),
		 flags_str(r->flags, fs, sizeof(fs)), ULL(r->parent_ino),
		 rec_resolve_ino(r, VFSB_ITEM_PARENT_FH, mnt),
		 rec_item(r, VFSB_ITEM_NAME) ? rec_name(r, nb, sizeof(nb)) : "(none)",
		 ULL(r->ino), r->generation,
		 rec_resolve_ino(r, VFSB_ITEM_OBJECT_FH, mnt),
		 ULL(r->cookie), ULL(r->offset), ULL(r->length), r->nr_items,
		 r->pid, r->tid);
	return out;
}

/* What is known about the expected objects, sampled before the op. */
struct known {
	long long dino[3];		/* by IN_D / IN_D2 */
	long long oino[EXP_MAX];	/* by expectation; -1: none */
	bool ogen_known[EXP_MAX];
	__u32 ogen[EXP_MAX];
	bool odir[EXP_MAX];
};

static void sample(struct rm_ctx *c, const struct row *row, struct known *kn)
{
	const struct exp *e;
	struct stat st;
	char p[PATH_MAX];
	int i, fd;

	kn->dino[IN_D] = ino_of(c->d);
	kn->dino[IN_D2] = ino_of(c->d2);
	for (i = 0; i < EXP_MAX && row->exp[i].reasons; i++) {
		e = &row->exp[i];
		kn->oino[i] = -1;
		kn->ogen_known[i] = false;
		if (!e->obj)
			continue;
		snprintf(p, sizeof(p), "%s/%s", e->obj_in == IN_D2 ? c->d2 : c->d, e->obj);
		if (lstat(p, &st))
			continue;
		kn->oino[i] = st.st_ino;
		kn->odir[i] = S_ISDIR(st.st_mode);
		fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			long g = 0;

			if (!ioctl(fd, FS_IOC_GETVERSION, &g)) {
				kn->ogen_known[i] = true;
				kn->ogen[i] = (__u32)g;
			}
			close(fd);
		}
	}
}

/* The handle item is well formed: a struct file_handle of item length. */
static bool fh_item_ok(struct vfsb_rec_item *it)
{
	struct file_handle *fh = vfsb_item_data(it);

	return it->len >= 8 && fh->handle_bytes > 0 &&
	       fh->handle_bytes <= MAX_HANDLE_SZ && it->len == 8 + fh->handle_bytes;
}

/* Field by field: actual record r against expectation i. */
static void check_fields(struct rm_check *k, struct rm_ctx *c, int fsi,
			 const struct row *row, int i, const struct known *kn,
			 struct vfsb_record *r, __u64 cookies[EXP_MAX + 1])
{
	const struct exp *e = &row->exp[i];
	const char *dname = e->dir == IN_D2 ? c->d2 : c->d;
	const char *oname = e->obj_in == IN_D2 ? c->d2 : c->d;
	char rs[128], ers[128], fs[64], efs[64], nb[NAME_MAX + 1], line[1024];
	struct vfsb_rec_item *it;
	long long res;
	int want_items;

	rec_str(r, g_mnt[fsi], line, sizeof(line));
	if (r->reasons != e->reasons)
		bad(k, "expected %s: reasons %s, got %s [%s]",
		    e->what ? e->what : "record", reasons_str(e->reasons, ers, sizeof(ers)),
		    reasons_str(r->reasons, rs, sizeof(rs)), line);
	if (r->flags != e->flags)
		bad(k, "%s record: flags %s, expected %s [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)),
		    flags_str(r->flags, fs, sizeof(fs)),
		    flags_str(e->flags, efs, sizeof(efs)), line);
	/* the directory, by number and by handle */
	if ((long long)r->parent_ino != kn->dino[e->dir])
		bad(k, "%s record: parent_ino %llu, expected %lld (%s) [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->parent_ino),
		    kn->dino[e->dir], dname, line);
	it = rec_item(r, VFSB_ITEM_PARENT_FH);
	if (!it) {
		bad(k, "%s record: no PARENT_FH item [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), line);
	} else if (!fh_item_ok(it)) {
		bad(k, "%s record: malformed PARENT_FH item (len %u) [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), it->len, line);
	} else {
		res = rec_resolve_ino(r, VFSB_ITEM_PARENT_FH, g_mnt[fsi]);
		if (res != kn->dino[e->dir])
			bad(k, "%s record: PARENT_FH resolves to %lld (%s), expected ino %lld (%s) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), res,
			    res < 0 ? strerror(-res) : "ino", kn->dino[e->dir], dname, line);
	}
	/* the name */
	it = rec_item(r, VFSB_ITEM_NAME);
	if (e->name && (!it || strcmp(rec_name(r, nb, sizeof(nb)), e->name)))
		bad(k, "%s record: name '%s', expected '%s' [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)),
		    it ? rec_name(r, nb, sizeof(nb)) : "(no NAME item)", e->name, line);
	if (!e->name && it)
		bad(k, "%s record: unexpected NAME item '%s' [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)),
		    rec_name(r, nb, sizeof(nb)), line);
	/* the object */
	it = rec_item(r, VFSB_ITEM_OBJECT_FH);
	if (e->obj && kn->oino[i] < 0) {
		bad(k, "test bug: object %s/%s did not exist before the op", oname, e->obj);
	} else if (e->obj) {
		if ((long long)r->ino != kn->oino[i])
			bad(k, "%s record '%s': ino %llu, expected %lld (%s/%s) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    e->name ? e->name : "", ULL(r->ino), kn->oino[i], oname,
			    e->obj, line);
		if (kn->ogen_known[i] && r->generation != kn->ogen[i])
			bad(k, "%s record: generation %u, expected %u (%s) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    r->generation, kn->ogen[i], e->obj, line);
		if (!it) {
			bad(k, "%s record: no OBJECT_FH item for existing %s [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), e->obj, line);
		} else if (!fh_item_ok(it)) {
			bad(k, "%s record: malformed OBJECT_FH item (len %u) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), it->len, line);
		} else {
			res = rec_resolve_ino(r, VFSB_ITEM_OBJECT_FH, g_mnt[fsi]);
			if (res != kn->oino[i] && !(e->gone && res == -ESTALE))
				bad(k, "%s record: OBJECT_FH resolves to %lld (%s), expected ino %lld (%s/%s) [%s]",
				    reasons_str(e->reasons, ers, sizeof(ers)), res,
				    res < 0 ? strerror(-res) : "ino", kn->oino[i],
				    oname, e->obj, line);
		}
	} else {
		if (r->ino || r->generation)
			bad(k, "%s record: ino %llu gen %u for an object that does not exist yet [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->ino),
			    r->generation, line);
		if (it)
			bad(k, "%s record: OBJECT_FH for an object that does not exist yet [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), line);
	}
	want_items = 1 + (e->obj ? 1 : 0) + (e->name ? 1 : 0);
	if (r->nr_items != (__u32)want_items)
		bad(k, "%s record: %u items, expected %d [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), r->nr_items,
		    want_items, line);
	/* cookie */
	if (!e->cookie && r->cookie)
		bad(k, "%s record: cookie %llu, expected 0 [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->cookie), line);
	if (e->cookie && !r->cookie)
		bad(k, "%s record: cookie 0, expected a nonzero one [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), line);
	if (e->cookie && r->cookie) {
		if (!cookies[e->cookie])
			cookies[e->cookie] = r->cookie;
		else if (cookies[e->cookie] != r->cookie)
			bad(k, "%s record: cookie %llu, but its pair has %llu [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    ULL(r->cookie), ULL(cookies[e->cookie]), line);
	}
	/* range (data), new size (truncate) */
	if (r->offset != e->offset || r->length != e->length)
		bad(k, "%s record: offset/length %llu+%llu, expected %llu+%llu [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->offset),
		    ULL(r->length), ULL(e->offset), ULL(e->length), line);
	if (r->lost)
		bad(k, "CHANGE record with lost=%llu [%s]", ULL(r->lost), line);
}

/* Checks every record has: header, identity, time, items in bounds. */
static void check_common(struct rm_check *k, int fsi, struct vfsb_record *r,
			 __u64 t0, __u64 t1, __u64 *last_seq)
{
	char line[1024];
	struct vfsb_rec_item *it;
	__u32 n;

	rec_str(r, g_mnt[fsi], line, sizeof(line));
	if (r->header_size != sizeof(struct vfsb_record) || r->size % 8 ||
	    r->size < r->header_size || r->size > VFSB_RECORD_MAX)
		bad(k, "bad record size %u / header_size %u [%s]", r->size,
		    r->header_size, line);
	it = vfsb_rec_first_item(r);
	for (n = 0; n < r->nr_items; n++, it = vfsb_rec_next_item(it)) {
		if ((char *)(it + 1) > (char *)r + r->size ||
		    (char *)vfsb_rec_next_item(it) > (char *)r + r->size) {
			bad(k, "item %u runs past the record's end [%s]", n, line);
			break;
		}
		if (it->type < VFSB_ITEM_PARENT_FH || it->type > VFSB_ITEM_NAME ||
		    it->reserved)
			bad(k, "item %u: type %u reserved %u [%s]", n, it->type,
			    it->reserved, line);
	}
	if (r->seq <= *last_seq)
		bad(k, "seq %llu after %llu: not increasing", ULL(r->seq), ULL(*last_seq));
	*last_seq = r->seq;
	if (r->type != VFSB_REC_CHANGE)
		return;
	if (makedev(major(r->dev), minor(r->dev)) != g_stdev[fsi])
		bad(k, "dev %u:%u, expected %u:%u [%s]", major(r->dev), minor(r->dev),
		    major(g_stdev[fsi]), minor(g_stdev[fsi]), line);
	if (g_uuid_known[fsi] && memcmp(r->fs_uuid, g_uuid[fsi], 16))
		bad(k, "fs_uuid is not the superblock's [%s]", line);
	if (r->pid != (__u32)getpid())
		bad(k, "pid %u, expected %d [%s]", r->pid, getpid(), line);
	if (r->uid != (__u32)geteuid())
		bad(k, "uid %u, expected %u [%s]", r->uid, geteuid(), line);
	if (r->time_ns < t0 || r->time_ns > t1)
		bad(k, "time_ns %llu outside the operation [%llu, %llu] [%s]",
		    ULL(r->time_ns), ULL(t0), ULL(t1), line);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool rm_unsupported(const struct row *row, int err)
{
	unsigned int i;

	for (i = 0; i < sizeof(row->unsupported) / sizeof(row->unsupported[0]); i++)
		if (row->unsupported[i] && row->unsupported[i] == -err)
			return true;
	return false;
}

/* A candidate for expectation e: same reasons, name and directory. */
static bool rm_candidate(const struct exp *e, const struct known *kn,
			 struct vfsb_record *r, int strict)
{
	char nb[NAME_MAX + 1];
	bool has_name = rec_item(r, VFSB_ITEM_NAME);

	if (r->type != VFSB_REC_CHANGE)
		return false;
	if (strict >= 1 && r->reasons != e->reasons)
		return false;
	if (strict >= 2 && (e->name ? !has_name || strcmp(rec_name(r, nb, sizeof(nb)), e->name)
				    : has_name))
		return false;
	if (strict >= 3 && (long long)r->parent_ino != kn->dino[e->dir])
		return false;
	return true;
}

static void rm_run(struct __test_metadata *_metadata,
		   FIXTURE_DATA(rm) *self,
		   const FIXTURE_VARIANT(rm) *variant,
		   const struct row *row)
{
	struct rm_ctx *c = &self->c;
	int fsi = variant->fs;
	struct rm_check k = { .md = _metadata, .op = row->name, .fs = c->fs };
	int match[REC_MAX], owner[EXP_MAX];
	__u64 cookies[EXP_MAX + 1] = { 0 };
	__u64 t0, t1, last_seq = 0;
	struct known kn;
	char line[1024], ers[128];
	int i, j, n_exp, n_change = 0, strict, prev = -1, ret;

	ASSERT_LE(0, g_dev) TH_LOG("open " VFSB_DEVICE_PATH ": %s", strerror(-g_dev_err));
	ASSERT_EQ(0, g_sub_err) TH_LOG("VFSB_IOC_SUBSCRIBE: %s", strerror(-g_sub_err));
	if (fsi == FS_EXT4 && g_err[FS_EXT4] == -ENODEV)
		SKIP(return, "%s on ext4: no scratch disk (VFSB_SCRATCH_DEV unset)", row->name);
	ASSERT_EQ(0, g_err[fsi]) TH_LOG("mounting/watching %s failed: %s",
					fs_name[fsi], strerror(-g_err[fsi]));
	for (n_exp = 0; n_exp < EXP_MAX && row->exp[n_exp].reasons; n_exp++)
		;
	if (row->prep) {
		ret = row->prep(c);
		if (ret && rm_unsupported(row, ret))
			SKIP(return, "%s on %s: not supported by %s (%s while preparing)",
			     row->name, c->fs, c->fs, strerror(-ret));
		ASSERT_EQ(0, ret) TH_LOG("%s on %s: preparing failed: %s",
					 row->name, c->fs, strerror(-ret));
	}
	sample(c, row, &kn);
	ASSERT_LT(0, kn.dino[IN_D]);
	ASSERT_LT(0, kn.dino[IN_D2]);
	/* what the preparation announced is not this row's business */
	ASSERT_EQ(0, rec_drain(g_dev, &batch));

	t0 = now_ns();
	ret = row->run(c);
	t1 = now_ns();
	ASSERT_EQ(0, rec_drain(g_dev, &batch)) TH_LOG("%s on %s: reading records: %s",
						      row->name, c->fs, strerror(errno));
	if (ret && rm_unsupported(row, ret)) {
		for (i = 0; i < batch.n; i++)
			TH_LOG("%s on %s (failed call) announced: %s", row->name, c->fs,
			       rec_str(batch.rec[i], g_mnt[fsi], line, sizeof(line)));
		SKIP(return, "%s on %s: not supported by %s (%s); the failed call announced %d record(s)",
		     row->name, c->fs, c->fs, strerror(-ret), batch.n);
	}
	ASSERT_EQ(0, ret) TH_LOG("%s (%s) on %s failed: %s",
				 row->name, row->what, c->fs, strerror(-ret));

	if (row->none_on_tmpfs && fsi == FS_TMPFS && batch.n == 0)
		SKIP(return, "%s on tmpfs: no record, as documented: %s",
		     row->name, row->none_why);

	for (i = 0; i < batch.n; i++) {
		check_common(&k, fsi, batch.rec[i], t0, t1, &last_seq);
		if (batch.rec[i]->type == VFSB_REC_OVERFLOW)
			bad(&k, "an OVERFLOW record (lost %llu): the ring should never fill here",
			    ULL(batch.rec[i]->lost));
		else if (batch.rec[i]->type == VFSB_REC_CHANGE)
			n_change++;
		else
			bad(&k, "record of unknown type %u", batch.rec[i]->type);
		match[i] = -1;
	}

	/*
	 * Pair each expectation with a record: the best candidate first
	 * (same reasons, name and directory), looser ones after, so that a
	 * wrong field is reported as such rather than as missing + extra.
	 */
	for (j = 0; j < n_exp; j++)
		owner[j] = -1;
	for (strict = 3; strict >= 0; strict--) {
		for (j = 0; j < n_exp; j++) {
			if (owner[j] >= 0)
				continue;
			for (i = 0; i < batch.n; i++) {
				if (match[i] < 0 &&
				    rm_candidate(&row->exp[j], &kn, batch.rec[i], strict)) {
					match[i] = j;
					owner[j] = i;
					break;
				}
			}
		}
	}
	for (j = 0; j < n_exp; j++) {
		const struct exp *e = &row->exp[j];

		if (owner[j] < 0) {
			bad(&k, "missing: %s record%s%s%s in %s%s%s",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    e->name ? " '" : "", e->name ? e->name : "", e->name ? "'" : "",
			    e->dir == IN_D2 ? c->d2 : c->d,
			    e->what ? ": " : "", e->what ? e->what : "");
			continue;
		}
		check_fields(&k, c, fsi, row, j, &kn, batch.rec[owner[j]], cookies);
		if (!e->any_order) {
			if (owner[j] < prev)
				bad(&k, "%s record '%s' came before the one expected ahead of it",
				    reasons_str(e->reasons, ers, sizeof(ers)),
				    e->name ? e->name : "");
			prev = owner[j];
		}
	}
	for (i = 0; i < batch.n; i++) {
		if (match[i] >= 0 || batch.rec[i]->type != VFSB_REC_CHANGE)
			continue;
		for (j = 0; j < i; j++)
			if (batch.rec[j]->type == VFSB_REC_CHANGE &&
			    batch.rec[j]->size == batch.rec[i]->size &&
			    batch.rec[j]->reasons == batch.rec[i]->reasons &&
			    batch.rec[j]->ino == batch.rec[i]->ino &&
			    batch.rec[j]->offset == batch.rec[i]->offset &&
			    batch.rec[j]->length == batch.rec[i]->length &&
			    !memcmp((char *)batch.rec[j] + batch.rec[j]->header_size,
				    (char *)batch.rec[i] + batch.rec[i]->header_size,
				    batch.rec[i]->size - batch.rec[i]->header_size))
				break;
		bad(&k, "unexpected %s record #%d of %d%s: %s",
		    j < i ? "duplicate" : "extra", i + 1, batch.n,
		    j < i ? " (same as an earlier one but for seq/time)" : "",
		    rec_str(batch.rec[i], g_mnt[fsi], line, sizeof(line)));
	}
	if (k.problems) {
		TH_LOG("%s (%s) on %s: expected %d record(s), got %d; all of them:",
		       row->name, row->what, c->fs, n_exp, n_change);
		for (i = 0; i < batch.n; i++)
			TH_LOG("  #%d %s", i + 1,
			       rec_str(batch.rec[i], g_mnt[fsi], line, sizeof(line)));
		return;
	}
	TH_LOG("%s on %s: %d record(s), as expected%s", row->name, c->fs, n_change,
	       g_uuid_known[fsi] ? " (fs_uuid checked)" : "");
	for (i = 0; i < batch.n; i++)
		TH_LOG("  #%d %s", i + 1,
		       rec_str(batch.rec[i], g_mnt[fsi], line, sizeof(line)));
}

/* One row of the table: a struct row, and one TEST_F. */
#define ROW(n, desc, prep_fn, ...) \
	static const struct row row_##n = { \
		.name = #n, .what = desc, .prep = prep_fn, .run = op_##n, \
		__VA_ARGS__ \
	}; \
	TEST_F(rm, n) \
	{ \
		rm_run(_metadata, self, variant, &row_##n); \
	}

/* ---- namespace operations ---- */

/* one CREATE in d: the name, no object yet */
ROW(open_creat, "open(O_CREAT|O_EXCL) of a new file", NULL,
    .exp = { NSOP(R(CREATE), 0, "new", NULL) })
/* O_TRUNC has nothing to truncate in a file just created: one CREATE */
ROW(open_creat_trunc, "open(O_CREAT|O_TRUNC) of a new file", NULL,
    .exp = { NSOP(R(CREATE), 0, "new", NULL) })
/* one TRUNCATE to size 0 of the existing f */
ROW(open_trunc, "open(O_TRUNC) of an existing file", prep_file,
    .exp = { NSOP(R(TRUNCATE), 0, "f", "f") })
ROW(mkdir, "mkdir", NULL,
    .exp = { NSOP(R(CREATE), VFSB_RECF_DIR, "newdir", NULL) })
ROW(mknod_fifo, "mknod(S_IFIFO)", NULL,
    .exp = { NSOP(R(CREATE), 0, "fifo", NULL) })
ROW(symlink, "symlink", NULL,
    .exp = { NSOP(R(CREATE), 0, "sl", NULL) })
/* one HARDLINK: the new name, the object linked */
ROW(link, "link", prep_file,
    .exp = { NSOP(R(HARDLINK), 0, "f2", "f") })
ROW(unlink, "unlink", prep_file,
    .exp = { { .reasons = R(DELETE), .dir = IN_D, .name = "f", .obj = "f", .gone = true } })
ROW(rmdir, "rmdir", prep_dir,
    .exp = { { .reasons = R(DELETE), .flags = VFSB_RECF_DIR, .dir = IN_D,
	       .name = "sub", .obj = "sub", .gone = true } })
/* a rename: FROM (old dir, old name), then TO (new dir, new name), both
   about the object moved, sharing a nonzero cookie */
ROW(rename, "rename in one directory", prep_file,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 } })
ROW(rename_crossdir, "rename across directories", prep_file,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D2, .name = "moved", .obj = "f", .cookie = 1 } })
/* a directory: both records flagged DIR */
ROW(rename_dir_crossdir, "rename of a directory across directories", prep_dir,
    .exp = { { .reasons = R(RENAME_FROM), .flags = VFSB_RECF_DIR, .dir = IN_D,
	       .name = "sub", .obj = "sub", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .flags = VFSB_RECF_DIR, .dir = IN_D2,
	       .name = "sub2", .obj = "sub", .cookie = 1 } })
/* over an existing g: the pair only (TO names g: what was there is gone) */
ROW(rename_replace, "rename over an existing file", prep_two_files,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "g", .obj = "f", .cookie = 1 } })
ROW(renameat2_noreplace, "renameat2(RENAME_NOREPLACE)", prep_file,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 } })
/*
 * RENAME_EXCHANGE: both names move both ways, so both records are
 * FROM|TO, flagged EXCHANGE, sharing a cookie. Each is about the object
 * that was under its name (as a FROM record is): f's record about f,
 * g's about g. Both objects are then known by number and handle (and the
 * DIR flag is right for each name); naming f in both would leave g's
 * object unknown.
 */
ROW(renameat2_exchange, "renameat2(RENAME_EXCHANGE) of two files", prep_two_files,
    .exp = { { .reasons = R(RENAME_FROM) | R(RENAME_TO), .flags = VFSB_RECF_EXCHANGE,
	       .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_FROM) | R(RENAME_TO), .flags = VFSB_RECF_EXCHANGE,
	       .dir = IN_D, .name = "g", .obj = "g", .cookie = 1 } })
ROW(renameat2_exchange_dir, "renameat2(RENAME_EXCHANGE) of a file and a directory", prep_file_and_dir,
    .exp = { { .reasons = R(RENAME_FROM) | R(RENAME_TO), .flags = VFSB_RECF_EXCHANGE,
	       .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_FROM) | R(RENAME_TO),
	       .flags = VFSB_RECF_EXCHANGE | VFSB_RECF_DIR,
	       .dir = IN_D, .name = "sub", .obj = "sub", .cookie = 1 } })
/*
 * RENAME_WHITEOUT: the pair, and a new entry: the whiteout (a 0:0
 * character device) left under the old name. overlayfs renames lower
 * files on its upper layer this way, so a journal that misses it brings
 * the lower file back.
 */
ROW(renameat2_whiteout, "renameat2(RENAME_WHITEOUT)", prep_file,
    .unsupported = { EINVAL, EOPNOTSUPP },
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 },
	     { .reasons = R(CREATE), .dir = IN_D, .name = "f", .any_order = true,
	       .what = "the whiteout created under the old name" } })

/* ---- attributes: one record about f, in d, under its name ---- */

ROW(chmod, "chmod", prep_file, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(fchmod, "fchmod", prep_fd, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(chown, "chown", prep_file, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(fchown, "fchown", prep_fd, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(utimensat, "utimensat(path, NULL)", prep_file, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(futimens, "futimens(fd, NULL)", prep_fd, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
/* TRUNCATE: offset is the new size */
ROW(truncate, "truncate(path, 7)", prep_file,
    .exp = { { .reasons = R(TRUNCATE), .dir = IN_D, .name = "f", .obj = "f", .offset = 7 } })
ROW(ftruncate, "ftruncate(fd, 7)", prep_fd,
    .exp = { { .reasons = R(TRUNCATE), .dir = IN_D, .name = "f", .obj = "f", .offset = 7 } })
ROW(setxattr, "setxattr(trusted.*)", prep_file, .exp = { NSOP(R(XATTR), 0, "f", "f") })
ROW(fsetxattr, "fsetxattr(trusted.*)", prep_fd, .exp = { NSOP(R(XATTR), 0, "f", "f") })
ROW(removexattr, "removexattr(trusted.*)", prep_xattr, .exp = { NSOP(R(XATTR), 0, "f", "f") })
ROW(fremovexattr, "fremovexattr(trusted.*)", prep_xattr, .exp = { NSOP(R(XATTR), 0, "f", "f") })

/* ---- data: one DATA_WRITE about f (no name), the byte range ---- */

ROW(write, "write(64) at file position 0", prep_fd, .exp = { DATA(0, 64) })
ROW(pwrite64, "pwrite64(64 at 1000)", prep_fd, .exp = { DATA(1000, 64) })
/* one rw_verify_area for the whole vector: one record, 10+20 bytes */
ROW(writev, "writev(10+20) at file position 0", prep_fd, .exp = { DATA(0, 30) })
ROW(pwritev2, "pwritev2(10+20 at 500, flags 0)", prep_fd, .exp = { DATA(500, 30) })
ROW(pwritev2_dsync, "pwritev2(10+20 at 500, RWF_DSYNC)", prep_fd, .exp = { DATA(500, 30) })
ROW(sendfile, "sendfile(4096) into f", prep_src_dst, .exp = { DATA(0, BUFSZ) })
ROW(splice, "splice(4096) from a pipe into f", prep_pipe, .exp = { DATA(0, BUFSZ) })
ROW(copy_file_range, "copy_file_range(4096) s -> f", prep_src_dst, .exp = { DATA(0, BUFSZ) })
ROW(fallocate, "fallocate(0, 64 KiB)", prep_fd, .exp = { DATA(0, 65536) })
/* FICLONE of the whole of s (len 0 = to EOF): the range cloned over */
ROW(ficlone, "ioctl(FICLONE)", prep_twins,
    .unsupported = { EOPNOTSUPP, EINVAL, EXDEV }, .exp = { DATA(0, BUFSZ) })
ROW(fideduperange, "ioctl(FIDEDUPERANGE)", prep_twins,
    .unsupported = { EOPNOTSUPP, EINVAL, EXDEV }, .exp = { DATA(0, BUFSZ) })

/* ---- asynchronous interfaces ---- */

ROW(uring_write, "io_uring IORING_OP_WRITE(4096 at 0)", prep_ring, .exp = { DATA(0, BUFSZ) })
ROW(uring_write_async, "io_uring IORING_OP_WRITE with IOSQE_ASYNC (io-wq)", prep_ring,
    .exp = { DATA(0, BUFSZ) })
ROW(uring_writev, "io_uring IORING_OP_WRITEV(100+200 at 0)", prep_ring, .exp = { DATA(0, 300) })
ROW(uring_fallocate, "io_uring IORING_OP_FALLOCATE(0, 64 KiB)", prep_ring,
    .exp = { DATA(0, 65536) })
ROW(uring_mkdirat, "io_uring IORING_OP_MKDIRAT", prep_ring_dir,
    .exp = { NSOP(R(CREATE), VFSB_RECF_DIR, "ringdir", NULL) })
ROW(uring_renameat, "io_uring IORING_OP_RENAMEAT", prep_ring_dir,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 } })
ROW(aio_write, "Linux AIO IOCB_CMD_PWRITE(4096 at 0)", prep_aio, .exp = { DATA(0, BUFSZ) })
ROW(aio_writev, "Linux AIO IOCB_CMD_PWRITEV(100+200 at 0)", prep_aio, .exp = { DATA(0, 300) })
/* O_DIRECT: ext4 (tmpfs has no O_DIRECT on 6.1) */
ROW(uring_write_odirect, "io_uring IORING_OP_WRITE(4096 at 0) on an O_DIRECT file",
    prep_ring_odirect, .unsupported = { EINVAL }, .exp = { DATA(0, BUFSZ) })
ROW(aio_write_odirect, "Linux AIO IOCB_CMD_PWRITE(4096 at 0) on an O_DIRECT file",
    prep_aio_odirect, .unsupported = { EINVAL }, .exp = { DATA(0, BUFSZ) })

/* ---- shared writable mapping: the write fault of the second page ---- */

ROW(mmap_store, "a store into a clean page of a MAP_SHARED mapping", prep_map,
    .exp = { { .reasons = R(MMAP_WRITE), .dir = IN_D, .obj = "f",
	       .offset = BUFSZ, .length = BUFSZ, .what = "the page made writable" } },
    .none_on_tmpfs = 1,
    .none_why = "tmpfs has no ->page_mkwrite, its mapped pages are writable at once (README, coverage)")

/* ---- once per run, in the parent ---- */

/* The ext4 superblock's s_uuid, from the device: 16 bytes at 1024 + 0x68. */
static bool ext4_uuid(__u8 out[16])
{
	const char *dev = getenv("VFSB_SCRATCH_DEV");
	int fd = dev ? open(dev, O_RDONLY | O_CLOEXEC) : -1;
	bool ok;
	int i;

	if (fd < 0)
		return false;
	ok = pread(fd, out, 16, 1024 + 0x68) == 16;
	close(fd);
	/* mkfs makes a random one: all zero would check nothing */
	for (i = 0; ok && i < 16; i++)
		if (out[i])
			return true;
	return false;
}

static void __attribute__((constructor(200))) rm_global_setup(void)
{
	struct stat st;
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
	for (i = 0; i < FS_N; i++) {
		g_mounted[i] = !g_err[i];
		if (g_err[i])
			continue;
		g_err[i] = vfsb_watch_path(g_dev, fs_dir[i]);
		if (g_err[i])
			continue;
		g_mnt[i] = open(fs_dir[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (g_mnt[i] < 0 || fstat(g_mnt[i], &st)) {
			g_err[i] = -errno;
			continue;
		}
		g_stdev[i] = st.st_dev;
	}
	g_uuid_known[FS_EXT4] = !g_err[FS_EXT4] && ext4_uuid(g_uuid[FS_EXT4]);
	/* one ring for the run: each test drains it before and after its op */
	g_sub_err = vfsb_subscribe(g_dev, 4U << 20, 0, 0);
}

/* Runs in the parent only: the harness's children leave by _exit(). */
static void __attribute__((destructor)) rm_global_teardown(void)
{
	int i;

	for (i = 0; i < FS_N; i++)
		if (g_mnt[i] >= 0)
			close(g_mnt[i]);
	if (g_dev >= 0)
		close(g_dev);
	for (i = 0; i < FS_N; i++)
		if (g_mounted[i])
			umount2(fs_dir[i], MNT_DETACH);
}

TEST_HARNESS_MAIN
