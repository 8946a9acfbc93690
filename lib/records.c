// SPDX-License-Identifier: GPL-2.0
/*
 * The record stream: subscribing, walking what read() returned, and the
 * items of a record. Walking checks every size against the buffer, so a
 * reader never runs past what the kernel gave it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "vfsb.h"

int vfsb_subscribe(int dev, __u32 ring_bytes, __u32 reasons, __u32 flags,
		   __u64 *journal_id)
{
	struct vfsb_subscribe s = {
		.ring_bytes = ring_bytes, .reasons = reasons, .flags = flags,
	};
	int ret = vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s);

	if (!ret && journal_id)
		*journal_id = s.journal_id;
	return ret;
}

struct vfsb_record *vfsb_rec_at(void *buf, size_t len, size_t off)
{
	struct vfsb_record *r = (void *)((char *)buf + off);

	if (off >= len || len - off < sizeof(*r))
		return NULL;
	if (r->size < sizeof(*r) || r->size > len - off ||
	    r->header_size > r->size)
		return NULL;
	return r;
}

struct vfsb_rec_item *vfsb_rec_item(struct vfsb_record *r, unsigned int type)
{
	char *end = (char *)r + r->size;
	struct vfsb_rec_item *it = vfsb_rec_first_item(r);
	__u32 i;

	for (i = 0; i < r->nr_items; i++, it = vfsb_rec_next_item(it)) {
		if ((char *)(it + 1) > end ||
		    (char *)vfsb_item_data(it) + it->len > end)
			return NULL;
		if (it->type == type)
			return it;
	}
	return NULL;
}

const char *vfsb_rec_name(struct vfsb_record *r, char *buf, size_t sz)
{
	struct vfsb_rec_item *it = vfsb_rec_item(r, VFSB_ITEM_NAME);
	size_t n = it ? it->len : 0;

	if (n >= sz)
		n = sz - 1;
	if (n)
		memcpy(buf, vfsb_item_data(it), n);
	buf[n] = 0;
	return buf;
}

int vfsb_rec_open_handle(struct vfsb_record *r, unsigned int type,
			 int mount_fd, int flags)
{
	struct vfsb_rec_item *it = vfsb_rec_item(r, type);
	int fd;

	if (!it)
		return -ENOENT;
	fd = open_by_handle_at(mount_fd, vfsb_item_data(it), flags);
	return fd < 0 ? -errno : fd;
}
