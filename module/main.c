// SPDX-License-Identifier: GPL-2.0
/*
 * vfsbarrier: VFS write barriers and pre-modify records for stock kernels.
 *
 * Module entry and exit: brings the parts up in dependency order and
 * takes them down in reverse.
 */
#include <linux/module.h>
#include <linux/workqueue.h>

#include "vfsb.h"

struct workqueue_struct *vfsb_wq;

static int __init vfsb_init(void)
{
	int ret;

	/* teardowns and expedited barriers; they block on SRCU */
	vfsb_wq = alloc_workqueue("vfsbarrier", WQ_UNBOUND, 0);
	if (!vfsb_wq)
		return -ENOMEM;
	ret = vfsb_taskslots_init();
	if (ret)
		goto err_wq;
	ret = vfsb_aio_init();
	if (ret)
		goto err_slots;
	ret = vfsb_dev_init();
	if (ret)
		goto err_aio;
	pr_info("vfsbarrier %s loaded\n", VFSB_MODULE_VERSION);
	return 0;

err_aio:
	vfsb_aio_exit();
err_slots:
	vfsb_taskslots_exit();
err_wq:
	destroy_workqueue(vfsb_wq);
	return ret;
}

/*
 * Reached only when no file is open and no tracking is left (each holds
 * a module reference until it is freed), so no section is in flight and
 * no hook has work left.
 */
static void __exit vfsb_exit(void)
{
	vfsb_dev_exit();
	vfsb_hooks_exit();
	destroy_workqueue(vfsb_wq);
	vfsb_sbtrack_exit();
	vfsb_aio_exit();
	vfsb_taskslots_exit();
	pr_info("vfsbarrier unloaded\n");
}

module_init(vfsb_init);
module_exit(vfsb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("VFS write barriers and pre-modify records");
MODULE_VERSION(VFSB_MODULE_VERSION);
