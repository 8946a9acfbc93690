// SPDX-License-Identifier: GPL-2.0
/*
 * Intent mode (VFSB_SUB_INTENT): a journal subscriber makes the first
 * change of each directory in each epoch durable before the change is
 * made.
 *
 * Emission offers each record to the intent subscriber's ring through
 * vfsb_intent_push(): a directory not yet in the epoch's set gets an
 * intent record (VFSB_RECF_INTENT) and a set entry holding its seq; a
 * directory whose entry is not acked yet makes the change wait for that
 * seq too; an acked one lets it go. The set is a bounded cache: when a
 * probe window is full, the oldest entry is evicted, and its directory
 * simply waits again at its next change (more waits, never a miss). A
 * checkpoint empties it by starting the next epoch: entries of older
 * epochs count as free.
 *
 * The hooks run in atomic context inside the operation, often with the
 * parent directory locked, where nothing may sleep and the subscriber
 * could not even read that directory. So a system call that must wait
 * is failed there, before it changes anything, with -ERESTARTNOINTR;
 * task work (TWA_SIGNAL) waits at its return to user space, where it
 * holds no lock and no write access (a freeze goes through), and the
 * signal code then restarts the call. A user fault on a shared mapping
 * is answered VM_FAULT_NOPAGE and waits the same way before the access
 * is retried. Contexts that can do neither go on at once, unacked, and
 * their filesystem gets a RESCAN record; or, for a subscriber that asked
 * (VFSB_SUB_REFUSE_UNWAITED), they are failed there (-EAGAIN,
 * VM_FAULT_SIGBUS) before they change anything.
 */
#include <linux/compat.h>
#include <linux/dcache.h>
#include <linux/freezer.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "emit.h"
#include "intent.h"
#include "sections.h"
#include "vfsb.h"

/*
 * The epoch's set starts with 2^13 entries and doubles, up to 2^17 (6
 * MiB), when an entry of the epoch had to be forgotten: a directory the
 * set forgets waits again at its next change, so a workload that
 * changes more directories in an epoch than the set holds would make
 * them wait again and again.
 */
#define VFSB_ISET_BITS		13
#define VFSB_ISET_MAX_BITS	17
#define VFSB_ISET_PROBES	8

/* How an entry came to count (vfsb_iset_ent.how). */
enum vfsb_iset_how {
	VFSB_ISET_INTENT,	/* its intent: acked once seq is */
	VFSB_ISET_BY_CLOCK,	/* a directory changed in the epoch (below) */
	VFSB_ISET_GIVEN_UP,	/* went on unacked (vfsb_intent_give_up()) */
};

struct vfsb_iset_ent {
	struct vfsb_ikey key;
	u64 seq;		/* the intent's; 0 counts as acked */
	u64 epoch;		/* live only in this epoch */
	unsigned long born;	/* jiffies when its intent was sent */
	u8 how;			/* enum vfsb_iset_how */
};

struct vfsb_intent {
	refcount_t ref;			/* the subscriber + waiting changes */
	spinlock_t lock;		/* everything below; then a ring's */
	u64 epoch;
	bool new_dirs;			/* VFSB_SUB_NEW_DIRS */
	ktime_t real_offset;		/* realtime - monotonic at the epoch's start */
	struct timespec64 real_start;	/* realtime at the epoch's start */
	u64 acked;			/* every seq up to here is durable */
	bool dead;			/* the subscriber closed */
	bool fail_closed;
	bool refuse;			/* VFSB_SUB_REFUSE_UNWAITED */
	u32 timeout_ms;
	pid_t tgid;			/* the subscriber's process never waits */
	struct vfsb_ring *ring;		/* NULL once dead */
	wait_queue_head_t wq;		/* changes waiting for acks */
	struct vfsb_iset_ent *set;
	u32 bits;			/* set has 2^bits entries */
	bool grow;			/* an entry of the epoch was evicted */
	struct mutex grow_lock;		/* one grower; not under lock */
};

static void vfsb_intent_clock_start(struct vfsb_intent *in);
static bool vfsb_newdir_clock_ok(const struct vfsb_intent *in);

struct vfsb_intent *vfsb_intent_alloc(const struct vfsb_subscribe *sub,
				      struct vfsb_ring *ring)
{
	struct vfsb_intent *in = kzalloc(sizeof(*in), GFP_KERNEL_ACCOUNT);

	if (!in)
		return ERR_PTR(-ENOMEM);
	in->set = kvcalloc(BIT(VFSB_ISET_BITS), sizeof(*in->set),
			   GFP_KERNEL_ACCOUNT);
	if (!in->set) {
		kfree(in);
		return ERR_PTR(-ENOMEM);
	}
	in->bits = VFSB_ISET_BITS;
	mutex_init(&in->grow_lock);
	refcount_set(&in->ref, 1);
	spin_lock_init(&in->lock);
	init_waitqueue_head(&in->wq);
	in->epoch = 1;		/* zeroed entries belong to no epoch */
	in->fail_closed = sub->flags & VFSB_SUB_FAIL_CLOSED;
	in->refuse = sub->flags & VFSB_SUB_REFUSE_UNWAITED;
	in->new_dirs = sub->flags & VFSB_SUB_NEW_DIRS;
	vfsb_intent_clock_start(in);
	in->timeout_ms = sub->intent_timeout_ms ?: VFSB_INTENT_TIMEOUT;
	in->tgid = current->tgid;
	in->ring = ring;
	return in;
}

static void vfsb_intent_put(struct vfsb_intent *in)
{
	if (!refcount_dec_and_test(&in->ref))
		return;
	kvfree(in->set);
	kfree(in);
}

/* The subscriber is closing: every waiting change ends by the policy. */
void vfsb_intent_dying(struct vfsb_intent *in)
{
	unsigned long flags;

	spin_lock_irqsave(&in->lock, flags);
	in->dead = true;
	spin_unlock_irqrestore(&in->lock, flags);
	wake_up_all(&in->wq);
}

/*
 * The subscriber closed. Its ring is freed after this; the links to it
 * are gone already, and no emitter sees them any more.
 */
