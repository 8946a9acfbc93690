// SPDX-License-Identifier: GPL-2.0
/* The filesystems the selftests work on; see testfs.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int mount_ext4(const char *dir)
{
	const char *dev = getenv("VFSB_SCRATCH_DEV");
	char cmd[256];

	if (!dev)
		return -ENODEV;
	mkdir(dir, 0755);
	/* no journal, no checksums: fewer background writes under TCG */
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -O ^has_journal,^metadata_csum %s >/dev/null 2>&1", dev);
	if (system(cmd))
		return -EIO;
	return mount(dev, dir, "ext4", 0, NULL) ? -errno : 0;
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
