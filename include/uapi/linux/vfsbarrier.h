/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vfsbarrier user-space ABI.
 *
 * /dev/vfsbarrier is a misc device (root only). An opener watches
 * superblocks (by an fd of any file on them); every write operation on a
 * watched superblock then runs inside an SRCU read-side section of that
 * superblock. VFSB_IOC_BARRIER waits for every section that began before
 * the call, and never blocks a section that begins after it.
 *
 * All structures have fixed layouts with explicit padding; reserved
 * fields and unknown flags must be zero (the kernel answers -EINVAL).
 */
#ifndef _UAPI_LINUX_VFSBARRIER_H
#define _UAPI_LINUX_VFSBARRIER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define VFSB_DEVICE_PATH	"/dev/vfsbarrier"
#define VFSB_ABI_VERSION	1

/* 0xB7 is not claimed in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define VFSB_IOC_MAGIC		0xB7

/* VFSB_IOC_GET_VERSION: what this module speaks. */
struct vfsb_version {
	__u32 abi_version;	/* out: VFSB_ABI_VERSION */
	__u32 features;		/* out: VFSB_FEAT_* */
	char module_version[32];/* out: NUL-terminated release string */
};

#define VFSB_FEAT_BARRIER	(1U << 0)	/* watch/barrier ioctls work */
#define VFSB_FEAT_ASYNC_BARRIER	(1U << 1)	/* BARRIER_START/POLL work */
#define VFSB_FEAT_RECORDS	(1U << 2)	/* SUBSCRIBE and read() work */

/*
 * VFSB_IOC_WATCH / VFSB_IOC_UNWATCH: fd names any file or directory on
 * the filesystem. dev is returned (the superblock's st_dev, as
 * makedev(major, minor) encoded by the kernel's new_encode_dev()).
 */
struct vfsb_watch {
	__s32 fd;	/* in */
	__u32 flags;	/* in: must be 0 */
	__u32 dev;	/* out */
	__u32 reserved;	/* must be 0 */
};

/*
 * VFSB_IOC_LIST: devs_ptr points to an array of capacity __u32 entries;
 * the kernel fills at most capacity of them and sets count to the number
 * of superblocks this opener watches (which may exceed capacity).
 */
struct vfsb_list {
	__u32 capacity;	/* in */
	__u32 count;	/* out */
	__u64 devs_ptr;	/* in: user pointer to __u32[capacity] */
};

/*
 * VFSB_IOC_BARRIER: wait until every write section on the superblock of
 * fd (or, with VFSB_BARRIER_ALL, on every superblock this opener
 * watches) that began before the call has ended. The superblock of fd
 * must be watched by some opener, not necessarily this one (-ENOENT).
 * timeout_ms == 0 waits without a time limit. A signal whose handler
 * has no SA_RESTART ends the wait with -EINTR (other wake-ups restart
 * the call, its timeout anew); a timeout ends it with -ETIMEDOUT. Either
 * way nothing is left behind and the call may be retried.
 */
struct vfsb_barrier {
	__s32 fd;		/* in: ignored with VFSB_BARRIER_ALL */
	__u32 flags;		/* in: VFSB_BARRIER_* */
	__u32 timeout_ms;	/* in */
	__u32 reserved;		/* must be 0 */
	__u64 waited_ns;	/* out: how long the call waited */
};

#define VFSB_BARRIER_ALL	(1U << 0)	/* every watched superblock */
#define VFSB_BARRIER_EXPEDITED	(1U << 1)	/* lower latency, more CPU */
#define VFSB_BARRIER_FLAGS	(VFSB_BARRIER_ALL | VFSB_BARRIER_EXPEDITED)

/*
 * VFSB_IOC_BARRIER_START: start a barrier and return at once with a
 * cookie. VFSB_IOC_BARRIER_POLL reports whether it has completed; the
 * device is readable for poll() (POLLPRI) while a started barrier of this
 * opener has completed and not yet been polled. Completed cookies are
 * forgotten once polled as done. At most VFSB_MAX_ASYNC barriers may be
 * pending per opener (-EAGAIN beyond).
 */
struct vfsb_barrier_start {
	__s32 fd;		/* in */
	__u32 flags;		/* in: VFSB_BARRIER_ALL only */
	__u64 cookie;		/* out: never 0 */
};

struct vfsb_barrier_poll {
	__u64 cookie;		/* in: 0 = any completed cookie */
	__u32 state;		/* out: VFSB_BARRIER_PENDING or _DONE */
	__u32 reserved;		/* must be 0 */
	__u64 done_cookie;	/* out: the cookie that completed */
};

