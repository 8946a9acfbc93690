// SPDX-License-Identifier: GPL-2.0
/* The filesystems of the matrices; see matrix_fs.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "vfsb.h"
#include "matrix_fs.h"
#include "testfs.h"

static int fs_ready(int dev, struct matrix_fs *f)
{
	int ret;

	ret = mount_testfs(f->kind, f->dir);
	f->mounted = !ret;
	if (!ret && f->watch)
		ret = vfsb_watch_path(dev, f->dir);
	if (ret)
		return ret;
	f->root = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->root < 0)
		return -errno;
	return vfsb_fd_sb_dev(f->root, &f->st_dev);
}

int matrix_fs_setup(struct matrix_fs *fs, int n)
{
	int i, dev = vfsb_open();

	for (i = 0; i < n; i++) {
		fs[i].root = -1;
		fs[i].mounted = false;
		fs[i].err = dev < 0 ? -EIO : fs_ready(dev, &fs[i]);
	}
	return dev;
}

void matrix_fs_teardown(int dev, struct matrix_fs *fs, int n)
{
	int i;

	if (dev >= 0)
		close(dev);
	for (i = 0; i < n; i++) {
		if (fs[i].root >= 0)
			close(fs[i].root);
		if (fs[i].mounted)
			umount2(fs[i].dir, MNT_DETACH);
	}
}
