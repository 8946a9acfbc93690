/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An opener's watches (which superblocks it tracks) and its subscription.
 */
#ifndef VFSB_WATCH_H
#define VFSB_WATCH_H

#include <linux/fs.h>
#include <uapi/linux/vfsbarrier.h>

struct vfsb_client;
struct vfsb_sb;

#define VFSB_MAX_WATCHES 1024

int vfsb_watch_add(struct vfsb_client *c, struct super_block *sb,
		   u32 *dev, u32 *id);
int vfsb_watch_remove(struct vfsb_client *c, struct super_block *sb, u32 id,
		      u32 *dev);
void vfsb_watch_remove_all(struct vfsb_client *c);
u32 vfsb_watch_list(struct vfsb_client *c, u32 *devs, u32 capacity);
int vfsb_watch_collect(struct vfsb_client *c, struct vfsb_sb ***vsbs,
		       unsigned int *n);
int vfsb_subscribe(struct vfsb_client *c, const struct vfsb_subscribe *sub,
		   u64 *journal_id);

#endif /* VFSB_WATCH_H */
