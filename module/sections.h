/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write sections: an SRCU read-side section of a tracked superblock that
 * brackets one write operation, and where each is kept while it lasts.
 */
#ifndef VFSB_SECTIONS_H
#define VFSB_SECTIONS_H

#include <linux/fs.h>

struct vfsb_sb;

/*
 * A section in progress: which SRCU and which index to unlock. async
 * sections may end in another task or context (completion of an async
 * write, or task work at the return to user space), which takes the
 * SRCU "down/up" flavour: no lockdep same-task rule.
 */
struct vfsb_section {
	struct vfsb_sb *vsb;
	int idx;
	bool async;
};

/* What a section a task holds is, and who ends it. */
enum vfsb_hold {
	VFSB_HOLD_ACCESS,	/* write access: mnt_drop_write*() ends it */
	VFSB_HOLD_WANT,		/* write access asked: a token, no section */
	VFSB_HOLD_SYSCALL,	/* the task's return to user space ends it */
	/* a wrapper's call (the wrapper owns it), or an async submission */
	VFSB_HOLD_MARK,
	VFSB_HOLD_SUBMIT,	/* an async submission: the request owns it */
	VFSB_HOLD_SPAN,		/* a call, entry to return: its return hook */
};

bool vfsb_section_begin(struct super_block *sb, struct vfsb_section *s,
			bool async);
void vfsb_section_end(const struct vfsb_section *s);

int vfsb_task_hold(const struct vfsb_section *s, enum vfsb_hold kind);
bool vfsb_task_release(struct super_block *sb, enum vfsb_hold kind,
		       struct vfsb_section *s);
void vfsb_task_want_access(struct super_block *sb);
bool vfsb_task_drop_access(struct super_block *sb, struct vfsb_section *s);
void vfsb_task_unmark(const struct vfsb_sb *vsb);
int vfsb_task_mark(const struct vfsb_section *s, const void *key);
void vfsb_task_unmark_key(const void *key);
bool vfsb_task_end_syscall(void);
bool vfsb_task_covers(const struct vfsb_sb *vsb);
bool vfsb_task_holds_none(void);
bool vfsb_task_submitting(const void *key);
bool vfsb_task_ensure_cover(struct super_block *sb);
bool vfsb_task_check_cover(struct super_block *sb);
bool vfsb_task_submit_begin(struct super_block *sb, const void *key,
			    bool armed);
void vfsb_task_submit_end(const void *key, bool queued);
bool vfsb_task_submit_held(const void *key);
bool vfsb_task_span_begin(struct super_block *sb, const void *key);
void vfsb_task_span_end(const void *key, u32 missed);

int vfsb_async_track(const void *key, const struct vfsb_section *s,
		     void *priv);
bool vfsb_async_untrack(const void *key, struct vfsb_section *s, void **priv);

void vfsb_section_missed(struct vfsb_sb *vsb, u32 why);

int vfsb_sections_init(void);
void vfsb_sections_exit(void);

#endif /* VFSB_SECTIONS_H */
