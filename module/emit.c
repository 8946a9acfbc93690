// SPDX-License-Identifier: GPL-2.0
/*
 * Pre-modify records: the emission hooks and the record they build.
 *
 * The hooks sit where every caller passes, syscall or not (nfsd,
 * overlayfs copy-up and ksmbd call the vfs_* helpers directly): the
 * security_inode_*() checks of namespace and attribute changes, and
 * rw_verify_area() of data writes. Each runs inside the operation's
 * write section (opened by hooks.c at mnt_want_write*() or the data
 * write's entry) and before the filesystem changes anything.
 *
 * Atomic context: the record is built in a per-CPU buffer. Handles are
 * encoded inline only for filesystems whose ->encode_fh() is known not
 * to sleep; elsewhere the record says VFSB_RECF_NO_HANDLE and carries
 * inode number and generation only.
 */
#include <linux/cred.h>
#include <linux/exportfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/trace_recursion.h>

#include "compat.h"
#include "records.h"
#include "vfsb.h"

struct vfsb_rec_buf {
	u64 words[VFSB_RECORD_MAX / 8];
};

static DEFINE_PER_CPU(struct vfsb_rec_buf, vfsb_rec_buf);
static atomic64_t vfsb_rename_cookie = ATOMIC64_INIT(0);

/* ->encode_fh() of these takes no sleeping lock and allocates nothing. */
static bool vfsb_fh_inline_ok(struct super_block *sb)
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

static char *vfsb_put_item(char *p, u16 type, const void *data, u16 len)
{
	struct vfsb_rec_item *it = (void *)p;

	it->type = type;
	it->len = len;
	it->reserved = 0;
	memcpy(it + 1, data, len);
	memset((char *)(it + 1) + len, 0, ALIGN(len, 8) - len);
	return p + sizeof(*it) + ALIGN(len, 8);
}

/* A struct file_handle of inode as an item; NULL when it cannot be had. */
static char *vfsb_put_fh(char *p, u16 type, struct inode *inode)
{
	struct {
		u32 handle_bytes;
		s32 handle_type;
		u32 f_handle[MAX_HANDLE_SZ / 4];
	} fh;
	int words = MAX_HANDLE_SZ / 4;
	int t;

	t = vfsb_encode_inode_fh(inode, (struct fid *)fh.f_handle, &words);
	if (t <= 0 || t == FILEID_INVALID || words > MAX_HANDLE_SZ / 4)
		return NULL;
	fh.handle_bytes = words * 4;
	fh.handle_type = t;
	return vfsb_put_item(p, type, &fh, 8 + fh.handle_bytes);
}

void vfsb_emit(struct super_block *sb, const struct vfsb_event *ev)
{
	struct vfsb_record *rec;
	struct vfsb_sub_link *l;
	struct inode *dir = ev->dir;
	struct vfsb_sb *vsb;
	char *p, *q;
	bool fh_ok;

	if (!atomic_read(&vfsb_nr_rings) || !sb)
		return;
	rcu_read_lock();
	vsb = vfsb_sb_lookup_rcu(sb);
	if (!vsb || list_empty(&vsb->subs))
		goto out;

	rec = (void *)get_cpu_ptr(&vfsb_rec_buf);
	memset(rec, 0, sizeof(*rec));
	rec->type = VFSB_REC_CHANGE;
	rec->header_size = sizeof(*rec);
	rec->time_ns = ktime_get_ns();
	rec->dev = new_encode_dev(sb->s_dev);
	rec->reasons = ev->reasons;
	rec->flags = ev->flags;
	memcpy(rec->fs_uuid, &sb->s_uuid, sizeof(rec->fs_uuid));
	rec->cookie = ev->cookie;
	rec->offset = ev->offset;
	rec->length = ev->length;
	rec->pid = task_tgid_nr(current);
	rec->tid = task_pid_nr(current);
	rec->uid = from_kuid_munged(&init_user_ns, current_fsuid());
	if (!dir && ev->dentry) {
		/* a data write: the parent as it is now (RCU keeps it) */
		struct dentry *parent = READ_ONCE(ev->dentry->d_parent);

		dir = parent ? d_inode_rcu(parent) : NULL;
	}
	if (ev->inode) {
		rec->ino = ev->inode->i_ino;
		rec->generation = ev->inode->i_generation;
		if (S_ISDIR(ev->inode->i_mode))
			rec->flags |= VFSB_RECF_DIR;
	}
	if (dir)
		rec->parent_ino = dir->i_ino;

	fh_ok = vfsb_fh_inline_ok(sb);
	p = (char *)(rec + 1);
	if (dir && fh_ok) {
		q = vfsb_put_fh(p, VFSB_ITEM_PARENT_FH, dir);
		fh_ok = q;
		if (q) {
			p = q;
			rec->nr_items++;
		}
	}
	if (ev->inode && fh_ok) {
		q = vfsb_put_fh(p, VFSB_ITEM_OBJECT_FH, ev->inode);
		fh_ok = q;
		if (q) {
			p = q;
			rec->nr_items++;
		}
	}
	if (!fh_ok)
		rec->flags |= VFSB_RECF_NO_HANDLE;
	if (ev->name) {
		p = vfsb_put_item(p, VFSB_ITEM_NAME, ev->name->name,
				  min_t(u32, ev->name->len, NAME_MAX));
		rec->nr_items++;
	}
	rec->size = p - (char *)rec;

	list_for_each_entry_rcu(l, &vsb->subs, node) {
		/* coalescing key: the directory and what happened in it */
		u64 ckey = ((u64)rec->parent_ino << 10) ^ rec->reasons;

		switch (vfsb_ring_push(l->ring, rec, ckey)) {
		case VFSB_PUSH_STORED:
			atomic64_inc(&vsb->records);
			break;
		case VFSB_PUSH_LOST:
			atomic64_inc(&vsb->records_lost);
			break;
		}
	}
	put_cpu_ptr(&vfsb_rec_buf);
out:
	rcu_read_unlock();
}

