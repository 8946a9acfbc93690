// SPDX-License-Identifier: GPL-2.0
/*
 * Putting the hooks into the kernel and taking them out.
 *
 * hooks.c owns the table of what is hooked; this file only registers it.
 * Every entry callback and every redirect of the table shares one
 * ftrace_ops, AIO's return probe is a kretprobe, and the sections from
 * entry to return of the data helpers and of the async submissions
 * (io_uring's io_write(), vfs_iocb_iter_write()) are spans.c's return
 * hooks (fprobe, or kretprobes): none of these holds ftrace's
 * IPMODIFY, which ftrace grants one ops per function. An entry
 * callback moves a call only in intent mode (hooks.c), and a redirect
 * moves its call into its wrapper only on a filesystem an intent
 * subscriber watches; a second ops takes IPMODIFY on the functions
 * whose hooks may move a call, and their hooks with it, only while an
 * intent subscriber exists (see "Moving calls" below): a
 * livepatch or a kprobe with a post_handler, which need IPMODIFY too,
 * can share every hooked function with a watch, and every one but
 * those while an intent subscriber exists. Each registration patches kernel
 * text (text_poke with breakpoints and IPIs to every CPU), so the
 * whole table goes in and out in a handful of
 * patching rounds, not one per hooked function. The callbacks dispatch
 * on the traced function's address, which a disabled kprobe (it patches
 * nothing) resolves once per registration.
 *
 * Order: closing hooks go in before the hooks that open what they close
 * (entry callbacks, which end write access and async writes, then the
 * return probes) and come out after them. The ftrace
 * ops are FTRACE_OPS_FL_PERMANENT: while they are in, `sysctl
 * kernel.ftrace_enabled=0` is refused, so no section can lose its
 * closing hook. The hooks are in only while some superblock is tracked,
 * and for a while after (hooks_linger_ms): loading the module costs the
 * system nothing, and a service that watches and unwatches often does
 * not patch the kernel each time.
 */

#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/uaccess.h>
#include <uapi/linux/vfsbarrier.h>

#include "emit.h"
#include "hookreg.h"
#include "spans.h"
#include "tracking.h"
#include "vfsb.h"
#include "vfsb_trace.h"

static unsigned int hooks_linger_ms = 10000;
module_param(hooks_linger_ms, uint, 0600);
MODULE_PARM_DESC(hooks_linger_ms,
		 "keep the hooks this long after the last watch is gone");

/*
 * Test knob: a function named here counts as absent from this kernel,
 * so the suite can show what a consumer sees when a hook is missing.
 * Compared as sysfs input (`echo NAME`); a lone newline clears it, as
 * sysfs ignores an empty write.
 */
static char *fail_hook;
module_param(fail_hook, charp, 0600);
MODULE_PARM_DESC(fail_hook, "for tests: treat this function as unhookable");

/*
 * Return probes' instances: calls in flight at once in a probed function
 * (a submission blocked in the filesystem holds one). When none is free
 * the call goes unbracketed, and its data write is announced unfenced
 * with a RESCAN record.
 */
#define VFSB_RP_MAXACTIVE 2048

static const struct vfsb_hook *vfsb_hooks;
static size_t vfsb_nr_hooks;

#ifdef VFSB_HOOK_STATS
/*
 * Benchmark builds only (make ... VFSB_HOOK_STATS=y, as scripts/bench.sh
 * builds one): how often each hook's callback ran, read as
 * parameters/hook_hits ("symbol calls" lines), so that the benchmarks
 * can say how many hooks an operation runs. Never in the module that
 * gets installed: it costs a per-CPU increment on every hooked call.
 */
#define VFSB_STATS_HOOKS	128
static DEFINE_PER_CPU(unsigned long[VFSB_STATS_HOOKS], vfsb_hook_hits);

static void vfsb_hook_hit(const struct vfsb_hook *h)
{
	size_t i = h - vfsb_hooks;

	if (i < VFSB_STATS_HOOKS)
		this_cpu_inc(vfsb_hook_hits[i]);
}

static int vfsb_hook_hits_get(char *buf, const struct kernel_param *kp)
{
	size_t i;
	int cpu, n = 0;

	for (i = 0; i < vfsb_nr_hooks && i < VFSB_STATS_HOOKS; i++) {
		unsigned long sum = 0;

		if (!vfsb_hooks[i].symbol)
			continue;
		for_each_possible_cpu(cpu)
			sum += per_cpu(vfsb_hook_hits, cpu)[i];
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s %lu\n",
			       vfsb_hooks[i].symbol, sum);
	}
	return n;
}

