// SPDX-License-Identifier: GPL-2.0
/* The module's parameters, for tests; see modparam.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vfsb.h"
#include "modparam.h"

int sysfs_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int sysfs_read(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sz - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

int param_set(const char *name, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), VFSB_PARAMS "%s", name);
	return sysfs_write(path, value);
}

int param_get(const char *name, char *buf, size_t sz)
{
	char path[128];

	snprintf(path, sizeof(path), VFSB_PARAMS "%s", name);
	return sysfs_read(path, buf, sz);
}

static __u32 hooks_state(int dev)
{
	struct vfsb_version v;

	return vfsb_get_version(dev, &v) ? ~0U : v.hooks;
}

int wait_hooks_off(int dev)
{
	int i;

	param_set("hooks_linger_ms", "0");
	for (i = 0; i < 3000; i++) {
		if (hooks_state(dev) == VFSB_HOOKS_OFF)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}
