// SPDX-License-Identifier: GPL-2.0
/*
 * Counters of the tracked filesystems: VFSB_IOC_STATS. The caller says
 * how large its entries are (entry_size in; an ABI 1 module ignores it)
 * and the kernel says how large it wrote them (entry_size out): entries
 * are read at that stride, so this library and the module may each know
 * more fields than the other. The kernel reports how many there are
 * beyond the buffer's capacity: the buffer is sized from a first call
 * and grown until it holds them all.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vfsb.h"

int vfsb_stats(int dev, struct vfsb_sb_stats **out, unsigned int *n)
{
	struct vfsb_stats req = { .entry_size = sizeof(struct vfsb_sb_stats) };
	struct vfsb_sb_stats *st;
	size_t esz, stride, keep;
	char *buf = NULL, *bigger;
	unsigned int i;
	int ret;

	*out = NULL;
	*n = 0;
	ret = vfsb_ioctl(dev, VFSB_IOC_STATS, &req);
	if (ret)
		return ret;
	/* an ABI 1 module writes its own size, whatever was asked */
	esz = req.entry_size > sizeof(*st) ? req.entry_size : sizeof(*st);
	while (req.count > req.capacity) {
		/* some slack: filesystems get watched meanwhile */
		req.capacity = req.count + 8;
		bigger = realloc(buf, req.capacity * esz);
		if (!bigger) {
			free(buf);
			return -ENOMEM;
		}
		buf = bigger;
		req.entries_ptr = (uintptr_t)buf;
		req.entry_size = sizeof(*st);
		ret = vfsb_ioctl(dev, VFSB_IOC_STATS, &req);
		if (ret) {
			free(buf);
			return ret;
		}
		if (req.entry_size > esz) {
			/* cannot happen with one module; never read past it */
			free(buf);
			return -EPROTO;
		}
	}
	if (!req.count) {
		free(buf);
		return 0;
	}
	st = calloc(req.count, sizeof(*st));
	if (!st) {
		free(buf);
		return -ENOMEM;
	}
	/* what the kernel wrote: what was asked (ABI 2), or its own size */
	stride = req.entry_size ? req.entry_size : sizeof(*st);
	keep = stride < sizeof(*st) ? stride : sizeof(*st);
	for (i = 0; i < req.count; i++)
		memcpy(&st[i], buf + (size_t)i * stride, keep);
	free(buf);
	*out = st;
	*n = req.count;
	return 0;
}

int vfsb_stats_dev(int dev, dev_t st_dev, struct vfsb_sb_stats *out)
{
	struct vfsb_sb_stats *st;
	unsigned int i, n;
	int ret = vfsb_stats(dev, &st, &n);

	if (ret)
		return ret;
	ret = -ENOENT;
	for (i = 0; i < n; i++) {
		/* an unmounted one may share the dev with its successor */
		if (vfsb_dev_t(st[i].dev) == st_dev &&
		    !(st[i].flags & VFSB_STATS_UNMOUNTED)) {
			*out = st[i];
			ret = 0;
			break;
		}
	}
	free(st);
	return ret;
}

int vfsb_stats_path(int dev, const char *path, struct vfsb_sb_stats *out)
{
	dev_t sb_dev;
	int ret = vfsb_path_sb_dev(path, &sb_dev);

	return ret ? ret : vfsb_stats_dev(dev, sb_dev, out);
}
