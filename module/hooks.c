// SPDX-License-Identifier: GPL-2.0
/*
 * What is hooked, and what each hook does: the one table of hooked
 * functions (vfsb_hook_table at the end), one callback per function.
 *
 * A write operation on a tracked superblock runs inside a write section
 * (sections.c) from before it changes anything until it is done, and
 * announces itself (emit.c) inside that section, before the change.
 * Sections open where the operation begins, when a hook can see its
 * end there:
 *  - write access: mnt_want_write*() leaves a token in the task, the
 *    change's announcement opens the section (a writer blocked on a
 *    frozen filesystem holds none), mnt_drop_write*() closes it;
 *  - the exported helpers that kernel threads use for data (nfsd,
 *    ksmbd, overlayfs, loop, cachefiles: vfs_iter_write(),
 *    kernel_write(), vfs_fallocate(), ...) hold it from their entry to
 *    their return, seen by a return probe, or, for an intent
 *    subscriber's filesystem, are redirected to wrappers that hold it
 *    around the call;
 *  - io_uring and AIO submissions, and in-kernel async iocbs
 *    (vfs_iocb_iter_write()), open it at their entry; their return
 *    closes it, or, when the write was queued, its completion does.
 * Every announcing hook (the security_inode_*() checks, rw_verify_area()
 * of data writes, the page_mkwrite fault...) then makes sure a section
 * covers its change: if the task holds none on that superblock (write(2)
 * and the other syscall paths, or an operation that began before the
 * watch), one opens there, before the change, and lasts until the task
 * returns to user space. So every change announced is inside a section,
 * and every change is announced; what cannot be bracketed (a kernel
 * thread outside the wrappers, no memory) is announced flagged unfenced,
 * with a RESCAN record.
 *
 * Callbacks run inside the hooked call, in its task, with preemption
 * disabled (ftrace) and whatever locks the caller holds: they take only
 * spinlocks of this module, never sleep, and call nothing hooked.
 * Wrappers run in the caller's context and call the exported function
 * by its linked symbol (IBT kernels forbid calls through resolved
 * addresses); each is declared with the type of the function it stands
 * in for, so a prototype change on a new kernel fails the build.
 */
#include <linux/aio.h>
#include <linux/fs.h>
#include <linux/falloc.h>
#include <linux/fileattr.h>
#include <linux/fscrypt.h>
#include <linux/io_uring.h>
#include <linux/fsverity.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/sched/task_stack.h>
#include <linux/posix_acl.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/xattr.h>
#include <linux/splice.h>
#include <linux/static_call.h>
#include <uapi/linux/vfsbarrier.h>

#include "emit.h"
#include "hookreg.h"
#include "hooks.h"
#include "intent.h"
#include "ring.h"
#include "sections.h"
#include "spans.h"
#include "tracking.h"

#define ARG(n) ((void *)vfsb_fregs_arg(fregs, n))
#define RARG(n) ((void *)regs_get_kernel_argument(regs, n))

static struct super_block *vfsb_file_sb(struct file *file)
{
	return file ? file_inode(file)->i_sb : NULL;
}

/*
 * The filesystem whose data a write to file changes: none unless it is
 * a regular file. A FIFO's or a device node's inode lives on the
 * filesystem, but writing to it changes no data there, and pipe_write()
 * or a driver may sleep for as long as a reader pleases: bracketed, any
 * user could hold every barrier of the filesystem. The kernel's freeze
 * leaves them alone too (file_start_write() is a no-op for anything but
 * a regular file, include/linux/fs.h in 6.1, 6.12 and 7.3). Their
 * attribute changes (fchmod, setxattr) are the filesystem's and stay.
 */
static struct super_block *vfsb_data_sb(struct file *file)
{
	if (!file || !S_ISREG(file_inode(file)->i_mode))
		return NULL;
	return file_inode(file)->i_sb;
}

/* Whether sb is tracked: decides redirects. */
static bool vfsb_tracked(struct super_block *sb)
{
	bool ret;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	rcu_read_lock();
	ret = vfsb_tracking_lookup_rcu(sb);
	rcu_read_unlock();
	return ret;
}

/* ---- call spans: a wrapper holds the section around the call ---- */

struct vfsb_call {
	struct vfsb_section s;
	bool on;
	bool marked;
	bool pinned;		/* holds a module reference */
};

static void vfsb_call_begin(struct vfsb_call *c, struct super_block *sb)
{
	c->marked = false;
	c->on = vfsb_section_begin(sb, &c->s, false);
	/* without the mark it still brackets; announcements say unfenced */
	if (c->on)
		c->marked = !vfsb_task_hold(&c->s, VFSB_HOLD_MARK);
}

static void vfsb_call_end(struct vfsb_call *c)
{
	if (!c->on)
		return;
	if (c->marked)
		vfsb_task_unmark(c->s.vsb);
	vfsb_section_end(&c->s);
}

/*
 * A wrapper's whole call, from vfsb_call_start() (or a successful
 * vfsb_call_announce()) to vfsb_call_finish(): counted as inside a
 * wrapper (hookreg.h), for the module's exit.
 */
static void vfsb_call_start(struct vfsb_call *c, struct super_block *sb)
{
	vfsb_wrapper_enter();
	c->pinned = false;
	vfsb_call_begin(c, sb);
}

static void vfsb_call_finish(struct vfsb_call *c)
{
	vfsb_call_end(c);
	if (c->pinned)
		module_put(THIS_MODULE);
	vfsb_wrapper_exit();
}

/* ---- announcing ---- */

/*
 * A change is announced inside a section that covers it: one the task
 * holds already, or (open) one opened now until the syscall returns (the
 * change has not been made yet, so that is early enough). Sections are
 * kept whether or not anyone subscribes: the barrier waits on them.
 * Without open, an uncovered change is counted as missed and announced
 * unfenced.
 */
static void vfsb_announce_change(struct super_block *sb,
				 const struct vfsb_event *ev, bool open,
				 struct vfsb_intent_req *req)
{
	bool fenced = open ? vfsb_task_ensure_cover(sb) :
			     vfsb_task_check_cover(sb);

	if (atomic_read(&vfsb_nr_rings))
		vfsb_announce(sb, ev, fenced, req);
}

/*
 * Intent mode: a change that must wait for the journal's ack. The
 * hooked call returns at once through these, in place of the function
 * (its arguments are ignored), and the wait follows at the return to
 * user space (intent.c): -ERESTARTNOINTR restarts a system call from
 * its beginning; VM_FAULT_NOPAGE retries the faulting access. A change
 * that cannot wait and is refused gets -EAGAIN, or VM_FAULT_SIGBUS (a
 * fault taken by the kernel: its access fails with -EFAULT). Each has
 * the hooked function's return type: an int in the return register is
 * not a negative ssize_t.
 */
static int notrace vfsb_deny_restart(void)
{
	return -ERESTARTNOINTR;
}

static int notrace vfsb_refuse(void)
{
	return -EAGAIN;
}

static ssize_t notrace vfsb_refuse_write(void)
{
	return -EAGAIN;
}

static int notrace vfsb_timed_out(void)
{
	return -ETIMEDOUT;
}

static ssize_t notrace vfsb_timed_out_write(void)
{
	return -ETIMEDOUT;
}

/* Where an int function that is refused or timed out continues. */
static unsigned long vfsb_fail_ip(enum vfsb_settle s)
{
	return s == VFSB_SETTLE_REFUSE ? (unsigned long)vfsb_refuse :
	       s == VFSB_SETTLE_TIMEDOUT ? (unsigned long)vfsb_timed_out : 0;
}

static vm_fault_t notrace vfsb_deny_fault(void)
{
	return VM_FAULT_NOPAGE;
}

static vm_fault_t notrace vfsb_refuse_fault(void)
{
	return VM_FAULT_SIGBUS;
}

/*
 * An entry hook cannot move its call where another ftrace user (a
 * livepatch, a kprobe with a post_handler) holds its function's
 * IPMODIFY (hookreg.c): not to make the call wait, not to refuse it.
 * Its change goes on unacked, and its filesystem gets a RESCAN. true:
 * so it is, and req is settled.
 */
static bool vfsb_cannot_move(struct vfsb_intent_req *req)
{
	if (vfsb_hook_may_move())
		return false;
	vfsb_intent_unwaited(req);
	return true;
}

/* An entry hook (of an int function) in a system call settles its wait. */
static void vfsb_settle_call(struct ftrace_regs *fregs,
			     struct vfsb_intent_req *req, bool async)
{
	enum vfsb_settle s;

	/* nothing to wait for: each step below would do nothing */
	if (!req->in || vfsb_cannot_move(req))
		return;
	s = vfsb_intent_defer_syscall(req, async);

	switch (s) {
	case VFSB_SETTLE_WAIT:
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_deny_restart);
		break;
	case VFSB_SETTLE_REFUSE:
	case VFSB_SETTLE_TIMEDOUT:
		vfsb_fregs_set_ip(fregs, vfsb_fail_ip(s));
		break;
	case VFSB_SETTLE_GO:
		break;
	}
}

static void vfsb_settle_syscall(struct ftrace_regs *fregs,
				struct vfsb_intent_req *req)
{
	vfsb_settle_call(fregs, req, false);
}

/*
 * A namespace or attribute change's hook: a call that cannot be
 * restarted (a kernel thread: nfsd, ksmbd; an io-wq worker) parks its
 * wait with the wrapper of the helper it is in, keyed by the dentry the
 * helper was given (vfs_create() and the rest, below), and fails the
 * check; the helper then returns before it changes anything.
 */
static void vfsb_settle_parked(struct ftrace_regs *fregs,
			       struct vfsb_intent_req *req, const void *key,
			       const void *alt)
{
	/* nothing to wait for: each step below would do nothing */
	if (!req->in || vfsb_cannot_move(req))
		return;
	if (vfsb_intent_park(key, req, false) ||
	    (alt && vfsb_intent_park(alt, req, false))) {
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_refuse);
		return;
	}
	vfsb_settle_syscall(fregs, req);
}

static void vfsb_settle_ns(struct ftrace_regs *fregs,
			   struct vfsb_intent_req *req, const void *key)
{
	vfsb_settle_parked(fregs, req, key, NULL);
}

/* What an open's wrapper parks for (do_filp_open(), below). */
static const char vfsb_open_park_key;

/* A change of the data of file over [pos, pos + len). */
static void vfsb_data_event(struct vfsb_event *ev, struct file *file,
			    u32 reason, u32 flags, u64 pos, u64 len)
{
	*ev = (struct vfsb_event){
		.reasons = reason, .flags = flags, .inode = file_inode(file),
		/* overlayfs: the real file's dentry, on the real filesystem */
		.dentry = file_dentry(file), .offset = pos, .length = len,
	};
	/* the offset is then the size when announced (emit.c) */
	if (file->f_flags & O_APPEND)
		ev->flags |= VFSB_RECF_APPEND;
}

/*
 * sync: the write is done when the call returns (not an async
 * submission), so a section until the syscall returns covers it.
 */
static void vfsb_announce_data(struct file *file, u32 reason, u32 flags,
			       u64 pos, u64 len, bool sync,
			       struct vfsb_intent_req *req)
{
	struct vfsb_event ev;

	vfsb_data_event(&ev, file, reason, flags, pos, len);
	vfsb_announce_change(ev.inode->i_sb, &ev, sync, req);
}

/* An attribute-like change of dentry (setattr, xattr, ACL, flags). */
static void vfsb_dentry_event(struct vfsb_event *ev, struct dentry *dentry,
			      u32 reason, struct iattr *attr)
{
	*ev = (struct vfsb_event){
		.reasons = reason, .dentry = dentry, .name_of_dentry = true,
		.inode = d_inode(dentry),
	};
	if (attr && (attr->ia_valid & ATTR_SIZE)) {
		ev->reasons = VFSB_R_TRUNCATE;
		ev->offset = attr->ia_size;
	}
}

static void vfsb_announce_dentry(struct dentry *dentry, u32 reason,
				 struct iattr *attr,
				 struct vfsb_intent_req *req)
{
	struct vfsb_event ev;

	vfsb_dentry_event(&ev, dentry, reason, attr);
	vfsb_announce_change(dentry->d_sb, &ev, true, req);
}

/*
 * A wrapper's call (it may sleep): its section opens and its change is
 * announced. In intent mode, when the change must wait for its ack, the
 * section ends, the wrapper waits and announces again. 0: the section
 * is open, and vfsb_call_finish() ends the call; else the error to fail
 * the call with, no section held, the call ended.
 *
 * A wrapper that has waited holds a module reference until it finishes:
 * the wait may outlast the subscriber and the watch (a timeout), and so
 * may the call after it (a frozen filesystem), with nothing else that
 * keeps the module; unload is refused meanwhile. Taken while the
 * announcement's section still holds the tracking, and with it the
 * module.
 */
