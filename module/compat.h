/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, all in one place; Kbuild includes this
 * file ahead of every source file, so the rest reads like mainline code.
 *
 * Features are probed, not inferred from version numbers (distribution
 * backports make those lie): configure/<FEATURE>/test.c compiled against
 * the target's headers gives VFSB_HAVE_<FEATURE> in vfsb_config.h. What
 * cannot be probed (a private structure's layout, which filesystems'
 * ->encode_fh() never sleeps) is stated here, with the versions it was
 * checked against: 6.1, 6.12 and 7.3.
 */
#ifndef VFSB_COMPAT_H
#define VFSB_COMPAT_H

/* Every message of the module names it. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "vfsb_config.h"

#include <linux/exportfs.h>
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/srcu.h>

#ifdef CONFIG_PREEMPT_RT
/*
 * The hooks run with preemption disabled and take spinlocks (rings,
 * section tables), which sleep on PREEMPT_RT.
 */
#error "vfsbarrier does not support PREEMPT_RT kernels"
#endif

#if !defined(CONFIG_X86_64) || !defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
#error "vfsbarrier needs x86_64 with DYNAMIC_FTRACE_WITH_ARGS"
#endif

/*
 * ftrace callback arguments. struct ftrace_regs became opaque (with
 * ftrace_regs_get_argument()) after 6.1; on 6.1 x86 it wraps a pt_regs
 * whose argument registers ftrace saved (DYNAMIC_FTRACE_WITH_ARGS).
 */
#ifdef VFSB_HAVE_FTRACE_REGS_GET_ARGUMENT
#define vfsb_fregs_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define vfsb_fregs_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Redirected calls: an ftrace callback makes the traced call go on in
 * another function by setting the saved instruction pointer. With
 * DYNAMIC_FTRACE_WITH_ARGS, ftrace_caller honours that without the full
 * pt_regs (no FTRACE_OPS_FL_SAVE_REGS: a cheaper trampoline), as
 * livepatch relies on. The setter was renamed in 6.3.
 */
#ifdef VFSB_HAVE_FTRACE_REGS_SET_IP
#define vfsb_fregs_set_ip(fregs, ip) ftrace_regs_set_instruction_pointer(fregs, ip)
#else
#define vfsb_fregs_set_ip(fregs, ip) ftrace_instruction_pointer_set(fregs, ip)
#endif

/*
 * Return hooks of the data helpers (spans.c): fprobe where the kernel
 * has it (Debian's 6.12 and 7.x: CONFIG_FPROBE=y, exported), whose
 * handlers got pt_regs until 6.13 and ftrace_regs after, when it moved
 * onto the function graph tracer; kretprobes otherwise (Debian's 6.1
 * has no CONFIG_FPROBE).
 */
#if defined(VFSB_HAVE_FPROBE_PTREGS) || defined(VFSB_HAVE_FPROBE_FREGS)
#define VFSB_SPAN_FPROBE	1
#endif

/*
 * SRCU readers that end in another task or in interrupt context (async
 * I/O completion, task work): srcu_down_read()/srcu_up_read() where the
 * kernel has them; before, the raw pair they wrap, which skips lockdep's
 * same-task tracking.
 */
#ifdef VFSB_HAVE_SRCU_DOWN_READ
#define vfsb_srcu_down_read(ssp) srcu_down_read(ssp)
#define vfsb_srcu_up_read(ssp, idx) srcu_up_read(ssp, idx)
#else
#define vfsb_srcu_down_read(ssp) __srcu_read_lock(ssp)
#define vfsb_srcu_up_read(ssp, idx) __srcu_read_unlock(ssp, idx)
#endif

/* exportfs_encode_inode_fh() gained a flags argument in 6.5. */
#ifdef VFSB_HAVE_EXPORTFS_FLAGS
#define vfsb_encode_inode_fh(inode, fid, max_len) \
	exportfs_encode_inode_fh(inode, fid, max_len, NULL, 0)
#else
#define vfsb_encode_inode_fh(inode, fid, max_len) \
	exportfs_encode_inode_fh(inode, fid, max_len, NULL)
#endif

/*
 * An inode's ctime: inode_get_ctime() from 6.6 (and Debian's 6.1.y, by
 * a stable backport), which 6.11's multigrain timestamps and 7.x's
 * split fields need; i_ctime before.
 */
#ifdef VFSB_HAVE_INODE_GET_CTIME
#define vfsb_inode_ctime(inode) inode_get_ctime(inode)
#else
#define vfsb_inode_ctime(inode) ((inode)->i_ctime)
#endif

