// SPDX-License-Identifier: GPL-2.0
/*
 * Restart without a gap: the subscription's descriptor in the service
 * manager's file descriptor store (fdstore.h says what is kept, and
 * when it may be resumed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "fdstore.h"
#include "vfsb.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>

static int listen_fds(char ***names)
{
	return sd_listen_fds_with_names(1, names);
}

/* msg to the service manager, with fd when it is not -1. */
static int notify_fd(const char *msg, int fd)
{
	return sd_pid_notify_with_fds(0, 0, msg, &fd, fd >= 0);
}
#else
/*
 * The static build (the guest's) has no libsystemd (tools/Makefile):
 * the protocols of sd_listen_fds_with_names(3) and
 * sd_pid_notify_with_fds(3), as notify.c speaks sd_notify(3)'s.
 */
#define SD_LISTEN_FDS_START	3

static int listen_fds(char ***names)
{
	const char *pid = getenv("LISTEN_PID"), *nfds = getenv("LISTEN_FDS");
	const char *fdnames = getenv("LISTEN_FDNAMES");
	char *end, *copy = NULL, *tok, *save = NULL;
	long n = 0;
	int i;

	*names = NULL;
	if (pid && nfds && strtol(pid, &end, 10) == getpid() && !*end) {
		n = strtol(nfds, &end, 10);
		if (*end || n < 0 || n > 64)
			n = 0;
	}
	if (n && fdnames) {
		*names = calloc(n + 1, sizeof(char *));
		copy = strdup(fdnames);
		tok = (*names && copy) ? strtok_r(copy, ":", &save) : NULL;
		for (i = 0; tok && i < n; i++, tok = strtok_r(NULL, ":", &save))
			(*names)[i] = strdup(tok);
		free(copy);
	}
	for (i = 0; i < n; i++)
		fcntl(SD_LISTEN_FDS_START + i, F_SETFD, FD_CLOEXEC);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return n;
}

static int notify_fd(const char *msg, int fd)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)msg, strlen(msg) };
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	struct cmsghdr *c;
	int s, ret = 1;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    strlen(path) >= sizeof(sa.sun_path))
		return 0;
	strcpy(sa.sun_path, path);
	if (path[0] == '@')
		sa.sun_path[0] = 0;	/* abstract namespace */
	if (fd >= 0) {
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (sendmsg(s, &mh, MSG_NOSIGNAL) < 0)
		ret = -errno;
	close(s);
	return ret;
}
#endif

/* dev is an open /dev/vfsbarrier (the same device node's device). */
static bool is_vfsb(int dev)
{
	struct stat a, b;

	return !fstat(dev, &a) && S_ISCHR(a.st_mode) &&
	       !stat(VFSB_DEVICE_PATH, &b) && S_ISCHR(b.st_mode) &&
	       a.st_rdev == b.st_rdev;
}

int vbjd_fdstore_take(void)
{
	char **names = NULL;
	int i, n, dev = -ENOENT;

	n = listen_fds(&names);
	for (i = 0; i < n; i++) {
		int fd = SD_LISTEN_FDS_START + i;

		if (dev < 0 && names && names[i] &&
		    !strcmp(names[i], VBJD_FDNAME) && is_vfsb(fd) &&
		    !fcntl(fd, F_SETFD, FD_CLOEXEC) &&
		    !fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
			dev = fd;
		else
			close(fd);
	}
	for (i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
	return dev;
}

int vbjd_fdstore_put(int dev)
{
	int ret = notify_fd("FDSTORE=1\nFDNAME=" VBJD_FDNAME, dev);

	return ret < 0 ? ret : 0;
}

void vbjd_fdstore_drop(int dev, const char *const *paths, int n)
{
	struct timespec ms10 = { .tv_nsec = 10000000 };
	int i, tries, probe;

	notify_fd("FDSTOREREMOVE=1\nFDNAME=" VBJD_FDNAME, -1);
	close(dev);
	probe = vfsb_open();
	if (probe < 0)
		return;
	for (tries = 0; tries < 500; tries++) {
		bool busy = false;

		for (i = 0; i < n; i++) {
			struct vfsb_sb_stats st;

			busy |= !vfsb_stats_path(probe, paths[i], &st) &&
				st.watchers;
		}
		if (!busy)
			break;
		nanosleep(&ms10, NULL);
	}
	close(probe);
}

bool vbjd_fdstore_resumable(struct vbj_store *st, const char *boot,
			    const char *sub, int64_t *base)
{
	char prev_boot[64] = "", clean[8] = "", prev_sub[64] = "", b[24];
	char *end;

	if (vbj_meta_get(st, "session_boot", prev_boot, sizeof(prev_boot)) ||
	    vbj_meta_get(st, "session_clean", clean, sizeof(clean)) ||
	    vbj_meta_get(st, "fdstore_sub", prev_sub, sizeof(prev_sub)) ||
	    vbj_meta_get(st, "fdstore_base", b, sizeof(b)))
		return false;
	if (strcmp(prev_boot, boot) || strcmp(clean, "1") ||
	    strcmp(prev_sub, sub))
		return false;
	errno = 0;
	*base = strtoll(b, &end, 10);
	return !errno && end != b && !*end && *base > 0;
}

int vbjd_fdstore_note(struct vbj_store *st, int64_t base, const char *sub)
{
	char b[24];
	int ret;

	snprintf(b, sizeof(b), "%" PRId64, base);
	ret = vbj_meta_set(st, "fdstore_base", b);
	return ret ? ret : vbj_meta_set(st, "fdstore_sub", sub);
}

/* The ABI's encoding of a device number (the kernel's new_encode_dev()). */
static __u32 abi_dev(dev_t d)
{
	unsigned int maj = major(d), min = minor(d);

	return (min & 0xff) | (maj << 8) | ((min & ~0xffU) << 12);
}

bool vbjd_fdstore_resume(int dev, struct vbj_store *st, const char *boot,
			 const char *sub, const int *fds, int n,
			 int64_t *base)
{
	__u32 *devs = NULL;
	unsigned int i, nd;
	bool ok;
	int j;

	if (!vbjd_fdstore_resumable(st, boot, sub, base) ||
	    vfsb_list(dev, &devs, &nd))
		return false;
	ok = true;
	for (i = 0; ok && i < nd; i++) {
		bool found = false;

		for (j = 0; j < n; j++) {
			dev_t d;

			found |= !vfsb_fd_sb_dev(fds[j], &d) &&
				 abi_dev(d) == devs[i];
		}
		ok = found;
	}
	free(devs);
	return ok;
}

int vbjd_fdstore_watch(int dev, int fd, __u32 *sb_dev)
{
	int ret = vfsb_watch_fd(dev, fd, sb_dev);
	dev_t d;

	if (ret != -EEXIST)
		return ret;
	ret = vfsb_fd_sb_dev(fd, &d);
	if (ret)
		return ret;
	*sb_dev = abi_dev(d);
	return 1;
}
