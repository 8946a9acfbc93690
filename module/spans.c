// SPDX-License-Identifier: GPL-2.0
/*
 * Return hooks for the data helpers' sections (hooks.c, "the data
 * helpers: a section from entry to return") and the async submissions'
 * (hooks.c, "async writes"): each call's entry and its return, with its
 * return value and a little data of its own between the two, and no
 * ftrace IPMODIFY on the function, so that a livepatch there and a
 * watch coexist.
 *
 * Where the kernel has fprobe (Debian's 6.12 and 7.x), one fprobe holds
 * them all: an ftrace_ops of its own with a rethook pool of
 * nr_maxactive instances (6.12: include/linux/fprobe.h, struct fprobe),
 * or, from 6.14, a function-graph return on the task's shadow stack
 * (7.3: include/linux/fprobe.h, struct fprobe without a pool). It shares
 * nothing with kprobes, so a kprobe someone else puts there is armed
 * and disarmed on its own. Elsewhere (Debian's 6.1: no CONFIG_FPROBE)
 * a kretprobe per function, whose kprobe on the ftrace site goes
 * through kprobes' ftrace_ops without IPMODIFY (6.1 kernel/kprobes.c
 * 1060-1068 and 1101-1107, arm_kprobe_ftrace()); a kprobe with a
 * post_handler added there later joins it as an aggregate probe, which
 * 6.1 then fails to disarm when this one goes ("Failed to disarm
 * kprobe-ftrace",
 * kernel/kprobes.c 1126-1127: add_new_kprobe() 1258-1268 gives the
 * aggregate a post_handler without re-arming it for IPMODIFY). That is
 * 6.1's trade: a livepatch, the case that matters for security fixes,
 * shares the function; such a kprobe gets a WARNING at our unload
 * instead of EBUSY at its own load.
 *
 * A call the mechanism misses (no instance free; a kprobe skipped inside
 * another kprobe's handler; a nested ftrace callback) runs without its
 * section, and only the mechanism's nmissed counter says so:
 * vfsb_spans_missed() sums them for hookreg.c, which turns any increase
 * into a RESCAN before the next barrier. A call that got its entry
 * always gets its return: nothing takes an instance away from a
 * running call but unregistering, which waits for every tracking and
 * so for every section to end (hookreg.c).
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/slab.h>
#ifdef VFSB_SPAN_FPROBE
#include <linux/fprobe.h>
#endif

#include "hookreg.h"
#include "spans.h"

/*
 * Calls in flight at once: one per task inside a helper (an nfsd or
 * ksmbd thread in a write, a few with overlayfs nesting; a task in a
 * fallocate or copy; an io_uring submission, or an io-wq worker's
 * blocking write; an overlayfs AIO submission, until it is queued).
 * nfsd's threads are 8 to 64 by default (at most 8192); a miss is a
 * RESCAN, not a loss. fprobe's pool (6.12) serves
 * all the helpers at once; a kretprobe's, one helper, and its instances
 * are allocated at each registration of the hooks, so it is smaller.
 */
#define VFSB_SPAN_MAXACTIVE	4096
#define VFSB_SPAN_KRP_MAXACTIVE	1024

static const struct vfsb_hook **vfsb_span_hooks;
static unsigned long *vfsb_span_ips;
static size_t vfsb_nr_spans;

#ifdef VFSB_SPAN_FPROBE
static struct fprobe vfsb_fprobe;
static bool vfsb_fprobe_registered;

/* A short list (ten at most), looked up on each entry of a hooked call. */
static const struct vfsb_hook *vfsb_span_find(unsigned long ip)
{
	size_t i;

	for (i = 0; i < vfsb_nr_spans; i++)
		if (vfsb_span_ips[i] == ip)
			return vfsb_span_hooks[i];
	return NULL;
}

/* The handlers' parameters: ftrace_regs from 6.14, pt_regs before. */
#ifdef VFSB_HAVE_FPROBE_FREGS
#define VFSB_FP_PARAMS	struct fprobe *fp, unsigned long ip,		\
			unsigned long ret_ip, struct ftrace_regs *regs,	\
			void *data
