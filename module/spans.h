/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Return hooks: a section from a call's entry to its return, for the
 * data helpers kernel threads write through, or to the completion of
 * what it submitted, for async submissions (hooks.c says which and
 * why). The mechanism is the kernel's: fprobe where it has one,
 * kretprobes otherwise (spans.c).
 */
#ifndef VFSB_SPANS_H
#define VFSB_SPANS_H

#include <linux/types.h>

struct vfsb_hook;

/* A call at its entry, as the span hooks see it. */
struct vfsb_span_call {
	unsigned long args[5];
	/* where the call's return address is on the stack */
	const void *key;
	unsigned long ret_ip;	/* the return address */
	unsigned long ip;	/* the function's ftrace site */
};

/* Per call, from entry to return. */
struct vfsb_span {
	const void *key;
	/* an async submission's request, whose section it tracks */
	void *req;
	/* left to the wrapper the call was to move into */
	bool unannounced;
};

int vfsb_spans_register(const struct vfsb_hook *hooks,
			const unsigned long *addr, size_t n, u32 cov);
void vfsb_spans_unregister(void);
unsigned long vfsb_spans_missed(void);

#endif /* VFSB_SPANS_H */
