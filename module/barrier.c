// SPDX-License-Identifier: GPL-2.0
/*
 * Barriers: wait for every write section that began before the call.
 *
 * A barrier request covers one or more superblocks; for each it waits
 * for one SRCU grace period, either with call_srcu() (no thread blocked,
 * completion in the callback) or, expedited, with
 * synchronize_srcu_expedited() in a work item. Waiting this way rather
 * than in synchronize_srcu() lets the caller time out or take a signal
 * and leave the request to finish on its own: the request is
 * reference-counted, and each pending grace period holds a reference.
 */
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/vfsbarrier.h>

#include "records.h"
#include "vfsb.h"

struct vfsb_breq;

struct vfsb_gp {
	struct rcu_head rcu;
	struct work_struct work;	/* expedited */
	struct vfsb_breq *req;
	struct vfsb_sb *vsb;
};

struct vfsb_breq {
	refcount_t ref;
	atomic_t pending;		/* grace periods not yet ended */
	u64 start_ns;
	u64 cookie;			/* async only */
	struct vfsb_client *client;	/* async only; holds a reference */
	struct list_head node;		/* client->async */
	wait_queue_head_t wq;		/* the synchronous waiter */
	unsigned int nr;
	struct vfsb_gp gps[];
};

/* Coalescing starts over at each of the subscriber's own barriers. */
static void vfsb_client_new_epoch(struct vfsb_client *c)
{
	struct vfsb_ring *ring = READ_ONCE(c->ring);

	if (ring)
		vfsb_ring_new_epoch(ring);
}

static void vfsb_breq_put(struct vfsb_breq *req)
{
	if (!refcount_dec_and_test(&req->ref))
		return;
	if (req->client)
		vfsb_client_put(req->client);
	kfree(req);
}

static bool vfsb_breq_done(struct vfsb_breq *req)
{
	return atomic_read(&req->pending) == 0;
}

/* The last grace period of the request ended (or there was none). */
static void vfsb_breq_complete(struct vfsb_breq *req)
{
	if (req->client) {
		atomic_inc(&req->client->nr_async_done);
		wake_up_all(&req->client->wq);
	} else {
		wake_up_all(&req->wq);
	}
}

/* Any context: SRCU callback (softirq) or work item. */
static void vfsb_gp_done(struct vfsb_gp *gp)
{
	struct vfsb_breq *req = gp->req;

	atomic64_inc(&gp->vsb->barriers);
	atomic64_add(ktime_get_ns() - req->start_ns, &gp->vsb->barrier_wait_ns);
	if (atomic_dec_and_test(&req->pending))
		vfsb_breq_complete(req);
	vfsb_breq_put(req);
}

static void vfsb_gp_srcu_cb(struct rcu_head *rcu)
{
	vfsb_gp_done(container_of(rcu, struct vfsb_gp, rcu));
}

static void vfsb_gp_expedited_work(struct work_struct *work)
{
	struct vfsb_gp *gp = container_of(work, struct vfsb_gp, work);
	struct vfsb_sb *vsb = gp->vsb;

	synchronize_srcu_expedited(&vsb->srcu);
	vfsb_gp_done(gp);
	/* the work item's own reference: it used vsb->srcu outside SRCU */
	vfsb_sb_put(vsb);
}

/*
 * A request over the superblock of fd or, with VFSB_BARRIER_ALL, over
 * every superblock the client watches, holding a tracking reference per
 * superblock and one request reference for the caller.
 */
static struct vfsb_breq *vfsb_breq_alloc(struct vfsb_client *c, int fd,
					 u32 flags)
{
	struct vfsb_watch_ent *e;
	struct vfsb_breq *req;
	struct vfsb_sb *one = NULL;
	unsigned int i = 0, n;

	if (!(flags & VFSB_BARRIER_ALL)) {
		one = vfsb_fd_tracking(fd);
		if (IS_ERR(one))
			return ERR_CAST(one);
	}
	mutex_lock(&c->lock);
	n = one ? 1 : c->nr_watches;
	req = kzalloc(struct_size(req, gps, n), GFP_KERNEL_ACCOUNT);
	if (!req) {
		mutex_unlock(&c->lock);
		if (one)
			vfsb_sb_put(one);
		return ERR_PTR(-ENOMEM);
	}
	if (one) {
		req->gps[i++].vsb = one;
	} else {
		list_for_each_entry(e, &c->watches, node) {
			vfsb_sb_get(e->vsb);
			req->gps[i++].vsb = e->vsb;
		}
	}
	mutex_unlock(&c->lock);

	init_waitqueue_head(&req->wq);
	INIT_LIST_HEAD(&req->node);
	req->nr = n;
	refcount_set(&req->ref, 1);
	return req;
}

/* Starts every grace period of a request; completion may come at once. */
static void vfsb_breq_run(struct vfsb_breq *req, u32 flags)
{
	unsigned int i, n = req->nr;

	refcount_add(n, &req->ref);	/* one per grace period */
	atomic_set(&req->pending, n);
	req->start_ns = ktime_get_ns();
	if (!n)
		vfsb_breq_complete(req);
	for (i = 0; i < n; i++) {
		struct vfsb_gp *gp = &req->gps[i];

		gp->req = req;
		if (flags & VFSB_BARRIER_EXPEDITED) {
			/* keeps its tracking reference until it is done */
			INIT_WORK(&gp->work, vfsb_gp_expedited_work);
			queue_work(vfsb_wq, &gp->work);
		} else {
			call_srcu(&gp->vsb->srcu, &gp->rcu, vfsb_gp_srcu_cb);
			/*
			 * The callback may not sleep, so it cannot drop the
			 * reference; srcu_barrier() in the teardown keeps
			 * the tracking alive for it instead.
			 */
			vfsb_sb_put(gp->vsb);
		}
	}
}