static int vfsb_call_announce(struct vfsb_call *c, struct super_block *sb,
			      const struct vfsb_event *ev)
{
	struct vfsb_intent_req req;
	int err;

	vfsb_call_start(c, sb);
	for (;;) {
		memset(&req, 0, sizeof(req));
		vfsb_announce_change(sb, ev, true, &req);
		if (!req.in)
			return 0;
		if (!c->pinned)
			__module_get(THIS_MODULE);
		c->pinned = true;
		vfsb_call_end(c);
		err = vfsb_intent_wait(&req, true);
		if (err) {
			c->on = false;
			vfsb_call_finish(c);
			return err;
		}
		vfsb_call_begin(c, sb);
	}
}

/* ---- write access: mnt_want_write*() to mnt_drop_write*() ---- */

/*
 * Write access brackets a namespace or attribute change: the section
 * opens at the change's announcement, which comes after write access
 * was granted and before the change, and mnt_drop_write*() ends it.
 * The entry callback of mnt_want_write*() only leaves a token in the
 * task (sections.c): it cannot see whether access will be granted, and
 * a section opened there would make barriers wait for a writer blocked
 * on a frozen filesystem. No redirect, no return probe: a redirect on
 * every watched filesystem needs ftrace's IPMODIFY on the function
 * whenever anything is watched (a livepatch or a kprobe with a
 * post_handler there then gets EBUSY),
 * and a kretprobe shares its kprobe with such a post_handler kprobe
 * through an aggregate probe that 6.1 disarms through the wrong
 * ftrace_ops once the other one is gone ("Failed to disarm
 * kprobe-ftrace", kernel/kprobes.c 6.1:1126, and the probe stays
 * registered: add_new_kprobe() 1258-1268 sets the aggregate's
 * post_handler without arming it for IPMODIFY, and
 * __unregister_kprobe_top() 1783-1795 keeps it).
 *
 * mnt_want_write() takes freeze protection (sb_start_write(), void on
 * every target), then the mount's write count, and fails only when the
 * mount or its filesystem is read-only, undoing both; its caller then
 * never calls mnt_drop_write() (6.1 fs/namespace.c: mnt_want_write()
 * 398-407, mnt_want_write_file() 442-451, __mnt_want_write_file()
 * 419-431, mnt_is_readonly() 318-325; later kernels the same through
 * mnt_get_write_access()). So no token is left for a call that will
 * fail: the same test, made first (vfsb_mnt_readonly()). Only a remount
 * read-only in between leaves one, which holds no section
 * (sections.c says where it goes).
 */
static bool vfsb_mnt_readonly(struct vfsmount *mnt)
{
	return READ_ONCE(mnt->mnt_sb->s_readonly_remount) ||
	       (READ_ONCE(mnt->mnt_flags) & MNT_READONLY) ||
	       sb_rdonly(mnt->mnt_sb);
}

static void vfsb_want_access(struct vfsmount *mnt)
{
	if (mnt && vfsb_sb_maybe_tracked(mnt->mnt_sb) &&
	    !vfsb_mnt_readonly(mnt))
		vfsb_task_want_access(mnt->mnt_sb);
}

static void vfsb_on_want_write(struct ftrace_regs *fregs)
{
	vfsb_want_access(ARG(0));
}

static void vfsb_on_want_write_file(struct ftrace_regs *fregs)
{
	struct file *file = ARG(0);

	vfsb_want_access(file ? file->f_path.mnt : NULL);
}

static void vfsb_release_access(struct super_block *sb)
{
	struct vfsb_section s;

	if (sb && vfsb_task_drop_access(sb, &s))
		vfsb_section_end(&s);
}

/*
 * The data helpers' calls go on in their wrappers only on a filesystem
 * an intent subscriber watches: the wrapper is where a call waits for
 * its ack. Elsewhere a return hook brackets them (vfsb_span_enter()).
 */
static bool vfsb_intent_tracked(struct super_block *sb)
{
	return sb && vfsb_tracked(sb) && vfsb_sb_has_intent(sb);
}

static bool vfsb_redirect_file0(struct ftrace_regs *fregs)
{
	return vfsb_intent_tracked(vfsb_file_sb(ARG(0)));
}

/* data wrappers: the file written is argument 0, or 2 */
static bool vfsb_redirect_data0(struct ftrace_regs *fregs)
{
	return vfsb_intent_tracked(vfsb_data_sb(ARG(0)));
}

static bool vfsb_redirect_data2(struct ftrace_regs *fregs)
{
	return vfsb_intent_tracked(vfsb_data_sb(ARG(2)));
}

static void vfsb_on_drop_write(struct ftrace_regs *fregs)
{
	struct vfsmount *mnt = ARG(0);

	vfsb_release_access(mnt ? mnt->mnt_sb : NULL);
}

static void vfsb_on_drop_write_file(struct ftrace_regs *fregs)
{
	vfsb_release_access(vfsb_file_sb(ARG(0)));
}

/* ---- namespace and attribute announcements ---- */

/* create, mknod, symlink: (dir, dentry, ...) */
static noinline void vfsb_create_change(struct ftrace_regs *fregs)
{
	struct inode *dir = ARG(0);
	struct dentry *dentry = ARG(1);
	struct vfsb_intent_req req = { };
	struct vfsb_event ev = {
		.reasons = VFSB_R_CREATE, .dir = dir, .name = &dentry->d_name,
		.dir_dentry = dentry->d_parent,
	};

	/* open(O_CREAT) of a name not looked up yet: intent.c */
	if (d_in_lookup(dentry) && vfsb_hook_may_move() &&
	    vfsb_create_may_defer(dir, dentry) &&
	    vfsb_intent_defer_create(dir, &dentry->d_name)) {
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_deny_restart);
		return;
	}
	vfsb_announce_change(dir->i_sb, &ev, true, &req);
	/* vfs_create()'s wrapper, or (a creating open) do_filp_open()'s */
	vfsb_settle_parked(fregs, &req, dentry, &vfsb_open_park_key);
}

static noinline void vfsb_mkdir_change(struct ftrace_regs *fregs)
{
	struct inode *dir = ARG(0);
	struct dentry *dentry = ARG(1);
	struct vfsb_intent_req req = { };
	struct vfsb_event ev = {
		.reasons = VFSB_R_CREATE, .flags = VFSB_RECF_DIR, .dir = dir,
		.name = &dentry->d_name, .dir_dentry = dentry->d_parent,
	};

	vfsb_announce_change(dir->i_sb, &ev, true, &req);
	vfsb_settle_ns(fregs, &req, dentry);
}

/* link: (old_dentry, dir, new_dentry) */
static noinline void vfsb_link_change(struct ftrace_regs *fregs)
{
	struct dentry *old = ARG(0);
	struct inode *dir = ARG(1);
	struct dentry *new = ARG(2);
	struct vfsb_intent_req req = { };
	struct vfsb_event ev = {
		.reasons = VFSB_R_HARDLINK, .dir = dir, .name = &new->d_name,
		.inode = d_inode(old), .dir_dentry = new->d_parent,
	};

	vfsb_announce_change(dir->i_sb, &ev, true, &req);
	vfsb_settle_ns(fregs, &req, new);
}

/* unlink, rmdir: (dir, dentry) */
static noinline void vfsb_delete_change(struct ftrace_regs *fregs)
{
	struct inode *dir = ARG(0);
	struct dentry *dentry = ARG(1);
	struct vfsb_intent_req req = { };
	struct vfsb_event ev = {
		.reasons = VFSB_R_DELETE, .dir = dir, .name = &dentry->d_name,
		.inode = d_inode(dentry), .dir_dentry = dentry->d_parent,
	};

	vfsb_announce_change(dir->i_sb, &ev, true, &req);
	vfsb_settle_ns(fregs, &req, dentry);
}

/*
 * rename: (old_dir, old_dentry, new_dir, new_dentry, flags). Both
 * parents are locked, so both names are stable.
 */
static noinline void vfsb_rename_change(struct ftrace_regs *fregs)
{
	struct dentry *old = ARG(1), *new = ARG(3);
	unsigned int flags = (unsigned long)ARG(4);
	u32 xflag = flags & RENAME_EXCHANGE ? VFSB_RECF_EXCHANGE : 0;
	struct super_block *sb = ((struct inode *)ARG(0))->i_sb;
	struct vfsb_intent_req req = { };
	struct vfsb_event from, to;

	from = (struct vfsb_event){
		.reasons = VFSB_R_RENAME_FROM, .flags = xflag, .dir = ARG(0),
		.name = &old->d_name, .inode = d_inode(old),
		.cookie = vfsb_next_cookie(), .dir_dentry = old->d_parent,
	};
	to = from;
	to.reasons = VFSB_R_RENAME_TO;
	to.dir = ARG(2);
	to.name = &new->d_name;
	to.dir_dentry = new->d_parent;
	/*
	 * With RENAME_EXCHANGE the target moves too: both directions, each
	 * record about the object that was under its name.
	 */
	if (xflag) {
		to.reasons |= VFSB_R_RENAME_FROM;
		from.reasons |= VFSB_R_RENAME_TO;
		to.inode = d_inode(new);
	} else if (d_really_is_positive(new)) {
		to.flags |= VFSB_RECF_OVERWRITE;
	}
	vfsb_announce_change(sb, &from, true, &req);
	vfsb_announce_change(sb, &to, true, &req);
	/* the object the rename replaces disappears: say so by name */
	if (!xflag && d_really_is_positive(new)) {
		struct vfsb_event victim = {
			.reasons = VFSB_R_DELETE, .flags = VFSB_RECF_REPLACED,
			.dir = to.dir, .name = &new->d_name,
			.inode = d_inode(new), .cookie = from.cookie,
			.dir_dentry = new->d_parent,
		};

		vfsb_announce_change(sb, &victim, true, &req);
	}
	/* RENAME_WHITEOUT leaves a whiteout under the old name: a creation */
	if (flags & RENAME_WHITEOUT) {
		struct vfsb_event wh = {
			.reasons = VFSB_R_CREATE, .dir = from.dir,
			.name = &old->d_name, .dir_dentry = old->d_parent,
		};

		vfsb_announce_change(sb, &wh, true, &req);
	}
	vfsb_settle_ns(fregs, &req, old);
}

/* setattr: (idmap, dentry, iattr) */
static noinline void vfsb_setattr_change(struct ftrace_regs *fregs)
{
	struct vfsb_intent_req req = { };

	vfsb_announce_dentry(ARG(1), VFSB_R_ATTRIB, ARG(2), &req);
	vfsb_settle_ns(fregs, &req, ARG(1));
}

/* setxattr, removexattr: (idmap, dentry, name, ...) */
static noinline void vfsb_xattr_change(struct ftrace_regs *fregs)
{
	struct vfsb_intent_req req = { };

	vfsb_announce_dentry(ARG(1), VFSB_R_XATTR, NULL, &req);
	vfsb_settle_ns(fregs, &req, ARG(1));
}

#ifdef VFSB_NS_WRAPPERS
static bool vfsb_ns_redirect(struct super_block *sb);
static typeof(vfs_fileattr_set) vfsb_wrap_vfs_fileattr_set;
#endif

/*
 * vfs_fileattr_set: (idmap, dentry, fa): chattr, FS_IOC_FSSETXATTR. A
 * task that cannot restart (overlayfs' copy-up of a file's flags in an
 * io-wq worker or nfsd: 6.1.0-57 fs/overlayfs/copy_up.c 588) moves its
 * call into the wrapper below first, unannounced; the wrapper's own call
 * comes back here, announces and parks its wait there, and fails at the
 * function's entry, before anything is read or changed.
 */
static noinline void vfsb_fileattr_change(struct ftrace_regs *fregs)
{
	struct dentry *dentry = ARG(1);
	struct vfsb_intent_req req = { };

#ifdef VFSB_NS_WRAPPERS
	if (vfsb_hook_may_move() && vfsb_ns_redirect(dentry->d_sb) &&
	    !vfsb_intent_parked(dentry)) {
		vfsb_fregs_set_ip(fregs,
				  (unsigned long)vfsb_wrap_vfs_fileattr_set);
		return;
	}
#endif
	vfsb_announce_dentry(dentry, VFSB_R_ATTRIB, NULL, &req);
	vfsb_settle_ns(fregs, &req, dentry);
}

/*
 * POSIX ACLs: see compat.h for which function, by kernel. (idmap,
 * dentry, ...): a kernel thread or io-wq worker parks its wait with
 * vfs_set_acl()'s or vfs_remove_acl()'s wrapper, by the dentry.
 */
static void vfsb_on_acl(struct ftrace_regs *fregs)
{
	struct vfsb_intent_req req = { };

	vfsb_announce_dentry(ARG(1), VFSB_R_ACL, NULL, &req);
	vfsb_settle_ns(fregs, &req, ARG(1));
}

/* ---- data writes ---- */

/*
 * rw_verify_area(read_write, file, ppos, count): every data write passes.
 * Whether the write is synchronous shows in where its position lives:
 * in the caller's frame or the file for a call that writes before it
 * returns (write(2), splice, copy_file_range, a sync kiocb), in a heap
 * kiocb for a submission that may complete later (io_uring, AIO,
 * overlayfs' async iocbs). An async one must be covered by its
 * submission's section; a section until the syscall returns would let
 * a barrier pass it.
 */
