/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Restart without a gap (fdstore.c). A subscription belongs to the open
 * /dev/vfsbarrier file, not to the process: the daemon hands its
 * descriptor to the service manager's file descriptor store (systemd,
 * FileDescriptorStoreMax=, sd_pid_notify_with_fds() "FDSTORE=1"), and
 * the next vbjournald gets it back (LISTEN_FDS, sd_listen_fds_with_names())
 * with its ring, its watches, its epoch and its unacked intents (the
 * static build, without libsystemd, speaks those protocols itself).
 *
 * What the module keeps meanwhile (module/device.c, watch.c, intent.c):
 * the file stays open in the store, so nothing is released; records
 * announced while no process reads stay in the ring (a full ring drops
 * them, and the OVERFLOW notice that follows is a gap as always); a
 * writer whose intent is not acked waits, up to the subscription's
 * timeout counted from its intent, then goes on by the policy (fail-open:
 * its record is in the ring all the same, with a RESCAN_INTENT notice;
 * fail-closed: ETIMEDOUT). Acks are cumulative sequence numbers and the
 * epoch is the module's: the new process reads, stores and acks where
 * the old one stopped, and maps module epochs onto the journal's from
 * the base the journal saved for this subscription.
 *
 * What it may resume: the stored subscription only after a clean stop
 * in this boot (the last checkpoint drained and committed every record
 * read; a process that died may have read records it never stored, so
 * that is a gap as before), with the same subscription settings. Any
 * other stored descriptor is removed from the store and closed, and
 * the daemon starts a new subscription (with the gap).
 */
#ifndef VBJD_FDSTORE_H
#define VBJD_FDSTORE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

#include "store.h"

#define VBJD_FDNAME	"vfsbarrier"

/*
 * The /dev/vfsbarrier descriptor passed by the service manager under
 * VBJD_FDNAME (LISTEN_FDS), made non-blocking and close-on-exec; other
 * passed descriptors are closed. -ENOENT: none passed.
 */
int vbjd_fdstore_take(void);

/*
 * Hands dev to the service manager's store under VBJD_FDNAME. 0 when
 * stored, or no service manager to store it (no NOTIFY_SOCKET); -errno.
 */
int vbjd_fdstore_put(int dev);

/*
 * Drops a passed descriptor the journal cannot resume: removes it from
 * the store (FDSTOREREMOVE=1) and closes it, then waits (up to 5 s) for
 * the store's copy to close: until none of the paths' filesystems has
 * a watcher left, so that a new subscription can watch them.
 */
void vbjd_fdstore_drop(int dev, const char *const *paths, int n);

/*
 * Whether the subscription a previous session left in the store may
 * go on: that session stopped cleanly in this boot (boot) with the same
 * settings (sub). *base: its module epoch 1 in journal epochs.
 */
bool vbjd_fdstore_resumable(struct vbj_store *st, const char *boot,
			    const char *sub, int64_t *base);

/*
 * Whether the passed descriptor dev may go on as this session's: as
 * vbjd_fdstore_resumable(), and it watches no filesystem but those of
 * fds (n of them): one dropped from the settings is dropped with it.
 */
bool vbjd_fdstore_resume(int dev, struct vbj_store *st, const char *boot,
			 const char *sub, const int *fds, int n,
			 int64_t *base);

/*
 * WATCH on a resumed descriptor: 1 when it watched the filesystem of fd
 * already (watched without a break), 0 when the watch is new, -errno;
 * *sb_dev: its dev in the ABI's encoding either way.
 */
int vbjd_fdstore_watch(int dev, int fd, __u32 *sb_dev);

/* Saves, in the open transaction, what the next session resumes. */
int vbjd_fdstore_note(struct vbj_store *st, int64_t base, const char *sub);

#endif
