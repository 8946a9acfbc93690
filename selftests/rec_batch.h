/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading records in the selftests: drain a subscriber's ring into an
 * array, find a record by reasons and name, resolve a handle (rec_batch.c).
 */
#ifndef REC_BATCH_H
#define REC_BATCH_H

#include <stddef.h>
#include <linux/vfsbarrier.h>

#define REC_MAX 4096

struct rec_batch {
	int n;
	struct vfsb_record *rec[REC_MAX];
	char buf[REC_MAX * 256];
	size_t used;
};

/* Reads, without blocking, every record there is: 0 or -errno. */
int rec_drain(int dev, struct rec_batch *b);

/* Index of the first CHANGE record with these reasons (and this name,
   unless NULL), or -1. */
int rec_find(struct rec_batch *b, __u32 reasons, const char *name);

/* Inode number of what the handle item of this type resolves to
   (open_by_handle_at on mount_fd), or -errno. */
long long rec_resolve_ino(struct vfsb_record *r, int type, int mount_fd);

/* st_ino of path, or -errno. */
long long ino_of(const char *path);

#endif /* REC_BATCH_H */
