// SPDX-License-Identifier: GPL-2.0
/*
 * The VFS write entry points and how each is bracketed.
 *
 * Two mechanisms, chosen per hook:
 *  - a kretprobe where the section must end when the function returns
 *    (data writes) or where its return value decides (mnt_want_write*:
 *    on failure the caller never calls mnt_drop_write*, so the section
 *    must be closed right there). The instance data carries the SRCU
 *    index from entry to return; an entry handler returning nonzero
 *    discards the instance, so unwatched writes pay for the entry only.
 *  - an ftrace_ops callback (cheapest; entry only) where the entry is all
 *    that matters: mnt_drop_write*() and superblock shutdown.
 *  - for mnt_want_write*() (every metadata operation passes there), an
 *    ftrace_ops callback that redirects the call to a wrapper only when
 *    the superblock is watched; see "wrappers" below. Unwatched calls pay
 *    an ftrace callback instead of a kretprobe's entry; watched ones no
 *    return trampoline. Falls back to the kretprobe when the function
 *    cannot be redirected (another IPMODIFY user, e.g. a livepatch).
 * None sleeps; all run with preemption disabled. No function is ever
 * called through a kprobe-resolved address (IBT kernels forbid it): the
 * wrappers call the exported functions by their linked symbols.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/aio.h>
#include <linux/ftrace.h>
#include <linux/io_uring_types.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/trace_recursion.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "vfsb.h"

/* ---- argument extractors: the superblock a hooked call writes to ---- */

static struct super_block *sb_of_file(struct file *file)
{
	return file ? file_inode(file)->i_sb : NULL;
}

typedef struct super_block *(*vfsb_sb_fn)(struct pt_regs *regs);

static struct super_block *sb_arg0_mnt(struct pt_regs *regs)
{
	struct vfsmount *mnt = (void *)regs_get_kernel_argument(regs, 0);

	return mnt ? mnt->mnt_sb : NULL;
}

static struct super_block *sb_arg0_file(struct pt_regs *regs)
{
	return sb_of_file((void *)regs_get_kernel_argument(regs, 0));
}

/* copy_file_range, clone, dedupe, splice, sendfile: (in, pos, out, ...) */
static struct super_block *sb_arg2_file(struct pt_regs *regs)
{
	return sb_of_file((void *)regs_get_kernel_argument(regs, 2));
}

/* do_truncate(idmap or user_namespace, dentry, ...) */
static struct super_block *sb_arg1_dentry(struct pt_regs *regs)
{
	struct dentry *dentry = (void *)regs_get_kernel_argument(regs, 1);

	return dentry ? dentry->d_sb : NULL;
}

static struct super_block *sb_arg0_vmf(struct pt_regs *regs)
{
	struct vm_fault *vmf = (void *)regs_get_kernel_argument(regs, 0);

	return vmf && vmf->vma ? sb_of_file(vmf->vma->vm_file) : NULL;
}

static struct super_block *sb_arg0_iouring(struct pt_regs *regs)
{
	struct io_kiocb *req = (void *)regs_get_kernel_argument(regs, 0);

	return req ? sb_of_file(req->file) : NULL;
}

static struct super_block *sb_arg0_kiocb(struct pt_regs *regs)
{
	struct kiocb *iocb = (void *)regs_get_kernel_argument(regs, 0);

	return iocb ? sb_of_file(iocb->ki_filp) : NULL;
}

/* The kiocb an async write completes with (the completion hooks' key). */
static const void *key_iouring(struct pt_regs *regs)
{
	struct io_kiocb *req = (void *)regs_get_kernel_argument(regs, 0);

	/* io_write()'s struct io_rw sits in req->cmd, its kiocb first */
	return &req->cmd;
}

static const void *key_kiocb(struct pt_regs *regs)
{
	return (void *)regs_get_kernel_argument(regs, 0);
}

/* ---- kretprobes ---- */

