// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl layer: every command's copy-in, validation and copy-out, in
 * one place. Handlers get kernel copies of their structures and call
 * the core (watch.c, barrier.c, tracking.c) with kernel types.
 *
 * Structure sizes: a command's number carries the size of its structure.
 * Each command accepts sizes from its first ABI version's up to any
 * larger one whose bytes beyond what this module knows are zero (-E2BIG
 * otherwise), and writes back only as many bytes as the caller passed:
 * old programs keep working, and new programs can ask an old module.
 */

#include <linux/capability.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/vfsbarrier.h>

#include "barrier.h"
#include "client.h"
#include "hookreg.h"
#include "intent.h"
#include "ioctl.h"
#include "ring.h"
#include "tracking.h"
#include "vfsb.h"
#include "vfsb_trace.h"
#include "watch.h"

/* The most entries one STATS call snapshots (count still says all). */
#define VFSB_STATS_MAX		4096

static long vfsb_ioc_version(struct vfsb_client *c, void *arg)
{
	struct vfsb_version *v = arg;

	v->abi_version = VFSB_ABI_VERSION;
	v->features = VFSB_FEAT_BARRIER | VFSB_FEAT_ASYNC_BARRIER |
		      VFSB_FEAT_RECORDS | VFSB_FEAT_RESCAN |
		      VFSB_FEAT_WATCH_ID | VFSB_FEAT_INTENT |
		      VFSB_FEAT_REFUSE | VFSB_FEAT_CKPT_KEPT |
		      VFSB_FEAT_JOURNAL_COALESCE | VFSB_FEAT_NEW_DIRS;
	strscpy(v->module_version, VFSB_MODULE_VERSION,
		sizeof(v->module_version));
	vfsb_hookreg_coverage(&v->coverage, &v->coverage_known, &v->hooks);
	v->intent_unwaited = vfsb_hookreg_unwaited();
	return 0;
}

/*
 * The superblock of a user's fd, held by the returned file. Pseudo and
 * kernel-internal filesystems (pipes, sockets, anonymous inodes, the
 * shmem mount behind memfd) are not filesystems anyone can watch: every
 * pipe write would pay for the hooks.
 */
static struct file *vfsb_fd_file(int fd, struct super_block **sb)
{
	struct file *f = fget_raw(fd);

	if (!f)
		return ERR_PTR(-EBADF);
	*sb = f->f_path.dentry->d_sb;
	if ((*sb)->s_flags & (SB_NOUSER | SB_KERNMOUNT)) {
		fput(f);
		return ERR_PTR(-EINVAL);
	}
	return f;
}

static long vfsb_ioc_watch(struct vfsb_client *c, void *arg)
{
	struct vfsb_watch *w = arg;
	struct super_block *sb;
	struct file *f;
	int ret;

	if (w->flags || w->id)
		return -EINVAL;
	f = vfsb_fd_file(w->fd, &sb);
	if (IS_ERR(f))
		return PTR_ERR(f);
	/* the fd keeps the superblock alive while we look at it */
	ret = vfsb_watch_add(c, sb, &w->dev, &w->id);
	fput(f);
	return ret;
}

static long vfsb_ioc_unwatch(struct vfsb_client *c, void *arg)
{
	struct vfsb_watch *w = arg;
	struct super_block *sb;
	struct file *f;
	int ret;

	if (w->flags & ~VFSB_UNWATCH_BY_ID)
		return -EINVAL;
	if (w->flags & VFSB_UNWATCH_BY_ID) {
		if (!w->id)
			return -EINVAL;
		return vfsb_watch_remove(c, NULL, w->id, &w->dev);
	}
	if (w->id)
		return -EINVAL;
	f = vfsb_fd_file(w->fd, &sb);
	if (IS_ERR(f))
		return PTR_ERR(f) == -EINVAL ? -ENOENT : PTR_ERR(f);
	ret = vfsb_watch_remove(c, sb, 0, &w->dev);
	fput(f);
	return ret;
}

