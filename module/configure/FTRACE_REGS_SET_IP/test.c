// SPDX-License-Identifier: GPL-2.0
/* The traced call's continuation is set with ftrace_regs_set_instruction_pointer() (6.3+). */
#include <linux/ftrace.h>

void vfsb_probe(struct ftrace_regs *fregs, unsigned long ip)
{
	ftrace_regs_set_instruction_pointer(fregs, ip);
}
