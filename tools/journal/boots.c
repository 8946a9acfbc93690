// SPDX-License-Identifier: GPL-2.0
/*
 * Boots the daemon did not see, on filesystems without a mount count
 * (boots.h). Measured in the 6.1 guest, unmounting and mounting again
 * (what a reboot does to a filesystem), after a write and syncfs() (the
 * state a clean stop leaves: its last checkpoint syncs):
 *
 * btrfs: the generation (BTRFS_IOC_FS_INFO, BTRFS_FS_INFO_FLAG_GENERATION:
 * the last transaction started). On 6.1 it is one more after each clean
 * unmount and mount (the unmount commits one), idle or not; an unmount
 * and mount with no write between is +2, with a write +3 or more; a
 * read-only mount between, +2 (a false positive). On 6.12 and 7.3 a
 * clean unmount commits nothing: +0, and a write between is +1 or more.
 * So: exactly what the kernel that unmounted it (the daemon's, at its
 * stop) adds, else a gap; a kernel not measured is a gap every boot.
 *
 * XFS: the log head (/sys/fs/xfs/DEV/log/log_head_lsn, cycle:block, in
 * 512-byte blocks) moves by whole log writes of u blocks (2 with
 * 512-byte log sectors, the sector or the log stripe unit when larger:
 * 2, 8 and 64 measured with mkfs's default, -s size=4096, -l su=32k).
 * A clean unmount and mount adds 3 writes when the log was not covered
 * (its tail behind its head: after a syncfs), 2 when it was; a mount
 * cycle with no write between adds 2 more, an overwrite 3 more. So:
 * exactly that, else a gap. Idle for 35 s after a syncfs, neither
 * counter moved; XFS's log covering while idle may move the head one
 * or two writes between the daemon's stop and the unmount: a false
 * positive, never a miss.
 *
 * Both rules were measured on the releases btrfs_unmount_adds() and
 * xfs_measured() name (the guest's scenario for 6.12 and 7.3); a
 * filesystem last seen under another kernel gets a gap.
 *
 * A crash leaves no count to expect (the filesystem commits on its own
 * after the last checkpoint): a boot after a session that did not stop
 * cleanly is a gap on these filesystems, and on any other that outlives
 * a boot. tmpfs and ramfs do not outlive one: a new boot is a new,
 * empty filesystem, every name the last one had gone without a record,
 * so a gap too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <linux/btrfs.h>
#include <linux/magic.h>

#include "boots.h"

/*
 * XFS_IOC_FSGEOMETRY_V4 (xfs_fs.h, not in the kernel's uapi; xfsprogs'
 * header is not needed for these fields): the log's sector size and
 * stripe unit, in bytes, and its size in filesystem blocks.
 */
struct vbjd_xfs_geom_v4 {
	uint32_t blocksize, rtextsize, agblocks, agcount, logblocks;
	uint32_t sectsize, inodesize, imaxpct;
	uint64_t datablocks, rtblocks, rtextents, logstart;
	unsigned char uuid[16];
	uint32_t sunit, swidth;
	int32_t version;
	uint32_t flags, logsectsize, rtsectsize, dirblocksize, logsunit;
};
#define VBJD_XFS_IOC_FSGEOMETRY_V4 _IOR('X', 124, struct vbjd_xfs_geom_v4)

/*
 * What a clean unmount by kernel release rel adds to the btrfs
 * generation; -1: not measured (6.1, 6.12 and 7.3 measured, in the guest).
 */
static int btrfs_unmount_adds(const char *rel)
{
	if (!strncmp(rel, "6.1.", 4))
		return 1;
	if (!strncmp(rel, "6.12.", 5) || !strncmp(rel, "7.3.", 4))
		return 0;
	return -1;
}

/* XFS's rule (3 or 2 log writes) held on these releases. */
static bool xfs_measured(const char *rel)
{
	return !strncmp(rel, "6.1.", 4) || !strncmp(rel, "6.12.", 5) ||
	       !strncmp(rel, "7.3.", 4);
}

enum kind { K_NONE, K_VOLATILE, K_EXT, K_BTRFS, K_XFS };

static enum kind kind_of(int fd, char *name, size_t sz)
{
	struct statfs s;

	if (fstatfs(fd, &s))
		return K_NONE;
	switch ((unsigned long)s.f_type) {
	case TMPFS_MAGIC:
		snprintf(name, sz, "tmpfs");
		return K_VOLATILE;
	case RAMFS_MAGIC:
		snprintf(name, sz, "ramfs");
		return K_VOLATILE;
	case EXT4_SUPER_MAGIC:	/* ext2 and ext3 too */
		return K_EXT;
	case BTRFS_SUPER_MAGIC:
		snprintf(name, sz, "btrfs");
		return K_BTRFS;
	case XFS_SUPER_MAGIC:
		snprintf(name, sz, "xfs");
		return K_XFS;
	}
	snprintf(name, sz, "0x%lx", (unsigned long)s.f_type);
	return K_NONE;
}

/* XFS's sysfs name of the filesystem of fd: its block device's. */
static int xfs_sysname(int fd, char *out, size_t sz)
{
	char path[96], line[256];
	struct stat st;
	FILE *f;
	int ret = -ENOENT;

	if (fstat(fd, &st))
		return -errno;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent",
		 major(st.st_dev), minor(st.st_dev));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, sz, "%s", line + 8);
			ret = 0;
		}
	fclose(f);
	return ret;
}

