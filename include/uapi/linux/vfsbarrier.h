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
 *
 * Extensible structures: the size of an ioctl's structure is part of its
 * number (_IOC_SIZE). The one marked "extensible" (GET_VERSION) may grow
 * at the end in later ABI versions; the kernel accepts any size from the
 * first version's up and writes back only as many bytes as the caller
 * passed, so any program can learn what a module speaks (fields the
 * kernel did not fill stay as the caller left them: zero them, and check
 * abi_version first). Every other ioctl takes exactly the size of this
 * header's structure (another size is an unknown command: -ENOTTY);
 * STATS sizes its entries separately (entry_size).
 */
#ifndef _UAPI_LINUX_VFSBARRIER_H
#define _UAPI_LINUX_VFSBARRIER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define VFSB_DEVICE_PATH	"/dev/vfsbarrier"
#define VFSB_ABI_VERSION	3

/* 0xB7 is not claimed in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define VFSB_IOC_MAGIC		0xB7

/*
 * VFSB_IOC_GET_VERSION (extensible): what this module speaks, and which
 * write paths its hooks cover right now. The hooks are in place only
 * while some filesystem is watched (and for a few seconds after), so
 * coverage is 0 before the first watch: read it after VFSB_IOC_WATCH. A
 * consumer that needs a path and finds its bit clear in coverage (but
 * set in coverage_known) must not rely on it: io_uring and AIO writes are
 * then still announced, with VFSB_RECF_UNFENCED and a VFSB_REC_RESCAN
 * record, but the other groups' changes (shared-mapping faults, ACLs,
 * file attributes, fs-verity, fscrypt) are not announced at all.
 */
struct vfsb_version {
	__u32 abi_version;	/* out: VFSB_ABI_VERSION */
	__u32 features;		/* out: VFSB_FEAT_* */
	char module_version[32];/* out: NUL-terminated release string */
	/* ABI 2 */
	__u32 coverage;		/* out: VFSB_COV_* whose hooks are live now */
	__u32 coverage_known;	/* out: VFSB_COV_* this module can cover */
	__u32 hooks;		/* out: VFSB_HOOKS_* */
	/*
	 * out: VFSB_COV_* groups where intent mode cannot make a change
	 * wait (another ftrace user, a livepatch or a post_handler kprobe,
	 * holds a hooked function's IPMODIFY): such changes go on unacked
	 * and their filesystem gets a VFSB_RESCAN_INTENT record. Zero in
	 * modules before this field (it was reserved).
	 */
	__u32 intent_unwaited;
};

#define VFSB_FEAT_BARRIER	(1U << 0)	/* watch/barrier ioctls work */
#define VFSB_FEAT_ASYNC_BARRIER	(1U << 1)	/* BARRIER_START/POLL work */
#define VFSB_FEAT_RECORDS	(1U << 2)	/* SUBSCRIBE and read() work */
#define VFSB_FEAT_RESCAN	(1U << 3)	/* RESCAN/UNMOUNT records, UNFENCED */
#define VFSB_FEAT_WATCH_ID	(1U << 4)	/* watch ids, unwatch by id */
#define VFSB_FEAT_INTENT	(1U << 5)	/* SUB_INTENT, ACK, CHECKPOINT */
#define VFSB_FEAT_REFUSE	(1U << 6)	/* SUB_REFUSE_UNWAITED */
#define VFSB_FEAT_CKPT_KEPT	(1U << 7)	/* CHECKPOINT again: same barrier */
#define VFSB_FEAT_JOURNAL_COALESCE (1U << 8)	/* SUB_INTENT|SUB_COALESCE: a journal's */
#define VFSB_FEAT_NEW_DIRS	(1U << 9)	/* SUB_NEW_DIRS */

/* Coverage: groups of write paths, each hooked as a whole or not at all. */
#define VFSB_COV_NAMESPACE	(1U << 0)	/* create..rename, setattr, xattr */
#define VFSB_COV_DATA		(1U << 1)	/* write(2) & co, truncate, fallocate */
#define VFSB_COV_SPLICE		(1U << 2)	/* splice, sendfile, copy_file_range */
#define VFSB_COV_REMAP		(1U << 3)	/* FICLONE*, FIDEDUPERANGE */
#define VFSB_COV_MMAP		(1U << 4)	/* shared mapping write faults */
#define VFSB_COV_IO_URING	(1U << 5)	/* io_uring reads/writes of files */
#define VFSB_COV_AIO		(1U << 6)	/* Linux AIO (io_submit) */
#define VFSB_COV_IOCB		(1U << 7)	/* in-kernel async iocbs (overlayfs) */
#define VFSB_COV_ACL		(1U << 8)	/* POSIX ACLs (set_acl, 6.2+) */
#define VFSB_COV_FILEATTR	(1U << 9)	/* chattr, FS_IOC_FSSETXATTR */
#define VFSB_COV_KERNEL_WRITE	(1U << 10)	/* core dumps, process accounting */
#define VFSB_COV_VERITY		(1U << 11)	/* fs-verity enable */
#define VFSB_COV_FSCRYPT	(1U << 12)	/* fscrypt policy set */

