// SPDX-License-Identifier: GPL-2.0
/* Barriers: VFSB_IOC_BARRIER, and the async _START and _POLL. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "vfsb.h"

int vfsb_barrier_fd(int dev, int fd, __u32 flags, __u32 timeout_ms,
		    __u64 *waited_ns)
{
	struct vfsb_barrier b = {
		.fd = fd, .flags = flags, .timeout_ms = timeout_ms,
	};
	int ret = vfsb_ioctl(dev, VFSB_IOC_BARRIER, &b);

	if (!ret && waited_ns)
		*waited_ns = b.waited_ns;
	return ret;
}

int vfsb_barrier_path(int dev, const char *path, __u32 flags,
		      __u32 timeout_ms)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = vfsb_barrier_fd(dev, fd, flags, timeout_ms, NULL);
	close(fd);
	return ret;
}

int vfsb_barrier_start_fd(int dev, int fd, __u32 flags, __u64 *cookie)
{
	struct vfsb_barrier_start bs = { .fd = fd, .flags = flags };
	int ret = vfsb_ioctl(dev, VFSB_IOC_BARRIER_START, &bs);

	if (!ret)
		*cookie = bs.cookie;
	return ret;
}

int vfsb_barrier_start_path(int dev, const char *path, __u32 flags,
			    __u64 *cookie)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = vfsb_barrier_start_fd(dev, fd, flags, cookie);
	close(fd);
	return ret;
}

int vfsb_barrier_poll(int dev, __u64 cookie, __u64 *done_cookie)
{
	struct vfsb_barrier_poll bp = { .cookie = cookie };
	int ret = vfsb_ioctl(dev, VFSB_IOC_BARRIER_POLL, &bp);

	if (ret)
		return ret;
	if (done_cookie)
		*done_cookie = bp.done_cookie;
	return (int)bp.state;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int vfsb_barrier_wait(int dev, __u64 cookie, int timeout_ms)
{
	long long end = now_ms() + timeout_ms, left;
	struct pollfd pfd = { .fd = dev, .events = POLLPRI };
	int state;

	for (;;) {
		state = vfsb_barrier_poll(dev, cookie, NULL);
		if (state < 0 || state == VFSB_BARRIER_DONE)
			return state < 0 ? state : 0;
		left = timeout_ms < 0 ? -1 : end - now_ms();
		if (timeout_ms >= 0 && left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
}
