/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every way of writing that the coverage matrix (test_coverage.c) and
 * the record matrix (test_record_matrix.c) run, one function each
 * (write_ops.c). A test prepares a context (files, descriptors, a ring)
 * with a wop_prep_*(), samples what it checks, runs one operation, and
 * compares. All return 0 or -errno.
 *
 * The names the operations use, in the test's directory d: "f" a file
 * of 100 bytes (wop_prep_file, _fd: also open read-write as fd), "g" a
 * second one, "sub" a directory, "s" a source of WOP_BUFSZ bytes; what
 * they make: "new", "newdir", "fifo", "sl", "f2", "renamed", "ringdir";
 * d2, a second directory, receives cross-directory renames.
 */
#ifndef WRITE_OPS_H
#define WRITE_OPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/aio_abi.h>

#include "vfsb_uring.h"

#define WOP_BUFSZ 4096

struct wop_ctx {
	const char *fs;			/* the filesystem's name, for messages */
	char d[PATH_MAX / 2];		/* this test's directory */
	char d2[PATH_MAX / 2];		/* and a second one (cross-dir rename) */
	char p[3][PATH_MAX];		/* built paths */
	int fd, src;			/* a file open for writing, a source */
	int pipefd[2];
	char *buf;			/* WOP_BUFSZ, page aligned (O_DIRECT) */
	struct vfsb_uring ring;
	aio_context_t aio;
	char *map;			/* a shared mapping of "f" */
	size_t maplen;
};

/* Empty, named after the filesystem fs; nothing to release yet. */
void wop_ctx_init(struct wop_ctx *c, const char *fs);
/* Creates base/name and base/name.2 as d and d2, and the data buffer. */
int wop_ctx_dirs(struct wop_ctx *c, const char *base, const char *name);
/* Closes and unmaps whatever the preparations opened. */
void wop_ctx_release(struct wop_ctx *c);

/* err (-errno) is one of the n errnos (positive; 0 entries ignored). */
bool wop_errno_in(const int *errs, int n, int err);

/* ---- preparations ---- */

int wop_prep_file(struct wop_ctx *c);
int wop_prep_two_files(struct wop_ctx *c);
int wop_prep_file_and_dir(struct wop_ctx *c);
int wop_prep_dir(struct wop_ctx *c);
int wop_prep_fd(struct wop_ctx *c);
int wop_prep_xattr(struct wop_ctx *c);
int wop_prep_src_dst(struct wop_ctx *c);
int wop_prep_twins(struct wop_ctx *c);
int wop_prep_pipe(struct wop_ctx *c);
int wop_prep_ring(struct wop_ctx *c);
int wop_prep_ring_odirect(struct wop_ctx *c);
int wop_prep_ring_dir(struct wop_ctx *c);
int wop_prep_aio(struct wop_ctx *c);
int wop_prep_aio_odirect(struct wop_ctx *c);
int wop_prep_map(struct wop_ctx *c);
int wop_prep_fd_3pages(struct wop_ctx *c);	/* f: 3 pages, open as fd */

/* ---- the operations ---- */

int wop_open_creat(struct wop_ctx *c);
int wop_open_creat_trunc(struct wop_ctx *c);
int wop_open_trunc(struct wop_ctx *c);
int wop_mkdir(struct wop_ctx *c);
int wop_mknod_fifo(struct wop_ctx *c);
int wop_symlink(struct wop_ctx *c);
int wop_link(struct wop_ctx *c);
int wop_unlink(struct wop_ctx *c);
int wop_rmdir(struct wop_ctx *c);
int wop_rename(struct wop_ctx *c);
int wop_rename_crossdir(struct wop_ctx *c);
int wop_rename_dir_crossdir(struct wop_ctx *c);
int wop_rename_replace(struct wop_ctx *c);
int wop_renameat2_noreplace(struct wop_ctx *c);
int wop_renameat2_exchange(struct wop_ctx *c);
int wop_renameat2_exchange_dir(struct wop_ctx *c);
int wop_renameat2_whiteout(struct wop_ctx *c);
int wop_chmod(struct wop_ctx *c);
int wop_fchmod(struct wop_ctx *c);
int wop_chown(struct wop_ctx *c);
int wop_fchown(struct wop_ctx *c);
int wop_utimensat(struct wop_ctx *c);
int wop_futimens(struct wop_ctx *c);
int wop_truncate(struct wop_ctx *c);
int wop_ftruncate(struct wop_ctx *c);
int wop_setxattr(struct wop_ctx *c);
int wop_fsetxattr(struct wop_ctx *c);
int wop_removexattr(struct wop_ctx *c);
int wop_fremovexattr(struct wop_ctx *c);
int wop_write(struct wop_ctx *c);
int wop_pwrite64(struct wop_ctx *c);
int wop_writev(struct wop_ctx *c);
int wop_pwritev2(struct wop_ctx *c);
int wop_pwritev2_dsync(struct wop_ctx *c);
int wop_sendfile(struct wop_ctx *c);
int wop_splice(struct wop_ctx *c);
int wop_copy_file_range(struct wop_ctx *c);
int wop_fallocate(struct wop_ctx *c);
int wop_ficlone(struct wop_ctx *c);
int wop_fideduperange(struct wop_ctx *c);
int wop_uring_write(struct wop_ctx *c);
int wop_uring_write_async(struct wop_ctx *c);
int wop_uring_writev(struct wop_ctx *c);
int wop_uring_fallocate(struct wop_ctx *c);
int wop_uring_mkdirat(struct wop_ctx *c);
int wop_uring_renameat(struct wop_ctx *c);
int wop_chattr(struct wop_ctx *c);
int wop_fssetxattr(struct wop_ctx *c);
int wop_verity_enable(struct wop_ctx *c);
int wop_fscrypt_policy(struct wop_ctx *c);
int wop_append_write(struct wop_ctx *c);
int wop_fallocate_collapse(struct wop_ctx *c);
int wop_aio_write(struct wop_ctx *c);
int wop_aio_writev(struct wop_ctx *c);
int wop_uring_write_odirect(struct wop_ctx *c);
int wop_aio_write_odirect(struct wop_ctx *c);
int wop_mmap_store(struct wop_ctx *c);

#endif /* WRITE_OPS_H */