#define VFSB_HOOKS_OFF		0	/* nothing watched: nothing hooked */
#define VFSB_HOOKS_LIVE		1
#define VFSB_HOOKS_LINGERING	2	/* nothing watched, hooks still in */

/*
 * VFSB_IOC_WATCH / VFSB_IOC_UNWATCH: fd names any file or directory on
 * the filesystem. dev is returned (the superblock's st_dev, as
 * makedev(major, minor) encoded by the kernel's new_encode_dev()), and
 * WATCH returns a watch id, unique for this open file, that UNWATCH
 * takes with VFSB_UNWATCH_BY_ID (fd is then ignored): the only way to
 * drop the watch of a filesystem that was unmounted, whose fd cannot be
 * had any more.
 */
struct vfsb_watch {
	__s32 fd;	/* in */
	__u32 flags;	/* in: WATCH 0; UNWATCH VFSB_UNWATCH_BY_ID or 0 */
	__u32 dev;	/* out */
	__u32 id;	/* WATCH: out (never 0); UNWATCH: in with BY_ID, else 0 */
};

#define VFSB_UNWATCH_BY_ID	(1U << 0)

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
 * way nothing is left behind and the call may be retried. Unmounted
 * filesystems have nothing in flight: a barrier over them returns at
 * once. -EAGAIN: this opener has too many barriers pending already
 * (VFSB_MAX_PENDING), mostly ones that timed out on a filesystem whose
 * writers are stuck: retry later. Other openers' barriers do not count.
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
/*
 * Fenced: also wait until every write that was in progress on the
 * filesystem of fd when the call began has finished, including those
 * that began before it was watched (which hold no section): the call
 * returns once the filesystem's freeze-protection counts (every write
 * holds one while it changes anything, async writes until they
 * complete; a writer blocked on a frozen filesystem holds none) are
 * observed zero. Under writes that never pause, that may not happen
 * within timeout_ms (-ETIMEDOUT: call again). What a consumer's first
 * full scan needs: after a fenced barrier that followed the watch,
 * every change the scan could miss is announced. Not with _ALL.
 */
#define VFSB_BARRIER_FENCE	(1U << 2)
#define VFSB_BARRIER_FLAGS	(VFSB_BARRIER_ALL | VFSB_BARRIER_EXPEDITED | \
				 VFSB_BARRIER_FENCE)

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
/* Barriers one opener may have pending, synchronous ones included. */
#define VFSB_MAX_PENDING	256

/*
 * VFSB_IOC_STATS: counters of every tracked superblock (whoever
 * watches). Same capacity/count protocol as VFSB_IOC_LIST. entry_size
 * is the size of the caller's struct vfsb_sb_stats (0: the ABI 1 size,
 * 96 bytes); the kernel writes that many bytes per entry (zeroing what
 * it does not know) and returns the size it wrote, so that the format
 * may grow at the end without overflowing an older caller's array (an
 * ABI 1 module ignores the size asked, and returns its own).
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
	/* ABI 2 */
	__u64 unfenced;			/* changes announced outside a section */
	__u64 rescans;			/* RESCAN records emitted */
	__u8 fs_uuid[16];		/* the superblock's s_uuid */
};

#define VFSB_STATS_SIZE_V1	96

/* The filesystem was unmounted: no new sections; close or unwatch. */
#define VFSB_STATS_UNMOUNTED	(1U << 0)