enum vfsb_span {
	VFSB_SPAN_CALL,		/* entry to return */
	VFSB_SPAN_WANT_WRITE,	/* on success, until mnt_drop_write*() */
	VFSB_SPAN_ASYNC,	/* until the write completes */
};

struct vfsb_krp_def {
	const char *symbol;
	vfsb_sb_fn sb_of;
	enum vfsb_span span;
	const void *(*key_of)(struct pt_regs *regs);	/* VFSB_SPAN_ASYNC */
	int queued;		/* return value meaning "completes later" */
	bool optional;		/* absent on some kernels */
};

/*
 * Live probes are rebuilt from the definitions at each registration:
 * a kretprobe or ftrace_ops keeps state after unregistering (resolved
 * address, hashes) that must not be reused.
 */
struct vfsb_kretprobe {
	struct kretprobe krp;
	const struct vfsb_krp_def *def;
	bool registered;
};

/* Instance data: the section, and for async writes where it is kept. */
struct vfsb_krp_data {
	struct vfsb_section s;
	const void *key;	/* tracked in the async table under key */
};

#define krp_of(ri) container_of(get_kretprobe(ri), struct vfsb_kretprobe, krp)

static int vfsb_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct vfsb_krp_def *def = krp_of(ri)->def;
	struct vfsb_krp_data *d = (void *)ri->data;
	bool async = def->span == VFSB_SPAN_ASYNC;

	/* nonzero: no return probe for this call (not a watched sb) */
	if (!vfsb_section_begin(def->sb_of(regs), &d->s, async))
		return 1;
	d->key = NULL;
	/*
	 * Tracked before the write starts, since it may complete before
	 * the submission returns. Without room, the section spans the
	 * submission only and the write is counted as missed.
	 */
	if (async) {
		const void *key = def->key_of(regs);

		if (vfsb_aio_track(key, &d->s))
			d->key = key;
		else
			atomic64_inc(&d->s.vsb->missed);
	}
	return 0;
}

/*
 * mnt_want_write*() returned ret for a call inside section s: on
 * success the section is held until mnt_drop_write*() (failed: the
 * caller will not drop, so it ends now).
 */
static void vfsb_want_write_done(const struct vfsb_section *s, long ret)
{
	if (!ret) {
		if (vfsb_task_push(s))
			return;
		atomic64_inc(&s->vsb->missed);
	}
	vfsb_section_end(s);
}

static int vfsb_krp_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct vfsb_krp_def *def = krp_of(ri)->def;
	struct vfsb_krp_data *d = (void *)ri->data;
	/*
	 * Every hooked function whose result matters returns int: only the
	 * low 32 bits of the return register are defined (io_write() returns
	 * its ssize_t through an int, so -EIOCBQUEUED arrives zero-extended).
	 */
	int ret = (int)regs_return_value(regs);
	struct vfsb_section s;

	switch (def->span) {
	case VFSB_SPAN_WANT_WRITE:
		vfsb_want_write_done(&d->s, ret);
		return 0;
	case VFSB_SPAN_ASYNC:
		if (!d->key)
			break;
		/* queued: the completion hook ends it (or already did) */
		if (ret == def->queued)
			return 0;
		if (vfsb_aio_untrack(d->key, &s))
			vfsb_section_end(&s);
		return 0;
	case VFSB_SPAN_CALL:
		break;
	}
	vfsb_section_end(&d->s);
	return 0;
}

/*
 * Pending instances: a task sleeping inside a hooked function holds one
 * (a write blocked on a frozen fs or a slow FUSE server). Beyond this
 * many, calls are not bracketed and kretprobe.nmissed counts them.
 */
#define VFSB_MAXACTIVE 512

#define VFSB_CALL(sym, fn, opt) \
	{ .symbol = sym, .sb_of = fn, .span = VFSB_SPAN_CALL, .optional = opt }

