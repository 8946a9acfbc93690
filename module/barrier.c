// SPDX-License-Identifier: GPL-2.0
/*
 * Barriers: wait for every write section that began before the call.
 *
 * A barrier request covers one or more superblocks; for each it waits
 * for one SRCU grace period, either with call_srcu() (no thread blocked,
 * completion in the callback) or, expedited, in a round of
 * synchronize_srcu_expedited() run by a work item. Waiting this way
 * rather than in synchronize_srcu() lets the caller time out or take a
 * signal and leave the request to finish on its own: the request is
 * reference-counted, and each pending grace period holds a reference.
 *
 * What one stuck filesystem may cost others: its requests stay pending,
 * counted against the opener that made them (VFSB_MAX_PENDING each:
 * beyond, -EAGAIN), never against another opener; their memory is
 * charged to the opener's memory cgroup. Its expedited barriers share
 * one round at a time, so at most one worker sleeps on it.
 * Non-expedited barriers block no thread at all.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <uapi/linux/vfsbarrier.h>

#include "barrier.h"
#include "client.h"
#include "hookreg.h"
#include "tracking.h"
#include "vfsb.h"

struct vfsb_breq;

struct vfsb_gp {
	struct rcu_head rcu;
	struct list_head exp_node;	/* vsb->exp_waiting */
	struct vfsb_breq *req;
	struct vfsb_sb *vsb;
};

struct vfsb_breq {
	refcount_t ref;
	atomic_t pending;		/* grace periods not yet ended (+1 while starting) */
	u64 start_ns;
	u64 cookie;			/* async only */
	bool async;
	struct vfsb_client *client;	/* holds a reference */
	struct list_head node;		/* client->async */
	wait_queue_head_t wq;		/* the synchronous waiter */
	unsigned int nr;
	struct vfsb_gp gps[];
};

static void vfsb_breq_put(struct vfsb_breq *req)
{
	if (!refcount_dec_and_test(&req->ref))
		return;
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
	struct vfsb_client *c = req->client;

	atomic_dec(&c->nr_pending);
	if (req->async) {
		atomic_inc(&c->nr_async_done);
		wake_up_all(&c->wq);
	} else {
		wake_up_all(&req->wq);
	}
}

static void vfsb_breq_pending_dec(struct vfsb_breq *req)
{
	if (atomic_dec_and_test(&req->pending))
		vfsb_breq_complete(req);
}

/* Any context: SRCU callback (softirq) or work item. */
static void vfsb_gp_done(struct vfsb_gp *gp)
{
	struct vfsb_breq *req = gp->req;

	atomic64_inc(&gp->vsb->barriers);
	atomic64_add(ktime_get_ns() - req->start_ns, &gp->vsb->barrier_wait_ns);
	vfsb_breq_pending_dec(req);
	vfsb_breq_put(req);
}

static void vfsb_gp_srcu_cb(struct rcu_head *rcu)
{
	vfsb_gp_done(container_of(rcu, struct vfsb_gp, rcu));
}

/*
 * Expedited rounds of one superblock: each waits for one expedited grace
 * period and completes every request that was waiting when it began;
 * requests that come meanwhile wait for the next round. The work item
 * holds a tracking reference while rounds remain.
 */
static void vfsb_exp_work(struct work_struct *work)
{
	struct vfsb_sb *vsb = container_of(work, struct vfsb_sb, exp_work);
	struct vfsb_gp *gp, *tmp;
	LIST_HEAD(round);

	spin_lock(&vsb->exp_lock);
	while (!list_empty(&vsb->exp_waiting)) {
		list_splice_init(&vsb->exp_waiting, &round);
		spin_unlock(&vsb->exp_lock);
		synchronize_srcu_expedited(&vsb->srcu);
		list_for_each_entry_safe(gp, tmp, &round, exp_node) {
			list_del(&gp->exp_node);
			vfsb_gp_done(gp);
			/* the request's tracking reference */
			vfsb_tracking_put(vsb);
		}
		spin_lock(&vsb->exp_lock);
	}
	vsb->exp_running = false;
	spin_unlock(&vsb->exp_lock);
	vfsb_tracking_put(vsb);
}