struct vfsb_stats {
	__u32 capacity;		/* in */
	__u32 count;		/* out */
	__u32 entry_size;	/* in: caller's entry size (0: V1); out: written */
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
 * filesystems (rescan those). Nothing is lost silently: a change the
 * hooks could not bracket (an operation that began before the watch, a
 * return probe that had no free instance, no memory for the section's
 * bookkeeping) is announced with VFSB_RECF_UNFENCED, and a
 * VFSB_REC_RESCAN record names its filesystem.
 */
struct vfsb_subscribe {
	__u32 ring_bytes;	/* in: 0 = VFSB_RING_DEFAULT */
	__u32 reasons;		/* in: VFSB_R_* to deliver, 0 = all */
	__u32 flags;		/* in: VFSB_SUB_* */
	__u32 intent_timeout_ms;/* in: VFSB_SUB_INTENT: 0 = VFSB_INTENT_TIMEOUT */
	__u64 journal_id;	/* out: identifies this stream (cf. USN journal id) */
};

#define VFSB_RING_MIN		(16U << 10)
/* default: as many creates (~190 bytes) as fanotify queues events, 16384 */
#define VFSB_RING_DEFAULT	(4U << 20)
#define VFSB_RING_MAX		(64U << 20)

/*
 * Coalescing: a CHANGE record whose (filesystem, parent directory, its
 * generation, reasons) this subscriber was already given since its last
 * barrier (its own VFSB_IOC_BARRIER or BARRIER_START: the epoch
 * boundary) is dropped, deliberately and not counted as lost: enough for
 * "which directories changed" journals. Other record types are never
 * coalesced.
 *
 * With VFSB_SUB_INTENT (VFSB_FEAT_JOURNAL_COALESCE) it means what a
 * journal can do without instead: a CHANGE record that is not an intent
 * and carries nothing but its directory (no VFSB_RECF_LINKS or
 * VFSB_RECF_UNFENCED, no VFSB_R_HARDLINK, not a directory's rename)
 * merges into the last record stored when that one names the same
 * directory (parent_ino, parent_generation) in the same epoch and no
 * read() has taken it yet; it is not counted as lost and gets no seq.
 * Such a record does not wake the reader either (its change waits for,
 * or had, its directory's intent): it is read with the next record that
 * does, at the next read(), or once the ring is half full. Every other
 * record is delivered as without the flag.
 */
#define VFSB_SUB_COALESCE	(1U << 0)
/*
 * Intent mode (ABI 3), for a journal that must never miss a change: the
 * first change of each directory in each epoch waits, before it changes
 * anything, until this subscriber acknowledges the record that announced
 * it (VFSB_RECF_INTENT) with VFSB_IOC_ACK, after making it durable.
 * Later changes of that directory in the same epoch do not wait. The
 * directory is the parent of a namespace change and the file's parent
 * for data, attribute, xattr and mapping changes. Records carry the
 * epoch; VFSB_IOC_CHECKPOINT starts the next one.
 *
 * Where a writer waits: a system call whose change needs an ack fails
 * inside the kernel before it changes anything, waits at its return to
 * user space, where it holds no lock and no write access, and is then
 * restarted from the beginning (its caller sees one call). A page fault
 * on a shared mapping waits the same way and is retried; one the kernel
 * takes itself waits in place, in the fault, holding no section. Exported
 * helpers that kernel code calls (vfs_fallocate(), clone and dedupe
 * ranges, fs-verity and fscrypt) wait at their entry, kernel threads
 * included. Writes that can do neither (io_uring's passthrough commands,
 * other writes of kernel threads,
 * faults taken by the kernel inside another change, core dumps, a task
 * being killed) go on unacked, and their filesystem gets a
 * VFSB_RESCAN_INTENT record; with VFSB_SUB_REFUSE_UNWAITED they fail
 * instead, before they change anything, with EAGAIN (a fault: EFAULT,
 * or SIGBUS), their intent announced all the same, so that a retry once
 * it is acked goes through: no change is ever made before its intent is
 * durable.
 *
 * An ack that does not come within intent_timeout_ms, or a subscriber
 * that closes, ends the waits by its policy: fail-open (default) lets
 * the write go on, the directory counts as acked for the rest of the
 * epoch and the filesystem gets a RESCAN record (VFSB_RESCAN_INTENT);
 * VFSB_SUB_FAIL_CLOSED fails the system call instead, with ETIMEDOUT
 * (no ack in time) or ENOTCONN (the subscriber closed). A signal ends a
 * user task's wait at once (it is freezable too): the system call is
 * restarted once the signal is dealt with, and waits again; a kernel
 * thread's wait ends on a fatal signal only. intent_timeout_ms is at most
 * VFSB_INTENT_TIMEOUT_MAX. The subscriber's own process never waits. One
 * intent subscriber per filesystem (WATCH: -EBUSY).
 */
#define VFSB_SUB_INTENT		(1U << 1)
#define VFSB_SUB_FAIL_CLOSED	(1U << 2)
#define VFSB_SUB_REFUSE_UNWAITED (1U << 3)
/*
 * With VFSB_SUB_INTENT (VFSB_FEAT_NEW_DIRS): a directory whose inode
 * changed since the epoch began (its ctime: a mkdir made it, a rename
 * moved it, its attributes were set), under a parent whose intent is
 * acked in the epoch, counts as acked for the rest of that epoch, so
 * that the changes made inside it wait for nothing: an untar waits for
 * the directory it starts in, not for each one it makes. Only on
 * filesystems whose ctime is the kernel's realtime clock (ext4, XFS,
 * btrfs, tmpfs), and only while that clock has not been set back by
 * more than a second since the epoch began (a directory so acked then
 * waits again for its next change). A change of a directory's own
 * attributes (mode, owner, times, flags, xattrs, ACLs) is keyed by the
 * directory as well as its parent (its ctime moves, and need not be
 * on disk before what is written inside): the journal stores the
 * directory itself from such a record. The changes inside still
 * come as records (not intents), so a journal that stores each
 * record's directory before it closes the epoch names them; what a
 * crash before that loses is found under the parent's durable intent:
 * the journal's recovery must read whole every subdirectory, of each
 * directory of the epochs left open, whose ctime (or birth time) is in
 * those epochs or after (vbjournald does, with a margin).
 */
#define VFSB_SUB_NEW_DIRS	(1U << 4)
#define VFSB_SUB_FLAGS		(VFSB_SUB_COALESCE | VFSB_SUB_INTENT | \
				 VFSB_SUB_FAIL_CLOSED | \
				 VFSB_SUB_REFUSE_UNWAITED | VFSB_SUB_NEW_DIRS)
