// SPDX-License-Identifier: GPL-2.0
/*
 * The table of watched superblocks and their SRCU write sections.
 *
 * Readers (the write hooks) look a superblock up under RCU and enter its
 * SRCU read-side section before leaving the RCU section, so a teardown
 * that first unhashes, then waits for RCU readers, then for SRCU readers,
 * can never free tracking a section still uses.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "compat.h"
#include "vfsb.h"

#define VFSB_SB_HASH_BITS 8

static DEFINE_HASHTABLE(vfsb_sb_table, VFSB_SB_HASH_BITS);
static DEFINE_MUTEX(vfsb_sb_mutex);	/* table writers */

/* Live trackings: with none (hooks lingering) the hooks pay one load. */
atomic_t vfsb_nr_tracked = ATOMIC_INIT(0);

/* The live tracking of sb; caller in an RCU read-side section. */
struct vfsb_sb *vfsb_sb_lookup_rcu(struct super_block *sb)
{
	struct vfsb_sb *vsb;

	hash_for_each_possible_rcu(vfsb_sb_table, vsb, hnode, (unsigned long)sb)
		if (vsb->sb == sb && !READ_ONCE(vsb->dead))
			return vsb;
	return NULL;
}

bool vfsb_section_begin(struct super_block *sb, struct vfsb_section *s,
			bool async)
{
	struct vfsb_sb *vsb;
	bool ok = false;

	if (!atomic_read(&vfsb_nr_tracked) || !sb)
		return false;
	rcu_read_lock();
	vsb = vfsb_sb_lookup_rcu(sb);
	if (vsb) {
		s->vsb = vsb;
		s->async = async;
		s->idx = async ? vfsb_srcu_down_read(&vsb->srcu) :
				 srcu_read_lock(&vsb->srcu);
		/* for sparse: the section is the caller's now, not ours */
		__release(&vsb->srcu);
		this_cpu_inc(vsb->pcpu->begun);
		ok = true;
	}
	rcu_read_unlock();
	return ok;
}

/* Ends a section begun by vfsb_section_begin(), maybe in another call. */
void vfsb_section_end(const struct vfsb_section *s)
{
	/* for sparse: the section handed out by vfsb_section_begin() */
	__acquire(&s->vsb->srcu);
	/* count first: after the unlock the tracking may be freed */
	this_cpu_inc(s->vsb->pcpu->ended);
	if (s->async)
		vfsb_srcu_up_read(&s->vsb->srcu, s->idx);
	else
		srcu_read_unlock(&s->vsb->srcu, s->idx);
}

/* A write on sb that the hooks could not bracket (no bookkeeping room). */
void vfsb_sb_missed(struct super_block *sb)
{
	struct vfsb_sb *vsb;

	rcu_read_lock();
	vsb = vfsb_sb_lookup_rcu(sb);
	if (vsb)
		atomic64_inc(&vsb->missed);
	rcu_read_unlock();
}

void vfsb_sb_counts(struct vfsb_sb *vsb, u64 *begun, u64 *ended)
{
	int cpu;

	*begun = 0;
	*ended = 0;
	for_each_possible_cpu(cpu) {
		struct vfsb_sb_pcpu *p = per_cpu_ptr(vsb->pcpu, cpu);

		*begun += READ_ONCE(p->begun);
		*ended += READ_ONCE(p->ended);
	}
}

static void vfsb_sb_free_work(struct work_struct *work)
{
	struct vfsb_sb *vsb = container_of(work, struct vfsb_sb, free_work);

	/* no hook is between lookup and srcu_read_lock any more */
	synchronize_rcu();
	/* every section that began has ended ... */
	synchronize_srcu(&vsb->srcu);
	/* ... and every barrier callback queued on it has run */
	srcu_barrier(&vsb->srcu);
	cleanup_srcu_struct(&vsb->srcu);
	free_percpu(vsb->pcpu);
	kfree(vsb);
	vfsb_hooks_put();
	/* taken in vfsb_sb_get_or_create(): rmmod waits for this */
	module_put(THIS_MODULE);
}

struct vfsb_sb *vfsb_sb_get_or_create(struct super_block *sb)
{
	struct vfsb_sb *vsb;
	int ret;

