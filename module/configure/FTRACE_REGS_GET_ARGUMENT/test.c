// SPDX-License-Identifier: GPL-2.0
/* struct ftrace_regs is opaque and read with ftrace_regs_get_argument(). */
#include <linux/ftrace.h>

unsigned long vfsb_probe(struct ftrace_regs *fregs)
{
	return ftrace_regs_get_argument(fregs, 0);
}