#define VFSB_INTENT_TIMEOUT	10000	/* ms */
#define VFSB_INTENT_TIMEOUT_MAX	600000	/* ms: larger is EINVAL */

/* Reasons, in the spirit of NTFS USN reasons. */
#define VFSB_R_CREATE		(1U << 0)	/* create, mkdir, mknod, symlink */
#define VFSB_R_DELETE		(1U << 1)	/* unlink, rmdir, replaced by rename */
#define VFSB_R_RENAME_FROM	(1U << 2)
#define VFSB_R_RENAME_TO	(1U << 3)
#define VFSB_R_HARDLINK		(1U << 4)
#define VFSB_R_ATTRIB		(1U << 5)	/* chmod, chown, utimes, chattr */
#define VFSB_R_TRUNCATE		(1U << 6)
#define VFSB_R_XATTR		(1U << 7)	/* set or remove */
#define VFSB_R_DATA_WRITE	(1U << 8)	/* write & co, fallocate, copy, clone */
#define VFSB_R_MMAP_WRITE	(1U << 9)	/* a shared mapping's page made writable */
#define VFSB_R_ACL		(1U << 10)	/* POSIX ACL set or removed */
#define VFSB_R_ALL		0x7ffU

#define VFSB_REC_CHANGE		1
#define VFSB_REC_OVERFLOW	2
/*
 * RESCAN: changes on filesystem dev may have happened that no CHANGE
 * record announced inside a section (reasons: VFSB_RESCAN_*; lost: how
 * many such events since the last RESCAN record of that filesystem).
 * Treat the filesystem as changed, and do not trust a barrier to have
 * waited for those changes: rescan after the writers settle. (It carries
 * no items today.)
 */
#define VFSB_REC_RESCAN		3
/*
 * UNMOUNT: filesystem dev was unmounted. No record of it follows in this
 * stream; this record's seq is the last that belongs to it. Its watch
 * stays (see VFSB_STATS_UNMOUNTED) until unwatched by id.
 */
#define VFSB_REC_UNMOUNT	4

/* Why a RESCAN (in its reasons field). */
#define VFSB_RESCAN_UNFENCED	(1U << 0)	/* a change announced outside a section */
#define VFSB_RESCAN_NO_MEMORY	(1U << 1)	/* no room to bracket a write */
#define VFSB_RESCAN_NESTING	(1U << 2)	/* sections nested too deep */
#define VFSB_RESCAN_NO_RETURN	(1U << 3)	/* a return hook had no instance */
#define VFSB_RESCAN_NO_HOOK	(1U << 4)	/* a hooked call ran without its hook */
#define VFSB_RESCAN_TEST	(1U << 5)	/* injected by the test knob */
#define VFSB_RESCAN_INTENT	(1U << 6)	/* a change went on without an ack */