static const struct vfsb_krp_def vfsb_krp_defs[] = {
	/* namespace and metadata operations */
	{ .symbol = "mnt_want_write", .sb_of = sb_arg0_mnt,
	  .span = VFSB_SPAN_WANT_WRITE },
	{ .symbol = "mnt_want_write_file", .sb_of = sb_arg0_file,
	  .span = VFSB_SPAN_WANT_WRITE },
	/* data writes: the section spans the call */
	VFSB_CALL("vfs_write", sb_arg0_file, false),
	VFSB_CALL("vfs_writev", sb_arg0_file, true),
	VFSB_CALL("vfs_iter_write", sb_arg0_file, false),
	VFSB_CALL("vfs_iocb_iter_write", sb_arg0_file, true),
	VFSB_CALL("__kernel_write_iter", sb_arg0_file, true),
	VFSB_CALL("vfs_fallocate", sb_arg0_file, false),
	VFSB_CALL("vfs_copy_file_range", sb_arg2_file, false),
	VFSB_CALL("do_splice_direct", sb_arg2_file, false),
	VFSB_CALL("do_splice", sb_arg2_file, true),
	VFSB_CALL("vfs_clone_file_range", sb_arg2_file, false),
	VFSB_CALL("vfs_dedupe_file_range_one", sb_arg2_file, false),
	/* ftruncate() takes sb_start_write() only, no mnt_want_write() */
	VFSB_CALL("do_truncate", sb_arg1_dentry, false),
	/* a shared mapping's page made writable (see README: mmap) */
	VFSB_CALL("do_page_mkwrite", sb_arg0_vmf, true),
	/* async writes: until completion */
	{ .symbol = "io_write", .sb_of = sb_arg0_iouring, .optional = true,
	  .span = VFSB_SPAN_ASYNC, .key_of = key_iouring,
	  .queued = -EIOCBQUEUED },
	/* returns 0 once submitted, completed or not */
	{ .symbol = "aio_write", .sb_of = sb_arg0_kiocb, .optional = true,
	  .span = VFSB_SPAN_ASYNC, .key_of = key_kiocb, .queued = 0 },
};

static struct vfsb_kretprobe vfsb_krps[ARRAY_SIZE(vfsb_krp_defs)];

static void vfsb_krp_init(struct vfsb_kretprobe *h,
			  const struct vfsb_krp_def *def)
{
	memset(h, 0, sizeof(*h));
	h->def = def;
	h->krp.kp.symbol_name = def->symbol;
	h->krp.entry_handler = vfsb_krp_entry;
	h->krp.handler = vfsb_krp_return;
	h->krp.data_size = sizeof(struct vfsb_krp_data);
	h->krp.maxactive = VFSB_MAXACTIVE;
}

/* ---- ftrace callbacks ---- */

static void notrace vfsb_drop_common(unsigned long ip, unsigned long pip,
				     struct super_block *sb)
{
	struct vfsb_section s;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, pip);
	if (bit < 0)
		return;
	if (sb && vfsb_task_pop(sb, &s))
		vfsb_section_end(&s);
	ftrace_test_recursion_unlock(bit);
}

static void notrace vfsb_ft_drop_write(unsigned long ip, unsigned long pip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct vfsmount *mnt = (void *)vfsb_fregs_arg(fregs, 0);

	vfsb_drop_common(ip, pip, mnt ? mnt->mnt_sb : NULL);
}

static void notrace vfsb_ft_drop_write_file(unsigned long ip,
					    unsigned long pip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	vfsb_drop_common(ip, pip, sb_of_file((void *)vfsb_fregs_arg(fregs, 0)));
}

static void notrace vfsb_ft_shutdown(unsigned long ip, unsigned long pip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	struct super_block *sb = (void *)vfsb_fregs_arg(fregs, 0);
	int bit;

	if (!atomic_read(&vfsb_nr_tracked))
		return;
	bit = ftrace_test_recursion_trylock(ip, pip);
	if (bit < 0)
		return;
	vfsb_sb_shutdown(sb);
	ftrace_test_recursion_unlock(bit);
}