static void vfsb_gp_start_expedited(struct vfsb_gp *gp)
{
	struct vfsb_sb *vsb = gp->vsb;
	bool start;

	spin_lock(&vsb->exp_lock);
	list_add_tail(&gp->exp_node, &vsb->exp_waiting);
	start = !vsb->exp_running;
	vsb->exp_running = true;
	/*
	 * The first round of this tracking: its work item was never
	 * queued, so it can be set up here (the tracking, a lower layer,
	 * knows nothing of barriers).
	 */
	if (start && !vsb->exp_work_ready) {
		INIT_WORK(&vsb->exp_work, vfsb_exp_work);
		vsb->exp_work_ready = true;
	}
	spin_unlock(&vsb->exp_lock);
	if (start) {
		vfsb_tracking_get(vsb);
		queue_work(vfsb_barrier_wq, &vsb->exp_work);
	}
}

/*
 * A request over vsbs[0..n), counted against the client's limit (no
 * module-wide one: one opener's barriers stuck on one filesystem would
 * refuse every other opener's); takes over the tracking references.
 */
static struct vfsb_breq *vfsb_breq_alloc(struct vfsb_client *c,
					 struct vfsb_sb **vsbs, unsigned int n)
{
	struct vfsb_breq *req = NULL;
	unsigned int i;

	/* counted either way: the error path undoes it */
	if (atomic_inc_return(&c->nr_pending) > VFSB_MAX_PENDING) {
		req = ERR_PTR(-EAGAIN);
	} else {
		req = kzalloc(struct_size(req, gps, n), GFP_KERNEL_ACCOUNT);
		if (!req)
			req = ERR_PTR(-ENOMEM);
	}
	if (IS_ERR(req)) {
		atomic_dec(&c->nr_pending);
		for (i = 0; i < n; i++)
			vfsb_tracking_put(vsbs[i]);
		kfree(vsbs);
		return req;
	}
	for (i = 0; i < n; i++)
		req->gps[i].vsb = vsbs[i];
	kfree(vsbs);
	init_waitqueue_head(&req->wq);
	INIT_LIST_HEAD(&req->node);
	req->nr = n;
	refcount_set(&req->ref, 1);
	/* held from here to the end: no grace period has begun yet */
	atomic_set(&req->pending, 1);
	vfsb_client_get(c);
	req->client = c;
	return req;
}

/*
 * Starts every grace period of a request. Until the start's own count
 * is dropped at the end, the request cannot complete, so whoever can
 * see it (a concurrent BARRIER_POLL) never finds it done early.
 */
static void vfsb_breq_run(struct vfsb_breq *req, u32 flags)
{
	unsigned int i;

	req->start_ns = ktime_get_ns();
	for (i = 0; i < req->nr; i++) {
		struct vfsb_gp *gp = &req->gps[i];
		struct vfsb_sb *vsb = gp->vsb;

		gp->req = req;
		/* an unmounted filesystem has no section in flight */
		if (READ_ONCE(vsb->dead)) {
			vfsb_tracking_put(vsb);
			continue;
		}
		refcount_inc(&req->ref);
		atomic_inc(&req->pending);
		if (flags & VFSB_BARRIER_EXPEDITED) {
			/* keeps its tracking reference until its round is done */
			vfsb_gp_start_expedited(gp);
		} else {
			call_srcu(&vsb->srcu, &gp->rcu, vfsb_gp_srcu_cb);
			/*
			 * The callback may not sleep, so it cannot drop the
			 * reference; the teardown's srcu_barrier() keeps the
			 * tracking alive for it instead. gp may be done and
			 * gone by now: vsb was read before.
			 */
			vfsb_tracking_put(vsb);
		}
	}
	vfsb_breq_pending_dec(req);
}

struct vfsb_breq *vfsb_barrier_begin(struct vfsb_client *c,
				     struct vfsb_sb **vsbs, unsigned int n,
				     u32 flags)
{
	struct vfsb_breq *req;

	/* calls no section covered, before the barrier that closes them */
	vfsb_hookreg_check_missed();
	req = vfsb_breq_alloc(c, vsbs, n);
	if (!IS_ERR(req))
		vfsb_breq_run(req, flags);
	return req;
}

void vfsb_barrier_get(struct vfsb_breq *req)
{
	refcount_inc(&req->ref);
}

void vfsb_barrier_put(struct vfsb_breq *req)
{
	vfsb_breq_put(req);
}

