// SPDX-License-Identifier: GPL-2.0
/*
 * Records: built from what a hook saw, handed to every subscriber of
 * the superblock.
 *
 * A CHANGE record promises that its change runs inside a write section
 * of its filesystem, so that a barrier after reading it waits for the
 * change. Announcing checks that: a task that holds no section of that
 * superblock (the operation began before the watch; its section could
 * not be kept) announces the change flagged VFSB_RECF_UNFENCED, and the
 * filesystem gets a RESCAN record.
 *
 * Atomic context: the record is built in a per-CPU buffer. Handles are
 * encoded inline only for filesystems whose ->encode_fh() is known not
 * to sleep (decided once per tracking); elsewhere the record says
 * VFSB_RECF_NO_HANDLE and carries inode numbers and generations.
 */
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/exportfs.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched.h>

#include "emit.h"
#include "intent.h"
#include "ring.h"
#include "tracking.h"

struct vfsb_rec_buf {
	u64 words[VFSB_RECORD_MAX / 8];
};

static DEFINE_PER_CPU(struct vfsb_rec_buf, vfsb_rec_buf);
static atomic64_t vfsb_rename_cookie = ATOMIC64_INIT(0);

u64 vfsb_next_cookie(void)
{
	return atomic64_inc_return(&vfsb_rename_cookie);
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

/*
 * The parent and the name of dentry, consistent with each other: a
 * rename may move it meanwhile (the hooks of setattr and xattr changes
 * run without the parent's lock), and d_lock keeps both still while the
 * name is copied. RCU keeps the parent's inode.
 */
static struct inode *vfsb_dentry_snapshot(struct dentry *dentry, char *name,
					  u32 *len)
{
	struct inode *dir;

	spin_lock(&dentry->d_lock);
	dir = d_inode_rcu(dentry->d_parent);
	*len = min_t(u32, dentry->d_name.len, NAME_MAX);
	memcpy(name, dentry->d_name.name, *len);
	spin_unlock(&dentry->d_lock);
	return dir;
}

/*
 * Whether d is a name of its inode: hashed, and not disconnected (a
 * non-directory's dentry made by open_by_handle_at() or nfsd from a
 * handle is its own parent, IS_ROOT(), with no name in any directory).
 */
static bool vfsb_is_name(struct dentry *d)
{
	return !d_unhashed(d) && !IS_ROOT(d);
}

/*
 * A dentry of inode that is one of its current names, or NULL. Under
 * RCU, which keeps the dentry returned (dentries are freed after a
 * grace period); i_lock keeps the list of aliases while it is walked.
 */
static struct dentry *vfsb_hashed_alias(struct inode *inode)
{
	struct dentry *alias, *found = NULL;

	spin_lock(&inode->i_lock);
	vfsb_for_each_alias(alias, inode) {
		if (vfsb_is_name(alias)) {
			found = alias;
			break;
		}
	}
	spin_unlock(&inode->i_lock);
	return found;
}

/*
 * Whether ev's object has names its dentry does not lead to
 * (VFSB_RECF_LINKS, below): a file of a data or attribute change with
 * another link, or whose dentry is no name of it while it has one.
 */
static bool vfsb_event_links(const struct vfsb_event *ev)
{
	struct inode *inode = ev->inode;

	if (!inode || !ev->dentry || S_ISDIR(inode->i_mode) || ev->dir)
		return false;
	if (vfsb_is_name(ev->dentry))
		return READ_ONCE(inode->i_nlink) > 1;
	/* no name at all (an O_TMPFILE file not linked yet): none to miss */
	return READ_ONCE(inode->i_nlink);
}

/*
 * The dentry a change of an existing object (a data or attribute change,
 * not a namespace operation) is named by, and whether the object has
 * names that dentry does not lead to (VFSB_RECF_LINKS): another link,
 * or a dentry that is no longer a name of it. A descriptor keeps the
 * dentry it was opened by: an O_TMPFILE file's stays unhashed, in the
 * directory it was made in, after linkat() gave the inode a name
 * elsewhere; so does an unlinked file's after it was linked again. A
 * current name's dentry is taken instead when the dcache has one.
 */
static struct dentry *vfsb_object_dentry(const struct vfsb_event *ev,
					 u32 *flags)
{
	struct dentry *alias;

	if (!vfsb_event_links(ev))
		return ev->dentry;
	*flags |= VFSB_RECF_LINKS;
	if (vfsb_is_name(ev->dentry))
		return ev->dentry;
	alias = vfsb_hashed_alias(ev->inode);
	if (alias)
		return alias;
	/* disconnected, no name known: no directory, the object alone */
	return IS_ROOT(ev->dentry) ? NULL : ev->dentry;
}

static void vfsb_fill_header(struct vfsb_record *rec, struct super_block *sb,
			     u16 type)
{
	memset(rec, 0, sizeof(*rec));
	rec->type = type;
	rec->header_size = sizeof(*rec);
	rec->time_ns = ktime_get_ns();
	rec->dev = new_encode_dev(sb->s_dev);
	memcpy(rec->fs_uuid, &sb->s_uuid, sizeof(rec->fs_uuid));
	rec->pid = task_tgid_nr(current);
	rec->tid = task_pid_nr(current);
	rec->uid = from_kuid_munged(&init_user_ns, current_fsuid());
}

/* Builds the CHANGE record of ev into rec; returns its coalescing key. */
static void vfsb_build(struct vfsb_sb *vsb, struct super_block *sb,
		       const struct vfsb_event *ev, struct vfsb_record *rec,
		       struct vfsb_ckey *key)
{
	struct inode *dir = ev->dir;
	struct dentry *dentry;
	char name[NAME_MAX];
	u32 name_len = 0;
	bool fh_ok;
	char *p, *q;

	vfsb_fill_header(rec, sb, VFSB_REC_CHANGE);
	rec->reasons = ev->reasons;
	rec->flags = ev->flags;
	dentry = ev->dentry ? vfsb_object_dentry(ev, &rec->flags) : NULL;
	rec->mode = ev->mode;
	rec->cookie = ev->cookie;
	/* O_APPEND: the data lands at the size as it is now */
	rec->offset = (ev->flags & VFSB_RECF_APPEND) && ev->inode ?
		      i_size_read(ev->inode) : ev->offset;
	rec->length = ev->length;
	if (ev->name_of_dentry && dentry) {
		struct inode *parent = vfsb_dentry_snapshot(dentry, name,
							    &name_len);

		if (!dir)
			dir = parent;
	} else if (ev->name) {
		name_len = min_t(u32, ev->name->len, NAME_MAX);
		memcpy(name, ev->name->name, name_len);
	}
	if (!dir && dentry) {
		/* a data write: the parent as it is now (RCU keeps it) */
		struct dentry *parent = READ_ONCE(dentry->d_parent);

		dir = parent ? d_inode_rcu(parent) : NULL;
	}
	if (ev->inode) {
		rec->ino = ev->inode->i_ino;
		rec->generation = ev->inode->i_generation;
		if (S_ISDIR(ev->inode->i_mode))
			rec->flags |= VFSB_RECF_DIR;
	}
	if (dir) {
		rec->parent_ino = dir->i_ino;
		rec->parent_generation = dir->i_generation;
	}

	fh_ok = vsb->fh_inline;
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
	if (name_len || ev->name) {
		p = vfsb_put_item(p, VFSB_ITEM_NAME, name, name_len);
		rec->nr_items++;
	}
	rec->size = p - (char *)rec;

	memset(key, 0, sizeof(*key));
	key->dev = rec->dev;
	key->parent_ino = rec->parent_ino;
	key->parent_gen = rec->parent_generation;
	key->reasons = rec->reasons;
}

/*
 * Hands rec to every ring on vsb, counting what became of it. A CHANGE
 * record goes to an intent subscriber's ring through intent.c, which
 * says in req what the change must wait for.
 */
static void vfsb_push_all(struct vfsb_sb *vsb, struct vfsb_record *rec,
			  const struct vfsb_ckey *key,
			  struct vfsb_intent_req *req)
{
	struct vfsb_sub_link *l;
	enum vfsb_push ret;

	list_for_each_entry_rcu(l, &vsb->subs, node) {
		if (l->intent && req)
			ret = vfsb_intent_push(l->intent, l->ring, rec, key, req);
		else
			ret = vfsb_ring_push(l->ring, rec, key);
		switch (ret) {
		case VFSB_PUSH_STORED:
			atomic64_inc(&vsb->records);
			break;
		case VFSB_PUSH_LOST:
			atomic64_inc(&vsb->records_lost);
			break;
		case VFSB_PUSH_MERGED:
			atomic64_inc(&vsb->records_merged);
			break;
		case VFSB_PUSH_FILTERED:
			break;
		}
	}
}

/* Whether vsb has an intent subscriber. Under RCU. */
static bool vfsb_vsb_has_intent(struct vfsb_sb *vsb)
{
	struct vfsb_sub_link *l;

	list_for_each_entry_rcu(l, &vsb->subs, node)
		if (l->intent)
			return true;
	return false;
}

/*
 * Whether sb has an intent subscriber, whose changes may have to wait:
 * what makes a hooked call go on in a wrapper, where it can (hooks.c).
 * Any context.
 */
bool vfsb_sb_has_intent(struct super_block *sb)
{
	struct vfsb_sb *vsb;
	bool ret = false;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	rcu_read_lock();
	vsb = vfsb_tracking_lookup_rcu(sb);
	if (vsb)
		ret = vfsb_vsb_has_intent(vsb);
	rcu_read_unlock();
	return ret;
}

/*
 * vsb's subscriber when it has only one and that is a journal (an
 * intent ring that coalesces as one: ring.c), else NULL. Under RCU.
 */
static struct vfsb_sub_link *vfsb_sole_journal(struct vfsb_sb *vsb)
{
	struct vfsb_sub_link *l;

	l = list_first_or_null_rcu(&vsb->subs, struct vfsb_sub_link, node);
	if (!l || !l->intent || !vfsb_ring_is_journal(l->ring) ||
	    list_next_or_null_rcu(&vsb->subs, &l->node, struct vfsb_sub_link,
				  node))
		return NULL;
	return l;
}

/*
 * The flags vfsb_build() gives ev's record where they decide whether a
 * journal stores more from it than its directory (ring.c,
 * vfsb_rec_plain()): VFSB_RECF_LINKS (vfsb_event_links()) and
 * VFSB_RECF_DIR; and the record's directory. Without side effects.
 */
static u32 vfsb_plain_flags(const struct vfsb_event *ev, struct inode **dir)
{
	struct inode *inode = ev->inode;
	u32 flags = ev->flags;
	struct dentry *parent;

	if (inode && S_ISDIR(inode->i_mode))
		flags |= VFSB_RECF_DIR;
	if (vfsb_event_links(ev))
		flags |= VFSB_RECF_LINKS;
	*dir = ev->dir;
	if (!*dir && ev->dentry) {
		/* RCU keeps it, as in vfsb_build() */
		parent = READ_ONCE(ev->dentry->d_parent);
		*dir = parent ? d_inode_rcu(parent) : NULL;
	}
	return flags;
}

/*
 * A change that the only subscriber, a journal, would merge whole into
 * the record before it (ring.c: a plain record, vfsb_rec_plain(), into
 * an unread last record naming the same directory in the same epoch,
 * vfsb_ring_merge_dir()), because its directory's intent is acked in
 * the epoch: a write to a file, an attribute change, a create, an
 * unlink, over and over in one directory. Such a record would change
 * nothing anyone reads, so it is not built: building it (the clock, the
 * handles' encoding, the name, the header) costs about as much again
 * as the rest of the announcement. Anything else takes the full path.
 */
static bool vfsb_announce_merged(struct vfsb_sb *vsb, struct super_block *sb,
				 const struct vfsb_event *ev, bool fenced,
				 struct vfsb_intent_req *req)
{
	struct vfsb_sub_link *l;
	struct vfsb_ikey k;
	struct inode *dir;
	u32 flags;

	if (!req || !fenced || (ev->reasons & VFSB_R_HARDLINK))
		return false;
	l = vfsb_sole_journal(vsb);
	if (!l)
		return false;
	flags = vfsb_plain_flags(ev, &dir);
	if (!dir || !dir->i_ino ||
	    (flags & (VFSB_RECF_INTENT | VFSB_RECF_LINKS |
		      VFSB_RECF_UNFENCED)) ||
	    ((flags & VFSB_RECF_DIR) &&
	     (ev->reasons & (VFSB_R_RENAME_FROM | VFSB_R_RENAME_TO |
			     VFSB_DIR_SELF_REASONS))))
		return false;
	k = vfsb_entries_key(sb, dir);
	BUILD_BUG_ON(sizeof(sb->s_uuid) <
		     sizeof(((struct vfsb_record *)NULL)->fs_uuid));
	if (!vfsb_intent_would_merge(l->intent, l->ring, ev->reasons, &k,
				     (const u8 *)&sb->s_uuid))
		return false;
	atomic64_inc(&vsb->records_merged);
	return true;
}

/*
 * Whether sb's inodes take their ctime from the kernel's realtime clock
 * as a change runs, which a journal's recovery reads (statx()) to find
 * the directories changed in an epoch (intent.c, new directories):
 * ext4, XFS, btrfs and tmpfs, by current_time() (6.1: a new inode,
 * fs/ext4/ialloc.c 1267, fs/xfs/xfs_inode.c 849, fs/btrfs/inode.c
 * 6646-6648, mm/shmem.c 2368; a rename's moved inode, fs/ext4/namei.c
 * 3995, fs/btrfs/inode.c 9311 and 9447, mm/shmem.c 3141, XFS through
 * xfs_trans_ichgtime(); an attribute change, notify_change(), fs/attr.c
 * 419-421). Not FUSE (its server says), vfat or exfat (local time), nor
 * what was not checked.
 */
bool vfsb_ctime_by_clock(const struct super_block *sb)
{
	static const char *const names[] = { "ext4", "xfs", "btrfs",
					      "tmpfs" };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(sb->s_type->name, names[i]))
			return true;
	return false;
}

