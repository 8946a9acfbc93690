// SPDX-License-Identifier: GPL-2.0
/*
 * vbctl watch --follow: watches that follow their mount points. Each
 * PATH must be a mount point. When the filesystem there goes (unmounted,
 * or another one mounted over it), its watch is dropped by id, and the
 * filesystem mounted there next is watched: a journal daemon keeps
 * watching /srv across remounts and reformats. The kernel says when the
 * mount table changed (POLLPRI on /proc/self/mountinfo); each change,
 * every PATH is looked at again. Lines on stdout:
 *	watching PATH (dev M:m)
 *	unmounted PATH (dev M:m): watch dropped
 * Changes made while PATH was not watched are in no record: a consumer
 * treats each "watching" after the first as a rescan of that filesystem.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfsb.h"
#include "vbctl.h"

struct followed {
	char path[PATH_MAX];
	__u32 id;		/* the live watch's, 0 when none */
	__u32 dev;
};

static void drop(struct vbctl *vb, struct followed *f, const char *why)
{
	char devs[24];

	vfsb_unwatch_id(vb->dev, f->id, NULL);
	printf("%s %s (dev %s): watch dropped\n", why, f->path,
	       vb_dev_str(f->dev, devs));
	f->id = 0;
}

/*
 * Brings f in line with what is mounted at its path. A WATCH of the
 * filesystem there says which case it is: -EEXIST, the one watched
 * already (still mounted); success, another one (the old watch, if any,
 * is dropped). VB_OK or the exit code of a failure.
 */
static int sync_one(struct vbctl *vb, struct followed *f)
{
	__u32 id, dev;
	char devs[24];
	int fd, ret;

	if (!vb_is_mount_point(f->path)) {
		if (f->id)
			drop(vb, f, "unmounted");
		return VB_OK;
	}
	fd = open(f->path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return f->id ? VB_OK : vb_fail("watch", f->path, -errno);
	ret = vfsb_watch_fd_id(vb->dev, fd, &dev, &id);
	close(fd);
	if (ret == -EEXIST)
		return VB_OK;
	if (ret)
		return vb_fail("watch", f->path, ret);
	if (f->id)
		drop(vb, f, "replaced");
	f->id = id;
	f->dev = dev;
	printf("watching %s (dev %s)\n", f->path, vb_dev_str(f->dev, devs));
	return VB_OK;
}

int follow_run(struct vbctl *vb, int argc, char **argv,
	       volatile sig_atomic_t *stop)
{
	struct followed *fl;
	struct pollfd pfd = { .events = POLLPRI };
	int i, n = argc - optind, ret = VB_OK;

	fl = calloc(n, sizeof(*fl));
	if (!fl) {
		vb_err("watch: out of memory");
		return VB_FAILED;
	}
	for (i = 0; i < n && !ret; i++) {
		if (!realpath(argv[optind + i], fl[i].path)) {
			ret = vb_fail("watch", argv[optind + i], -errno);
		} else if (!vb_is_mount_point(fl[i].path)) {
			vb_err("watch: --follow: %s is not a mount point",
			       argv[optind + i]);
			ret = VB_USAGE;
		}
	}
	/* opened before the first look: no change can fall in between */
	pfd.fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (!ret && pfd.fd < 0) {
		vb_err("watch: --follow: /proc/self/mountinfo: %s",
		       strerror(errno));
		ret = VB_USAGE;
	}
	for (i = 0; i < n && !ret; i++)
		ret = sync_one(vb, &fl[i]);
	fflush(stdout);
	while (!ret && !*stop) {
		if (poll(&pfd, 1, -1) < 0)
			continue;	/* a signal: *stop says whether to end */
		for (i = 0; i < n && !ret; i++)
			ret = sync_one(vb, &fl[i]);
		fflush(stdout);
	}
	if (pfd.fd >= 0)
		close(pfd.fd);
	free(fl);
	return ret;
}
