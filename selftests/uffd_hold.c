// SPDX-License-Identifier: GPL-2.0
/* Holding a data write in flight with userfaultfd; see uffd_hold.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include "uffd_hold.h"

static char *map_page(size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

int uffd_page_init(struct uffd_page *u)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };

	u->page = sysconf(_SC_PAGESIZE);
	u->buf = u->src = MAP_FAILED;
	u->uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u->uffd < 0 || ioctl(u->uffd, UFFDIO_API, &api))
		return -errno;
	u->buf = map_page(u->page);
	u->src = map_page(u->page);
	if (u->buf == MAP_FAILED || u->src == MAP_FAILED)
		return -ENOMEM;
	memset(u->src, 'u', u->page);
	reg.range.start = (unsigned long)u->buf;
	reg.range.len = u->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	return ioctl(u->uffd, UFFDIO_REGISTER, &reg) ? -errno : 0;
}

int uffd_page_wait_fault(struct uffd_page *u, int ms)
{
	struct pollfd pfd = { .fd = u->uffd, .events = POLLIN };
	struct uffd_msg msg;

	if (poll(&pfd, 1, ms) != 1)
		return -ETIMEDOUT;
	if (read(u->uffd, &msg, sizeof(msg)) != sizeof(msg))
		return -errno;
	return msg.event == UFFD_EVENT_PAGEFAULT ? 0 : -EPROTO;
}

int uffd_page_fill(struct uffd_page *u)
{
	struct uffdio_copy copy = {
		.dst = (unsigned long)u->buf,
		.src = (unsigned long)u->src,
		.len = u->page,
	};

	return ioctl(u->uffd, UFFDIO_COPY, &copy) ? -errno : 0;
}

void uffd_page_close(struct uffd_page *u)
{
	if (u->uffd >= 0)
		close(u->uffd);
	u->uffd = -1;
}

void uffd_page_unmap(struct uffd_page *u)
{
	if (u->buf && u->buf != MAP_FAILED)
		munmap(u->buf, u->page);
	if (u->src && u->src != MAP_FAILED)
		munmap(u->src, u->page);
	u->buf = u->src = NULL;
}

static void *hold_writer(void *arg)
{
	struct uffd_hold *h = arg;

	h->ret = write(h->fd, h->u.buf, h->u.page);
	h->err = errno;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int uffd_hold_start(struct uffd_hold *h, int fd)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->fd = fd;
	ret = uffd_page_init(&h->u);
	if (ret)
		return ret;
	if (pthread_create(&h->thread, NULL, hold_writer, h))
		return -EAGAIN;
	/* until the writer faults on the page inside write() */
	return uffd_page_wait_fault(&h->u, -1);
}

int uffd_hold_done(struct uffd_hold *h)
{
	return __atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
}

ssize_t uffd_hold_release(struct uffd_hold *h)
{
	int ret = uffd_page_fill(&h->u);

	if (ret)
		return ret;
	pthread_join(h->thread, NULL);
	uffd_page_close(&h->u);
	uffd_page_unmap(&h->u);
	return h->ret < 0 ? -h->err : h->ret;
}
