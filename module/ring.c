// SPDX-License-Identifier: GPL-2.0
/*
 * Subscribers' record rings.
 *
 * Each subscribed opener has one ring of variable-size records. Writers
 * (the emission hooks, atomic context) take the ring's spinlock, copy
 * one record in or, when it does not fit, count it as lost; they never
 * wait for the reader and never write below the head. The reader alone
 * moves the tail, so the records between tail and head do not change
 * under it: it copies them to user space without the spinlock (writers
 * are never held up by a slow or faulting read) and moves the tail only
 * once they are copied (a read that faults loses nothing).
 *
 * Notices: a loss, and a change that no section covered, are not records
 * of their own when they happen (the ring may be full, and one unfenced
 * write after another would flood it); they are counted in the ring and
 * written out, as an OVERFLOW and then one RESCAN record per filesystem,
 * before the next record that fits, or when the reader finds the ring
 * otherwise empty. Nothing is lost silently.
 *
 * Emitters reach rings through each tracked superblock's RCU list of
 * links (vfsb_ring_link()); release unlinks, waits for RCU, then frees
 * the ring.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ring.h"
#include "tracking.h"
#include "vfsb_trace.h"

#define VFSB_LOST_DEVS		8
#define VFSB_RESCAN_DEVS	8
#define VFSB_COALESCE_BITS	12
#define VFSB_COALESCE_PROBES	8

struct vfsb_coalesce_ent {
	struct vfsb_ckey key;
	u64 epoch;
};

struct vfsb_rescan_note {
	u32 dev;
	u32 why;		/* VFSB_RESCAN_* */
	u64 count;
};

struct vfsb_ring {
	struct mutex read_lock;		/* one reader at a time: tail */
	spinlock_t lock;		/* everything below */
	char *buf;
	u32 size;			/* power of two */
	u64 head, tail;			/* free-running byte positions */
	u64 seq;			/* last sequence number given out */
	u64 lost;			/* since the last OVERFLOW record */
	u32 lost_devs[VFSB_LOST_DEVS];
	u32 nr_lost_devs;
	bool lost_more_devs;
	struct vfsb_rescan_note rescan[VFSB_RESCAN_DEVS];
	u32 nr_rescan;
	u32 reasons;
	u32 flags;
	bool journal;			/* an intent ring with COALESCE: below */
	u64 epoch;			/* coalescing: bumped by the owner's barriers */
	u64 last_pos;			/* where the last stored record starts */
	bool last_is_change;		/* and whether it is a CHANGE record */
	/* the reader may be copying out what is below: it stays as it is */
	u64 read_limit;
	struct vfsb_coalesce_ent *cset;
	wait_queue_head_t *wq;
};

atomic_t vfsb_nr_rings = ATOMIC_INIT(0);

static u64 vfsb_ring_used(const struct vfsb_ring *r)
{
	return r->head - r->tail;
}

static void vfsb_ring_copy_in(struct vfsb_ring *r, const void *src, u32 len)
{
	u32 off = r->head & (r->size - 1);
	u32 first = min(len, r->size - off);

	memcpy(r->buf + off, src, first);
	memcpy(r->buf, src + first, len - first);
	r->head += len;
}

static void vfsb_ring_copy_out(struct vfsb_ring *r, u64 pos, void *dst, u32 len)
{
	u32 off = pos & (r->size - 1);
	u32 first = min(len, r->size - off);

	memcpy(dst, r->buf + off, first);
	memcpy(dst + first, r->buf, len - first);
}

/* ---- notices: OVERFLOW and RESCAN records ---- */

static u32 vfsb_overflow_size(const struct vfsb_ring *r)
{
	if (!r->lost)
		return 0;
	return sizeof(struct vfsb_record) + sizeof(struct vfsb_rec_item) +
	       ALIGN(r->nr_lost_devs * sizeof(u32), 8);
}

static u32 vfsb_notices_size(const struct vfsb_ring *r)
{
	return vfsb_overflow_size(r) + r->nr_rescan * sizeof(struct vfsb_record);
}

static void vfsb_notice_header(struct vfsb_ring *r, struct vfsb_record *rec,
			       u16 type, u32 size)
{
	rec->size = size;
	rec->type = type;
	rec->header_size = sizeof(*rec);
	rec->time_ns = ktime_get_ns();
}

