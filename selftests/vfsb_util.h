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
#include <grp.h>
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

/*
 * Tracking is torn down asynchronously after the last close (it waits
 * for RCU and SRCU, then takes the hooks out), holding a module
 * reference meanwhile. Waits (bounded, about 30 s) until the module is
 * idle; returns its reference count then.
 */
static inline int vfsb_module_wait_idle(void)
{
	int i, n = vfsb_module_refcnt();

	for (i = 0; i < 3000 && n > 0; i++) {
		usleep(10000);
		n = vfsb_module_refcnt();
	}
	return n;
}

/* Become "nobody" with no capabilities; returns 0 or -errno. */
static inline int vfsb_drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return -errno;
	return 0;
}

/* ---- filesystems to test on ---- */

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Mounts a fresh tmpfs at dir (created); returns 0 or -errno. */
static inline int vfsb_mount_tmpfs(const char *dir)
{
	mkdir(dir, 0755);
	return mount("tmpfs", dir, "tmpfs", 0, "size=64m") ? -errno : 0;
}

/*
 * Mounts ext4 on the guest's scratch disk at dir, making the filesystem
 * first. Returns 0, or -errno (-ENODEV: no scratch disk: skip).
 */
static inline int vfsb_mount_ext4(const char *dir)
{
	const char *dev = getenv("VFSB_SCRATCH_DEV");
	char cmd[256];

	if (!dev)
		return -ENODEV;
	mkdir(dir, 0755);
	snprintf(cmd, sizeof(cmd), "mkfs.ext4 -q -F -O ^has_journal,^metadata_csum %s >/dev/null 2>&1", dev);
	if (system(cmd))
		return -EIO;
	return mount(dev, dir, "ext4", 0, NULL) ? -errno : 0;
}

/* ---- ioctl wrappers ---- */

static inline int vfsb_watch_path(int dev, const char *path)
{
	struct vfsb_watch w = { 0 };
	int ret;

	w.fd = open(path, O_PATH | O_CLOEXEC);
	if (w.fd < 0)
		return -errno;
	ret = vfsb_ioctl(dev, VFSB_IOC_WATCH, &w);
	close(w.fd);
	return ret;
}

static inline int vfsb_unwatch_path(int dev, const char *path)
{
	struct vfsb_watch w = { 0 };
	int ret;

	w.fd = open(path, O_PATH | O_CLOEXEC);
	if (w.fd < 0)
		return -errno;
	ret = vfsb_ioctl(dev, VFSB_IOC_UNWATCH, &w);
	close(w.fd);
	return ret;
}

static inline int vfsb_barrier_path(int dev, const char *path, __u32 flags,
				    __u32 timeout_ms)
{
	struct vfsb_barrier b = { .flags = flags, .timeout_ms = timeout_ms };
	int ret;

	b.fd = open(path, O_PATH | O_CLOEXEC);
	if (b.fd < 0)
		return -errno;
	ret = vfsb_ioctl(dev, VFSB_IOC_BARRIER, &b);
	close(b.fd);
	return ret;
}

/* Starts an async barrier; returns the cookie, or 0 with errno set. */
static inline __u64 vfsb_barrier_start_path(int dev, const char *path)
{
	struct vfsb_barrier_start bs = { 0 };
	int ret;

	bs.fd = open(path, O_PATH | O_CLOEXEC);
	if (bs.fd < 0)
		return 0;
	ret = ioctl(dev, VFSB_IOC_BARRIER_START, &bs);
	close(bs.fd);
	return ret ? 0 : bs.cookie;
}

/* State of a cookie: VFSB_BARRIER_PENDING/DONE, or -errno. */
static inline int vfsb_barrier_poll(int dev, __u64 cookie)
{
	struct vfsb_barrier_poll bp = { .cookie = cookie };
	int ret = vfsb_ioctl(dev, VFSB_IOC_BARRIER_POLL, &bp);

	return ret ? ret : (int)bp.state;
}

/* Stats of the superblock behind path; 0 or -errno (-ENOENT: untracked). */
static inline int vfsb_stats_path(int dev, const char *path,
				  struct vfsb_sb_stats *out)
{
	struct vfsb_sb_stats st[64];
	struct vfsb_stats req = { .capacity = 64, .entries_ptr = (unsigned long)st };
	struct stat sb;
	unsigned int i;

	if (stat(path, &sb))
		return -errno;
	if (vfsb_ioctl(dev, VFSB_IOC_STATS, &req))
		return -errno;
	for (i = 0; i < req.count && i < req.capacity; i++) {
		if (makedev(major(st[i].dev), minor(st[i].dev)) == sb.st_dev &&
		    !(st[i].flags & VFSB_STATS_UNMOUNTED)) {
			*out = st[i];
			return 0;
		}
	}
	return -ENOENT;
}

static inline long long vfsb_in_flight(int dev, const char *path)
{
	struct vfsb_sb_stats st;

	return vfsb_stats_path(dev, path, &st) ? -1 : (long long)st.in_flight;
}

static inline long long vfsb_begun(int dev, const char *path)
{
	struct vfsb_sb_stats st;

	return vfsb_stats_path(dev, path, &st) ? -1 : (long long)st.sections_begun;
}

/*
 * Waits until thread tid sleeps (state S or D in /proc), so that a
 * signal sent next finds it blocked in the call under test. Bounded:
 * returns -1 after about 10 s.
 */
static inline int vfsb_wait_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	for (i = 0; i < 10000; i++) {
		FILE *f = fopen(path, "r");

		if (!f)
			return -1;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && (p[2] == 'S' || p[2] == 'D'))
			return 0;
		usleep(1000);
	}
	return -1;
}

#endif /* VFSB_UTIL_H */