static long vfsb_ioc_list(struct vfsb_client *c, void *arg)
{
	struct vfsb_list *l = arg;
	u32 cap = min_t(u32, l->capacity, VFSB_MAX_WATCHES);
	u32 *devs = NULL;

	if (l->capacity && !l->devs_ptr)
		return -EINVAL;
	if (cap) {
		devs = kcalloc(cap, sizeof(*devs), GFP_KERNEL);
		if (!devs)
			return -ENOMEM;
	}
	l->count = vfsb_watch_list(c, devs, cap);
	if (cap && copy_to_user(u64_to_user_ptr(l->devs_ptr), devs,
				min(cap, l->count) * sizeof(*devs))) {
		kfree(devs);
		return -EFAULT;
	}
	kfree(devs);
	return 0;
}

/*
 * The trackings a barrier covers, each with a reference: the
 * superblock of fd (watched by anyone: a barrier may be asked by another
 * process than the watcher's), or with VFSB_BARRIER_ALL every
 * superblock this opener watches.
 */
static int vfsb_barrier_targets(struct vfsb_client *c, int fd, u32 flags,
				struct vfsb_sb ***vsbs, unsigned int *n)
{
	struct super_block *sb;
	struct vfsb_sb *vsb;
	struct file *f;

	if (flags & VFSB_BARRIER_ALL)
		return vfsb_watch_collect(c, vsbs, n);
	f = vfsb_fd_file(fd, &sb);
	if (IS_ERR(f))
		return PTR_ERR(f) == -EINVAL ? -ENOENT : PTR_ERR(f);
	vsb = vfsb_tracking_find_get(sb);
	fput(f);
	if (!vsb)
		return -ENOENT;
	*vsbs = kmalloc(sizeof(**vsbs), GFP_KERNEL);
	if (!*vsbs) {
		vfsb_tracking_put(vsb);
		return -ENOMEM;
	}
	(*vsbs)[0] = vsb;
	*n = 1;
	return 0;
}

/* Coalescing starts over at each of the subscriber's own barriers. */
static void vfsb_client_new_epoch(struct vfsb_client *c)
{
	/* pairs with the release in vfsb_subscribe(): a ring set up whole */
	struct vfsb_ring *ring = smp_load_acquire(&c->ring);

	if (ring)
		vfsb_ring_new_epoch(ring);
}

/*
 * What a barrier's trace events name: its filesystem, or 0:0 for
 * VFSB_BARRIER_ALL (any number of them). Read before the barrier takes
 * over the references.
 */
static dev_t vfsb_barrier_dev(struct vfsb_sb **vsbs, unsigned int n,
			      u32 flags)
{
	return (flags & VFSB_BARRIER_ALL) || !n ? 0 : vsbs[0]->dev;
}

static long vfsb_ioc_barrier(struct vfsb_client *c, void *arg)
{
	struct vfsb_barrier *b = arg;
	u64 t0 = ktime_get_ns();
	struct super_block *sb;
	struct vfsb_sb **vsbs;
	struct file *f = NULL;
	unsigned int n;
	dev_t dev;
	u32 left;
	int ret;

	if ((b->flags & ~VFSB_BARRIER_FLAGS) || b->reserved ||
	    ((b->flags & VFSB_BARRIER_FENCE) && (b->flags & VFSB_BARRIER_ALL)))
		return -EINVAL;
	vfsb_client_new_epoch(c);
	ret = vfsb_barrier_targets(c, b->fd, b->flags, &vsbs, &n);
	if (ret)
		return ret;
	dev = vfsb_barrier_dev(vsbs, n, b->flags);
	trace_vfsb_barrier_start(dev, b->flags, n);
	/* a fence reads the superblock: its file keeps it alive */
	if (b->flags & VFSB_BARRIER_FENCE) {
		f = vfsb_fd_file(b->fd, &sb);
		if (IS_ERR(f)) {
			while (n--)
				vfsb_tracking_put(vsbs[n]);
			kfree(vsbs);
			trace_vfsb_barrier_done(dev, b->flags,
						ktime_get_ns() - t0,
						PTR_ERR(f));
			return PTR_ERR(f);
		}
	}
	ret = vfsb_barrier_wait(c, vsbs, n, b->flags, b->timeout_ms);
	if (!ret && f) {
		left = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC);
		left = !b->timeout_ms ? 0 : left < b->timeout_ms ?
		       b->timeout_ms - left : 1;
		ret = vfsb_barrier_fence(sb, left);
	}
	if (f)
		fput(f);
	b->waited_ns = ktime_get_ns() - t0;
	trace_vfsb_barrier_done(dev, b->flags, b->waited_ns, ret);
	return ret;
}

