// SPDX-License-Identifier: GPL-2.0
/* Watching filesystems: VFSB_IOC_WATCH, _UNWATCH and _LIST. */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "vfsb.h"

static int watch_ioctl(int dev, unsigned long cmd, struct vfsb_watch *w,
		       __u32 *sb_dev)
{
	int ret = vfsb_ioctl(dev, cmd, w);

	if (!ret && sb_dev)
		*sb_dev = w->dev;
	return ret;
}

int vfsb_watch_fd(int dev, int fd, __u32 *sb_dev)
{
	return vfsb_watch_fd_id(dev, fd, sb_dev, NULL);
}

int vfsb_watch_fd_id(int dev, int fd, __u32 *sb_dev, __u32 *id)
{
	struct vfsb_watch w = { .fd = fd };
	int ret = watch_ioctl(dev, VFSB_IOC_WATCH, &w, sb_dev);

	if (!ret && id)
		*id = w.id;
	return ret;
}

int vfsb_unwatch_fd(int dev, int fd, __u32 *sb_dev)
{
	struct vfsb_watch w = { .fd = fd };

	return watch_ioctl(dev, VFSB_IOC_UNWATCH, &w, sb_dev);
}

int vfsb_unwatch_id(int dev, __u32 id, __u32 *sb_dev)
{
	struct vfsb_watch w = { .fd = -1, .flags = VFSB_UNWATCH_BY_ID, .id = id };

	return watch_ioctl(dev, VFSB_IOC_UNWATCH, &w, sb_dev);
}

/* An O_PATH fd names the filesystem without needing read access. */
static int watch_path(int dev, const char *path, bool watch)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = watch ? vfsb_watch_fd(dev, fd, NULL) :
		      vfsb_unwatch_fd(dev, fd, NULL);
	close(fd);
	return ret;
}

int vfsb_watch_path(int dev, const char *path)
{
	return watch_path(dev, path, true);
}

int vfsb_unwatch_path(int dev, const char *path)
{
	return watch_path(dev, path, false);
}

int vfsb_list(int dev, __u32 **devs, unsigned int *n)
{
	struct vfsb_list l = { 0 };
	__u32 *buf = NULL, *bigger;
	int ret;

	*devs = NULL;
	*n = 0;
	/* the count first, then until a buffer holds them all: another
	   thread of this opener may watch more in between */
	ret = vfsb_ioctl(dev, VFSB_IOC_LIST, &l);
	while (!ret && l.count > l.capacity) {
		l.capacity = l.count + 8;
		bigger = realloc(buf, l.capacity * sizeof(*buf));
		if (!bigger) {
			ret = -ENOMEM;
			break;
		}
		buf = bigger;
		l.devs_ptr = (uintptr_t)buf;
		ret = vfsb_ioctl(dev, VFSB_IOC_LIST, &l);
	}
	if (ret || !l.count) {
		free(buf);
		return ret;
	}
	*devs = buf;
	*n = l.count;
	return 0;
}
