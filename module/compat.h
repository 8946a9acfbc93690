/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, all in one place. Prefer testing for the
 * feature itself (a macro, a Kbuild probe) over version numbers: distro
 * backports make version numbers lie.
 */
#ifndef VFSB_COMPAT_H
#define VFSB_COMPAT_H

#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/srcu.h>

/*
 * ftrace callback arguments. struct ftrace_regs became opaque (with
 * ftrace_regs_get_argument()) after 6.1; on 6.1 x86 it wraps a pt_regs
 * whose argument registers ftrace saved (DYNAMIC_FTRACE_WITH_ARGS).
 */
#ifdef ftrace_regs_get_argument
#define vfsb_fregs_arg(fregs, n) ftrace_regs_get_argument(fregs, n)
#else
#define vfsb_fregs_arg(fregs, n) regs_get_kernel_argument(&(fregs)->regs, n)
#endif

/*
 * Redirected calls (hooks.c): an ftrace callback makes the traced call
 * continue in another function by setting the saved instruction pointer.
 * With DYNAMIC_FTRACE_WITH_ARGS, ftrace_caller honours that without the
 * full pt_regs (no FTRACE_OPS_FL_SAVE_REGS: a cheaper trampoline), as
 * livepatch relies on. The setter was renamed in 6.3. Elsewhere the
 * kretprobes stay.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
#if defined(ftrace_regs_set_instruction_pointer)
#define VFSB_HAVE_REDIRECT 1
#define vfsb_fregs_set_ip(fregs, ip) ftrace_regs_set_instruction_pointer(fregs, ip)
#elif defined(ftrace_instruction_pointer_set)
#define VFSB_HAVE_REDIRECT 1
#define vfsb_fregs_set_ip(fregs, ip) ftrace_instruction_pointer_set(fregs, ip)
#endif
#endif

/*
 * SRCU readers that end in another task or in interrupt context (async
 * I/O completion): srcu_down_read()/srcu_up_read() where the kernel has
 * them (6.2+; Kbuild probes the headers); before, the raw pair they
 * wrap, which skips lockdep's same-task tracking.
 */
#ifdef VFSB_HAVE_SRCU_DOWN_READ
#define vfsb_srcu_down_read(ssp) srcu_down_read(ssp)
#define vfsb_srcu_up_read(ssp, idx) srcu_up_read(ssp, idx)
#else
#define vfsb_srcu_down_read(ssp) __srcu_read_lock(ssp)
#define vfsb_srcu_up_read(ssp, idx) __srcu_read_unlock(ssp, idx)
#endif

/* exportfs_encode_inode_fh() gained a flags argument in 6.5 (probed). */
#include <linux/exportfs.h>
#ifdef VFSB_HAVE_EXPORTFS_FLAGS
#define vfsb_encode_inode_fh(inode, fid, max_len) \
	exportfs_encode_inode_fh(inode, fid, max_len, NULL, 0)
#else
#define vfsb_encode_inode_fh(inode, fid, max_len) \
	exportfs_encode_inode_fh(inode, fid, max_len, NULL)
#endif

#endif /* VFSB_COMPAT_H */
