// SPDX-License-Identifier: GPL-2.0
/* The module's parameters, for tests; see modparam.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vfsb.h"
#include "modparam.h"

int param_set(const char *name, const char *value)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), VFSB_PARAMS "%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) < 0)
		ret = -errno;
	close(fd);
	return ret;
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