	mutex_lock(&vfsb_sb_mutex);
	hash_for_each_possible(vfsb_sb_table, vsb, hnode, (unsigned long)sb) {
		if (vsb->sb == sb && !vsb->dead) {
			refcount_inc(&vsb->ref);
			goto out;
		}
	}
	vsb = kzalloc(sizeof(*vsb), GFP_KERNEL);
	if (!vsb) {
		vsb = ERR_PTR(-ENOMEM);
		goto out;
	}
	vsb->pcpu = alloc_percpu(struct vfsb_sb_pcpu);
	ret = vsb->pcpu ? init_srcu_struct(&vsb->srcu) : -ENOMEM;
	if (!ret) {
		ret = vfsb_hooks_get();
		if (ret)
			cleanup_srcu_struct(&vsb->srcu);
	}
	if (ret) {
		free_percpu(vsb->pcpu);
		kfree(vsb);
		vsb = ERR_PTR(ret);
		goto out;
	}
	vsb->sb = sb;
	vsb->dev = sb->s_dev;
	strscpy(vsb->fstype, sb->s_type->name, sizeof(vsb->fstype));
	refcount_set(&vsb->ref, 1);
	spin_lock_init(&vsb->subs_lock);
	INIT_LIST_HEAD(&vsb->subs);
	INIT_WORK(&vsb->free_work, vfsb_sb_free_work);
	__module_get(THIS_MODULE);
	hash_add_rcu(vfsb_sb_table, &vsb->hnode, (unsigned long)sb);
	atomic_inc(&vfsb_nr_tracked);
out:
	mutex_unlock(&vfsb_sb_mutex);
	return vsb;
}

/* The live tracking of sb, with a reference, or NULL. */
struct vfsb_sb *vfsb_sb_find_get(struct super_block *sb)
{
	struct vfsb_sb *vsb;

	mutex_lock(&vfsb_sb_mutex);
	hash_for_each_possible(vfsb_sb_table, vsb, hnode, (unsigned long)sb) {
		if (vsb->sb == sb && !vsb->dead) {
			refcount_inc(&vsb->ref);
			goto out;
		}
	}
	vsb = NULL;
out:
	mutex_unlock(&vfsb_sb_mutex);
	return vsb;
}

/* Calls fn on every tracking in the table, in no order, until it fails. */
int vfsb_sb_for_each(int (*fn)(struct vfsb_sb *vsb, void *arg), void *arg)
{
	struct vfsb_sb *vsb;
	int bkt, ret = 0;

	mutex_lock(&vfsb_sb_mutex);
	hash_for_each(vfsb_sb_table, bkt, vsb, hnode) {
		ret = fn(vsb, arg);
		if (ret)
			break;
	}
	mutex_unlock(&vfsb_sb_mutex);
	return ret;
}

/* Puts ring on vsb's subscriber list. */
int vfsb_sb_link(struct vfsb_sb *vsb, struct vfsb_ring *ring,
		 struct vfsb_sub_link **out)
{
	struct vfsb_sub_link *l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);

	if (!l)
		return -ENOMEM;
	l->ring = ring;
	spin_lock(&vsb->subs_lock);
	list_add_tail_rcu(&l->node, &vsb->subs);
	spin_unlock(&vsb->subs_lock);
	*out = l;
	return 0;
}

/* Emitters may still see the link until a grace period has passed. */
void vfsb_sb_unlink(struct vfsb_sb *vsb, struct vfsb_sub_link *l)
{
	spin_lock(&vsb->subs_lock);
	list_del_rcu(&l->node);
	spin_unlock(&vsb->subs_lock);
	kfree_rcu(l, rcu);
}

void vfsb_sb_get(struct vfsb_sb *vsb)
{
	refcount_inc(&vsb->ref);
}

void vfsb_sb_put(struct vfsb_sb *vsb)
{
	might_sleep();
	if (!refcount_dec_and_mutex_lock(&vsb->ref, &vfsb_sb_mutex))
		return;
	WRITE_ONCE(vsb->dead, true);
	hash_del_rcu(&vsb->hnode);
	atomic_dec(&vfsb_nr_tracked);
	mutex_unlock(&vfsb_sb_mutex);
	queue_work(vfsb_wq, &vsb->free_work);
}

/*
 * The superblock is being shut down (called from the hook on
 * generic_shutdown_super(), atomic context): stop beginning sections on
 * it. Sections in flight still end normally; watchers keep their entry
 * (reported as unmounted) until they unwatch or close, so the address
 * may be reused by a new superblock without confusion: lookups skip
 * dead entries.
 */
void vfsb_sb_shutdown(struct super_block *sb)
{
	struct vfsb_sb *vsb;

	rcu_read_lock();
	vsb = vfsb_sb_lookup_rcu(sb);
	if (vsb)
		WRITE_ONCE(vsb->dead, true);
	rcu_read_unlock();
}

/* Module exit: every client is gone, so every tracking is being freed. */
void vfsb_sbtrack_exit(void)
{
	WARN_ON(!hash_empty(vfsb_sb_table));
}