static noinline void vfsb_data_change(struct ftrace_regs *fregs)
{
	struct file *file = ARG(1);
	const loff_t *ppos = ARG(2);
	struct vfsb_intent_req req = { };
	bool sync;

	sync = !ppos || ppos == &file->f_pos || object_is_on_stack(ppos);
	vfsb_announce_data(file, VFSB_R_DATA_WRITE, 0, ppos ? *ppos : 0,
			   (unsigned long)ARG(3), sync, &req);
	if (!req.in || vfsb_cannot_move(&req))
		return;
	/*
	 * An async write restarts only as the submission its system call
	 * made (the kiocb whose ki_pos this is): a failed nested one, as
	 * overlayfs submits for its upper file, is completed by AIO with
	 * -EINTR, never restarted (aio_rw_done(), fs/aio.c). It waits in
	 * vfs_iocb_iter_write()'s wrapper, which the nested ones are made
	 * through, parked by their kiocb; without it, it cannot wait.
	 */
	if (!sync &&
	    !vfsb_task_submitting(container_of(ppos, struct kiocb, ki_pos))) {
		unsigned long ip;

		if (vfsb_intent_park_nested(container_of(ppos, struct kiocb,
							 ki_pos), &req)) {
			vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_refuse);
			return;
		}
		ip = vfsb_fail_ip(vfsb_intent_no_wait(&req));
		if (ip)
			vfsb_fregs_set_ip(fregs, ip);
		return;
	}
	/*
	 * A call that cannot be restarted (a kernel thread, io_uring) may
	 * be inside a wrapper that can wait: for the file's write (nfsd's
	 * vfs_iter_write(), ksmbd's kernel_write()) or the request's
	 * (io_write()). The check fails, nothing is written, and the
	 * wrapper calls again after the ack.
	 */
	if (vfsb_intent_park(sync ? (const void *)file :
			     container_of(ppos, struct kiocb, ki_pos),
			     &req, !sync)) {
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_refuse);
		return;
	}
	vfsb_settle_call(fregs, &req, !sync);
}

/* do_page_mkwrite(vmf, ...): a shared mapping's page made writable */
static struct file *vfsb_fault_file(struct vm_fault *vmf)
{
	return vmf->vma ? vmf->vma->vm_file : NULL;
}

/*
 * A write fault the kernel took, parked (intent.c, "a write fault the
 * kernel took"): do_page_mkwrite() continues here, in the faulting
 * task, which waits for the ack holding no section, and returns
 * VM_FAULT_NOPAGE without calling ->page_mkwrite(). Its callers then
 * drop their page reference and return it up (6.1.0-57 mm/memory.c
 * 3360-3363, 4696-4699), and the access faults again.
 */
static vm_fault_t notrace vfsb_fault_wait(struct vm_fault *vmf)
{
	vfsb_wrapper_enter();
	vfsb_intent_fault_wait(vmf);
	vfsb_wrapper_exit();
	return VM_FAULT_NOPAGE;
}

static noinline void vfsb_mkwrite_change(struct ftrace_regs *fregs)
{
	struct vm_fault *vmf = ARG(0);
	struct file *file = vfsb_fault_file(vmf);
	struct vfsb_intent_req req = { };
	bool user = vmf->flags & FAULT_FLAG_USER;
	/* before the announcement, which opens a section */
	bool in_place = !user && vfsb_task_holds_none();

	vfsb_announce_data(file, VFSB_R_MMAP_WRITE, 0,
			   (u64)vmf->pgoff << PAGE_SHIFT, PAGE_SIZE, true, &req);
	if (vfsb_cannot_move(&req))
		return;
	if (in_place && vfsb_intent_park_fault(vmf, &req)) {
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_fault_wait);
		return;
	}
	switch (vfsb_intent_defer_fault(&req, user)) {
	case VFSB_SETTLE_WAIT:
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_deny_fault);
		break;
	case VFSB_SETTLE_REFUSE:
	case VFSB_SETTLE_TIMEDOUT:
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_refuse_fault);
		break;
	case VFSB_SETTLE_GO:
		break;
	}
}

/*
 * ---- the data helpers: a section from entry to return ----
 *
 * vfs_iter_write(), kernel_write(), vfs_fallocate() and the other
 * exported helpers that kernel threads write through (nfsd, ksmbd,
 * loop, overlayfs, io-wq) need a section from their entry to their
 * return: such a thread never returns to user space, where a section
 * opened by the hook inside would end. A return hook brackets them
 * (spans.c: fprobe, or kretprobes where the kernel has no fprobe;
 * vfsb_span_enter() and vfsb_span_exit() below), which needs no
 * IPMODIFY, so a livepatch on any of them, or a watch while one is
 * there, is not refused. The helpers move into
 * their wrappers (below) only on a filesystem an intent subscriber
 * watches, through the entry callbacks' ops, with IPMODIFY taken for
 * that while such a subscriber exists (hookreg.c, "Moving calls").
 *
 * A moved call meets both: the return hook's entry fires at the
 * helper's entry (before or after the move: ftrace runs the two ops in
 * its own order) and hooks the return of that call, which is now the
 * wrapper's; the wrapper's own call of the helper is not bracketed
 * again (its return address is in this module). Both sections are
 * keyed by where the call's return address is on the stack, which the
 * moved call shares with its wrapper (ftrace resumes at the wrapper on
 * the helper's stack), and the wrapper's first act ends the return
 * hook's (VFSB_OUTER_SPAN_END()): the wrapper holds its own, and lets
 * it go while it waits for an ack. The return hook then finds nothing
 * to end. Exactly one section per call; nested calls (overlayfs'
 * vfs_iter_write() of its upper file inside a write to the overlay,
 * do_splice_direct()'s write inside sendfile(2)) each have their own
 * slot.
 */
#define VFSB_OUTER_SPAN_KEY()						\
	((const void *)((const char *)__builtin_frame_address(0) +	\
			sizeof(unsigned long)))
#define VFSB_OUTER_SPAN_END()	vfsb_task_span_end(VFSB_OUTER_SPAN_KEY(), 0)

/*
 * The data wrappers that kernel threads write through (nfsd:
 * vfs_iter_write() in 6.1 and 6.12, fs/nfsd/vfs.c nfsd_vfs_write(),
 * and vfs_iocb_iter_write() with a kiocb on its stack in 7.x; ksmbd:
 * kernel_write(), fs/smb/server/vfs.c ksmbd_vfs_write()) wait there:
 * their rw_verify_area() hook cannot (it runs atomically), and a kernel
 * thread has no system call to restart. The hook parks its wait here
 * and fails that check, which each of them makes first, before it
 * writes anything (6.1.0-57 fs/read_write.c: kernel_write() 553-555,
 * do_iter_write() 856-858, vfs_iocb_iter_write() 885-887); the wrapper
 * waits with no section held (a checkpoint's barrier must not wait for
 * it) and calls again. Whether to call again; *err: the error to end
 * the call with instead (fail-closed, a fatal signal).
 */
static bool vfsb_call_again(struct vfsb_call *c, struct super_block *sb,
			    struct vfsb_park *park, int *err)
{
	*err = 0;
	if (!vfsb_park_end(park))
		return false;
	vfsb_call_end(c);
	*err = vfsb_park_wait(park);
	if (*err) {
		c->on = false;
		return false;
	}
	vfsb_call_begin(c, sb);
	return true;
}

/*
 * A wrapper's call of a helper on sb, with a section of its own, where a
 * hook inside that cannot wait parks its wait by key: the call, or the
 * error it ended with instead.
 */
#define VFSB_PARKED_CALL(sb, key, call)					\
({									\
	struct super_block *__sb = (sb);				\
	struct vfsb_park __park;					\
	struct vfsb_call __c;						\
	typeof(call) __ret;						\
	int __err;							\
									\
	vfsb_call_start(&__c, __sb);					\
	do {								\
		vfsb_park_begin(&__park, (key));			\
		__ret = (call);						\
	} while (vfsb_call_again(&__c, __sb, &__park, &__err));		\
	vfsb_call_finish(&__c);						\
	__err ? __err : __ret;						\
})

static typeof(vfs_iter_write) vfsb_wrap_vfs_iter_write;
static ssize_t notrace vfsb_wrap_vfs_iter_write(struct file *file,
						struct iov_iter *iter,
						loff_t *ppos, rwf_t flags)
{
	VFSB_OUTER_SPAN_END();
	return VFSB_PARKED_CALL(vfsb_file_sb(file), file,
				vfs_iter_write(file, iter, ppos, flags));
}

static typeof(kernel_write) vfsb_wrap_kernel_write;
static ssize_t notrace vfsb_wrap_kernel_write(struct file *file,
					      const void *buf, size_t count,
					      loff_t *pos)
{
	VFSB_OUTER_SPAN_END();
	return VFSB_PARKED_CALL(vfsb_file_sb(file), file,
				kernel_write(file, buf, count, pos));
}

/*
 * __kernel_write(file, buf, count, pos): core dumps and process
 * accounting write here without rw_verify_area() (and 7.x exports it to
 * autofs alone, so no wrapper can call it): announce, covered by the
 * caller's section (kernel_write()'s wrapper) or one until the dying
 * task's task work runs.
 */
static noinline void vfsb_kernel_write_change(struct ftrace_regs *fregs)
{
	const loff_t *pos = ARG(3);
	struct vfsb_intent_req req = { };

	/* core dumps and accounting cannot wait: unacked, or refused */
	vfsb_announce_data(ARG(0), VFSB_R_DATA_WRITE, 0, pos ? *pos : 0,
			   (unsigned long)ARG(2), true, &req);
	if (vfsb_cannot_move(&req))
		return;
	switch (vfsb_intent_no_wait(&req)) {
	case VFSB_SETTLE_REFUSE:
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_refuse_write);
		break;
	case VFSB_SETTLE_TIMEDOUT:
		vfsb_fregs_set_ip(fregs, (unsigned long)vfsb_timed_out_write);
		break;
	default:
		break;
	}
}

static void vfsb_fallocate_event(struct vfsb_event *ev, struct file *file,
				 int mode, loff_t offset, loff_t len)
{
	*ev = (struct vfsb_event){
		.reasons = VFSB_R_DATA_WRITE, .mode = mode,
		.inode = file_inode(file), .dentry = file_dentry(file),
		.offset = offset, .length = len,
	};
	/* collapsing or inserting a range moves everything after it */
	if (mode & (FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_INSERT_RANGE)) {
		ev->flags = VFSB_RECF_TO_EOF;
		ev->length = 0;
	}
}

static typeof(vfs_fallocate) vfsb_wrap_vfs_fallocate;
static int notrace vfsb_wrap_vfs_fallocate(struct file *file, int mode,
					   loff_t offset, loff_t len)
{
	struct vfsb_event ev;
	struct vfsb_call c;
	int ret;

	VFSB_OUTER_SPAN_END();
	vfsb_fallocate_event(&ev, file, mode, offset, len);
	ret = vfsb_call_announce(&c, vfsb_file_sb(file), &ev);
	if (ret)
		return ret;
	ret = vfs_fallocate(file, mode, offset, len);
	vfsb_call_finish(&c);
	return ret;
}

/*
 * set_posix_acl(idmap, target, type, acl): nfsd's and ksmbd's POSIX ACLs
 * (compat.h: the target is an inode on 6.1, a dentry from 6.2). No
 * security hook is in it, and ksmbd calls it outside write access (the
 * ACLs a new file inherits, after its create), so it is bracketed as
 * vfs_fallocate() is: a return hook holds a section from its entry to
 * its return and announces the change (vfsb_span_set_posix_acl()); on
 * a filesystem an intent subscriber watches, the call moves here, where
 * the change is announced and waits for its ack.
 */
static struct super_block *vfsb_acl_event(struct vfsb_event *ev,
					  void *target)
{
	struct dentry *dentry;
	struct inode *inode;

	if (vfsb_acl_target(target, &dentry, &inode)) {
		vfsb_dentry_event(ev, dentry, VFSB_R_ACL, NULL);
		return dentry->d_sb;
	}
	*ev = (struct vfsb_event){ .reasons = VFSB_R_ACL, .inode = inode };
	return inode->i_sb;
}

static typeof(set_posix_acl) vfsb_wrap_set_posix_acl;
static int notrace vfsb_wrap_set_posix_acl(VFSB_IDMAP *idmap,
					   VFSB_ACL_TARGET *target, int type,
					   struct posix_acl *acl)
{
	struct dentry *alias = NULL;
	struct super_block *sb;
	struct vfsb_event ev;
	struct vfsb_call c;
	int ret;

