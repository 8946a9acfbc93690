// SPDX-License-Identifier: GPL-2.0
/*
 * Administrator-visible state: read-only files under
 * /sys/module/vfsbarrier/parameters/, where modinfo and administrators
 * look, next to the tunables.
 *
 *   hooks     off, live or lingering (in with nothing tracked, until
 *             hooks_linger_ms has passed)
 *   coverage  the write paths the hooks cover now, by VFSB_COV_* group
 *             name, comma separated; empty while the hooks are out
 *   watches   superblocks tracked now: watched by an opener (one
 *             unmounted since included, until unwatched), or still
 *             held by a barrier that is running
 *
 * The same as VFSB_IOC_GET_VERSION and VFSB_IOC_STATS say, without
 * opening the device (which needs CAP_SYS_ADMIN).
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <uapi/linux/vfsbarrier.h>

#include "hookreg.h"
#include "tracking.h"

/*
 * Mode 0444 keeps sysfs from writing them, but insmod and modprobe
 * options call ->set without checking it is there: refuse, not oops.
 */
static int vfsb_param_refuse(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int vfsb_param_hooks_get(char *buf, const struct kernel_param *kp)
{
	static const char * const names[] = {
		[VFSB_HOOKS_OFF] = "off",
		[VFSB_HOOKS_LIVE] = "live",
		[VFSB_HOOKS_LINGERING] = "lingering",
	};
	u32 live, state;

	vfsb_hookreg_peek(&live, &state);
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 state < ARRAY_SIZE(names) ? names[state] : "?");
}

/* The names libvfsb's vfsb_coverage_name() gives, by bit. */
static const char * const vfsb_cov_names[] = {
	[ilog2(VFSB_COV_NAMESPACE)] = "namespace",
	[ilog2(VFSB_COV_DATA)] = "data",
	[ilog2(VFSB_COV_SPLICE)] = "splice",
	[ilog2(VFSB_COV_REMAP)] = "remap",
	[ilog2(VFSB_COV_MMAP)] = "mmap",
	[ilog2(VFSB_COV_IO_URING)] = "io_uring",
	[ilog2(VFSB_COV_AIO)] = "aio",
	[ilog2(VFSB_COV_IOCB)] = "iocb",
	[ilog2(VFSB_COV_ACL)] = "acl",
	[ilog2(VFSB_COV_FILEATTR)] = "fileattr",
	[ilog2(VFSB_COV_KERNEL_WRITE)] = "kernel_write",
	[ilog2(VFSB_COV_VERITY)] = "verity",
	[ilog2(VFSB_COV_FSCRYPT)] = "fscrypt",
};

static int vfsb_param_coverage_get(char *buf, const struct kernel_param *kp)
{
	unsigned long live;
	u32 cov, state;
	int bit, n = 0;

	vfsb_hookreg_peek(&cov, &state);
	live = cov;
	for_each_set_bit(bit, &live, 32) {
		const char *sep = n ? "," : "";

		/* a group added to the ABI and not here still shows */
		if (bit < ARRAY_SIZE(vfsb_cov_names) && vfsb_cov_names[bit])
			n += scnprintf(buf + n, PAGE_SIZE - n, "%s%s", sep,
				       vfsb_cov_names[bit]);
		else
			n += scnprintf(buf + n, PAGE_SIZE - n, "%sbit%d", sep,
				       bit);
	}
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	return n;
}

static int vfsb_param_watches_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", atomic_read(&vfsb_nr_tracked));
}

static const struct kernel_param_ops vfsb_hooks_ops = {
	.set = vfsb_param_refuse,
	.get = vfsb_param_hooks_get,
};

static const struct kernel_param_ops vfsb_coverage_ops = {
	.set = vfsb_param_refuse,
	.get = vfsb_param_coverage_get,
};

static const struct kernel_param_ops vfsb_watches_ops = {
	.set = vfsb_param_refuse,
	.get = vfsb_param_watches_get,
};

module_param_cb(hooks, &vfsb_hooks_ops, NULL, 0444);
MODULE_PARM_DESC(hooks, "read-only: the hooks are off, live, or lingering");
module_param_cb(coverage, &vfsb_coverage_ops, NULL, 0444);
MODULE_PARM_DESC(coverage,
		 "read-only: the write paths the hooks cover now (VFSB_COV_* groups)");
module_param_cb(watches, &vfsb_watches_ops, NULL, 0444);
MODULE_PARM_DESC(watches, "read-only: superblocks tracked now");
