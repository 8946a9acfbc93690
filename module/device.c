// SPDX-License-Identifier: GPL-2.0
/*
 * The misc device /dev/vfsbarrier: open, release, read, poll; ioctls go
 * to ioctl.c.
 *
 * The node is created 0600; open, read and every ioctl check
 * CAP_SYS_ADMIN as well, because an fd may be handed to an unprivileged
 * process.
 */

#include <linux/capability.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>

#include "barrier.h"
#include "client.h"
#include "hookreg.h"
#include "device.h"
#include "intent.h"
#include "ioctl.h"
#include "ring.h"
#include "watch.h"

/*
 * EPOLLIN: records to read. EPOLLPRI: a barrier started with
 * VFSB_IOC_BARRIER_START has completed.
 */
static __poll_t vfsb_poll(struct file *file, poll_table *wait)
{
	struct vfsb_client *c = file->private_data;
	/* pairs with the release in vfsb_subscribe(): a ring set up whole */
	struct vfsb_ring *ring = smp_load_acquire(&c->ring);
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
	/* pairs with the release in vfsb_subscribe(): a ring set up whole */
	struct vfsb_ring *ring = smp_load_acquire(&c->ring);

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!ring)
		return -EINVAL;	/* not subscribed */
	return vfsb_ring_read(ring, buf, count, file->f_flags & O_NONBLOCK);
}

static long vfsb_unlocked_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	return vfsb_ioctl(file->private_data, cmd, (void __user *)arg);
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

static int vfsb_release(struct inode *inode, struct file *file)
{
	struct vfsb_client *c = file->private_data;

	/* writers waiting for this journal's acks go on (or fail) now */
	if (c->intent)
		vfsb_intent_dying(c->intent);
	vfsb_watch_remove_all(c);
	vfsb_barrier_drop_client(c);
	if (c->ring) {
		/* emitters found the ring through links unwatching removed */
		synchronize_rcu();
		if (c->intent) {
			vfsb_intent_close(c->intent);
			vfsb_hookreg_intent_put();
		}
		c->intent = NULL;
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
	.unlocked_ioctl = vfsb_unlocked_ioctl,
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

int vfsb_device_init(void)
{
	int ret = misc_register(&vfsb_misc);

	if (ret)
		pr_err("misc_register failed: %d\n", ret);
	return ret;
}

void vfsb_device_exit(void)
{
	misc_deregister(&vfsb_misc);
}