/* Writes the pending OVERFLOW record; the caller checked the space. */
static void vfsb_ring_put_overflow(struct vfsb_ring *r)
{
	struct {
		struct vfsb_record rec;
		struct vfsb_rec_item item;
		u32 devs[VFSB_LOST_DEVS];
	} ov = { };
	u32 size = vfsb_overflow_size(r);

	vfsb_notice_header(r, &ov.rec, VFSB_REC_OVERFLOW, size);
	ov.rec.seq = r->seq;	/* the last lost one */
	ov.rec.lost = r->lost;
	ov.rec.flags = r->lost_more_devs ? VFSB_RECF_MORE_DEVS : 0;
	ov.rec.dev = r->nr_lost_devs ? r->lost_devs[0] : 0;
	ov.rec.nr_items = 1;
	ov.item.type = VFSB_ITEM_DEVS;
	ov.item.len = r->nr_lost_devs * sizeof(u32);
	memcpy(ov.devs, r->lost_devs, ov.item.len);
	vfsb_ring_copy_in(r, &ov, size);
	trace_vfsb_overflow(r->lost, r->seq, new_decode_dev(ov.rec.dev),
			    r->nr_lost_devs, r->lost_more_devs);
	r->lost = 0;
	r->nr_lost_devs = 0;
	r->lost_more_devs = false;
}

static void vfsb_ring_put_rescans(struct vfsb_ring *r)
{
	struct vfsb_record rec;
	u32 i;

	for (i = 0; i < r->nr_rescan; i++) {
		memset(&rec, 0, sizeof(rec));
		vfsb_notice_header(r, &rec, VFSB_REC_RESCAN, sizeof(rec));
		rec.seq = ++r->seq;
		rec.dev = r->rescan[i].dev;
		rec.reasons = r->rescan[i].why;
		rec.lost = r->rescan[i].count;
		vfsb_ring_copy_in(r, &rec, sizeof(rec));
	}
	r->nr_rescan = 0;
}

/*
 * Writes out what is pending if it fits with need bytes more behind it.
 * False: it does not (nothing written).
 */
static bool vfsb_ring_flush_notices(struct vfsb_ring *r, u32 need)
{
	u32 size = vfsb_notices_size(r);

	if (!size)
		return true;
	if (r->size - vfsb_ring_used(r) < size + need)
		return false;
	if (r->lost)
		vfsb_ring_put_overflow(r);
	vfsb_ring_put_rescans(r);
	/* nothing merges into a record from before a notice */
	r->last_is_change = false;
	return true;
}

/* A record of dev did not fit: counted, and traced (the rare path). */
static void vfsb_ring_note_lost(struct vfsb_ring *r, u32 dev)
{
	u32 i;

	r->lost++;
	trace_vfsb_record_dropped(new_decode_dev(dev), r->lost);
	for (i = 0; i < r->nr_lost_devs; i++)
		if (r->lost_devs[i] == dev)
			return;
	if (r->nr_lost_devs < VFSB_LOST_DEVS)
		r->lost_devs[r->nr_lost_devs++] = dev;
	else
		r->lost_more_devs = true;
}

static void vfsb_ring_wake(struct vfsb_ring *r)
{
	if (wq_has_sleeper(r->wq))
		wake_up_interruptible_poll(r->wq, EPOLLIN | EPOLLRDNORM);
}

/*
 * Something on dev changed, or may have, outside a section: note it for
 * a RESCAN record. With more filesystems pending than the notes hold,
 * the event counts as a lost record of dev instead: an OVERFLOW naming
 * dev says "rescan it" too.
 */
void vfsb_ring_note_rescan(struct vfsb_ring *r, u32 dev, u32 why)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&r->lock, flags);
	for (i = 0; i < r->nr_rescan; i++)
		if (r->rescan[i].dev == dev)
			break;
	if (i < r->nr_rescan) {
		r->rescan[i].why |= why;
		r->rescan[i].count++;
	} else if (i < VFSB_RESCAN_DEVS) {
		r->rescan[i].dev = dev;
		r->rescan[i].why = why;
		r->rescan[i].count = 1;
		r->nr_rescan++;
	} else {
		r->seq++;
		vfsb_ring_note_lost(r, dev);
	}
	spin_unlock_irqrestore(&r->lock, flags);
	vfsb_ring_wake(r);
}

