/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvfsb: the user-space side of /dev/vfsbarrier, for vbctl, the
 * selftests, the benchmarks and the journal daemon. It wraps the ABI of
 * <linux/vfsbarrier.h> (the only definition of it) and adds nothing the
 * kernel does not say: no caching, no retries behind the caller's back.
 *
 * Conventions: functions return 0 (or a count, a descriptor, a state)
 * on success and -errno on failure; errno itself is not relied on. A
 * "dev" argument is an open descriptor of /dev/vfsbarrier; watches,
 * subscriptions and async barriers belong to that open file and end
 * when it is closed.
 *
 * Static archive (build/lib/libvfsb.a): the programs that use it run in
 * a busybox guest, with no shared libraries.
 */
#ifndef VFSB_LIB_H
#define VFSB_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/vfsbarrier.h>

/* ---- the device (device.c) ---- */

/* Opens /dev/vfsbarrier read-write, close-on-exec, plus extra_flags
   (O_NONBLOCK): the descriptor or -errno. */
int vfsb_open_flags(int extra_flags);
int vfsb_open(void);

/* ioctl() that returns -errno instead of -1. */
int vfsb_ioctl(int dev, unsigned long cmd, void *arg);

int vfsb_get_version(int dev, struct vfsb_version *v);

/* "barrier", "async_barrier", "records"... for VFSB_FEAT_* bit n; NULL
   for a bit this library does not know. */
const char *vfsb_feature_name(unsigned int bit);
/* "namespace", "data"... for VFSB_COV_* bit n; NULL likewise. */
const char *vfsb_coverage_name(unsigned int bit);
/* "off", "live", "lingering" for VFSB_HOOKS_*. */
const char *vfsb_hooks_state_name(__u32 state);

/* The kernel's encoding of st_dev in the ABI (new_encode_dev) as a
   dev_t, for comparing with stat()'s st_dev. */
dev_t vfsb_dev_t(__u32 dev);
/* The device number the kernel gives the filesystem of fd or path (its
   superblock's; st_dev differs on btrfs): 0 or -errno. */
int vfsb_fd_sb_dev(int fd, dev_t *out);
int vfsb_path_sb_dev(const char *path, dev_t *out);

/* ---- the module, from user space (module.c) ---- */

/* $VFSB_KO, or where the test guest keeps it. */
const char *vfsb_module_path(void);
bool vfsb_module_loaded(void);
/* finit_module() of vfsb_module_path(): 0, -EEXIST when loaded. */
int vfsb_module_load(void);
/* The same with module parameters ("name=value ..."). */
int vfsb_module_load_params(const char *params);
/* delete_module(O_NONBLOCK): 0, -EWOULDBLOCK while in use. */
int vfsb_module_unload(void);
/* /sys/module/vfsbarrier/refcnt, -1 when the module is not loaded. */
int vfsb_module_refcnt(void);
/*
 * Teardown runs in the background after the last close (it waits for
 * RCU and SRCU grace periods, then takes the hooks out) and holds module
 * references meanwhile. Waits, at most timeout_ms, until the reference
 * count is n or less; returns the count seen last (-1: not loaded).
 */
int vfsb_module_wait_refcnt(int n, int timeout_ms);
/* devtmpfs creates the node after finit_module() returns: waits, at
   most timeout_ms, until it exists. 0 or -ENOENT. */
int vfsb_wait_device(int timeout_ms);

/* ---- watches (watch.c) ---- */

/* Watch / unwatch the filesystem of fd (any fd on it, O_PATH too);
   *sb_dev (may be NULL) gets its dev in the ABI's encoding. */
int vfsb_watch_fd(int dev, int fd, __u32 *sb_dev);
int vfsb_unwatch_fd(int dev, int fd, __u32 *sb_dev);
/* The same with the watch's id (WATCH: never 0), which also names the
   watch of a filesystem since unmounted (UNWATCH_BY_ID). */
int vfsb_watch_fd_id(int dev, int fd, __u32 *sb_dev, __u32 *id);
int vfsb_unwatch_id(int dev, __u32 id, __u32 *sb_dev);
/* The same by path (opened O_PATH for the call). */
int vfsb_watch_path(int dev, const char *path);
int vfsb_unwatch_path(int dev, const char *path);
/*
 * Every filesystem this open file watches: *devs (malloc'ed, the
 * caller frees it; NULL when none) gets *n entries, however many.
 */
int vfsb_list(int dev, __u32 **devs, unsigned int *n);

/* ---- barriers (barrier.c) ---- */

/*
 * Waits for every write section on fd's filesystem (flags
 * VFSB_BARRIER_*; with VFSB_BARRIER_ALL on every filesystem this open
 * file watches, and fd is ignored) that began before the call.
 * timeout_ms 0: no limit. *waited_ns (may be NULL): how long it waited.
 * -ENOENT: nobody watches it; -ETIMEDOUT; -EINTR.
 */
int vfsb_barrier_fd(int dev, int fd, __u32 flags, __u32 timeout_ms,
		    __u64 *waited_ns);
