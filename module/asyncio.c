// SPDX-License-Identifier: GPL-2.0
/*
 * Sections of asynchronous writes (io_uring, Linux AIO): they begin at
 * submission and end when the write completes, which may be in another
 * task or in interrupt context. The SRCU index travels in a table keyed
 * by the request's struct kiocb, from a pool allocated at load time.
 *
 * Exactly one of two parties ends each section: the completion hook or,
 * when the submission finished without queueing the write, the
 * submission's return probe. Both take the entry out of the table under
 * the lock first, so the loser finds nothing.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "vfsb.h"

#define VFSB_AIO_HASH_BITS	6
#define VFSB_AIO_POOL		1024

struct vfsb_aio_ent {
	struct hlist_node node;
	const void *key;
	struct vfsb_section s;
};

static struct vfsb_aio_ent *vfsb_aio_pool;
static struct hlist_head vfsb_aio_hash[1 << VFSB_AIO_HASH_BITS];
static HLIST_HEAD(vfsb_aio_free);
static DEFINE_SPINLOCK(vfsb_aio_lock);
static atomic_t vfsb_aio_nr = ATOMIC_INIT(0);

int vfsb_aio_init(void)
{
	int i;

	vfsb_aio_pool = kcalloc(VFSB_AIO_POOL, sizeof(*vfsb_aio_pool),
				GFP_KERNEL);
	if (!vfsb_aio_pool)
		return -ENOMEM;
	for (i = 0; i < VFSB_AIO_POOL; i++)
		hlist_add_head(&vfsb_aio_pool[i].node, &vfsb_aio_free);
	return 0;
}

void vfsb_aio_exit(void)
{
	WARN_ON(atomic_read(&vfsb_aio_nr));
	kfree(vfsb_aio_pool);
	vfsb_aio_pool = NULL;
	INIT_HLIST_HEAD(&vfsb_aio_free);
}

/* Remembers the section of the write behind key; false: pool empty. */
bool vfsb_aio_track(const void *key, const struct vfsb_section *s)
{
	struct vfsb_aio_ent *e = NULL;
	unsigned long flags;

	spin_lock_irqsave(&vfsb_aio_lock, flags);
	if (!hlist_empty(&vfsb_aio_free)) {
		e = hlist_entry(vfsb_aio_free.first, struct vfsb_aio_ent, node);
		hlist_del(&e->node);
		e->key = key;
		e->s = *s;
		hlist_add_head(&e->node,
			       &vfsb_aio_hash[hash_ptr(key, VFSB_AIO_HASH_BITS)]);
		atomic_inc(&vfsb_aio_nr);
	}
	spin_unlock_irqrestore(&vfsb_aio_lock, flags);
	return e;
}

/* Takes the section of the write behind key out of the table, if there. */
bool vfsb_aio_untrack(const void *key, struct vfsb_section *s)
{
	struct vfsb_aio_ent *e;
	unsigned long flags;
	bool found = false;

	/* completions of reads and of unwatched writes: no lock taken */
	if (!atomic_read(&vfsb_aio_nr))
		return false;
	spin_lock_irqsave(&vfsb_aio_lock, flags);
	hlist_for_each_entry(e, &vfsb_aio_hash[hash_ptr(key, VFSB_AIO_HASH_BITS)],
			     node) {
		if (e->key != key)
			continue;
		*s = e->s;
		hlist_del(&e->node);
		hlist_add_head(&e->node, &vfsb_aio_free);
		atomic_dec(&vfsb_aio_nr);
		found = true;
		break;
	}
	spin_unlock_irqrestore(&vfsb_aio_lock, flags);
	return found;
}