void vfsb_intent_close(struct vfsb_intent *in)
{
	unsigned long flags;

	spin_lock_irqsave(&in->lock, flags);
	in->dead = true;
	in->ring = NULL;
	spin_unlock_irqrestore(&in->lock, flags);
	wake_up_all(&in->wq);
	vfsb_intent_put(in);
}

static void vfsb_iset_grow(struct vfsb_intent *in);

/* The subscriber's VFSB_IOC_ACK: process context, may sleep. */
int vfsb_intent_ack(struct vfsb_intent *in, u64 seq)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&in->lock, flags);
	if (!seq || seq > vfsb_ring_last_seq(in->ring))
		ret = -EINVAL;
	else if (seq > in->acked)
		WRITE_ONCE(in->acked, seq);
	spin_unlock_irqrestore(&in->lock, flags);
	if (!ret)
		wake_up_all(&in->wq);
	vfsb_iset_grow(in);
	return ret;
}

/* Starts the next epoch; returns the one it closed. */
u64 vfsb_intent_next_epoch(struct vfsb_intent *in)
{
	unsigned long flags;
	u64 closed;

	spin_lock_irqsave(&in->lock, flags);
	closed = in->epoch++;
	vfsb_intent_clock_start(in);
	spin_unlock_irqrestore(&in->lock, flags);
	return closed;
}

static u32 vfsb_ikey_hash(const struct vfsb_ikey *k, u32 bits)
{
	return hash_64(k->ino ^ ((u64)k->dev << 32) ^ k->gen ^
		       ((u64)k->kind << 63), bits);
}

static struct vfsb_iset_ent *vfsb_iset_slot(struct vfsb_iset_ent *set,
					    u32 bits, u32 h, u32 i)
{
	return &set[(h + i) & (BIT(bits) - 1)];
}

/*
 * The live entry of k, or NULL; under in->lock. An entry the clock made
 * (VFSB_ISET_BY_CLOCK) goes once the realtime clock has gone back since
 * the epoch began: a change after that would stamp the directory's ctime
 * before the epoch's start, where the journal's recovery no longer finds
 * it, so its next change sends an intent of its own.
 */
static struct vfsb_iset_ent *vfsb_iset_find(struct vfsb_intent *in,
					    const struct vfsb_ikey *k)
{
	u32 h = vfsb_ikey_hash(k, in->bits), i;

	for (i = 0; i < VFSB_ISET_PROBES; i++) {
		struct vfsb_iset_ent *e = vfsb_iset_slot(in->set, in->bits,
							 h, i);

		if (e->epoch != in->epoch || memcmp(&e->key, k, sizeof(*k)))
			continue;
		if (e->how == VFSB_ISET_BY_CLOCK && !vfsb_newdir_clock_ok(in)) {
			e->epoch = 0;	/* free: no epoch is 0 */
			return NULL;
		}
		return e;
	}
	return NULL;
}

/*
 * A slot for k in set: a free one, else the oldest of its window. Whether
 * an entry of epoch had to go.
 */
static bool vfsb_iset_place(struct vfsb_iset_ent *set, u32 bits, u64 epoch,
			    const struct vfsb_iset_ent *ent)
{
	struct vfsb_iset_ent *e, *slot = NULL;
	u32 h = vfsb_ikey_hash(&ent->key, bits), i;

	for (i = 0; i < VFSB_ISET_PROBES; i++) {
		e = vfsb_iset_slot(set, bits, h, i);
		if (e->epoch != epoch) {
			*e = *ent;
			return false;
		}
		if (!slot || e->seq < slot->seq)
			slot = e;
	}
	*slot = *ent;
	return true;
}

/* Under in->lock. */
static void vfsb_iset_insert(struct vfsb_intent *in, const struct vfsb_ikey *k,
			     u64 seq, enum vfsb_iset_how how)
{
	struct vfsb_iset_ent ent = {
		.key = *k, .seq = seq, .epoch = in->epoch, .born = jiffies,
		.how = how,
	};

	if (vfsb_iset_place(in->set, in->bits, in->epoch, &ent) &&
	    in->bits < VFSB_ISET_MAX_BITS)
		in->grow = true;
}

/*
 * Doubles the set when it had to forget an entry of the epoch: in the
 * subscriber's ACK, which may sleep (the set's writers may not). The
 * epoch's entries move over under the lock; older ones are dropped.
 */
static void vfsb_iset_grow(struct vfsb_intent *in)
{
	struct vfsb_iset_ent *set, *old;
	unsigned long flags;
	u32 bits, i;

	if (!READ_ONCE(in->grow) || !mutex_trylock(&in->grow_lock))
		return;
	bits = READ_ONCE(in->bits) + 1;
	set = kvcalloc(BIT(bits), sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set) {
		mutex_unlock(&in->grow_lock);
		return;
	}
	spin_lock_irqsave(&in->lock, flags);
	old = in->set;
	for (i = 0; i < BIT(in->bits); i++)
		if (old[i].epoch == in->epoch)
			vfsb_iset_place(set, bits, in->epoch, &old[i]);
	in->set = set;
	in->bits = bits;
	in->grow = false;
	spin_unlock_irqrestore(&in->lock, flags);
	mutex_unlock(&in->grow_lock);
	kvfree(old);
}

/*
 * New and freshly changed directories (VFSB_SUB_NEW_DIRS). A change in
 * directory D whose key is not in the epoch's set goes on at once, and
 * D is entered acked (VFSB_ISET_BY_CLOCK), when D's parent is acked in
 * the epoch by an intent or by this rule, and D's inode changed since
 * the epoch began (its ctime): a mkdir made it, a rename moved it, its
 * own attributes were set. A journal that stores every record's
 * directory before it closes the epoch has D then; if the machine stops
 * first, the parent's durable entry leads its recovery to D, which
 * reads every subdirectory of the open epochs' directories changed
 * (ctime or birth time) since they began, whole. Each way of moving
 * D's ctime is durable before what follows inside D can be: D's
 * creation with its ctime (nothing inside D reaches the disk before
 * D); a rename by the moved directory's own intent; a change of D's own
 * attributes by D's own key (intent.h, VFSB_DIR_SELF_REASONS), since
 * an O_DIRECT overwrite or an fdatasync() inside D may reach the disk
 * without D's new ctime. D renamed away meanwhile is under a directory
 * whose intent the rename waited for. Nothing is held between changes:
 * the ctime and the parent are read where the change is announced.
 *
 * The ctime comes from the realtime clock, so nothing is entered once
 * that clock has gone back more than VFSB_NEWDIR_CLOCK_SLACK (a leap
 * second) from where it was, against the monotonic clock, when the
 * epoch began, and what was entered goes at its next change
 * (vfsb_iset_find()): a ctime could then come before the epoch's start.
 */
