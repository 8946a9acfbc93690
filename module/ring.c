// SPDX-License-Identifier: GPL-2.0
/*
 * Subscribers' record rings.
 *
 * Each subscribed opener has one ring of variable-size records. Writers
 * (the emission hooks, atomic context) take the ring's spinlock, copy
 * one record in or, when it does not fit, count it as lost; they never
 * wait for the reader. A loss is reported in place: before the next
 * record that fits, an OVERFLOW record tells how many were lost and on
 * which filesystems. The reader takes whole records out under the same
 * lock into a bounce buffer and copies them to user space after.
 *
 * Emitters reach rings through each tracked superblock's RCU list of
 * links; release unlinks, waits for RCU, then frees the ring.
 */
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <uapi/linux/vfsbarrier.h>

#include "records.h"

#define VFSB_LOST_DEVS		8
#define VFSB_COALESCE_BITS	12
#define VFSB_COALESCE_PROBES	8

struct vfsb_coalesce_ent {
	u64 key;
	u64 epoch;
};

/* What makes two data-write records say the same thing. */
struct vfsb_data_key {
	u32 dev;
	u32 reasons;
	u64 ino;
	u64 offset;
	u64 length;
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
	u32 reasons;
	u32 flags;
	u64 epoch;			/* coalescing: bumped by the owner's barriers */
	u64 last_pos;			/* where the last stored record starts */
	struct vfsb_data_key last_data;	/* and, if a data write, what it said */
	struct vfsb_coalesce_ent *cset;
	wait_queue_head_t *wq;
};

/*
 * Rings in existence: without subscribers emission costs one load. (Not
 * a static key: patching the module's own text while its hooks run
 * oopsed on 6.12, and the hooks are absent when nothing is watched.)
 */
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

static u32 vfsb_overflow_size(const struct vfsb_ring *r)
{
	return sizeof(struct vfsb_record) + sizeof(struct vfsb_rec_item) +
	       ALIGN(r->nr_lost_devs * sizeof(u32), 8);
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

	ov.rec.size = size;
	ov.rec.type = VFSB_REC_OVERFLOW;
	ov.rec.header_size = sizeof(ov.rec);
	ov.rec.seq = r->seq;	/* the last lost one */
	ov.rec.time_ns = ktime_get_ns();
	ov.rec.lost = r->lost;
	ov.rec.flags = r->lost_more_devs ? VFSB_RECF_MORE_DEVS : 0;
	ov.rec.dev = r->nr_lost_devs ? r->lost_devs[0] : 0;
	ov.rec.nr_items = 1;
	ov.item.type = VFSB_ITEM_DEVS;
	ov.item.len = r->nr_lost_devs * sizeof(u32);
	memcpy(ov.devs, r->lost_devs, ov.item.len);
	vfsb_ring_copy_in(r, &ov, size);
	r->lost = 0;
	r->nr_lost_devs = 0;
	r->lost_more_devs = false;
}

static void vfsb_ring_note_lost(struct vfsb_ring *r, u32 dev)
{
	u32 i;

	r->lost++;
	for (i = 0; i < r->nr_lost_devs; i++)
		if (r->lost_devs[i] == dev)
			return;
	if (r->nr_lost_devs < VFSB_LOST_DEVS)
		r->lost_devs[r->nr_lost_devs++] = dev;
	else
		r->lost_more_devs = true;
}

/* True when (key) was already delivered in this epoch; else remembers it. */
static bool vfsb_ring_coalesced(struct vfsb_ring *r, u64 key)
{
	u32 i, pos, h = hash_64(key, VFSB_COALESCE_BITS);

	for (i = 0; i < VFSB_COALESCE_PROBES; i++) {
		pos = (h + i) & (BIT(VFSB_COALESCE_BITS) - 1);
		if (r->cset[pos].epoch == r->epoch && r->cset[pos].key == key)
			return true;
		if (r->cset[pos].epoch != r->epoch) {
			r->cset[pos].key = key;
			r->cset[pos].epoch = r->epoch;
			return false;
		}
	}
	return false;	/* set full: deliver, never drop what is not known */
}

/*
 * One data write can pass rw_verify_area() several times (sendfile:
 * do_sendfile, do_splice_direct, then vfs_iter_write; an io_uring write
 * retried from io-wq after -EAGAIN). A record saying exactly what the
 * previous one says is dropped while that one is still unread: the
 * reader's barrier after reading it covers the repeat too, whose section
 * began before it was emitted. Called with r->lock held.
 */
static void vfsb_data_key(const struct vfsb_record *rec,
			  struct vfsb_data_key *k)
{
	memset(k, 0, sizeof(*k));
	if (rec->reasons != VFSB_R_DATA_WRITE)
		return;	/* all zero: matches no data write */
	k->dev = rec->dev;
	k->reasons = rec->reasons;
	k->ino = rec->ino;
	k->offset = rec->offset;
	k->length = rec->length;
}

