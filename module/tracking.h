/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracking of watched superblocks: one struct vfsb_sb per watched
 * superblock, with the SRCU structure its write sections enter.
 */
#ifndef VFSB_TRACKING_H
#define VFSB_TRACKING_H

#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>

/* Per-CPU counters: the write path touches only its own CPU's. */
struct vfsb_sb_pcpu {
	u64 begun;
	u64 ended;
};

/*
 * Tracking of one watched superblock. It never pins the superblock: sb
 * is an identity to compare with, dereferenced only while a watcher's fd
 * keeps the filesystem alive or from a hook that runs inside an
 * operation on it. Lifetime: ref counts watches, barriers in progress
 * and expedited rounds; the last put unhashes it and frees it once every
 * section and SRCU callback on it is done, without any thread waiting.
 */
struct vfsb_sb {
	struct hlist_node hnode;	/* the table, RCU readers */
	struct super_block *sb;
	dev_t dev;
	u8 uuid[16];
	char fstype[16];
	bool fh_inline;			/* records may carry file handles */
	bool dead;			/* unmounted or unhashed: no new sections */
	refcount_t ref;
	atomic_t watchers;
	struct srcu_struct srcu;
	struct vfsb_sb_pcpu __percpu *pcpu;
	atomic64_t barriers;
	atomic64_t barrier_wait_ns;
	atomic64_t missed;
	atomic64_t records;
	atomic64_t records_lost;
	atomic64_t records_merged;
	atomic64_t unfenced;
	atomic64_t rescans;
	spinlock_t subs_lock;		/* subs writers */
	struct list_head subs;		/* struct vfsb_sub_link, RCU readers */

	/* expedited barriers: one round at a time (barrier.c) */
	spinlock_t exp_lock;
	struct list_head exp_waiting;	/* for the next round */
	bool exp_running;
	bool exp_work_ready;		/* exp_work set up (first round) */
	struct work_struct exp_work;

	/* teardown: RCU, then SRCU, then free (no thread waits) */
	struct rcu_head rcu;
	struct work_struct free_work;
};

/* Trackings in the table (sysfs shows it). */
extern atomic_t vfsb_nr_tracked;

/*
 * A bit per hash of each tracked superblock's address, so that a hook
 * on a filesystem nobody watches returns after one load and a test,
 * with no RCU section and no table walk. A set bit may be another
 * superblock's (the table lookup decides); a clear bit is never one of
 * a tracking in the table. Set before a tracking is hashed, cleared
 * after it is unhashed: a hook that still finds it clear sees the
 * table as it was before the watch, as if it had looked first.
 */
extern unsigned long vfsb_sb_filter;

static inline unsigned long vfsb_sb_filter_bit(const struct super_block *sb)
{
	return BIT(hash_ptr(sb, ilog2(BITS_PER_LONG)));
}

static inline bool vfsb_sb_maybe_tracked(const struct super_block *sb)
{
	return sb && (READ_ONCE(vfsb_sb_filter) & vfsb_sb_filter_bit(sb));
}

struct vfsb_sb *vfsb_tracking_get_or_create(struct super_block *sb);
struct vfsb_sb *vfsb_tracking_find_get(struct super_block *sb);
int vfsb_tracking_for_each(int (*fn)(struct vfsb_sb *vsb, void *arg),
			   void *arg);
typedef void (*vfsb_tracking_fn_t)(struct vfsb_sb *vsb, u32 arg);
void vfsb_tracking_all_rcu(vfsb_tracking_fn_t fn, u32 arg);
void vfsb_tracking_get(struct vfsb_sb *vsb);
void vfsb_tracking_put(struct vfsb_sb *vsb);
void vfsb_tracking_counts(struct vfsb_sb *vsb, u64 *begun, u64 *ended);
void vfsb_tracking_shutdown(struct vfsb_sb *vsb);
void vfsb_tracking_exit(void);

/* The live tracking of sb; caller in an RCU read-side section. */
struct vfsb_sb *vfsb_tracking_lookup_rcu(struct super_block *sb);

#endif /* VFSB_TRACKING_H */
