// SPDX-License-Identifier: GPL-2.0
/* The filesystems the selftests work on; see testfs.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "vfsb.h"
#include "testfs.h"

int mount_tmpfs(const char *dir)
{
	mkdir(dir, 0755);
	return mount("tmpfs", dir, "tmpfs", 0, "size=64m") ? -errno : 0;
}

/* mkfs (command with %s for the device) on $env, then mount it at dir. */
static int mount_scratch(const char *env, const char *mkfs, const char *type,
			 const char *dir)
{
	const char *dev = getenv(env);
	char cmd[512];

	if (!dev)
		return -ENODEV;
	mkdir(dir, 0755);
	snprintf(cmd, sizeof(cmd), mkfs, dev);
	if (system(cmd))
		return -EIO;
	return mount(dev, dir, type, 0, NULL) ? -errno : 0;
}

int mount_ext4(const char *dir)
{
	/* no journal, no checksums: fewer background writes under TCG */
	return mount_scratch("VFSB_SCRATCH_DEV",
			     "mkfs.ext4 -q -F -O ^has_journal,^metadata_csum,verity,encrypt %s >/dev/null 2>&1",
			     "ext4", dir);
}

int mount_btrfs(const char *dir)
{
	return mount_scratch("VFSB_SCRATCH_DEV2",
			     "mkfs.btrfs -q -f %s >/dev/null 2>&1", "btrfs", dir);
}

int mount_xfs(const char *dir)
{
	return mount_scratch("VFSB_SCRATCH_DEV3",
			     "mkfs.xfs -q -f %s >/dev/null 2>&1", "xfs", dir);
}

int mount_testfs(enum testfs_kind kind, const char *dir)
{
	switch (kind) {
	case TESTFS_EXT4:
		return mount_ext4(dir);
	case TESTFS_BTRFS:
		return mount_btrfs(dir);
	case TESTFS_XFS:
		return mount_xfs(dir);
	default:
		return mount_tmpfs(dir);
	}
}

int touch(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int put_file(const char *path, const char *text)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	size_t len = strlen(text);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	close(fd);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

long long fs_in_flight(int dev, const char *path)
{
	struct vfsb_sb_stats st;

	return vfsb_stats_path(dev, path, &st) ? -1 : (long long)st.in_flight;
}

long long fs_begun(int dev, const char *path)
{
	struct vfsb_sb_stats st;

	return vfsb_stats_path(dev, path, &st) ? -1 : (long long)st.sections_begun;
}

int clock_step(int delta_s)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return -errno;
	ts.tv_sec += delta_s;
	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}