	VFSB_OUTER_SPAN_END();
	sb = vfsb_acl_event(&ev, target);
	/*
	 * 6.1 gives an inode. Its ACL xattr handler calls here too, from
	 * vfs_setxattr(), which holds the inode's lock and whose check
	 * announced the change by its dentry and waited for that
	 * directory's ack (6.1.0-57 fs/xattr.c vfs_setxattr() 308-309,
	 * __vfs_setxattr_locked() 268-277; fs/posix_acl.c
	 * posix_acl_xattr_set() 1189): announced by the inode alone, no
	 * directory's ack was found for it, and it waited for a second
	 * one, in that lock (test_intent acl_changes_wait_once). By a
	 * dentry of the inode it is that directory's, acked already (a
	 * file with several links may be named by another link's).
	 */
	if (!ev.dentry) {
		alias = d_find_alias(ev.inode);
		if (alias)
			vfsb_dentry_event(&ev, alias, VFSB_R_ACL, NULL);
	}
	ret = vfsb_call_announce(&c, sb, &ev);
	if (!ret) {
		ret = set_posix_acl(idmap, target, type, acl);
		vfsb_call_finish(&c);
	}
	dput(alias);
	return ret;
}

static bool vfsb_redirect_acl(struct ftrace_regs *fregs)
{
	struct dentry *dentry;
	struct inode *inode;

	return vfsb_intent_tracked(vfsb_acl_target(ARG(1), &dentry, &inode) ?
				   dentry->d_sb : inode->i_sb);
}

/*
 * A copy by a task that cannot restart (ksmbd's server-side copy,
 * fs/smb/server/vfs.c ksmbd_vfs_copy_file_ranges(); overlayfs' copy-up
 * of a file's data in an io-wq worker or nfsd) waits in these wrappers,
 * as a kernel thread's write does in vfs_iter_write()'s: the write
 * check inside parks by the file written. vfs_copy_file_range() makes
 * it before it copies anything (6.1.0-57 fs/read_write.c 1495-1497;
 * 6.12.117 1598; 7.3 1573, before file_start_write() at 1587), and so
 * does 6.1's do_splice_direct() (fs/splice.c 997-999); 6.12's and 7.x's
 * leave the check to their callers, whose own check then parks nowhere
 * and goes on unacked, as before.
 */
static typeof(vfs_copy_file_range) vfsb_wrap_vfs_copy_file_range;
static ssize_t notrace vfsb_wrap_vfs_copy_file_range(struct file *in,
						     loff_t pos_in,
						     struct file *out,
						     loff_t pos_out, size_t len,
						     unsigned int flags)
{
	VFSB_OUTER_SPAN_END();
	return VFSB_PARKED_CALL(vfsb_file_sb(out), out,
				vfs_copy_file_range(in, pos_in, out, pos_out,
						    len, flags));
}

static typeof(do_splice_direct) vfsb_wrap_do_splice_direct;
static vfsb_splice_direct_ret notrace
vfsb_wrap_do_splice_direct(struct file *in, loff_t *ppos, struct file *out,
			   loff_t *opos, size_t len, unsigned int flags)
{
	VFSB_OUTER_SPAN_END();
	return VFSB_PARKED_CALL(vfsb_file_sb(out), out,
				do_splice_direct(in, ppos, out, opos, len,
						 flags));
}

/* FICLONE*, FIDEDUPERANGE: a length of 0 means "to the end of file". */
static void vfsb_remap_event(struct vfsb_event *ev, struct file *file,
			     loff_t pos, loff_t len)
{
	vfsb_data_event(ev, file, VFSB_R_DATA_WRITE,
			len ? 0 : VFSB_RECF_TO_EOF, pos, len);
}

static int vfsb_call_announce_remap(struct vfsb_call *c, struct file *file,
				    loff_t pos, loff_t len)
{
	struct vfsb_event ev;

	vfsb_remap_event(&ev, file, pos, len);
	return vfsb_call_announce(c, vfsb_file_sb(file), &ev);
}

static typeof(vfs_clone_file_range) vfsb_wrap_vfs_clone_file_range;
static loff_t notrace vfsb_wrap_vfs_clone_file_range(struct file *in,
						     loff_t pos_in,
						     struct file *out,
						     loff_t pos_out, loff_t len,
						     unsigned int remap_flags)
{
	struct vfsb_call c;
	loff_t ret;
	int err;

	VFSB_OUTER_SPAN_END();
	err = vfsb_call_announce_remap(&c, out, pos_out, len);

	if (err)
		return err;
	ret = vfs_clone_file_range(in, pos_in, out, pos_out, len, remap_flags);
	vfsb_call_finish(&c);
	return ret;
}

static typeof(vfs_dedupe_file_range_one) vfsb_wrap_vfs_dedupe_file_range_one;
static loff_t notrace
vfsb_wrap_vfs_dedupe_file_range_one(struct file *src, loff_t src_pos,
				    struct file *dst, loff_t dst_pos,
				    loff_t len, unsigned int remap_flags)
{
	struct vfsb_call c;
	loff_t ret;
	int err;

	VFSB_OUTER_SPAN_END();
	err = vfsb_call_announce_remap(&c, dst, dst_pos, len);

	if (err)
		return err;
	ret = vfs_dedupe_file_range_one(src, src_pos, dst, dst_pos, len,
					remap_flags);
	vfsb_call_finish(&c);
	return ret;
}

/* fs-verity and fscrypt turn a file or directory into another kind. */
static int vfsb_call_announce_file_attr(struct vfsb_call *c,
					struct file *file)
{
	struct vfsb_event ev;

	vfsb_dentry_event(&ev, file_dentry(file), VFSB_R_ATTRIB, NULL);
	return vfsb_call_announce(c, vfsb_file_sb(file), &ev);
}

static typeof(fsverity_ioctl_enable) vfsb_wrap_fsverity_ioctl_enable;
static int notrace vfsb_wrap_fsverity_ioctl_enable(struct file *file,
						   const void __user *arg)
{
	struct vfsb_call c;
	int ret;

	VFSB_OUTER_SPAN_END();
	ret = vfsb_call_announce_file_attr(&c, file);
	if (ret)
		return ret;
	ret = fsverity_ioctl_enable(file, arg);
	vfsb_call_finish(&c);
	return ret;
}

static typeof(fscrypt_ioctl_set_policy) vfsb_wrap_fscrypt_ioctl_set_policy;
static int notrace vfsb_wrap_fscrypt_ioctl_set_policy(struct file *file,
						      const void __user *arg)
{
	struct vfsb_call c;
	int ret;

	VFSB_OUTER_SPAN_END();
	ret = vfsb_call_announce_file_attr(&c, file);
	if (ret)
		return ret;
	ret = fscrypt_ioctl_set_policy(file, arg);
	vfsb_call_finish(&c);
	return ret;
}

#define CARG(n) ((void *)c->args[n])

/*
 * A return hook's entry (spans.c: preemption off, in the call's task).
 * ev: the change the call makes, announced here, inside the section
 * (NULL: a hook inside the call announces it: rw_verify_area()'s).
 * Whether a section was opened, for vfsb_span_exit() at the return.
 *
 * Where the call will be moved into its wrapper (an intent subscriber
 * watches, the module holds the function's IPMODIFY), the wrapper
 * announces and waits; this one does not, and if the call was not
 * moved after all (the subscriber left in between) its filesystem
 * gets a RESCAN at its return.
 */
static bool vfsb_span_enter(const struct vfsb_span_call *c,
			    struct vfsb_span *d, struct super_block *sb,
			    const struct vfsb_event *ev)
{
	struct vfsb_intent_req req = { };

	/* a wrapper's own call: the wrapper holds the section */
	if (within_module(c->ret_ip, THIS_MODULE))
		return false;
	if (!vfsb_task_span_begin(sb, c->key))
		return false;
	d->key = c->key;
	d->unannounced = false;
	if (!ev)
		return true;
	if (vfsb_hookreg_moves(c->ip) && vfsb_sb_has_intent(sb)) {
		d->unannounced = true;
		return true;
	}
	vfsb_announce_change(sb, ev, true, &req);
	/* no wrapper to wait in: on unacked, with a RESCAN */
	if (req.in)
		vfsb_intent_unwaited(&req);
	return true;
}

/* At the return of a call whose section vfsb_span_enter() opened. */
static void vfsb_span_exit(struct vfsb_span *d, unsigned long ret)
{
	vfsb_task_span_end(d->key, d->unannounced ? VFSB_RESCAN_NO_HOOK : 0);
}

/* (file, ...): the write's hook inside announces it */
static bool vfsb_span_data0(const struct vfsb_span_call *c,
			    struct vfsb_span *d)
{
	struct super_block *sb = vfsb_data_sb(CARG(0));

	return vfsb_sb_maybe_tracked(sb) && vfsb_span_enter(c, d, sb, NULL);
}

/* (in, pos_in, out, ...): splice, copy_file_range */
static bool vfsb_span_data2(const struct vfsb_span_call *c,
			    struct vfsb_span *d)
{
	struct super_block *sb = vfsb_data_sb(CARG(2));

	return vfsb_sb_maybe_tracked(sb) && vfsb_span_enter(c, d, sb, NULL);
}

/* vfs_fallocate(file, mode, offset, len) */
static bool vfsb_span_vfs_fallocate(const struct vfsb_span_call *c,
				    struct vfsb_span *d)
{
	struct file *file = CARG(0);
	struct super_block *sb = vfsb_data_sb(file);
	struct vfsb_event ev;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	vfsb_fallocate_event(&ev, file, (int)c->args[1], (loff_t)c->args[2],
			     (loff_t)c->args[3]);
	return vfsb_span_enter(c, d, sb, &ev);
}

/* set_posix_acl(idmap, target, type, acl) */
static bool vfsb_span_set_posix_acl(const struct vfsb_span_call *c,
				    struct vfsb_span *d)
{
	struct vfsb_event ev;
	struct super_block *sb = vfsb_acl_event(&ev, CARG(1));

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	return vfsb_span_enter(c, d, sb, &ev);
}

/* clone, dedupe: (src, src_pos, dst, dst_pos, len, flags) */
static bool vfsb_span_remap(const struct vfsb_span_call *c,
			    struct vfsb_span *d)
{
	struct file *file = CARG(2);
	struct super_block *sb = vfsb_data_sb(file);
	struct vfsb_event ev;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	vfsb_remap_event(&ev, file, (loff_t)c->args[3], (loff_t)c->args[4]);
	return vfsb_span_enter(c, d, sb, &ev);
}

/* fsverity_ioctl_enable(), fscrypt_ioctl_set_policy(): (file, arg) */
static bool vfsb_span_file_attr(const struct vfsb_span_call *c,
				struct vfsb_span *d)
{
	struct file *file = CARG(0);
	struct super_block *sb = vfsb_file_sb(file);
	struct vfsb_event ev;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	vfsb_dentry_event(&ev, file_dentry(file), VFSB_R_ATTRIB, NULL);
	return vfsb_span_enter(c, d, sb, &ev);
}

/* ---- namespace changes by kernel threads: their helpers ---- */

#ifdef VFSB_NS_WRAPPERS
/*
 * nfsd, ksmbd and io_uring's workers (mkdirat, renameat, unlinkat...)
 * change names through the exported helpers below, with the directory
 * locked by their caller (6.1.0-57: fs/nfsd/vfs.c nfsd_create_locked()
 * under fh_lock_nested(), nfsd_unlink(), nfsd_rename() under
 * lock_rename(), nfsd_setattr() under fh_lock(); fs/smb/server/vfs.c
 * ksmbd_vfs_create(), _mkdir(), _remove_file(), _rename(); io_uring's
 * do_mkdirat() and the like in an io-wq worker). The hook inside each
 * (security_inode_*()) runs atomically and they have no system call to
 * restart, so a change that must wait parks its wait here and fails
 * that check; each helper makes it before it changes anything, and its
 * failure leaves the caller's dentry and locks as they were (vfs_mkdir()
 * of 7.x drops the dentry on failure: the wrapper holds a reference of
 * its own for it). The wrapper waits there, in its caller's locks: the
 * journal's daemon stores handles, not paths, and touches no directory
 * of a watched filesystem before it acks (vbjournald's drain()); other
 * lookups in that directory wait as long as the ack takes. Then the
 * helper is called again, with what it was given (notify_change()
 * changes its iattr before its check: it gets the caller's back).
 *
 * Only tasks that cannot restart come here, and only where a journal
 * subscriber watches: a system call restarts instead (intent.c).
 */
static bool vfsb_ns_redirect(struct super_block *sb)
{
	return (current->flags & VFSB_PF_NO_SYSCALL) && sb &&
	       vfsb_tracked(sb) && vfsb_sb_has_intent(sb);
}

/*
 * The call holds a section of its own, as the data wrappers' do: not
 * every caller took write access first (6.12's and 7.x's ksmbd
 * set_file_basic_info() calls notify_change() without
 * mnt_want_write(): fs/smb/server/smb2pdu.c), and a kernel thread's
 * announcement with no section around it could only be a RESCAN (no
 * return to user space ends one), which vbjournald makes a gap of the
 * filesystem. The section is let go while the wait lasts (a
 * checkpoint's barrier must not wait for the wait: vfsb_call_again()).
 */
