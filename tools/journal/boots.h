/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boots the daemon did not see (boots.c): a boot in which a journaled
 * filesystem was mounted read-write while no vbjournald ran (DKMS failed
 * for a new kernel, the unit disabled, its start limit hit) leaves its
 * writes unjournaled. ext2/3/4 count their read-write mounts
 * (vbjournald.c, check_mounts()); btrfs and XFS have counters that move
 * with every transaction, read here, with what a clean unmount and mount
 * add to them as measured (boots.c); any other filesystem (tmpfs, which
 * a boot empties, included) gets a gap for every boot after the
 * daemon's last.
 */
#ifndef VBJD_BOOTS_H
#define VBJD_BOOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/*
 * At the first start in a new boot (not for the journal's first
 * session): whether the filesystem of fd (journal id fsid, mounted at
 * path) may have been written by a boot the daemon did not see, given
 * how the last session ended (prev_clean). Adds the gap in epoch, and
 * saves the counter as vbjd_boots_note() does. 1: a gap was added; 0:
 * none; -errno.
 */
int vbjd_boots_check(struct vbj_store *st, int fd, int64_t fsid,
		     const char *path, bool prev_clean, int64_t epoch);

/*
 * Saves the filesystem's counter and what a clean unmount and the next
 * mount will make of it, in the open transaction: at each checkpoint,
 * so that the one after a clean stop's last syncfs() is kept.
 */
int vbjd_boots_note(struct vbj_store *st, int fd, int64_t fsid);

#endif
