// SPDX-License-Identifier: GPL-2.0
/* The calls the FUSE hold tests hold in flight; see hold_calls.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#include "vfsb_uring.h"
#include "aio.h"
#include "hold_calls.h"

/* a system call's result as 0 or -errno */
#define SYS(x) ((x) < 0 ? -errno : 0)

/* write(2)-like result: 0 when all of want was done */
static int full(ssize_t n, size_t want)
{
	return n < 0 ? -errno : (size_t)n == want ? 0 : -EIO;
}

static int open_dir(const char *base, const char *name)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", base, name);
	if (mkdir(p, 0755))
		return -errno;
	fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int ctx_make(struct ctx *c, const char *base, bool with_src)
{
	int fd;

	c->fd = -1;
	c->held = open_dir(base, "held");
	c->other = open_dir(base, "other");
	if (c->held < 0 || c->other < 0)
		return c->held < 0 ? c->held : c->other;
	snprintf(c->f_path, sizeof(c->f_path), "%s/held/f", base);
	if (mkdirat(c->held, "sub", 0755))
		return -errno;
	c->fd = openat(c->held, "f", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	if (c->fd < 0)
		return -errno;
	if (pwrite(c->fd, "hello", 5, 0) != 5 ||
	    fsetxattr(c->fd, "user.pre", "1", 1, 0))
		return -EIO;
	if (!with_src)
		return 0;
	fd = openat(c->held, "src", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, "12345", 5) != 5) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

void ctx_close(struct ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->held >= 0)
		close(c->held);
	if (c->other >= 0)
		close(c->other);
	c->fd = c->held = c->other = -1;
}

int call_mkdir(struct ctx *c)
{
	return SYS(mkdirat(c->held, "d", 0750));
}

int call_create(struct ctx *c)
{
	int fd = openat(c->held, "new", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0640);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int call_mknod(struct ctx *c)
{
	return SYS(mknodat(c->held, "fifo", S_IFIFO | 0600, 0));
}

int call_symlink(struct ctx *c)
{
	return SYS(symlinkat("f", c->held, "sl"));
}

int call_link(struct ctx *c)
{
	return SYS(linkat(c->held, "f", c->held, "f2", 0));
}

int call_rename(struct ctx *c)
{
	return SYS(renameat(c->held, "f", c->held, "g"));
}

int call_rename_crossdir(struct ctx *c)
{
	return SYS(renameat(c->held, "f", c->held, "sub/f"));
}

int call_rename_noreplace(struct ctx *c)
{
	return SYS(renameat2(c->held, "f", c->held, "g", RENAME_NOREPLACE));
}

int call_rename_exchange(struct ctx *c)
{
	return SYS(renameat2(c->held, "f", c->held, "sub", RENAME_EXCHANGE));
}

int call_chmod(struct ctx *c)
{
	return SYS(fchmodat(c->held, "f", 0604, 0));
}

int call_truncate(struct ctx *c)
{
	return SYS(truncate(c->f_path, 2));
}

int call_ftruncate(struct ctx *c)
{
	return SYS(ftruncate(c->fd, 2));
}

int call_setxattr(struct ctx *c)
{
	return SYS(setxattr(c->f_path, "user.hold", "yes", 3, 0));
}

int call_fsetxattr(struct ctx *c)
{
	return SYS(fsetxattr(c->fd, "user.hold", "yes", 3, 0));
}

int call_fremovexattr(struct ctx *c)
{
	return SYS(fremovexattr(c->fd, "user.pre"));
}

int call_unlink(struct ctx *c)
{
	return SYS(unlinkat(c->held, "f", 0));
}

int call_rmdir(struct ctx *c)
{
	return SYS(unlinkat(c->held, "sub", AT_REMOVEDIR));
}

int call_pwrite(struct ctx *c)
{
	return full(pwrite(c->fd, "WORLD", 5, 5), 5);
}

int call_pwritev(struct ctx *c)
{
	struct iovec iov[2] = { { "WOR", 3 }, { "LD", 2 } };

	return full(pwritev(c->fd, iov, 2, 5), 5);
}

int call_copy_file_range(struct ctx *c)
{
	int src = openat(c->held, "src", O_RDONLY | O_CLOEXEC);
	int ret;

	if (src < 0)
		return -errno;
	ret = full(copy_file_range(src, NULL, c->fd, NULL, 5, 0), 5);
	close(src);
	return ret;
}

int call_sendfile(struct ctx *c)
{
	int src = openat(c->held, "src", O_RDONLY | O_CLOEXEC);
	off_t off = 0;
	int ret;

	if (src < 0)
		return -errno;
	ret = full(sendfile(c->fd, src, &off, 5), 5);
	close(src);
	return ret;
}

int call_fallocate(struct ctx *c)
{
	return SYS(fallocate(c->fd, 0, 0, 8192));
}

int call_fsync(struct ctx *c)
{
	return SYS(fsync(c->fd));
}

int uring_write1(int fd, const void *buf, unsigned int len, __u64 off)
{
	struct vfsb_uring r;
	int ret = vfsb_uring_init(&r, 8);

	if (!ret)
		ret = vfsb_uring_write(&r, fd, buf, len, off, 1);
	vfsb_uring_exit(&r);
	return ret;
}

int call_uring_write(struct ctx *c)
{
	return uring_write1(c->fd, "WORLD", 5, 5);
}

int call_aio_write(struct ctx *c)
{
	return aio_write1(c->fd, "WORLD", 5, 5);
}
