// SPDX-License-Identifier: LGPL-2.1-or-later
/* The daemon's lock on its journal; see lock.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "lock.h"

static int lock_path(const char *dir, char *buf, size_t sz)
{
	if ((size_t)snprintf(buf, sz, "%s/%s", dir, VBJ_LOCK_NAME) >= sz)
		return -ENAMETOOLONG;
	return 0;
}

/* F_GETLK on fd: 0 with *pid, or -ESRCH when the lock is free. */
static int holder_of(int fd, pid_t *pid)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0,
	};

	if (fcntl(fd, F_GETLK, &fl))
		return -errno;
	if (fl.l_type == F_UNLCK)
		return -ESRCH;
	*pid = fl.l_pid;
	return 0;
}

int vbj_lock_take(const char *dir, pid_t *holder)
{
	struct flock fl = {
		.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0,
	};
	char path[PATH_MAX];
	int fd, ret;

	ret = lock_path(dir, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (!fcntl(fd, F_SETLK, &fl))
		return fd;
	ret = -errno;
	if (ret == -EAGAIN || ret == -EACCES) {
		*holder = 0;
		/* it may have gone meanwhile: still busy, try again later */
		holder_of(fd, holder);
		ret = -EBUSY;
	}
	close(fd);
	return ret;
}

int vbj_lock_holder(const char *dir, pid_t *pid)
{
	char path[PATH_MAX];
	int fd, ret;

	ret = lock_path(dir, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	ret = holder_of(fd, pid);
	close(fd);
	return ret;
}

int vbj_lock_signal(const char *dir, int sig, pid_t *pid)
{
	pid_t again;
	int pfd, ret;

	ret = vbj_lock_holder(dir, pid);
	if (ret)
		return ret;
	if (*pid <= 0)
		return -EXDEV;	/* in another pid namespace */
	pfd = syscall(SYS_pidfd_open, *pid, 0);
	if (pfd < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	/* the pidfd is of the process that held the lock, or of one that
	   took its pid since: only the former holds it still */
	ret = vbj_lock_holder(dir, &again);
	if (!ret && again != *pid)
		ret = -ESRCH;
	if (!ret && syscall(SYS_pidfd_send_signal, pfd, sig, NULL, 0))
		ret = -errno;
	close(pfd);
	return ret;
}