static long vfsb_ioc_barrier_start(struct vfsb_client *c, void *arg)
{
	struct vfsb_barrier_start *bs = arg;
	struct vfsb_sb **vsbs;
	unsigned int n;
	int ret;

	if (bs->flags & ~VFSB_BARRIER_ALL)
		return -EINVAL;
	vfsb_client_new_epoch(c);
	ret = vfsb_barrier_targets(c, bs->fd, bs->flags, &vsbs, &n);
	if (ret)
		return ret;
	return vfsb_barrier_start(c, vsbs, n, bs->flags, &bs->cookie);
}

static long vfsb_ioc_barrier_poll(struct vfsb_client *c, void *arg)
{
	struct vfsb_barrier_poll *bp = arg;

	if (bp->reserved)
		return -EINVAL;
	return vfsb_barrier_poll(c, bp->cookie, &bp->state, &bp->done_cookie);
}

struct vfsb_stats_snap {
	struct vfsb_sb_stats *ent;
	u32 cap;
	u32 n;
};

static void vfsb_fill_stats(struct vfsb_sb *vsb, struct vfsb_sb_stats *st)
{
	u64 begun, ended;

	memset(st, 0, sizeof(*st));
	vfsb_tracking_counts(vsb, &begun, &ended);
	st->dev = new_encode_dev(vsb->dev);
	st->watchers = atomic_read(&vsb->watchers);
	strscpy(st->fstype, vsb->fstype, sizeof(st->fstype));
	st->sections_begun = begun;
	st->sections_ended = ended;
	/* the two sums are not one snapshot: never report a negative */
	st->in_flight = begun > ended ? begun - ended : 0;
	st->barriers = atomic64_read(&vsb->barriers);
	st->barrier_wait_ns = atomic64_read(&vsb->barrier_wait_ns);
	st->missed = atomic64_read(&vsb->missed);
	st->records = atomic64_read(&vsb->records);
	st->records_lost = atomic64_read(&vsb->records_lost);
	st->unfenced = atomic64_read(&vsb->unfenced);
	st->rescans = atomic64_read(&vsb->rescans);
	memcpy(st->fs_uuid, vsb->uuid, sizeof(st->fs_uuid));
	if (READ_ONCE(vsb->dead))
		st->flags |= VFSB_STATS_UNMOUNTED;
}

/* Under the table's mutex: a snapshot only, no user memory touched. */
static int vfsb_stats_one(struct vfsb_sb *vsb, void *arg)
{
	struct vfsb_stats_snap *snap = arg;

	if (snap->n < snap->cap)
		vfsb_fill_stats(vsb, &snap->ent[snap->n]);
	snap->n++;
	return 0;
}

/* Every tracked superblock, whoever watches it. */
static long vfsb_ioc_stats(struct vfsb_client *c, void *arg)
{
	struct vfsb_stats *req = arg;
	struct vfsb_stats_snap snap = { };
	u32 esize = req->entry_size ? req->entry_size : VFSB_STATS_SIZE_V1;
	u8 __user *out = u64_to_user_ptr(req->entries_ptr);
	size_t ksize = sizeof(struct vfsb_sb_stats);
	long ret = 0;
	u32 i;

	if (req->reserved || (req->capacity && !req->entries_ptr) ||
	    esize < VFSB_STATS_SIZE_V1 || esize > PAGE_SIZE || esize % 8)
		return -EINVAL;
	snap.cap = min_t(u32, req->capacity, VFSB_STATS_MAX);
	if (snap.cap) {
		snap.ent = kvcalloc(snap.cap, ksize, GFP_KERNEL);
		if (!snap.ent)
			return -ENOMEM;
	}
	vfsb_tracking_for_each(vfsb_stats_one, &snap);
	for (i = 0; i < min(snap.n, snap.cap); i++) {
		u8 __user *dst = out + (size_t)i * esize;

		if (copy_to_user(dst, &snap.ent[i], min_t(size_t, esize, ksize)) ||
		    (esize > ksize && clear_user(dst + ksize, esize - ksize))) {
			ret = -EFAULT;
			break;
		}
	}
	kvfree(snap.ent);
	req->count = snap.n;
	req->entry_size = esize;
	return ret;
}