/* ---- coalescing ---- */

/* True when key was already delivered in this epoch; else remembers it. */
static bool vfsb_ring_coalesced(struct vfsb_ring *r, const struct vfsb_ckey *key)
{
	u32 i, pos, h;

	h = hash_64(key->parent_ino ^ ((u64)key->dev << 32) ^
		    ((u64)key->parent_gen << 16) ^ key->reasons,
		    VFSB_COALESCE_BITS);
	for (i = 0; i < VFSB_COALESCE_PROBES; i++) {
		struct vfsb_coalesce_ent *e;

		pos = (h + i) & (BIT(VFSB_COALESCE_BITS) - 1);
		e = &r->cset[pos];
		if (e->epoch == r->epoch && !memcmp(&e->key, key, sizeof(*key)))
			return true;
		if (e->epoch != r->epoch) {
			e->key = *key;
			e->epoch = r->epoch;
			return false;
		}
	}
	return false;	/* set full: deliver, never drop what is not known */
}

/*
 * A CHANGE record that says exactly what the previous one says, while
 * that one is still unread, is merged into it (not stored, no sequence
 * number, counted as merged): one data write can pass rw_verify_area()
 * several times (sendfile: do_sendfile, do_splice_direct, then
 * vfs_iter_write; an io_uring write retried from io-wq after -EAGAIN),
 * and a task that changes one object over and over (a log appended at
 * one offset, a file chmod()ed in a loop) says the same thing each
 * time, as fanotify merges its unread events. The reader's barrier
 * after reading the record covers the repeat too, whose section began
 * before it was emitted. Everything but the sequence number, the time
 * and the thread is compared: the writer's process, the handles and the
 * name too (an io_uring write retried by an io-wq worker comes from
 * another thread of the same process).
 *
 * A data write that differs only in its range, and whose range touches
 * or overlaps the unread record's, widens that record's range to cover
 * both (a file appended a few bytes at a time is one record per read,
 * not one per write). The record is changed in place, so only one the
 * reader is not copying out: vfsb_ring_read() copies [tail, head) as
 * it was under the lock without holding it, and read_limit is that
 * head. A record read already is never changed: its reader's barrier
 * does not cover the new write, which gets a record of its own.
 * Called with r->lock held.
 */
static bool vfsb_ring_merge(struct vfsb_ring *r, const struct vfsb_record *rec)
{
	const size_t from = offsetof(struct vfsb_record, dev);
	const size_t range = offsetof(struct vfsb_record, offset);
	const size_t after_range = offsetof(struct vfsb_record, lost);
	const size_t tid = offsetof(struct vfsb_record, tid);
	const size_t after_tid = tid + sizeof(rec->tid);
	u32 off = r->last_pos & (r->size - 1);
	char *last = r->buf + off;
	const char *new = (const char *)rec;
	struct vfsb_record *lr = (struct vfsb_record *)last;
	u64 start, end;

	BUILD_BUG_ON(offsetof(struct vfsb_record, seq) != 8 ||
		     offsetof(struct vfsb_record, time_ns) + 8 != from ||
		     range + 16 != after_range || after_range > tid);
	if (rec->type != VFSB_REC_CHANGE || !r->last_is_change ||
	    r->head == r->last_pos || r->tail > r->last_pos)
		return false;
	/* one that wraps around the end is not compared, only stored */
	if (off + rec->size > r->size || lr->size != rec->size)
		return false;
	if (memcmp(last, new, 8) ||
	    memcmp(last + from, new + from, range - from) ||
	    memcmp(last + after_range, new + after_range, tid - after_range) ||
	    memcmp(last + after_tid, new + after_tid, rec->size - after_tid))
		return false;
	if (lr->offset == rec->offset && lr->length == rec->length)
		return true;
	if (rec->reasons != VFSB_R_DATA_WRITE || r->last_pos < r->read_limit)
		return false;
	/* touching or overlapping, without overflowing the end */
	if (rec->offset > lr->offset + lr->length ||
	    lr->offset > rec->offset + rec->length ||
	    lr->offset + lr->length < lr->offset ||
	    rec->offset + rec->length < rec->offset)
		return false;
	start = min(lr->offset, rec->offset);
	end = max(lr->offset + lr->length, rec->offset + rec->length);
	lr->offset = start;
	lr->length = end - start;
	return true;
}