/* io_complete_rw(), io_complete_rw_iopoll(), aio_complete_rw(): any context */
static void notrace vfsb_ft_complete(unsigned long ip, unsigned long pip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	const void *kiocb = (void *)vfsb_fregs_arg(fregs, 0);
	struct vfsb_section s;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, pip);
	if (bit < 0)
		return;
	if (vfsb_aio_untrack(kiocb, &s))
		vfsb_section_end(&s);
	ftrace_test_recursion_unlock(bit);
}

/* ---- wrappers: mnt_want_write*() redirected for watched superblocks ---- */

#ifdef VFSB_HAVE_REDIRECT
/*
 * For a watched superblock the ftrace callback opens the section (with
 * preemption off: no gap for a teardown to slip into), hands it to the
 * task as if the call had succeeded, and makes the call continue in the
 * wrapper instead. The wrapper calls the function by its linked symbol
 * (the callback knows that call by its return address in this module and
 * lets it through) and, only if it failed, takes the section back and
 * ends it: the caller will not call mnt_drop_write*(). Nothing passes
 * between callback and wrapper but the task's own slot, so the callback
 * changes no argument register, only where the call goes on.
 *
 * Module text: a task in a wrapper holds its section in its slot until
 * the wrapper's last instructions (the tracking, and a module reference
 * with it, outlive the section), and it does not sleep past the
 * section's end: module exit waits for such a task with
 * synchronize_rcu_tasks().
 */
static void notrace vfsb_want_write_failed(struct super_block *sb)
{
	struct vfsb_section s;

	if (vfsb_task_pop(sb, &s))
		vfsb_section_end(&s);
}

static int notrace vfsb_wrap_want_write(struct vfsmount *m)
{
	int ret = mnt_want_write(m);

	if (ret)
		vfsb_want_write_failed(m->mnt_sb);
	return ret;
}

static int notrace vfsb_wrap_want_write_file(struct file *file)
{
	int ret = mnt_want_write_file(file);

	if (ret)
		vfsb_want_write_failed(sb_of_file(file));
	return ret;
}

static void notrace vfsb_redirect(unsigned long ip, unsigned long pip,
				  struct ftrace_regs *fregs,
				  struct super_block *sb, unsigned long wrapper)
{
	struct vfsb_section s;
	int bit;

	/* unwatched: one load; the wrapper's own call: a few compares */
	if (!atomic_read(&vfsb_nr_tracked) || !sb ||
	    within_module(pip, THIS_MODULE))
		return;
	bit = ftrace_test_recursion_trylock(ip, pip);
	if (bit < 0)
		return;
	if (vfsb_section_begin(sb, &s, false)) {
		if (vfsb_task_push(&s)) {
			vfsb_fregs_set_ip(fregs, wrapper);
		} else {
			/* no slot: the write goes unbracketed, counted */
			atomic64_inc(&s.vsb->missed);
			vfsb_section_end(&s);
		}
	}
	ftrace_test_recursion_unlock(bit);
}

static void notrace vfsb_ft_want_write(unsigned long ip, unsigned long pip,
				       struct ftrace_ops *op,
				       struct ftrace_regs *fregs)
{
	struct vfsmount *mnt = (void *)vfsb_fregs_arg(fregs, 0);

	vfsb_redirect(ip, pip, fregs, mnt ? mnt->mnt_sb : NULL,
		      (unsigned long)vfsb_wrap_want_write);
}

static void notrace vfsb_ft_want_write_file(unsigned long ip,
					    unsigned long pip,
					    struct ftrace_ops *op,
					    struct ftrace_regs *fregs)
{
	vfsb_redirect(ip, pip, fregs,
		      sb_of_file((void *)vfsb_fregs_arg(fregs, 0)),
		      (unsigned long)vfsb_wrap_want_write_file);
}

static const struct vfsb_ft_def vfsb_redir_defs[] = {
	{ "mnt_want_write", vfsb_ft_want_write },
	{ "mnt_want_write_file", vfsb_ft_want_write_file },
};