/* ---- the emission hooks (ftrace, entry only) ---- */

#define ARG(n) ((void *)vfsb_fregs_arg(fregs, n))

#define VFSB_EMIT_HOOK(fn)						\
static void notrace fn##_cb(unsigned long ip, unsigned long pip,	\
			    struct ftrace_ops *op,			\
			    struct ftrace_regs *fregs)			\
{									\
	int bit;							\
									\
	if (!atomic_read(&vfsb_nr_rings))			\
		return;							\
	bit = ftrace_test_recursion_trylock(ip, pip);			\
	if (bit < 0)							\
		return;							\
	fn(fregs);							\
	ftrace_test_recursion_unlock(bit);				\
}

/* create, mkdir, mknod, symlink: (dir, dentry, ...) */
static void vfsb_on_create(struct ftrace_regs *fregs)
{
	struct inode *dir = ARG(0);
	struct dentry *dentry = ARG(1);
	struct vfsb_event ev = {
		.reasons = VFSB_R_CREATE, .dir = dir, .name = &dentry->d_name,
	};

	vfsb_emit(dir->i_sb, &ev);
}

VFSB_EMIT_HOOK(vfsb_on_create)

static void vfsb_on_mkdir(struct ftrace_regs *fregs)
{
	struct inode *dir = ARG(0);
	struct dentry *dentry = ARG(1);
	struct vfsb_event ev = {
		.reasons = VFSB_R_CREATE, .flags = VFSB_RECF_DIR, .dir = dir,
		.name = &dentry->d_name,
	};

	vfsb_emit(dir->i_sb, &ev);
}

VFSB_EMIT_HOOK(vfsb_on_mkdir)

/* link: (old_dentry, dir, new_dentry) */
static void vfsb_on_link(struct ftrace_regs *fregs)
{
	struct dentry *old = ARG(0);
	struct inode *dir = ARG(1);
	struct dentry *new = ARG(2);
	struct vfsb_event ev = {
		.reasons = VFSB_R_HARDLINK, .dir = dir, .name = &new->d_name,
		.inode = d_inode(old),
	};

	vfsb_emit(dir->i_sb, &ev);
}

VFSB_EMIT_HOOK(vfsb_on_link)

/* unlink, rmdir: (dir, dentry) */
static void vfsb_on_delete(struct ftrace_regs *fregs)
{
	struct inode *dir = ARG(0);
	struct dentry *dentry = ARG(1);
	struct vfsb_event ev = {
		.reasons = VFSB_R_DELETE, .dir = dir, .name = &dentry->d_name,
		.inode = d_inode(dentry),
	};

	vfsb_emit(dir->i_sb, &ev);
}

VFSB_EMIT_HOOK(vfsb_on_delete)

/* rename: (old_dir, old_dentry, new_dir, new_dentry, flags) */
static void vfsb_on_rename(struct ftrace_regs *fregs)
{
	struct dentry *old = ARG(1), *new = ARG(3);
	unsigned int flags = (unsigned long)ARG(4);
	u32 xflag = flags & RENAME_EXCHANGE ? VFSB_RECF_EXCHANGE : 0;
	struct vfsb_event from = {
		.reasons = VFSB_R_RENAME_FROM, .flags = xflag, .dir = ARG(0),
		.name = &old->d_name, .inode = d_inode(old),
		.cookie = atomic64_inc_return(&vfsb_rename_cookie),
	};
	struct vfsb_event to = from;

	to.reasons = VFSB_R_RENAME_TO;
	to.dir = ARG(2);
	to.name = &new->d_name;
	/*
	 * With RENAME_EXCHANGE the target moves too: both directions, each
	 * record about the object that was under its name.
	 */
	if (xflag) {
		to.reasons |= VFSB_R_RENAME_FROM;
		from.reasons |= VFSB_R_RENAME_TO;
		to.inode = d_inode(new);
	}
	vfsb_emit(from.dir->i_sb, &from);
	vfsb_emit(to.dir->i_sb, &to);
	/* RENAME_WHITEOUT leaves a whiteout under the old name: a creation */
	if (flags & RENAME_WHITEOUT) {
		struct vfsb_event wh = {
			.reasons = VFSB_R_CREATE, .dir = from.dir,
			.name = &old->d_name,
		};

		vfsb_emit(wh.dir->i_sb, &wh);
	}
}

