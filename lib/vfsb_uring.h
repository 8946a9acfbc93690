/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw io_uring (no liburing: the programs are static and run in a
 * busybox guest), just enough to drive writes through the io_uring
 * paths the module hooks: set up, submit, reap.
 */
#ifndef VFSB_URING_H
#define VFSB_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/io_uring.h>

struct vfsb_uring {
	bool up;		/* set up (partly, maybe): exit() undoes it */
	int fd;
	void *sq_map, *cq_map;	/* cq_map NULL: one mapping for both */
	size_t sq_len, cq_len, sqes_len;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* 0 or -errno; vfsb_uring_exit() undoes a partial setup too. */
int vfsb_uring_init(struct vfsb_uring *r, unsigned int entries);
/* The same with IORING_SETUP_* flags (IORING_SETUP_IOPOLL, say). */
int vfsb_uring_init_flags(struct vfsb_uring *r, unsigned int entries,
			  unsigned int flags);
/* A no-op on a ring that is zeroed or already gone. */
void vfsb_uring_exit(struct vfsb_uring *r);
/* Queues one SQE and submits it, without waiting for its completion. */
int vfsb_uring_submit(struct vfsb_uring *r, const struct io_uring_sqe *sqe);
/* Waits for the next CQE; *res is its res. */
int vfsb_uring_reap(struct vfsb_uring *r, int *res);
/* Submits one SQE and waits for its completion; *res is the CQE's res. */
int vfsb_uring_run(struct vfsb_uring *r, const struct io_uring_sqe *sqe,
		   int *res);
/*
 * n IORING_OP_WRITEs of len bytes of buf to fd at off, off + len, ...
 * (n at most the ring's entries), submitted and waited for in one
 * io_uring_enter(): 0 when every one wrote len bytes, else the first
 * bad result or -errno.
 */
int vfsb_uring_write(struct vfsb_uring *r, int fd, const void *buf,
		     unsigned int len, __u64 off, unsigned int n);
/*
 * One IORING_OP_OPENAT of path (AT_FDCWD) with open(2)'s flags and mode:
 * the descriptor, or -errno (the completion's, or the ring's).
 */
int vfsb_uring_openat(struct vfsb_uring *r, const char *path, int flags,
		      unsigned int mode);
/*
 * One IORING_OP_SPLICE of len bytes from the pipe fd_in into fd_out at
 * off_out: the bytes spliced, or -errno.
 */
int vfsb_uring_splice(struct vfsb_uring *r, int fd_in, int fd_out,
		      __u64 off_out, unsigned int len);

#endif /* VFSB_URING_H */