#define VFSB_NEWDIR_CLOCK_SLACK	NSEC_PER_SEC

/* The epoch begins now, by both clocks. Under in->lock, or before use. */
static void vfsb_intent_clock_start(struct vfsb_intent *in)
{
	in->real_offset = ktime_mono_to_real(0);
	in->real_start = ktime_to_timespec64(ktime_get_real());
}

/* Under in->lock. */
static bool vfsb_newdir_clock_ok(const struct vfsb_intent *in)
{
	return ktime_mono_to_real(0) >=
	       ktime_sub_ns(in->real_offset, VFSB_NEWDIR_CLOCK_SLACK);
}

/*
 * Whether k, not in the set, is the key of d, a directory (RCU keeps it
 * and its parent), changed in this epoch under a parent acked in it by
 * its intent or by this rule (not one that went on unacked): then k is
 * entered. Under in->lock, in an RCU read-side section.
 */
static bool vfsb_newdir_try(struct vfsb_intent *in, const struct vfsb_ikey *k,
			    struct dentry *d)
{
	struct vfsb_iset_ent *e;
	struct vfsb_ikey pk;
	struct dentry *parent;
	struct inode *inode, *pinode;
	struct timespec64 ct;

	inode = d ? d_inode_rcu(d) : NULL;
	if (!inode || !S_ISDIR(inode->i_mode))
		return false;
	pk = vfsb_entries_key(inode->i_sb, inode);
	if (memcmp(&pk, k, sizeof(pk)) || !vfsb_ctime_by_clock(inode->i_sb))
		return false;
	ct = vfsb_inode_ctime(inode);
	if (timespec64_compare(&ct, &in->real_start) < 0 ||
	    !vfsb_newdir_clock_ok(in))
		return false;
	parent = READ_ONCE(d->d_parent);
	pinode = parent && parent != d ? d_inode_rcu(parent) : NULL;
	if (!pinode)
		return false;
	pk = vfsb_entries_key(pinode->i_sb, pinode);
	e = vfsb_iset_find(in, &pk);
	if (!e || e->seq > in->acked || e->how == VFSB_ISET_GIVEN_UP)
		return false;
	vfsb_iset_insert(in, k, 0, VFSB_ISET_BY_CLOCK);
	return true;
}

/*
 * Whether k, not in the set, is a directory the change names (dir, its
 * directory; obj, its object: a directory whose attributes change) that
 * counts as acked by the rule above: then it is entered.
 */
static bool vfsb_newdir_find(struct vfsb_intent *in, const struct vfsb_ikey *k,
			     struct dentry *dir, struct dentry *obj)
{
	if (!in->new_dirs || k->kind != VFSB_IKEY_ENTRIES || in->dead)
		return false;
	return vfsb_newdir_try(in, k, dir) || vfsb_newdir_try(in, k, obj);
}

static void vfsb_req_add(struct vfsb_intent_req *req, struct vfsb_intent *in,
			 u64 seq, const struct vfsb_ikey *k)
{
	if (!req->in) {
		refcount_inc(&in->ref);
		req->in = in;
	} else if (WARN_ON_ONCE(req->in != in)) {
		return;
	}
	req->seq = max(req->seq, seq);
	if (req->nr_keys < VFSB_IREQ_KEYS)
		req->keys[req->nr_keys++] = *k;
}

/*
 * The keys a change is journaled by: its directory, whose entries it
 * changes or whose name leads to its object; and the object itself
 * where that directory does not lead to it (VFSB_RECF_LINKS, then in
 * place of the directory) or where the record names a subtree: a
 * directory's rename, which the journal names by the moved directory's
 * own record. Keyed by the moved directory, its first rename in the
 * epoch is an intent whatever its parents' state (a crash before the
 * subscriber's next commit must not lose it while the rename reached
 * the disk), and the rename restarted after its ack finds it acked.
 */
static u32 vfsb_intent_keys(const struct vfsb_record *rec,
			    struct vfsb_ikey *keys, bool new_dirs)
{
	struct vfsb_ikey obj = {
		.dev = rec->dev, .ino = rec->ino, .gen = rec->generation,
		.kind = VFSB_IKEY_OBJECT,
	};
	u32 n = 0;

	if (rec->parent_ino && !(rec->flags & VFSB_RECF_LINKS)) {
		keys[n] = obj;
		keys[n].kind = VFSB_IKEY_ENTRIES;
		keys[n].ino = rec->parent_ino;
		keys[n++].gen = rec->parent_generation;
	}
	if (!n && !(rec->flags & VFSB_RECF_LINKS)) {
		/* no parent (the filesystem's root itself): its own key */
		keys[n] = obj;
		keys[n++].kind = VFSB_IKEY_ENTRIES;
		return n;
	}
	if ((rec->flags & VFSB_RECF_LINKS) ||
	    ((rec->flags & VFSB_RECF_DIR) && (rec->reasons & VFSB_R_RENAME_TO)))
		keys[n++] = obj;
	else if (new_dirs && vfsb_rec_dir_self(rec)) {
		/* its ctime moves, which new directories are found by */
		keys[n] = obj;
		keys[n++].kind = VFSB_IKEY_ENTRIES;
	}
	return n;
}

/*
 * Offers rec to the intent subscriber's ring r. What the change must
 * wait for goes into req: the seq of each key's entry in the epoch not
 * acked yet, or, when a key has none, this record's, sent as an intent.
 * Atomic context.
 */
enum vfsb_push vfsb_intent_push(struct vfsb_intent *in, struct vfsb_ring *r,
				struct vfsb_record *rec,
				const struct vfsb_ckey *key,
				struct vfsb_intent_req *req)
{
	struct vfsb_ikey ik[2];
	struct vfsb_iset_ent *e[2];
	enum vfsb_push ret;
	unsigned long flags;
	bool intent = false;
	u64 wait[2] = { };
	u32 i, n;