/*
 * A journal's coalescing (VFSB_SUB_COALESCE on an intent subscriber's
 * ring). The journal stores, from a CHANGE record, its directory in its
 * epoch; and more only from a file it may not lead to
 * (VFSB_RECF_LINKS), a hard link made (VFSB_R_HARDLINK: where a name of
 * the file is) and a directory's rename (the moved subtree); and, from
 * a change of a directory's own attributes, the directory, needed only
 * from its intent (intent.h: keyed by the directory too, such a change
 * is an intent unless the directory is acked in the epoch already). A
 * record that carries none of that, and is no intent (those are acked
 * on their own) nor unfenced (its RESCAN follows), is plain: the
 * journal stores nothing from it that an earlier record naming its
 * directory in its epoch does not give.
 */
static bool vfsb_rec_plain(const struct vfsb_record *rec)
{
	return rec->type == VFSB_REC_CHANGE && rec->epoch && rec->parent_ino &&
	       !(rec->flags & (VFSB_RECF_INTENT | VFSB_RECF_LINKS |
			       VFSB_RECF_UNFENCED)) &&
	       !(rec->reasons & VFSB_R_HARDLINK) &&
	       !((rec->flags & VFSB_RECF_DIR) &&
		 (rec->reasons & (VFSB_R_RENAME_FROM | VFSB_R_RENAME_TO)));
}

/*
 * A plain record merges into the last stored record when that one is a
 * CHANGE record naming the same directory in the same epoch and no
 * reader has taken it yet (at or above read_limit, the head of the last
 * read: what a read() copies out, or copied and may not have stored,
 * is never counted on). The earlier record is not changed: it names the
 * directory already. The same reader protocol as vfsb_ring_merge(): a
 * change after a read gets a record of its own. Called with r->lock.
 */
static bool vfsb_ring_last_names(struct vfsb_ring *r, u64 epoch, u32 dev,
				 const u8 *fs_uuid, u64 parent_ino,
				 u32 parent_generation)
{
	u32 off = r->last_pos & (r->size - 1);
	const struct vfsb_record *lr = (const void *)(r->buf + off);

	if (!r->last_is_change || r->head == r->last_pos ||
	    r->last_pos < r->read_limit || r->tail > r->last_pos ||
	    vfsb_notices_size(r))
		return false;
	/* a header that wraps around the end is not compared */
	if (off + sizeof(*lr) > r->size)
		return false;
	return lr->epoch == epoch && lr->dev == dev &&
	       lr->parent_ino == parent_ino &&
	       lr->parent_generation == parent_generation &&
	       !memcmp(lr->fs_uuid, fs_uuid, sizeof(lr->fs_uuid));
}

static bool vfsb_ring_merge_dir(struct vfsb_ring *r,
				const struct vfsb_record *rec)
{
	return vfsb_ring_last_names(r, rec->epoch, rec->dev, rec->fs_uuid,
				    rec->parent_ino, rec->parent_generation);
}

/* Whether r is a journal's: it merges plain records (above). */
bool vfsb_ring_is_journal(const struct vfsb_ring *r)
{
	return r->journal;
}

/*
 * Whether a plain record of reasons (vfsb_rec_plain(): the caller knows
 * it is one) naming directory parent_ino of dev in epoch would merge
 * into r's last record, as vfsb_ring_push() would merge it: the record
 * then need not be built (emit.c). Called with the intent's lock held,
 * which orders epoch against the ring as vfsb_intent_push() does.
 */
bool vfsb_ring_would_merge(struct vfsb_ring *r, u32 reasons, u64 epoch,
			   u32 dev, const u8 *fs_uuid, u64 parent_ino,
			   u32 parent_generation)
{
	unsigned long flags;
	bool ret;

	/* a record the ring filters out is not merged either */
	if (!r->journal || (r->reasons && !(reasons & r->reasons)))
		return false;
	spin_lock_irqsave(&r->lock, flags);
	ret = vfsb_ring_last_names(r, epoch, dev, fs_uuid, parent_ino,
				   parent_generation);
	spin_unlock_irqrestore(&r->lock, flags);
	return ret;
}

