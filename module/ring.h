/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record rings (records.c) and record emission (emit.c).
 */
#ifndef VFSB_RECORDS_H
#define VFSB_RECORDS_H

#include <linux/fs.h>
#include <linux/atomic.h>
#include <linux/wait.h>
#include <uapi/linux/vfsbarrier.h>

struct vfsb_ring;

enum { VFSB_PUSH_STORED, VFSB_PUSH_FILTERED, VFSB_PUSH_LOST };

extern atomic_t vfsb_nr_rings;

struct vfsb_ring *vfsb_ring_alloc(const struct vfsb_subscribe *sub,
				  wait_queue_head_t *wq);
void vfsb_ring_free(struct vfsb_ring *r);
int vfsb_ring_push(struct vfsb_ring *r, struct vfsb_record *rec, u64 ckey);
bool vfsb_ring_readable(struct vfsb_ring *r);
ssize_t vfsb_ring_read(struct vfsb_ring *r, char __user *ubuf, size_t count,
		       bool nonblock);
void vfsb_ring_new_epoch(struct vfsb_ring *r);
u64 vfsb_journal_id(void);

/* What the emission hooks saw; emit.c turns it into a record. */
struct vfsb_event {
	u32 reasons;
	u32 flags;			/* VFSB_RECF_* known by the caller */
	struct inode *dir;		/* parent directory, or NULL: derive */
	const struct qstr *name;	/* entry name, or NULL */
	struct inode *inode;		/* the object, or NULL (not yet) */
	struct dentry *dentry;		/* for the parent of a data write */
	u64 cookie;
	u64 offset;
	u64 length;
};

void vfsb_emit(struct super_block *sb, const struct vfsb_event *ev);
int vfsb_emit_init(void);
void vfsb_emit_exit(void);

#endif /* VFSB_RECORDS_H */