	n = vfsb_intent_keys(rec, ik, in->new_dirs);
	spin_lock_irqsave(&in->lock, flags);
	rec->epoch = in->epoch;
	if (in->dead || current->tgid == in->tgid) {
		spin_unlock_irqrestore(&in->lock, flags);
		ret = vfsb_ring_push(r, rec, key);
		goto out;
	}
	for (i = 0; i < n; i++) {
		e[i] = vfsb_iset_find(in, &ik[i]);
		if (!e[i] && vfsb_newdir_find(in, &ik[i], req->dir, req->obj))
			e[i] = vfsb_iset_find(in, &ik[i]);
		/* announced in this epoch: wait only while not acked */
		if (e[i] && e[i]->seq > in->acked)
			wait[i] = e[i]->seq;
		intent |= !e[i];
	}
	if (intent) {
		/* never filtered nor coalesced: it must be seen and acked */
		rec->flags |= VFSB_RECF_INTENT;
		ret = vfsb_ring_push(r, rec, NULL);
		rec->flags &= ~VFSB_RECF_INTENT;
		for (i = 0; i < n; i++) {
			if (e[i])
				continue;
			wait[i] = rec->seq;
			vfsb_iset_insert(in, &ik[i], rec->seq,
					 VFSB_ISET_INTENT);
		}
	} else {
		ret = vfsb_ring_push(r, rec, key);
	}
	spin_unlock_irqrestore(&in->lock, flags);
	for (i = 0; i < n; i++)
		if (wait[i])
			vfsb_req_add(req, in, wait[i], &ik[i]);
out:
	rec->epoch = 0;
	return ret;
}

/*
 * Whether a plain record (ring.c's vfsb_rec_plain()) of reasons naming
 * the entries of directory k would come to nothing here: its key's
 * entry in the epoch is acked (nothing to wait for, no intent to send)
 * and the ring would merge it into its unread last record. Exactly
 * what vfsb_intent_push() would do with that record, under the same
 * lock, so the caller may skip building it. Atomic context.
 */
bool vfsb_intent_would_merge(struct vfsb_intent *in, struct vfsb_ring *r,
			     u32 reasons, const struct vfsb_ikey *k,
			     const u8 *fs_uuid)
{
	struct vfsb_iset_ent *e;
	unsigned long flags;
	bool ret = false;

	spin_lock_irqsave(&in->lock, flags);
	/* the subscriber's own changes and a dead one's: the full path */
	if (!in->dead && current->tgid != in->tgid) {
		e = vfsb_iset_find(in, k);
		if (e && e->seq <= in->acked)
			ret = vfsb_ring_would_merge(r, reasons, in->epoch,
						    k->dev, fs_uuid, k->ino,
						    k->gen);
	}
	spin_unlock_irqrestore(&in->lock, flags);
	return ret;
}

/* Whether a change keyed by k only would go on at once: acked in the epoch. */
bool vfsb_intent_acked(struct vfsb_intent *in, const struct vfsb_ikey *k,
		       struct dentry *dir)
{
	struct vfsb_iset_ent *e;
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&in->lock, flags);
	e = vfsb_iset_find(in, k);
	if (!e && vfsb_newdir_find(in, k, dir, NULL))
		e = vfsb_iset_find(in, k);
	ret = !in->dead && e && e->seq <= in->acked;
	spin_unlock_irqrestore(&in->lock, flags);
	return ret;
}

/* A waiting change may go on: acked, or its subscriber is gone. */
static bool vfsb_intent_done(struct vfsb_intent *in,
			     const struct vfsb_intent_req *req)
{
	return READ_ONCE(in->acked) >= req->seq || READ_ONCE(in->dead);
}

static void vfsb_req_put(struct vfsb_intent_req *req)
{
	if (req->in)
		vfsb_intent_put(req->in);
	req->in = NULL;
}

/*
 * The change goes on without its ack: its directories count as acked
 * for the rest of the epoch, and the filesystem gets a RESCAN record.
 */
static void vfsb_intent_give_up(struct vfsb_intent_req *req)
{
	struct vfsb_intent *in = req->in;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&in->lock, flags);
	for (i = 0; i < req->nr_keys; i++) {
		struct vfsb_iset_ent *e = vfsb_iset_find(in, &req->keys[i]);

		if (e) {
			e->seq = 0;
			e->how = VFSB_ISET_GIVEN_UP;
		}
		if (in->ring)
			vfsb_ring_note_rescan(in->ring, req->keys[i].dev,
					      VFSB_RESCAN_INTENT);
	}
	spin_unlock_irqrestore(&in->lock, flags);
}

/*
 * Jiffies left until the timeout of the oldest intent req waits for,
 * counted from when that intent was sent, not from this wait: a task
 * whose waits signals keep ending and restarting must still meet the
 * policy in time. 0: passed; -1: no unacked entry of req is left (acked
 * meanwhile, or evicted from the set).
 */
static long vfsb_intent_left(struct vfsb_intent_req *req)
{
	struct vfsb_intent *in = req->in;
	unsigned long flags, tmo = msecs_to_jiffies(in->timeout_ms);
	long left = -1, l;
	u32 i;

	spin_lock_irqsave(&in->lock, flags);
	for (i = 0; i < req->nr_keys; i++) {
		struct vfsb_iset_ent *e = vfsb_iset_find(in, &req->keys[i]);

		if (!e || e->seq <= in->acked)
			continue;
		l = max_t(long, (long)(e->born + tmo - jiffies), 0);
		if (left < 0 || l < left)
			left = l;
	}
	spin_unlock_irqrestore(&in->lock, flags);
	return left;
}

/*
 * A context that cannot wait: the change goes on now, unacked; or, for
 * a subscriber that asked for it (VFSB_SUB_REFUSE_UNWAITED), it is
 * refused. Its intent stays announced and its directory waiting for the
 * ack, so a retry goes through once the journal has it. A closed
 * subscriber refuses nothing: its writers go on by its policy.
 */
enum vfsb_settle vfsb_intent_no_wait(struct vfsb_intent_req *req)
{
	struct vfsb_intent *in = req->in;

