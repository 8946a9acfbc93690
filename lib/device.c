// SPDX-License-Identifier: GPL-2.0
/* Opening /dev/vfsbarrier and the calls every user makes on it. */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "vfsb.h"

int vfsb_open_flags(int extra_flags)
{
	int fd = open(VFSB_DEVICE_PATH, O_RDWR | O_CLOEXEC | extra_flags);

	return fd < 0 ? -errno : fd;
}

int vfsb_open(void)
{
	return vfsb_open_flags(0);
}

int vfsb_ioctl(int dev, unsigned long cmd, void *arg)
{
	return ioctl(dev, cmd, arg) < 0 ? -errno : 0;
}

int vfsb_get_version(int dev, struct vfsb_version *v)
{
	int ret = vfsb_ioctl(dev, VFSB_IOC_GET_VERSION, v);

	/* the kernel terminates it; a reader must not trust that blindly */
	if (!ret)
		v->module_version[sizeof(v->module_version) - 1] = 0;
	return ret;
}

const char *vfsb_feature_name(unsigned int bit)
{
	static const char *const names[] = {
		"barrier", "async_barrier", "records", "rescan", "watch_id",
	};

	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : NULL;
}

const char *vfsb_coverage_name(unsigned int bit)
{
	static const char *const names[] = {
		"namespace", "data", "splice", "remap", "mmap", "io_uring",
		"aio", "iocb", "acl", "fileattr", "kernel_write", "verity",
		"fscrypt",
	};

	return bit < sizeof(names) / sizeof(names[0]) ? names[bit] : NULL;
}

const char *vfsb_hooks_state_name(__u32 state)
{
	static const char *const names[] = { "off", "live", "lingering" };

	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

/* new_encode_dev() puts the minor's low byte lowest: glibc's major() and
   minor() decode a 32-bit value of that form. */
dev_t vfsb_dev_t(__u32 dev)
{
	return makedev(major(dev), minor(dev));
}