/*
 * Whether open(O_CREAT) of a name in dir that the dcache does not know
 * is to be deferred until the name is looked up (intent.c,
 * vfsb_intent_defer_create()): when an intent subscriber watches dir's
 * filesystem, unless that subscriber is the only one, a journal, and
 * dir's intent is acked in the epoch. The announcement then waits for
 * nothing, and if the name turns out to exist its CREATE record names
 * a directory the journal holds in the epoch already (a plain record:
 * merged, or stored to no effect), while the restart a deferral costs
 * is a second system call and lookup for each new name (an untar's
 * every file). Any context.
 */
bool vfsb_create_may_defer(struct inode *dir, struct dentry *dentry)
{
	struct super_block *sb = dir->i_sb;
	struct vfsb_sub_link *l;
	struct vfsb_sb *vsb;
	struct vfsb_ikey k;
	bool ret = false;

	if (!vfsb_sb_maybe_tracked(sb))
		return false;
	rcu_read_lock();
	vsb = vfsb_tracking_lookup_rcu(sb);
	if (vsb) {
		l = vfsb_sole_journal(vsb);
		if (l) {
			k = vfsb_entries_key(sb, dir);
			ret = !vfsb_intent_acked(l->intent, &k,
						 READ_ONCE(dentry->d_parent));
		} else {
			ret = vfsb_vsb_has_intent(vsb);
		}
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Announces a change on sb to its subscribers, before the change is
 * made. Callers: the hooks, in the operation's task, with whatever the
 * operation holds (never a lock of ours); fenced: a section of sb's
 * tracking covers the change (sections.c said so), else the record is
 * flagged unfenced and a RESCAN follows. req collects what the change
 * must wait for in intent mode; the caller settles it (intent.h).
 */
void vfsb_announce(struct super_block *sb, const struct vfsb_event *ev,
		   bool fenced, struct vfsb_intent_req *req)
{
	struct vfsb_record *rec;
	struct vfsb_ckey key;
	struct vfsb_sb *vsb;

	if (!atomic_read(&vfsb_nr_rings) || !vfsb_sb_maybe_tracked(sb))
		return;
	rcu_read_lock();
	vsb = vfsb_tracking_lookup_rcu(sb);
	if (!vsb || list_empty(&vsb->subs) ||
	    vfsb_announce_merged(vsb, sb, ev, fenced, req))
		goto out;
	/* the changed entry's directory and object (intent.c) */
	if (req) {
		req->dir = ev->dir_dentry ?:
			   ev->dentry ? READ_ONCE(ev->dentry->d_parent) : NULL;
		req->obj = ev->dentry;
	}
	rec = (void *)get_cpu_ptr(&vfsb_rec_buf);
	vfsb_build(vsb, sb, ev, rec, &key);
	if (!fenced)
		rec->flags |= VFSB_RECF_UNFENCED;
	vfsb_push_all(vsb, rec, &key, req);
	put_cpu_ptr(&vfsb_rec_buf);
	if (!fenced) {
		atomic64_inc(&vsb->unfenced);
		vfsb_emit_rescan(vsb, VFSB_RESCAN_UNFENCED);
	}
out:
	rcu_read_unlock();
}

/*
 * Changes on vsb may have happened that no record announced inside a
 * section: a RESCAN record to every subscriber (coalesced in each ring
 * until it is read). Any context.
 */
void vfsb_emit_rescan(struct vfsb_sb *vsb, u32 why)
{
	struct vfsb_sub_link *l;
	u32 dev = new_encode_dev(vsb->dev);

	atomic64_inc(&vsb->rescans);
	rcu_read_lock();
	list_for_each_entry_rcu(l, &vsb->subs, node)
		vfsb_ring_note_rescan(l->ring, dev, why);
	rcu_read_unlock();
}

/* vsb's filesystem is gone: the last record of it in every stream. */
void vfsb_emit_unmount(struct vfsb_sb *vsb)
{
	struct vfsb_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.type = VFSB_REC_UNMOUNT;
	rec.header_size = sizeof(rec);
	rec.size = sizeof(rec);
	rec.time_ns = ktime_get_ns();
	rec.dev = new_encode_dev(vsb->dev);
	memcpy(rec.fs_uuid, vsb->uuid, sizeof(rec.fs_uuid));
	rcu_read_lock();
	vfsb_push_all(vsb, &rec, NULL, NULL);
	rcu_read_unlock();
}
