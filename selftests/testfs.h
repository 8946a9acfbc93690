/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The filesystems the selftests work on: mounting them, putting a file
 * on them, and the write-section counters of one (testfs.c).
 */
#ifndef TESTFS_H
#define TESTFS_H

/* Mounts a fresh 64 MiB tmpfs at dir (created): 0 or -errno. */
int mount_tmpfs(const char *dir);
/*
 * Makes ext4 on the guest's scratch disk ($VFSB_SCRATCH_DEV) and mounts
 * it at dir (created): 0, or -errno (-ENODEV: no scratch disk: skip).
 * With the verity and encrypt features, so fs-verity and fscrypt work.
 */
int mount_ext4(const char *dir);
/*
 * The same for btrfs on the second scratch disk ($VFSB_SCRATCH_DEV2)
 * and XFS on the third ($VFSB_SCRATCH_DEV3): -ENODEV also when the
 * kernel has no such filesystem (mount(2) says so).
 */
int mount_btrfs(const char *dir);
int mount_xfs(const char *dir);

enum testfs_kind { TESTFS_TMPFS, TESTFS_EXT4, TESTFS_BTRFS, TESTFS_XFS };
/* Mounts a fresh filesystem of that kind at dir. */
int mount_testfs(enum testfs_kind kind, const char *dir);

/* Creates path if it does not exist, and writes nothing: the one
   record that announces is a CREATE. 0 or -errno. */
int touch(const char *path);

/* Creates or truncates path with text: 0 when all of it was written. */
int put_file(const char *path, const char *text);

/*
 * Sets CLOCK_REALTIME by delta_s seconds; 0 or -errno. A test that sets
 * it back sets it forward again: the guest's clock is the console's.
 */
int clock_step(int delta_s);

/*
 * A POSIX ACL of five entries as its xattr (system.posix_acl_access or
 * _default) carries it: a little-endian version 2 header, then tag,
 * permissions and id per entry (tags ACL_USER_OBJ 0x01, ACL_USER 0x02,
 * ACL_GROUP_OBJ 0x04, ACL_MASK 0x10, ACL_OTHER 0x20; id ~0U: none).
 */
struct acl_xattr5 {
	unsigned int version;
	struct {
		unsigned short tag, perm;
		unsigned int id;
	} e[5];
};

/* Sections in flight / begun on path's filesystem; -1 when untracked. */
long long fs_in_flight(int dev, const char *path);
long long fs_begun(int dev, const char *path);

#endif /* TESTFS_H */