/*
 * Offers one record (its seq is filled in here) to a ring. key: the
 * coalescing key of a CHANGE record (NULL for other types, which are
 * never filtered; and for intents).
 *
 * A journal's ring (above) is not woken for a plain record: the change
 * waits for its directory's intent, or that intent is acked already,
 * so nothing hurries its reading; it is read with the next record that
 * wakes the reader (an intent, a notice, any other record), at the
 * reader's own next read (a checkpoint's), or once the ring is half
 * full. Until then the next plain records of its directory merge into
 * it: a directory changed over and over costs its reader nothing.
 */
enum vfsb_push vfsb_ring_push(struct vfsb_ring *r, struct vfsb_record *rec,
			      const struct vfsb_ckey *key)
{
	enum vfsb_push ret = VFSB_PUSH_STORED;
	bool plain = false, wake = true;
	unsigned long flags;

	if (key && r->reasons && !(rec->reasons & r->reasons))
		return VFSB_PUSH_FILTERED;
	spin_lock_irqsave(&r->lock, flags);
	if (r->journal) {
		plain = key && vfsb_rec_plain(rec);
		if (plain && vfsb_ring_merge_dir(r, rec)) {
			ret = VFSB_PUSH_MERGED;
			goto out;
		}
	} else if (key && (r->flags & VFSB_SUB_COALESCE) &&
		   vfsb_ring_coalesced(r, key)) {
		ret = VFSB_PUSH_FILTERED;
		goto out;
	}
	if (!(rec->flags & VFSB_RECF_INTENT) && !vfsb_notices_size(r) &&
	    vfsb_ring_merge(r, rec)) {
		ret = VFSB_PUSH_MERGED;
		goto out;
	}
	if (!vfsb_ring_flush_notices(r, rec->size) ||
	    r->size - vfsb_ring_used(r) < rec->size) {
		rec->seq = ++r->seq;
		vfsb_ring_note_lost(r, rec->dev);
		ret = VFSB_PUSH_LOST;
		goto out;
	}
	rec->seq = ++r->seq;
	r->last_pos = r->head;
	r->last_is_change = rec->type == VFSB_REC_CHANGE;
	vfsb_ring_copy_in(r, rec, rec->size);
	if (plain)
		wake = vfsb_ring_used(r) > r->size / 2;
out:
	spin_unlock_irqrestore(&r->lock, flags);
	if (ret == VFSB_PUSH_STORED && wake)
		vfsb_ring_wake(r);
	return ret;
}

/* Something to read: records, or a notice still to be written out. */
bool vfsb_ring_readable(struct vfsb_ring *r)
{
	return READ_ONCE(r->head) != READ_ONCE(r->tail) ||
	       READ_ONCE(r->lost) || READ_ONCE(r->nr_rescan);
}

/* Up to len bytes of the ring from pos, to user space (no lock held). */
static int vfsb_ring_copy_to_user(struct vfsb_ring *r, char __user *ubuf,
				  u64 pos, u32 len)
{
	u32 off = pos & (r->size - 1);
	u32 first = min(len, r->size - off);

	if (copy_to_user(ubuf, r->buf + off, first) ||
	    copy_to_user(ubuf + first, r->buf, len - first))
		return -EFAULT;
	return 0;
}

/*
 * Whole records into ubuf. They leave the ring only once copied: a
 * reader that gets -EFAULT finds them still there.
 */
ssize_t vfsb_ring_read(struct vfsb_ring *r, char __user *ubuf, size_t count,
		       bool nonblock)
{
	size_t want = min_t(size_t, count, r->size);
	unsigned long flags;
	u64 head, tail;
	u32 total = 0, rsize;
	ssize_t ret;

	if (count < sizeof(struct vfsb_record))
		return -EINVAL;
	if (nonblock) {
		if (!mutex_trylock(&r->read_lock))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&r->read_lock)) {
		return -ERESTARTSYS;
	}
	for (;;) {
		spin_lock_irqsave(&r->lock, flags);
		/* notices with nothing after them yet are written now */
		if (r->head == r->tail)
			vfsb_ring_flush_notices(r, 0);
		head = r->head;
		tail = r->tail;
		/* what may be copied out below is not merged into (above) */
		r->read_limit = head;
		spin_unlock_irqrestore(&r->lock, flags);
		if (head != tail)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(*r->wq, vfsb_ring_readable(r));
		if (ret)
			goto out;
	}
	/*
	 * [tail, head) is stable: writers append beyond head, and only
	 * this (mutex-holding) reader moves the tail.
	 */
	while (tail + total < head) {
		vfsb_ring_copy_out(r, tail + total, &rsize, sizeof(rsize));
		if (total + rsize > want)
			break;
		total += rsize;
	}
	if (!total) {
		ret = -EINVAL;	/* the buffer cannot hold the next record */
		goto out;
	}
	ret = vfsb_ring_copy_to_user(r, ubuf, tail, total);
	if (ret)
		goto out;
	spin_lock_irqsave(&r->lock, flags);
	r->tail += total;
	spin_unlock_irqrestore(&r->lock, flags);
	ret = total;
