/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One vbjournald per journal (lock.c): a POSIX record lock (fcntl
 * F_SETLK, write, whole file) on DIR/vbjournald.lock, taken before the
 * device is opened and the journal read, held for the daemon's life and
 * released by the kernel when it exits, however it exits. A process
 * holding it is the journal's daemon; F_GETLK names its pid. So
 * vbjournal signals (checkpoint) and reports (status) that process and
 * no other: a pid stored in the journal may, after a crash or a
 * reboot, be anyone's.
 */
#ifndef VBJ_LOCK_H
#define VBJ_LOCK_H

#include <sys/types.h>

#define VBJ_LOCK_NAME	"vbjournald.lock"

/*
 * Takes the lock of the journal in dir (which must exist): the
 * descriptor to keep open (never open and close the lock file
 * otherwise: closing any descriptor of it drops a POSIX lock), or
 * -EBUSY with *holder the pid that holds it (0: not visible from this
 * pid namespace), or -errno.
 */
int vbj_lock_take(const char *dir, pid_t *holder);

/*
 * Who holds the lock of the journal in dir: 0 with *pid (0: not visible
 * from here), -ESRCH when nobody does (no lock file: nobody), -errno.
 */
int vbj_lock_holder(const char *dir, pid_t *pid);

/*
 * Sends sig to the holder of the lock, and only to it: the holder's
 * pidfd is taken, then the lock is checked again to still be that
 * process's, so that a pid reused meanwhile gets nothing. 0, -ESRCH
 * (nobody holds it; *pid > 0: it ended meanwhile), -EXDEV (the holder
 * is in another pid namespace), -EPERM, -errno.
 */
int vbj_lock_signal(const char *dir, int sig, pid_t *pid);

#endif /* VBJ_LOCK_H */
