/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intent mode: the first change of each directory in each epoch waits
 * for the journal subscriber's ack before it changes anything.
 */
#ifndef VFSB_INTENT_H
#define VFSB_INTENT_H

#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <uapi/linux/vfsbarrier.h>

#include "ring.h"

/*
 * Tasks that never return to user space, so have no system call to
 * restart: kernel threads, io_uring's workers, and (6.4+) user workers
 * such as vhost's, whose saved registers say nothing.
 */
#ifdef PF_USER_WORKER
#define VFSB_PF_NO_SYSCALL	(PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER)
#else
#define VFSB_PF_NO_SYSCALL	(PF_KTHREAD | PF_IO_WORKER)
#endif

struct vfsb_intent;
struct dentry;
struct inode;
struct qstr;

/* A directory, as intents are deduplicated: its filesystem and inode. */
struct vfsb_ikey {
	u64 ino;
	u32 gen;
	u32 dev;
	u32 kind;	/* VFSB_IKEY_*: the same inode may be both */
	u32 pad;	/* zero: keys are compared whole */
};

/* A directory's entries changed (its first such change in the epoch). */
#define VFSB_IKEY_ENTRIES	0
/* An object by itself: a file by its links, a directory's subtree moved. */
#define VFSB_IKEY_OBJECT	1

#define VFSB_IREQ_KEYS	4

/* The intent set's key of the entries of dir, a directory of sb. */
static inline struct vfsb_ikey vfsb_entries_key(const struct super_block *sb,
						const struct inode *dir)
{
	return (struct vfsb_ikey){
		.dev = new_encode_dev(sb->s_dev), .ino = dir->i_ino,
		.gen = dir->i_generation, .kind = VFSB_IKEY_ENTRIES,
	};
}

/*
 * A change of a directory's own attributes (mode, owner, times, flags,
 * extended attributes, ACLs): with VFSB_SUB_NEW_DIRS it is keyed by the
 * directory's entries too, not only by its parent's. It moves the
 * directory's ctime, by which the rule for new directories (intent.c)
 * takes a directory as acked and the journal's recovery finds it; that
 * ctime need not reach the disk before what is then written inside, so
 * the directory's own entry must be durable first. A journal stores the
 * directory itself from such a record (vbjournald's record_self_dir()).
 */
#define VFSB_DIR_SELF_REASONS	(VFSB_R_ATTRIB | VFSB_R_XATTR | VFSB_R_ACL)

static inline bool vfsb_rec_dir_self(const struct vfsb_record *rec)
{
	return (rec->flags & VFSB_RECF_DIR) && rec->ino &&
	       (rec->reasons & VFSB_DIR_SELF_REASONS);
}

/*
 * What the change being announced must wait for: the ack of seq from
 * subscriber in (a reference), for the directories in keys.
 */
struct vfsb_intent_req {
	struct vfsb_intent *in;
	u64 seq;
	u32 nr_keys;
	struct vfsb_ikey keys[VFSB_IREQ_KEYS];
	/*
	 * the change's directory and object, for VFSB_SUB_NEW_DIRS
	 * (intent.c), set where it is announced and valid there only
	 * (RCU keeps them)
	 */
	struct dentry *dir, *obj;
};

struct vfsb_intent *vfsb_intent_alloc(const struct vfsb_subscribe *sub,
				      struct vfsb_ring *ring);
void vfsb_intent_dying(struct vfsb_intent *in);
void vfsb_intent_close(struct vfsb_intent *in);
int vfsb_intent_ack(struct vfsb_intent *in, u64 seq);
u64 vfsb_intent_next_epoch(struct vfsb_intent *in);

bool vfsb_intent_acked(struct vfsb_intent *in, const struct vfsb_ikey *k,
		       struct dentry *dir);
bool vfsb_intent_would_merge(struct vfsb_intent *in, struct vfsb_ring *r,
			     u32 reasons, const struct vfsb_ikey *k,
			     const u8 *fs_uuid);
enum vfsb_push vfsb_intent_push(struct vfsb_intent *in, struct vfsb_ring *r,
				struct vfsb_record *rec,
				const struct vfsb_ckey *key,
				struct vfsb_intent_req *req);

/*
 * What a hook does with its change (hooks.c): go on; fail it so that it
 * waits and is restarted or retried; or refuse it (it cannot wait, and
 * its subscriber asked for VFSB_SUB_REFUSE_UNWAITED).
 */
enum vfsb_settle {
	VFSB_SETTLE_GO,
	VFSB_SETTLE_WAIT,
	VFSB_SETTLE_REFUSE,
	/* refused past the timeout, fail-closed: ETIMEDOUT, never retried */
	VFSB_SETTLE_TIMEDOUT,
};

enum vfsb_settle vfsb_intent_defer_syscall(struct vfsb_intent_req *req,
					   bool async);
enum vfsb_settle vfsb_intent_defer_fault(struct vfsb_intent_req *req,
					 bool user);
enum vfsb_settle vfsb_intent_no_wait(struct vfsb_intent_req *req);
void vfsb_intent_unwaited(struct vfsb_intent_req *req);
int vfsb_intent_wait(struct vfsb_intent_req *req, bool can_fail);
bool vfsb_intent_defer_create(const struct inode *dir,
			      const struct qstr *name);

/*
 * A place where a wrapper that may sleep takes over the wait of a hook
 * inside its call that may not (io_uring's io_write(), whose
 * rw_verify_area() hook runs atomically): for the request key, in this
 * task, from vfsb_park_begin() to vfsb_park_end(). A hook whose change
 * must wait parks its req there (vfsb_intent_park()) and fails the call
 * before anything is changed; the wrapper then waits (vfsb_park_wait())
 * and calls again, or lets its caller retry (vfsb_park_drop()). A parked
 * req holds a module reference until one of the two.
 */
struct vfsb_park {
	struct hlist_node node;
	const struct task_struct *task;	/* compared, never dereferenced */
	const void *key;
	struct vfsb_intent_req req;
};

void vfsb_park_begin(struct vfsb_park *p, const void *key);
bool vfsb_park_end(struct vfsb_park *p);
bool vfsb_intent_park(const void *key, struct vfsb_intent_req *req,
		      bool async);
bool vfsb_intent_park_nested(const void *key, struct vfsb_intent_req *req);
bool vfsb_intent_parked(const void *key);
int vfsb_park_wait(struct vfsb_park *p);
void vfsb_park_drop(struct vfsb_park *p);
bool vfsb_intent_park_fault(const void *key, struct vfsb_intent_req *req);
void vfsb_intent_fault_wait(const void *key);

#endif /* VFSB_INTENT_H */
