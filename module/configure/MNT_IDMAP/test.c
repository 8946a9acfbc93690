// SPDX-License-Identifier: GPL-2.0
/* Inode operations take a struct mnt_idmap (6.3+), not a user namespace. */
#include <linux/fs.h>
#include <linux/security.h>

int vfsb_probe(struct mnt_idmap *idmap, struct dentry *dentry,
	       struct iattr *attr)
{
	return security_inode_setattr(idmap, dentry, attr);
}
