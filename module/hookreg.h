/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Putting hooks into the kernel and taking them out: the mechanism.
 * What is hooked, and what each hook does, is hooks.c's table.
 */
#ifndef VFSB_HOOKREG_H
#define VFSB_HOOKREG_H

#include <linux/ftrace.h>
#include <linux/kprobes.h>

enum vfsb_hook_type {
	/* an ftrace callback at the function's entry */
	VFSB_HOOK_ENTRY,
	/*
	 * an ftrace callback that may make the call go on in a wrapper:
	 * only on a filesystem an intent subscriber watches, where the
	 * module holds the function's IPMODIFY (hookreg.c)
	 */
	VFSB_HOOK_REDIRECT,
	/* a kretprobe: entry and return handlers with per-call data */
	VFSB_HOOK_RETPROBE,
	/* a section from the call's entry to its return (spans.c) */
	VFSB_HOOK_SPAN,
};

struct vfsb_span_call;
struct vfsb_span;

struct vfsb_hook {
	const char *symbol;
	/* the same function's name in other kernels, tried if symbol fails */
	const char *alt_symbol;
	enum vfsb_hook_type type;
	/*
	 * VFSB_COV_* group. A group is hooked whole or not at all (a section
	 * opened by one of its hooks is closed by another), and a group
	 * that is not optional must be hooked for the hooks to go live.
	 */
	u32 cov;
	bool optional;
	/*
	 * ENTRY: closes sections (runs even when ftrace's recursion guard
	 * says it is nested: skipping it would leave a section open).
	 */
	bool closes;
	/*
	 * ENTRY that never moves its call, in any mode. Every other one
	 * that does not close may, in intent mode (hooks.c), and asks
	 * vfsb_hook_may_move() first.
	 */
	bool stays;
	/* ENTRY */
	void (*on_entry)(struct ftrace_regs *fregs);
	/*
	 * REDIRECT: the wrapper to continue in, when redirect() says so
	 * (only for an intent subscriber's filesystem)
	 */
	bool (*redirect)(struct ftrace_regs *fregs);
	unsigned long wrapper;
	/*
	 * REDIRECT of a function no module can link to: where to store its
	 * address for the wrapper to call it by, set before the hook goes
	 * live. Only for functions the kernel itself calls through
	 * pointers, which keep their ENDBR on IBT kernels (checked).
	 */
	unsigned long *call_addr;
	/*
	 * REDIRECT of a function no module can link to that the kernel
	 * calls only directly (sealed on IBT kernels: no ENDBR to call it
	 * through a pointer by): given where it is, before the hook goes
	 * live, for the wrapper to call it by a static call, a direct one.
	 */
	void (*set_call)(unsigned long ip);
	/*
	 * REDIRECT that announces nothing and only lets its calls wait:
	 * a kernel without it keeps its coverage, and those calls' changes
	 * go on unacked (cov is then reported in intent_unwaited).
	 */
	bool waits_only;
	/* RETPROBE */
	kretprobe_handler_t rp_entry;
	kretprobe_handler_t rp_return;
	size_t rp_data;
	/*
	 * SPAN: at the call's entry (preemption off), whether a section
	 * was opened, which span_exit() ends (or hands to the completion
	 * of an async write) at the call's return, given its return value.
	 */
	bool (*span_enter)(const struct vfsb_span_call *c,
			   struct vfsb_span *d);
	void (*span_exit)(struct vfsb_span *d, unsigned long ret);
};

/* Entries in the hook table at most: the callbacks' lookup is sized so. */
#define VFSB_HOOKS_MAX 96

void vfsb_hookreg_init(const struct vfsb_hook *hooks, size_t n);
unsigned long vfsb_hookreg_call_addr(const char *sym);
int vfsb_hookreg_get(void);
void vfsb_hookreg_put(void);
void vfsb_hookreg_coverage(u32 *live, u32 *known, u32 *state);
void vfsb_hookreg_peek(u32 *live, u32 *state);
void vfsb_hookreg_exit(void);
void vfsb_hookreg_intent_get(void);
void vfsb_hookreg_intent_put(void);
u32 vfsb_hookreg_unwaited(void);
bool vfsb_hookreg_moves(unsigned long ip);
void vfsb_hookreg_check_missed(void);

/*
 * Whether the entry callback running now may move its call (make the
 * traced function return at once, through another address): only where
 * the module holds ftrace's IPMODIFY on the function, which it takes
 * only while an intent subscriber exists, and which a livepatch or a
 * kprobe with a post_handler may hold instead (hookreg.c). False
 * outside an entry callback. Preemption is off in there.
 */
DECLARE_PER_CPU(bool, vfsb_entry_may_move);

static __always_inline bool vfsb_hook_may_move(void)
{
	return this_cpu_read(vfsb_entry_may_move);
}

/*
 * Tasks inside a wrapper (hooks.c). A wrapper may sleep in the function
 * it calls (on a frozen filesystem, a full disk, a lock) or for its ack,
 * holding no section, where synchronize_rcu_tasks() takes a sleeping
 * task as quiescent: the module's exit waits until none is left. A
 * count per CPU: a task may leave on another CPU than it entered on, so
 * only the sum means anything.
 */
DECLARE_PER_CPU(long, vfsb_wrappers_in);

static __always_inline void vfsb_wrapper_enter(void)
{
	this_cpu_inc(vfsb_wrappers_in);
}

static __always_inline void vfsb_wrapper_exit(void)
{
	this_cpu_dec(vfsb_wrappers_in);
}

#endif /* VFSB_HOOKREG_H */