static int vfsb_hook_hits_refuse(const char *val,
				 const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops vfsb_hook_hits_ops = {
	.set = vfsb_hook_hits_refuse,
	.get = vfsb_hook_hits_get,
};
module_param_cb(hook_hits, &vfsb_hook_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hook_hits, "benchmark builds: calls of each hook");
#else
static inline void vfsb_hook_hit(const struct vfsb_hook *h)
{
}
#endif

/*
 * The live hooks of one ftrace_ops, by the address of their function's
 * ftrace call site: an open-addressed table the callbacks look up on
 * every call of a hooked function, watched or not, so a lookup is a
 * hash and (nearly always) one compare, not a search through a sorted
 * array with a call per step. At most half full (BUILD_BUG_ON below),
 * so a probe sequence ends at an empty slot quickly.
 */
#define VFSB_LIVE_BITS	8
#define VFSB_LIVE_SLOTS	BIT(VFSB_LIVE_BITS)

struct vfsb_live {
	unsigned long ip;		/* 0: empty */
	const struct vfsb_hook *h;
	/*
	 * entry: its IPMODIFY is ours, and vfsb_move_ops's callback runs
	 * its hook (the entry callbacks' ops passes it by)
	 */
	bool moves;
	bool held;	/* in vfsb_move_ops's filter; under vfsb_hooks_mutex */
};

struct vfsb_ftgroup {
	struct ftrace_ops ops;
	struct vfsb_live live[VFSB_LIVE_SLOTS];
	size_t nr;
	size_t in_filter;	/* of nr: in ops's filter (not waits_only) */
	bool registered;
};

static struct vfsb_ftgroup vfsb_entry_group;
static struct kretprobe *vfsb_rps;	/* one per table entry, when live */
/* spans' missed calls when last looked at; under vfsb_hooks_mutex */
static unsigned long vfsb_spans_missed_seen;
static u32 vfsb_cov_live, vfsb_cov_known;
static atomic_long_t vfsb_recursion_skips = ATOMIC_LONG_INIT(0);

DEFINE_PER_CPU(bool, vfsb_entry_may_move);

static void vfsb_live_add(struct vfsb_ftgroup *g, unsigned long ip,
			  const struct vfsb_hook *h)
{
	unsigned int i = hash_long(ip, VFSB_LIVE_BITS);

	while (g->live[i].ip)
		i = (i + 1) & (VFSB_LIVE_SLOTS - 1);
	g->live[i].ip = ip;
	g->live[i].h = h;
	g->nr++;
}

static struct vfsb_live *vfsb_live_slot(struct vfsb_ftgroup *g,
					unsigned long ip)
{
	unsigned int i = hash_long(ip, VFSB_LIVE_BITS);

	for (;;) {
		struct vfsb_live *l = &g->live[i];

		if (l->ip == ip)
			return l;
		if (!l->ip)
			return NULL;
		i = (i + 1) & (VFSB_LIVE_SLOTS - 1);
	}
}

/*
 * A hook that ftrace's recursion guard skipped: its function was called
 * from inside a callback of some tracer (a kprobe's or an ftrace
 * handler that writes a file, say), in this context. What that call
 * changes is not announced: every tracked filesystem gets a RESCAN
 * (which one the call is about, only the skipped hook could tell).
 * Any context the hooked functions run in; never sleeps.
 */
static void vfsb_recursion_missed(void)
{
	atomic_long_inc(&vfsb_recursion_skips);
	if (atomic_read(&vfsb_nr_tracked))
		vfsb_tracking_all_rcu(vfsb_emit_rescan, VFSB_RESCAN_NO_HOOK);
}

/*
 * Whose ftrace_ops a hook's callback is in: a redirect goes with the
 * entry callbacks, whose ops has no IPMODIFY.
 */
static enum vfsb_hook_type vfsb_hook_ops(const struct vfsb_hook *h)
{
	return h->type == VFSB_HOOK_REDIRECT ? VFSB_HOOK_ENTRY : h->type;
}

/* ---- the ftrace callback ---- */

/*
 * A redirect, in the entry callbacks' ops: the call goes on in its
 * wrapper only where vfsb_move_ops holds the function, else where it
 * would have gone (its hooks inside settle the change as one that
 * cannot wait, its return hook brackets it). The wrapper, which calls
 * the function by its linked symbol (IBT kernels forbid calls through
 * resolved addresses), has its own call recognised by its return
 * address in this module and let through.
 */
static void vfsb_entry_redirect(const struct vfsb_live *l, unsigned long pip,
				struct ftrace_regs *fregs, int bit)
{
	const struct vfsb_hook *h = l->h;

	if (within_module(pip, THIS_MODULE))
		return;
	/*
	 * Nested: a data helper's return hook is skipped too, whatever
	 * the mode (an fprobe counts that in nmissed, a kretprobe's kprobe
	 * does not: 6.1 arch/x86/kernel/kprobes/ftrace.c 24-26).
	 */
	if (bit < 0) {
		vfsb_recursion_missed();
		return;
	}
	vfsb_hook_hit(h);
	if (READ_ONCE(l->moves) && h->redirect(fregs))
		vfsb_fregs_set_ip(fregs, h->wrapper);
}

/*
 * Entry callbacks. They run inside the traced function's caller with
 * preemption disabled and call nothing that is hooked. A callback that
 * closes a section runs even when ftrace's recursion guard says it is
 * nested (skipping it would leave the section open for good); the
 * others are skipped then, with a RESCAN. A callback may move its call
 * only where the module holds the function's IPMODIFY (l->moves): it
 * learns that from vfsb_hook_may_move(), set around the call (and put
 * back after, for the callback this one may have interrupted).
 */
static void notrace vfsb_entry_run(const struct vfsb_live *l,
				   unsigned long ip, unsigned long pip,
				   struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, pip);
	bool moved;

	if (l->h->type == VFSB_HOOK_REDIRECT) {
		vfsb_entry_redirect(l, pip, fregs, bit);
	} else if (bit >= 0) {
		vfsb_hook_hit(l->h);
		moved = this_cpu_read(vfsb_entry_may_move);
		this_cpu_write(vfsb_entry_may_move, READ_ONCE(l->moves));
		l->h->on_entry(fregs);
		this_cpu_write(vfsb_entry_may_move, moved);
	} else if (l->h->closes) {
		/* closes only: never moves, never asks */
		vfsb_hook_hit(l->h);
		l->h->on_entry(fregs);
	} else {
		vfsb_recursion_missed();
	}
	if (bit >= 0)
		ftrace_test_recursion_unlock(bit);
}

