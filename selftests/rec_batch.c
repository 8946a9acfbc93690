// SPDX-License-Identifier: GPL-2.0
/* Reading records in the selftests; see rec_batch.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "vfsb.h"
#include "rec_batch.h"

int rec_drain(int dev, struct rec_batch *b)
{
	int fl = fcntl(dev, F_GETFL);
	int ret = 0;

	b->n = 0;
	b->used = 0;
	fcntl(dev, F_SETFL, fl | O_NONBLOCK);
	for (;;) {
		size_t room = sizeof(b->buf) - b->used, off;
		struct vfsb_record *r;
		ssize_t got;

		if (room < VFSB_RECORD_MAX)
			break;
		got = read(dev, b->buf + b->used, room);
		if (got < 0) {
			ret = errno == EAGAIN ? 0 : -errno;
			break;
		}
		for (off = 0; b->n < REC_MAX &&
		     (r = vfsb_rec_at(b->buf + b->used, got, off)); off += r->size)
			b->rec[b->n++] = r;
		b->used += got;
	}
	fcntl(dev, F_SETFL, fl);
	return ret;
}

int rec_find(struct rec_batch *b, __u32 reasons, const char *name)
{
	char nb[256];
	int i;

	for (i = 0; i < b->n; i++)
		if (b->rec[i]->type == VFSB_REC_CHANGE &&
		    (b->rec[i]->reasons & reasons) == reasons &&
		    (!name || !strcmp(vfsb_rec_name(b->rec[i], nb, sizeof(nb)), name)))
			return i;
	return -1;
}

long long rec_resolve_ino(struct vfsb_record *r, int type, int mount_fd)
{
	struct stat st;
	int fd = vfsb_rec_open_handle(r, type, mount_fd, O_PATH);

	if (fd < 0)
		return fd;
	if (fstat(fd, &st))
		st.st_ino = 0;
	close(fd);
	return st.st_ino;
}

long long ino_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -errno : (long long)st.st_ino;
}