static long vfsb_ioc_subscribe(struct vfsb_client *c, void *arg)
{
	struct vfsb_subscribe *sub = arg;

	if ((sub->flags & ~VFSB_SUB_FLAGS) || (sub->reasons & ~VFSB_R_ALL))
		return -EINVAL;
	/* the intent policy means nothing without intent mode */
	if (!(sub->flags & VFSB_SUB_INTENT) &&
	    ((sub->flags & (VFSB_SUB_FAIL_CLOSED | VFSB_SUB_REFUSE_UNWAITED |
			    VFSB_SUB_NEW_DIRS)) ||
	     sub->intent_timeout_ms))
		return -EINVAL;
	/* a writer waits that long at most: bounded, like the wait itself */
	if (sub->intent_timeout_ms > VFSB_INTENT_TIMEOUT_MAX)
		return -EINVAL;
	return vfsb_subscribe(c, sub, &sub->journal_id);
}

/* The intent mode of this opener, or NULL: not an intent subscriber. */
static struct vfsb_intent *vfsb_client_intent(struct vfsb_client *c)
{
	/* c->intent is set before the ring is published */
	return smp_load_acquire(&c->ring) ? c->intent : NULL;
}

static long vfsb_ioc_ack(struct vfsb_client *c, void *arg)
{
	struct vfsb_ack *a = arg;
	struct vfsb_intent *in = vfsb_client_intent(c);

	if (!in)
		return -EINVAL;
	return vfsb_intent_ack(in, a->seq);
}

static long vfsb_ioc_checkpoint(struct vfsb_client *c, void *arg)
{
	struct vfsb_checkpoint *cp = arg;
	struct vfsb_intent *in = vfsb_client_intent(c);
	u64 t0 = ktime_get_ns();
	struct vfsb_breq *req, *done = NULL;
	struct vfsb_sb **vsbs;
	unsigned int n = 0;
	int ret;

	if (!in || cp->flags)
		return -EINVAL;
	/* a call no return hook saw gives its RESCAN to the epoch it closes */
	vfsb_hookreg_check_missed();
	/*
	 * Records announced from here on carry the next epoch; those of
	 * the closed one were announced inside sections that began before
	 * the barrier below, so it waits for every one of their changes.
	 *
	 * A call after one that timed out or was interrupted waits for
	 * that epoch again and closes none, on the same barrier: a kernel
	 * thread that waits for its ack in a helper's wrapper still holds
	 * the section its caller began before (nfsd's fh_want_write()),
	 * which the barrier waits for. Its ack comes between the
	 * subscriber's calls, and the change it retries then is in the
	 * epoch already acked; a new epoch at each call would empty the
	 * set and make it wait again, inside its section, every time
	 * (nfsd stalled for good). A new barrier at each call would wait
	 * for the sections begun since as well: with writers that keep
	 * one open (each waiting for its ack in its wrapper while the
	 * last call waited), it might never complete.
	 */
	mutex_lock(&c->lock);
	if (!c->ckpt_unfinished) {
		c->ckpt_unfinished = vfsb_intent_next_epoch(in);
		vfsb_client_new_epoch(c);
	}
	cp->epoch = c->ckpt_unfinished;
	req = c->ckpt_req;
	if (req)
		vfsb_barrier_get(req);
	mutex_unlock(&c->lock);
	if (!req) {
		ret = vfsb_barrier_targets(c, 0, VFSB_BARRIER_ALL, &vsbs, &n);
		if (ret)
			return ret;
		req = vfsb_barrier_begin(c, vsbs, n, VFSB_BARRIER_ALL);
		if (IS_ERR(req))
			return PTR_ERR(req);
		mutex_lock(&c->lock);
		/* a concurrent call's may be kept already: this one is ours */
		if (!c->ckpt_req && c->ckpt_unfinished == cp->epoch) {
			vfsb_barrier_get(req);
			c->ckpt_req = req;
		}
		mutex_unlock(&c->lock);
	}
	/* as the VFSB_BARRIER_ALL barrier it is (n: 0 when kept) */
	trace_vfsb_barrier_start(0, VFSB_BARRIER_ALL, n);
	ret = vfsb_barrier_wait_for(req, cp->timeout_ms);
	cp->waited_ns = ktime_get_ns() - t0;
	trace_vfsb_barrier_done(0, VFSB_BARRIER_ALL, cp->waited_ns, ret);
	if (!ret) {
		mutex_lock(&c->lock);
		if (c->ckpt_unfinished == cp->epoch)
			c->ckpt_unfinished = 0;
		if (c->ckpt_req == req) {
			c->ckpt_req = NULL;
			done = req;
		}
		mutex_unlock(&c->lock);
		if (done)
			vfsb_barrier_put(done);
	}
	vfsb_barrier_put(req);
	return ret;
}

