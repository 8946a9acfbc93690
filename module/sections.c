// SPDX-License-Identifier: GPL-2.0
/*
 * Sections that outlive one function call: mnt_want_write*() opens one,
 * the matching mnt_drop_write*() closes it, in the same task. The SRCU
 * index has to travel between the two, and task_struct has no room for
 * it, so each task that holds such sections borrows a slot from a table
 * allocated at load time: the write path never allocates. When no slot
 * is free the write is not bracketed and counted as missed.
 *
 * Only the owning task touches a claimed slot; claiming is a cmpxchg on
 * the owner pointer. Lookup scans a short window of owner pointers
 * (one cache line) from the task's hash position.
 */
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "vfsb.h"

#define VFSB_SLOT_BITS	10
#define VFSB_SLOTS	BIT(VFSB_SLOT_BITS)
#define VFSB_WINDOW	8
#define VFSB_NEST	8	/* overlayfs nests two; leave room */

struct vfsb_slot {
	unsigned int depth;
	struct vfsb_section held[VFSB_NEST];
};

static struct task_struct **vfsb_slot_owner;
static struct vfsb_slot *vfsb_slots;
static atomic_t vfsb_slots_used = ATOMIC_INIT(0);

int vfsb_taskslots_init(void)
{
	vfsb_slot_owner = kcalloc(VFSB_SLOTS, sizeof(*vfsb_slot_owner),
				  GFP_KERNEL);
	vfsb_slots = kcalloc(VFSB_SLOTS, sizeof(*vfsb_slots), GFP_KERNEL);
	if (!vfsb_slot_owner || !vfsb_slots) {
		vfsb_taskslots_exit();
		return -ENOMEM;
	}
	return 0;
}

void vfsb_taskslots_exit(void)
{
	kfree(vfsb_slot_owner);
	kfree(vfsb_slots);
	vfsb_slot_owner = NULL;
	vfsb_slots = NULL;
}

static unsigned int vfsb_slot_pos(unsigned int i)
{
	return (hash_ptr(current, VFSB_SLOT_BITS) + i) & (VFSB_SLOTS - 1);
}

static struct vfsb_slot *vfsb_slot_find(void)
{
	unsigned int i, pos;

	for (i = 0; i < VFSB_WINDOW; i++) {
		pos = vfsb_slot_pos(i);
		if (READ_ONCE(vfsb_slot_owner[pos]) == current)
			return &vfsb_slots[pos];
	}
	return NULL;
}

static struct vfsb_slot *vfsb_slot_claim(void)
{
	unsigned int i, pos;

	for (i = 0; i < VFSB_WINDOW; i++) {
		pos = vfsb_slot_pos(i);
		if (!READ_ONCE(vfsb_slot_owner[pos]) &&
		    !cmpxchg(&vfsb_slot_owner[pos], NULL, current)) {
			atomic_inc(&vfsb_slots_used);
			vfsb_slots[pos].depth = 0;
			return &vfsb_slots[pos];
		}
	}
	return NULL;
}

static void vfsb_slot_release(struct vfsb_slot *slot)
{
	unsigned int pos = slot - vfsb_slots;

	/* the slot's contents are done with before another task claims it */
	smp_store_release(&vfsb_slot_owner[pos], NULL);
	atomic_dec(&vfsb_slots_used);
}

bool vfsb_task_push(const struct vfsb_section *s)
{
	struct vfsb_slot *slot = vfsb_slot_find();

	if (!slot)
		slot = vfsb_slot_claim();
	if (!slot || slot->depth == VFSB_NEST)
		return false;
	slot->held[slot->depth++] = *s;
	return true;
}

/* Takes the innermost section this task holds on sb, if any. */
bool vfsb_task_pop(struct super_block *sb, struct vfsb_section *s)
{
	struct vfsb_slot *slot;
	int i;

	if (!atomic_read(&vfsb_slots_used))
		return false;
	slot = vfsb_slot_find();
	if (!slot)
		return false;
	for (i = slot->depth - 1; i >= 0; i--) {
		if (slot->held[i].vsb->sb != sb)
			continue;
		*s = slot->held[i];
		for (; i < (int)slot->depth - 1; i++)
			slot->held[i] = slot->held[i + 1];
		if (--slot->depth == 0)
			vfsb_slot_release(slot);
		return true;
	}
	return false;
}