/* Inode operations' first argument: an idmap from 6.3, a userns before. */
#ifdef VFSB_HAVE_MNT_IDMAP
#define VFSB_IDMAP struct mnt_idmap
#else
#define VFSB_IDMAP struct user_namespace
#endif

/*
 * The namespace helpers kernel threads call (vfs_create() and the rest:
 * hooks.c wraps them), by kernel: 6.1 to 6.14 pass a delegated inode as
 * struct inode ** (configure/VFS_NS_USERNS and VFS_NS_IDMAP check each
 * prototype); 7.x
 * as struct delegated_inode *, with vfs_create() without the directory
 * and vfs_mkdir() returning the dentry (configure/VFS_NS_DELEG). With
 * neither, there are no such wrappers: those changes cannot wait.
 */
#if defined(VFSB_HAVE_VFS_NS_DELEG)
#include <linux/filelock.h>
#define VFSB_NS_WRAPPERS	1
#define VFSB_DELEG		struct delegated_inode *
#elif defined(VFSB_HAVE_VFS_NS_USERNS) || defined(VFSB_HAVE_VFS_NS_IDMAP)
#define VFSB_NS_WRAPPERS	1
#define VFSB_DELEG		struct inode **
#endif

/*
 * An inode's dentries, under its i_lock: in d_u.d_alias up to 6.x; 7.x
 * made the union anonymous and named the walk for_each_alias().
 */
#include <linux/dcache.h>
#ifdef for_each_alias
#define vfsb_for_each_alias(dentry, inode) for_each_alias(dentry, inode)
#else
#define vfsb_for_each_alias(dentry, inode) \
	hlist_for_each_entry(dentry, &(inode)->i_dentry, d_u.d_alias)
#endif

/* What chattr and FS_IOC_FSSETXATTR pass: renamed in 6.17. */
#ifdef VFSB_HAVE_FILE_KATTR
#define VFSB_FILEATTR struct file_kattr
#else
#define VFSB_FILEATTR struct fileattr
#endif

/*
 * POSIX ACLs: 6.2+ set them through vfs_set_acl()/vfs_remove_acl(),
 * which call security_inode_set_acl()/security_inode_remove_acl(). 6.1
 * sets them as xattrs (security_inode_setxattr() covers those). nfsd
 * and ksmbd call set_posix_acl() instead, on every version (6.1:
 * fs/nfsd/nfs3acl.c 110-116, fs/nfsd/vfs.c 587-592, fs/smb/server/vfs.c
 * 1934-1940, smbacl.c 1666-1673; later the same calls with an idmap and
 * a dentry), and set_posix_acl() has no security hook in it: it calls
 * ->set_acl() itself. It is bracketed as a data helper is (hooks.c,
 * set_posix_acl()), by its inode on 6.1 and its dentry from 6.2.
 * test_servers acl_change_is_announced and setacl_waits: NFSv3's
 * SETACL.
 */
#ifdef VFSB_HAVE_SECURITY_INODE_SET_ACL
#define VFSB_ACL_SET_SYMBOL	"security_inode_set_acl"
#define VFSB_ACL_REMOVE_SYMBOL	"security_inode_remove_acl"
#define VFSB_ACL_TARGET		struct dentry
#else
#define VFSB_ACL_SET_SYMBOL	NULL
#define VFSB_ACL_REMOVE_SYMBOL	NULL
#define VFSB_ACL_TARGET		struct inode
#endif

/*
 * From 6.2 setxattr(2), removexattr(2) and io_uring's IORING_OP_SETXATTR
 * of a POSIX ACL's name go through vfs_set_acl() and vfs_remove_acl(),
 * not vfs_setxattr() (6.12.95 fs/xattr.c do_setxattr() 622-627,
 * removexattr() 900; 7.3.4 655-660, 1035), and ksmbd and overlayfs call
 * them too. Their check, security_inode_set_acl() or _remove_acl(), runs
 * atomically, so a kernel thread's or io-wq worker's ACL change waits in
 * their wrappers (hooks.c), as its other attribute changes wait in
 * vfs_setxattr()'s: configure/VFS_SET_ACL checks the prototypes (an idmap
 * first, from 6.3). 6.1 has neither: its ACLs are xattrs there.
 */
#if defined(VFSB_HAVE_VFS_SET_ACL) && defined(VFSB_NS_WRAPPERS)
#define VFSB_ACL_WRAPPERS	1
#endif