#define VFSB_NS_CALL(key, call)						\
({									\
	struct dentry *__key = (key);					\
									\
	VFSB_PARKED_CALL(__key->d_sb, __key, call);			\
})

#ifdef VFSB_HAVE_VFS_NS_DELEG
static typeof(vfs_create) vfsb_wrap_vfs_create;
static int notrace vfsb_wrap_vfs_create(struct mnt_idmap *idmap,
					struct dentry *dentry, umode_t mode,
					VFSB_DELEG deleg)
{
	return VFSB_NS_CALL(dentry, vfs_create(idmap, dentry, mode, deleg));
}

static bool vfsb_redirect_create(struct ftrace_regs *fregs)
{
	return vfsb_ns_redirect(((struct dentry *)ARG(1))->d_sb);
}

/* A failed vfs_mkdir() drops the dentry: one reference per call. */
static struct dentry *vfsb_mkdir_once(struct mnt_idmap *idmap,
				      struct inode *dir, struct dentry *dentry,
				      umode_t mode, VFSB_DELEG deleg,
				      struct vfsb_park *park)
{
	struct dentry *ret;

	dget(dentry);
	ret = vfs_mkdir(idmap, dir, dentry, mode, deleg);
	if (!IS_ERR(ret) || PTR_ERR(ret) != -EAGAIN || !park->req.in)
		dput(dentry);
	return ret;
}

static typeof(vfs_mkdir) vfsb_wrap_vfs_mkdir;
static struct dentry *notrace vfsb_wrap_vfs_mkdir(struct mnt_idmap *idmap,
						  struct inode *dir,
						  struct dentry *dentry,
						  umode_t mode,
						  VFSB_DELEG deleg)
{
	struct super_block *sb = dentry->d_sb;
	struct vfsb_park park;
	struct vfsb_call c;
	struct dentry *ret;
	int err;

	vfsb_call_start(&c, sb);
	do {
		vfsb_park_begin(&park, dentry);
		ret = vfsb_mkdir_once(idmap, dir, dentry, mode, deleg, &park);
	} while (vfsb_call_again(&c, sb, &park, &err));
	vfsb_call_finish(&c);
	if (err) {
		/* failed, as vfs_mkdir() fails: the dentry goes with it */
		dput(dentry);
		return ERR_PTR(err);
	}
	return ret;
}

static typeof(vfs_mknod) vfsb_wrap_vfs_mknod;
static int notrace vfsb_wrap_vfs_mknod(struct mnt_idmap *idmap,
				       struct inode *dir, struct dentry *dentry,
				       umode_t mode, dev_t dev,
				       VFSB_DELEG deleg)
{
	return VFSB_NS_CALL(dentry,
			    vfs_mknod(idmap, dir, dentry, mode, dev, deleg));
}

static typeof(vfs_symlink) vfsb_wrap_vfs_symlink;
static int notrace vfsb_wrap_vfs_symlink(struct mnt_idmap *idmap,
					 struct inode *dir,
					 struct dentry *dentry,
					 const char *name, VFSB_DELEG deleg)
{
	return VFSB_NS_CALL(dentry,
			    vfs_symlink(idmap, dir, dentry, name, deleg));
}

static typeof(vfs_rmdir) vfsb_wrap_vfs_rmdir;
static int notrace vfsb_wrap_vfs_rmdir(struct mnt_idmap *idmap,
				       struct inode *dir, struct dentry *dentry,
				       VFSB_DELEG deleg)
{
	return VFSB_NS_CALL(dentry, vfs_rmdir(idmap, dir, dentry, deleg));
}
#else
static typeof(vfs_create) vfsb_wrap_vfs_create;
static int notrace vfsb_wrap_vfs_create(VFSB_IDMAP *idmap, struct inode *dir,
					struct dentry *dentry, umode_t mode,
					bool excl)
{
	return VFSB_NS_CALL(dentry,
			    vfs_create(idmap, dir, dentry, mode, excl));
}

static bool vfsb_redirect_create(struct ftrace_regs *fregs)
{
	return vfsb_ns_redirect(((struct inode *)ARG(1))->i_sb);
}

static typeof(vfs_mkdir) vfsb_wrap_vfs_mkdir;
static int notrace vfsb_wrap_vfs_mkdir(VFSB_IDMAP *idmap, struct inode *dir,
				       struct dentry *dentry, umode_t mode)
{
	return VFSB_NS_CALL(dentry, vfs_mkdir(idmap, dir, dentry, mode));
}

static typeof(vfs_mknod) vfsb_wrap_vfs_mknod;
static int notrace vfsb_wrap_vfs_mknod(VFSB_IDMAP *idmap, struct inode *dir,
				       struct dentry *dentry, umode_t mode,
				       dev_t dev)
{
	return VFSB_NS_CALL(dentry, vfs_mknod(idmap, dir, dentry, mode, dev));
}

static typeof(vfs_symlink) vfsb_wrap_vfs_symlink;
static int notrace vfsb_wrap_vfs_symlink(VFSB_IDMAP *idmap, struct inode *dir,
					 struct dentry *dentry,
					 const char *name)
{
	return VFSB_NS_CALL(dentry, vfs_symlink(idmap, dir, dentry, name));
}

static typeof(vfs_rmdir) vfsb_wrap_vfs_rmdir;
static int notrace vfsb_wrap_vfs_rmdir(VFSB_IDMAP *idmap, struct inode *dir,
				       struct dentry *dentry)
{
	return VFSB_NS_CALL(dentry, vfs_rmdir(idmap, dir, dentry));
}
#endif

static typeof(vfs_link) vfsb_wrap_vfs_link;
static int notrace vfsb_wrap_vfs_link(struct dentry *old, VFSB_IDMAP *idmap,
				      struct inode *dir, struct dentry *new,
				      VFSB_DELEG deleg)
{
	return VFSB_NS_CALL(new, vfs_link(old, idmap, dir, new, deleg));
}

static typeof(vfs_unlink) vfsb_wrap_vfs_unlink;
static int notrace vfsb_wrap_vfs_unlink(VFSB_IDMAP *idmap, struct inode *dir,
					struct dentry *dentry, VFSB_DELEG deleg)
{
	return VFSB_NS_CALL(dentry, vfs_unlink(idmap, dir, dentry, deleg));
}

static typeof(vfs_rename) vfsb_wrap_vfs_rename;
static int notrace vfsb_wrap_vfs_rename(struct renamedata *rd)
{
	return VFSB_NS_CALL(rd->old_dentry, vfs_rename(rd));
}

/* notify_change() sets the iattr's time and mode bits before its check */
static int vfsb_notify_change_once(VFSB_IDMAP *idmap, struct dentry *dentry,
				   struct iattr *attr, VFSB_DELEG deleg,
				   const struct iattr *orig)
{
	*attr = *orig;
	return notify_change(idmap, dentry, attr, deleg);
}

static typeof(notify_change) vfsb_wrap_notify_change;
static int notrace vfsb_wrap_notify_change(VFSB_IDMAP *idmap,
					   struct dentry *dentry,
					   struct iattr *attr, VFSB_DELEG deleg)
{
	const struct iattr orig = *attr;

	return VFSB_NS_CALL(dentry, vfsb_notify_change_once(idmap, dentry,
							    attr, deleg,
							    &orig));
}

/*
 * Extended attributes (ksmbd keeps a file's DOS attributes in one:
 * fs/smb/server/vfs.c ksmbd_vfs_setxattr()): vfs_setxattr() and
 * vfs_removexattr() take the inode's lock themselves and make the check
 * under it before they change anything (6.1.0-57 fs/xattr.c
 * __vfs_setxattr_locked(), __vfs_removexattr_locked()); the same
 * prototypes in 6.12 and 7.3.
 */
static typeof(vfs_setxattr) vfsb_wrap_vfs_setxattr;
static int notrace vfsb_wrap_vfs_setxattr(VFSB_IDMAP *idmap,
					  struct dentry *dentry,
					  const char *name, const void *value,
					  size_t size, int flags)
{
	return VFSB_NS_CALL(dentry, vfs_setxattr(idmap, dentry, name, value,
						 size, flags));
}

static typeof(vfs_removexattr) vfsb_wrap_vfs_removexattr;
static int notrace vfsb_wrap_vfs_removexattr(VFSB_IDMAP *idmap,
					     struct dentry *dentry,
					     const char *name)
{
	return VFSB_NS_CALL(dentry, vfs_removexattr(idmap, dentry, name));
}

/*
 * Entered from vfs_fileattr_set()'s own entry callback (it is no
 * REDIRECT: one hook per function), for a task that cannot restart.
 */
static int notrace vfsb_wrap_vfs_fileattr_set(VFSB_IDMAP *idmap,
					      struct dentry *dentry,
					      VFSB_FILEATTR *fa)
{
	return VFSB_NS_CALL(dentry, vfs_fileattr_set(idmap, dentry, fa));
}

#ifdef VFSB_ACL_WRAPPERS
/*
 * POSIX ACLs from 6.2 (compat.h): vfs_set_acl() and vfs_remove_acl()
 * take the inode's lock themselves and make their check under it before
 * they change anything, and drop the lock before they return (6.12.95
 * fs/posix_acl.c: vfs_set_acl() 1115-1127 and 1143, vfs_remove_acl()
 * 1223-1235 and 1251; 7.3.4: 1120-1132 and 1148, 1228-1240 and 1256):
 * the wrapper waits in what its caller holds, write access (6.12.95
 * io_uring/xattr.c __io_setxattr() 212-215; 7.3.4 fs/xattr.c
 * filename_setxattr() 688-691, file_setxattr() 668-673).
 *
 * vfs_set_acl() translates the ACL's ids in place for an idmapped mount
 * before its check (vfs_set_acl_idmapped_mnt(), 6.12.95 1109, 7.3.4
 * 1114): a call again gets the caller's entries back, or an idmapped
 * mount's ids would be translated twice.
 */
static int vfsb_set_acl_once(VFSB_IDMAP *idmap, struct dentry *dentry,
			     const char *acl_name, struct posix_acl *kacl,
			     const struct posix_acl_entry *orig)
{
	if (orig)
		memcpy(kacl->a_entries, orig,
		       kacl->a_count * sizeof(*kacl->a_entries));
	return vfs_set_acl(idmap, dentry, acl_name, kacl);
}

static typeof(vfs_set_acl) vfsb_wrap_vfs_set_acl;
static int notrace vfsb_wrap_vfs_set_acl(VFSB_IDMAP *idmap,
					 struct dentry *dentry,
					 const char *acl_name,
					 struct posix_acl *kacl)
{
	struct posix_acl_entry *orig = NULL;
	int ret;

	if (kacl) {
		orig = kmemdup(kacl->a_entries,
			       kacl->a_count * sizeof(*kacl->a_entries),
			       GFP_KERNEL);
		if (!orig)
			return -ENOMEM;
	}
	ret = VFSB_NS_CALL(dentry, vfsb_set_acl_once(idmap, dentry, acl_name,
						     kacl, orig));
	kfree(orig);
	return ret;
}

static typeof(vfs_remove_acl) vfsb_wrap_vfs_remove_acl;
static int notrace vfsb_wrap_vfs_remove_acl(VFSB_IDMAP *idmap,
					    struct dentry *dentry,
					    const char *acl_name)
{
	return VFSB_NS_CALL(dentry, vfs_remove_acl(idmap, dentry, acl_name));
}
#endif

/* (idmap, dir, dentry, ...): mkdir, mknod, symlink, rmdir, unlink */
static bool vfsb_redirect_ns_dir1(struct ftrace_regs *fregs)
{
	return vfsb_ns_redirect(((struct inode *)ARG(1))->i_sb);
}

/* link: (old_dentry, idmap, dir, new_dentry, ...) */
static bool vfsb_redirect_ns_dir2(struct ftrace_regs *fregs)
{
	return vfsb_ns_redirect(((struct inode *)ARG(2))->i_sb);
}

static bool vfsb_redirect_rename(struct ftrace_regs *fregs)
{
	return vfsb_ns_redirect(((struct renamedata *)ARG(0))->old_dentry->d_sb);
}

/* notify_change, vfs_setxattr, vfs_set_acl...: (idmap, dentry, ...) */
static bool vfsb_redirect_ns_dentry1(struct ftrace_regs *fregs)
{
	return vfsb_ns_redirect(((struct dentry *)ARG(1))->d_sb);
}
#endif /* VFSB_NS_WRAPPERS */