#define VFSB_NR_REDIRS ARRAY_SIZE(vfsb_redir_defs)
#else
static const struct vfsb_ft_def vfsb_redir_defs[1];
#define VFSB_NR_REDIRS 0
#endif

static const struct vfsb_ft_def vfsb_ft_defs[] = {
	{ "mnt_drop_write", vfsb_ft_drop_write },
	{ "mnt_drop_write_file", vfsb_ft_drop_write_file },
	{ "generic_shutdown_super", vfsb_ft_shutdown },
	{ "io_complete_rw", vfsb_ft_complete, true },
	{ "io_complete_rw_iopoll", vfsb_ft_complete, true },
	{ "aio_complete_rw", vfsb_ft_complete, true },
};

struct vfsb_ftrace_hook {
	const char *symbol;
	struct ftrace_ops ops;
	bool registered;
};

/* the barrier's own hooks, then the record emission hooks (emit.c) */
#define VFSB_NR_FTS (ARRAY_SIZE(vfsb_ft_defs) + VFSB_MAX_EMIT_FTS)
#define VFSB_MAX_EMIT_FTS 24

static struct vfsb_ftrace_hook vfsb_fts[VFSB_NR_FTS];

static const struct vfsb_ft_def *vfsb_ft_def_at(size_t i)
{
	if (i < ARRAY_SIZE(vfsb_ft_defs))
		return &vfsb_ft_defs[i];
	i -= ARRAY_SIZE(vfsb_ft_defs);
	return i < vfsb_emit_ft_count ? &vfsb_emit_ft_defs[i] : NULL;
}

static struct vfsb_ftrace_hook vfsb_redirs[ARRAY_SIZE(vfsb_redir_defs)];

/* Whether calls to symbol go through a redirect (no kretprobe needed). */
static bool vfsb_redirected(const char *symbol)
{
	size_t i;

	for (i = 0; i < VFSB_NR_REDIRS; i++)
		if (vfsb_redirs[i].registered &&
		    !strcmp(vfsb_redirs[i].symbol, symbol))
			return true;
	return false;
}

static int vfsb_ft_register(struct vfsb_ftrace_hook *h,
			    const struct vfsb_ft_def *def, unsigned long flags)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->symbol = def->symbol;
	h->ops.func = def->func;
	/*
	 * No FTRACE_OPS_FL_RECURSION: that asks ftrace to wrap the callback
	 * in its own recursion guard, and the callbacks take one themselves.
	 */
	h->ops.flags = flags;

	ret = ftrace_set_filter(&h->ops, (unsigned char *)h->symbol,
				strlen(h->symbol), 1);
	if (ret)
		return ret;
	ret = register_ftrace_function(&h->ops);
	if (ret) {
		ftrace_free_filter(&h->ops);
		return ret;
	}
	h->registered = true;
	return 0;
}

static void vfsb_hooks_unregister(void)
{
	size_t i;

	/* each unregister waits for callbacks still running */
	for (i = 0; i < ARRAY_SIZE(vfsb_krps); i++) {
		if (vfsb_krps[i].registered)
			unregister_kretprobe(&vfsb_krps[i].krp);
		vfsb_krps[i].registered = false;
	}
	for (i = 0; i < VFSB_NR_REDIRS; i++) {
		if (vfsb_redirs[i].registered) {
			unregister_ftrace_function(&vfsb_redirs[i].ops);
			ftrace_free_filter(&vfsb_redirs[i].ops);
		}
		vfsb_redirs[i].registered = false;
	}
	for (i = 0; i < ARRAY_SIZE(vfsb_fts); i++) {
		if (vfsb_fts[i].registered) {
			unregister_ftrace_function(&vfsb_fts[i].ops);
			ftrace_free_filter(&vfsb_fts[i].ops);
		}
		vfsb_fts[i].registered = false;
	}
}