int vfsb_barrier_wait_for(struct vfsb_breq *req, u32 timeout_ms)
{
	long left;
	int ret;

	/*
	 * Interrupted: -ERESTARTSYS, so that a wake-up that delivers no
	 * signal (io_uring's task work sets TIF_NOTIFY_SIGNAL; SIGSTOP and
	 * SIGCONT) restarts the call instead of failing it with -EINTR, and
	 * a handler without SA_RESTART still sees EINTR. A restarted barrier
	 * waits for what is in flight when it restarts, which includes
	 * whatever of the first call's writes is still in flight; its
	 * timeout starts again.
	 */
	if (timeout_ms) {
		unsigned long tmo = msecs_to_jiffies(timeout_ms);

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
	return ret;
}

int vfsb_barrier_wait(struct vfsb_client *c, struct vfsb_sb **vsbs,
		      unsigned int n, u32 flags, u32 timeout_ms)
{
	struct vfsb_breq *req = vfsb_barrier_begin(c, vsbs, n, flags);
	int ret;

	if (IS_ERR(req))
		return PTR_ERR(req);
	ret = vfsb_barrier_wait_for(req, timeout_ms);
	vfsb_breq_put(req);
	return ret;
}

int vfsb_barrier_start(struct vfsb_client *c, struct vfsb_sb **vsbs,
		       unsigned int n, u32 flags, u64 *cookie)
{
	struct vfsb_breq *req;

	vfsb_hookreg_check_missed();
	spin_lock_irq(&c->async_lock);
	if (c->nr_async >= VFSB_MAX_ASYNC) {
		spin_unlock_irq(&c->async_lock);
		while (n--)
			vfsb_tracking_put(vsbs[n]);
		kfree(vsbs);
		return -EAGAIN;
	}
	c->nr_async++;
	spin_unlock_irq(&c->async_lock);
	req = vfsb_breq_alloc(c, vsbs, n);
	if (IS_ERR(req)) {
		spin_lock_irq(&c->async_lock);
		c->nr_async--;
		spin_unlock_irq(&c->async_lock);
		return PTR_ERR(req);
	}
	req->async = true;
	spin_lock_irq(&c->async_lock);
	*cookie = ++c->next_cookie;
	req->cookie = *cookie;
	/* the list owns the caller's reference */
	list_add_tail(&req->node, &c->async);
	spin_unlock_irq(&c->async_lock);
	vfsb_breq_run(req, flags);
	return 0;
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

int vfsb_barrier_poll(struct vfsb_client *c, u64 cookie, u32 *state,
		      u64 *done_cookie)
{
	struct vfsb_breq *req;

	*state = VFSB_BARRIER_PENDING;
	*done_cookie = 0;
	spin_lock_irq(&c->async_lock);
	req = vfsb_async_find(c, cookie);
	if (!req && cookie) {
		spin_unlock_irq(&c->async_lock);
		return -ENOENT;	/* unknown, or already reported done */
	}
	if (req && vfsb_breq_done(req)) {
		/* reported done once, then forgotten */
		list_del_init(&req->node);
		c->nr_async--;
		atomic_dec(&c->nr_async_done);
		*state = VFSB_BARRIER_DONE;
		*done_cookie = req->cookie;
	} else {
		req = NULL;
	}
	spin_unlock_irq(&c->async_lock);
	if (req)
		vfsb_breq_put(req);
	return 0;
}

/*
 * Release: forget every async request and the checkpoint's (no ioctl
 * runs any more); pending ones finish on their own.
 */
void vfsb_barrier_drop_client(struct vfsb_client *c)
{
	struct vfsb_breq *req, *tmp;
	LIST_HEAD(list);

	/* it holds a reference to c: the cycle ends here */
	if (c->ckpt_req) {
		vfsb_breq_put(c->ckpt_req);
		c->ckpt_req = NULL;
	}

	spin_lock_irq(&c->async_lock);
	list_splice_init(&c->async, &list);
	c->nr_async = 0;
	spin_unlock_irq(&c->async_lock);
	list_for_each_entry_safe(req, tmp, &list, node) {
		list_del_init(&req->node);
		vfsb_breq_put(req);
	}
}

/*
 * A fence: returns once every write that held sb's freeze protection
 * when it was called has dropped it, i.e. once the counts are seen at
 * zero. A second look, a grace period later, must agree: a count taken
 * and dropped between the reads of two CPUs can hide one that stays,
 * and would have to happen again, exactly so, in the second look.
 * Polled with a growing delay (1 ms to 64 ms); no writer waits for it.
 */
int vfsb_barrier_fence(struct super_block *sb, u32 timeout_ms)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	unsigned int delay = 1;

	for (;;) {
		if (!vfsb_sb_writers_busy(sb)) {
			synchronize_rcu();
			if (!vfsb_sb_writers_busy(sb))
				return 0;
		}
		if (timeout_ms && time_after(jiffies, deadline))
			return -ETIMEDOUT;
		if (msleep_interruptible(delay))
			return -ERESTARTSYS;
		delay = min(delay * 2, 64U);
	}
}
