/* SPDX-License-Identifier: GPL-2.0 */
/* One record as vbctl stream prints it (record_print.c). */
#ifndef VBCTL_RECORD_PRINT_H
#define VBCTL_RECORD_PRINT_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/vfsbarrier.h>

/* A streamed filesystem: its st_dev and an fd on it, for the handles. */
struct rec_fs {
	dev_t dev;
	int fd;
};

/* One line for r (JSON when json; one object), flushed: 0 or -errno. */
int print_record(struct vfsb_record *r, bool json, const struct rec_fs *fs,
		 int nfs);

#endif /* VBCTL_RECORD_PRINT_H */