	if (!in)
		return VFSB_SETTLE_GO;
	if (in->refuse && !READ_ONCE(in->dead)) {
		/*
		 * Refused for as long as a wait may last: a retry loop in
		 * the kernel (io-wq retries an IOPOLL ring's EAGAIN with
		 * only cond_resched() between, io_uring/io_uring.c
		 * io_wq_submit_work()) would otherwise spin until the ack.
		 * After the timeout: the policy, as for a wait.
		 */
		long left = vfsb_intent_left(req);

		if (left > 0) {
			vfsb_req_put(req);
			return VFSB_SETTLE_REFUSE;
		}
		if (!left && in->fail_closed) {
			vfsb_req_put(req);
			return VFSB_SETTLE_TIMEDOUT;
		}
	}
	vfsb_intent_give_up(req);
	vfsb_req_put(req);
	return VFSB_SETTLE_GO;
}

/*
 * The change goes on now, unacked, whatever the subscriber's policy: its
 * hook can neither make it wait nor fail it (hookreg.c: another ftrace
 * user holds the function's IPMODIFY). Its directories count as acked,
 * and the filesystem gets a RESCAN record.
 */
void vfsb_intent_unwaited(struct vfsb_intent_req *req)
{
	if (!req->in)
		return;
	vfsb_intent_give_up(req);
	vfsb_req_put(req);
}

/*
 * Waits for req's ack (sleeps; the caller holds no section). 0: go on;
 * -ETIMEDOUT or -ENOTCONN: fail the change (VFSB_SUB_FAIL_CLOSED, when
 * the caller can fail it); -ERESTARTNOINTR: a user task got a signal,
 * and its system call is to be restarted once the signal is dealt with
 * (nothing was changed yet; the restarted call waits again); -EINTR: a
 * kernel thread got a fatal signal.
 *
 * A user task's wait is interruptible and freezable: a wait that only a
 * fatal signal could end would hold off SIGSTOP, ptrace stops, signal
 * handlers, the cgroup freezer and suspend for as long as the ack takes
 * (up to VFSB_INTENT_TIMEOUT_MAX). Kernel threads (nfsd, ksmbd) and
 * io_uring's workers have no system call to restart; theirs ends only
 * on a fatal signal.
 */
static int vfsb_intent_wait_as(struct vfsb_intent_req *req, bool can_fail,
			       bool kthread)
{
	struct vfsb_intent *in = req->in;
	long tmo, left;
	int ret = 0;

	if (!in)
		return 0;
	tmo = vfsb_intent_left(req);
	if (tmo < 0)
		tmo = msecs_to_jiffies(in->timeout_ms);
	if (kthread)
		left = wait_event_killable_timeout(in->wq,
						   vfsb_intent_done(in, req),
						   tmo);
	else
		left = wait_event_freezable_timeout(in->wq,
						    vfsb_intent_done(in, req),
						    tmo);
	if (left < 0)
		ret = kthread ? -EINTR : -ERESTARTNOINTR;
	else if (READ_ONCE(in->acked) >= req->seq)
		ret = 0;
	else if (READ_ONCE(in->dead))
		ret = in->fail_closed && can_fail ? -ENOTCONN : 0;
	else if (in->fail_closed && can_fail)
		ret = -ETIMEDOUT;
	else
		vfsb_intent_give_up(req);
	vfsb_req_put(req);
	return ret;
}

int vfsb_intent_wait(struct vfsb_intent_req *req, bool can_fail)
{
	/* io-wq workers too: a restart error must not reach a completion */
	return vfsb_intent_wait_as(req, can_fail,
				   current->flags & VFSB_PF_NO_SYSCALL);
}

/* ---- waiting at the return to user space ---- */

struct vfsb_intent_tw {
	struct callback_head cb;
	struct vfsb_intent_req req;
	bool syscall;
};

static void vfsb_intent_tw_fn(struct callback_head *cb)
{
	struct vfsb_intent_tw *tw = container_of(cb, struct vfsb_intent_tw, cb);
	struct pt_regs *regs = task_pt_regs(current);
	int err;

	/*
	 * The failed call's sections end first: a checkpoint must not wait
	 * for a writer that waits for the checkpointing subscriber. The
	 * task work that would have ended them may still be queued: a
	 * second reference keeps the module for it, which it drops.
	 */
	__module_get(THIS_MODULE);
	if (!vfsb_task_end_syscall())
		module_put(THIS_MODULE);
	err = vfsb_intent_wait(&tw->req, tw->syscall);
	/*
	 * fail-closed: the call returns the error instead of restarting; a
	 * signal leaves it to be restarted once the signal is dealt with
	 */
	if (tw->syscall && err && err != -EINTR && err != -ERESTARTNOINTR &&
	    syscall_get_error(current, regs) == -ERESTARTNOINTR)
		syscall_set_return_value(current, regs, err, 0);
	kfree(tw);
	module_put(THIS_MODULE);
}

static enum vfsb_settle vfsb_intent_defer(struct vfsb_intent_req *req,
					  bool syscall)
{
	struct vfsb_intent_tw *tw;

	tw = kmalloc(sizeof(*tw), GFP_ATOMIC | __GFP_NOWARN);
	if (!tw)
		return vfsb_intent_no_wait(req);
	tw->req = *req;
	tw->syscall = syscall;
	init_task_work(&tw->cb, vfsb_intent_tw_fn);
	__module_get(THIS_MODULE);
	if (task_work_add(current, &tw->cb, syscall ? TWA_SIGNAL : TWA_RESUME)) {
		module_put(THIS_MODULE);
		kfree(tw);
		return vfsb_intent_no_wait(req);
	}
	req->in = NULL;		/* the task work's now */
	return VFSB_SETTLE_WAIT;
}

/*
 * Whether the current system call can fail with -ERESTARTNOINTR and be
 * restarted: a user task in a system call. Not io_uring_enter(), whose
 * operations report their results in completions; not io_uring's or
 * any kernel thread; not a dying or core-dumping task (the dump's file
 * is created in get_signal(), which restarts nothing). An async data
 * write (its position in a kiocb) only from io_submit(), which returns
 * how many it queued: io_uring also issues requests from task work,
 * inside whatever system call the task is returning from.
 */
