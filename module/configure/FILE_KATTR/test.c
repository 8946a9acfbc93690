// SPDX-License-Identifier: GPL-2.0
/* struct fileattr was renamed struct file_kattr (6.17). */
#include <linux/fs.h>
#include <linux/fileattr.h>

int vfsb_probe(void)
{
	return sizeof(struct file_kattr);
}