long vfsb_ioc_barrier(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_barrier b;
	struct vfsb_breq *req;
	u64 t0 = ktime_get_ns();
	long ret, left;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	if ((b.flags & ~VFSB_BARRIER_FLAGS) || b.reserved)
		return -EINVAL;
	vfsb_client_new_epoch(c);
	req = vfsb_breq_alloc(c, b.fd, b.flags);
	if (IS_ERR(req))
		return PTR_ERR(req);
	vfsb_breq_run(req, b.flags);
	/*
	 * Interrupted: -ERESTARTSYS, so that a wake-up that delivers no
	 * signal (io_uring's task work sets TIF_NOTIFY_SIGNAL; SIGSTOP and
	 * SIGCONT) restarts the call instead of failing it with -EINTR, and
	 * a handler without SA_RESTART still sees EINTR. A restarted barrier
	 * waits for what is in flight when it restarts, which includes
	 * whatever of the first call's writes is still in flight; its
	 * timeout starts again.
	 */
	if (b.timeout_ms) {
		unsigned long tmo = msecs_to_jiffies(b.timeout_ms);

		left = wait_event_interruptible_timeout(req->wq,
							vfsb_breq_done(req),
							tmo);
		ret = left > 0 ? 0 : left == 0 ? -ETIMEDOUT : -ERESTARTSYS;
	} else {
		ret = wait_event_interruptible(req->wq, vfsb_breq_done(req));
	}
	/* a completion racing with the timeout or signal still counts */
	if (ret && vfsb_breq_done(req))
		ret = 0;
	vfsb_breq_put(req);
	if (ret)
		return ret;
	b.waited_ns = ktime_get_ns() - t0;
	return copy_to_user(arg, &b, sizeof(b)) ? -EFAULT : 0;
}

long vfsb_ioc_barrier_start(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_barrier_start bs;
	struct vfsb_breq *req;

	if (copy_from_user(&bs, arg, sizeof(bs)))
		return -EFAULT;
	if (bs.flags & ~VFSB_BARRIER_ALL)
		return -EINVAL;
	vfsb_client_new_epoch(c);
	req = vfsb_breq_alloc(c, bs.fd, bs.flags);
	if (IS_ERR(req))
		return PTR_ERR(req);

	spin_lock_irq(&c->async_lock);
	if (c->nr_async >= VFSB_MAX_ASYNC) {
		spin_unlock_irq(&c->async_lock);
		/* nothing started: the tracking references go back */
		while (req->nr--)
			vfsb_sb_put(req->gps[req->nr].vsb);
		kfree(req);
		return -EAGAIN;
	}
	c->nr_async++;
	bs.cookie = ++c->next_cookie;
	req->cookie = bs.cookie;
	list_add_tail(&req->node, &c->async);
	spin_unlock_irq(&c->async_lock);
	/* the list owns the caller's reference; req owns one of c */
	refcount_inc(&c->ref);
	req->client = c;
	vfsb_breq_run(req, bs.flags);
	return copy_to_user(arg, &bs, sizeof(bs)) ? -EFAULT : 0;
}

/*
 * The request a poll names: by cookie, or with cookie 0 the first
 * completed one. Called with c->async_lock held.
 */
static struct vfsb_breq *vfsb_async_find(struct vfsb_client *c, u64 cookie)
{
	struct vfsb_breq *req;

	list_for_each_entry(req, &c->async, node)
		if (cookie ? req->cookie == cookie : vfsb_breq_done(req))
			return req;
	return NULL;
}

long vfsb_ioc_barrier_poll(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_barrier_poll bp;
	struct vfsb_breq *req;

	if (copy_from_user(&bp, arg, sizeof(bp)))
		return -EFAULT;
	if (bp.reserved)
		return -EINVAL;
	bp.state = VFSB_BARRIER_PENDING;
	bp.done_cookie = 0;
	spin_lock_irq(&c->async_lock);
	req = vfsb_async_find(c, bp.cookie);
	if (!req && bp.cookie) {
		spin_unlock_irq(&c->async_lock);
		return -ENOENT;	/* unknown, or already reported done */
	}
	if (req && vfsb_breq_done(req)) {
		/* reported done once, then forgotten */
		list_del_init(&req->node);
		c->nr_async--;
		atomic_dec(&c->nr_async_done);
		bp.state = VFSB_BARRIER_DONE;
		bp.done_cookie = req->cookie;
	} else {
		req = NULL;
	}
	spin_unlock_irq(&c->async_lock);
	if (req)
		vfsb_breq_put(req);
	return copy_to_user(arg, &bp, sizeof(bp)) ? -EFAULT : 0;
}

/* Release: forget every async request; pending ones finish on their own. */
void vfsb_client_drop_async(struct vfsb_client *c)
{
	struct vfsb_breq *req, *tmp;
	LIST_HEAD(list);

	spin_lock_irq(&c->async_lock);
	list_splice_init(&c->async, &list);
	c->nr_async = 0;
	spin_unlock_irq(&c->async_lock);
	list_for_each_entry_safe(req, tmp, &list, node) {
		list_del_init(&req->node);
		vfsb_breq_put(req);
	}
}
