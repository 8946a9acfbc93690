// SPDX-License-Identifier: GPL-2.0
/*
 * vfs_set_acl() and vfs_remove_acl() as 6.3 and later have them (an
 * idmap first; exported from 6.2): the prototypes their wrappers in
 * hooks.c stand in for.
 */
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/posix_acl.h>

#define SAME(fn, type) static_assert(__same_type(&(fn), type))

SAME(vfs_set_acl, int (*)(struct mnt_idmap *, struct dentry *, const char *,
			  struct posix_acl *));
SAME(vfs_remove_acl, int (*)(struct mnt_idmap *, struct dentry *,
			     const char *));