#define VFSB_BARRIER_PENDING	0
#define VFSB_BARRIER_DONE	1
#define VFSB_MAX_ASYNC		64

/*
 * VFSB_IOC_STATS: counters of every tracked superblock (whoever
 * watches). Same capacity/count protocol as VFSB_IOC_LIST; entry_size is
 * set by the kernel to sizeof(struct vfsb_sb_stats) so that the format
 * may grow at the end.
 */
struct vfsb_sb_stats {
	__u32 dev;
	__u32 watchers;			/* openers watching this superblock */
	__u32 flags;			/* VFSB_STATS_* */
	__u32 reserved;
	char fstype[16];
	__u64 sections_begun;
	__u64 sections_ended;
	__u64 in_flight;		/* begun - ended, at the time of reading */
	__u64 barriers;			/* completed barriers */
	__u64 barrier_wait_ns;		/* total time callers waited */
	__u64 missed;			/* writes the hooks could not bracket */
	__u64 records;			/* records emitted (to any subscriber) */
	__u64 records_lost;		/* dropped on full rings (all reported) */
};

/* The filesystem was unmounted: no new sections; close or unwatch. */
#define VFSB_STATS_UNMOUNTED	(1U << 0)

struct vfsb_stats {
	__u32 capacity;		/* in */
	__u32 count;		/* out */
	__u32 entry_size;	/* out */
	__u32 reserved;		/* must be 0 */
	__u64 entries_ptr;	/* in: user pointer to entries */
};

/*
 * ---- Pre-modify records ----
 *
 * VFSB_IOC_SUBSCRIBE gives this open file a ring of records about the
 * superblocks it watches. Each record is announced inside the write
 * section of its operation and before the change is made, so: read a
 * batch, call VFSB_IOC_BARRIER, and every change the batch announced is
 * complete. read() returns whole records only (a buffer too small for
 * the next one: -EINVAL); poll() reports POLLIN while records wait;
 * O_NONBLOCK gives -EAGAIN. The write path never waits for a reader: a
 * full ring drops records, and the next record read is a
 * VFSB_REC_OVERFLOW telling exactly how many were lost and on which
 * filesystems (rescan those). Nothing is lost silently.
 */
struct vfsb_subscribe {
	__u32 ring_bytes;	/* in: 0 = VFSB_RING_DEFAULT */
	__u32 reasons;		/* in: VFSB_R_* to deliver, 0 = all */
	__u32 flags;		/* in: VFSB_SUB_* */
	__u32 reserved;		/* must be 0 */
	__u64 journal_id;	/* out: identifies this stream (cf. USN journal id) */
};

#define VFSB_RING_MIN		(16U << 10)
#define VFSB_RING_DEFAULT	(1U << 20)
#define VFSB_RING_MAX		(64U << 20)

/*
 * Coalescing: a record whose (parent directory, reasons) this subscriber
 * was already given since its last barrier (its own VFSB_IOC_BARRIER or
 * BARRIER_START: the epoch boundary) is dropped, deliberately and not
 * counted as lost: enough for "which directories changed" journals.
 */
#define VFSB_SUB_COALESCE	(1U << 0)
#define VFSB_SUB_FLAGS		VFSB_SUB_COALESCE

/* Reasons, in the spirit of NTFS USN reasons. */
#define VFSB_R_CREATE		(1U << 0)	/* create, mkdir, mknod, symlink */
#define VFSB_R_DELETE		(1U << 1)	/* unlink, rmdir */
#define VFSB_R_RENAME_FROM	(1U << 2)
#define VFSB_R_RENAME_TO	(1U << 3)
#define VFSB_R_HARDLINK		(1U << 4)
#define VFSB_R_ATTRIB		(1U << 5)	/* chmod, chown, utimes */
#define VFSB_R_TRUNCATE		(1U << 6)
#define VFSB_R_XATTR		(1U << 7)	/* set or remove */
#define VFSB_R_DATA_WRITE	(1U << 8)	/* write & co, fallocate, copy, clone */
#define VFSB_R_MMAP_WRITE	(1U << 9)	/* a shared mapping's page made writable */
#define VFSB_R_ALL		0x3ffU

#define VFSB_REC_CHANGE		1
#define VFSB_REC_OVERFLOW	2

