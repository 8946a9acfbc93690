// SPDX-License-Identifier: GPL-2.0
/*
 * Write sections, and where each one is kept while it lasts.
 *
 * A section is an SRCU read-side section of a tracked superblock; its
 * index has to reach whoever ends it. Three places keep it:
 *  - the stack of a wrapper that runs the hooked call (hooks.c): exact,
 *    and free of any limit;
 *  - the task that holds it (struct vfsb_task, below), for sections that
 *    outlive one callback: write access (mnt_want_write*() to
 *    mnt_drop_write*()), a call whose return only a return probe sees,
 *    and a call that ends at the task's return to user space (task work);
 *  - the request of an async write (the kiocb), until it completes.
 * Task and async entries are allocated as needed, so no number of
 * writers in flight runs out of room. An allocation can still fail: the
 * write then goes on unbracketed, and every subscriber of its filesystem
 * gets a RESCAN record, never silence.
 *
 * Whatever keeps it, the task that runs the operation is marked as
 * holding a section of that superblock while it runs it: the emission
 * hooks check that mark, so a record announced outside any section is
 * flagged for what it is (VFSB_RECF_UNFENCED).
 */

#include <linux/hash.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <uapi/linux/vfsbarrier.h>

#include "emit.h"
#include "sections.h"
#include "tracking.h"
#include "vfsb_trace.h"

/*
 * Sections one task holds at once: nesting, not load (overlayfs holds
 * two, a rename on overlayfs a few more). Beyond: unbracketed, RESCAN.
 */
#define VFSB_TASK_HELD		16
#define VFSB_TASK_SLOT_BITS	8
#define VFSB_TASK_PROBES	4
/*
 * Entries beyond the slots: test_nomiss holds 10 000 writers at once,
 * nearly all spilled; as many buckets as before the slots keep each
 * list about ten long.
 */
#define VFSB_TASK_HASH_BITS	10
#define VFSB_ASYNC_HASH_BITS	10

/*
 * Test knob: fail the next N allocations of section bookkeeping, so the
 * suite can show what a consumer sees when one fails.
 */
static int fail_alloc;
module_param(fail_alloc, int, 0600);
MODULE_PARM_DESC(fail_alloc, "for tests: fail the next N section allocations");

static bool vfsb_fail_injected(void)
{
	int n = READ_ONCE(fail_alloc);

	while (n > 0) {
		int old = cmpxchg(&fail_alloc, n, n - 1);

		if (old == n)
			return true;
		n = old;
	}
	return false;
}

/* ---- sections ---- */

/* Enters s->vsb's SRCU; the caller is in the RCU section of its lookup. */
static void vfsb_section_enter(struct vfsb_section *s, bool async)
{
	struct vfsb_sb *vsb = s->vsb;

	s->async = async;
	s->idx = async ? vfsb_srcu_down_read(&vsb->srcu) :
			 srcu_read_lock(&vsb->srcu);
	/* for sparse: the section is the caller's now, not ours */
	__release(&vsb->srcu);
	this_cpu_inc(vsb->pcpu->begun);
}

