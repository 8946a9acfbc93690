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
 * timeout_ms == 0 waits without a time limit. A signal ends the wait
 * with -EINTR; a timeout with -ETIMEDOUT. Either way nothing is left
 * behind and the call may be retried.
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

#define VFSB_IOC_GET_VERSION	_IOR(VFSB_IOC_MAGIC, 0x00, struct vfsb_version)
#define VFSB_IOC_WATCH		_IOWR(VFSB_IOC_MAGIC, 0x01, struct vfsb_watch)
#define VFSB_IOC_UNWATCH	_IOWR(VFSB_IOC_MAGIC, 0x02, struct vfsb_watch)
#define VFSB_IOC_LIST		_IOWR(VFSB_IOC_MAGIC, 0x03, struct vfsb_list)
#define VFSB_IOC_BARRIER	_IOWR(VFSB_IOC_MAGIC, 0x04, struct vfsb_barrier)
#define VFSB_IOC_BARRIER_START	_IOWR(VFSB_IOC_MAGIC, 0x05, struct vfsb_barrier_start)
#define VFSB_IOC_BARRIER_POLL	_IOWR(VFSB_IOC_MAGIC, 0x06, struct vfsb_barrier_poll)
#define VFSB_IOC_STATS		_IOWR(VFSB_IOC_MAGIC, 0x07, struct vfsb_stats)

#endif /* _UAPI_LINUX_VFSBARRIER_H */
