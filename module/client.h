/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One open file of /dev/vfsbarrier: its watches, its barriers, its ring.
 */
#ifndef VFSB_CLIENT_H
#define VFSB_CLIENT_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

struct vfsb_breq;
struct vfsb_ring;

struct vfsb_client {
	refcount_t ref;			/* the file + pending barriers */
	struct mutex lock;		/* watches, ring setup */
	struct list_head watches;	/* struct vfsb_watch_ent */
	unsigned int nr_watches;
	u32 next_watch_id;
	spinlock_t async_lock;		/* async list; taken from SRCU callbacks */
	struct list_head async;		/* struct vfsb_breq */
	unsigned int nr_async;
	atomic_t nr_async_done;		/* completed, not yet polled */
	atomic_t nr_pending;		/* barriers not yet complete, all kinds */
	u64 next_cookie;
	wait_queue_head_t wq;		/* records (POLLIN), barriers (POLLPRI) */
	struct vfsb_ring *ring;		/* set once by VFSB_IOC_SUBSCRIBE */
	struct vfsb_intent *intent;	/* and its intent mode, or NULL */
	u64 journal_id;
	/*
	 * The epoch a checkpoint closed and has not yet seen finish (it
	 * timed out or was interrupted), or 0: the next checkpoint waits
	 * for it again instead of closing another. Under lock.
	 */
	u64 ckpt_unfinished;
	/*
	 * That checkpoint's barrier, kept until it completes: a call
	 * again waits for the same sections, not for those begun since
	 * (each new one would, and would count against VFSB_MAX_PENDING).
	 * Under lock; the request holds a reference to the client, and
	 * vfsb_barrier_drop_client() drops it at release.
	 */
	struct vfsb_breq *ckpt_req;
};

static inline void vfsb_client_get(struct vfsb_client *c)
{
	refcount_inc(&c->ref);
}

/* Any context (an SRCU callback may drop the last reference). */
static inline void vfsb_client_put(struct vfsb_client *c)
{
	if (!refcount_dec_and_test(&c->ref))
		return;
	mutex_destroy(&c->lock);
	kfree(c);
}

#endif /* VFSB_CLIENT_H */