/*
 * ---- a creating open where nothing can be restarted ----
 *
 * io_uring's OPENAT and OPENAT2 with O_CREAT always run in an io-wq
 * worker (6.1.0-57 io_uring/openclose.c 110-120: the non-blocking
 * attempt returns -EAGAIN; 6.12 and 7.x mark the request async at its
 * prep, io_openat_force_async()), and kernel threads open by filp_open():
 * both reach do_filp_open() (do_file_open() from 7.0; compat.h), whose
 * lookup_open() creates through the directory's ->create() with the
 * directory locked (6.1.0-57 fs/namei.c 3491-3537), past every helper
 * above. Its create check (may_o_create() -> security_inode_create(),
 * the hook) comes before the name is looked up, so a refused check
 * fails only an open of a name that does not exist: lookup_open()
 * returns the check's error for a negative dentry (3534-3537, or
 * atomic_open()'s -ENOENT, 3504-3508) and opens an existing name as if
 * nothing was refused. do_filp_open() takes nothing and leaves nothing
 * held when it fails (it walks again itself after -ECHILD and -ESTALE,
 * 3857-3872): its wrapper parks for the hook's wait, waits with no lock
 * and no section held, and calls again. An open that went on (the name
 * existed) or failed otherwise drops the parked wait: nothing was
 * created. io_openat2() has reserved its descriptor and keeps its
 * filename for the whole call (openclose.c 96-161).
 *
 * Traced only while an intent subscriber exists (waits_only:
 * hookreg.c), and moved only for a task that cannot restart and an
 * open that may create: struct open_flags begins with open_flag in
 * 6.1, 6.12 and 7.x (fs/internal.h, 6.1.0-57 lines 127-133; test_intent's
 * io_uring creating open waits on each only if it does).
 * The function is called only directly, so IBT kernels seal it: the
 * wrapper calls it by a static call.
 */
typedef struct file *(vfsb_open_fn)(int dfd, struct filename *name,
				     const void *op);
DEFINE_STATIC_CALL_NULL(vfsb_open_call, vfsb_open_fn);

static void vfsb_open_set_call(unsigned long ip)
{
	static_call_update(vfsb_open_call, (vfsb_open_fn *)ip);
}

static bool vfsb_redirect_open(struct ftrace_regs *fregs)
{
	const int *open_flag = ARG(2);

	return (current->flags & VFSB_PF_NO_SYSCALL) &&
	       (READ_ONCE(*open_flag) & O_CREAT);
}

/*
 * The wrapper holds a module reference for the call: an open may block
 * for as long as a FIFO finds no peer, and unload is refused meanwhile
 * rather than waiting for it (vfsb_hookreg_exit()).
 */
static struct file *notrace vfsb_wrap_do_filp_open(int dfd,
						   struct filename *name,
						   const void *op)
{
	struct vfsb_park park;
	struct file *f;
	bool pinned;
	int err;

	vfsb_wrapper_enter();
	pinned = try_module_get(THIS_MODULE);
	for (;;) {
		vfsb_park_begin(&park, &vfsb_open_park_key);
		f = static_call(vfsb_open_call)(dfd, name, op);
		if (!vfsb_park_end(&park))
			break;
		if (!IS_ERR(f) || PTR_ERR(f) != -EAGAIN) {
			vfsb_park_drop(&park);
			break;
		}
		err = vfsb_park_wait(&park);
		if (err) {
			f = ERR_PTR(err);
			break;
		}
	}
	if (pinned)
		module_put(THIS_MODULE);
	vfsb_wrapper_exit();
	return f;
}

/*
 * ---- io_uring's splice into a file ----
 *
 * IORING_OP_SPLICE runs in an io-wq worker (6.1.0-57 io_uring/splice.c
 * 97-98: its non-blocking attempt returns -EAGAIN; later kernels mark
 * it async at its prep, __io_splice_prep()) and calls do_splice(),
 * which checks a write into a file
 * (rw_verify_area(), the hook) before it takes anything from the pipe
 * or starts the write (fs/splice.c 1080-1103; 6.12 and 7.x in the same
 * order): a refused check leaves the pipe, the file and the offsets as
 * they were, and the call can be made again. Its wrapper holds a
 * section for the call, as the data helpers' wrappers do (a worker
 * never returns to user space, where a hook's own section would end),
 * lets it go while it waits (vfsb_call_again()), and calls again. The
 * write inside (6.1: vfs_iter_write(), with a wrapper of its own;
 * 6.12 and 7.x: ->write_iter()) is then in an acked directory. Traced
 * only while an intent subscriber exists (waits_only), moved only for a
 * task that cannot restart (splice(2) restarts instead). Called only
 * directly: by a static call, as do_filp_open().
 */
typedef long (vfsb_splice_fn)(struct file *in, loff_t *off_in,
			      struct file *out, loff_t *off_out, size_t len,
			      unsigned int flags);
DEFINE_STATIC_CALL_NULL(vfsb_splice_call, vfsb_splice_fn);

static void vfsb_splice_set_call(unsigned long ip)
{
	static_call_update(vfsb_splice_call, (vfsb_splice_fn *)ip);
}

static bool vfsb_redirect_splice(struct ftrace_regs *fregs)
{
	return (current->flags & VFSB_PF_NO_SYSCALL) &&
	       vfsb_intent_tracked(vfsb_data_sb(ARG(2)));
}

static long notrace vfsb_wrap_do_splice(struct file *in, loff_t *off_in,
					struct file *out, loff_t *off_out,
					size_t len, unsigned int flags)
{
	struct super_block *sb = vfsb_file_sb(out);
	struct vfsb_park park;
	struct vfsb_call c;
	long ret;
	int err;

	vfsb_call_start(&c, sb);
	do {
		vfsb_park_begin(&park, out);
		ret = static_call(vfsb_splice_call)(in, off_in, out, off_out,
						    len, flags);
	} while (vfsb_call_again(&c, sb, &park, &err));
	vfsb_call_finish(&c);
	return err ?: ret;
}

/* ---- async writes: from submission to completion ---- */

/*
 * In-kernel async iocbs (overlayfs, cachefiles, backing files): the
 * section is put in front of the iocb's completion. Exactly one of the
 * two ends it: the completion if the write was queued, the submission's
 * return if it finished in the call; both take the entry out of the
 * table first, so the loser finds nothing.
 */
static void vfsb_iocb_complete(struct kiocb *iocb, long res)
{
	void (*done)(struct kiocb *iocb, long res);
	struct vfsb_section s;
	void *orig;

	if (vfsb_async_untrack(iocb, &s, &orig)) {
		done = orig;
		WRITE_ONCE(iocb->ki_complete, done);
		vfsb_section_end(&s);
	} else {
		/* the write finished in the call; the submitter restored it */
		done = READ_ONCE(iocb->ki_complete);
		if (WARN_ON_ONCE(done == vfsb_iocb_complete))
			return;
	}
	done(iocb, res);
}

/*
 * vfs_iocb_iter_write(file, iocb, iter) on a tracked filesystem, from
 * its entry (a return hook: spans.c) to its return, and for an async
 * iocb to its completion. A sync iocb (7.x nfsd's, on its stack) is a
 * data helper's call like vfs_iter_write(): a section until the
 * return. An async one (6.1.0-57: overlayfs' ovl_write_iter(),
 * fs/overlayfs/file.c 403-406; cachefiles_write(), fs/cachefiles/io.c
 * 341-358; later kernels the same through fs/backing-file.c) is
 * completed through iocb->ki_complete when queued (-EIOCBQUEUED), and
 * by its caller otherwise, after the return: the entry tracks the
 * iocb's section and puts vfsb_iocb_complete() in front of its
 * completion, and the return, when the write was not queued, takes
 * both back before the caller goes on. After -EIOCBQUEUED the iocb is
 * the completion's, maybe freed already: the return reads nothing of
 * it. The entry runs only where the return will (a kretprobe's entry
 * handler, with its instance; fprobe's, with its rethook or shadow
 * stack entry), so nothing it does is left behind.
 *
 * The task is marked as inside the section while it submits (its
 * write's rw_verify_area() hook announces fenced), under the call's
 * return address slot: a wrapper's own marks are not touched.
 */
static bool vfsb_span_iocb(const struct vfsb_span_call *c,
			   struct vfsb_span *d)
{
	struct kiocb *iocb = CARG(1);
	struct super_block *sb = vfsb_data_sb(CARG(0));
	struct vfsb_section s;

	/* a wrapper's own call: the wrapper holds the section */
	if (!vfsb_sb_maybe_tracked(sb) ||
	    within_module(c->ret_ip, THIS_MODULE))
		return false;
	d->key = c->key;
	d->req = NULL;
	if (is_sync_kiocb(iocb))
		return vfsb_task_span_begin(sb, c->key);
	if (!vfsb_section_begin(sb, &s, true))
		return false;
	if (vfsb_async_track(iocb, &s, READ_ONCE(iocb->ki_complete))) {
		vfsb_section_missed(s.vsb, VFSB_RESCAN_NO_MEMORY);
		vfsb_section_end(&s);
		return false;
	}
	/* without the mark it still brackets; announcements say unfenced */
	vfsb_task_mark(&s, c->key);
	d->req = iocb;
	WRITE_ONCE(iocb->ki_complete, vfsb_iocb_complete);
	return true;
}

/*
 * The return of a call vfsb_span_iocb() took: a write that was not
 * queued takes its section back from the iocb, if its completion did
 * not (it calls vfsb_iocb_complete() only through the iocb, which the
 * caller owns again now).
 */
static void vfsb_iocb_unspan(struct vfsb_span *d, bool queued)
{
	struct kiocb *iocb = d->req;
	struct vfsb_section s;
	void *orig;

	if (!iocb) {
		vfsb_task_span_end(d->key, 0);
		return;
	}
	vfsb_task_unmark_key(d->key);
	if (!queued && vfsb_async_untrack(iocb, &s, &orig)) {
		WRITE_ONCE(iocb->ki_complete, orig);
		vfsb_section_end(&s);
	}
}

static void vfsb_span_iocb_exit(struct vfsb_span *d, unsigned long ret)
{
	vfsb_iocb_unspan(d, (ssize_t)ret == -EIOCBQUEUED);
}

/*
 * Intent mode: vfs_iocb_iter_write() moves into its wrapper (below)
 * only on a filesystem an intent subscriber watches; elsewhere the
 * return hook alone brackets it, with no IPMODIFY held.
 */
static bool vfsb_redirect_iocb(struct ftrace_regs *fregs)
{
	return vfsb_intent_tracked(vfsb_data_sb(ARG(0)));
}

/*
 * The wrapper: a sync iocb waits here for its ack (vfsb_call_again());
 * so does an async one, nested in another's submission (overlayfs,
 * FUSE passthrough and cachefiles submit their real file's write so,
 * and none of them can restart it): its check parks the wait by the
 * kiocb and fails before anything is submitted (vfs_iocb_iter_write()
 * checks first: 6.1.0-57 fs/read_write.c 885-887; 6.12 and 7.x the
 * same), the wrapper waits holding no section and submits again. What
 * the caller holds meanwhile, the journal never needs: overlayfs' own
 * inode lock and the real filesystem's freeze protection
 * (ovl_write_iter(), 6.1.0-57 fs/overlayfs/file.c 358 and 393), as a
 * namespace change's wait holds its write access. Its section
 * lasts until its completion. A moved call met the return
 * hook's entry first (ftrace runs every ops' callback before it goes
 * on at the wrapper), whose work the wrapper undoes before anything
 * else, as if the call had never been seen there: nothing was
 * submitted yet, so the iocb's entry in the table is the return hook's.
 * Its return then finds nothing of its own (vfsb_iocb_unspan()): the
 * wrapper ends its sections itself, and a write of the wrapper's that
 * was queued returns -EIOCBQUEUED, which it leaves alone.
 */
static typeof(vfs_iocb_iter_write) vfsb_wrap_vfs_iocb_iter_write;
static ssize_t notrace vfsb_wrap_vfs_iocb_iter_write(struct file *file,
						     struct kiocb *iocb,
						     struct iov_iter *iter)
{
	struct super_block *sb = vfsb_file_sb(file);
	struct vfsb_span outer = {
		.key = VFSB_OUTER_SPAN_KEY(),
		.req = is_sync_kiocb(iocb) ? NULL : iocb,
	};
	struct vfsb_section s;
	void *orig;
	bool marked;
	ssize_t ret;
	int err;