/* The entry callbacks' ops: every hook but those vfsb_move_ops runs. */
static void notrace vfsb_entry_cb(unsigned long ip, unsigned long pip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	const struct vfsb_live *l = vfsb_live_slot(&vfsb_entry_group, ip);

	if (l && !READ_ONCE(l->moves))
		vfsb_entry_run(l, ip, pip, fregs);
}

/* ---- registration ---- */

/* A disabled kprobe on sym, in kp (zeroed first): register_kprobe()'s. */
static int vfsb_resolve_one(struct kprobe *kp, const char *sym)
{
	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = sym;
	kp->flags = KPROBE_FLAG_DISABLED;
	return register_kprobe(kp);
}

/*
 * Where each hook's function is (its ftrace call site, as the callbacks
 * see it), 0 when this kernel has no such function. A disabled kprobe
 * resolves it and patches nothing.
 */
static int vfsb_resolve(unsigned long *addr)
{
	struct kprobe *kps, **list;
	size_t i, nr = 0;

	kps = kcalloc(vfsb_nr_hooks, sizeof(*kps), GFP_KERNEL);
	list = kcalloc(vfsb_nr_hooks, sizeof(*list), GFP_KERNEL);
	if (!kps || !list) {
		kfree(kps);
		kfree(list);
		return -ENOMEM;
	}
	/* fail_hook may be rewritten (and freed) through sysfs meanwhile */
	kernel_param_lock(THIS_MODULE);
	for (i = 0; i < vfsb_nr_hooks; i++) {
		const char *sym = vfsb_hooks[i].symbol;

		addr[i] = 0;
		if (!sym)
			continue;
		if (vfsb_resolve_one(&kps[i], sym)) {
			/* its name in other kernels */
			sym = vfsb_hooks[i].alt_symbol;
			if (!sym || vfsb_resolve_one(&kps[i], sym))
				continue;
		}
		list[nr++] = &kps[i];
		if (!fail_hook || !sysfs_streq(fail_hook, sym))
			addr[i] = (unsigned long)kps[i].addr;
	}
	if (nr)
		unregister_kprobes(list, nr);
	kernel_param_unlock(THIS_MODULE);
	kfree(list);
	kfree(kps);
	return 0;
}

/*
 * Whether ftrace can trace the function at addr (a filter set and freed
 * patches nothing). By address, never by name: a filter by name makes
 * ftrace look up the name of every traceable function in the kernel,
 * which under TCG took over 10 s of CPU per registration on 6.12.
 */
static bool vfsb_traceable(unsigned long addr)
{
	struct ftrace_ops scratch = { };
	int ret;

	ret = ftrace_set_filter_ip(&scratch, addr, 0, 0);
	ftrace_free_filter(&scratch);
	return !ret;
}

/*
 * Where a wrapper may call the function whose ftrace call site is ip, or
 * 0 when it may not. On IBT kernels the site follows the function's
 * ENDBR64, and a function without one (sealed: the kernel never calls it
 * through a pointer) would fault when called through one.
 */
static unsigned long vfsb_call_addr(unsigned long ip)
{
	const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 insn[4];

	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		return ip;
	if (copy_from_kernel_nofault(insn, (void *)(ip - sizeof(insn)),
				     sizeof(insn)) ||
	    memcmp(insn, endbr64, sizeof(insn)))
		return 0;
	return ip - sizeof(insn);
}

/*
 * Where a wrapper may call the kernel's function sym through a pointer,
 * or 0: no such function, or one an IBT kernel sealed. For a function
 * the module calls without hooking it.
 */
unsigned long vfsb_hookreg_call_addr(const char *sym)
{
	struct kprobe kp;
	unsigned long ip;
	bool failed;

	if (vfsb_resolve_one(&kp, sym))
		return 0;
	ip = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	/* fail_hook names it: as if this kernel had no such function */
	kernel_param_lock(THIS_MODULE);
	failed = fail_hook && sysfs_streq(fail_hook, sym);
	kernel_param_unlock(THIS_MODULE);
	return failed ? 0 : vfsb_call_addr(ip);
}

/*
 * VFSB_COV_* groups where a waits_only redirect is missing on this
 * kernel: their changes there cannot wait. Written at registration,
 * under vfsb_hooks_mutex.
 */
static u32 vfsb_cov_waitless;

/*
 * The groups whose every hook this kernel has; -ENOENT: a required one
 * lacks one. A waits_only redirect that is missing is left out (its
 * addr zeroed), its group kept.
 */
