/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calls the FUSE hold tests (test_fuse_hold.c, test_held_ops.c)
 * hold in flight, one function each, and the directory tree they work
 * on (hold_calls.c). Each returns 0 or -errno; it runs in a thread of
 * its own (bg.h) while the test holds its request.
 */
#ifndef HOLD_CALLS_H
#define HOLD_CALLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct ctx {
	int held;		/* O_PATH fd of the directory the calls work in */
	int other;		/* O_PATH fd of a directory they leave alone */
	int fd;			/* held/f, open read-write */
	char f_path[PATH_MAX];	/* held/f, for the calls that take a path */
	char *buf;		/* data for io_uring/AIO writes of the test's own */
	size_t len;
};

/*
 * In the directory base: held/ with f ("hello", xattr user.pre=1, open
 * as fd), the directory sub and, with_src, src ("12345", what
 * call_copy_file_range() and call_sendfile() copy); other/, empty.
 * 0 or -errno; ctx_close() undoes a partial one.
 */
int ctx_make(struct ctx *c, const char *base, bool with_src);
void ctx_close(struct ctx *c);

int call_mkdir(struct ctx *c);			/* held/d, 0750 */
int call_create(struct ctx *c);			/* held/new, O_EXCL, 0640 */
int call_mknod(struct ctx *c);			/* held/fifo, S_IFIFO 0600 */
int call_symlink(struct ctx *c);		/* held/sl -> f */
int call_link(struct ctx *c);			/* held/f2 to f */
int call_rename(struct ctx *c);			/* f -> g */
int call_rename_crossdir(struct ctx *c);	/* f -> sub/f */
int call_rename_noreplace(struct ctx *c);	/* f -> g, RENAME_NOREPLACE */
int call_rename_exchange(struct ctx *c);	/* f <-> sub, RENAME_EXCHANGE */
int call_chmod(struct ctx *c);			/* f to 0604 */
int call_truncate(struct ctx *c);		/* truncate(path of f, 2) */
int call_ftruncate(struct ctx *c);		/* ftruncate(fd, 2) */
int call_setxattr(struct ctx *c);		/* path of f: user.hold=yes */
int call_fsetxattr(struct ctx *c);		/* fd: user.hold=yes */
int call_fremovexattr(struct ctx *c);		/* fd: user.pre */
int call_unlink(struct ctx *c);			/* f */
int call_rmdir(struct ctx *c);			/* sub */
int call_pwrite(struct ctx *c);			/* "WORLD" at 5 */
int call_pwritev(struct ctx *c);		/* "WOR" "LD" at 5 */
int call_copy_file_range(struct ctx *c);	/* 5 bytes of src to fd */
int call_sendfile(struct ctx *c);		/* 5 bytes of src to fd */
int call_fallocate(struct ctx *c);		/* 0..8192 */
int call_fsync(struct ctx *c);
int call_uring_write(struct ctx *c);		/* "WORLD" at 5 */
int call_aio_write(struct ctx *c);		/* "WORLD" at 5 */

/* One io_uring write of len bytes at off, on a ring of its own: 0 when
   all were written. */
int uring_write1(int fd, const void *buf, unsigned int len, __u64 off);

#endif /* HOLD_CALLS_H */
