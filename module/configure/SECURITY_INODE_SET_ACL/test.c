// SPDX-License-Identifier: GPL-2.0
/* POSIX ACLs have security hooks of their own (6.2+: vfs_set_acl()). */
#include <linux/security.h>

int (*vfsb_probe)(void) = (void *)security_inode_remove_acl;
