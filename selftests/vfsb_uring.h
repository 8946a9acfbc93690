/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A raw io_uring for the selftests (no liburing: the tests are static and
 * dependency-free): set up, submit one SQE, reap one CQE.
 */
#ifndef VFSB_URING_H
#define VFSB_URING_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/io_uring.h>

struct ring {
	bool up;
	int fd;
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqes_len;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static inline void ring_exit(struct ring *r)
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

/* 0 or -errno; ring_exit() undoes a partial setup too. */
static inline int ring_init(struct ring *r)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, 8, &p);
	if (r->fd < 0)
		return -errno;
	r->up = true;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(__u32);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if ((p.features & IORING_FEAT_SINGLE_MMAP) && r->cq_len > r->sq_len)
		r->sq_len = r->cq_len;
	sq = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	r->sq_map = sq;
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		cq = sq;
	} else {
		cq = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
		r->cq_map = cq;
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
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

/* Queues one SQE and submits it without waiting for its completion. */
static inline int ring_submit(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask;
	int ret;

	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	ret = syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0);
	if (ret < 0)
		return -errno;
	return ret == 1 ? 0 : -EIO;
}

/* Waits for the next CQE; *res is its res. */
static inline int ring_reap(struct ring *r, int *res)
{
	unsigned int head;

	for (;;) {
		head = *r->cq_head;
		if (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			*res = r->cqes[head & *r->cq_mask].res;
			__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
			return 0;
		}
		if (syscall(__NR_io_uring_enter, r->fd, 0, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0 && errno != EINTR)
			return -errno;
	}
}

/* Submits one SQE and waits for its completion; *res is the CQE's res. */
static inline int ring_run(struct ring *r, const struct io_uring_sqe *sqe,
			   int *res)
{
	int ret = ring_submit(r, sqe);

	return ret ? ret : ring_reap(r, res);
}

#endif /* VFSB_URING_H */