static bool vfsb_syscall_restartable(bool async)
{
	long nr;

	if (!in_task() || (current->flags & (VFSB_PF_NO_SYSCALL |
					     PF_EXITING | PF_DUMPCORE)) ||
	    fatal_signal_pending(current))
		return false;
	nr = syscall_get_nr(current, task_pt_regs(current));
	if (nr < 0 || nr == __NR_io_uring_enter)
		return false;
	return !async || (nr == __NR_io_submit && !in_compat_syscall());
}

/*
 * ---- restarts that a checkpoint made void ----
 *
 * A restarted call waits again when a checkpoint came between its
 * intent and its ack: its directories are not acked in the new epoch.
 * A subscriber that always checkpoints before it acks (one in a tight
 * checkpoint loop may, by chance, every time) would restart it for
 * ever (test_intent: checkpoints_between_intent_and_ack_...). A call
 * that needs several hooks' intents in one epoch (a rename across
 * directories, an overlayfs copy-up that makes each missing parent)
 * waits once per hook when no checkpoint comes between: those rounds
 * are progress, and are not counted. Rounds where the epoch moved are:
 * after VFSB_STARVED_MAX of them, the call goes on unacked, its
 * directories acked for the epoch, with a RESCAN (VFSB_RESCAN_INTENT)
 * that the journal commits with its records, as after a fail-open
 * timeout. Its intents of the previous rounds were acked, so the
 * directories are in the journal; the RESCAN says that this change
 * landed after the epoch they are in.
 *
 * The same call is known by its task, system call number, arguments
 * and address (a restart has them all unchanged) and subscriber, one
 * slot per hash of the task: a slot another task takes only resets the
 * count, so nothing goes on unacked sooner than the bound.
 */
#define VFSB_STARVED_MAX	3
#define VFSB_RESTART_BITS	6

struct vfsb_call_id {
	long nr;
	unsigned long ip;
	unsigned long args[6];
};

static struct vfsb_restarted {
	const struct task_struct *task;	/* compared, never dereferenced */
	const struct vfsb_intent *in;	/* likewise */
	struct vfsb_call_id id;
	u64 epoch;			/* its last intent's */
	unsigned int starved;
	unsigned long when;
} vfsb_restarted[BIT(VFSB_RESTART_BITS)];
static DEFINE_SPINLOCK(vfsb_restarted_lock);

/*
 * A system call's change must wait, and would be restarted: true when
 * this call has been restarted VFSB_STARVED_MAX times already, each
 * time into a later epoch than its intent's. Atomic context.
 */
static bool vfsb_restart_starved(const struct vfsb_intent_req *req)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct vfsb_intent *in = req->in;
	struct vfsb_restarted *r;
	struct vfsb_call_id id = { };
	u64 epoch = READ_ONCE(in->epoch);
	unsigned long flags;
	bool starved = false;

	id.nr = syscall_get_nr(current, regs);
	id.ip = instruction_pointer(regs);
	syscall_get_arguments(current, regs, id.args);
	r = &vfsb_restarted[hash_ptr(current, VFSB_RESTART_BITS)];
	spin_lock_irqsave(&vfsb_restarted_lock, flags);
	if (r->task == current && r->in == in &&
	    !memcmp(&r->id, &id, sizeof(id)) &&
	    time_before(jiffies, r->when + msecs_to_jiffies(in->timeout_ms) +
			HZ)) {
		if (r->epoch != epoch)
			r->starved++;
		starved = r->starved > VFSB_STARVED_MAX;
	} else {
		r->task = current;
		r->in = in;
		r->id = id;
		r->starved = 0;
	}
	r->epoch = epoch;
	r->when = jiffies;
	if (starved)
		r->task = NULL;
	spin_unlock_irqrestore(&vfsb_restarted_lock, flags);
	return starved;
}

/*
 * A hook in a system call: VFSB_SETTLE_WAIT when the call must fail now
 * with -ERESTARTNOINTR (its wait is queued); GO: nothing to wait for,
 * or it cannot wait and goes on unacked; REFUSE: it cannot wait and
 * must fail. async: an async data write's submission.
 */
enum vfsb_settle vfsb_intent_defer_syscall(struct vfsb_intent_req *req,
					   bool async)
{
	if (!req->in)
		return VFSB_SETTLE_GO;
	if (!vfsb_syscall_restartable(async))
		return vfsb_intent_no_wait(req);
	if (vfsb_restart_starved(req)) {
		vfsb_intent_unwaited(req);
		return VFSB_SETTLE_GO;
	}
	return vfsb_intent_defer(req, true);
}

/* A write fault on a shared mapping; user: it came from user mode. */
enum vfsb_settle vfsb_intent_defer_fault(struct vfsb_intent_req *req,
					 bool user)
{
	if (!req->in)
		return VFSB_SETTLE_GO;
	if (!user || !in_task() ||
	    (current->flags & (VFSB_PF_NO_SYSCALL | PF_EXITING)))
		return vfsb_intent_no_wait(req);
	return vfsb_intent_defer(req, false);
}

/* ---- a create whose name is not known yet ---- */

/*
 * The creates deferred lately, one slot per hash of the task: its
 * restarted call must find its own and go on (a filesystem that keeps
 * no negative dentries, a casefolded ext4 directory, would otherwise
 * defer it for ever). A slot another task holds is not taken while that
 * task's call is on its way to its restart (for up to two seconds, and
 * until its task work has run): that create is announced as before.
 * Once the task work ran, the restart comes at once or never (a
 * restart that found its name existing does not come back to the
 * check), so the slot is anyone's; and a slot of this task's for
 * another name is always taken. Each restart finds the names its call
 * looked up before in the dcache, so a call is deferred once per name
 * it reaches the create check with (a trailing symlink's target is the
 * next name), and more only when the dcache drops such a name between
 * its passes, when another task's create takes the slot between the
 * task work and the restart, or when a signal handler's own create
 * runs before the restart: each costs a restart, and the restart that
 * finds its own slot is never refused.
 */
#define VFSB_DEFER_BITS		6

static struct vfsb_deferred {
	const struct task_struct *task;	/* compared, never dereferenced */
	const struct inode *dir;
	u32 hash;
	unsigned long when;
	bool returned;			/* its task work ran: restart at once */
} vfsb_deferred[BIT(VFSB_DEFER_BITS)];
static DEFINE_SPINLOCK(vfsb_deferred_lock);