	vfsb_iocb_unspan(&outer, false);
	orig = iocb->ki_complete;
	if (is_sync_kiocb(iocb) || !vfsb_section_begin(sb, &s, true)) {
		struct vfsb_park park;
		struct vfsb_call c;

		vfsb_call_start(&c, sb);
		do {
			vfsb_park_begin(&park, file);
			ret = vfs_iocb_iter_write(file, iocb, iter);
		} while (vfsb_call_again(&c, sb, &park, &err));
		vfsb_call_finish(&c);
		return err ?: ret;
	}
	vfsb_wrapper_enter();
	for (;;) {
		struct vfsb_park park;
		bool parked;

		err = vfsb_async_track(iocb, &s, orig);
		if (err) {
			vfsb_section_missed(s.vsb, VFSB_RESCAN_NO_MEMORY);
			vfsb_section_end(&s);
			ret = vfs_iocb_iter_write(file, iocb, iter);
			break;
		}
		marked = !vfsb_task_hold(&s, VFSB_HOLD_MARK);
		WRITE_ONCE(iocb->ki_complete, vfsb_iocb_complete);
		vfsb_park_begin(&park, iocb);
		ret = vfs_iocb_iter_write(file, iocb, iter);
		parked = vfsb_park_end(&park);
		if (marked)
			vfsb_task_unmark(s.vsb);
		/* queued: the iocb is the completion's now, maybe freed already */
		if (ret != -EIOCBQUEUED && vfsb_async_untrack(iocb, &s, &orig)) {
			WRITE_ONCE(iocb->ki_complete, orig);
			vfsb_section_end(&s);
		}
		if (!parked)
			break;
		/*
		 * Its check was refused (with -EAGAIN) before anything was
		 * submitted (vfsb_data_change()): no section is held now. A
		 * caller that may not block (IOCB_NOWAIT: io_uring's first
		 * attempt through an overlay, RWF_NOWAIT) has that -EAGAIN,
		 * as for any write that would; any other waits here and
		 * submits again.
		 */
		if (iocb->ki_flags & IOCB_NOWAIT) {
			vfsb_park_drop(&park);
			break;
		}
		err = vfsb_park_wait(&park);
		if (err) {
			ret = err;
			break;
		}
		if (!vfsb_section_begin(sb, &s, true)) {
			/* no longer tracked: nothing to wait for any more */
			ret = vfs_iocb_iter_write(file, iocb, iter);
			break;
		}
	}
	vfsb_wrapper_exit();
	return ret;
}

/*
 * io_uring submissions: io_write() (io_uring/rw.c, the same prototype
 * in every target kernel; not exported, but called through io_uring's
 * table of operations, so it keeps its ENDBR). On a tracked filesystem
 * a return hook (spans.c) opens the submission's section at its entry,
 * keyed by the request's kiocb, and its return ends it when the write
 * was not queued; a queued one's completion ends it
 * (io_complete_rw(), io_complete_rw_iopoll()). io_write() returns
 * -EIOCBQUEUED (IOU_ISSUE_SKIP_COMPLETE) exactly when the request is
 * completed through its kiocb's ki_complete, in the call (an error, an
 * IOPOLL ring) or later (queued), rather than inline (kiocb_done():
 * 6.1.0-57 io_uring/rw.c 304-335 and io_uring/io_uring.h 19; the same
 * in 6.12 and 7.x), after which the request may be completed and
 * freed: the return compares the key, never reads the request. A
 * completion in the call ended the section already. No IPMODIFY:
 * a livepatch may hold io_write(), and an io_uring write on a
 * filesystem nobody watches pays the return hook's entry only.
 *
 * A write that must wait for its journal's ack moves into the wrapper
 * below, only on a filesystem an intent subscriber watches (an
 * intent-only redirect: hookreg.c, "Moving calls"). Its rw_verify_area()
 * hook parks the wait there and fails that check with -EAGAIN, before
 * io_write() has written or started anything (6.1.0-57 io_uring/rw.c
 * 918-922; 6.12 and 7.3 the same, without the kfree()). The attempt
 * io_uring makes at submission (IO_URING_F_NONBLOCK, inside
 * io_uring_enter() with the ring's lock held) returns -EAGAIN, which
 * hands the request to an io-wq worker (io_queue_async(), 6.1.0-57
 * io_uring/io_uring.c 1926-1938: a regular file arms no poll), as for
 * any write that would block. The worker's attempt waits here, where
 * it holds nothing, and calls io_write() again: io-wq itself issues a
 * request again after -EAGAIN (io_wq_submit_work(), IOPOLL), and the
 * call re-reads its buffer from the request, so it writes once. A
 * write that is not moved (no IPMODIFY for the module there, or the
 * subscriber came after the call's entry) cannot wait: its hook lets
 * it go on unacked, or refuses it, by the subscriber's policy.
 *
 * Only a request that reads no memory of the submitter's again when
 * issued again can be parked (IORING_FEAT_SUBMIT_STABLE: an iovec array
 * may be reused once the submission returns): one with its async data
 * (always, from 6.10) or a plain or fixed-buffer write. A writev whose
 * first attempt has none (6.1: O_DIRECT, or a file that takes buffered
 * writes without blocking) gets it before the attempt returns -EAGAIN,
 * from io_req_prep_async(), as io_uring makes it for a request submitted
 * async (compat.h): inside io_uring_enter(), under the ring's lock, with
 * the array still the submitter's. io_write()'s failed check left
 * nothing to free or undo (6.1.0-57 io_uring/rw.c 918-922), and that
 * function takes the file again only when the request has none (1626).
 * Without the function (sealed, or not found), such a writev cannot
 * wait and goes on by the subscriber's policy for what cannot wait.
 */
typedef int (*vfsb_io_write_t)(struct io_kiocb *req, unsigned int flags);
static unsigned long vfsb_io_write_addr;
/*
 * io_req_prep_async(), where the kernel has it (compat.h), or 0: set at
 * load, before any hook is live
 */
static unsigned long vfsb_io_prep_addr;

static bool vfsb_span_io_write(const struct vfsb_span_call *c,
			       struct vfsb_span *d)
{
	struct io_kiocb *req = CARG(0);
	struct super_block *sb = vfsb_data_sb(req->file);

	/* a wrapper's own call: the wrapper holds the section */
	if (!vfsb_sb_maybe_tracked(sb) ||
	    within_module(c->ret_ip, THIS_MODULE))
		return false;
	d->key = vfsb_io_uring_kiocb(req);
	return vfsb_task_submit_begin(sb, d->key, false);
}

static void vfsb_span_io_write_exit(struct vfsb_span *d, unsigned long ret)
{
	vfsb_task_submit_end(d->key, (int)ret == -EIOCBQUEUED);
}

static bool vfsb_io_write_reissues(const struct io_kiocb *req)
{
	return (req->flags & REQ_F_ASYNC_DATA) ||
	       req->opcode == IORING_OP_WRITE ||
	       req->opcode == IORING_OP_WRITE_FIXED;
}

/*
 * A writev's first attempt without async data, on a kernel where the
 * module can have io_uring copy its array before it is punted (and
 * only there: io_req_prep_async() is missing from 6.10 on)
 */
static bool vfsb_io_write_copies(const struct io_kiocb *req,
				 unsigned int issue_flags)
{
	return (issue_flags & IO_URING_F_NONBLOCK) &&
	       req->opcode == IORING_OP_WRITEV &&
	       !(req->flags & REQ_F_ASYNC_DATA) && vfsb_io_prep_addr;
}

/*
 * That attempt's end when its check wants to wait: -EAGAIN, which punts
 * the request to io-wq, once the array is copied; or the error that
 * fails the request (its iovec array unreadable, no memory).
 */
static int vfsb_io_write_copy(struct io_kiocb *req)
{
	vfsb_io_prep_async_t prep = (vfsb_io_prep_async_t)vfsb_io_prep_addr;
	int ret = prep(req);

	/* its -EAGAIN is an allocation that failed: never punt without */
	if (ret == -EAGAIN)
		ret = -ENOMEM;
	return ret ? ret : -EAGAIN;
}

/*
 * A moved call met the return hook's entry first, which opened the
 * submission's section (unless the filesystem became tracked between
 * the two): nothing is submitted yet, and the first attempt runs in
 * it; the wrapper opens its own around each later one. Each attempt's
 * section ends at its return, so the return hook's return finds
 * nothing of its own. Keeping the entry's section, rather than ending
 * it and opening another for the same request on the same filesystem,
 * saves an intent subscriber's io_uring write a section's begin and
 * end (BENCHMARKS.md, real work's fio).
 */
static int notrace vfsb_wrap_io_write(struct io_kiocb *req,
				      unsigned int issue_flags)
{
	vfsb_io_write_t call = (vfsb_io_write_t)READ_ONCE(vfsb_io_write_addr);
	const void *key = vfsb_io_uring_kiocb(req);
	struct vfsb_park park;
	bool copies = vfsb_io_write_copies(req, issue_flags);
	bool parked = copies || vfsb_io_write_reissues(req);
	bool held = vfsb_task_submit_held(key);
	int ret;

	/* an io-wq worker's blocking attempt sleeps in it */
	vfsb_wrapper_enter();
	for (;;) {
		if (parked)
			vfsb_park_begin(&park, key);
		if (!held)
			vfsb_task_submit_begin(vfsb_file_sb(req->file), key,
					       false);
		held = false;
		ret = call(req, issue_flags);
		vfsb_task_submit_end(key, ret == -EIOCBQUEUED);
		if (!parked || !vfsb_park_end(&park))
			break;
		if (issue_flags & IO_URING_F_NONBLOCK) {
			/* an io-wq worker's attempt waits */
			vfsb_park_drop(&park);
			ret = copies ? vfsb_io_write_copy(req) : -EAGAIN;
			break;
		}
		ret = vfsb_park_wait(&park);
		if (ret)
			break;
	}
	vfsb_wrapper_exit();
	return ret;
}

static bool vfsb_redirect_io_write(struct ftrace_regs *fregs)
{
	struct io_kiocb *req = ARG(0);

	return vfsb_intent_tracked(vfsb_data_sb(req->file));
}

/*
 * AIO submissions: aio_write() is static, called directly, so no
 * wrapper can call it. The entry callback (it always runs: no pool)
 * opens the section and marks the task; the return probe only reads
 * the result, to know whether the completion will end the section. The
 * two may run in either order at entry: neither depends on the other,
 * and a return probe without an instance leaves the task work to end
 * it.
 */
static void vfsb_on_aio_write(struct ftrace_regs *fregs)
{
	struct kiocb *kiocb = ARG(0);

	vfsb_task_submit_begin(vfsb_data_sb(kiocb->ki_filp), kiocb, true);
}

/* The request's key, from entry to return. */
struct vfsb_submit {
	const void *key;
};

static int vfsb_rp_aio_write_entry(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct vfsb_submit *d = (void *)ri->data;

	d->key = RARG(0);
	return 0;
}

/*
 * aio_write() returns 0 once the write is submitted, queued or not:
 * either way aio_complete_rw() follows (aio_rw_done() calls it for a
 * write that finished at once). An error means it never got that far.
 */
static int vfsb_rp_aio_write_return(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct vfsb_submit *d = (void *)ri->data;

	vfsb_task_submit_end(d->key, (int)regs_return_value(regs) == 0);
	return 0;
}

/* io_complete_rw(), io_complete_rw_iopoll(), aio_complete_rw(): any context */
static void vfsb_on_complete(struct ftrace_regs *fregs)
{
	struct vfsb_section s;

	if (vfsb_async_untrack(ARG(0), &s, NULL))
		vfsb_section_end(&s);
}

/* ---- the superblock goes away ---- */

static void vfsb_on_shutdown(struct ftrace_regs *fregs)
{
	struct super_block *sb = ARG(0);
	struct vfsb_sb *vsb;

	if (!vfsb_sb_maybe_tracked(sb))
		return;
	rcu_read_lock();
	vsb = vfsb_tracking_lookup_rcu(sb);
	if (vsb) {
		vfsb_emit_unmount(vsb);
		vfsb_tracking_shutdown(vsb);
	}
	rcu_read_unlock();
}

/*
 * The announcing entry callbacks: the filesystem first. Every call of a
 * hooked function on any filesystem comes here while the hooks are in;
 * one that is certainly not tracked returns before the frame of the
 * *_change() functions (an event, an intent request cleared with
 * "rep stos", a stack canary) is built, which was a quarter of such a
 * callback's cost.
 */
static struct super_block *vfsb_inode_sb(void *inode)
{
	return ((struct inode *)inode)->i_sb;
}

static struct super_block *vfsb_dentry_sb(void *dentry)
{
	return ((struct dentry *)dentry)->d_sb;
}

/* create, mknod, symlink, mkdir, unlink, rmdir, rename: (dir, ...) */
static void vfsb_on_create(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_inode_sb(ARG(0))))
		vfsb_create_change(fregs);
}

static void vfsb_on_mkdir(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_inode_sb(ARG(0))))
		vfsb_mkdir_change(fregs);
}

/* link: (old_dentry, dir, new_dentry) */
static void vfsb_on_link(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_inode_sb(ARG(1))))
		vfsb_link_change(fregs);
}

static void vfsb_on_delete(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_inode_sb(ARG(0))))
		vfsb_delete_change(fregs);
}

static void vfsb_on_rename(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_inode_sb(ARG(0))))
		vfsb_rename_change(fregs);
}

/* setattr, setxattr, removexattr, fileattr_set: (idmap, dentry, ...) */
static void vfsb_on_setattr(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_dentry_sb(ARG(1))))
		vfsb_setattr_change(fregs);
}

static void vfsb_on_xattr(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_dentry_sb(ARG(1))))
		vfsb_xattr_change(fregs);
}

static void vfsb_on_fileattr(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_dentry_sb(ARG(1))))
		vfsb_fileattr_change(fregs);
}

/* rw_verify_area(read_write, file, ...): reads come here too */
static void vfsb_on_rw_verify(struct ftrace_regs *fregs)
{
	if ((int)(unsigned long)ARG(0) == WRITE &&
	    vfsb_sb_maybe_tracked(vfsb_data_sb(ARG(1))))
		vfsb_data_change(fregs);
}