#define vfsb_fp_arg(r, n)	ftrace_regs_get_argument(r, n)
#define vfsb_fp_sp(r)		ftrace_regs_get_stack_pointer(r)
#define vfsb_fp_ret(r)		ftrace_regs_get_return_value(r)
#else
#define VFSB_FP_PARAMS	struct fprobe *fp, unsigned long ip,		\
			unsigned long ret_ip, struct pt_regs *regs,	\
			void *data
#define vfsb_fp_arg(r, n)	regs_get_kernel_argument(r, n)
#define vfsb_fp_sp(r)		kernel_stack_pointer(r)
#define vfsb_fp_ret(r)		regs_return_value(r)
#endif

/*
 * fprobe's entry handler: in the traced call's task, preemption off,
 * inside ftrace's recursion guard (a nested call is counted in nmissed
 * and never gets here). Nonzero: no return handler for this call.
 * regs' stack pointer is where the return address is (x86: 7.3
 * arch/x86/include/asm/ftrace.h, ftrace_regs_get_return_address()).
 */
static int vfsb_fp_entry(VFSB_FP_PARAMS)
{
	const struct vfsb_hook *h = vfsb_span_find(ip);
	struct vfsb_span_call c;
	int i;

	if (!h)
		return 1;
	for (i = 0; i < ARRAY_SIZE(c.args); i++)
		c.args[i] = vfsb_fp_arg(regs, i);
	c.key = (const void *)vfsb_fp_sp(regs);
	c.ret_ip = ret_ip;
	c.ip = ip;
	return h->span_enter(&c, data) ? 0 : 1;
}

/*
 * At the return of a call whose entry handler returned 0, in its task;
 * regs hold its return value.
 */
static void vfsb_fp_exit(VFSB_FP_PARAMS)
{
	const struct vfsb_hook *h = vfsb_span_find(ip);

	if (!WARN_ON_ONCE(!h))
		h->span_exit(data, vfsb_fp_ret(regs));
}

static int vfsb_spans_attach(void)
{
	int ret;

	memset(&vfsb_fprobe, 0, sizeof(vfsb_fprobe));
	vfsb_fprobe.entry_handler = vfsb_fp_entry;
	vfsb_fprobe.exit_handler = vfsb_fp_exit;
	vfsb_fprobe.entry_data_size = sizeof(struct vfsb_span);
#ifndef VFSB_HAVE_FPROBE_FREGS
	vfsb_fprobe.nr_maxactive = VFSB_SPAN_MAXACTIVE;
#endif
	ret = register_fprobe_ips(&vfsb_fprobe, vfsb_span_ips, vfsb_nr_spans);
	if (ret) {
		pr_err("fprobe on the data helpers failed: %d\n", ret);
		return ret;
	}
	vfsb_fprobe_registered = true;
	return 0;
}

static void vfsb_spans_detach(void)
{
	if (vfsb_fprobe_registered)
		unregister_fprobe(&vfsb_fprobe);
	vfsb_fprobe_registered = false;
}

unsigned long vfsb_spans_missed(void)
{
	return vfsb_fprobe_registered ? READ_ONCE(vfsb_fprobe.nmissed) : 0;
}
#else /* kretprobes */
static struct kretprobe *vfsb_span_krps;

/*
 * A kretprobe's entry handler: in the traced call's task, preemption
 * off; only when an instance was free (else nmissed counts the call:
 * 6.1 kernel/kprobes.c pre_handler_kretprobe() 2135-2139). regs->sp is
 * where the return address is (6.1 arch/x86/kernel/rethook.c
 * 117-126, arch_rethook_prepare() reads and replaces it there).
 */