/*
 * Being queued (TWA_SIGNAL) is what restarts the call. Run at the
 * return, just before the restart (or at exit): the task's slot no
 * longer holds off other tasks.
 */
static void vfsb_restart_tw_fn(struct callback_head *cb)
{
	struct vfsb_deferred *d;

	d = &vfsb_deferred[hash_ptr(current, VFSB_DEFER_BITS)];
	spin_lock(&vfsb_deferred_lock);
	if (d->task == current)
		d->returned = true;
	spin_unlock(&vfsb_deferred_lock);
	kfree(cb);
	module_put(THIS_MODULE);
}

/* Not deferred after all (no memory, an exiting task): d is not held. */
static void vfsb_deferred_drop(struct vfsb_deferred *d)
{
	spin_lock(&vfsb_deferred_lock);
	if (d->task == current)
		d->task = NULL;
	spin_unlock(&vfsb_deferred_lock);
}

/*
 * open(O_CREAT) of a name the dcache does not know asks whether it may
 * create it (may_o_create() -> security_inode_create()) before it looks
 * the name up (lookup_open(), fs/namei.c: 6.1.0-57 lines 3491-3511,
 * the same order in 6.12 and 7.x): the name may exist, and then nothing
 * is created and a refused check is ignored. Announced there, such an
 * open of an existing file got a CREATE record and, in intent mode,
 * waited for it; an existing FIFO then blocked in fifo_open() on top.
 * So that check is failed with -ERESTARTNOINTR, unannounced, when the
 * filesystem has an intent subscriber (the caller knows: emit.c,
 * vfsb_create_may_defer(), which spares a journal's acked directory)
 * and the call can be restarted: an existing name opens as it would
 * have (lookup_open() ignores the error), and a new one fails the
 * call, which is restarted (a TWA_SIGNAL task work makes the return to
 * user space do it) and finds its name looked up, negative, in the
 * dcache, where the check announces it as usual.
 * Returns whether the check is to fail now.
 */
bool vfsb_intent_defer_create(const struct inode *dir,
			      const struct qstr *name)
{
	struct vfsb_deferred *d;
	struct callback_head *cb;
	bool fresh, again, busy;

	if (!vfsb_syscall_restartable(false))
		return false;
	d = &vfsb_deferred[hash_ptr(current, VFSB_DEFER_BITS)];
	spin_lock(&vfsb_deferred_lock);
	fresh = d->task && time_before(jiffies, d->when + 2 * HZ);
	again = fresh && d->task == current && d->dir == dir &&
		d->hash == name->hash;
	/*
	 * Another task's on its way to its restart: announced as before.
	 * This task's for another name is its earlier call's, which went
	 * on, or this call's for a name before this one, or the call a
	 * signal handler interrupted: taken (above).
	 */
	busy = fresh && d->task != current && !d->returned;
	if (again) {
		d->task = NULL;
	} else if (!busy) {
		d->task = current;
		d->dir = dir;
		d->hash = name->hash;
		d->when = jiffies;
		d->returned = false;
	}
	spin_unlock(&vfsb_deferred_lock);
	if (again || busy)
		return false;
	cb = kmalloc(sizeof(*cb), GFP_ATOMIC | __GFP_NOWARN);
	if (!cb) {
		vfsb_deferred_drop(d);
		return false;
	}
	init_task_work(cb, vfsb_restart_tw_fn);
	__module_get(THIS_MODULE);
	if (task_work_add(current, cb, TWA_SIGNAL)) {
		vfsb_deferred_drop(d);
		module_put(THIS_MODULE);
		kfree(cb);
		return false;
	}
	return true;
}

/* ---- a wrapper that waits for a hook inside its call ---- */

#define VFSB_PARK_BITS		6

static struct vfsb_park_bucket {
	spinlock_t lock;		/* head, and the parks' req */
	struct hlist_head head;
} vfsb_parks[BIT(VFSB_PARK_BITS)] = {
	[0 ... BIT(VFSB_PARK_BITS) - 1] = {
		.lock = __SPIN_LOCK_UNLOCKED(vfsb_parks.lock),
	},
};

static struct vfsb_park_bucket *vfsb_park_bucket(void)
{
	return &vfsb_parks[hash_ptr(current, VFSB_PARK_BITS)];
}

/* Puts p, its req set, where this task's hooks find it by key. */
static void vfsb_park_add(struct vfsb_park *p, const void *key)
{
	struct vfsb_park_bucket *b = vfsb_park_bucket();

	p->task = current;
	p->key = key;
	spin_lock(&b->lock);
	hlist_add_head(&p->node, &b->head);
	spin_unlock(&b->lock);
}

/* This task's innermost park for key, or NULL. Under b->lock. */
static struct vfsb_park *vfsb_park_find(struct vfsb_park_bucket *b,
					const void *key)
{
	struct vfsb_park *p;

	hlist_for_each_entry(p, &b->head, node)
		if (p->task == current && p->key == key)
			return p;
	return NULL;
}

void vfsb_park_begin(struct vfsb_park *p, const void *key)
{
	memset(&p->req, 0, sizeof(p->req));
	vfsb_park_add(p, key);
}

/* Whether a hook parked a wait there: then the call changed nothing. */
bool vfsb_park_end(struct vfsb_park *p)
{
	struct vfsb_park_bucket *b = vfsb_park_bucket();

	spin_lock(&b->lock);
	hlist_del(&p->node);
	spin_unlock(&b->lock);
	return p->req.in;
}

/*
 * A hook's change must wait, and its call cannot be restarted (a system
 * call restarts instead: async, a data write's submission), in the call
 * of a wrapper that parked for key in this task: the wrapper takes req
 * (and a module reference, for as long as it waits: the wait may outlast
 * the subscriber and the watch). Atomic context. Whether it was taken;
 * the hook then fails the call.
 *
 * A call may meet a second such check after one parked: an open that
 * follows a symbolic link checks the link's name, not looked up yet,
 * and then the name the link leads to (6.1.0-57 fs/namei.c: lookup_open()
 * 3491-3537 for each, path_openat() 3834-3836 walking the link between).
 * The wrapper holds one wait, so the second change is refused with its
 * wait dropped (its intent stays announced): the wrapper waits for the
 * first and calls again, and the second check then finds its intent
 * acked or parks it, the first name being in the dcache now.
 */