/* Record flags */
#define VFSB_RECF_DIR		(1U << 0)	/* the object is a directory */
#define VFSB_RECF_NO_HANDLE	(1U << 1)	/* fs cannot encode handles here: use ino/gen */
#define VFSB_RECF_EXCHANGE	(1U << 2)	/* RENAME_EXCHANGE: both names swapped */
#define VFSB_RECF_MORE_DEVS	(1U << 3)	/* overflow: more devs than listed */

/*
 * Every record starts with this header; size covers the header and the
 * items that follow it, and is a multiple of 8. header_size lets the
 * header grow: readers skip what they do not know.
 */
struct vfsb_record {
	__u32 size;
	__u16 type;		/* VFSB_REC_* */
	__u16 header_size;	/* sizeof(struct vfsb_record) of the writer */
	__u64 seq;		/* per subscriber, strictly increasing; lost ones count */
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u32 dev;		/* st_dev of the filesystem */
	__u32 reasons;		/* VFSB_R_* */
	__u8 fs_uuid[16];	/* the superblock's s_uuid (zero if it has none) */
	__u64 cookie;		/* pairs RENAME_FROM with RENAME_TO; else 0 */
	__u64 offset;		/* data writes: the byte range */
	__u64 length;
	__u64 lost;		/* VFSB_REC_OVERFLOW: records lost */
	__u64 ino;		/* the object's inode number (0: none yet) */
	__u32 generation;	/* and generation */
	__u32 flags;		/* VFSB_RECF_* */
	__u64 parent_ino;	/* the parent directory's inode number */
	__u32 pid;		/* writer: thread group id, thread id, uid */
	__u32 tid;
	__u32 uid;
	__u32 nr_items;		/* items after the header */
};

/*
 * Items follow the header, each 8-byte aligned: a struct vfsb_rec_item
 * and len bytes of payload.
 *  PARENT_FH, OBJECT_FH: a struct file_handle (handle_bytes, handle_type,
 *     f_handle) as open_by_handle_at() takes it.
 *  NAME: the entry name, no NUL.
 *  DEVS (overflow): __u32 devs of the filesystems that lost records.
 */
struct vfsb_rec_item {
	__u16 type;
	__u16 len;
	__u32 reserved;
};

#define VFSB_ITEM_PARENT_FH	1
#define VFSB_ITEM_OBJECT_FH	2
#define VFSB_ITEM_NAME		3
#define VFSB_ITEM_DEVS		4

/* Walking a record's items (rec points at a whole record). */
#define VFSB_ITEM_ALIGN(len)	(((len) + 7U) & ~7U)
static inline struct vfsb_rec_item *vfsb_rec_first_item(struct vfsb_record *rec)
{
	return (struct vfsb_rec_item *)((char *)rec + rec->header_size);
}

static inline struct vfsb_rec_item *vfsb_rec_next_item(struct vfsb_rec_item *it)
{
	return (struct vfsb_rec_item *)((char *)(it + 1) + VFSB_ITEM_ALIGN(it->len));
}

static inline void *vfsb_item_data(struct vfsb_rec_item *it)
{
	return it + 1;
}

/* The largest record: header, two handles, a name, padding. */
#define VFSB_RECORD_MAX		1024

#define VFSB_IOC_GET_VERSION	_IOR(VFSB_IOC_MAGIC, 0x00, struct vfsb_version)
#define VFSB_IOC_WATCH		_IOWR(VFSB_IOC_MAGIC, 0x01, struct vfsb_watch)
#define VFSB_IOC_UNWATCH	_IOWR(VFSB_IOC_MAGIC, 0x02, struct vfsb_watch)
#define VFSB_IOC_LIST		_IOWR(VFSB_IOC_MAGIC, 0x03, struct vfsb_list)
#define VFSB_IOC_BARRIER	_IOWR(VFSB_IOC_MAGIC, 0x04, struct vfsb_barrier)
#define VFSB_IOC_BARRIER_START	_IOWR(VFSB_IOC_MAGIC, 0x05, struct vfsb_barrier_start)
#define VFSB_IOC_BARRIER_POLL	_IOWR(VFSB_IOC_MAGIC, 0x06, struct vfsb_barrier_poll)
#define VFSB_IOC_STATS		_IOWR(VFSB_IOC_MAGIC, 0x07, struct vfsb_stats)
#define VFSB_IOC_SUBSCRIBE	_IOWR(VFSB_IOC_MAGIC, 0x08, struct vfsb_subscribe)

#endif /* _UAPI_LINUX_VFSBARRIER_H */
