/* SPDX-License-Identifier: GPL-2.0 */
/*
 * New directories (newdirs.c). With VFSB_SUB_NEW_DIRS a directory whose
 * inode changed in an epoch (made, moved, its attributes set: its
 * ctime) under a directory whose intent is acked there counts as acked
 * too: the changes inside it go on at once, and only the records the
 * daemon stores name them. A crash before the epoch closes can lose
 * those records; what stays is the durable intent of its parent. So the
 * recovery reads each directory of the epochs left open, and each
 * subdirectory of it whose ctime or birth time comes since those epochs
 * began becomes a moved entry: read it whole. The time they began is
 * the floor, saved in the journal as each checkpoint closes an epoch,
 * measured before it opened the next one, less a margin.
 */
#ifndef VBJD_NEWDIRS_H
#define VBJD_NEWDIRS_H

#include <stdint.h>
#include <time.h>

#include "store.h"

/* seconds taken off the clock's reading, for the coarse clock and the
 * filesystems that keep times in whole seconds */
#define VBJD_NEWDIRS_MARGIN_S	10

/*
 * Saves the floor of the epochs that begin after t (a reading of the
 * realtime clock before they began), in the transaction in progress.
 */
int vbjd_newdirs_floor(struct vbj_store *st, time_t t);

/*
 * In the recovery's transaction, before the open epochs are closed:
 * the moved entries for what they made. mount_fd(fs) gives the mount
 * point of the journal's filesystem fs (-1: not watched now). Returns
 * how many entries were added, or a negative errno or store error.
 */
int vbjd_newdirs_recover(struct vbj_store *st, int (*mount_fd)(void *arg,
							      int64_t fs),
			 void *arg);

#endif /* VBJD_NEWDIRS_H */
