// SPDX-License-Identifier: GPL-2.0
/*
 * Per-opener watches: which superblocks this open file of
 * /dev/vfsbarrier tracks, and the ring it subscribed with. Kernel types
 * only: ioctl.c turns user requests into these calls.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "client.h"
#include "hookreg.h"
#include "intent.h"
#include "ring.h"
#include "tracking.h"
#include "vfsb_trace.h"
#include "watch.h"

struct vfsb_watch_ent {
	struct list_head node;
	struct vfsb_sb *vsb;
	u32 id;
	struct vfsb_sub_link *link;	/* when the client subscribed */
};

/* The live watch of sb, or with id != 0 the watch of that id. c->lock held. */
static struct vfsb_watch_ent *vfsb_find_ent(struct vfsb_client *c,
					    struct super_block *sb, u32 id)
{
	struct vfsb_watch_ent *e;

	list_for_each_entry(e, &c->watches, node) {
		if (id ? e->id == id :
			 e->vsb->sb == sb && !READ_ONCE(e->vsb->dead))
			return e;
	}
	return NULL;
}

int vfsb_watch_add(struct vfsb_client *c, struct super_block *sb,
		   u32 *dev, u32 *id)
{
	struct vfsb_watch_ent *e;
	struct vfsb_sb *vsb;
	int ret = 0;

	mutex_lock(&c->lock);
	if (vfsb_find_ent(c, sb, 0)) {
		ret = -EEXIST;
		goto out;
	}
	if (c->nr_watches >= VFSB_MAX_WATCHES) {
		ret = -ENOSPC;
		goto out;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e) {
		ret = -ENOMEM;
		goto out;
	}
	vsb = vfsb_tracking_get_or_create(sb);
	if (IS_ERR(vsb)) {
		kfree(e);
		ret = PTR_ERR(vsb);
		goto out;
	}
	if (c->ring) {
		ret = vfsb_ring_link(c->ring, c->intent, vsb, &e->link);
		if (ret) {
			vfsb_tracking_put(vsb);
			kfree(e);
			goto out;
		}
	}
	atomic_inc(&vsb->watchers);
	e->vsb = vsb;
	/* ids are never 0 and not reused while the file is open */
	e->id = ++c->next_watch_id;
	list_add_tail(&e->node, &c->watches);
	c->nr_watches++;
	*dev = new_encode_dev(vsb->dev);
	*id = e->id;
	trace_vfsb_watch(vsb->dev, e->id, vsb->fstype);
out:
	mutex_unlock(&c->lock);
	return ret;
}

/* Unwatch, by the opener or at its close. */
static void vfsb_drop_ent(struct vfsb_client *c, struct vfsb_watch_ent *e)
{
	trace_vfsb_unwatch(e->vsb->dev, e->id, e->vsb->fstype);
	list_del(&e->node);
	c->nr_watches--;
	if (e->link)
		vfsb_ring_unlink(e->vsb, e->link);
	atomic_dec(&e->vsb->watchers);
	vfsb_tracking_put(e->vsb);
	kfree(e);
}

/* The watch of sb (live) or, with id != 0, of that id (maybe unmounted). */
int vfsb_watch_remove(struct vfsb_client *c, struct super_block *sb, u32 id,
		      u32 *dev)
{
	struct vfsb_watch_ent *e;
	int ret = 0;

	mutex_lock(&c->lock);
	e = vfsb_find_ent(c, sb, id);
	if (e) {
		*dev = new_encode_dev(e->vsb->dev);
		vfsb_drop_ent(c, e);
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&c->lock);
	return ret;
}

/* Drops every watch, including those of unmounted filesystems. */
void vfsb_watch_remove_all(struct vfsb_client *c)
{
	struct vfsb_watch_ent *e, *tmp;

	mutex_lock(&c->lock);
	list_for_each_entry_safe(e, tmp, &c->watches, node)
		vfsb_drop_ent(c, e);
	mutex_unlock(&c->lock);
}

/* Fills up to capacity devs; returns how many watches there are. */
u32 vfsb_watch_list(struct vfsb_client *c, u32 *devs, u32 capacity)
{
	struct vfsb_watch_ent *e;
	u32 n = 0;

	mutex_lock(&c->lock);
	list_for_each_entry(e, &c->watches, node) {
		if (n < capacity)
			devs[n] = new_encode_dev(e->vsb->dev);
		n++;
	}
	mutex_unlock(&c->lock);
	return n;
}

/*
 * The trackings of every watch whose filesystem is mounted, each with a
 * reference, in a new array (VFSB_BARRIER_ALL). Unmounted ones have
 * nothing in flight: a barrier need not look at them.
 */
int vfsb_watch_collect(struct vfsb_client *c, struct vfsb_sb ***vsbs,
		       unsigned int *n)
{
	struct vfsb_watch_ent *e;
	struct vfsb_sb **arr;
	unsigned int i = 0;

	mutex_lock(&c->lock);
	arr = kcalloc(max(c->nr_watches, 1U), sizeof(*arr), GFP_KERNEL_ACCOUNT);
	if (!arr) {
		mutex_unlock(&c->lock);
		return -ENOMEM;
	}
	list_for_each_entry(e, &c->watches, node) {
		if (READ_ONCE(e->vsb->dead))
			continue;
		vfsb_tracking_get(e->vsb);
		arr[i++] = e->vsb;
	}
	mutex_unlock(&c->lock);
	*vsbs = arr;
	*n = i;
	return 0;
}

/*
 * Gives this opener a record ring, linked to every superblock it watches
 * now or later. Once per open file.
 */
int vfsb_subscribe(struct vfsb_client *c, const struct vfsb_subscribe *sub,
		   u64 *journal_id)
{
	struct vfsb_intent *intent = NULL;
	struct vfsb_watch_ent *e;
	struct vfsb_ring *ring;
	int ret = 0;

	mutex_lock(&c->lock);
	if (c->ring) {
		ret = -EBUSY;
		goto out;
	}
	ring = vfsb_ring_alloc(sub, &c->wq);
	if (IS_ERR(ring)) {
		ret = PTR_ERR(ring);
		goto out;
	}
	if (sub->flags & VFSB_SUB_INTENT) {
		intent = vfsb_intent_alloc(sub, ring);
		if (IS_ERR(intent)) {
			vfsb_ring_free(ring);
			ret = PTR_ERR(intent);
			goto out;
		}
		/* the hooks may move calls before its first record */
		vfsb_hookreg_intent_get();
	}
	list_for_each_entry(e, &c->watches, node) {
		ret = vfsb_ring_link(ring, intent, e->vsb, &e->link);
		if (ret)
			break;
	}
	if (ret) {
		list_for_each_entry(e, &c->watches, node) {
			if (e->link)
				vfsb_ring_unlink(e->vsb, e->link);
			e->link = NULL;
		}
		synchronize_rcu();
		if (intent) {
			vfsb_intent_close(intent);
			vfsb_hookreg_intent_put();
		}
		vfsb_ring_free(ring);
		goto out;
	}
	c->intent = intent;
	c->journal_id = get_random_u64() ?: 1;
	*journal_id = c->journal_id;
	/* published last: read() and poll() look at it without c->lock */
	smp_store_release(&c->ring, ring);
out:
	mutex_unlock(&c->lock);
	return ret;
}