static int read_lsn(const char *dev, const char *which, uint64_t *cycle,
		    uint64_t *block)
{
	char path[320];
	unsigned long long c, b;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/fs/xfs/%s/log/%s", dev, which);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%llu:%llu", &c, &b);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	*cycle = c;
	*block = b;
	return 0;
}

#define UNKNOWN	UINT64_MAX

/*
 * The counter now and the value a clean unmount by this kernel and a
 * mount give it, in *now and *next (UNKNOWN: not measured on this
 * kernel). 0, or -errno: no counter here.
 */
static int counter(int fd, enum kind k, uint64_t *now, uint64_t *next)
{
	struct utsname u;

	if (uname(&u))
		return -errno;
	if (k == K_BTRFS) {
		struct btrfs_ioctl_fs_info_args a = {
			.flags = BTRFS_FS_INFO_FLAG_GENERATION,
		};

		if (ioctl(fd, BTRFS_IOC_FS_INFO, &a))
			return -errno;
		if (!(a.flags & BTRFS_FS_INFO_FLAG_GENERATION))
			return -EOPNOTSUPP;	/* before 5.11 */
		*now = a.generation;
		*next = btrfs_unmount_adds(u.release) < 0 ? UNKNOWN :
			a.generation + btrfs_unmount_adds(u.release);
		return 0;
	}
	if (k == K_XFS) {
		struct vbjd_xfs_geom_v4 g = { 0 };
		uint64_t hc, hb, tc, tb, unit, logbb;
		char dev[256];
		int ret;

		if (ioctl(fd, VBJD_XFS_IOC_FSGEOMETRY_V4, &g))
			return -errno;
		ret = xfs_sysname(fd, dev, sizeof(dev));
		if (!ret)
			ret = read_lsn(dev, "log_head_lsn", &hc, &hb);
		if (!ret)
			ret = read_lsn(dev, "log_tail_lsn", &tc, &tb);
		if (ret)
			return ret;
		unit = 2;
		if (g.logsectsize / 512 > unit)
			unit = g.logsectsize / 512;
		if (g.logsunit / 512 > unit)
			unit = g.logsunit / 512;
		logbb = (uint64_t)g.logblocks * (g.blocksize / 512);
		/* the head's place in the log's whole life, in blocks */
		*now = hc * logbb + hb;
		*next = !xfs_measured(u.release) ? UNKNOWN :
			*now + unit * (hc == tc && hb == tb ? 2 : 3);
		return 0;
	}
	return -EOPNOTSUPP;
}

static void key_of(char *key, size_t sz, int64_t fsid)
{
	snprintf(key, sz, "boots:%" PRId64, fsid);
}

int vbjd_boots_note(struct vbj_store *st, int fd, int64_t fsid)
{
	char key[48], val[160], name[16];
	uint64_t now, next;
	struct utsname u;
	enum kind k = kind_of(fd, name, sizeof(name));

	if ((k != K_BTRFS && k != K_XFS) || counter(fd, k, &now, &next) ||
	    uname(&u))
		return 0;
	key_of(key, sizeof(key), fsid);
	/* "KIND NOW NEXT RELEASE"; NEXT "-": not measured on RELEASE */
	if (next == UNKNOWN)
		snprintf(val, sizeof(val), "%s %" PRIu64 " - %.64s", name, now,
			 u.release);
	else
		snprintf(val, sizeof(val), "%s %" PRIu64 " %" PRIu64 " %.64s",
			 name, now, next, u.release);
	return vbj_meta_set(st, key, val);
}

int vbjd_boots_check(struct vbj_store *st, int fd, int64_t fsid,
		     const char *path, bool prev_clean, int64_t epoch)
{
	char key[48], val[160], name[16] = "", kname[16], knext[24];
	char rel[72], why[200] = "";
	unsigned long long was, expect = 0;
	uint64_t now, next;
	enum kind k = kind_of(fd, name, sizeof(name));
	int ret, have;

	if (k == K_EXT)
		return 0;
	have = counter(fd, k, &now, &next) == 0;
	key_of(key, sizeof(key), fsid);
	if (k == K_VOLATILE)
		snprintf(why, sizeof(why), "unsupervised_boot: %s does not "
			 "outlive a boot", name);
	else if (!have)
		snprintf(why, sizeof(why), "unsupervised_boot: no write "
			 "counter on %s", name);
	else if (!prev_clean)
		snprintf(why, sizeof(why), "unsupervised_boot: the last "
			 "session did not stop cleanly, %s's counter cannot "
			 "tell", name);
	else if (vbj_meta_get(st, key, val, sizeof(val)) ||
		 sscanf(val, "%15s %llu %23s %71s", kname, &was, knext,
			rel) != 4 || strcmp(kname, name))
		snprintf(why, sizeof(why), "unsupervised_boot: no %s counter "
			 "saved", name);
	else if (!strcmp(knext, "-") ||
		 sscanf(knext, "%llu", &expect) != 1)
		snprintf(why, sizeof(why), "unsupervised_boot: %s's counter "
			 "not measured on %s", name, rel);
	else if (now != expect)
		snprintf(why, sizeof(why), "mounted_unsupervised: %s %s %"
			 PRIu64 ", expected %llu", name,
			 k == K_BTRFS ? "generation" : "log head", now, expect);
	ret = why[0] ? vbj_gap_add(st, epoch, fsid, "fs", why, path) : 0;
	if (!ret)
		ret = vbjd_boots_note(st, fd, fsid);
	return ret ? ret : why[0] != 0;
}
