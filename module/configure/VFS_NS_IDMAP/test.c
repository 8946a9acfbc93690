// SPDX-License-Identifier: GPL-2.0
/*
 * The namespace helpers as 6.3 to 6.14 has them (an idmap first, a
 * delegated inode as struct inode **): every one whose wrapper stands in
 * for it, in hooks.c.
 */
#include <linux/build_bug.h>
#include <linux/fs.h>

#define IDMAP struct mnt_idmap
#define SAME(fn, type) static_assert(__same_type(&(fn), type))

SAME(vfs_create, int (*)(IDMAP *, struct inode *, struct dentry *, umode_t,
			 bool));
SAME(vfs_mkdir, int (*)(IDMAP *, struct inode *, struct dentry *, umode_t));
SAME(vfs_mknod, int (*)(IDMAP *, struct inode *, struct dentry *, umode_t,
			dev_t));
SAME(vfs_symlink, int (*)(IDMAP *, struct inode *, struct dentry *,
			  const char *));
SAME(vfs_link, int (*)(struct dentry *, IDMAP *, struct inode *,
		       struct dentry *, struct inode **));
SAME(vfs_rmdir, int (*)(IDMAP *, struct inode *, struct dentry *));
SAME(vfs_unlink, int (*)(IDMAP *, struct inode *, struct dentry *,
			 struct inode **));
SAME(vfs_rename, int (*)(struct renamedata *));
SAME(notify_change, int (*)(IDMAP *, struct dentry *, struct iattr *,
			    struct inode **));
