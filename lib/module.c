// SPDX-License-Identifier: GPL-2.0
/*
 * The module as user space sees it: loading and unloading it by
 * syscall (the test guest has no modprobe of its own for it), and its
 * reference count in sysfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "vfsb.h"

#define REFCNT_PATH "/sys/module/vfsbarrier/refcnt"
#define POLL_US 10000

const char *vfsb_module_path(void)
{
	const char *p = getenv("VFSB_KO");

	return p && *p ? p : "/lib/vfsb/vfsbarrier.ko";
}

bool vfsb_module_loaded(void)
{
	return access("/sys/module/vfsbarrier", F_OK) == 0;
}

int vfsb_module_load(void)
{
	return vfsb_module_load_params("");
}

int vfsb_module_load_params(const char *params)
{
	int fd = open(vfsb_module_path(), O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

int vfsb_module_unload(void)
{
	return syscall(SYS_delete_module, "vfsbarrier", O_NONBLOCK) ? -errno : 0;
}

int vfsb_module_refcnt(void)
{
	FILE *f = fopen(REFCNT_PATH, "r");
	int n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

int vfsb_module_wait_refcnt(int n, int timeout_ms)
{
	int waited_us = 0, cur = vfsb_module_refcnt();

	while (cur > n && waited_us < timeout_ms * 1000) {
		usleep(POLL_US);
		waited_us += POLL_US;
		cur = vfsb_module_refcnt();
	}
	return cur;
}

int vfsb_wait_device(int timeout_ms)
{
	int waited_us = 0;

	while (access(VFSB_DEVICE_PATH, F_OK)) {
		if (waited_us >= timeout_ms * 1000)
			return -ENOENT;
		usleep(1000);
		waited_us += 1000;
	}
	return 0;
}
