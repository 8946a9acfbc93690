/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The misc device /dev/vfsbarrier.
 */
#ifndef VFSB_DEVICE_H
#define VFSB_DEVICE_H

int vfsb_device_init(void);
void vfsb_device_exit(void);

#endif /* VFSB_DEVICE_H */