int vfsb_barrier_path(int dev, const char *path, __u32 flags,
		      __u32 timeout_ms);
/* Starts a barrier (flags: VFSB_BARRIER_ALL or 0); *cookie is never 0. */
int vfsb_barrier_start_fd(int dev, int fd, __u32 flags, __u64 *cookie);
int vfsb_barrier_start_path(int dev, const char *path, __u32 flags,
			    __u64 *cookie);
/* VFSB_BARRIER_PENDING or _DONE for cookie, or -errno (-ENOENT: not
   known, e.g. reported done before). Cookie 0 asks for any completed
   one, then *done_cookie (may be NULL) says which. */
int vfsb_barrier_poll(int dev, __u64 cookie, __u64 *done_cookie);
/*
 * Waits until cookie completes: poll(POLLPRI) on dev, then asks. At
 * most timeout_ms (negative: no limit); 0, -ETIMEDOUT or -errno. Meant
 * for an open file with one barrier pending: another completed cookie,
 * not yet polled, keeps the device readable and makes this spin.
 */
int vfsb_barrier_wait(int dev, __u64 cookie, int timeout_ms);

/* ---- counters (stats.c) ---- */

/*
 * The counters of every tracked filesystem, whoever watches it: *out
 * (malloc'ed, the caller frees it; NULL when none) gets *n entries,
 * all of them (the call grows its buffer as the kernel asks). Entries of
 * a kernel with a larger or smaller entry_size are cut or zero-filled to
 * this library's struct vfsb_sb_stats.
 */
int vfsb_stats(int dev, struct vfsb_sb_stats **out, unsigned int *n);
/* The entry of the mounted (not VFSB_STATS_UNMOUNTED) filesystem with
   this st_dev, or of path's filesystem; -ENOENT when untracked. */
int vfsb_stats_dev(int dev, dev_t st_dev, struct vfsb_sb_stats *out);
int vfsb_stats_path(int dev, const char *path, struct vfsb_sb_stats *out);

/* ---- records (records.c) ---- */

/* VFSB_IOC_SUBSCRIBE; *journal_id may be NULL. */
int vfsb_subscribe(int dev, __u32 ring_bytes, __u32 reasons, __u32 flags,
		   __u64 *journal_id);
/*
 * The record at buf + off when a whole one is there (its size covers
 * the header and stays within len), else NULL. Walk a read()'s worth:
 *	for (off = 0; (r = vfsb_rec_at(buf, n, off)); off += r->size)
 * and off != n afterwards means the buffer held a malformed record.
 */
struct vfsb_record *vfsb_rec_at(void *buf, size_t len, size_t off);
/* The record's first item of this type (VFSB_ITEM_*) that lies wholly
   within the record, or NULL. */
struct vfsb_rec_item *vfsb_rec_item(struct vfsb_record *r, unsigned int type);
/* The NAME item as a C string in buf (cut to sz - 1; "" when none). */
const char *vfsb_rec_name(struct vfsb_record *r, char *buf, size_t sz);
/* open_by_handle_at() of the PARENT_FH or OBJECT_FH item against
   mount_fd (any fd on that filesystem): a descriptor or -errno
   (-ENOENT: no such item). */
int vfsb_rec_open_handle(struct vfsb_record *r, unsigned int type,
			 int mount_fd, int flags);

/* ---- intent mode, for journals (intent.c) ---- */

/*
 * VFSB_IOC_SUBSCRIBE with VFSB_SUB_INTENT | flags (VFSB_SUB_FAIL_CLOSED,
 * VFSB_SUB_COALESCE); timeout_ms 0: the module's default.
 */
int vfsb_subscribe_intent(int dev, __u32 ring_bytes, __u32 flags,
			  __u32 timeout_ms, __u64 *journal_id);
/* Every intent up to seq is durable: writers waiting for them go on. */
int vfsb_ack(int dev, __u64 seq);
/*
 * Closes the current epoch (*closed_epoch, may be NULL: which one) and
 * waits until its changes have finished; then syncfs() makes it
 * durable. -ETIMEDOUT / -EINTR: closed, not yet finished: call again.
 */
int vfsb_checkpoint(int dev, __u32 timeout_ms, __u64 *closed_epoch);

/* ---- reasons (reasons.c) ---- */

/* "create", "delete", ... for VFSB_R_* bit n; NULL beyond the known. */
const char *vfsb_reason_name(unsigned int bit);
/* A comma-separated list of names (any case) into a mask; -EINVAL with
   the first unknown name copied to bad (may be NULL). */
int vfsb_reasons_parse(const char *list, __u32 *mask, char *bad,
		       size_t badsz);
/* "create|rename_to", unknown bits as "bitN", "" for none; returns buf. */
const char *vfsb_reasons_format(__u32 reasons, char *buf, size_t sz);
/* The same for VFSB_RECF_* ("dir|unfenced") and VFSB_RESCAN_* causes. */
const char *vfsb_flags_format(__u32 flags, char *buf, size_t sz);
const char *vfsb_rescan_format(__u32 why, char *buf, size_t sz);

#endif /* VFSB_LIB_H */
