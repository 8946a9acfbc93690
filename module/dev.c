// SPDX-License-Identifier: GPL-2.0
/*
 * The misc device /dev/vfsbarrier: open/release and ioctl dispatch.
 *
 * The node is created 0600; every ioctl checks CAP_SYS_ADMIN as well,
 * because an fd may be handed to an unprivileged process.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/miscdevice.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/vfsbarrier.h>

#include "vfsb.h"

static long vfsb_ioc_version(void __user *arg)
{
	struct vfsb_version v = {
		.abi_version = VFSB_ABI_VERSION,
	};

	strscpy(v.module_version, VFSB_MODULE_VERSION,
		sizeof(v.module_version));
	if (copy_to_user(arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

static long vfsb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vfsb_client *c = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	mutex_lock(&c->lock);
	switch (cmd) {
	case VFSB_IOC_GET_VERSION:
		ret = vfsb_ioc_version(uarg);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&c->lock);
	return ret;
}

static int vfsb_open(struct inode *inode, struct file *file)
{
	struct vfsb_client *c;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	mutex_init(&c->lock);
	file->private_data = c;
	return nonseekable_open(inode, file);
}

static int vfsb_release(struct inode *inode, struct file *file)
{
	struct vfsb_client *c = file->private_data;

	mutex_destroy(&c->lock);
	kfree(c);
	return 0;
}

static const struct file_operations vfsb_fops = {
	.owner = THIS_MODULE,
	.open = vfsb_open,
	.release = vfsb_release,
	.unlocked_ioctl = vfsb_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice vfsb_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "vfsbarrier",
	.fops = &vfsb_fops,
	.mode = 0600,
};

int vfsb_dev_init(void)
{
	int ret = misc_register(&vfsb_misc);

	if (ret)
		pr_err("misc_register failed: %d\n", ret);
	return ret;
}

void vfsb_dev_exit(void)
{
	misc_deregister(&vfsb_misc);
}