/*
 * fs-verity and fscrypt compiled out: their ioctl entry points are inline
 * stubs that change nothing, so there is no such write path to hook, and
 * none to miss (a NULL symbol: the hook is left out, its coverage holds).
 */
#define VFSB_VERITY_SYMBOL \
	(IS_ENABLED(CONFIG_FS_VERITY) ? "fsverity_ioctl_enable" : NULL)
#define VFSB_FSCRYPT_SYMBOL \
	(IS_ENABLED(CONFIG_FS_ENCRYPTION) ? "fscrypt_ioctl_set_policy" : NULL)

/*
 * The open of a path by name (fs/internal.h, not exported): do_filp_open()
 * up to 6.x, renamed do_file_open() in 7.0 with the same arguments
 * (dfd, struct filename *, const struct open_flags *), which it does not
 * consume in either. Found by either name (hookreg.c, alt_symbol): no
 * header says which.
 */
#define VFSB_OPEN_SYMBOL	"do_filp_open"
#define VFSB_OPEN_SYMBOL_7	"do_file_open"

/* Its target: a dentry from 6.2, an inode (set_posix_acl()) before. */
static inline bool vfsb_acl_target(void *arg, struct dentry **dentry,
				   struct inode **inode)
{
#ifdef VFSB_HAVE_SECURITY_INODE_SET_ACL
	*dentry = arg;
	return true;
#else
	*inode = arg;
	return false;
#endif
}

/* do_splice_direct() returned long before 6.7, ssize_t since. */
#include <linux/fs.h>
#include <linux/splice.h>
#define vfsb_splice_direct_ret \
	typeof(do_splice_direct(NULL, NULL, NULL, NULL, 0, 0))

/*
 * io_uring's read/write request: struct io_rw (io_uring/rw.c, private)
 * sits in io_kiocb's cmd, which is its first member, and begins with its
 * struct kiocb; so the kiocb a write completes with (ki_complete's
 * argument) is the request's address. Checked in 6.1, 6.12 and 7.3.
 */
#include <linux/io_uring_types.h>
static inline const void *vfsb_io_uring_kiocb(struct io_kiocb *req)
{
	BUILD_BUG_ON(offsetof(struct io_kiocb, cmd) != 0);
	return req;
}

/*
 * An io_uring writev's copy of its iovec array (its async data): from
 * 6.10 every read and write request makes it at prep. Before, only a
 * request sent to io-wq has one: io_req_prep_async() (6.1.0-57
 * io_uring/io_uring.c 1618-1637) makes it for one submitted async, and
 * io_write() for one whose write would block (rw.c 984-986, through
 * io_setup_async_rw() 491-510), but not for a check that fails
 * (918-922). 6.10 dropped that function: a kernel that has it by name
 * (VFSB_IO_PREP_ASYNC, resolved at load) is one that needs it, with
 * this prototype (6.1).
 */
#define VFSB_IO_PREP_ASYNC	"io_req_prep_async"
typedef int (*vfsb_io_prep_async_t)(struct io_kiocb *req);

/*
 * Whether any write holds sb's freeze protection (sb_start_write() and
 * the page-fault and internal levels), from the per-CPU reader counts of
 * its percpu_rw_semaphores: only their sum is meaningful (a reader may
 * take on one CPU and drop on another), and it is a snapshot that a
 * reader taking and dropping between the reads of two CPUs can skew.
 * Layout checked in 6.1, 6.12 and 7.3.
 */
static inline bool vfsb_sb_writers_busy(struct super_block *sb)
{
	int level, cpu;

	for (level = 0; level < SB_FREEZE_LEVELS; level++) {
		unsigned int __percpu *count =
			sb->s_writers.rw_sem[level].read_count;
		unsigned int sum = 0;

		for_each_possible_cpu(cpu)
			sum += READ_ONCE(*per_cpu_ptr(count, cpu));
		if (sum)
			return true;
	}
	return false;
}

/*
 * Filesystems whose ->encode_fh() takes no sleeping lock and allocates
 * nothing, so a record can carry handles encoded in the hook (atomic
 * context). Elsewhere (FUSE, NFS, overlayfs...) records carry inode
 * numbers and VFSB_RECF_NO_HANDLE. Checked in 6.1, 6.12 and 7.3.
 */
static inline bool vfsb_fh_encodes_atomically(struct super_block *sb)
{
	static const char * const ok[] = {
		"ext4", "ext3", "ext2", "xfs", "btrfs", "tmpfs", "f2fs",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++)
		if (!strcmp(sb->s_type->name, ok[i]))
			return true;
	return false;
}

#endif /* VFSB_COMPAT_H */