static void vfsb_on_mkwrite(struct ftrace_regs *fregs)
{
	struct file *file = vfsb_fault_file(ARG(0));

	if (vfsb_sb_maybe_tracked(vfsb_data_sb(file)))
		vfsb_mkwrite_change(fregs);
}

/* __kernel_write(file, ...) */
static void vfsb_on_kernel_write(struct ftrace_regs *fregs)
{
	if (vfsb_sb_maybe_tracked(vfsb_data_sb(ARG(0))))
		vfsb_kernel_write_change(fregs);
}

/*
 * The entry callbacks read their function's arguments by position: where
 * a declaration is visible, it must still say what they read (a kernel
 * that changes one fails the build here). io_write() is declared only in
 * io_uring's private rw.h (int (struct io_kiocb *, unsigned int) in 6.1,
 * 6.12 and 7.3, the type its wrapper has and calls it by), aio_write()
 * and do_page_mkwrite() are static to their files: checked by reading
 * each target's source; their completions have the type every
 * ki_complete has.
 */
#define VFSB_PROTO(fn, type) static_assert(__same_type(&(fn), type))
VFSB_PROTO(mnt_want_write, int (*)(struct vfsmount *));
VFSB_PROTO(mnt_want_write_file, int (*)(struct file *));
VFSB_PROTO(mnt_drop_write, void (*)(struct vfsmount *));
VFSB_PROTO(mnt_drop_write_file, void (*)(struct file *));
VFSB_PROTO(security_inode_create,
	   int (*)(struct inode *, struct dentry *, umode_t));
VFSB_PROTO(security_inode_mknod,
	   int (*)(struct inode *, struct dentry *, umode_t, dev_t));
VFSB_PROTO(security_inode_symlink,
	   int (*)(struct inode *, struct dentry *, const char *));
VFSB_PROTO(security_inode_mkdir,
	   int (*)(struct inode *, struct dentry *, umode_t));
VFSB_PROTO(security_inode_link,
	   int (*)(struct dentry *, struct inode *, struct dentry *));
VFSB_PROTO(security_inode_unlink, int (*)(struct inode *, struct dentry *));
VFSB_PROTO(security_inode_rmdir, int (*)(struct inode *, struct dentry *));
VFSB_PROTO(security_inode_rename,
	   int (*)(struct inode *, struct dentry *, struct inode *,
		   struct dentry *, unsigned int));
VFSB_PROTO(security_inode_setattr,
	   int (*)(VFSB_IDMAP *, struct dentry *, struct iattr *));
VFSB_PROTO(security_inode_setxattr,
	   int (*)(VFSB_IDMAP *, struct dentry *, const char *, const void *,
		   size_t, int));
VFSB_PROTO(security_inode_removexattr,
	   int (*)(VFSB_IDMAP *, struct dentry *, const char *));
VFSB_PROTO(vfs_fileattr_set,
	   int (*)(VFSB_IDMAP *, struct dentry *, VFSB_FILEATTR *));
VFSB_PROTO(generic_shutdown_super, void (*)(struct super_block *));
VFSB_PROTO(rw_verify_area,
	   int (*)(int, struct file *, const loff_t *, size_t));
VFSB_PROTO(__kernel_write,
	   ssize_t (*)(struct file *, const void *, size_t, loff_t *));
static_assert(__same_type(((struct kiocb *)NULL)->ki_complete,
			  void (*)(struct kiocb *, long)));

/* ---- the table ---- */

#define ENTRY(sym, fn, cov_, ...) \
	{ .symbol = sym, .type = VFSB_HOOK_ENTRY, .on_entry = fn, \
	  .cov = cov_, __VA_ARGS__ }
#define CLOSER(sym, fn, cov_, ...) \
	ENTRY(sym, fn, cov_, .closes = true, __VA_ARGS__)
#define REDIRECT_SYM(fn, sym, decide, cov_, ...) \
	{ .symbol = sym, .type = VFSB_HOOK_REDIRECT, .redirect = decide, \
	  .wrapper = (unsigned long)vfsb_wrap_##fn, .cov = cov_, __VA_ARGS__ }
#define REDIRECT(fn, decide, cov_, ...) \
	REDIRECT_SYM(fn, #fn, decide, cov_, __VA_ARGS__)
#define SPAN_EXIT(sym, kind, exit, cov_, ...) \
	{ .symbol = sym, .type = VFSB_HOOK_SPAN, \
	  .span_enter = vfsb_span_##kind, .span_exit = exit, \
	  .cov = cov_, __VA_ARGS__ }
#define SPAN(sym, kind, cov_, ...) \
	SPAN_EXIT(sym, kind, vfsb_span_exit, cov_, __VA_ARGS__)
/* an async submission's: its return hands the section on, or ends it */
#define SUBMIT_SPAN(fn, cov_, ...) \
	SPAN_EXIT(#fn, fn, vfsb_span_##fn##_exit, cov_, __VA_ARGS__)
#define RETPROBE(fn, cov_, ...) \
	{ .symbol = #fn, .type = VFSB_HOOK_RETPROBE, \
	  .rp_entry = vfsb_rp_##fn##_entry, .rp_return = vfsb_rp_##fn##_return, \
	  .rp_data = sizeof(struct vfsb_submit), .cov = cov_, __VA_ARGS__ }

static const struct vfsb_hook vfsb_hook_table[] = {
	/* namespace and attributes: write access, then the checks */
	CLOSER("mnt_drop_write", vfsb_on_drop_write, VFSB_COV_NAMESPACE),
	CLOSER("mnt_drop_write_file", vfsb_on_drop_write_file,
	       VFSB_COV_NAMESPACE),
	ENTRY("mnt_want_write", vfsb_on_want_write, VFSB_COV_NAMESPACE,
	      .stays = true),
	ENTRY("mnt_want_write_file", vfsb_on_want_write_file,
	      VFSB_COV_NAMESPACE, .stays = true),
	ENTRY("security_inode_create", vfsb_on_create, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_mknod", vfsb_on_create, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_symlink", vfsb_on_create, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_mkdir", vfsb_on_mkdir, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_link", vfsb_on_link, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_unlink", vfsb_on_delete, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_rmdir", vfsb_on_delete, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_rename", vfsb_on_rename, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_setattr", vfsb_on_setattr, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_setxattr", vfsb_on_xattr, VFSB_COV_NAMESPACE),
	ENTRY("security_inode_removexattr", vfsb_on_xattr, VFSB_COV_NAMESPACE),
	ENTRY(VFSB_ACL_SET_SYMBOL, vfsb_on_acl, VFSB_COV_ACL, .optional = true),
	ENTRY(VFSB_ACL_REMOVE_SYMBOL, vfsb_on_acl, VFSB_COV_ACL,
	      .optional = true),
	ENTRY("vfs_fileattr_set", vfsb_on_fileattr, VFSB_COV_FILEATTR,
	      .optional = true),
	/* the superblock goes away */
	ENTRY("generic_shutdown_super", vfsb_on_shutdown, VFSB_COV_NAMESPACE,
	      .stays = true),
#ifdef VFSB_NS_WRAPPERS
	/* where kernel threads wait for a namespace change's ack */
	REDIRECT(vfs_create, vfsb_redirect_create, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_mkdir, vfsb_redirect_ns_dir1, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_mknod, vfsb_redirect_ns_dir1, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_symlink, vfsb_redirect_ns_dir1, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_link, vfsb_redirect_ns_dir2, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_rmdir, vfsb_redirect_ns_dir1, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_unlink, vfsb_redirect_ns_dir1, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_rename, vfsb_redirect_rename, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(notify_change, vfsb_redirect_ns_dentry1, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_setxattr, vfsb_redirect_ns_dentry1, VFSB_COV_NAMESPACE,
		 .optional = true),
	REDIRECT(vfs_removexattr, vfsb_redirect_ns_dentry1, VFSB_COV_NAMESPACE,
		 .optional = true),
#ifdef VFSB_ACL_WRAPPERS
	REDIRECT(vfs_set_acl, vfsb_redirect_ns_dentry1, VFSB_COV_ACL,
		 .optional = true),
	REDIRECT(vfs_remove_acl, vfsb_redirect_ns_dentry1, VFSB_COV_ACL,
		 .optional = true),
#endif
#endif
	REDIRECT_SYM(do_filp_open, VFSB_OPEN_SYMBOL, vfsb_redirect_open,
		     VFSB_COV_NAMESPACE, .alt_symbol = VFSB_OPEN_SYMBOL_7,
		     .set_call = vfsb_open_set_call, .waits_only = true),
	REDIRECT_SYM(do_splice, "do_splice", vfsb_redirect_splice,
		     VFSB_COV_SPLICE, .set_call = vfsb_splice_set_call,
		     .waits_only = true),

	/* data */
	ENTRY("rw_verify_area", vfsb_on_rw_verify, VFSB_COV_DATA),
	SPAN("vfs_iter_write", data0, VFSB_COV_DATA),
	REDIRECT(vfs_iter_write, vfsb_redirect_data0, VFSB_COV_DATA),
	SPAN("vfs_fallocate", vfs_fallocate, VFSB_COV_DATA),
	REDIRECT(vfs_fallocate, vfsb_redirect_data0, VFSB_COV_DATA),
	SPAN("set_posix_acl", set_posix_acl, VFSB_COV_ACL, .optional = true),
	REDIRECT(set_posix_acl, vfsb_redirect_acl, VFSB_COV_ACL,
		 .optional = true),
	SPAN("kernel_write", data0, VFSB_COV_KERNEL_WRITE),
	REDIRECT(kernel_write, vfsb_redirect_data0, VFSB_COV_KERNEL_WRITE),
	ENTRY("__kernel_write", vfsb_on_kernel_write, VFSB_COV_KERNEL_WRITE),
	SPAN("do_splice_direct", data2, VFSB_COV_SPLICE),
	REDIRECT(do_splice_direct, vfsb_redirect_data2, VFSB_COV_SPLICE),
	SPAN("vfs_copy_file_range", data2, VFSB_COV_SPLICE),
	REDIRECT(vfs_copy_file_range, vfsb_redirect_data2, VFSB_COV_SPLICE),
	SPAN("vfs_clone_file_range", remap, VFSB_COV_REMAP),
	REDIRECT(vfs_clone_file_range, vfsb_redirect_data2, VFSB_COV_REMAP),
	SPAN("vfs_dedupe_file_range_one", remap, VFSB_COV_REMAP),
	REDIRECT(vfs_dedupe_file_range_one, vfsb_redirect_data2,
		 VFSB_COV_REMAP),
	ENTRY("do_page_mkwrite", vfsb_on_mkwrite, VFSB_COV_MMAP,
	      .optional = true),
	SPAN(VFSB_VERITY_SYMBOL, file_attr, VFSB_COV_VERITY, .optional = true),
	REDIRECT_SYM(fsverity_ioctl_enable, VFSB_VERITY_SYMBOL,
		     vfsb_redirect_file0, VFSB_COV_VERITY, .optional = true),
	SPAN(VFSB_FSCRYPT_SYMBOL, file_attr, VFSB_COV_FSCRYPT,
	     .optional = true),
	REDIRECT_SYM(fscrypt_ioctl_set_policy, VFSB_FSCRYPT_SYMBOL,
		     vfsb_redirect_file0, VFSB_COV_FSCRYPT, .optional = true),

	/* async: submission and completion, a group each */
	SUBMIT_SPAN(io_write, VFSB_COV_IO_URING, .optional = true),
	REDIRECT(io_write, vfsb_redirect_io_write, VFSB_COV_IO_URING,
		 .call_addr = &vfsb_io_write_addr, .optional = true),
	CLOSER("io_complete_rw", vfsb_on_complete, VFSB_COV_IO_URING,
	       .optional = true),
	CLOSER("io_complete_rw_iopoll", vfsb_on_complete, VFSB_COV_IO_URING,
	       .optional = true),
	ENTRY("aio_write", vfsb_on_aio_write, VFSB_COV_AIO, .optional = true,
	      .stays = true),
	RETPROBE(aio_write, VFSB_COV_AIO, .optional = true),
	CLOSER("aio_complete_rw", vfsb_on_complete, VFSB_COV_AIO,
	       .optional = true),
	SPAN_EXIT("vfs_iocb_iter_write", iocb, vfsb_span_iocb_exit,
		  VFSB_COV_IOCB),
	REDIRECT(vfs_iocb_iter_write, vfsb_redirect_iocb, VFSB_COV_IOCB),
};

static_assert(ARRAY_SIZE(vfsb_hook_table) <= VFSB_HOOKS_MAX);

void vfsb_hooks_init(void)
{
	vfsb_io_prep_addr = vfsb_hookreg_call_addr(VFSB_IO_PREP_ASYNC);
	vfsb_hookreg_init(vfsb_hook_table, ARRAY_SIZE(vfsb_hook_table));
}
