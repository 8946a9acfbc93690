// SPDX-License-Identifier: GPL-2.0
/*
 * The table of watched superblocks.
 *
 * Readers (the write hooks) look a superblock up under RCU and enter its
 * SRCU read-side section before leaving the RCU section, so a teardown
 * that first unhashes, then waits for RCU readers, then for SRCU readers,
 * can never free tracking a section still uses. The teardown waits with
 * callbacks (call_rcu(), then call_srcu()), not in a thread: a
 * filesystem whose writers are stuck keeps its tracking, and nothing
 * else, until they finish.
 */

#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "hookreg.h"
#include "tracking.h"
#include "vfsb.h"

#define VFSB_SB_HASH_BITS 8

static DEFINE_HASHTABLE(vfsb_sb_table, VFSB_SB_HASH_BITS);
static DEFINE_MUTEX(vfsb_sb_mutex);	/* table writers */

atomic_t vfsb_nr_tracked = ATOMIC_INIT(0);
unsigned long vfsb_sb_filter;

/* After a tracking left the table; under vfsb_sb_mutex. */
static void vfsb_sb_filter_rebuild(void)
{
	struct vfsb_sb *vsb;
	unsigned long bits = 0;
	int bkt;

	lockdep_assert_held(&vfsb_sb_mutex);
	hash_for_each(vfsb_sb_table, bkt, vsb, hnode)
		bits |= vfsb_sb_filter_bit(vsb->sb);
	WRITE_ONCE(vfsb_sb_filter, bits);
}

struct vfsb_sb *vfsb_tracking_lookup_rcu(struct super_block *sb)
{
	struct vfsb_sb *vsb;

	hash_for_each_possible_rcu(vfsb_sb_table, vsb, hnode, (unsigned long)sb)
		if (vsb->sb == sb && !READ_ONCE(vsb->dead))
			return vsb;
	return NULL;
}

void vfsb_tracking_counts(struct vfsb_sb *vsb, u64 *begun, u64 *ended)
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

/* Last step: every section and SRCU callback is done. */
static void vfsb_tracking_free_work(struct work_struct *work)
{
	struct vfsb_sb *vsb = container_of(work, struct vfsb_sb, free_work);

	/* barrier callbacks queued before the teardown's have all run */
	srcu_barrier(&vsb->srcu);
	cleanup_srcu_struct(&vsb->srcu);
	free_percpu(vsb->pcpu);
	kfree(vsb);
	vfsb_hookreg_put();
	/* taken in vfsb_tracking_get_or_create(): rmmod waits for this */
	module_put(THIS_MODULE);
}

/* Every section that began on it has ended. */
static void vfsb_tracking_srcu_cb(struct rcu_head *rcu)
{
	struct vfsb_sb *vsb = container_of(rcu, struct vfsb_sb, rcu);

	queue_work(vfsb_wq, &vsb->free_work);
}

/* No hook is between lookup and srcu_read_lock() any more. */
static void vfsb_tracking_rcu_cb(struct rcu_head *rcu)
{
	struct vfsb_sb *vsb = container_of(rcu, struct vfsb_sb, rcu);

	call_srcu(&vsb->srcu, &vsb->rcu, vfsb_tracking_srcu_cb);
}

struct vfsb_sb *vfsb_tracking_get_or_create(struct super_block *sb)
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
		ret = vfsb_hookreg_get();
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
	BUILD_BUG_ON(sizeof(vsb->uuid) != sizeof(sb->s_uuid));
	memcpy(vsb->uuid, &sb->s_uuid, sizeof(vsb->uuid));
	strscpy(vsb->fstype, sb->s_type->name, sizeof(vsb->fstype));
	vsb->fh_inline = vfsb_fh_encodes_atomically(sb);
	refcount_set(&vsb->ref, 1);
	spin_lock_init(&vsb->subs_lock);
	INIT_LIST_HEAD(&vsb->subs);
	spin_lock_init(&vsb->exp_lock);
	INIT_LIST_HEAD(&vsb->exp_waiting);
	INIT_WORK(&vsb->free_work, vfsb_tracking_free_work);
	__module_get(THIS_MODULE);
	/* the bit first: hash_add_rcu() publishes with release order */
	WRITE_ONCE(vfsb_sb_filter, vfsb_sb_filter | vfsb_sb_filter_bit(sb));
	hash_add_rcu(vfsb_sb_table, &vsb->hnode, (unsigned long)sb);
	atomic_inc(&vfsb_nr_tracked);
out:
	mutex_unlock(&vfsb_sb_mutex);
	return vsb;
}

/* The live tracking of sb, with a reference, or NULL. */
struct vfsb_sb *vfsb_tracking_find_get(struct super_block *sb)
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

/*
 * Calls fn on every tracking in the table, in no order, until it fails.
 * fn must not sleep long: it holds up watch and close everywhere.
 */
int vfsb_tracking_for_each(int (*fn)(struct vfsb_sb *vsb, void *arg),
			   void *arg)
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

/*
 * Calls fn(vsb, arg) on every live tracking, in no order, inside an RCU
 * read-side section: fn must not sleep. Any context but NMI.
 */
void vfsb_tracking_all_rcu(vfsb_tracking_fn_t fn, u32 arg)
{
	struct vfsb_sb *vsb;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(vfsb_sb_table, bkt, vsb, hnode)
		if (!READ_ONCE(vsb->dead))
			fn(vsb, arg);
	rcu_read_unlock();
}

void vfsb_tracking_get(struct vfsb_sb *vsb)
{
	refcount_inc(&vsb->ref);
}

void vfsb_tracking_put(struct vfsb_sb *vsb)
{
	might_sleep();
	if (!refcount_dec_and_mutex_lock(&vsb->ref, &vfsb_sb_mutex))
		return;
	WRITE_ONCE(vsb->dead, true);
	hash_del_rcu(&vsb->hnode);
	vfsb_sb_filter_rebuild();
	atomic_dec(&vfsb_nr_tracked);
	mutex_unlock(&vfsb_sb_mutex);
	call_rcu(&vsb->rcu, vfsb_tracking_rcu_cb);
}

/*
 * The superblock is being shut down (from the hook on
 * generic_shutdown_super(), atomic context): stop beginning sections on
 * it. Nothing writes to it any more (its last active reference is gone),
 * so nothing is in flight either. Watchers keep their entry (reported as
 * unmounted) until they unwatch or close; lookups skip dead entries, so
 * the address may be reused by a new superblock without confusion.
 */
void vfsb_tracking_shutdown(struct vfsb_sb *vsb)
{
	WRITE_ONCE(vsb->dead, true);
}

/* Module exit: every client is gone, so every tracking has been freed. */
void vfsb_tracking_exit(void)
{
	WARN_ON(!hash_empty(vfsb_sb_table));
}
