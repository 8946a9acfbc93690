/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading and checking records in the selftests: subscribe, drain a
 * ring into an array, find items, resolve handles.
 */
#ifndef VFSB_RECORDS_TEST_H
#define VFSB_RECORDS_TEST_H

#include <sys/stat.h>

#include "vfsb_util.h"

#define REC_MAX 4096

struct rec_batch {
	int n;
	struct vfsb_record *rec[REC_MAX];
	char buf[REC_MAX * 256];
	size_t used;
};

static inline int vfsb_subscribe(int dev, __u32 ring_bytes, __u32 reasons,
				 __u32 flags)
{
	struct vfsb_subscribe s = { .ring_bytes = ring_bytes,
				    .reasons = reasons, .flags = flags };

	return vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s);
}

/* Reads, without blocking, every record there is. Returns 0 or -errno. */
static inline int rec_drain(int dev, struct rec_batch *b)
{
	int fl = fcntl(dev, F_GETFL);
	int ret = 0;

	b->n = 0;
	b->used = 0;
	fcntl(dev, F_SETFL, fl | O_NONBLOCK);
	for (;;) {
		size_t room = sizeof(b->buf) - b->used;
		ssize_t got, off = 0;

		if (room < VFSB_RECORD_MAX)
			break;
		got = read(dev, b->buf + b->used, room);
		if (got < 0) {
			ret = errno == EAGAIN ? 0 : -errno;
			break;
		}
		while (off < got && b->n < REC_MAX) {
			struct vfsb_record *r = (void *)(b->buf + b->used + off);

			b->rec[b->n++] = r;
			off += r->size;
		}
		b->used += got;
	}
	fcntl(dev, F_SETFL, fl);
	return ret;
}

static inline struct vfsb_rec_item *rec_item(struct vfsb_record *r, int type)
{
	struct vfsb_rec_item *it = vfsb_rec_first_item(r);
	__u32 i;

	for (i = 0; i < r->nr_items; i++, it = vfsb_rec_next_item(it))
		if (it->type == type)
			return it;
	return NULL;
}

/* The entry name as a C string in buf (empty when none). */
static inline const char *rec_name(struct vfsb_record *r, char *buf, size_t sz)
{
	struct vfsb_rec_item *it = rec_item(r, VFSB_ITEM_NAME);
	size_t n = it ? it->len : 0;

	if (n >= sz)
		n = sz - 1;
	memcpy(buf, it ? vfsb_item_data(it) : "", n);
	buf[n] = 0;
	return buf;
}

/* Inode number of what a handle item resolves to, via open_by_handle_at. */
static inline long long rec_resolve_ino(struct vfsb_record *r, int type,
					int mount_fd)
{
	struct vfsb_rec_item *it = rec_item(r, type);
	struct stat st;
	int fd;

	if (!it)
		return -ENOENT;
	fd = open_by_handle_at(mount_fd, vfsb_item_data(it), O_PATH);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		st.st_ino = 0;
	close(fd);
	return st.st_ino;
}

static inline long long ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -errno : (long long)st.st_ino;
}

/* Index of the first CHANGE record with these reasons and name, or -1. */
static inline int rec_find(struct rec_batch *b, __u32 reasons, const char *name)
{
	char nb[256];
	int i;

	for (i = 0; i < b->n; i++)
		if (b->rec[i]->type == VFSB_REC_CHANGE &&
		    (b->rec[i]->reasons & reasons) == reasons &&
		    (!name || !strcmp(rec_name(b->rec[i], nb, sizeof(nb)), name)))
			return i;
	return -1;
}

#endif /* VFSB_RECORDS_TEST_H */