/* Record flags */
#define VFSB_RECF_DIR		(1U << 0)	/* the object is a directory */
#define VFSB_RECF_NO_HANDLE	(1U << 1)	/* fs cannot encode handles here: use ino/gen */
#define VFSB_RECF_EXCHANGE	(1U << 2)	/* RENAME_EXCHANGE: both names swapped */
#define VFSB_RECF_MORE_DEVS	(1U << 3)	/* overflow: more devs than listed */
/*
 * The change was announced outside a write section of its filesystem: a
 * barrier does not wait for it (it began before the watch, or its
 * section could not be kept). A RESCAN record follows.
 */
#define VFSB_RECF_UNFENCED	(1U << 4)
/* DELETE of the object a rename replaced at its target name. */
#define VFSB_RECF_REPLACED	(1U << 5)
/* The range runs from offset to the end of the file (length 0). */
#define VFSB_RECF_TO_EOF	(1U << 6)
/* O_APPEND: offset is the file's size when announced; data lands at EOF. */
#define VFSB_RECF_APPEND	(1U << 7)
/* A rename replaced its target and named it (see VFSB_RECF_REPLACED). */
#define VFSB_RECF_OVERWRITE	(1U << 8)
/* Intent mode: the first of its directory in its epoch; ack its seq. */
#define VFSB_RECF_INTENT	(1U << 9)
/*
 * The object (not a directory) has names that parent_ino and the name
 * do not lead to: it has more than one link, or the change came through
 * a name it no longer has (an O_TMPFILE file linked elsewhere, a file
 * unlinked and linked again). parent_ino is then a directory holding one
 * of its current names where the kernel knew one, else the stale one.
 * Identify the object by VFSB_ITEM_OBJECT_FH (or ino and generation) and
 * find its names. In intent mode such a change is keyed by its object:
 * the first change of the object in an epoch is an intent record and
 * waits for its ack, whatever its directory's state.
 */
#define VFSB_RECF_LINKS		(1U << 10)

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
	__u32 reasons;		/* VFSB_R_*; RESCAN: VFSB_RESCAN_* */
	__u8 fs_uuid[16];	/* the superblock's s_uuid (zero if it has none) */
	__u64 cookie;		/* pairs RENAME_FROM with RENAME_TO; else 0 */
	__u64 offset;		/* data writes: the byte range */
	__u64 length;
	__u64 lost;		/* OVERFLOW: records lost; RESCAN: events */
	__u64 ino;		/* the object's inode number (0: none yet) */
	__u32 generation;	/* and generation */
	__u32 flags;		/* VFSB_RECF_* */
	__u64 parent_ino;	/* the parent directory's inode number */
	__u32 pid;		/* writer: thread group id, thread id, uid */
	__u32 tid;
	__u32 uid;
	__u32 nr_items;		/* items after the header */
	/* ABI 2 */
	__u32 mode;		/* fallocate: its mode (FALLOC_FL_*) */
	__u32 parent_generation;/* the parent directory's generation */
	/* ABI 3 */
	__u64 epoch;		/* intent mode: the epoch of the change; else 0 */
};

#define VFSB_RECORD_HEADER_V1	120

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

/*
 * VFSB_IOC_ACK (intent mode): every intent record of this stream up to
 * and including seq is durable; writers waiting for them go on. Acks
 * are cumulative (one ack after a group commit releases all), and a
 * seq beyond the last given out is -EINVAL.
 */
struct vfsb_ack {
	__u64 seq;		/* in */
};

/*
 * VFSB_IOC_CHECKPOINT (intent mode): closes the current epoch and starts
 * the next one (records announced from now on carry it, and each
 * directory's first change in it waits for an ack again), then waits,
 * as VFSB_BARRIER_ALL does, until every change announced in the closed
 * epoch (or before) has finished. epoch: the epoch it closed. Then
 * syncfs() the filesystems and the closed epoch is durable. On
 * -ETIMEDOUT or -EINTR the epoch was closed all the same but its changes
 * may still be in flight: call again (ack what was read in between: a
 * kernel thread may wait for its ack inside a section the barrier waits
 * for); that call closes no other epoch, waits for the same one and
 * returns it. A checkpoint that returns 0 covers every epoch up to the
 * one it closed.
 */
struct vfsb_checkpoint {
	__u32 flags;		/* in: 0 */
	__u32 timeout_ms;	/* in: 0 = no limit */
	__u64 epoch;		/* out: the epoch closed */
	__u64 waited_ns;	/* out */
};

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
#define VFSB_IOC_ACK		_IOW(VFSB_IOC_MAGIC, 0x09, struct vfsb_ack)
#define VFSB_IOC_CHECKPOINT	_IOWR(VFSB_IOC_MAGIC, 0x0a, struct vfsb_checkpoint)

#endif /* _UAPI_LINUX_VFSBARRIER_H */