static int vfsb_groups_present(unsigned long *addr, u32 *present)
{
	u32 missing = 0;
	size_t i;
	int ret = 0;

	vfsb_cov_waitless = 0;
	for (i = 0; i < vfsb_nr_hooks; i++) {
		const struct vfsb_hook *h = &vfsb_hooks[i];

		/* no such function on this kernel, by design (compat.h) */
		if (!h->symbol)
			continue;
		if (addr[i] && (h->type == VFSB_HOOK_RETPROBE ||
				vfsb_traceable(addr[i])) &&
		    (!h->call_addr || vfsb_call_addr(addr[i])))
			continue;
		if (h->waits_only) {
			pr_info("%s cannot be hooked on this kernel: changes in its calls cannot wait (coverage %#x)\n",
				h->symbol, h->cov);
			vfsb_cov_waitless |= h->cov;
			addr[i] = 0;
			continue;
		}
		missing |= h->cov;
		if (h->optional) {
			pr_info("%s cannot be hooked on this kernel: coverage %#x off\n",
				h->symbol, h->cov);
		} else {
			pr_err("%s cannot be hooked on this kernel\n", h->symbol);
			ret = -ENOENT;
		}
	}
	*present = vfsb_cov_known & ~missing;
	return ret;
}

/*
 * Safe to call again, and on a group never registered: the filter is
 * freed once (ftrace_free_filter() leaves the ops pointing at what it
 * freed) and the group zeroed.
 */
static void vfsb_ftgroup_unregister(struct vfsb_ftgroup *g)
{
	if (g->registered)
		unregister_ftrace_function(&g->ops);
	ftrace_free_filter(&g->ops);
	memset(g, 0, sizeof(*g));
}

