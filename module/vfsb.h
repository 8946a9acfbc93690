/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module-wide: the release string and the work queues.
 */
#ifndef VFSB_H
#define VFSB_H

#include <linux/workqueue.h>

/* From dkms.conf's PACKAGE_VERSION (Kbuild), the one place it is set. */
#ifndef VFSB_MODULE_VERSION
#define VFSB_MODULE_VERSION "unknown"
#endif

/* Teardowns and the hooks' lingering: short work, never on a writer. */
extern struct workqueue_struct *vfsb_wq;
/* Expedited barrier rounds: may sleep as long as a filesystem's writers. */
extern struct workqueue_struct *vfsb_barrier_wq;

#endif /* VFSB_H */
