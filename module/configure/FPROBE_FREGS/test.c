// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe on the function graph tracer (6.14+): handlers given
 * ftrace_regs, per-call data on the task's shadow stack.
 */
#include <linux/fprobe.h>

#ifndef CONFIG_FPROBE
#error "CONFIG_FPROBE is not set"
#endif

static int vfsb_probe_entry(struct fprobe *fp, unsigned long ip,
			    unsigned long ret_ip, struct ftrace_regs *fregs,
			    void *data)
{
	return 0;
}

int vfsb_probe(struct fprobe *fp, unsigned long *ips)
{
	fp->entry_handler = vfsb_probe_entry;
	return register_fprobe_ips(fp, ips, 1);
}
