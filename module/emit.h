/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building records and handing them to subscribers' rings.
 */
#ifndef VFSB_EMIT_H
#define VFSB_EMIT_H

#include <linux/fs.h>

struct vfsb_intent_req;
struct vfsb_sb;

/* What a hook saw; vfsb_announce() turns it into a CHANGE record. */
struct vfsb_event {
	u32 reasons;			/* VFSB_R_* */
	u32 flags;			/* VFSB_RECF_* known by the hook */
	u32 mode;			/* fallocate mode */
	struct inode *dir;		/* parent directory, or NULL: derive */
	const struct qstr *name;	/* a name its caller keeps stable */
	struct dentry *dentry;		/* the object's dentry (parent, name) */
	struct dentry *dir_dentry;	/* dir's, when its hook knows it */
	bool name_of_dentry;		/* name: dentry's, copied under d_lock */
	struct inode *inode;		/* the object, or NULL (not yet) */
	u64 cookie;
	u64 offset;
	u64 length;
};

void vfsb_announce(struct super_block *sb, const struct vfsb_event *ev,
		   bool fenced, struct vfsb_intent_req *req);
void vfsb_emit_rescan(struct vfsb_sb *vsb, u32 why);
void vfsb_emit_unmount(struct vfsb_sb *vsb);
u64 vfsb_next_cookie(void);
bool vfsb_sb_has_intent(struct super_block *sb);
bool vfsb_create_may_defer(struct inode *dir, struct dentry *dentry);
bool vfsb_ctime_by_clock(const struct super_block *sb);

#endif /* VFSB_EMIT_H */
