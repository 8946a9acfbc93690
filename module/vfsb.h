/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vfsbarrier internal interfaces shared by the module's files.
 */
#ifndef VFSB_H
#define VFSB_H

#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/wait.h>

#define VFSB_MODULE_VERSION "0.1.0"

/* One open file of /dev/vfsbarrier. */
struct vfsb_client {
	struct mutex lock;	/* serialises this opener's ioctls */
};

int vfsb_dev_init(void);
void vfsb_dev_exit(void);

#endif /* VFSB_H */
