// SPDX-License-Identifier: GPL-2.0
/*
 * Intent mode: subscribing as a journal, acknowledging intents once they
 * are durable, and closing epochs with checkpoints.
 */
#include "vfsb.h"

int vfsb_subscribe_intent(int dev, __u32 ring_bytes, __u32 flags,
			  __u32 timeout_ms, __u64 *journal_id)
{
	struct vfsb_subscribe s = {
		.ring_bytes = ring_bytes, .flags = VFSB_SUB_INTENT | flags,
		.intent_timeout_ms = timeout_ms,
	};
	int ret = vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s);

	if (!ret && journal_id)
		*journal_id = s.journal_id;
	return ret;
}

int vfsb_ack(int dev, __u64 seq)
{
	struct vfsb_ack a = { .seq = seq };

	return vfsb_ioctl(dev, VFSB_IOC_ACK, &a);
}

int vfsb_checkpoint(int dev, __u32 timeout_ms, __u64 *closed_epoch)
{
	struct vfsb_checkpoint cp = { .timeout_ms = timeout_ms };
	int ret = vfsb_ioctl(dev, VFSB_IOC_CHECKPOINT, &cp);

	if (closed_epoch)
		*closed_epoch = cp.epoch;
	return ret;
}