static bool vfsb_ring_repeat(struct vfsb_ring *r, const struct vfsb_record *rec)
{
	struct vfsb_data_key k;

	if (rec->reasons != VFSB_R_DATA_WRITE || r->head == r->last_pos ||
	    r->tail > r->last_pos)
		return false;
	vfsb_data_key(rec, &k);
	return !memcmp(&k, &r->last_data, sizeof(k));
}

/*
 * Offers one record (its seq is filled in here) to a ring. Returns
 * VFSB_PUSH_{STORED,FILTERED,LOST}.
 */
int vfsb_ring_push(struct vfsb_ring *r, struct vfsb_record *rec, u64 ckey)
{
	unsigned long flags;
	int ret = VFSB_PUSH_STORED;
	u64 room;

	if (r->reasons && !(rec->reasons & r->reasons))
		return VFSB_PUSH_FILTERED;
	spin_lock_irqsave(&r->lock, flags);
	if ((r->flags & VFSB_SUB_COALESCE) && vfsb_ring_coalesced(r, ckey)) {
		spin_unlock_irqrestore(&r->lock, flags);
		return VFSB_PUSH_FILTERED;
	}
	if (!r->lost && vfsb_ring_repeat(r, rec)) {
		spin_unlock_irqrestore(&r->lock, flags);
		return VFSB_PUSH_FILTERED;
	}
	room = r->size - vfsb_ring_used(r);
	if (r->lost && room >= vfsb_overflow_size(r) + rec->size) {
		vfsb_ring_put_overflow(r);
		room = r->size - vfsb_ring_used(r);
	}
	rec->seq = ++r->seq;
	if (!r->lost && room >= rec->size) {
		r->last_pos = r->head;
		vfsb_data_key(rec, &r->last_data);
		vfsb_ring_copy_in(r, rec, rec->size);
	} else {
		vfsb_ring_note_lost(r, rec->dev);
		ret = VFSB_PUSH_LOST;
	}
	spin_unlock_irqrestore(&r->lock, flags);
	if (ret == VFSB_PUSH_STORED && wq_has_sleeper(r->wq))
		wake_up_interruptible_poll(r->wq, EPOLLIN | EPOLLRDNORM);
	return ret;
}

/* Something to read: records, or a loss still to be reported. */
bool vfsb_ring_readable(struct vfsb_ring *r)
{
	return READ_ONCE(r->head) != READ_ONCE(r->tail) || READ_ONCE(r->lost);
}

/*
 * Whole records into ubuf. They leave the ring only once copied: a
 * reader that gets -EFAULT finds them still there. The bounce buffer is
 * sized to what is in the ring when the read starts, not to count (a
 * 1 MiB read that finds one record allocates a few hundred bytes).
 */
ssize_t vfsb_ring_read(struct vfsb_ring *r, char __user *ubuf, size_t count,
		       bool nonblock)
{
	size_t want = min_t(size_t, count, r->size);
	u32 total = 0, rsize;
	unsigned long flags;
	char *bounce = NULL;
	u64 avail;
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
		/* a loss with nothing after it yet is reported now */
		if (r->head == r->tail && r->lost)
			vfsb_ring_put_overflow(r);
		avail = r->head - r->tail;
		spin_unlock_irqrestore(&r->lock, flags);
		if (avail)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(*r->wq, vfsb_ring_readable(r));
		if (ret)
			goto out;
	}
	want = min_t(u64, want, avail);
	bounce = kvmalloc(want, GFP_KERNEL);
	if (!bounce) {
		ret = -ENOMEM;
		goto out;
	}
	/* whole records only; the tail is ours alone (read_lock) */
	spin_lock_irqsave(&r->lock, flags);
	while (r->tail + total < r->head) {
		vfsb_ring_copy_out(r, r->tail + total, &rsize, sizeof(rsize));
		if (total + rsize > want)
			break;
		vfsb_ring_copy_out(r, r->tail + total, bounce + total, rsize);
		total += rsize;
	}
	spin_unlock_irqrestore(&r->lock, flags);
	if (!total) {
		ret = -EINVAL;	/* the buffer cannot hold the next record */
		goto out;
	}
	if (copy_to_user(ubuf, bounce, total)) {
		ret = -EFAULT;
		goto out;
	}
	spin_lock_irqsave(&r->lock, flags);
	r->tail += total;
	spin_unlock_irqrestore(&r->lock, flags);
	ret = total;
out:
	kvfree(bounce);
	mutex_unlock(&r->read_lock);
	return ret;
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
	if (sub->flags & VFSB_SUB_COALESCE)
		r->cset = kvcalloc(BIT(VFSB_COALESCE_BITS), sizeof(*r->cset),
				   GFP_KERNEL_ACCOUNT);
	if (!r->buf || ((sub->flags & VFSB_SUB_COALESCE) && !r->cset)) {
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

u64 vfsb_journal_id(void)
{
	return get_random_u64();
}
