/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuse_hold: a FUSE file system, served in memory by a thread of the
 * test, that can hold a request in flight on command (fuse_hold.c).
 *
 * Why: a write barrier must wait for every write operation in flight, and
 * a test can prove that only with an operation that is in flight for sure,
 * for as long as the test likes. A FUSE request is one: its syscall sleeps
 * in the kernel until the server answers. So:
 *
 *	fh = fh_mount("/tmp/mnt");
 *	fh_hold(fh, FUSE_MKDIR);	arm: the next MKDIR will not be answered
 *	start mkdir("/tmp/mnt/d") in a thread
 *	fh_wait_held(fh, 10000);	that MKDIR has reached the server: the
 *					mkdir() is in flight until ...
 *	fh_release(fh);			... it is answered; mkdir() returns
 *	fh_umount(fh);
 *
 * Meanwhile the server goes on answering every other request, so a test
 * can show that the rest of the file system still works.
 *
 * All return 0 or -errno unless said otherwise.
 */
#ifndef FUSE_HOLD_H
#define FUSE_HOLD_H

#include <stdint.h>
#include <linux/fuse.h>

#define FH_MAX_WRITE	(128 * 1024)	/* max_write: the kernel's default */
#define FH_READDIR_MAX	4096		/* bytes per READDIR reply, at most */

/* fh_mount_flags() flags */
#define FH_DIRECT_IO	1	/* FOPEN_DIRECT_IO: no page cache, every
				   read(2) and write(2) reaches the server */
#define FH_NO_DEFAULT_PERMISSIONS 2 /* the kernel leaves permission checks
				   to us and sends ACCESS for access(2) */
#define FH_ASYNC_DIO	4	/* FUSE_ASYNC_DIO: an AIO O_DIRECT write is
				   submitted, then completes on our reply */

struct fuse_hold;

/*
 * Mounts an empty file system (a 0755 root owned by the caller) on
 * mountpoint, an existing directory, and serves it until fh_umount().
 * NULL with errno set on failure.
 */
struct fuse_hold *fh_mount_flags(const char *mountpoint, unsigned int flags);
struct fuse_hold *fh_mount(const char *mountpoint);

/*
 * Answers a held request, disarms, unmounts (lazily if the mount is
 * busy), stops the server and frees everything. Whatever still uses a
 * lazily detached mount gets ENOTCONN from then on. NULL is a no-op.
 */
void fh_umount(struct fuse_hold *fh);

/*
 * Arms a hold: the next request with this opcode (FUSE_MKDIR, ...) is
 * received and parked unanswered until fh_release(). One hold at a time:
 * -EBUSY while one is armed or held.
 */
int fh_hold(struct fuse_hold *fh, uint32_t opcode);

/*
 * Waits until the armed hold has caught its request: 0, or -ETIMEDOUT
 * after timeout_ms (a bound for broken runs, not a synchronization), or
 * -ENOTCONN when the server is gone.
 */
int fh_wait_held(struct fuse_hold *fh, int timeout_ms);

/*
 * Answers the held request, as if it had never been held, and returns
 * once the answer is written (its syscall then returns on its own).
 * Returns 0, or -ENOENT when nothing was held; an armed hold that caught
 * nothing is disarmed. -ENOTCONN: the server died with it unanswered.
 */
int fh_release(struct fuse_hold *fh);

/* Requests received with this opcode, held ones included. */
unsigned long fh_count(struct fuse_hold *fh, uint32_t opcode);

/* Nodes alive in the tree, the root included: a leak check for FORGET. */
unsigned long fh_live_nodes(struct fuse_hold *fh);

/* "MKDIR" for FUSE_MKDIR; "?" for opcodes fuse_hold does not know. */
const char *fh_opname(uint32_t opcode);

#endif /* FUSE_HOLD_H */