struct vfsb_ioc {
	unsigned int cmd;		/* this module's number (its size) */
	size_t min_size;		/* the first ABI version's size */
	long (*fn)(struct vfsb_client *c, void *arg);
};

static const struct vfsb_ioc vfsb_iocs[] = {
	{ VFSB_IOC_GET_VERSION, 40, vfsb_ioc_version },
	{ VFSB_IOC_WATCH, 16, vfsb_ioc_watch },
	{ VFSB_IOC_UNWATCH, 16, vfsb_ioc_unwatch },
	{ VFSB_IOC_LIST, 16, vfsb_ioc_list },
	{ VFSB_IOC_BARRIER, 24, vfsb_ioc_barrier },
	{ VFSB_IOC_BARRIER_START, 16, vfsb_ioc_barrier_start },
	{ VFSB_IOC_BARRIER_POLL, 24, vfsb_ioc_barrier_poll },
	{ VFSB_IOC_STATS, 24, vfsb_ioc_stats },
	{ VFSB_IOC_SUBSCRIBE, 24, vfsb_ioc_subscribe },
	{ VFSB_IOC_ACK, 8, vfsb_ioc_ack },
	{ VFSB_IOC_CHECKPOINT, 24, vfsb_ioc_checkpoint },
};

/* The command with cmd's number, or NULL. */
static const struct vfsb_ioc *vfsb_ioc_find(unsigned int cmd)
{
	size_t i;

	if (_IOC_TYPE(cmd) != VFSB_IOC_MAGIC)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(vfsb_iocs); i++)
		if (_IOC_NR(vfsb_iocs[i].cmd) == _IOC_NR(cmd))
			return &vfsb_iocs[i];
	return NULL;
}

/* Large enough for every structure above. */
#define VFSB_IOC_BUF	64

long vfsb_ioctl(struct vfsb_client *c, unsigned int cmd, void __user *uarg)
{
	const struct vfsb_ioc *ioc;
	size_t usize = _IOC_SIZE(cmd), ksize;
	u64 buf[VFSB_IOC_BUF / 8];
	unsigned int dir;
	long ret;
	int err;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ioc = vfsb_ioc_find(cmd);
	if (!ioc)
		return -ENOTTY;
	ksize = _IOC_SIZE(ioc->cmd);
	dir = _IOC_DIR(ioc->cmd);
	/* the right number with a size it never had is another command */
	if (_IOC_DIR(cmd) != dir || usize < ioc->min_size ||
	    (ioc->min_size == ksize && usize != ksize))
		return -ENOTTY;
	BUILD_BUG_ON(sizeof(struct vfsb_version) > VFSB_IOC_BUF);
	/* what the first ABI's callers pass: the new fields only follow */
	BUILD_BUG_ON(offsetof(struct vfsb_version, coverage) != 40);
	BUILD_BUG_ON(offsetof(struct vfsb_sb_stats, unfenced) !=
		     VFSB_STATS_SIZE_V1);
	BUILD_BUG_ON(offsetof(struct vfsb_record, mode) !=
		     VFSB_RECORD_HEADER_V1);
	BUILD_BUG_ON(sizeof(struct vfsb_sb_stats) % 8);
	memset(buf, 0, sizeof(buf));
	if (dir & _IOC_WRITE) {
		err = copy_struct_from_user(buf, ksize, uarg, usize);
		if (err)
			return err;
	}
	/* each handler takes c->lock as it needs: barriers wait unlocked */
	ret = ioc->fn(c, buf);
	if (ret && ret != -ETIMEDOUT && ret != -ERESTARTSYS)
		return ret;
	if (dir & _IOC_READ) {
		if (copy_to_user(uarg, buf, min(usize, ksize)))
			return -EFAULT;
		if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
			return -EFAULT;
	}
	return ret;
}