out:
	mutex_unlock(&r->read_lock);
	return ret;
}

/* The last sequence number given out (acks may not go beyond). */
u64 vfsb_ring_last_seq(struct vfsb_ring *r)
{
	unsigned long flags;
	u64 seq;

	spin_lock_irqsave(&r->lock, flags);
	seq = r->seq;
	spin_unlock_irqrestore(&r->lock, flags);
	return seq;
}

void vfsb_ring_new_epoch(struct vfsb_ring *r)
{
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	r->epoch++;
	spin_unlock_irqrestore(&r->lock, flags);
}

struct vfsb_ring *vfsb_ring_alloc(const struct vfsb_subscribe *sub,
				  wait_queue_head_t *wq)
{
	u32 size = sub->ring_bytes ? sub->ring_bytes : VFSB_RING_DEFAULT;
	struct vfsb_ring *r;

	if (size < VFSB_RING_MIN || size > VFSB_RING_MAX)
		return ERR_PTR(-EINVAL);
	size = roundup_pow_of_two(size);
	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->buf = kvmalloc(size, GFP_KERNEL_ACCOUNT);
	/* an intent ring coalesces as a journal: no set of keys */
	r->journal = (sub->flags & VFSB_SUB_COALESCE) &&
		     (sub->flags & VFSB_SUB_INTENT);
	if ((sub->flags & VFSB_SUB_COALESCE) && !r->journal)
		r->cset = kvcalloc(BIT(VFSB_COALESCE_BITS), sizeof(*r->cset),
				   GFP_KERNEL_ACCOUNT);
	if (!r->buf || ((sub->flags & VFSB_SUB_COALESCE) && !r->journal &&
			!r->cset)) {
		kvfree(r->cset);
		kvfree(r->buf);
		kfree(r);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&r->read_lock);
	spin_lock_init(&r->lock);
	r->size = size;
	r->reasons = sub->reasons;
	r->flags = sub->flags;
	r->epoch = 1;	/* zeroed coalescing entries belong to no epoch */
	r->wq = wq;
	atomic_inc(&vfsb_nr_rings);
	return r;
}

/* After every link to it is gone and RCU readers are done. */
void vfsb_ring_free(struct vfsb_ring *r)
{
	if (!r)
		return;
	atomic_dec(&vfsb_nr_rings);
	kvfree(r->cset);
	kvfree(r->buf);
	kfree(r);
}

/* ---- links: a ring on a tracked superblock's subscriber list ---- */

/* intent: the ring's intent mode, or NULL; one per superblock (-EBUSY). */
int vfsb_ring_link(struct vfsb_ring *r, struct vfsb_intent *intent,
		   struct vfsb_sb *vsb, struct vfsb_sub_link **out)
{
	struct vfsb_sub_link *l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	struct vfsb_sub_link *o;

	if (!l)
		return -ENOMEM;
	l->ring = r;
	l->intent = intent;
	spin_lock(&vsb->subs_lock);
	if (intent) {
		list_for_each_entry(o, &vsb->subs, node) {
			if (o->intent) {
				spin_unlock(&vsb->subs_lock);
				kfree(l);
				return -EBUSY;
			}
		}
	}
	list_add_tail_rcu(&l->node, &vsb->subs);
	spin_unlock(&vsb->subs_lock);
	*out = l;
	return 0;
}

/* Emitters may still see the link until a grace period has passed. */
void vfsb_ring_unlink(struct vfsb_sb *vsb, struct vfsb_sub_link *l)
{
	spin_lock(&vsb->subs_lock);
	list_del_rcu(&l->node);
	spin_unlock(&vsb->subs_lock);
	kfree_rcu(l, rcu);
}
