// SPDX-License-Identifier: GPL-2.0
/*
 * vfsbarrier: VFS write barriers and pre-modify records for stock kernels.
 *
 * Module entry and exit: brings the parts up in dependency order and
 * takes them down in reverse.
 */

#include <linux/module.h>
#include <linux/workqueue.h>

#include "device.h"
#include "hookreg.h"
#include "hooks.h"
#include "sections.h"
#include "tracking.h"
#include "vfsb.h"

struct workqueue_struct *vfsb_wq;
struct workqueue_struct *vfsb_barrier_wq;

static int __init vfsb_init(void)
{
	int ret = -ENOMEM;

	vfsb_wq = alloc_workqueue("vfsbarrier", WQ_UNBOUND, 0);
	/* one round per stuck filesystem at most, each may sleep long */
	vfsb_barrier_wq = alloc_workqueue("vfsbarrier_exp", WQ_UNBOUND,
					  WQ_MAX_ACTIVE);
	if (!vfsb_wq || !vfsb_barrier_wq)
		goto err_wq;
	ret = vfsb_sections_init();
	if (ret)
		goto err_wq;
	vfsb_hooks_init();
	ret = vfsb_device_init();
	if (ret)
		goto err_sections;
	pr_info("vfsbarrier %s loaded\n", VFSB_MODULE_VERSION);
	return 0;

err_sections:
	vfsb_sections_exit();
err_wq:
	if (vfsb_barrier_wq)
		destroy_workqueue(vfsb_barrier_wq);
	if (vfsb_wq)
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
	vfsb_device_exit();
	vfsb_hookreg_exit();
	destroy_workqueue(vfsb_barrier_wq);
	destroy_workqueue(vfsb_wq);
	vfsb_tracking_exit();
	vfsb_sections_exit();
	pr_info("vfsbarrier unloaded\n");
}

module_init(vfsb_init);
module_exit(vfsb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("VFS write barriers and pre-modify records");
MODULE_VERSION(VFSB_MODULE_VERSION);
