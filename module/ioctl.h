/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl layer of /dev/vfsbarrier.
 */
#ifndef VFSB_IOCTL_H
#define VFSB_IOCTL_H

#include <linux/compiler.h>

struct vfsb_client;

long vfsb_ioctl(struct vfsb_client *c, unsigned int cmd, void __user *uarg);

#endif /* VFSB_IOCTL_H */
