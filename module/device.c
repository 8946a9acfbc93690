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
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/vfsbarrier.h>

#include "records.h"
#include "vfsb.h"

static long vfsb_ioc_version(void __user *arg)
{
	struct vfsb_version v = {
		.abi_version = VFSB_ABI_VERSION,
		.features = VFSB_FEAT_BARRIER | VFSB_FEAT_ASYNC_BARRIER |
			    VFSB_FEAT_RECORDS,
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

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	/* each handler takes c->lock as it needs: barriers wait unlocked */
	switch (cmd) {
	case VFSB_IOC_GET_VERSION:
		return vfsb_ioc_version(uarg);
	case VFSB_IOC_WATCH:
		return vfsb_ioc_watch(c, uarg);
	case VFSB_IOC_UNWATCH:
		return vfsb_ioc_unwatch(c, uarg);
	case VFSB_IOC_LIST:
		return vfsb_ioc_list(c, uarg);
	case VFSB_IOC_BARRIER:
		return vfsb_ioc_barrier(c, uarg);
	case VFSB_IOC_BARRIER_START:
		return vfsb_ioc_barrier_start(c, uarg);
	case VFSB_IOC_BARRIER_POLL:
		return vfsb_ioc_barrier_poll(c, uarg);
	case VFSB_IOC_STATS:
		return vfsb_ioc_stats(c, uarg);
	case VFSB_IOC_SUBSCRIBE:
		return vfsb_ioc_subscribe(c, uarg);
	default:
		return -ENOTTY;
	}
}

/*
 * EPOLLIN: records to read. EPOLLPRI: a barrier started with
 * VFSB_IOC_BARRIER_START has completed.
 */
static __poll_t vfsb_poll(struct file *file, poll_table *wait)
{
	struct vfsb_client *c = file->private_data;
	struct vfsb_ring *ring = READ_ONCE(c->ring);
	__poll_t mask = 0;

	poll_wait(file, &c->wq, wait);
	if (atomic_read(&c->nr_async_done) > 0)
		mask |= EPOLLPRI;
	if (ring && vfsb_ring_readable(ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

static ssize_t vfsb_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct vfsb_client *c = file->private_data;
	struct vfsb_ring *ring = READ_ONCE(c->ring);

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!ring)
		return -EINVAL;	/* not subscribed */
	return vfsb_ring_read(ring, buf, count, file->f_flags & O_NONBLOCK);
}

static int vfsb_open(struct inode *inode, struct file *file)
{
	struct vfsb_client *c;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	refcount_set(&c->ref, 1);
	mutex_init(&c->lock);
	INIT_LIST_HEAD(&c->watches);
	spin_lock_init(&c->async_lock);
	INIT_LIST_HEAD(&c->async);
	init_waitqueue_head(&c->wq);
	file->private_data = c;
	return nonseekable_open(inode, file);
}

/* May run from an SRCU callback: nothing here sleeps. */
void vfsb_client_put(struct vfsb_client *c)
{
	if (!refcount_dec_and_test(&c->ref))
		return;
	mutex_destroy(&c->lock);
	kfree(c);
}

static int vfsb_release(struct inode *inode, struct file *file)
{
	struct vfsb_client *c = file->private_data;

	vfsb_client_unwatch_all(c);
	vfsb_client_drop_async(c);
	if (c->ring) {
		/* emitters found the ring through links unwatch removed */
		synchronize_rcu();
		vfsb_ring_free(c->ring);
		c->ring = NULL;
	}
	vfsb_client_put(c);
	return 0;
}

static const struct file_operations vfsb_fops = {
	.owner = THIS_MODULE,
	.open = vfsb_open,
	.release = vfsb_release,
	.unlocked_ioctl = vfsb_ioctl,
	.poll = vfsb_poll,
	.read = vfsb_read,
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
