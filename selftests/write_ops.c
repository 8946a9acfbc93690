// SPDX-License-Identifier: GPL-2.0
/*
 * The write operations of the coverage and record matrices (write_ops.h):
 * one function per way of writing, and the preparations they need. Each
 * returns 0 or -errno, so that a test tells "failed" from "this
 * filesystem cannot do that" by the errno alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>

#include "aio.h"
#include "write_ops.h"

static const char *path(struct wop_ctx *c, int i, const char *name)
{
	snprintf(c->p[i], sizeof(c->p[i]), "%s/%s", c->d, name);
	return c->p[i];
}

static const char *path2(struct wop_ctx *c, int i, const char *name)
{
	snprintf(c->p[i], sizeof(c->p[i]), "%s/%s", c->d2, name);
	return c->p[i];
}

/* a system call's result as 0 or -errno */
#define SYS(x) ((x) < 0 ? -errno : 0)

/* write(2)-like result: 0 when all of want was done */
static int full(ssize_t n, size_t want)
{
	return n < 0 ? -errno : (size_t)n == want ? 0 : -EIO;
}

static int mkfile(const char *p, size_t len)
{
	char data[2 * WOP_BUFSZ];
	int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	int ret;

	if (fd < 0)
		return -errno;
	memset(data, 'd', sizeof(data));
	ret = full(write(fd, data, len), len);
	close(fd);
	return ret;
}

/* ---- preparations: before the test samples what it checks ---- */

int wop_prep_file(struct wop_ctx *c)
{
	return mkfile(path(c, 0, "f"), 100);
}

int wop_prep_two_files(struct wop_ctx *c)
{
	int ret = mkfile(path(c, 0, "f"), 100);

	return ret ? ret : mkfile(path(c, 0, "g"), 50);
}

int wop_prep_file_and_dir(struct wop_ctx *c)
{
	int ret = mkfile(path(c, 0, "f"), 100);

	return ret ? ret : SYS(mkdir(path(c, 0, "sub"), 0755));
}

int wop_prep_dir(struct wop_ctx *c)
{
	return SYS(mkdir(path(c, 0, "sub"), 0755));
}

