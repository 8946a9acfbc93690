// SPDX-License-Identifier: GPL-2.0
/* Opening /dev/vfsbarrier and the calls every user makes on it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
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
		"intent", "refuse_unwaited", "checkpoint_kept",
		"journal_coalesce", "new_dirs",
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

/*
 * The superblock's device number, as the kernel names a filesystem in
 * records, STATS and WATCH. It is st_dev on most filesystems but not on
 * btrfs, whose subvolumes each report one of their own; the mount's
 * line in /proc/self/mountinfo has the superblock's.
 */
int vfsb_fd_sb_dev(int fd, dev_t *out)
{
	unsigned int maj, min;
	struct statx stx;
	char line[4096];
	__u64 id;
	FILE *f;

	if (statx(fd, "", AT_EMPTY_PATH | AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx))
		return -errno;
	*out = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	if (!(stx.stx_mask & STATX_MNT_ID))
		return 0;	/* before 5.8: st_dev, right but on btrfs */
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %*u %u:%u", (unsigned long long *)&id,
			   &maj, &min) == 3 && id == stx.stx_mnt_id) {
			*out = makedev(maj, min);
			break;
		}
	}
	fclose(f);
	return 0;
}

int vfsb_path_sb_dev(const char *path, dev_t *out)
{
	int fd = open(path, O_PATH | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = vfsb_fd_sb_dev(fd, out);
	close(fd);
	return ret;
}
