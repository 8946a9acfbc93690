// SPDX-License-Identifier: GPL-2.0
/*
 * A test module for the guest's selftests (test_hookshare): what other
 * users of the same kernel functions do to vfsbarrier's hooks.
 *
 *  - kprobe=SYM [post=1]: at load, a kprobe on SYM, with a post_handler
 *    when post is set. On an ftrace-able function entry a post_handler
 *    kprobe needs ftrace's IPMODIFY on it (kernel/kprobes.c,
 *    arm_kprobe_ftrace()), as a livepatch does: the load fails with
 *    the kprobe's error (EBUSY when another ftrace_ops holds IPMODIFY
 *    there). hits counts the pre_handler's calls.
 *  - ipmodify=SYM: at load, an ftrace_ops with FTRACE_OPS_FL_IPMODIFY
 *    on SYM, as a livepatch registers on each function it replaces
 *    (kernel/livepatch/patch.c, klp_patch_func()): the load fails with
 *    ftrace's error (EBUSY when another ftrace_ops holds IPMODIFY
 *    there). Its callback only counts (hits) and moves nothing.
 *  - recurse_write=PATH (written at run time): appends a line to PATH
 *    with kernel_write() while this task holds ftrace's recursion
 *    guard, as a kprobe or ftrace handler that writes a file does: every
 *    ftrace callback the write passes through sees itself nested.
 *
 * Never loaded anywhere but a test guest.
 */
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/trace_recursion.h>

static char *kprobe;
module_param(kprobe, charp, 0444);
MODULE_PARM_DESC(kprobe, "function to put a kprobe on at load");

static bool post;
module_param(post, bool, 0444);
MODULE_PARM_DESC(post, "give the kprobe a post_handler (IPMODIFY)");

static char *ipmodify;
module_param(ipmodify, charp, 0444);
MODULE_PARM_DESC(ipmodify, "function to hold ftrace's IPMODIFY on at load");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int vtk_hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&hits));
}

static const struct kernel_param_ops vtk_hits_ops = {
	.get = vtk_hits_get,
};
module_param_cb(hits, &vtk_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "calls of the kprobe's pre_handler");

static int vtk_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static void vtk_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
}

static struct kprobe vtk_kp = {
	.pre_handler = vtk_pre,
};

static void notrace vtk_ftrace_cb(unsigned long ip, unsigned long pip,
				  struct ftrace_ops *op,
				  struct ftrace_regs *fregs)
{
	atomic_long_inc(&hits);
}

static struct ftrace_ops vtk_ops = {
	.func = vtk_ftrace_cb,
	.flags = FTRACE_OPS_FL_IPMODIFY,
};

static bool vtk_ops_registered;

/*
 * A livepatch's hold on a function, without patching anything. The
 * function's address from a disabled kprobe, as vfsbarrier finds it
 * (a filter by name takes seconds under TCG).
 */
static int vtk_ipmodify_register(void)
{
	struct kprobe kp = {
		.symbol_name = ipmodify, .flags = KPROBE_FLAG_DISABLED,
	};
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	unregister_kprobe(&kp);
	ret = ftrace_set_filter_ip(&vtk_ops, (unsigned long)kp.addr, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&vtk_ops);
	if (ret) {
		ftrace_free_filter(&vtk_ops);
		pr_info("vfsb_testkmod: IPMODIFY ftrace_ops on %s: %d\n",
			ipmodify, ret);
		return ret;
	}
	vtk_ops_registered = true;
	return 0;
}

/*
 * The recursion guard of this task's context taken twice (the second
 * time is the "transition" bit that the first nesting is allowed:
 * include/linux/trace_recursion.h), so that the next ftrace callback in
 * this context sees recursion. Taking it disables preemption; the
 * write below sleeps, so preemption is given back meanwhile (the guard
 * is per task and stays held).
 */
static int vtk_recurse_write(const char *val, const struct kernel_param *kp)
{
	static const char line[] = "written nested\n";
	char path[256];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int b1, b2;

	if (strscpy(path, val, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	strim(path);
	f = filp_open(path, O_WRONLY | O_APPEND, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	b1 = ftrace_test_recursion_trylock(_THIS_IP_, _RET_IP_);
	if (b1 >= 0)
		preempt_enable_notrace();
	b2 = ftrace_test_recursion_trylock(_THIS_IP_, _RET_IP_);
	if (b2 >= 0)
		preempt_enable_notrace();
	n = kernel_write(f, line, sizeof(line) - 1, &pos);
	if (b2 >= 0) {
		preempt_disable_notrace();
		ftrace_test_recursion_unlock(b2);
	}
	if (b1 >= 0) {
		preempt_disable_notrace();
		ftrace_test_recursion_unlock(b1);
	}
	filp_close(f, NULL);
	if (b1 < 0 || b2 < 0)
		return -EDEADLK;
	return n < 0 ? n : 0;
}

static const struct kernel_param_ops vtk_recurse_ops = {
	.set = vtk_recurse_write,
};
module_param_cb(recurse_write, &vtk_recurse_ops, NULL, 0200);
MODULE_PARM_DESC(recurse_write,
		 "append a line to this file under ftrace's recursion guard");

static int __init vtk_init(void)
{
	int ret;

	if (ipmodify) {
		ret = vtk_ipmodify_register();
		if (ret)
			return ret;
	}
	if (!kprobe)
		return 0;
	vtk_kp.symbol_name = kprobe;
	if (post)
		vtk_kp.post_handler = vtk_post;
	ret = register_kprobe(&vtk_kp);
	if (ret) {
		pr_info("vfsb_testkmod: kprobe on %s%s: %d\n", kprobe,
			post ? " with a post_handler" : "", ret);
		if (vtk_ops_registered) {
			unregister_ftrace_function(&vtk_ops);
			ftrace_free_filter(&vtk_ops);
		}
	}
	return ret;
}

static void __exit vtk_exit(void)
{
	if (kprobe)
		unregister_kprobe(&vtk_kp);
	if (vtk_ops_registered) {
		unregister_ftrace_function(&vtk_ops);
		ftrace_free_filter(&vtk_ops);
	}
}

module_init(vtk_init);
module_exit(vtk_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("vfsbarrier selftests: other users of hooked functions");
