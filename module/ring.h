/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A subscriber's record ring, and the links that put it on the tracked
 * superblocks it hears about.
 */
#ifndef VFSB_RING_H
#define VFSB_RING_H

#include <linux/types.h>
#include <linux/wait.h>
#include <uapi/linux/vfsbarrier.h>

struct vfsb_intent;
struct vfsb_ring;
struct vfsb_sb;

/* What makes two CHANGE records the same for coalescing. */
struct vfsb_ckey {
	u64 parent_ino;
	u32 parent_gen;
	u32 dev;
	u32 reasons;
	u32 pad;		/* zero: the key is hashed and compared whole */
};

enum vfsb_push {
	VFSB_PUSH_STORED,
	VFSB_PUSH_FILTERED,	/* not wanted, or coalesced */
	VFSB_PUSH_MERGED,	/* repeats the unread previous data write */
	VFSB_PUSH_LOST,
};

/* Rings in existence: without subscribers emission costs one load. */
extern atomic_t vfsb_nr_rings;

struct vfsb_ring *vfsb_ring_alloc(const struct vfsb_subscribe *sub,
				  wait_queue_head_t *wq);
void vfsb_ring_free(struct vfsb_ring *r);
enum vfsb_push vfsb_ring_push(struct vfsb_ring *r, struct vfsb_record *rec,
			      const struct vfsb_ckey *key);
void vfsb_ring_note_rescan(struct vfsb_ring *r, u32 dev, u32 why);
bool vfsb_ring_is_journal(const struct vfsb_ring *r);
bool vfsb_ring_would_merge(struct vfsb_ring *r, u32 reasons, u64 epoch,
			   u32 dev, const u8 *fs_uuid, u64 parent_ino,
			   u32 parent_generation);
bool vfsb_ring_readable(struct vfsb_ring *r);
ssize_t vfsb_ring_read(struct vfsb_ring *r, char __user *ubuf, size_t count,
		       bool nonblock);
void vfsb_ring_new_epoch(struct vfsb_ring *r);
u64 vfsb_ring_last_seq(struct vfsb_ring *r);

/*
 * A ring's place on one tracked superblock's subscriber list (RCU:
 * emitters walk it). One per (watch, ring).
 */
struct vfsb_sub_link {
	struct list_head node;
	struct vfsb_ring *ring;
	struct vfsb_intent *intent;	/* the ring's intent mode, or NULL */
	struct rcu_head rcu;
};

int vfsb_ring_link(struct vfsb_ring *r, struct vfsb_intent *intent,
		   struct vfsb_sb *vsb, struct vfsb_sub_link **out);
void vfsb_ring_unlink(struct vfsb_sb *vsb, struct vfsb_sub_link *l);

#endif /* VFSB_RING_H */
