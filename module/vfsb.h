/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vfsbarrier internal interfaces shared by the module's files.
 */
#ifndef VFSB_H
#define VFSB_H

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define VFSB_MODULE_VERSION "0.2.0"

/* Per-CPU section counters: the write path touches only its own CPU's. */
struct vfsb_sb_pcpu {
	u64 begun;
	u64 ended;
};

/*
 * Tracking of one watched superblock. It never pins the superblock: sb
 * is an identity to compare with, dereferenced only while a watcher's fd
 * keeps the filesystem alive. Lifetime: ref counts watches and pending
 * expedited barriers; the last put unhashes it, and a work item waits
 * for its sections and SRCU callbacks before freeing it.
 */
struct vfsb_sb {
	struct hlist_node hnode;	/* vfsb_sb_table, RCU readers */
	struct super_block *sb;
	dev_t dev;
	char fstype[16];
	bool dead;			/* unmounted or unhashed: no new sections */
	refcount_t ref;
	atomic_t watchers;
	struct srcu_struct srcu;
	struct vfsb_sb_pcpu __percpu *pcpu;
	atomic64_t barriers;
	atomic64_t barrier_wait_ns;
	atomic64_t missed;
	atomic64_t records;
	atomic64_t records_lost;
	spinlock_t subs_lock;		/* subs writers */
	struct list_head subs;		/* struct vfsb_sub_link, RCU readers */
	struct work_struct free_work;
};

/* A subscriber's ring on a superblock's list: one per (watch, ring). */
struct vfsb_sub_link {
	struct list_head node;
	struct vfsb_ring *ring;
	struct rcu_head rcu;
};

/*
 * A write section in progress: which SRCU, which index to unlock, and
 * whether it may end in another task or context (async I/O), which
 * needs the SRCU "down/up" flavour without lockdep's same-task rule.
 */
struct vfsb_section {
	struct vfsb_sb *vsb;
	int idx;
	bool async;
};

struct vfsb_ring;

/* One open file of /dev/vfsbarrier. */
struct vfsb_client {
	refcount_t ref;			/* the file + pending async barriers */
	struct mutex lock;		/* watches, async list edits */
	struct list_head watches;	/* struct vfsb_watch_ent */
	unsigned int nr_watches;
	spinlock_t async_lock;		/* async list; taken from SRCU callbacks */
	struct list_head async;		/* struct vfsb_breq */
	unsigned int nr_async;
	atomic_t nr_async_done;		/* completed, not yet polled */
	u64 next_cookie;
	wait_queue_head_t wq;		/* records (POLLIN), barriers (POLLPRI) */
	struct vfsb_ring *ring;		/* set once by VFSB_IOC_SUBSCRIBE */
	u64 journal_id;
};

struct vfsb_watch_ent {
	struct list_head node;
	struct vfsb_sb *vsb;
	struct vfsb_sub_link *link;	/* when the client subscribed */
};

/* An ftrace hook: where, what to call, whether a kernel may lack it. */
struct vfsb_ft_def {
	const char *symbol;
	ftrace_func_t func;
	bool optional;
};

extern const struct vfsb_ft_def vfsb_emit_ft_defs[];
extern const size_t vfsb_emit_ft_count;

#define VFSB_MAX_WATCHES 1024

extern struct workqueue_struct *vfsb_wq;
extern atomic_t vfsb_nr_tracked;

/* sbtrack.c: the table of watched superblocks and their sections. */
struct vfsb_sb *vfsb_sb_get_or_create(struct super_block *sb);
struct vfsb_sb *vfsb_sb_find_get(struct super_block *sb);
struct vfsb_sb *vfsb_sb_lookup_rcu(struct super_block *sb);
int vfsb_sb_link(struct vfsb_sb *vsb, struct vfsb_ring *ring,
		 struct vfsb_sub_link **out);
void vfsb_sb_unlink(struct vfsb_sb *vsb, struct vfsb_sub_link *l);
int vfsb_sb_for_each(int (*fn)(struct vfsb_sb *vsb, void *arg), void *arg);
void vfsb_sb_get(struct vfsb_sb *vsb);
void vfsb_sb_put(struct vfsb_sb *vsb);
void vfsb_sb_shutdown(struct super_block *sb);
bool vfsb_section_begin(struct super_block *sb, struct vfsb_section *s,
			bool async);
void vfsb_section_end(const struct vfsb_section *s);
void vfsb_sb_missed(struct super_block *sb);
void vfsb_sb_counts(struct vfsb_sb *vsb, u64 *begun, u64 *ended);
void vfsb_sbtrack_exit(void);

/* taskslots.c: sections held from mnt_want_write*() to mnt_drop_write*(). */
int vfsb_taskslots_init(void);
void vfsb_taskslots_exit(void);
bool vfsb_task_push(const struct vfsb_section *s);
bool vfsb_task_pop(struct super_block *sb, struct vfsb_section *s);

/* asyncio.c: sections of io_uring and AIO writes, until completion. */
int vfsb_aio_init(void);
void vfsb_aio_exit(void);
bool vfsb_aio_track(const void *key, const struct vfsb_section *s);
bool vfsb_aio_untrack(const void *key, struct vfsb_section *s);

/* hooks.c: the VFS entry points. */
int vfsb_hooks_get(void);
void vfsb_hooks_put(void);
void vfsb_hooks_exit(void);

/* watch.c: per-client watches and stats. */
long vfsb_ioc_watch(struct vfsb_client *c, void __user *arg);
long vfsb_ioc_unwatch(struct vfsb_client *c, void __user *arg);
long vfsb_ioc_list(struct vfsb_client *c, void __user *arg);
long vfsb_ioc_stats(struct vfsb_client *c, void __user *arg);
long vfsb_ioc_subscribe(struct vfsb_client *c, void __user *arg);
struct vfsb_sb *vfsb_fd_tracking(int fd);
void vfsb_client_unwatch_all(struct vfsb_client *c);

/* barrier.c */
long vfsb_ioc_barrier(struct vfsb_client *c, void __user *arg);
long vfsb_ioc_barrier_start(struct vfsb_client *c, void __user *arg);
long vfsb_ioc_barrier_poll(struct vfsb_client *c, void __user *arg);
void vfsb_client_drop_async(struct vfsb_client *c);

/* dev.c */
int vfsb_dev_init(void);
void vfsb_dev_exit(void);
void vfsb_client_put(struct vfsb_client *c);

#endif /* VFSB_H */
