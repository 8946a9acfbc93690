// SPDX-License-Identifier: GPL-2.0
/*
 * Per-opener watches: which superblocks this open file of
 * /dev/vfsbarrier tracks, and the stats ioctl over them.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/vfsbarrier.h>

#include "records.h"
#include "vfsb.h"

/* Called with c->lock held. */
static struct vfsb_watch_ent *vfsb_find_ent(struct vfsb_client *c,
					    struct super_block *sb)
{
	struct vfsb_watch_ent *e;

	list_for_each_entry(e, &c->watches, node)
		if (e->vsb->sb == sb && !READ_ONCE(e->vsb->dead))
			return e;
	return NULL;
}

static int vfsb_copy_watch(struct vfsb_watch *w, void __user *arg)
{
	if (copy_from_user(w, arg, sizeof(*w)))
		return -EFAULT;
	if (w->flags || w->reserved)
		return -EINVAL;
	return 0;
}

static struct super_block *vfsb_file_sb(struct file *file)
{
	return file->f_path.dentry->d_sb;
}

long vfsb_ioc_watch(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_watch_ent *e;
	struct vfsb_watch w;
	struct vfsb_sb *vsb;
	struct file *f;
	int ret;

	ret = vfsb_copy_watch(&w, arg);
	if (ret)
		return ret;
	/* O_PATH descriptors are fine: only the superblock matters */
	f = fget_raw(w.fd);
	if (!f)
		return -EBADF;
	/* the fd keeps the superblock alive while we look at it */
	mutex_lock(&c->lock);
	e = vfsb_find_ent(c, vfsb_file_sb(f));
	if (e) {
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
	vsb = vfsb_sb_get_or_create(vfsb_file_sb(f));
	if (IS_ERR(vsb)) {
		kfree(e);
		ret = PTR_ERR(vsb);
		goto out;
	}
	if (c->ring) {
		ret = vfsb_sb_link(vsb, c->ring, &e->link);
		if (ret) {
			vfsb_sb_put(vsb);
			kfree(e);
			goto out;
		}
	}
	atomic_inc(&vsb->watchers);
	e->vsb = vsb;
	list_add_tail(&e->node, &c->watches);
	c->nr_watches++;
	w.dev = new_encode_dev(vsb->dev);
	ret = copy_to_user(arg, &w, sizeof(w)) ? -EFAULT : 0;
out:
	mutex_unlock(&c->lock);
	fput(f);
	return ret;
}

static void vfsb_drop_ent(struct vfsb_client *c, struct vfsb_watch_ent *e)
{
	list_del(&e->node);
	c->nr_watches--;
	if (e->link)
		vfsb_sb_unlink(e->vsb, e->link);
	atomic_dec(&e->vsb->watchers);
	vfsb_sb_put(e->vsb);
	kfree(e);
}

long vfsb_ioc_unwatch(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_watch_ent *e;
	struct vfsb_watch w;
	struct file *f;
	int ret;

	ret = vfsb_copy_watch(&w, arg);
	if (ret)
		return ret;
	/* O_PATH descriptors are fine: only the superblock matters */
	f = fget_raw(w.fd);
	if (!f)
		return -EBADF;
	mutex_lock(&c->lock);
	e = vfsb_find_ent(c, vfsb_file_sb(f));
	if (e) {
		w.dev = new_encode_dev(e->vsb->dev);
		vfsb_drop_ent(c, e);
		ret = copy_to_user(arg, &w, sizeof(w)) ? -EFAULT : 0;
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&c->lock);
	fput(f);
	return ret;
}

/* Drops every watch, including those of unmounted filesystems. */
void vfsb_client_unwatch_all(struct vfsb_client *c)
{
	struct vfsb_watch_ent *e, *tmp;

	mutex_lock(&c->lock);
	list_for_each_entry_safe(e, tmp, &c->watches, node)
		vfsb_drop_ent(c, e);
	mutex_unlock(&c->lock);
}

/*
 * The tracking of the superblock behind fd, if anyone watches it, with a
 * reference for the caller: a barrier may be asked by a process other
 * than the watcher (vbctl barrier while a journal daemon watches).
 */
struct vfsb_sb *vfsb_fd_tracking(int fd)
{
	struct vfsb_sb *vsb;
	struct file *f = fget_raw(fd);

	if (!f)
		return ERR_PTR(-EBADF);
	vsb = vfsb_sb_find_get(vfsb_file_sb(f));
	fput(f);
	return vsb ? vsb : ERR_PTR(-ENOENT);
}

long vfsb_ioc_list(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_list l;
	struct vfsb_watch_ent *e;
	u32 __user *out;
	u32 i = 0;
	long ret = 0;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if (l.capacity && !l.devs_ptr)
		return -EINVAL;
	out = u64_to_user_ptr(l.devs_ptr);
	mutex_lock(&c->lock);
	list_for_each_entry(e, &c->watches, node) {
		if (i < l.capacity && put_user(new_encode_dev(e->vsb->dev), &out[i])) {
			ret = -EFAULT;
			break;
		}
		i++;
	}
	mutex_unlock(&c->lock);
	if (ret)
		return ret;
	l.count = i;
	return copy_to_user(arg, &l, sizeof(l)) ? -EFAULT : 0;
}

static void vfsb_fill_stats(struct vfsb_sb *vsb, struct vfsb_sb_stats *st)
{
	u64 begun, ended;

	memset(st, 0, sizeof(*st));
	vfsb_sb_counts(vsb, &begun, &ended);
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
	if (READ_ONCE(vsb->dead))
		st->flags |= VFSB_STATS_UNMOUNTED;
}

struct vfsb_stats_fill {
	struct vfsb_stats req;
	u8 __user *out;
	u32 i;
};

static int vfsb_stats_one(struct vfsb_sb *vsb, void *arg)
{
	struct vfsb_stats_fill *f = arg;
	struct vfsb_sb_stats st;

	if (f->i < f->req.capacity) {
		vfsb_fill_stats(vsb, &st);
		if (copy_to_user(f->out + (size_t)f->i * sizeof(st), &st,
				 sizeof(st)))
			return -EFAULT;
	}
	f->i++;
	return 0;
}

/* Every tracked superblock, whoever watches it. */
long vfsb_ioc_stats(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_stats_fill f = { };
	long ret;

	if (copy_from_user(&f.req, arg, sizeof(f.req)))
		return -EFAULT;
	if (f.req.reserved || (f.req.capacity && !f.req.entries_ptr))
		return -EINVAL;
	f.out = u64_to_user_ptr(f.req.entries_ptr);
	ret = vfsb_sb_for_each(vfsb_stats_one, &f);
	if (ret)
		return ret;
	f.req.count = f.i;
	f.req.entry_size = sizeof(struct vfsb_sb_stats);
	return copy_to_user(arg, &f.req, sizeof(f.req)) ? -EFAULT : 0;
}

/*
 * Gives this opener a record ring, linked to every superblock it watches
 * now or later. Once per open file.
 */
long vfsb_ioc_subscribe(struct vfsb_client *c, void __user *arg)
{
	struct vfsb_watch_ent *e;
	struct vfsb_subscribe sub;
	struct vfsb_ring *ring;
	long ret = 0;

	if (copy_from_user(&sub, arg, sizeof(sub)))
		return -EFAULT;
	if (sub.reserved || (sub.flags & ~VFSB_SUB_FLAGS) ||
	    (sub.reasons & ~VFSB_R_ALL))
		return -EINVAL;
	mutex_lock(&c->lock);
	if (c->ring) {
		ret = -EBUSY;
		goto out;
	}
	ring = vfsb_ring_alloc(&sub, &c->wq);
	if (IS_ERR(ring)) {
		ret = PTR_ERR(ring);
		goto out;
	}
	list_for_each_entry(e, &c->watches, node) {
		ret = vfsb_sb_link(e->vsb, ring, &e->link);
		if (ret)
			break;
	}
	if (ret) {
		list_for_each_entry(e, &c->watches, node) {
			if (e->link)
				vfsb_sb_unlink(e->vsb, e->link);
			e->link = NULL;
		}
		synchronize_rcu();
		vfsb_ring_free(ring);
		goto out;
	}
	c->journal_id = vfsb_journal_id();
	sub.journal_id = c->journal_id;
	/* published last: read() and poll() look at it without c->lock */
	smp_store_release(&c->ring, ring);
	if (copy_to_user(arg, &sub, sizeof(sub)))
		ret = -EFAULT;	/* subscribed all the same */
out:
	mutex_unlock(&c->lock);
	return ret;
}
