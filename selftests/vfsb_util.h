/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the vfsbarrier selftests: device access, module
 * load/unload by syscall, privilege drop. Header-only so that each test
 * stays one static binary.
 */
#ifndef VFSB_UTIL_H
#define VFSB_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/vfsbarrier.h>

static inline int vfsb_open(void)
{
	return open(VFSB_DEVICE_PATH, O_RDWR | O_CLOEXEC);
}

/* ioctl that returns -errno instead of -1, for terse assertions. */
static inline int vfsb_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static inline const char *vfsb_ko_path(void)
{
	const char *p = getenv("VFSB_KO");

	return p ? p : "/lib/vfsb/vfsbarrier.ko";
}

static inline int vfsb_module_load(void)
{
	int fd = open(vfsb_ko_path(), O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static inline int vfsb_module_unload(void)
{
	return syscall(SYS_delete_module, "vfsbarrier", O_NONBLOCK) ? -errno : 0;
}

static inline int vfsb_module_loaded(void)
{
	return access("/sys/module/vfsbarrier", F_OK) == 0;
}

/* Reads /sys/module/vfsbarrier/refcnt; -1 when absent. */
static inline int vfsb_module_refcnt(void)
{
	FILE *f = fopen("/sys/module/vfsbarrier/refcnt", "r");
	int n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/* Become "nobody" with no capabilities; returns 0 or -errno. */
static inline int vfsb_drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return -errno;
	return 0;
}

#endif /* VFSB_UTIL_H */
