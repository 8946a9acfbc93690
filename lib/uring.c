// SPDX-License-Identifier: GPL-2.0
/* A raw io_uring; see vfsb_uring.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vfsb_uring.h"

static void *ring_map(int fd, size_t len, __u64 off)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, off);
}

void vfsb_uring_exit(struct vfsb_uring *r)
{
	if (!r->up)
		return;
	if (r->sqes && r->sqes != MAP_FAILED)
		munmap(r->sqes, r->sqes_len);
	if (r->cq_map && r->cq_map != MAP_FAILED)
		munmap(r->cq_map, r->cq_len);
	if (r->sq_map && r->sq_map != MAP_FAILED)
		munmap(r->sq_map, r->sq_len);
	close(r->fd);
	memset(r, 0, sizeof(*r));
}

int vfsb_uring_init(struct vfsb_uring *r, unsigned int entries)
{
	return vfsb_uring_init_flags(r, entries, 0);
}

int vfsb_uring_init_flags(struct vfsb_uring *r, unsigned int entries,
			  unsigned int flags)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -errno;
	r->up = true;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(__u32);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if ((p.features & IORING_FEAT_SINGLE_MMAP) && r->cq_len > r->sq_len)
		r->sq_len = r->cq_len;
	sq = ring_map(r->fd, r->sq_len, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	r->sq_map = sq;
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		cq = sq;
	} else {
		cq = ring_map(r->fd, r->cq_len, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
		r->cq_map = cq;
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = ring_map(r->fd, r->sqes_len, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = (void *)(sq + p.sq_off.tail);
	r->sq_mask = (void *)(sq + p.sq_off.ring_mask);
	r->sq_array = (void *)(sq + p.sq_off.array);
	r->cq_head = (void *)(cq + p.cq_off.head);
	r->cq_tail = (void *)(cq + p.cq_off.tail);
	r->cq_mask = (void *)(cq + p.cq_off.ring_mask);
	r->cqes = (void *)(cq + p.cq_off.cqes);
	return 0;
}

/* Puts sqe in the next free slot; the kernel sees it once the tail moves. */
static void ring_queue(struct vfsb_uring *r, unsigned int tail,
		       const struct io_uring_sqe *sqe)
{
	unsigned int idx = tail & *r->sq_mask;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
}

int vfsb_uring_submit(struct vfsb_uring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail;
	int ret;

	ring_queue(r, tail, sqe);
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0);
	if (ret < 0)
		return -errno;
	return ret == 1 ? 0 : -EIO;
}

/* The next CQE's res if there is one: 1, else 0. */
static int ring_take(struct vfsb_uring *r, int *res)
{
	unsigned int head = *r->cq_head;

	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return 0;
	*res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return 1;
}

int vfsb_uring_reap(struct vfsb_uring *r, int *res)
{
	while (!ring_take(r, res))
		if (syscall(__NR_io_uring_enter, r->fd, 0, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0 && errno != EINTR)
			return -errno;
	return 0;
}

int vfsb_uring_run(struct vfsb_uring *r, const struct io_uring_sqe *sqe,
		   int *res)
{
	int ret = vfsb_uring_submit(r, sqe);

	return ret ? ret : vfsb_uring_reap(r, res);
}

int vfsb_uring_write(struct vfsb_uring *r, int fd, const void *buf,
		     unsigned int len, __u64 off, unsigned int n)
{
	unsigned int tail = *r->sq_tail, i;
	struct io_uring_sqe sqe;
	int res, ret = 0;

	for (i = 0; i < n; i++) {
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = IORING_OP_WRITE;
		sqe.fd = fd;
		sqe.addr = (uintptr_t)buf;
		sqe.len = len;
		sqe.off = off + (__u64)i * len;
		ring_queue(r, tail + i, &sqe);
	}
	__atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
	/* submit all and wait for all: one system call for the batch */
	if (syscall(__NR_io_uring_enter, r->fd, n, n, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		int err = vfsb_uring_reap(r, &res);

		if (err)
			return err;
		if (res != (int)len && !ret)
			ret = res < 0 ? res : -EIO;
	}
	return ret;
}

int vfsb_uring_openat(struct vfsb_uring *r, const char *path, int flags,
		      unsigned int mode)
{
	struct io_uring_sqe sqe;
	int res, ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (uintptr_t)path;
	sqe.open_flags = flags;
	sqe.len = mode;
	ret = vfsb_uring_run(r, &sqe, &res);
	return ret ? ret : res;
}

int vfsb_uring_splice(struct vfsb_uring *r, int fd_in, int fd_out,
		      __u64 off_out, unsigned int len)
{
	struct io_uring_sqe sqe;
	int res, ret;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SPLICE;
	sqe.fd = fd_out;
	sqe.off = off_out;
	sqe.splice_fd_in = fd_in;
	sqe.splice_off_in = (__u64)-1;
	sqe.len = len;
	ret = vfsb_uring_run(r, &sqe, &res);
	return ret ? ret : res;
}
