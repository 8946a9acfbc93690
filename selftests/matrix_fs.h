/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filesystems the coverage and record matrices run on (matrix_fs.c):
 * mounted and watched once, by the parent process, before the harness
 * forks the tests, which inherit them and the watching descriptor (so
 * the hooks stay registered for the whole run).
 */
#ifndef MATRIX_FS_H
#define MATRIX_FS_H

#include <stdbool.h>
#include <sys/types.h>

#include "testfs.h"

struct matrix_fs {
	const char *name;	/* for messages */
	const char *dir;	/* the mount point */
	enum testfs_kind kind;	/* tmpfs, or on a scratch disk */
	bool watch;		/* watched by the run's device */
	int err;		/* 0: ready; -ENODEV: no scratch disk or no such fs */
	bool mounted;
	int root;		/* the root, for open_by_handle_at(); -1 */
	dev_t st_dev;		/* the superblock's (btrfs: not the root's st_dev) */
};

/*
 * Opens the run's device, then mounts, watches and opens the root of
 * each of the n filesystems, noting in its err what failed. Returns the
 * device, or -errno (every err is then -EIO).
 */
int matrix_fs_setup(struct matrix_fs *fs, int n);
/* Closes the device (when dev >= 0) and the roots, and unmounts. */
void matrix_fs_teardown(int dev, struct matrix_fs *fs, int n);

#endif /* MATRIX_FS_H */
