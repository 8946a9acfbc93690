/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Holding a data write in flight with userfaultfd: write() from a buffer
 * whose page is missing blocks inside the kernel's write path (after the
 * write section began) until the test supplies the page. The fault
 * message tells the test, without any sleep, that the writer is held.
 */
#ifndef UFFD_HOLD_H
#define UFFD_HOLD_H

#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>

#include "vfsb_util.h"

struct uffd_hold {
	int uffd;
	int fd;			/* the file written */
	char *buf;		/* registered, missing page */
	char *src;		/* what the page is filled with */
	size_t page;
	pthread_t thread;
	volatile int done;
	ssize_t ret;
	int err;
};

static void *uffd_hold_writer(void *arg)
{
	struct uffd_hold *h = arg;

	h->ret = write(h->fd, h->buf, h->page);
	h->err = errno;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Starts write(fd, page) and returns once the writer is held: 0/-errno. */
static inline int uffd_hold_start(struct uffd_hold *h, int fd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffd_msg msg;

	memset(h, 0, sizeof(*h));
	h->fd = fd;
	h->page = sysconf(_SC_PAGESIZE);
	h->uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (h->uffd < 0 || ioctl(h->uffd, UFFDIO_API, &api))
		return -errno;
	h->buf = mmap(NULL, h->page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h->src = mmap(NULL, h->page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h->buf == MAP_FAILED || h->src == MAP_FAILED)
		return -ENOMEM;
	memset(h->src, 'x', h->page);
	reg.range.start = (unsigned long)h->buf;
	reg.range.len = h->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(h->uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	if (pthread_create(&h->thread, NULL, uffd_hold_writer, h))
		return -EAGAIN;
	/* blocks until the writer faults on the page inside write() */
	if (read(h->uffd, &msg, sizeof(msg)) != sizeof(msg))
		return -EIO;
	if (msg.event != UFFD_EVENT_PAGEFAULT)
		return -EPROTO;
	return 0;
}

static inline int uffd_hold_done(struct uffd_hold *h)
{
	return __atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
}

/* Supplies the page; the write completes. Returns what write() did. */
static inline ssize_t uffd_hold_release(struct uffd_hold *h)
{
	struct uffdio_copy copy = {
		.dst = (unsigned long)h->buf,
		.src = (unsigned long)h->src,
		.len = h->page,
	};

	if (ioctl(h->uffd, UFFDIO_COPY, &copy))
		return -errno;
	pthread_join(h->thread, NULL);
	close(h->uffd);
	munmap(h->buf, h->page);
	munmap(h->src, h->page);
	return h->ret < 0 ? -h->err : h->ret;
}

#endif /* UFFD_HOLD_H */
