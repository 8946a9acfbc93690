// SPDX-License-Identifier: GPL-2.0
/*
 * vfsbarrier: VFS write barriers and pre-modify records for stock kernels.
 *
 * Module entry and exit: brings the parts up in dependency order and
 * takes them down in reverse.
 */
#include <linux/module.h>

#include "vfsb.h"

static int __init vfsb_init(void)
{
	int ret;

	ret = vfsb_dev_init();
	if (ret)
		return ret;
	pr_info("vfsbarrier %s loaded\n", VFSB_MODULE_VERSION);
	return 0;
}

static void __exit vfsb_exit(void)
{
	vfsb_dev_exit();
	pr_info("vfsbarrier unloaded\n");
}

module_init(vfsb_init);
module_exit(vfsb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("VFS write barriers and pre-modify records");
MODULE_VERSION(VFSB_MODULE_VERSION);