/* One ftrace_ops for every live hook of type in the groups cov. */
static int vfsb_ftgroup_register(struct vfsb_ftgroup *g,
				 enum vfsb_hook_type type, u32 cov,
				 const unsigned long *addr, ftrace_func_t func,
				 unsigned long flags)
{
	unsigned long *ips;
	size_t i;
	int ret;

	memset(g, 0, sizeof(*g));
	ips = kcalloc(vfsb_nr_hooks, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	g->ops.func = func;
	/*
	 * No FTRACE_OPS_FL_RECURSION: that asks ftrace to wrap the callback
	 * in its own recursion guard, and the callbacks take one themselves.
	 */
	g->ops.flags = flags | FTRACE_OPS_FL_PERMANENT;
	for (i = 0; i < vfsb_nr_hooks; i++) {
		const struct vfsb_hook *h = &vfsb_hooks[i];

		/* no address: no symbol, or a waits_only one left out */
		if (!addr[i] || vfsb_hook_ops(h) != type || !(h->cov & cov))
			continue;
		/*
		 * A waits_only redirect is traced by vfsb_move_ops alone, and
		 * only while an intent subscriber exists: the functions
		 * these stand in (do_filp_open()) are everyone's hot paths.
		 */
		if (!h->waits_only)
			ips[g->in_filter++] = addr[i];
		vfsb_live_add(g, addr[i], h);
		/* read by the wrapper, which runs only once this is live */
		if (h->call_addr)
			WRITE_ONCE(*h->call_addr, vfsb_call_addr(addr[i]));
		if (h->set_call)
			h->set_call(addr[i]);
	}
	if (!g->in_filter) {
		kfree(ips);
		return 0;
	}
	/* the addresses the callbacks dispatch on, all in one filter update */
	ret = ftrace_set_filter_ips(&g->ops, ips, g->in_filter, 0, 1);
	kfree(ips);
	if (ret)
		goto fail;
	ret = register_ftrace_function(&g->ops);
	if (ret)
		goto fail;
	g->registered = true;
	return 0;
fail:
	vfsb_ftgroup_unregister(g);
	return ret;
}

static void vfsb_rps_unregister(void)
{
	size_t i;

	for (i = 0; vfsb_rps && i < vfsb_nr_hooks; i++)
		if (vfsb_rps[i].kp.addr)
			unregister_kretprobe(&vfsb_rps[i]);
	kfree(vfsb_rps);
	vfsb_rps = NULL;
}

/*
 * The return probes of the groups in *cov. An optional group whose probe
 * cannot be had is taken out of *cov (with its probes registered so
 * far); a required one fails the registration.
 */
static int vfsb_rps_register(u32 *cov)
{
	size_t i, j;
	int ret;

	vfsb_rps = kcalloc(vfsb_nr_hooks, sizeof(*vfsb_rps), GFP_KERNEL);
	if (!vfsb_rps)
		return -ENOMEM;
	for (i = 0; i < vfsb_nr_hooks; i++) {
		const struct vfsb_hook *h = &vfsb_hooks[i];
		struct kretprobe *rp = &vfsb_rps[i];

		if (!h->symbol || h->type != VFSB_HOOK_RETPROBE ||
		    !(h->cov & *cov))
			continue;
		rp->kp.symbol_name = h->symbol;
		rp->entry_handler = h->rp_entry;
		rp->handler = h->rp_return;
		rp->data_size = h->rp_data;
		rp->maxactive = VFSB_RP_MAXACTIVE;
		ret = register_kretprobe(rp);
		if (!ret)
			continue;
		memset(rp, 0, sizeof(*rp));
		if (!h->optional) {
			pr_err("kretprobe on %s failed: %d\n", h->symbol, ret);
			vfsb_rps_unregister();
			return ret;
		}
		pr_info("kretprobe on %s failed (%d): coverage %#x off\n",
			h->symbol, ret, h->cov);
		*cov &= ~h->cov;
		for (j = 0; j < i; j++) {
			if (vfsb_rps[j].kp.addr && (vfsb_hooks[j].cov & h->cov)) {
				unregister_kretprobe(&vfsb_rps[j]);
				memset(&vfsb_rps[j], 0, sizeof(vfsb_rps[j]));
			}
		}
	}
	return 0;
}

static void vfsb_moves_unregister(bool teardown);

static void vfsb_hooks_unregister(void)
{
	vfsb_moves_unregister(true);
	/* openers first, closers last */
	vfsb_spans_unregister();
	vfsb_rps_unregister();
	vfsb_ftgroup_unregister(&vfsb_entry_group);
	WRITE_ONCE(vfsb_cov_live, 0);
}

static int vfsb_hooks_register(void)
{
	unsigned long *addr;
	u32 cov;
	int ret;

	addr = kcalloc(vfsb_nr_hooks, sizeof(*addr), GFP_KERNEL);
	if (!addr)
		return -ENOMEM;
	ret = vfsb_resolve(addr);
	if (!ret)
		ret = vfsb_groups_present(addr, &cov);
	if (ret)
		goto out;
	/*
	 * Closing hooks first: the entry callbacks end write access and
	 * async writes. A return probe that then fails takes its optional
	 * group out of the coverage; that group's entry callbacks, if any,
	 * stay in and find nothing to close.
	 */
	ret = vfsb_ftgroup_register(&vfsb_entry_group, VFSB_HOOK_ENTRY, cov,
				    addr, vfsb_entry_cb, 0);
	if (!ret)
		ret = vfsb_rps_register(&cov);
	if (!ret)
		ret = vfsb_spans_register(vfsb_hooks, addr, vfsb_nr_hooks, cov);
	if (!ret)
		vfsb_spans_missed_seen = 0;
	if (ret) {
		pr_err("registering the hooks failed: %d\n", ret);
		vfsb_hooks_unregister();
		goto out;
	}
	WRITE_ONCE(vfsb_cov_live, cov);
out:
	kfree(addr);
	return ret;
}

static DEFINE_MUTEX(vfsb_hooks_mutex);
static unsigned int vfsb_hooks_users;
static bool vfsb_hooks_live;
/*
 * VFSB_HOOKS_*, as the fields above make it; written under the mutex,
 * read without it by vfsb_hookreg_peek().
 */
static u32 vfsb_hooks_state = VFSB_HOOKS_OFF;

/*
 * ---- Moving calls ----
 *
 * ftrace lets one ftrace_ops per function have FTRACE_OPS_FL_IPMODIFY
 * (__ftrace_hash_update_ipmodify(), kernel/trace/ftrace.c): a second
 * fails with -EBUSY, at registration or when a registered one's filter
 * grows to the function. A livepatch needs it on the functions it
 * replaces, and so does a kprobe with a post_handler on an ftrace site
 * (kernel/kprobes.c, kprobe_ipmodify_ops); either would fail on every
 * hooked function if the entry callbacks' ops held it. The flag only
 * reserves: x86's ftrace_caller resumes at whatever address a callback
 * left in the registers (arch/x86/kernel/ftrace_64.S, "Handlers can
 * change the RIP"), with or without it. So the entry callbacks' ops has
 * none, and while some intent subscriber exists and the hooks are in,
 * vfsb_move_ops takes it on the functions of that ops whose hook may
 * move the call (neither closes nor stays), and runs their hooks.
 * Where it is refused (a livepatch or such a kprobe was first), the
 * hook stays with the entry callbacks' ops, its changes cannot wait:
 * they go on unacked and their filesystem gets a RESCAN (hooks.c), the
 * function is named in the kernel log, and its coverage group is
 * reported as intent_unwaited by VFSB_IOC_GET_VERSION.
 *
 * A waits_only redirect (do_filp_open(): hooks.c) is never in the entry
 * callbacks' ops: vfsb_move_ops alone traces it, while it holds the
 * others, so an open() anywhere pays for its callback only while some
 * intent subscriber exists.
 *
 * Each function is in one of the two ops, not both: a function that
 * two ops trace is called through ftrace_ops_list_func(), which tests
 * every ops in the system against its hashes, about 220 instructions a
 * call more than an ops's own trampoline (6.1, TCG plugin count: 4 100
 * instructions an entry of cp -a, a third of what intent mode cost).
 * A function is handed over without a call that neither hook runs or
 * both run: both ops trace it while l->moves changes, and l->moves says
 * which of the two callbacks runs the hook. That is read once in each
 * callback, and the list function calls both in one pass with
 * preemption disabled (6.1 kernel/trace/ftrace.c 7628-7669, by
 * trace_test_and_set_recursion(), include/linux/trace_recursion.h 177),
 * so it changes in stop_machine(), never within a pass. Before it changes, a
 * task that entered the trampoline of the ops alone at that function,
 * preemptible there, would call only the callback that is to pass it
 * by: synchronize_rcu_tasks() waits for it to leave, as ftrace does
 * before it frees a trampoline (ftrace_shutdown(), 6.1 ftrace.c
 * 3121-3127).
 */
static struct ftrace_ops vfsb_move_ops;
static bool vfsb_move_registered;
static unsigned int vfsb_intent_users;
static u32 vfsb_cov_unwaited;

/* vfsb_move_ops's callback: the hooks it took from the entry callbacks. */
static void notrace vfsb_move_cb(unsigned long ip, unsigned long pip,
				 struct ftrace_ops *op,
				 struct ftrace_regs *fregs)
{
	const struct vfsb_live *l = vfsb_live_slot(&vfsb_entry_group, ip);

	if (l && READ_ONCE(l->moves))
		vfsb_entry_run(l, ip, pip, fregs);
}

/* vfsb_move_ops unregistered, its filter freed: a fresh one. */
static void vfsb_move_ops_reset(void)
{
	ftrace_free_filter(&vfsb_move_ops);
	memset(&vfsb_move_ops, 0, sizeof(vfsb_move_ops));
	vfsb_move_ops.func = vfsb_move_cb;
	vfsb_move_ops.flags = FTRACE_OPS_FL_IPMODIFY |
			      FTRACE_OPS_FL_PERMANENT;
}

/* Takes IPMODIFY on ip for vfsb_move_ops: 0 or ftrace's error. */
static int vfsb_move_add(unsigned long ip)
{
	int ret;

	if (vfsb_move_registered)
		return ftrace_set_filter_ip(&vfsb_move_ops, ip, 0, 0);
	ret = ftrace_set_filter_ip(&vfsb_move_ops, ip, 0, 1);
	if (!ret)
		ret = register_ftrace_function(&vfsb_move_ops);
	if (ret)
		vfsb_move_ops_reset();
	else
		vfsb_move_registered = true;
	return ret;
}

static bool vfsb_live_may_move(const struct vfsb_live *l)
{
	return l->ip && !l->h->closes && !l->h->stays;
}

/*
 * The functions vfsb_move_ops holds that the entry callbacks' ops traces
 * too when no intent subscriber exists (not waits_only), into ips: how
 * many.
 */
static size_t vfsb_held_ips(unsigned long *ips)
{
	struct vfsb_ftgroup *g = &vfsb_entry_group;
	size_t i, n = 0;

	for (i = 0; i < VFSB_LIVE_SLOTS; i++)
		if (g->live[i].held && !g->live[i].h->waits_only)
			ips[n++] = g->live[i].ip;
	return n;
}

/* In stop_machine(): no CPU is inside a callback. */
static int vfsb_moves_flip(void *data)
{
	struct vfsb_ftgroup *g = &vfsb_entry_group;
	const bool *on = data;
	size_t i;

	for (i = 0; i < VFSB_LIVE_SLOTS; i++)
		if (g->live[i].held)
			WRITE_ONCE(g->live[i].moves, *on);
	return 0;
}

/*
 * The held functions' hooks to vfsb_move_ops (on) or back to the entry
 * callbacks' ops, both tracing them (above). Under vfsb_hooks_mutex.
 */
static void vfsb_moves_hand_over(bool on)
{
	synchronize_rcu_tasks();
	stop_machine(vfsb_moves_flip, &on, NULL);
}

/*
 * Takes a filter update of the entry callbacks' ops: the held functions
 * out of it (remove) or back in. Out, never all of them: an empty
 * filter traces every function, and the ops always keeps the hooks that
 * close or stay.
 */
static int vfsb_entry_filter_held(bool remove)
{
	unsigned long *ips;
	size_t n;
	int ret;

	ips = kcalloc(VFSB_LIVE_SLOTS, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	n = vfsb_held_ips(ips);
	ret = 0;
	if (n && (!remove || n < vfsb_entry_group.in_filter))
		ret = ftrace_set_filter_ips(&vfsb_entry_group.ops, ips, n,
					    remove, 0);
	kfree(ips);
	return ret;
}

/* Under vfsb_hooks_mutex, the hooks in, an intent subscriber there. */
static void vfsb_moves_register(void)
{
	struct vfsb_ftgroup *g = &vfsb_entry_group;
	unsigned long *ips;
	size_t i, n = 0;
	int ret;

	lockdep_assert_held(&vfsb_hooks_mutex);
	if (vfsb_move_registered || !vfsb_hooks_live || !vfsb_intent_users)
		return;
	vfsb_move_ops_reset();
	ips = kcalloc(VFSB_LIVE_SLOTS, sizeof(*ips), GFP_KERNEL);
	if (!ips)
		goto one_by_one;
	for (i = 0; i < VFSB_LIVE_SLOTS; i++)
		if (vfsb_live_may_move(&g->live[i]))
			ips[n++] = g->live[i].ip;
	/* all at once, one patching round, when no one else holds any */
	ret = n ? ftrace_set_filter_ips(&vfsb_move_ops, ips, n, 0, 1) : 0;
	if (!ret && n)
		ret = register_ftrace_function(&vfsb_move_ops);
	kfree(ips);
	if (!ret) {
		vfsb_move_registered = n > 0;
		for (i = 0; i < VFSB_LIVE_SLOTS; i++)
			if (vfsb_live_may_move(&g->live[i]))
				g->live[i].held = true;
		goto hand_over;
	}
	vfsb_move_ops_reset();
one_by_one:
	/* some function's is taken: find which, one at a time */
	for (i = 0; i < VFSB_LIVE_SLOTS; i++) {
		struct vfsb_live *l = &g->live[i];

		if (!vfsb_live_may_move(l))
			continue;
		ret = vfsb_move_add(l->ip);
		if (!ret) {
			l->held = true;
			continue;
		}
		vfsb_cov_unwaited |= l->h->cov;
		pr_info("%s: ftrace's IPMODIFY refused (%d: a livepatch or a kprobe with a post_handler has it): intent waits there fall back to none (coverage %#x)\n",
			l->h->symbol, ret, l->h->cov);
	}
hand_over:
	if (!vfsb_move_registered)
		return;
	vfsb_moves_hand_over(true);
	/* failing, the functions stay in both: slower, no less hooked */
	ret = vfsb_entry_filter_held(true);
	if (ret)
		pr_info("the entry callbacks keep the moving functions (%d)\n",
			ret);
}

/*
 * Under vfsb_hooks_mutex: no function's IPMODIFY is the module's after.
 * teardown: every hook is coming out now (no superblock is tracked), so
 * the entry callbacks' ops need not take them back first.
 */
static void vfsb_moves_unregister(bool teardown)
{
	struct vfsb_ftgroup *g = &vfsb_entry_group;
	size_t i;
	int ret;

	lockdep_assert_held(&vfsb_hooks_mutex);
	vfsb_cov_unwaited = 0;
	if (!vfsb_move_registered)
		return;
	if (!teardown) {
		ret = vfsb_entry_filter_held(false);
		if (ret) {
			/* left as they are: moved, IPMODIFY held, hooked */
			pr_warn("the moving functions stay with the intent hooks until the hooks come out (%d)\n",
				ret);
			return;
		}
		vfsb_moves_hand_over(false);
	}
	for (i = 0; i < VFSB_LIVE_SLOTS; i++) {
		WRITE_ONCE(g->live[i].moves, false);
		g->live[i].held = false;
	}
	/* every callback that read a mark set (preemption off) is done */
	synchronize_rcu();
	unregister_ftrace_function(&vfsb_move_ops);
	vfsb_move_ops_reset();
	vfsb_move_registered = false;
}

/*
 * An intent subscriber appears (before it can get any record) or goes
 * (after its last change has settled): while there is one, the entry
 * functions whose hooks may move a call are reserved for it.
 */
void vfsb_hookreg_intent_get(void)
{
	mutex_lock(&vfsb_hooks_mutex);
	if (!vfsb_intent_users++)
		vfsb_moves_register();
	mutex_unlock(&vfsb_hooks_mutex);
}

void vfsb_hookreg_intent_put(void)
{
	mutex_lock(&vfsb_hooks_mutex);
	if (!--vfsb_intent_users)
		vfsb_moves_unregister(false);
	mutex_unlock(&vfsb_hooks_mutex);
}

/* VFSB_COV_* groups where intent waits fall back to none, now. */
u32 vfsb_hookreg_unwaited(void)
{
	u32 ret;

	mutex_lock(&vfsb_hooks_mutex);
	ret = vfsb_cov_unwaited | (vfsb_hooks_live ? vfsb_cov_waitless : 0);
	mutex_unlock(&vfsb_hooks_mutex);
	return ret;
}

/*
 * Whether the entry callbacks' hook at ip may move its call now (the
 * module holds the function's IPMODIFY): for a return hook at the same
 * function, whose entry may run before or after the entry callback.
 * Any context; the table is written before any return hook goes in.
 */
bool vfsb_hookreg_moves(unsigned long ip)
{
	const struct vfsb_live *l = vfsb_live_slot(&vfsb_entry_group, ip);

	return l && READ_ONCE(l->moves);
}

/*
 * The calls the return hooks of the data helpers and of the async
 * submissions missed (spans.c): no instance was free, or the probe was
 * skipped, nested in another probe's handler or tracer. Such a call went on without a section
 * and, for the helpers whose return hook announces the change
 * (vfs_fallocate(), clone, dedupe, fs-verity, fscrypt), unannounced:
 * only the mechanism's counters say so. A barrier looks first, so a
 * miss before it gives every tracked filesystem a RESCAN
 * (VFSB_RESCAN_NO_RETURN) in the epoch the barrier closes, as an
 * unfenced announcement does.
 */
void vfsb_hookreg_check_missed(void)
{
	unsigned long sum;

	mutex_lock(&vfsb_hooks_mutex);
	sum = vfsb_spans_missed();
	if (vfsb_hooks_live && sum != vfsb_spans_missed_seen) {
		pr_info_ratelimited("return hooks missed %lu calls: RESCAN\n",
				    sum - vfsb_spans_missed_seen);
		vfsb_spans_missed_seen = sum;
		rcu_read_lock();
		vfsb_tracking_all_rcu(vfsb_emit_rescan, VFSB_RESCAN_NO_RETURN);
		rcu_read_unlock();
	}
	mutex_unlock(&vfsb_hooks_mutex);
}

/* Called with vfsb_hooks_mutex held, at each change of state. */
static void vfsb_hooks_set_state(u32 state, int err)
{
	lockdep_assert_held(&vfsb_hooks_mutex);
	WRITE_ONCE(vfsb_hooks_state, state);
	trace_vfsb_hooks(state, state == VFSB_HOOKS_OFF ? 0 : vfsb_cov_live,
			 err);
}

static void vfsb_hooks_idle_fn(struct work_struct *work)
{
	mutex_lock(&vfsb_hooks_mutex);
	if (!vfsb_hooks_users && vfsb_hooks_live) {
		vfsb_hooks_unregister();
		vfsb_hooks_live = false;
		vfsb_hooks_set_state(VFSB_HOOKS_OFF, 0);
	}
	mutex_unlock(&vfsb_hooks_mutex);
}

static DECLARE_DELAYED_WORK(vfsb_hooks_idle, vfsb_hooks_idle_fn);

void vfsb_hookreg_init(const struct vfsb_hook *hooks, size_t n)
{
	size_t i;

	/* every hook in one group still leaves the table half empty */
	BUILD_BUG_ON(2 * VFSB_HOOKS_MAX > VFSB_LIVE_SLOTS);
	vfsb_hooks = hooks;
	vfsb_nr_hooks = n;
	for (i = 0; i < n; i++)
		vfsb_cov_known |= hooks[i].cov;
}

/* A tracking needs the hooks in: registers them, or keeps them in. */
int vfsb_hookreg_get(void)
{
	int ret = 0;

	mutex_lock(&vfsb_hooks_mutex);
	if (!vfsb_hooks_live) {
		ret = vfsb_hooks_register();
		vfsb_hooks_live = !ret;
		vfsb_moves_register();
	}
	if (!ret && !vfsb_hooks_users++)
		vfsb_hooks_set_state(VFSB_HOOKS_LIVE, 0);
	else if (ret)
		vfsb_hooks_set_state(VFSB_HOOKS_OFF, ret);
	mutex_unlock(&vfsb_hooks_mutex);
	return ret;
}

/*
 * A tracking is gone (its sections have all ended). The last one lets
 * the hooks out after hooks_linger_ms, unless another comes first.
 */
void vfsb_hookreg_put(void)
{
	mutex_lock(&vfsb_hooks_mutex);
	if (!--vfsb_hooks_users) {
		vfsb_hooks_set_state(VFSB_HOOKS_LINGERING, 0);
		mod_delayed_work(vfsb_wq, &vfsb_hooks_idle,
				 msecs_to_jiffies(READ_ONCE(hooks_linger_ms)));
	}
	mutex_unlock(&vfsb_hooks_mutex);
}

void vfsb_hookreg_coverage(u32 *live, u32 *known, u32 *state)
{
	mutex_lock(&vfsb_hooks_mutex);
	*live = vfsb_hooks_live ? vfsb_cov_live : 0;
	*known = vfsb_cov_known;
	*state = vfsb_hooks_state;
	mutex_unlock(&vfsb_hooks_mutex);
}

/*
 * The same state and live coverage, without the mutex, for sysfs
 * (params.c): reading a parameter holds this module's parameter lock,
 * which vfsb_resolve() takes under the mutex, so taking the mutex here
 * would order the two both ways. A registration in progress may show
 * its state and coverage one step apart.
 */
void vfsb_hookreg_peek(u32 *live, u32 *state)
{
	*state = READ_ONCE(vfsb_hooks_state);
	*live = *state == VFSB_HOOKS_OFF ? 0 : READ_ONCE(vfsb_cov_live);
}

DEFINE_PER_CPU(long, vfsb_wrappers_in);

static long vfsb_wrappers_sum(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(vfsb_wrappers_in, cpu);
	return sum;
}

/*
 * Module exit: no tracking is left, so no section either; take the
 * hooks out now. A task may still be in the last instructions of a
 * wrapper or of task work of ours (after the section it ended, which
 * let the module go): wait until every task has passed a voluntary
 * context switch or user mode, which none does inside that code but a
 * wrapper's call of the function it stands in for. Those are counted:
 * once the hooks are out and every task that was between a redirect and
 * its wrapper's count has passed such a switch, the count only falls;
 * at zero, the same wait again lets the last ones return from the
 * wrapper. (A wrapper that sleeps for its ack holds a module reference
 * besides, so that unload is refused meanwhile rather than waiting.)
 */
void vfsb_hookreg_exit(void)
{
	bool told = false;

	cancel_delayed_work_sync(&vfsb_hooks_idle);
	WARN_ON(vfsb_hooks_users);
	mutex_lock(&vfsb_hooks_mutex);
	if (vfsb_hooks_live) {
		vfsb_hooks_unregister();
		vfsb_hooks_set_state(VFSB_HOOKS_OFF, 0);
	}
	vfsb_hooks_live = false;
	mutex_unlock(&vfsb_hooks_mutex);
	synchronize_rcu_tasks();
	while (vfsb_wrappers_sum() > 0) {
		if (!told)
			pr_info("waiting for %ld calls inside wrappers to return\n",
				vfsb_wrappers_sum());
		told = true;
		msleep(20);
	}
	synchronize_rcu_tasks();
	if (atomic_long_read(&vfsb_recursion_skips))
		pr_info("%ld hook calls skipped as recursive\n",
			atomic_long_read(&vfsb_recursion_skips));
}