bool vfsb_intent_park(const void *key, struct vfsb_intent_req *req,
		      bool async)
{
	if (!req->in || vfsb_syscall_restartable(async))
		return false;
	return vfsb_intent_park_nested(key, req);
}

/*
 * vfsb_intent_park() for a write nested in another's submission (an
 * overlayfs or backing file's async write to its real file, in any task:
 * none can restart it), which vfs_iocb_iter_write()'s wrapper parks for
 * by its kiocb. Atomic context.
 */
bool vfsb_intent_park_nested(const void *key, struct vfsb_intent_req *req)
{
	struct vfsb_park_bucket *b = vfsb_park_bucket();
	struct vfsb_park *p;
	bool taken = false, parked = false;

	if (!req->in)
		return false;
	spin_lock(&b->lock);
	p = vfsb_park_find(b, key);
	if (p && p->req.in) {
		parked = true;
	} else if (p) {
		__module_get(THIS_MODULE);
		p->req = *req;
		req->in = NULL;
		taken = true;
	}
	spin_unlock(&b->lock);
	if (parked)
		vfsb_req_put(req);
	return taken || parked;
}

/* Whether a wrapper of this task parks for key. Atomic context. */
bool vfsb_intent_parked(const void *key)
{
	struct vfsb_park_bucket *b = vfsb_park_bucket();
	bool found;

	spin_lock(&b->lock);
	found = vfsb_park_find(b, key);
	spin_unlock(&b->lock);
	return found;
}

/*
 * The wait a hook parked (sleeps): 0, go on (call again), or the error
 * to end the call with (vfsb_intent_wait()). The module reference goes
 * with it: the caller is a wrapper, counted as one (hookreg.h).
 */
int vfsb_park_wait(struct vfsb_park *p)
{
	int ret = vfsb_intent_wait(&p->req, true);

	module_put(THIS_MODULE);
	return ret;
}

/* The parked wait, not waited for here: the call is retried elsewhere. */
void vfsb_park_drop(struct vfsb_park *p)
{
	vfsb_req_put(&p->req);
	module_put(THIS_MODULE);
}

/* ---- a write fault the kernel took: it waits in place ---- */

/*
 * A write fault on a shared mapping that the kernel took itself (the
 * copy to user memory of read(2) and of any other call, get_user_pages()
 * for an O_DIRECT read or process_vm_writev()) cannot wait at the return
 * to user space: the access is retried at once, in the kernel, and
 * faults again. It waits where it is instead, in a function of the
 * module that do_page_mkwrite() is moved to (hooks.c, vfsb_fault_wait()),
 * which returns VM_FAULT_NOPAGE with nothing changed; its callers drop
 * their page reference and return that up (6.1.0-57 mm/memory.c
 * wp_page_shared() 3360-3363, do_shared_fault() 4696-4699; 6.12.117
 * 3565-3568, 5398-5401; 7.3 4219-4222, 6078-6081), and the access
 * faults again (arch/x86/mm/fault.c: do_user_addr_fault() returns with
 * no fixup, 6.1 1366-1367; get_user_pages(): faultin_page() returns 0
 * and __get_user_pages() looks the page up again, 6.1 mm/gup.c
 * 1060, 1253-1254), now to find its directory acked.
 *
 * What is held there: the faulting mm's mmap_lock for reading (a fault
 * the kernel takes never runs under the VMA lock alone: x86 takes that
 * only for user-mode faults, 6.12 fault.c 1324-1325, and GUP never), a
 * reference to the page, unlocked, no page table lock (3358, 4694);
 * and whatever the caller of the access holds: an inode's lock, shared,
 * for an O_DIRECT read (ext4, XFS), a pipe's mutex, never a journal
 * handle (a write fault starts one itself). The daemon's ack needs none
 * of these: it reads its records, commits its own files and acks. Only
 * a task that holds no section and no write access token waits so
 * (checked before the announcement): a checkpoint, which waits for
 * every section in flight, must not wait for a writer that waits for
 * the checkpointing daemon. The wait is killable, not freezable: a task
 * must not freeze holding mmap_lock (kernel/freezer.c warns on lockdep
 * kernels, 6.1 124-130). A fatal signal ends it, and the access faulting
 * again is then not parked (the kernel retries it with no limit and no
 * check of its own, 6.1 fault.c 1366-1367): it goes on unacked.
 *
 * The hook parks its req here, atomically, by the fault's vm_fault
 * (key), with a module reference; vfsb_intent_fault_wait() takes it
 * back in the same task. false: no wait (none needed, no memory, a task
 * on its way out or with a fatal signal), and req is the caller's still.
 */
bool vfsb_intent_park_fault(const void *key, struct vfsb_intent_req *req)
{
	struct vfsb_park *p;

	if (!req->in || !in_task() || (current->flags & PF_EXITING) ||
	    fatal_signal_pending(current))
		return false;
	p = kmalloc(sizeof(*p), GFP_ATOMIC | __GFP_NOWARN);
	if (!p)
		return false;
	p->req = *req;
	__module_get(THIS_MODULE);
	vfsb_park_add(p, key);
	req->in = NULL;
	return true;
}

/*
 * The wait vfsb_intent_park_fault() parked for key in this task (sleeps):
 * the announcement's section ends first, then the wait. Fail-open
 * whatever the policy, as a fault from user mode: the retried access
 * goes on once the ack or the timeout came (or a fatal signal, which
 * makes it go on unacked). The module reference goes with the park: the
 * caller is counted as a wrapper (hookreg.h).
 */
void vfsb_intent_fault_wait(const void *key)
{
	struct vfsb_park_bucket *b = vfsb_park_bucket();
	struct vfsb_park *p;

	spin_lock(&b->lock);
	p = vfsb_park_find(b, key);
	if (p)
		hlist_del(&p->node);
	spin_unlock(&b->lock);
	if (WARN_ON_ONCE(!p))
		return;
	__module_get(THIS_MODULE);
	if (!vfsb_task_end_syscall())
		module_put(THIS_MODULE);
	vfsb_intent_wait_as(&p->req, false, true);
	kfree(p);
	module_put(THIS_MODULE);
}