static int vfsb_hooks_register(void)
{
	size_t i;
	int ret;

	/* the closing side first, so that no opened section lacks it */
	if (WARN_ON(vfsb_emit_ft_count > VFSB_MAX_EMIT_FTS))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(vfsb_fts); i++) {
		const struct vfsb_ft_def *def = vfsb_ft_def_at(i);

		if (!def)
			break;
		ret = vfsb_ft_register(&vfsb_fts[i], def, 0);
		if (ret && def->optional) {
			pr_info("%s not hooked on this kernel (%d)\n",
				def->symbol, ret);
			continue;
		}
		if (ret) {
			pr_err("ftrace hook on %s failed: %d\n", def->symbol, ret);
			goto fail;
		}
	}
	/* where the redirect cannot be had, the kretprobe does the same */
	for (i = 0; i < VFSB_NR_REDIRS; i++) {
		ret = vfsb_ft_register(&vfsb_redirs[i], &vfsb_redir_defs[i],
				       FTRACE_OPS_FL_IPMODIFY);
		if (ret)
			pr_info("%s: no redirect (%d), a kretprobe instead\n",
				vfsb_redir_defs[i].symbol, ret);
	}
	for (i = 0; i < ARRAY_SIZE(vfsb_krps); i++) {
		struct vfsb_kretprobe *h = &vfsb_krps[i];

		vfsb_krp_init(h, &vfsb_krp_defs[i]);
		if (vfsb_redirected(h->def->symbol))
			continue;
		ret = register_kretprobe(&h->krp);
		if (ret && h->def->optional) {
			pr_info("%s not hooked on this kernel (%d)\n",
				h->krp.kp.symbol_name, ret);
			continue;
		}
		if (ret) {
			pr_err("kretprobe on %s failed: %d\n",
			       h->krp.kp.symbol_name, ret);
			goto fail;
		}
		h->registered = true;
	}
	return 0;
fail:
	vfsb_hooks_unregister();
	return ret;
}

/*
 * The hooks are in place only while some superblock is tracked, and for
 * a while after: loading the module costs the system nothing, and
 * registering (which patches kernel text and waits for RCU: seconds
 * under emulation, milliseconds on hardware) is not repeated for every
 * watch of a service that watches and unwatches often. The last
 * tracking's teardown has already waited for every section, so once no
 * tracking is left the hooks have nothing in flight.
 */
#define VFSB_HOOKS_LINGER (10 * HZ)

static DEFINE_MUTEX(vfsb_hooks_mutex);
static unsigned int vfsb_hooks_users;
static bool vfsb_hooks_live;

static void vfsb_hooks_idle_fn(struct work_struct *work)
{
	mutex_lock(&vfsb_hooks_mutex);
	if (!vfsb_hooks_users && vfsb_hooks_live) {
		vfsb_hooks_unregister();
		vfsb_hooks_live = false;
	}
	mutex_unlock(&vfsb_hooks_mutex);
}

static DECLARE_DELAYED_WORK(vfsb_hooks_idle, vfsb_hooks_idle_fn);

int vfsb_hooks_get(void)
{
	int ret = 0;

	mutex_lock(&vfsb_hooks_mutex);
	if (!vfsb_hooks_live) {
		ret = vfsb_hooks_register();
		vfsb_hooks_live = !ret;
	}
	if (!ret)
		vfsb_hooks_users++;
	mutex_unlock(&vfsb_hooks_mutex);
	return ret;
}

void vfsb_hooks_put(void)
{
	mutex_lock(&vfsb_hooks_mutex);
	if (!--vfsb_hooks_users)
		mod_delayed_work(vfsb_wq, &vfsb_hooks_idle, VFSB_HOOKS_LINGER);
	mutex_unlock(&vfsb_hooks_mutex);
}

/* Module exit: no tracking is left; take the hooks out now. */
void vfsb_hooks_exit(void)
{
	cancel_delayed_work_sync(&vfsb_hooks_idle);
	WARN_ON(vfsb_hooks_users);
	if (vfsb_hooks_live)
		vfsb_hooks_unregister();
	vfsb_hooks_live = false;
	/* no task is left in a wrapper's last instructions */
	if (VFSB_NR_REDIRS)
		synchronize_rcu_tasks();
}