static int vfsb_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct vfsb_span_call c;
	size_t i;
	int n;

	if (!rp)
		return 1;
	i = rp - vfsb_span_krps;
	for (n = 0; n < ARRAY_SIZE(c.args); n++)
		c.args[n] = regs_get_kernel_argument(regs, n);
	c.key = (const void *)kernel_stack_pointer(regs);
	c.ret_ip = *(const unsigned long *)c.key;
	c.ip = vfsb_span_ips[i];
	return vfsb_span_hooks[i]->span_enter(&c, (void *)ri->data) ? 0 : 1;
}

/* At the return; regs hold the return value. */
static int vfsb_krp_return(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	const struct vfsb_hook *h;

	if (WARN_ON_ONCE(!rp))
		return 0;
	h = vfsb_span_hooks[rp - vfsb_span_krps];
	h->span_exit((void *)ri->data, regs_return_value(regs));
	return 0;
}

static void vfsb_spans_detach(void)
{
	size_t i;

	for (i = 0; vfsb_span_krps && i < vfsb_nr_spans; i++)
		if (vfsb_span_krps[i].kp.addr)
			unregister_kretprobe(&vfsb_span_krps[i]);
	kfree(vfsb_span_krps);
	vfsb_span_krps = NULL;
}

static int vfsb_spans_attach(void)
{
	size_t i;
	int ret;

	vfsb_span_krps = kcalloc(vfsb_nr_spans, sizeof(*vfsb_span_krps),
				 GFP_KERNEL);
	if (!vfsb_span_krps)
		return -ENOMEM;
	for (i = 0; i < vfsb_nr_spans; i++) {
		struct kretprobe *rp = &vfsb_span_krps[i];

		rp->kp.addr = (kprobe_opcode_t *)vfsb_span_ips[i];
		rp->entry_handler = vfsb_krp_entry;
		rp->handler = vfsb_krp_return;
		rp->data_size = sizeof(struct vfsb_span);
		rp->maxactive = VFSB_SPAN_KRP_MAXACTIVE;
		ret = register_kretprobe(rp);
		if (!ret)
			continue;
		memset(rp, 0, sizeof(*rp));
		pr_err("kretprobe on %s failed: %d\n",
		       vfsb_span_hooks[i]->symbol, ret);
		vfsb_spans_detach();
		return ret;
	}
	return 0;
}

unsigned long vfsb_spans_missed(void)
{
	unsigned long sum = 0;
	size_t i;

	for (i = 0; vfsb_span_krps && i < vfsb_nr_spans; i++)
		sum += READ_ONCE(vfsb_span_krps[i].kp.nmissed) +
		       READ_ONCE(vfsb_span_krps[i].nmissed);
	return sum;
}
#endif

void vfsb_spans_unregister(void)
{
	vfsb_spans_detach();
	kfree(vfsb_span_hooks);
	kfree(vfsb_span_ips);
	vfsb_span_hooks = NULL;
	vfsb_span_ips = NULL;
	vfsb_nr_spans = 0;
}

/*
 * The span hooks of the groups in cov, at the addresses hookreg.c found
 * (their ftrace sites). Under hookreg.c's mutex; 0 or an error, with
 * nothing registered then.
 */
int vfsb_spans_register(const struct vfsb_hook *hooks,
			const unsigned long *addr, size_t n, u32 cov)
{
	size_t i;
	int ret;

	vfsb_span_hooks = kcalloc(n, sizeof(*vfsb_span_hooks), GFP_KERNEL);
	vfsb_span_ips = kcalloc(n, sizeof(*vfsb_span_ips), GFP_KERNEL);
	if (!vfsb_span_hooks || !vfsb_span_ips) {
		vfsb_spans_unregister();
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!hooks[i].symbol || hooks[i].type != VFSB_HOOK_SPAN ||
		    !(hooks[i].cov & cov))
			continue;
		vfsb_span_hooks[vfsb_nr_spans] = &hooks[i];
		vfsb_span_ips[vfsb_nr_spans++] = addr[i];
	}
	if (!vfsb_nr_spans)
		return 0;
	ret = vfsb_spans_attach();
	if (ret)
		vfsb_spans_unregister();
	return ret;
}
