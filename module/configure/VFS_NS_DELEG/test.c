// SPDX-License-Identifier: GPL-2.0
/*
 * The namespace helpers as 7.x has them: an idmap first, a struct
 * delegated_inode for every one that breaks a delegation, vfs_create()
 * without the directory, vfs_mkdir() returning the dentry.
 */
#include <linux/build_bug.h>
#include <linux/filelock.h>
#include <linux/fs.h>

#define SAME(fn, type) static_assert(__same_type(&(fn), type))

SAME(vfs_create, int (*)(struct mnt_idmap *, struct dentry *, umode_t,
			 struct delegated_inode *));
SAME(vfs_mkdir, struct dentry *(*)(struct mnt_idmap *, struct inode *,
				   struct dentry *, umode_t,
				   struct delegated_inode *));
SAME(vfs_mknod, int (*)(struct mnt_idmap *, struct inode *, struct dentry *,
			umode_t, dev_t, struct delegated_inode *));
SAME(vfs_symlink, int (*)(struct mnt_idmap *, struct inode *, struct dentry *,
			  const char *, struct delegated_inode *));
SAME(vfs_link, int (*)(struct dentry *, struct mnt_idmap *, struct inode *,
		       struct dentry *, struct delegated_inode *));
SAME(vfs_rmdir, int (*)(struct mnt_idmap *, struct inode *, struct dentry *,
			struct delegated_inode *));
SAME(vfs_unlink, int (*)(struct mnt_idmap *, struct inode *, struct dentry *,
			 struct delegated_inode *));
SAME(vfs_rename, int (*)(struct renamedata *));
SAME(notify_change, int (*)(struct mnt_idmap *, struct dentry *,
			    struct iattr *, struct delegated_inode *));
