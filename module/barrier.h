/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Barriers: wait for every write section that began before the call.
 */
#ifndef VFSB_BARRIER_H
#define VFSB_BARRIER_H

#include <linux/types.h>

struct super_block;
struct vfsb_breq;
struct vfsb_client;
struct vfsb_sb;

/*
 * Each takes over one tracking reference per entry of vsbs (also on
 * failure) and the array itself (kfree()d).
 */
int vfsb_barrier_wait(struct vfsb_client *c, struct vfsb_sb **vsbs,
		      unsigned int n, u32 flags, u32 timeout_ms);

/*
 * The same in steps, for a barrier kept across calls (a checkpoint's,
 * ioctl.c): a request that waits for every section in flight now;
 * wait_for() may time out or be interrupted and be called again.
 */
struct vfsb_breq *vfsb_barrier_begin(struct vfsb_client *c,
				     struct vfsb_sb **vsbs, unsigned int n,
				     u32 flags);
int vfsb_barrier_wait_for(struct vfsb_breq *req, u32 timeout_ms);
void vfsb_barrier_get(struct vfsb_breq *req);
void vfsb_barrier_put(struct vfsb_breq *req);

int vfsb_barrier_start(struct vfsb_client *c, struct vfsb_sb **vsbs,
		       unsigned int n, u32 flags, u64 *cookie);

int vfsb_barrier_poll(struct vfsb_client *c, u64 cookie, u32 *state,
		      u64 *done_cookie);
void vfsb_barrier_drop_client(struct vfsb_client *c);
int vfsb_barrier_fence(struct super_block *sb, u32 timeout_ms);

#endif /* VFSB_BARRIER_H */