int wop_prep_fd(struct wop_ctx *c)
{
	int ret = wop_prep_file(c);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_RDWR | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

int wop_prep_xattr(struct wop_ctx *c)
{
	int ret = wop_prep_fd(c);

	return ret ? ret : SYS(fsetxattr(c->fd, "trusted.vfsb", "v", 1, 0));
}

/* src: "s", WOP_BUFSZ bytes, read-only; fd: "f", empty, read-write */
int wop_prep_src_dst(struct wop_ctx *c)
{
	int ret = mkfile(path(c, 0, "s"), WOP_BUFSZ);

	if (ret)
		return ret;
	c->src = open(path(c, 0, "s"), O_RDONLY | O_CLOEXEC);
	if (c->src < 0)
		return -errno;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

int wop_prep_twins(struct wop_ctx *c)
{
	int ret = mkfile(path(c, 0, "s"), WOP_BUFSZ);

	if (!ret)
		ret = mkfile(path(c, 0, "f"), WOP_BUFSZ);
	if (ret)
		return ret;
	c->src = open(path(c, 0, "s"), O_RDWR | O_CLOEXEC);
	c->fd = open(path(c, 0, "f"), O_RDWR | O_CLOEXEC);
	return c->src < 0 || c->fd < 0 ? -errno : 0;
}

int wop_prep_pipe(struct wop_ctx *c)
{
	int ret = wop_prep_fd(c);

	if (ret)
		return ret;
	if (pipe2(c->pipefd, O_CLOEXEC))
		return -errno;
	/* a pipe is on pipefs: this write is nobody's business */
	return full(write(c->pipefd[1], c->buf, WOP_BUFSZ), WOP_BUFSZ);
}

int wop_prep_ring(struct wop_ctx *c)
{
	int ret = wop_prep_fd(c);

	return ret ? ret : vfsb_uring_init(&c->ring, 8);
}

int wop_prep_ring_odirect(struct wop_ctx *c)
{
	int ret = vfsb_uring_init(&c->ring, 8);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

int wop_prep_ring_dir(struct wop_ctx *c)
{
	int ret = wop_prep_file(c);

	return ret ? ret : vfsb_uring_init(&c->ring, 8);
}

int wop_prep_aio(struct wop_ctx *c)
{
	int ret = wop_prep_fd(c);

	if (ret)
		return ret;
	return SYS(syscall(__NR_io_setup, 4, &c->aio));
}

int wop_prep_aio_odirect(struct wop_ctx *c)
{
	if (syscall(__NR_io_setup, 4, &c->aio))
		return -errno;
	c->fd = open(path(c, 0, "f"), O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

/* "f": two clean pages (written back), mapped shared and writable */
int wop_prep_map(struct wop_ctx *c)
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

int wop_open_creat(struct wop_ctx *c)
{
	int fd = open(path(c, 0, "new"), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int wop_open_creat_trunc(struct wop_ctx *c)
{
	int fd = open(path(c, 0, "new"), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int wop_open_trunc(struct wop_ctx *c)
{
	int fd = open(path(c, 0, "f"), O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int wop_mkdir(struct wop_ctx *c)
{
	return SYS(mkdir(path(c, 0, "newdir"), 0755));
}

int wop_mknod_fifo(struct wop_ctx *c)
{
	return SYS(mknod(path(c, 0, "fifo"), S_IFIFO | 0644, 0));
}

int wop_symlink(struct wop_ctx *c)
{
	return SYS(symlink("f", path(c, 0, "sl")));
}

int wop_link(struct wop_ctx *c)
{
	return SYS(link(path(c, 0, "f"), path(c, 1, "f2")));
}

int wop_unlink(struct wop_ctx *c)
{
	return SYS(unlink(path(c, 0, "f")));
}

int wop_rmdir(struct wop_ctx *c)
{
	return SYS(rmdir(path(c, 0, "sub")));
}

int wop_rename(struct wop_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path(c, 1, "renamed")));
}

int wop_rename_crossdir(struct wop_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path2(c, 1, "moved")));
}

int wop_rename_dir_crossdir(struct wop_ctx *c)
{
	return SYS(rename(path(c, 0, "sub"), path2(c, 1, "sub2")));
}

int wop_rename_replace(struct wop_ctx *c)
{
	return SYS(rename(path(c, 0, "f"), path(c, 1, "g")));
}

/* renameat2() of f to name, in d */
static int rename_f(struct wop_ctx *c, const char *name, unsigned int flags)
{
	return SYS(renameat2(AT_FDCWD, path(c, 0, "f"), AT_FDCWD,
			     path(c, 1, name), flags));
}

int wop_renameat2_noreplace(struct wop_ctx *c)
{
	return rename_f(c, "renamed", RENAME_NOREPLACE);
}

int wop_renameat2_exchange(struct wop_ctx *c)
{
	return rename_f(c, "g", RENAME_EXCHANGE);
}

int wop_renameat2_exchange_dir(struct wop_ctx *c)
{
	return rename_f(c, "sub", RENAME_EXCHANGE);
}

int wop_renameat2_whiteout(struct wop_ctx *c)
{
	return rename_f(c, "renamed", RENAME_WHITEOUT);
}

int wop_chmod(struct wop_ctx *c)
{
	return SYS(chmod(path(c, 0, "f"), 0600));
}

int wop_fchmod(struct wop_ctx *c)
{
	return SYS(fchmod(c->fd, 0600));
}

int wop_chown(struct wop_ctx *c)
{
	return SYS(chown(path(c, 0, "f"), 1000, 1000));
}

int wop_fchown(struct wop_ctx *c)
{
	return SYS(fchown(c->fd, 1000, 1000));
}

int wop_utimensat(struct wop_ctx *c)
{
	return SYS(utimensat(AT_FDCWD, path(c, 0, "f"), NULL, 0));
}

int wop_futimens(struct wop_ctx *c)
{
	return SYS(futimens(c->fd, NULL));
}

int wop_truncate(struct wop_ctx *c)
{
	return SYS(truncate(path(c, 0, "f"), 7));
}

int wop_ftruncate(struct wop_ctx *c)
{
	return SYS(ftruncate(c->fd, 7));
}

int wop_setxattr(struct wop_ctx *c)
{
	return SYS(setxattr(path(c, 0, "f"), "trusted.vfsb", "v", 1, 0));
}

int wop_fsetxattr(struct wop_ctx *c)
{
	return SYS(fsetxattr(c->fd, "trusted.vfsb", "v", 1, 0));
}

int wop_removexattr(struct wop_ctx *c)
{
	return SYS(removexattr(path(c, 0, "f"), "trusted.vfsb"));
}

int wop_fremovexattr(struct wop_ctx *c)
{
	return SYS(fremovexattr(c->fd, "trusted.vfsb"));
}

int wop_write(struct wop_ctx *c)
{
	return full(write(c->fd, c->buf, 64), 64);
}

int wop_pwrite64(struct wop_ctx *c)
{
	return full(pwrite(c->fd, c->buf, 64, 1000), 64);
}

int wop_writev(struct wop_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(writev(c->fd, iov, 2), 30);
}

int wop_pwritev2(struct wop_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(pwritev2(c->fd, iov, 2, 500, 0), 30);
}

int wop_pwritev2_dsync(struct wop_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 10 }, { c->buf + 10, 20 } };

	return full(pwritev2(c->fd, iov, 2, 500, RWF_DSYNC), 30);
}

int wop_sendfile(struct wop_ctx *c)
{
	off_t off = 0;

	return full(sendfile(c->fd, c->src, &off, WOP_BUFSZ), WOP_BUFSZ);
}

int wop_splice(struct wop_ctx *c)
{
	return full(splice(c->pipefd[0], NULL, c->fd, NULL, WOP_BUFSZ, 0), WOP_BUFSZ);
}

int wop_copy_file_range(struct wop_ctx *c)
{
	return full(copy_file_range(c->src, NULL, c->fd, NULL, WOP_BUFSZ, 0), WOP_BUFSZ);
}

int wop_fallocate(struct wop_ctx *c)
{
	return SYS(fallocate(c->fd, 0, 0, 65536));
}

int wop_ficlone(struct wop_ctx *c)
{
	return SYS(ioctl(c->fd, FICLONE, c->src));
}

int wop_fideduperange(struct wop_ctx *c)
{
	struct {
		struct file_dedupe_range r;
		struct file_dedupe_range_info info;
	} a;

	memset(&a, 0, sizeof(a));
	a.r.src_offset = 0;
	a.r.src_length = WOP_BUFSZ;
	a.r.dest_count = 1;
	a.info.dest_fd = c->fd;
	if (ioctl(c->src, FIDEDUPERANGE, &a))
		return -errno;
	if (a.info.status < 0)
		return a.info.status;
	return a.info.status == FILE_DEDUPE_RANGE_SAME ? 0 : -EIO;
}

/* Runs one SQE on the context's ring: its result (res < 0: -errno). */
static int uring_one(struct wop_ctx *c, struct io_uring_sqe sqe)
{
	int res, ret = vfsb_uring_run(&c->ring, &sqe, &res);

	return ret ? ret : res;
}

/* An IORING_OP_WRITE(V) on fd at offset 0: 0 when all of want was
   written. */
static int uring_io(struct wop_ctx *c, int opcode, __u8 flags,
		    unsigned long addr, unsigned int len, size_t want)
{
	int res = uring_one(c, (struct io_uring_sqe){
		.opcode = opcode, .flags = flags, .fd = c->fd,
		.addr = addr, .len = len,
	});

	return res < 0 ? res : (size_t)res == want ? 0 : -EIO;
}

int wop_uring_write(struct wop_ctx *c)
{
	return uring_io(c, IORING_OP_WRITE, 0, (uintptr_t)c->buf, WOP_BUFSZ, WOP_BUFSZ);
}

int wop_uring_write_async(struct wop_ctx *c)
{
	/* IOSQE_ASYNC: issued by an io-wq worker, never inline */
	return uring_io(c, IORING_OP_WRITE, IOSQE_ASYNC, (uintptr_t)c->buf,
			WOP_BUFSZ, WOP_BUFSZ);
}

int wop_uring_writev(struct wop_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 100 }, { c->buf + 100, 200 } };

	return uring_io(c, IORING_OP_WRITEV, 0, (uintptr_t)iov, 2, 300);
}

int wop_uring_fallocate(struct wop_ctx *c)
{
	/* offset in off, length in addr, mode in len */
	return uring_one(c, (struct io_uring_sqe){
		.opcode = IORING_OP_FALLOCATE, .fd = c->fd, .off = 0,
		.addr = 65536, .len = 0,
	});
}

int wop_uring_mkdirat(struct wop_ctx *c)
{
	return uring_one(c, (struct io_uring_sqe){
		.opcode = IORING_OP_MKDIRAT, .fd = AT_FDCWD,
		.addr = (uintptr_t)path(c, 0, "ringdir"), .len = 0755,
	});
}

int wop_uring_renameat(struct wop_ctx *c)
{
	return uring_one(c, (struct io_uring_sqe){
		.opcode = IORING_OP_RENAMEAT, .fd = AT_FDCWD,
		.addr = (uintptr_t)path(c, 0, "f"), .len = AT_FDCWD,
		.addr2 = (uintptr_t)path(c, 1, "renamed"),
	});
}

int wop_aio_write(struct wop_ctx *c)
{
	long long res;
	int ret = aio_run(c->aio, c->fd, IOCB_CMD_PWRITE, c->buf, WOP_BUFSZ, 0, &res);

	return ret ? ret : res < 0 ? (int)res : res == WOP_BUFSZ ? 0 : -EIO;
}

int wop_aio_writev(struct wop_ctx *c)
{
	struct iovec iov[2] = { { c->buf, 100 }, { c->buf + 100, 200 } };
	long long res;
	int ret = aio_run(c->aio, c->fd, IOCB_CMD_PWRITEV, iov, 2, 0, &res);

	return ret ? ret : res < 0 ? (int)res : res == 300 ? 0 : -EIO;
}

/* O_DIRECT: completes asynchronously (ext4; tmpfs has no O_DIRECT on 6.1) */
int wop_uring_write_odirect(struct wop_ctx *c)
{
	return wop_uring_write(c);
}

int wop_aio_write_odirect(struct wop_ctx *c)
{
	return wop_aio_write(c);
}

/* one store into the second page of wop_prep_map()'s mapping */
int wop_mmap_store(struct wop_ctx *c)
{
	volatile char *m = c->map;

	m[c->maplen / 2 + 5] = 's';
	return 0;
}

/* ---- the context's life ---- */

void wop_ctx_init(struct wop_ctx *c, const char *fs)
{
	memset(c, 0, sizeof(*c));
	c->fs = fs;
	c->fd = c->src = -1;
	c->pipefd[0] = c->pipefd[1] = -1;
}

int wop_ctx_dirs(struct wop_ctx *c, const char *base, const char *name)
{
	snprintf(c->d, sizeof(c->d), "%s/%s", base, name);
	snprintf(c->d2, sizeof(c->d2), "%s/%s.2", base, name);
	if (mkdir(c->d, 0755) || mkdir(c->d2, 0755))
		return -errno;
	c->buf = mmap(NULL, WOP_BUFSZ, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->buf == MAP_FAILED) {
		c->buf = NULL;
		return -ENOMEM;
	}
	memset(c->buf, 'w', WOP_BUFSZ);
	return 0;
}

void wop_ctx_release(struct wop_ctx *c)
{
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
	vfsb_uring_exit(&c->ring);
	if (c->aio)
		syscall(__NR_io_destroy, c->aio);
	if (c->buf)
		munmap(c->buf, WOP_BUFSZ);
	c->map = c->buf = NULL;
	c->fd = c->src = c->pipefd[0] = c->pipefd[1] = -1;
	c->aio = 0;
}

bool wop_errno_in(const int *errs, int n, int err)
{
	int i;

	for (i = 0; i < n; i++)
		if (errs[i] && errs[i] == -err)
			return true;
	return false;
}

/* ---- attributes that are not setattr's, and ranges that are special ---- */

int wop_prep_fd_3pages(struct wop_ctx *c)
{
	int ret = mkfile(path(c, 0, "f"), 0);

	if (ret)
		return ret;
	c->fd = open(path(c, 0, "f"), O_RDWR | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	memset(c->buf, 'p', WOP_BUFSZ);
	for (ret = 0; ret < 3; ret++)
		if (pwrite(c->fd, c->buf, WOP_BUFSZ, ret * WOP_BUFSZ) != WOP_BUFSZ)
			return -EIO;
	return 0;
}

/* chattr +A: FS_IOC_SETFLAGS (vfs_fileattr_set) */
int wop_chattr(struct wop_ctx *c)
{
	int flags = 0;

	if (ioctl(c->fd, FS_IOC_GETFLAGS, &flags))
		return -errno;
	flags |= FS_NOATIME_FL;
	return SYS(ioctl(c->fd, FS_IOC_SETFLAGS, &flags));
}

/* xfs_io chattr +A: FS_IOC_FSSETXATTR */
int wop_fssetxattr(struct wop_ctx *c)
{
	struct fsxattr fa;

	if (ioctl(c->fd, FS_IOC_FSGETXATTR, &fa))
		return -errno;
	fa.fsx_xflags |= FS_XFLAG_NOATIME;
	return SYS(ioctl(c->fd, FS_IOC_FSSETXATTR, &fa));
}

/* fs-verity on f, opened read-only (no writer may hold it) */
int wop_verity_enable(struct wop_ctx *c)
{
	struct fsverity_enable_arg arg = {
		.version = 1, .hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = 4096,
	};
	int fd = open(path(c, 0, "f"), O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = SYS(ioctl(fd, FS_IOC_ENABLE_VERITY, &arg));
	close(fd);
	return ret;
}

/* an fscrypt v1 policy on the empty directory sub (no key needed) */
int wop_fscrypt_policy(struct wop_ctx *c)
{
	struct fscrypt_policy_v1 p = {
		.version = FSCRYPT_POLICY_V1,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
		.flags = FSCRYPT_POLICY_FLAGS_PAD_32,
		.master_key_descriptor = "vfsbtest",
	};
	int fd = open(path(c, 0, "sub"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = SYS(ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &p));
	close(fd);
	return ret;
}

/* 64 bytes appended to f (100 bytes): they land at 100 */
int wop_append_write(struct wop_ctx *c)
{
	int fd = open(path(c, 0, "f"), O_WRONLY | O_APPEND | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = full(write(fd, c->buf, 64), 64);
	close(fd);
	return ret;
}

/* the second of f's three pages cut out: the third moves down */
int wop_fallocate_collapse(struct wop_ctx *c)
{
	return SYS(fallocate(c->fd, FALLOC_FL_COLLAPSE_RANGE, WOP_BUFSZ,
			     WOP_BUFSZ));
}