bool vfsb_section_begin(struct super_block *sb, struct vfsb_section *s,
			bool async)
{
	bool ok = false;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	rcu_read_lock();
	s->vsb = vfsb_tracking_lookup_rcu(sb);
	if (s->vsb) {
		vfsb_section_enter(s, async);
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

/*
 * A write on vsb that could not be bracketed: count it, tell everyone.
 * Rare (a failure branch of the write's hook), so it may be traced.
 */
void vfsb_section_missed(struct vfsb_sb *vsb, u32 why)
{
	trace_vfsb_unbracketed(vsb->dev, why);
	atomic64_inc(&vsb->missed);
	vfsb_emit_rescan(vsb, why);
}

/* ---- sections a task holds ---- */

struct vfsb_held {
	struct vfsb_section s;		/* VFSB_HOLD_WANT: none (zero) */
	enum vfsb_hold kind;
	/*
	 * VFSB_HOLD_SUBMIT: the request; VFSB_HOLD_WANT: the superblock;
	 * VFSB_HOLD_SPAN, and VFSB_HOLD_MARK of an async submission seen
	 * by a return hook: the call's return address slot
	 */
	const void *key;
};

struct vfsb_task {
	struct hlist_node node;		/* spilled: bucket, under its lock */
	struct task_struct *task;	/* spilled: immutable while hashed */
	int slot;			/* its slot, or -1: spilled */
	u64 start_time;			/* the task's: a new one at its address */
	/* below: touched by the owning task only */
	unsigned int nr;
	bool work_queued;
	bool work_puts_module;	/* the work drops a module reference */
	struct callback_head work;
	struct vfsb_held held[VFSB_TASK_HELD];
};

/*
 * Where a task finds its entry without a lock: a table of slots, each
 * owned by one task at a time. A task claims a free one among the
 * VFSB_TASK_PROBES slots from the hash of its task_struct on, with
 * cmpxchg(), and frees it with a release store. Only the owner ever
 * stores its own address in a slot, and it clears it before it lets go
 * (its own stores are visible to it in program order), so a task that
 * loads its address from a slot owns that slot, whatever other tasks do
 * to theirs meanwhile: a lookup is a few plain loads, no lock, no RCU.
 * The one exception is a task that exited owning a slot (its entry
 * holds only write access tokens, see vfsb_task_find()): the next task
 * at its address finds it, and being the only task with that address,
 * may free it alone. A slot keeps its entry (allocated at its first
 * use) for its next owner, whose cmpxchg() orders it after the last
 * owner's release: nothing is allocated, freed or cleared per section.
 *
 * When all the probed slots are taken (many tasks at once), the entry
 * is allocated and "spilled" into a hash of lists under bucket locks,
 * where lookups lock: slower, never out of room.
 */
struct vfsb_task_slot {
	struct task_struct *owner;	/* stored by its owner only */
	struct vfsb_task *t;		/* the owner's; kept after it */
} ____cacheline_aligned_in_smp;

static struct vfsb_task_slot vfsb_task_slots[1 << VFSB_TASK_SLOT_BITS];

static struct vfsb_task_bucket {
	spinlock_t lock;		/* head, and hashing of entries */
	struct hlist_head head;
} vfsb_task_hash[1 << VFSB_TASK_HASH_BITS];

static struct kmem_cache *vfsb_task_cache;

/* Entries in use (slotted or spilled), and spilled entries. */
static atomic_t vfsb_nr_tasks = ATOMIC_INIT(0);
static atomic_t vfsb_nr_spilled = ATOMIC_INIT(0);

static struct vfsb_task_slot *vfsb_task_slot(unsigned int h)
{
	return &vfsb_task_slots[h & (ARRAY_SIZE(vfsb_task_slots) - 1)];
}

static struct vfsb_task_bucket *vfsb_task_bucket(void)
{
	return &vfsb_task_hash[hash_ptr(current, VFSB_TASK_HASH_BITS)];
}

/* Whether an entry holds write access tokens only (no section, no work). */
static bool vfsb_task_tokens_only(const struct vfsb_task *t)
{
	unsigned int i;

	if (t->work_queued)
		return false;
	for (i = 0; i < t->nr; i++)
		if (t->held[i].kind != VFSB_HOLD_WANT)
			return false;
	return true;
}

/*
 * Whether t, found at this task's address, was left by a task that
 * exited there: only the tokens of mnt_want_write*() calls that failed
 * after a remount read-only can outlive their task (sections.c's
 * tokens), and the entry is the next task's to free.
 */
static bool vfsb_task_stale(const struct vfsb_task *t)
{
	return t->start_time != current->start_time &&
	       !WARN_ON_ONCE(!vfsb_task_tokens_only(t));
}

static struct vfsb_task *vfsb_task_find_spilled(void)
{
	struct vfsb_task_bucket *b = vfsb_task_bucket();
	struct vfsb_task *t, *stale = NULL;

	spin_lock(&b->lock);
	hlist_for_each_entry(t, &b->head, node)
		if (t->task == current)
			break;
	if (t && vfsb_task_stale(t)) {
		hlist_del(&t->node);
		stale = t;
		t = NULL;
	}
	spin_unlock(&b->lock);
	if (stale) {
		atomic_dec(&vfsb_nr_spilled);
		atomic_dec(&vfsb_nr_tasks);
		kmem_cache_free(vfsb_task_cache, stale);
	}
	return t;
}

/* This task's entry, or NULL. Only the owner adds or removes it. */
static struct vfsb_task *vfsb_task_find(void)
{
	unsigned int h, i;

	if (!atomic_read(&vfsb_nr_tasks))
		return NULL;
	h = hash_ptr(current, VFSB_TASK_SLOT_BITS);
	for (i = 0; i < VFSB_TASK_PROBES; i++) {
		struct vfsb_task_slot *sl = vfsb_task_slot(h + i);

		if (READ_ONCE(sl->owner) != current)
			continue;
		if (likely(!vfsb_task_stale(sl->t)))
			return sl->t;
		atomic_dec(&vfsb_nr_tasks);
		/* frees the slot; the exited task's entry stays for the next */
		smp_store_release(&sl->owner, NULL);
		return NULL;
	}
	return atomic_read(&vfsb_nr_spilled) ? vfsb_task_find_spilled() : NULL;
}

/*
 * Claims a free slot for this task, with its entry: NULL when all the
 * probed slots are taken, ERR_PTR(-ENOMEM) when its first entry cannot
 * be allocated.
 */
static struct vfsb_task *vfsb_task_claim(void)
{
	unsigned int h = hash_ptr(current, VFSB_TASK_SLOT_BITS);
	unsigned int i;

	for (i = 0; i < VFSB_TASK_PROBES; i++) {
		struct vfsb_task_slot *sl = vfsb_task_slot(h + i);

		if (READ_ONCE(sl->owner) || cmpxchg(&sl->owner, NULL, current))
			continue;
		if (!sl->t) {
			sl->t = kmem_cache_alloc(vfsb_task_cache,
						 GFP_NOWAIT | __GFP_NOWARN);
			if (!sl->t) {
				/* orders our store of t (NULL) before */
				smp_store_release(&sl->owner, NULL);
				return ERR_PTR(-ENOMEM);
			}
			sl->t->slot = sl - vfsb_task_slots;
		}
		return sl->t;
	}
	return NULL;
}

static struct vfsb_task *vfsb_task_spill(void)
{
	struct vfsb_task_bucket *b;
	struct vfsb_task *t;

	t = kmem_cache_alloc(vfsb_task_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (!t)
		return NULL;
	t->task = current;
	t->slot = -1;
	b = vfsb_task_bucket();
	spin_lock(&b->lock);
	hlist_add_head(&t->node, &b->head);
	spin_unlock(&b->lock);
	atomic_inc(&vfsb_nr_spilled);
	return t;
}

static struct vfsb_task *vfsb_task_get_or_add(void)
{
	struct vfsb_task *t = vfsb_task_find();

	if (t)
		return t;
	if (vfsb_fail_injected())
		return NULL;
	t = vfsb_task_claim();
	if (!t)
		t = vfsb_task_spill();
	if (IS_ERR_OR_NULL(t))
		return NULL;
	/* held[] is written before it is read; the rest is set here */
	t->start_time = current->start_time;
	t->nr = 0;
	t->work_queued = false;
	t->work_puts_module = false;
	atomic_inc(&vfsb_nr_tasks);
	return t;
}

/* Drops the entry once it holds nothing and no task work is queued. */
static void vfsb_task_put(struct vfsb_task *t)
{
	struct vfsb_task_bucket *b;

	if (t->nr || t->work_queued)
		return;
	atomic_dec(&vfsb_nr_tasks);
	if (t->slot >= 0) {
		/* the slot's next owner takes t as it is now */
		smp_store_release(&vfsb_task_slots[t->slot].owner, NULL);
		return;
	}
	b = vfsb_task_bucket();
	spin_lock(&b->lock);
	hlist_del(&t->node);
	spin_unlock(&b->lock);
	atomic_dec(&vfsb_nr_spilled);
	kmem_cache_free(vfsb_task_cache, t);
}

/* Pushes s on this task's entry, which it returns (or an ERR_PTR). */
static struct vfsb_task *vfsb_task_push(const struct vfsb_section *s,
					enum vfsb_hold kind, const void *key)
{
	struct vfsb_task *t = vfsb_task_get_or_add();

	if (!t)
		return ERR_PTR(-ENOMEM);
	if (t->nr == VFSB_TASK_HELD) {
		vfsb_task_put(t);
		return ERR_PTR(-E2BIG);
	}
	t->held[t->nr].s = *s;
	t->held[t->nr].kind = kind;
	t->held[t->nr].key = key;
	t->nr++;
	return t;
}

/*
 * Keeps section s in this task until vfsb_task_release() of the same
 * kind (ACCESS), vfsb_task_unmark() (MARK). On failure the caller still
 * owns s.
 */
int vfsb_task_hold(const struct vfsb_section *s, enum vfsb_hold kind)
{
	return PTR_ERR_OR_ZERO(vfsb_task_push(s, kind, NULL));
}

static void vfsb_task_drop(struct vfsb_task *t, unsigned int i)
{
	for (; i + 1 < t->nr; i++)
		t->held[i] = t->held[i + 1];
	t->nr--;
}

/* Drops the innermost entry that matches; by pointers only (see below). */
static bool vfsb_task_forget(enum vfsb_hold kind, const struct vfsb_sb *vsb,
			     const void *key)
{
	struct vfsb_task *t = vfsb_task_find();
	int i;

	if (!t)
		return false;
	for (i = t->nr - 1; i >= 0; i--) {
		if (t->held[i].kind == kind &&
		    (key ? t->held[i].key == key :
			   !t->held[i].key && t->held[i].s.vsb == vsb)) {
			vfsb_task_drop(t, i);
			vfsb_task_put(t);
			return true;
		}
	}
	return false;
}

/*
 * Drops the innermost mark of vsb that a wrapper made. By pointer only:
 * a mark owns no section, and the tracking behind it is compared, never
 * read.
 */
void vfsb_task_unmark(const struct vfsb_sb *vsb)
{
	vfsb_task_forget(VFSB_HOLD_MARK, vsb, NULL);
}

/*
 * Marks the task as inside s, whose owner is an async write's request,
 * under key (an async submission's return address slot: spans.c) until
 * vfsb_task_unmark_key(). 0, or the error (nothing held: announcements
 * inside say unfenced).
 */
int vfsb_task_mark(const struct vfsb_section *s, const void *key)
{
	return PTR_ERR_OR_ZERO(vfsb_task_push(s, VFSB_HOLD_MARK, key));
}

/* Drops the mark under key, if it is still there. */
void vfsb_task_unmark_key(const void *key)
{
	vfsb_task_forget(VFSB_HOLD_MARK, NULL, key);
}

/*
 * Whether this task holds nothing: no section of any filesystem, no
 * write access token. A change that waits in place (a write fault the
 * kernel took) may do so only then: once its own section has ended, no
 * barrier waits for it.
 */
bool vfsb_task_holds_none(void)
{
	struct vfsb_task *t = vfsb_task_find();

	return !t || !t->nr;
}

/* Whether this task is inside a section of vsb: may it announce? */
bool vfsb_task_covers(const struct vfsb_sb *vsb)
{
	struct vfsb_task *t = vfsb_task_find();
	unsigned int i;

	if (!t)
		return false;
	for (i = 0; i < t->nr; i++)
		if (t->held[i].s.vsb == vsb)
			return true;
	return false;
}

/*
 * Whether this task is submitting the async write behind key itself
 * (io_submit(), io_uring): not a write nested in another one's
 * submission, like overlayfs' write of its upper file.
 */
bool vfsb_task_submitting(const void *key)
{
	struct vfsb_task *t = vfsb_task_find();
	unsigned int i;

	if (!t)
		return false;
	for (i = 0; i < t->nr; i++)
		if (t->held[i].kind == VFSB_HOLD_SUBMIT && t->held[i].key == key)
			return true;
	return false;
}

/*
 * Return to user space (or task exit; io-wq workers before their next
 * item): the sections of the syscall end, and the tokens of write
 * access that a failed mnt_want_write*() left. A submission still marked here
 * had no return probe instance: whether its write was queued is not
 * known, so its section ends now and its filesystem gets a RESCAN record.
 */
static void vfsb_task_end_held(struct vfsb_task *t)
{
	struct vfsb_section s;
	unsigned int i = 0;

	while (i < t->nr) {
		struct vfsb_held *h = &t->held[i];

		if (h->kind == VFSB_HOLD_SYSCALL) {
			vfsb_section_end(&h->s);
		} else if (h->kind == VFSB_HOLD_WANT) {
			/* a failed mnt_want_write*(): nothing to end */
		} else if (h->kind == VFSB_HOLD_SUBMIT) {
			if (vfsb_async_untrack(h->key, &s, NULL)) {
				vfsb_section_missed(s.vsb, VFSB_RESCAN_NO_RETURN);
				vfsb_section_end(&s);
			}
		} else {
			i++;
			continue;
		}
		vfsb_task_drop(t, i);
	}
}

static void vfsb_task_work_fn(struct callback_head *work)
{
	struct vfsb_task *t = container_of(work, struct vfsb_task, work);
	bool put = t->work_puts_module;

	t->work_queued = false;
	t->work_puts_module = false;
	vfsb_task_end_held(t);
	vfsb_task_put(t);
	/* the last thing it does in this module (see below) */
	if (put)
		module_put(THIS_MODULE);
}

/*
 * The sections that end at the return to user space end now: task work
 * that is about to sleep there (intent.c) runs before ours, and must not
 * keep a barrier waiting meanwhile. Our task work then finds nothing.
 *
 * The caller holds a module reference, and hands it over when this
 * returns true: our task work is still queued, behind the caller's and
 * maybe behind others that sleep (an fput's release), so something must
 * keep the module until it has run; it drops the reference itself.
 */
bool vfsb_task_end_syscall(void)
{
	struct vfsb_task *t = vfsb_task_find();

	if (!t)
		return false;
	vfsb_task_end_held(t);
	if (!t->work_queued || t->work_puts_module)
		return false;
	t->work_puts_module = true;
	return true;
}

static int vfsb_task_arm_work(struct vfsb_task *t)
{
	if (t->work_queued)
		return 0;
	init_task_work(&t->work, vfsb_task_work_fn);
	/* exiting: nothing would run it */
	if (task_work_add(current, &t->work, TWA_RESUME))
		return -ESRCH;
	t->work_queued = true;
	return 0;
}

static u32 vfsb_hold_why(int err)
{
	return err == -E2BIG ? VFSB_RESCAN_NESTING :
	       err == -ESRCH ? VFSB_RESCAN_NO_RETURN : VFSB_RESCAN_NO_MEMORY;
}

/*
 * Pushes s, which ends at the task's return to user space, or at a
 * return probe or the task work after it; arms the task work. On
 * failure the caller still owns s.
 */
static int vfsb_task_push_armed(const struct vfsb_section *s,
				enum vfsb_hold kind, const void *key)
{
	struct vfsb_task *t;
	int ret;

	/*
	 * Kernel threads never return to user space nor run task work,
	 * but on their way out (exit_task_work(), after process
	 * accounting's write in do_exit()).
	 */
	if ((current->flags & (PF_KTHREAD | PF_EXITING)) == PF_KTHREAD)
		return -ESRCH;
	t = vfsb_task_push(s, kind, key);
	if (IS_ERR(t))
		return PTR_ERR(t);
	ret = vfsb_task_arm_work(t);
	if (ret)
		vfsb_task_forget(kind, s->vsb, key);
	return ret;
}

/* ---- write access: mnt_want_write*() to mnt_drop_write*() ---- */

/*
 * Write access tokens a task may hold at once: nesting on one
 * superblock is one or two deep. More are the leftovers of calls that
 * failed (a remount read-only while they began): the oldest goes.
 */
#define VFSB_TASK_WANTS		(VFSB_TASK_HELD / 2)

static void vfsb_task_trim_wants(struct vfsb_task *t)
{
	unsigned int i, n = 0, oldest = 0;

	for (i = t->nr; i-- > 0;) {
		if (t->held[i].kind == VFSB_HOLD_WANT) {
			n++;
			oldest = i;
		}
	}
	if (n >= VFSB_TASK_WANTS)
		vfsb_task_drop(t, oldest);
}

/*
 * mnt_want_write*() on sb, which may be tracked and is not read-only: a
 * token, no section (access may still wait for a frozen filesystem).
 * The first announcement on sb under it opens the section
 * (vfsb_task_take_want()), and mnt_drop_write*() ends it
 * (vfsb_task_drop_access()). No task work is armed for it: queued, it
 * would call into this module after an unload that nothing held off (a
 * writer asleep on a frozen filesystem holds no section, so no module
 * reference). A token that a call failed to use (a remount read-only
 * while it began) holds nothing; it goes with the task's next task work
 * of ours, the oldest when too many are left, the entry at the task's
 * end (vfsb_task_find()) or at unload (vfsb_sections_exit()). When no
 * token can be kept the announcement still finds a section: one until
 * the system call returns, or, for a kernel thread, a RESCAN.
 */
void vfsb_task_want_access(struct super_block *sb)
{
	static const struct vfsb_section none;
	struct vfsb_task *t = vfsb_task_find();

	if (t)
		vfsb_task_trim_wants(t);
	vfsb_task_push(&none, VFSB_HOLD_WANT, sb);
}

/* An announcement on sb opens s: the innermost token of sb becomes it. */
static bool vfsb_task_take_want(struct super_block *sb,
				const struct vfsb_section *s)
{
	struct vfsb_task *t = vfsb_task_find();
	int i;

	if (!t)
		return false;
	for (i = t->nr - 1; i >= 0; i--) {
		struct vfsb_held *h = &t->held[i];

		if (h->kind == VFSB_HOLD_WANT && h->key == sb) {
			h->kind = VFSB_HOLD_ACCESS;
			h->s = *s;
			h->key = NULL;
			return true;
		}
	}
	return false;
}

/*
 * mnt_drop_write*() on sb: the innermost write access of sb goes; true
 * when it had opened a section, now in *s for the caller to end.
 */
bool vfsb_task_drop_access(struct super_block *sb, struct vfsb_section *s)
{
	struct vfsb_task *t = vfsb_task_find();
	int i;

	if (!t)
		return false;
	for (i = t->nr - 1; i >= 0; i--) {
		struct vfsb_held *h = &t->held[i];
		bool open = h->kind == VFSB_HOLD_ACCESS && h->s.vsb->sb == sb;

		if (!open && !(h->kind == VFSB_HOLD_WANT && h->key == sb))
			continue;
		if (open)
			*s = h->s;
		vfsb_task_drop(t, i);
		vfsb_task_put(t);
		return open;
	}
	return false;
}

/*
 * A change is about to be announced on sb: make sure a section of sb
 * covers it. A wrapper or a submission may have opened one already;
 * under write access, one opens now and lasts until mnt_drop_write*()
 * (the innermost token of sb becomes it); else (write(2) and the other
 * syscall paths whose return only a return probe would see; an
 * operation that began before the watch) one opens now and lasts until
 * the syscall returns: at most a few instructions after the change on
 * a syscall path. A kernel thread
 * never returns to user space: its change goes on unbracketed, and its
 * filesystem gets a RESCAN record. Returns whether a section of sb's
 * tracking covers the task now (false: untracked, or not bracketed).
 */
bool vfsb_task_ensure_cover(struct super_block *sb)
{
	struct vfsb_section s;
	bool covered;
	int ret;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	rcu_read_lock();
	s.vsb = vfsb_tracking_lookup_rcu(sb);
	covered = s.vsb && vfsb_task_covers(s.vsb);
	if (s.vsb && !covered)
		vfsb_section_enter(&s, true);
	rcu_read_unlock();
	if (covered || !s.vsb)
		return covered;
	if (vfsb_task_take_want(sb, &s))
		return true;
	ret = vfsb_task_push_armed(&s, VFSB_HOLD_SYSCALL, NULL);
	if (ret) {
		vfsb_section_missed(s.vsb, vfsb_hold_why(ret));
		vfsb_section_end(&s);
		return false;
	}
	return true;
}

/*
 * A change that must not get a section of its own here (an async write
 * whose submission was not hooked) is about to be announced: counted as
 * missed when no section covers it (the announcement says unfenced).
 * Returns whether one does.
 */
bool vfsb_task_check_cover(struct super_block *sb)
{
	struct vfsb_sb *vsb;
	bool covered = false;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	rcu_read_lock();
	vsb = vfsb_tracking_lookup_rcu(sb);
	if (vsb) {
		covered = vfsb_task_covers(vsb);
		if (!covered) {
			trace_vfsb_unbracketed(vsb->dev,
					       VFSB_RESCAN_UNFENCED);
			atomic64_inc(&vsb->missed);
		}
	}
	rcu_read_unlock();
	return covered;
}

/*
 * An async write is being submitted on sb; its completion calls back
 * with key. Its section is kept under key until completion, or until
 * vfsb_task_submit_end() sees it was not queued; meanwhile the task is
 * marked as inside it (announcements are fenced, and not taken for
 * synchronous writes). armed: the submission's end is seen by a return
 * probe, which may have no instance; then the task work ends it. A
 * wrapper, or a return hook whose entry runs only with an instance
 * (spans.c), always sees it, and needs none. Whether the section is
 * kept (else: untracked, or missed and reported here).
 */
bool vfsb_task_submit_begin(struct super_block *sb, const void *key,
			    bool armed)
{
	struct vfsb_section s;
	int ret;

	if (!vfsb_section_begin(sb, &s, true))
		return false;
	ret = vfsb_async_track(key, &s, NULL);
	if (!ret) {
		ret = armed ?
		      vfsb_task_push_armed(&s, VFSB_HOLD_SUBMIT, key) :
		      PTR_ERR_OR_ZERO(vfsb_task_push(&s, VFSB_HOLD_SUBMIT,
						     key));
		if (!ret)
			return true;
		if (!vfsb_async_untrack(key, &s, NULL))
			return false;	/* completed meanwhile: ended */
	}
	vfsb_section_missed(s.vsb, vfsb_hold_why(ret));
	vfsb_section_end(&s);
	return false;
}

/* Whether this task holds the section of the submission behind key. */
bool vfsb_task_submit_held(const void *key)
{
	struct vfsb_task *t = vfsb_task_find();
	int i;

	for (i = t ? t->nr - 1 : -1; i >= 0; i--)
		if (t->held[i].kind == VFSB_HOLD_SUBMIT && t->held[i].key == key)
			return true;
	return false;
}

/* The submission behind key returned; queued: the completion ends it. */
void vfsb_task_submit_end(const void *key, bool queued)
{
	struct vfsb_section s;

	vfsb_task_forget(VFSB_HOLD_SUBMIT, NULL, key);
	if (!queued && vfsb_async_untrack(key, &s, NULL))
		vfsb_section_end(&s);
}

/*
 * A call of a data helper (vfs_fallocate(), vfs_iter_write() and the
 * rest: hooks.c) from its entry to its return, seen by a return hook:
 * its section is kept under key (where the call's return address is on
 * the stack, unique among the calls in progress) until
 * vfsb_task_span_end() of the same key, by the return hook or by the
 * wrapper the call was moved into. Meanwhile the task is inside it
 * (announcements are fenced). Any context the helpers run in; never
 * sleeps. Whether a span was opened: if not, the call is unbracketed
 * (counted and reported here when it was for want of room).
 */
bool vfsb_task_span_begin(struct super_block *sb, const void *key)
{
	struct vfsb_section s;
	int ret;

	if (!vfsb_section_begin(sb, &s, false))
		return false;
	ret = PTR_ERR_OR_ZERO(vfsb_task_push(&s, VFSB_HOLD_SPAN, key));
	if (ret) {
		vfsb_section_missed(s.vsb, vfsb_hold_why(ret));
		vfsb_section_end(&s);
		return false;
	}
	return true;
}

/*
 * The call behind key returned, or went on in a wrapper that brackets
 * it itself: its section ends, if it is still there (the first of the
 * two ends it; the other finds nothing). missed: VFSB_RESCAN_* for its
 * filesystem first, 0 for none.
 */
void vfsb_task_span_end(const void *key, u32 missed)
{
	struct vfsb_task *t = vfsb_task_find();
	struct vfsb_section s;
	int i;

	if (!t)
		return;
	for (i = t->nr - 1; i >= 0; i--) {
		if (t->held[i].kind == VFSB_HOLD_SPAN &&
		    t->held[i].key == key) {
			s = t->held[i].s;
			vfsb_task_drop(t, i);
			vfsb_task_put(t);
			if (missed)
				vfsb_section_missed(s.vsb, missed);
			vfsb_section_end(&s);
			return;
		}
	}
}

/* ---- sections of async writes, by request ---- */

struct vfsb_async_ent {
	struct hlist_node node;
	const void *key;
	struct vfsb_section s;
	void *priv;
};

static struct vfsb_async_bucket {
	spinlock_t lock;	/* taken in completion (irq) context */
	struct hlist_head head;
} vfsb_async_hash[1 << VFSB_ASYNC_HASH_BITS];

static struct kmem_cache *vfsb_async_cache;
static atomic_t vfsb_nr_async = ATOMIC_INIT(0);

static struct vfsb_async_bucket *vfsb_async_bucket(const void *key)
{
	return &vfsb_async_hash[hash_ptr(key, VFSB_ASYNC_HASH_BITS)];
}

/*
 * Keeps the section of the write behind key (its kiocb) until
 * vfsb_async_untrack() by the completion or the submission, whichever
 * ends it: both take the entry out under the lock, so the loser finds
 * nothing. On failure the caller still owns s.
 */
int vfsb_async_track(const void *key, const struct vfsb_section *s, void *priv)
{
	struct vfsb_async_bucket *b = vfsb_async_bucket(key);
	struct vfsb_async_ent *e;
	unsigned long flags;

	if (vfsb_fail_injected())
		return -ENOMEM;
	e = kmem_cache_alloc(vfsb_async_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (!e)
		return -ENOMEM;
	e->key = key;
	e->s = *s;
	e->priv = priv;
	spin_lock_irqsave(&b->lock, flags);
	hlist_add_head(&e->node, &b->head);
	atomic_inc(&vfsb_nr_async);
	spin_unlock_irqrestore(&b->lock, flags);
	return 0;
}

/* Takes the section of the write behind key out of the table, if there. */
bool vfsb_async_untrack(const void *key, struct vfsb_section *s, void **priv)
{
	struct vfsb_async_bucket *b;
	struct vfsb_async_ent *e;
	unsigned long flags;

	/* completions of reads and of unwatched writes: no lock taken */
	if (!atomic_read(&vfsb_nr_async))
		return false;
	b = vfsb_async_bucket(key);
	spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(e, &b->head, node) {
		if (e->key == key) {
			hlist_del(&e->node);
			atomic_dec(&vfsb_nr_async);
			break;
		}
	}
	spin_unlock_irqrestore(&b->lock, flags);
	if (!e)
		return false;
	*s = e->s;
	if (priv)
		*priv = e->priv;
	kmem_cache_free(vfsb_async_cache, e);
	return true;
}

int vfsb_sections_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(vfsb_task_hash); i++) {
		spin_lock_init(&vfsb_task_hash[i].lock);
		INIT_HLIST_HEAD(&vfsb_task_hash[i].head);
	}
	for (i = 0; i < ARRAY_SIZE(vfsb_async_hash); i++) {
		spin_lock_init(&vfsb_async_hash[i].lock);
		INIT_HLIST_HEAD(&vfsb_async_hash[i].head);
	}
	vfsb_task_cache = KMEM_CACHE(vfsb_task, 0);
	vfsb_async_cache = KMEM_CACHE(vfsb_async_ent, 0);
	if (!vfsb_task_cache || !vfsb_async_cache) {
		vfsb_sections_exit();
		return -ENOMEM;
	}
	return 0;
}

/* Module exit: no section is left, so no entry either but tokens. */
void vfsb_sections_exit(void)
{
	struct hlist_node *tmp;
	struct vfsb_task *t;
	int i;

	/*
	 * Leftover tokens (vfsb_task_want_access()): the hooks are out, so
	 * no task touches its entry any more.
	 */
	for (i = 0; i < ARRAY_SIZE(vfsb_task_hash); i++) {
		hlist_for_each_entry_safe(t, tmp, &vfsb_task_hash[i].head,
					  node) {
			if (!vfsb_task_tokens_only(t))
				continue;
			hlist_del(&t->node);
			atomic_dec(&vfsb_nr_spilled);
			atomic_dec(&vfsb_nr_tasks);
			kmem_cache_free(vfsb_task_cache, t);
		}
	}
	for (i = 0; i < ARRAY_SIZE(vfsb_task_slots); i++) {
		struct vfsb_task_slot *sl = &vfsb_task_slots[i];

		if (sl->owner && vfsb_task_tokens_only(sl->t)) {
			sl->owner = NULL;
			atomic_dec(&vfsb_nr_tasks);
		}
		WARN_ON(sl->owner);
		if (sl->t)
			kmem_cache_free(vfsb_task_cache, sl->t);
		sl->t = NULL;
	}
	WARN_ON(atomic_read(&vfsb_nr_tasks) || atomic_read(&vfsb_nr_async));
	kmem_cache_destroy(vfsb_task_cache);
	kmem_cache_destroy(vfsb_async_cache);
}
