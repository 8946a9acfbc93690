// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe with a return handler, per-call data and a pool of nr_maxactive
 * instances, handlers given pt_regs (6.0 to 6.13; ftrace_ops and rethook).
 */
#include <linux/fprobe.h>

#ifndef CONFIG_FPROBE
#error "CONFIG_FPROBE is not set"
#endif

static int vfsb_probe_entry(struct fprobe *fp, unsigned long ip,
			    unsigned long ret_ip, struct pt_regs *regs,
			    void *data)
{
	return 0;
}

int vfsb_probe(struct fprobe *fp, unsigned long *ips)
{
	fp->entry_handler = vfsb_probe_entry;
	fp->nr_maxactive = 1;
	return register_fprobe_ips(fp, ips, 1);
}