VFSB_EMIT_HOOK(vfsb_on_rename)

/* setattr: (idmap or user_namespace, dentry, iattr) */
static void vfsb_on_setattr(struct ftrace_regs *fregs)
{
	struct dentry *dentry = ARG(1);
	struct iattr *attr = ARG(2);
	struct vfsb_event ev = {
		.reasons = VFSB_R_ATTRIB, .dir = d_inode(dentry->d_parent),
		.name = &dentry->d_name, .inode = d_inode(dentry),
	};

	if (attr->ia_valid & ATTR_SIZE) {
		ev.reasons = VFSB_R_TRUNCATE;
		ev.offset = attr->ia_size;
	}
	vfsb_emit(dentry->d_sb, &ev);
}

VFSB_EMIT_HOOK(vfsb_on_setattr)

/* setxattr, removexattr: (idmap or user_namespace, dentry, name, ...) */
static void vfsb_on_xattr(struct ftrace_regs *fregs)
{
	struct dentry *dentry = ARG(1);
	struct vfsb_event ev = {
		.reasons = VFSB_R_XATTR, .dir = d_inode(dentry->d_parent),
		.name = &dentry->d_name, .inode = d_inode(dentry),
	};

	vfsb_emit(dentry->d_sb, &ev);
}

VFSB_EMIT_HOOK(vfsb_on_xattr)

/* Data write to file over [pos, pos + len). */
static void vfsb_emit_data(struct file *file, u32 reason, u64 pos, u64 len)
{
	struct vfsb_event ev = {
		.reasons = reason, .inode = file_inode(file),
		.dentry = file->f_path.dentry, .offset = pos, .length = len,
	};

	vfsb_emit(file_inode(file)->i_sb, &ev);
}

/* rw_verify_area(read_write, file, ppos, count) */
static void vfsb_on_rw_verify(struct ftrace_regs *fregs)
{
	const loff_t *ppos = ARG(2);

	if ((unsigned long)ARG(0) != WRITE)
		return;
	vfsb_emit_data(ARG(1), VFSB_R_DATA_WRITE, ppos ? *ppos : 0,
		       (unsigned long)ARG(3));
}

VFSB_EMIT_HOOK(vfsb_on_rw_verify)

/* vfs_fallocate(file, mode, offset, len) */
static void vfsb_on_fallocate(struct ftrace_regs *fregs)
{
	vfsb_emit_data(ARG(0), VFSB_R_DATA_WRITE, (unsigned long)ARG(2),
		       (unsigned long)ARG(3));
}

VFSB_EMIT_HOOK(vfsb_on_fallocate)

/* vfs_clone_file_range and vfs_dedupe_file_range_one: (in, pos, out, pos, len) */
static void vfsb_on_remap(struct ftrace_regs *fregs)
{
	vfsb_emit_data(ARG(2), VFSB_R_DATA_WRITE, (unsigned long)ARG(3),
		       (unsigned long)ARG(4));
}

VFSB_EMIT_HOOK(vfsb_on_remap)

/* do_page_mkwrite(vmf) */
static void vfsb_on_mkwrite(struct ftrace_regs *fregs)
{
	struct vm_fault *vmf = ARG(0);
	struct file *file = vmf->vma ? vmf->vma->vm_file : NULL;

	if (file)
		vfsb_emit_data(file, VFSB_R_MMAP_WRITE,
			       (u64)vmf->pgoff << PAGE_SHIFT, PAGE_SIZE);
}

VFSB_EMIT_HOOK(vfsb_on_mkwrite)

const struct vfsb_ft_def vfsb_emit_ft_defs[] = {
	{ "security_inode_create", vfsb_on_create_cb },
	{ "security_inode_mknod", vfsb_on_create_cb },
	{ "security_inode_symlink", vfsb_on_create_cb },
	{ "security_inode_mkdir", vfsb_on_mkdir_cb },
	{ "security_inode_link", vfsb_on_link_cb },
	{ "security_inode_unlink", vfsb_on_delete_cb },
	{ "security_inode_rmdir", vfsb_on_delete_cb },
	{ "security_inode_rename", vfsb_on_rename_cb },
	{ "security_inode_setattr", vfsb_on_setattr_cb },
	{ "security_inode_setxattr", vfsb_on_xattr_cb },
	{ "security_inode_removexattr", vfsb_on_xattr_cb },
	{ "rw_verify_area", vfsb_on_rw_verify_cb },
	{ "vfs_fallocate", vfsb_on_fallocate_cb },
	{ "vfs_clone_file_range", vfsb_on_remap_cb },
	{ "vfs_dedupe_file_range_one", vfsb_on_remap_cb },
	{ "do_page_mkwrite", vfsb_on_mkwrite_cb, true },
};

const size_t vfsb_emit_ft_count = ARRAY_SIZE(vfsb_emit_ft_defs);
