// SPDX-License-Identifier: GPL-2.0
/*
 * vbjournald: the change journal daemon. It subscribes to vfsbarrier in
 * intent mode on the filesystems it is given, makes every intent
 * durable in the journal before acknowledging it (group commit: one
 * COMMIT, one fsync, then one ack for everything read meanwhile), and
 * closes epochs with checkpoints: VFSB_IOC_CHECKPOINT, syncfs() of each
 * filesystem, then the epoch is marked durable.
 *
 * Usage: vbjournald --fs PATH [--fs PATH...] --journal DIR
 *                   [--interval TIME] [--timeout TIME] [--fail-closed]
 *                   [--refuse-unwaited] [--max-changes N] [--max-size SIZE]
 *                   [--force] [--verbose]
 *                   [--config FILE] [--check-config]
 * (settings: config.c)
 * SIGUSR1: checkpoint now. SIGHUP: read the settings again (reload()).
 * SIGTERM, SIGINT: checkpoint and stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "cli.h"
#include "boots.h"
#include "config.h"
#include "fdstore.h"
#include "lock.h"
#include "log.h"
#include "namer.h"
#include "newdirs.h"
#include "notify.h"
#include "store.h"
#include "vfsb.h"

#define MAX_FS		VBJD_MAX_FS
#define READ_BUF	(4U << 20)
/* what one drain reads before it stores (records kept until durable) */
#define PEND_MAX	(64U << 20)
/*
 * A checkpoint's barrier is waited for in slices this long, with the
 * records read and acked between them: a writer that waits for its ack
 * (a kernel thread inside its caller's section, which the barrier waits
 * for in turn) waits this long at most for a checkpoint in progress.
 * The module keeps the barrier across the calls (VFSB_FEAT_CKPT_KEPT);
 * an older one starts a new barrier at each, counted against a limit
 * of the opener's, so with it the slices are a second long as before.
 */
#define CKPT_SLICE_MS		20
#define CKPT_SLICE_OLD_MS	1000

struct fs {
	const char *path;
	int fd;			/* the mount point: handles, syncfs */
	__u32 dev;		/* the ABI's encoding */
	int64_t id;		/* the journal's */
	int mounts;		/* ext4's mount count; -1: not known */
	bool new_watch;		/* resumed, but this watch is new (fdstore.h) */
};

struct daemon {
	struct vbj_store st;
	struct fs fs[MAX_FS];
	int nfs;
	int dev;
	bool resumed;		/* dev came from the fd store (fdstore.h) */
	char sub[64];		/* the subscription's settings */
	int64_t base;		/* the journal epoch of module epoch 1 */
	unsigned int interval_ms;
	unsigned int timeout_ms;
	unsigned int ckpt_slice_ms;	/* CKPT_SLICE_MS or _OLD_MS */
	unsigned int commit_delay_ms;	/* tests: --commit-delay */
	int64_t max_changes;	/* the journal's size cap, in rows */
	int64_t max_bytes;	/* and in bytes (0: none) */
	bool fail_closed;
	bool refuse_unwaited;	/* io_uring, kernel threads: EAGAIN */
	bool new_dirs;		/* VFSB_SUB_NEW_DIRS (newdirs.h) */
	time_t sub_time;	/* the clock before the subscription began */
	time_t ckpt_t;		/* around the call that began the next epoch */
	bool force;
	const char *journal;
	char *pend;		/* read, not yet durable (drain()) */
	size_t npend, pend_cap;
	/* this session's counters, saved at each checkpoint (status) */
	uint64_t intents, records, acks, ack_ns_sum, ack_ns_max, unacked;
	uint64_t oldest_intent_ns;	/* of the batch being stored */
	struct vbj_namer *namer;	/* stored paths: namer.h */
};

static volatile sig_atomic_t want_checkpoint, want_stop, want_reload;

/*
 * The daemon's signals are blocked except while it sleeps (nap(): a
 * ppoll() with wait_mask): a handler can then only run inside a sleep,
 * which ends, and the loop sees its flag before it sleeps again. Taken
 * anywhere else (during a drain, a checkpoint's barrier), a signal
 * would set its flag after the loop looked, and the loop would sleep up
 * to the interval: a reload or a checkpoint asked for not done.
 */
static sigset_t wait_mask;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		want_checkpoint = 1;
	else if (sig == SIGHUP)
		want_reload = 1;
	else
		want_stop = 1;
}

/* Sleeps ms at most, with fds (may be NULL), the signals taken. */
static void nap(struct pollfd *fds, nfds_t n, uint64_t ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = ms % 1000 * 1000000L,
	};

	ppoll(fds, n, &ts, &wait_mask);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static int64_t journal_epoch(struct daemon *d, __u64 module_epoch)
{
	return d->base + (int64_t)module_epoch - 1;
}

static struct fs *fs_of(struct daemon *d, __u32 dev)
{
	int i;

	for (i = 0; i < d->nfs; i++)
		if (d->fs[i].dev == dev)
			return &d->fs[i];
	return NULL;
}

/* This session's counters, for vbjournal status. */
static int save_stats(struct daemon *d)
{
	char v[160];

	snprintf(v, sizeof(v), "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		 " %" PRIu64 " %" PRIu64, d->intents, d->records, d->acks,
		 d->ack_ns_sum, d->ack_ns_max, d->unacked);
	return vbj_meta_set(&d->st, "session_stats", v);
}

/* This boot's id: a restart in the same boot left writes unsupervised. */
static void boot_id(char *buf, size_t sz)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	snprintf(buf, sz, "unknown");
	if (f) {
		if (fgets(buf, sz, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
}

/*
 * ext4 (and ext2/3, which it mounts) counts its read-write mounts in
 * the superblock (s_mnt_count, ext4_setup_super()): a count the daemon
 * did not see means the filesystem was mounted read-write while nobody
 * watched it. Read through the block device's page cache, where the
 * mounted filesystem keeps its superblock. -1: not ext4, or unreadable.
 */
#define EXT4_MAGIC		0xEF53
#define EXT4_SB_OFFSET		1024
#define EXT4_SB_MNT_COUNT	0x34
#define EXT4_SB_MAGIC		0x38

static int ext4_mount_count(int fd)
{
	char uevent[256], dev[sizeof(uevent) + 8] = "", *name;
	unsigned char sb[1024];
	struct statfs sfs;
	struct stat st;
	FILE *f;
	int bfd, ret = -1;

	if (fstatfs(fd, &sfs) || sfs.f_type != EXT4_MAGIC || fstat(fd, &st))
		return -1;
	snprintf(uevent, sizeof(uevent), "/sys/dev/block/%u:%u/uevent",
		 major(st.st_dev), minor(st.st_dev));
	f = fopen(uevent, "r");
	if (!f)
		return -1;
	while (fgets(uevent, sizeof(uevent), f))
		if (!strncmp(uevent, "DEVNAME=", 8)) {
			name = uevent + 8;
			name[strcspn(name, "\n")] = 0;
			snprintf(dev, sizeof(dev), "/dev/%s", name);
		}
	fclose(f);
	bfd = dev[0] ? open(dev, O_RDONLY | O_CLOEXEC) : -1;
	if (bfd < 0)
		return -1;
	if (pread(bfd, sb, sizeof(sb), EXT4_SB_OFFSET) == sizeof(sb) &&
	    (sb[EXT4_SB_MAGIC] | sb[EXT4_SB_MAGIC + 1] << 8) == EXT4_MAGIC)
		ret = sb[EXT4_SB_MNT_COUNT] | sb[EXT4_SB_MNT_COUNT + 1] << 8;
	close(bfd);
	return ret;
}

/*
 * Each filesystem's mount count against the one the journal saw last
 * (same_boot: the same mount; else exactly one mount later, this one):
 * any other count is a gap, an unsupervised read-write mount (or an
 * fsck, which resets it). Then remembers the count. Returns how many
 * gaps it added, or -errno.
 */
static int check_mounts(struct daemon *d, bool same_boot)
{
	char key[48], val[24], why[96];
	int i, ret = 0, gaps = 0;

	for (i = 0; !ret && i < d->nfs; i++) {
		struct fs *f = &d->fs[i];
		long expect;

		f->mounts = ext4_mount_count(f->fd);
		if (f->mounts < 0)
			continue;
		snprintf(key, sizeof(key), "mounts:%" PRId64, f->id);
		if (!vbj_meta_get(&d->st, key, val, sizeof(val))) {
			expect = (strtol(val, NULL, 10) + !same_boot) & 0xffff;
			if (f->mounts != expect) {
				snprintf(why, sizeof(why), "mounted_unsupervised"
					 ": mount count %d, expected %ld",
					 f->mounts, expect);
				ret = vbj_gap_add(&d->st, d->resumed ?
						  vbj_last_epoch(&d->st) :
						  d->base, f->id, "fs",
						  why, f->path);
				gaps++;
			}
		}
		snprintf(val, sizeof(val), "%d", f->mounts);
		if (!ret)
			ret = vbj_meta_set(&d->st, key, val);
	}
	return ret ? ret : gaps;
}

/*
 * A read-write remount while watched counts a mount the daemon saw:
 * the count is kept current at each checkpoint.
 */
static int note_mounts(struct daemon *d)
{
	char key[48], val[24];
	int i, ret = 0;

	for (i = 0; !ret && i < d->nfs; i++) {
		struct fs *f = &d->fs[i];
		int now = f->mounts < 0 ? -1 : ext4_mount_count(f->fd);

		/* btrfs's, XFS's counters (boots.h) */
		ret = vbjd_boots_note(&d->st, f->fd, f->id);
		if (ret)
			break;
		if (now < 0 || now == f->mounts)
			continue;
		f->mounts = now;
		snprintf(key, sizeof(key), "mounts:%" PRId64, f->id);
		snprintf(val, sizeof(val), "%d", now);
		ret = vbj_meta_set(&d->st, key, val);
	}
	return ret;
}

/*
 * A group of write paths that the module could not hook on this kernel
 * (vbctl version: known but not live coverage) announces nothing, so an
 * epoch that opens while one is off gets a gap on every filesystem,
 * stored as it opens: a crash later cannot lose it.
 */
static int coverage_gaps(struct daemon *d, int64_t epoch)
{
	char why[256] = "coverage_incomplete:";
	struct vfsb_version v;
	unsigned int bit;
	__u32 off;
	int i, ret = 0;

	ret = vfsb_get_version(d->dev, &v);
	if (ret)
		return ret;
	off = v.coverage_known & ~v.coverage;
	if (!off)
		return 0;
	for (bit = 0; bit < 32; bit++) {
		const char *name = vfsb_coverage_name(bit);
		size_t len = strlen(why);

		if (off & (1U << bit))
			snprintf(why + len, sizeof(why) - len, " %s",
				 name ? name : "?");
	}
	for (i = 0; !ret && i < d->nfs; i++)
		ret = vbj_gap_add(&d->st, epoch, d->fs[i].id, "fs", why,
				  d->fs[i].path);
	return ret;
}

/* The mount point of the journal's filesystem id, or -1 (newdirs.h). */
static int mount_fd_of(void *arg, int64_t id)
{
	struct daemon *d = arg;
	int i;

	for (i = 0; i < d->nfs; i++)
		if (d->fs[i].id == id)
			return d->fs[i].fd;
	return -1;
}

/*
 * What the epochs left open made without waiting (newdirs.h): moved
 * entries, before those epochs are closed as recovered.
 */
static int recover_new_dirs(struct daemon *d)
{
	int n = vbjd_newdirs_recover(&d->st, mount_fd_of, d);

	if (n < 0)
		return n;
	if (n > 0)
		vbjd_log(LOG_INFO, "recovery: directories made in the "
			 "epochs left open, to be read whole: %d", n);
	return 0;
}

/*
 * Before the first record is read: close what the last session left
 * open and record what it could not have seen. Epochs it left open are
 * recovered: their intents were durable before their changes were made,
 * and those changes have ended (the session, or the machine, did). A
 * session that ended in this same boot (the daemon stopped or died
 * while the system ran) left the filesystems unsupervised: a gap on
 * each, in an epoch of its own, closed at once, between the sessions.
 * The first session of a journal has everything before it as a gap.
 * Across a reboot the service runs before the filesystems are written
 * (vbjournald.service); an ext4 mounted read-write meanwhile elsewhere
 * is caught by its mount count (check_mounts()), a btrfs or XFS by its
 * generation or log head, another filesystem by the new boot itself
 * (boots.h). A subscription resumed from the fd store (fdstore.h) went
 * on meanwhile: no gap, and its open epoch stays open.
 */
static int recover(struct daemon *d, const char *boot)
{
	char clean[8] = "", prev_boot[64] = "";
	const char *why = NULL;
	int i, ret, unsupervised = 0;
	int64_t cur;
	bool first;

	first = vbj_meta_get(&d->st, "session_boot", prev_boot,
			     sizeof(prev_boot)) == -ENOENT;
	vbj_meta_get(&d->st, "session_clean", clean, sizeof(clean));
	if (first)
		why = "journal_created";
	else if (!strcmp(prev_boot, boot))
		why = clean[0] == '1' ? "daemon_stopped" : "daemon_died";
	ret = vbj_begin(&d->st);
	if (ret)
		return ret;
	if (d->resumed) {
		/* the subscription went on: its open epoch too (fdstore.h) */
		why = NULL;
		cur = vbj_last_epoch(&d->st);
		for (i = 0; !ret && i < d->nfs; i++)
			if (d->fs[i].new_watch)
				ret = vbj_gap_add(&d->st, cur, d->fs[i].id,
						  "fs", "daemon_stopped",
						  d->fs[i].path);
	} else {
		ret = recover_new_dirs(d);
		if (!ret)
			ret = vbj_epochs_close(&d->st, INT64_MAX,
					       VBJ_RECOVERED);
		d->base = vbj_last_epoch(&d->st) + 1;
		cur = d->base;
		/* this session's first epoch began with its subscription */
		if (!ret && d->new_dirs)
			ret = vbjd_newdirs_floor(&d->st, d->sub_time);
	}
	if (!ret) {
		unsupervised = check_mounts(d, !first &&
					    !strcmp(prev_boot, boot));
		ret = unsupervised < 0 ? unsupervised : 0;
	}
	/* a boot between that no session saw (boots.h) */
	for (i = 0; !ret && !first && strcmp(prev_boot, boot) && i < d->nfs;
	     i++) {
		int g = vbjd_boots_check(&d->st, d->fs[i].fd, d->fs[i].id,
					 d->fs[i].path, clean[0] == '1',
					 d->base);

		ret = g < 0 ? g : 0;
		unsupervised += g > 0;
	}
	if (!d->resumed && (why || unsupervised > 0)) {
		for (i = 0; why && !ret && i < d->nfs; i++)
			ret = vbj_gap_add(&d->st, d->base, d->fs[i].id, "fs",
					  why, d->fs[i].path);
		if (!ret)
			ret = vbj_epoch_add(&d->st, d->base);
		if (!ret)
			ret = vbj_epochs_close(&d->st, d->base, VBJ_RECOVERED);
		cur = ++d->base;
	}
	if (!ret)
		ret = vbj_epoch_add(&d->st, cur);
	if (!ret)
		ret = coverage_gaps(d, cur);
	if (!ret)
		ret = vbjd_fdstore_note(&d->st, d->base, d->sub);
	if (!ret)
		ret = vbj_meta_set(&d->st, "session_boot", boot);
	if (!ret) {
		char t[24];

		snprintf(t, sizeof(t), "%lld", (long long)time(NULL));
		ret = vbj_meta_set(&d->st, "session_start", t);
	}
	if (!ret)
		ret = save_stats(d);
	if (!ret)
		ret = vbj_meta_set(&d->st, "session_clean", "0");
	/* who runs is the lock's to say (lock.h), not a stored pid */
	if (!ret)
		ret = vbj_exec(&d->st, "DELETE FROM meta WHERE key = 'pid'");
	return ret ? ret : vbj_commit(&d->st);
}

/* The filesystem's name in the journal: its UUID, else its device. */
static void fs_key(int dev, const char *path, char *out, size_t sz)
{
	struct vfsb_sb_stats st;
	bool zero = true;
	int i;

	if (!vfsb_stats_path(dev, path, &st)) {
		for (i = 0; i < 16; i++)
			zero &= !st.fs_uuid[i];
		if (!zero) {
			for (i = 0; i < 16; i++)
				snprintf(out + 2 * i, sz - 2 * i, "%02x",
					 st.fs_uuid[i]);
			return;
		}
	}
	snprintf(out, sz, "dev:%u", st.dev);
}

static int setup_fs(struct daemon *d, const char *boot)
{
	struct vfsb_version v;
	int fds[MAX_FS];
	__u32 flags;
	dev_t jdev;
	int i, ret;

	if (vfsb_path_sb_dev(d->journal, &jdev))
		return -ENOENT;
	for (i = 0; i < d->nfs; i++) {
		struct fs *f = &d->fs[i];
		dev_t sdev;

		f->fd = open(f->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (f->fd < 0) {
			vbjd_log(LOG_ERR, "%s: %s", f->path,
				 strerror(errno));
			return -errno;
		}
		if (!vfsb_fd_sb_dev(f->fd, &sdev) && sdev == jdev && !d->force) {
			vbjd_log(LOG_ERR, "the journal %s is on %s, a "
				 "filesystem it watches: its own writes would be "
				 "in the journal, and a crash of that filesystem "
				 "would take the journal with it (--force)",
				 d->journal, f->path);
			return -EINVAL;
		}
	}
	flags = (d->fail_closed ? VFSB_SUB_FAIL_CLOSED : 0) |
		(d->refuse_unwaited ? VFSB_SUB_REFUSE_UNWAITED : 0);
	/*
	 * A record that names only a directory the journal has in its
	 * epoch merges into the unread one before it, and does not wake
	 * us: store_batch() would store nothing from it. Only where the
	 * module coalesces that way (an older one would drop hard links).
	 */
	if (vfsb_get_version(d->dev, &v))
		v.features = 0;
	if (v.features & VFSB_FEAT_JOURNAL_COALESCE)
		flags |= VFSB_SUB_COALESCE;
	/* changes inside a directory made in the epoch wait for nothing */
	d->new_dirs = v.features & VFSB_FEAT_NEW_DIRS;
	if (d->new_dirs)
		flags |= VFSB_SUB_NEW_DIRS;
	d->ckpt_slice_ms = v.features & VFSB_FEAT_CKPT_KEPT ?
			   CKPT_SLICE_MS : CKPT_SLICE_OLD_MS;
	snprintf(d->sub, sizeof(d->sub), "ring %u flags %u timeout %u",
		 4U << 20, flags, d->timeout_ms);
	for (i = 0; i < d->nfs; i++)
		fds[i] = d->fs[i].fd;
	if (d->resumed && !vbjd_fdstore_resume(d->dev, &d->st, boot, d->sub,
					       fds, d->nfs, &d->base)) {
		const char *paths[MAX_FS];

		for (i = 0; i < d->nfs; i++)
			paths[i] = d->fs[i].path;
		vbjd_fdstore_drop(d->dev, paths, d->nfs);
		d->resumed = false;
		d->dev = vfsb_open_flags(O_NONBLOCK);
		if (d->dev < 0) {
			vbjd_log(LOG_ERR, "%s: %s", VFSB_DEVICE_PATH,
				 strerror(-d->dev));
			return d->dev;
		}
	}
	d->sub_time = time(NULL);
	ret = d->resumed ? 0 :
	      vfsb_subscribe_intent(d->dev, 4U << 20, flags, d->timeout_ms,
				    NULL);
	/* the lower reading: a clock set back meanwhile (newdirs.h) */
	if (time(NULL) < d->sub_time)
		d->sub_time = time(NULL);
	if (ret) {
		vbjd_log(LOG_ERR, "subscribe: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < d->nfs; i++) {
		struct fs *f = &d->fs[i];

		ret = d->resumed ? vbjd_fdstore_watch(d->dev, f->fd, &f->dev) :
		      vfsb_watch_fd(d->dev, f->fd, &f->dev);
		f->new_watch = d->resumed && !ret;
		if (ret > 0)
			ret = 0;
		if (ret) {
			vbjd_log(LOG_ERR, "watch %s: %s", f->path,
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Each watched filesystem's id in the journal (new ones get one). */
static int register_fs(struct daemon *d, const char *boot)
{
	int i, ret;

	(void)boot;
	for (i = 0; i < d->nfs; i++) {
		struct fs *f = &d->fs[i];
		char key[64], ident[48];

		fs_key(d->dev, f->path, key, sizeof(key));
		vbj_fs_ident(f->fd, ident, sizeof(ident));
		ret = vbj_fs_id(&d->st, key, f->path, ident, &f->id);
		if (ret)
			return ret;
	}
	return 0;
}

/* The directory a CHANGE record is about: its parent's handle. */
static int record_dir(struct vfsb_record *r, char *key, int sz)
{
	struct vfsb_rec_item *it = vfsb_rec_item(r, VFSB_ITEM_PARENT_FH);

	if (!it)
		it = vfsb_rec_item(r, VFSB_ITEM_OBJECT_FH);
	if (it && it->len <= sz) {
		memcpy(key, vfsb_item_data(it), it->len);
		return it->len;
	}
	/* no handle: inode number and generation */
	return snprintf(key, sz, "ino:%llu:%u",
			(unsigned long long)(r->parent_ino ? r->parent_ino : r->ino),
			r->parent_ino ? r->parent_generation : r->generation);
}

/* The object's key in the journal: its handle, else ino:gen. */
static int record_object(struct vfsb_record *r, char *key, int sz)
{
	struct vfsb_rec_item *it;

	it = (r->flags & VFSB_RECF_NO_HANDLE) ? NULL :
	     vfsb_rec_item(r, VFSB_ITEM_OBJECT_FH);
	if (it && it->len <= sz) {
		memcpy(key, vfsb_item_data(it), it->len);
		return it->len;
	}
	return snprintf(key, sz, "ino:%llu:%u", (unsigned long long)r->ino,
			r->generation);
}

/* A renamed directory's own key; 0: none. */
static int record_moved_dir(struct vfsb_record *r, char *key, int sz)
{
	if (!(r->flags & VFSB_RECF_DIR) ||
	    !(r->reasons & (VFSB_R_RENAME_FROM | VFSB_R_RENAME_TO)))
		return 0;
	return record_object(r, key, sz);
}

/*
 * A directory whose own attributes the record changes (mode, owner,
 * times, flags, xattrs, ACLs): its key, stored as a change of its own.
 * With VFSB_SUB_NEW_DIRS the module keys such a change by the
 * directory's entries too, and lets later changes inside it go on once
 * that intent is acked (module/intent.h, VFSB_DIR_SELF_REASONS); 0:
 * none.
 */
static int record_self_dir(struct vfsb_record *r, char *key, int sz)
{
	if (!(r->flags & VFSB_RECF_DIR) || !r->ino ||
	    !(r->reasons & (VFSB_R_ATTRIB | VFSB_R_XATTR | VFSB_R_ACL)))
		return 0;
	return record_object(r, key, sz);
}

/* A file (not a directory) the record names: its key; 0: none. */
static int record_file(struct vfsb_record *r, char *key, int sz)
{
	if ((r->flags & VFSB_RECF_DIR) || !r->ino)
		return 0;
	return record_object(r, key, sz);
}

/*
 * The object entries of a CHANGE record, in the transaction of its
 * batch (so before its ack): a file whose record's directory may not
 * lead to its names (VFSB_RECF_LINKS) is an object entry; a hard link
 * made to a file tells a directory where one of its names is.
 */
static int store_object(struct daemon *d, struct fs *f, struct vfsb_record *r,
			const char *dir, int dlen)
{
	int64_t epoch = journal_epoch(d, r->epoch);
	char key[256];
	int len = record_file(r, key, sizeof(key));

	if (len <= 0)
		return 0;
	if (r->flags & VFSB_RECF_LINKS)
		return vbj_object_add(&d->st, epoch, f->id, key, len, r->ino,
				      r->generation, dir, dlen);
	if (r->reasons & VFSB_R_HARDLINK)
		return vbj_object_dir_add(&d->st, epoch, f->id, key, len, dir,
					  dlen);
	return 0;
}

static const char *rescan_reason(__u32 why)
{
	static char buf[128];

	vfsb_rescan_format(why, buf, sizeof(buf));
	return buf;
}

/* One batch of records into the journal; *ack: the seq to ack. */
static int store_batch(struct daemon *d, char *buf, size_t n, __u64 *ack)
{
	struct vfsb_record *r;
	int64_t added = -1;	/* the epoch this transaction has added */
	size_t off;
	int ret = 0;

	for (off = 0; !ret && (r = vfsb_rec_at(buf, n, off)); off += r->size) {
		struct fs *f = fs_of(d, r->dev);
		char key[256];
		int len;

		if (r->seq > *ack)
			*ack = r->seq;
		d->records++;
		if (r->flags & VFSB_RECF_INTENT) {
			d->intents++;
			if (!d->oldest_intent_ns || r->time_ns < d->oldest_intent_ns)
				d->oldest_intent_ns = r->time_ns;
		}
		switch (r->type) {
		case VFSB_REC_CHANGE:
			if (!f || !r->epoch)
				break;
			len = record_dir(r, key, sizeof(key));
			if (journal_epoch(d, r->epoch) != added) {
				added = journal_epoch(d, r->epoch);
				ret = vbj_epoch_add(&d->st, added);
			}
			if (!ret)
				ret = vbj_change_add(&d->st,
						     journal_epoch(d, r->epoch),
						     f->id, key, len);
			if (!ret)
				ret = store_object(d, f, r, key, len);
			len = record_moved_dir(r, key, sizeof(key));
			if (!ret && len > 0)
				ret = vbj_move_add(&d->st,
						   journal_epoch(d, r->epoch),
						   f->id, key, len);
			len = record_self_dir(r, key, sizeof(key));
			if (!ret && len > 0)
				ret = vbj_change_add(&d->st,
						     journal_epoch(d, r->epoch),
						     f->id, key, len);
			break;
		case VFSB_REC_RESCAN:
			/*
			 * Changes that went on without their ack (io_uring,
			 * kernel threads, a fail-open timeout): each one's
			 * record, naming its directory, came before this
			 * notice and is committed with it. The directory is
			 * in the journal; no need to rescan the filesystem.
			 * (A crash before this commit loses both: README.)
			 */
			if (r->reasons == VFSB_RESCAN_INTENT) {
				d->unacked += r->lost;
				break;
			}
			ret = vbj_gap_add(&d->st, vbj_last_epoch(&d->st),
					  f ? f->id : 0, "fs",
					  rescan_reason(r->reasons),
					  f ? f->path : NULL);
			break;
		case VFSB_REC_OVERFLOW: {
			int i;

			/* lost records: every filesystem, to be safe */
			for (i = 0; !ret && i < d->nfs; i++)
				ret = vbj_gap_add(&d->st, vbj_last_epoch(&d->st),
						  d->fs[i].id, "fs", "overflow",
						  d->fs[i].path);
			break;
		}
		case VFSB_REC_UNMOUNT:
			if (f)
				ret = vbj_gap_add(&d->st, vbj_last_epoch(&d->st),
						  f->id, "fs", "unmounted",
						  f->path);
			break;
		}
	}
	return ret;
}

/*
 * A failed transaction's error: -ENOSPC for a full journal disk, -EBUSY
 * for a write lock another connection kept past SQLite's wait (the main
 * loop retries both, acking nothing), else ret as it is.
 */
static int store_errno(struct daemon *d, int ret)
{
	if (!ret)
		return 0;
	if (vbj_disk_full(&d->st))
		return -ENOSPC;
	return vbj_busy(&d->st) ? -EBUSY : ret;
}

/*
 * Reads what there is, stores it durably, then acks it. What was read
 * stays in d->pend until its commit succeeds: a commit that fails (the
 * journal's disk full: -ENOSPC) loses nothing and acks nothing, and the
 * next call stores the same records again before reading more.
 */
static int drain(struct daemon *d)
{
	uint64_t intents = d->intents, records = d->records;
	uint64_t unacked = d->unacked;
	__u64 ack = 0;
	ssize_t n;
	int ret;

	while (d->npend < PEND_MAX) {
		if (d->pend_cap - d->npend < READ_BUF) {
			char *p = realloc(d->pend, d->npend + READ_BUF);

			if (!p)
				return -ENOMEM;
			d->pend = p;
			d->pend_cap = d->npend + READ_BUF;
		}
		n = read(d->dev, d->pend + d->npend, READ_BUF);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			break;
		}
		if (!n)
			break;
		d->npend += n;
	}
	/* nothing read (a checkpoint's slices often): no transaction */
	if (!d->npend)
		return 0;
	ret = vbj_begin(&d->st);
	if (!ret)
		ret = store_batch(d, d->pend, d->npend, &ack);
	if (!ret)
		ret = vbj_commit(&d->st);
	if (ret) {
		ret = store_errno(d, ret);
		if (!sqlite3_get_autocommit(d->st.db))
			vbj_exec(&d->st, "ROLLBACK");
		/* counted again when they are stored */
		d->intents = intents;
		d->records = records;
		d->unacked = unacked;
		return ret;
	}
	d->npend = 0;
	/* durable: the writers waiting for these may go on */
	if (ack)
		ret = vfsb_ack(d->dev, ack);
	if (ack && d->oldest_intent_ns) {
		struct timespec ts;
		uint64_t now, lat;

		/* records carry CLOCK_MONOTONIC: how long the oldest waited */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		lat = now > d->oldest_intent_ns ? now - d->oldest_intent_ns : 0;
		d->acks++;
		d->ack_ns_sum += lat;
		if (lat > d->ack_ns_max)
			d->ack_ns_max = lat;
		d->oldest_intent_ns = 0;
	}
	/* the namer looks up paths; this thread never waits for a lookup */
	if (ack)
		vbj_namer_kick(d->namer, 0);
	if (ack && d->commit_delay_ms) {
		/*
		 * A journal disk that lags, on purpose (the crash test): what
		 * went on without waiting for an ack stays in the ring, not
		 * in the journal, this long. A signal cuts it short.
		 */
		nap(NULL, 0, d->commit_delay_ms);
	}
	return ret;
}

/* Closes the current epoch: when this returns 0 it is durable. */
static int checkpoint(struct daemon *d)
{
	bool trimmed = false;
	__u64 closed;
	time_t t;
	int i, ret;

	do {
		/* acks keep flowing while the barrier waits */
		ret = drain(d);
		if (ret)
			return ret;
		/*
		 * The next epoch begins at the first call, and stays begun
		 * when this returns early to be called again (a drain that
		 * failed): its floor is the clock around that call, the
		 * lower reading of the two (newdirs.h).
		 */
		t = time(NULL);
		ret = vfsb_checkpoint(d->dev, d->ckpt_slice_ms, &closed);
		if (!d->ckpt_t) {
			time_t after = time(NULL);

			d->ckpt_t = after < t ? after : t;
		}
	} while (ret == -ETIMEDOUT || ret == -EINTR);
	if (ret)
		return ret;
	t = d->ckpt_t;
	for (i = 0; i < d->nfs; i++)
		if (syncfs(d->fs[i].fd))
			return -errno;
	ret = drain(d);
	if (ret)
		return ret;
	vbj_namer_kick(d->namer, journal_epoch(d, closed));
	ret = vbj_begin(&d->st);
	if (ret)
		return ret;
	ret = vbj_epoch_add(&d->st, journal_epoch(d, closed));
	if (!ret)
		ret = vbj_epochs_close(&d->st, journal_epoch(d, closed),
				       VBJ_DURABLE);
	if (!ret)
		ret = vbj_epoch_add(&d->st, journal_epoch(d, closed + 1));
	if (!ret)
		ret = coverage_gaps(d, journal_epoch(d, closed + 1));
	if (!ret && d->new_dirs)
		ret = vbjd_newdirs_floor(&d->st, t);
	if (!ret) {
		int64_t was = vbj_first_epoch(&d->st);
		int64_t first = vbj_trim(&d->st, d->max_changes);

		if (first >= 0 && d->max_bytes)
			first = vbj_trim_bytes(&d->st, d->max_bytes);
		ret = first < 0 ? (int)first : 0;
		trimmed = first > was;
	}
	if (!ret)
		ret = note_mounts(d);
	if (!ret)
		ret = save_stats(d);
	if (!ret)
		ret = vbj_commit(&d->st);
	ret = store_errno(d, ret);
	if (ret && !sqlite3_get_autocommit(d->st.db))
		vbj_exec(&d->st, "ROLLBACK");
	if (!ret)
		d->ckpt_t = 0;	/* the next checkpoint begins another epoch */
	/* what the trim freed back to the disk; a failure costs only space */
	if (!ret && trimmed && vbj_compact(&d->st))
		vbjd_log(LOG_WARNING, "compacting the journal failed: %s",
			 d->st.why);
	return ret;
}

/* The namer of this session's filesystems (namer.h). */
static int start_namer(struct daemon *d)
{
	int64_t ids[MAX_FS];
	int fds[MAX_FS], i, ret;

	for (i = 0; i < d->nfs; i++) {
		ids[i] = d->fs[i].id;
		fds[i] = d->fs[i].fd;
	}
	ret = vbj_namer_start(&d->namer, d->st.path, ids, fds, d->nfs);
	if (ret)
		fprintf(stderr, "vbjournald: the namer thread: %s\n",
			strerror(-ret));
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vbjournald --fs PATH [--fs PATH...] --journal DIR [OPTIONS]\n"
		"       vbjournald --config FILE [OPTIONS]\n"
		"       vbjournald --help | --version\n"
		"\n"
		"  --fs PATH           a filesystem to journal (any path on it; up to %d)\n"
		"  --journal DIR       where the journal lives (not on a --fs filesystem)\n"
		"  --interval TIME     between checkpoints (default 5s; ms, s, m, h)\n"
		"  --timeout TIME      a writer's wait for its ack (default 10s)\n"
		"  --fail-closed       a write whose ack does not come fails\n"
		"  --refuse-unwaited   writes that cannot wait fail with EAGAIN\n"
		"  --max-changes N     the journal's size cap in rows (default 10000000)\n"
		"  --max-size SIZE     and in bytes (K, M, G, T; default 0: none)\n"
		"  --force             accept a journal on a journaled filesystem\n"
		"  --verbose           a line per checkpoint (default: quiet)\n"
		"  --config FILE       \"key value\" lines; later options override it\n"
		"  --check-config      print the settings and exit, touching nothing\n"
		"  --commit-delay TIME (tests) after each ack, wait TIME before\n"
		"                      reading and committing more\n"
		"\n"
		"SIGUSR1: checkpoint now; SIGHUP: read the settings again;\n"
		"SIGTERM, SIGINT: checkpoint and stop.\n"
		"exit status: 0 clean stop; 1 error; 2 usage or a bad setting\n",
		VBJD_MAX_FS);
}

/* A usage error: what is wrong, and where to read more. Returns 2. */
#define bad_usage(...) cli_usage_error("vbjournald", __VA_ARGS__)

/* The store's failures, as errors of the daemon's log. */
static void store_log(const char *line)
{
	vbjd_log(LOG_ERR, "%s", line);
}

/* The settings a running daemon follows (reload() changes them). */
static void take_settings(struct daemon *d, const struct vbjd_config *cf)
{
	d->interval_ms = cf->interval_ms;
	d->max_changes = cf->max_changes;
	d->max_bytes = cf->max_bytes;
	vbjd_log_level(cf->verbose ? LOG_DEBUG : LOG_INFO);
}

/*
 * SIGHUP (systemctl reload): the config file and the options read again,
 * in their order. What can change while running does; a bad file
 * changes nothing. Never a checkpoint, never an exit.
 */
static void reload(struct daemon *d, const struct vbjd_config_src *src,
		   struct vbjd_config *cf)
{
	struct vbjd_config new;

	vbjd_notify("RELOADING=1");
	if (vbjd_config_load(&new, src)) {
		vbjd_log(LOG_ERR, "reload: bad settings: kept the ones in force");
		vbjd_config_free(&new);
		vbjd_notify("READY=1\nSTATUS=reload failed: bad settings, "
			    "kept the ones in force");
		return;
	}
	vbjd_config_apply(cf, &new);
	vbjd_config_free(&new);
	take_settings(d, cf);
	vbjd_log(LOG_NOTICE, "reloaded: interval %ums, max-changes %" PRId64
		 ", max-size %" PRId64 ", verbose %s", d->interval_ms,
		 d->max_changes, d->max_bytes, cf->verbose ? "yes" : "no");
	vbjd_notify("READY=1");
}

/* The wait after the n-th failed retry on a full disk: 1 s to 1 min. */
static unsigned int full_backoff_ms(unsigned int n)
{
	return n >= 6 ? 60000 : 1000U << n;
}

/* The journal's step at startup: opening it, or one that writes to it. */
typedef int (*start_step)(struct daemon *d, const char *boot);

static int open_journal(struct daemon *d, const char *boot)
{
	(void)boot;
	return vbj_open(&d->st, d->journal, VBJ_CREATE);
}

/*
 * Runs a startup step until it does not fail on a full disk (a restart
 * or a reboot with the journal's filesystem full): exiting would have
 * the service manager restart the daemon until its start limit, then
 * leave the filesystems unjournaled for good. The step's transaction is
 * rolled back, nothing of it stays; the writers of a subscription taken
 * already wait for their acks meanwhile, as on a full disk later. 0,
 * the step's failure, or -EINTR when asked to stop.
 */
static int until_room(struct daemon *d, start_step step, const char *boot)
{
	unsigned int tries = 0, wait;
	uint64_t since = now_ms();
	int ret;

	for (;;) {
		ret = step(d, boot);
		if (!ret || !(d->st.full || vbj_disk_full(&d->st)))
			break;
		if (d->st.db && !sqlite3_get_autocommit(d->st.db))
			vbj_exec(&d->st, "ROLLBACK");
		/* the next failure is the retry's own */
		d->st.err = VBJ_OK;
		d->st.full = false;
		wait = full_backoff_ms(tries++);
		if (tries == 1)
			vbjd_log(LOG_ERR, "%s: the journal's filesystem is "
				 "full: not starting yet, retrying",
				 d->journal);
		else
			vbjd_log(LOG_DEBUG, "%s: still full, retry in %u ms",
				 d->journal, wait);
		/* not ready yet: the start's time limit waits too */
		vbjd_notify("EXTEND_TIMEOUT_USEC=%llu\nSTATUS=journal disk "
			    "full (%s): starting when there is space, retry "
			    "in %u s", (wait + 60000ULL) * 1000, d->journal,
			    wait / 1000);
		if (want_stop)
			return -EINTR;
		/* a signal ends the sleep: a stop is not kept waiting */
		nap(NULL, 0, wait);
		if (want_stop)
			return -EINTR;
	}
	if (!ret && tries)
		vbjd_log(LOG_NOTICE, "%s: space again after %" PRIu64
			 " s: starting", d->journal, (now_ms() - since) / 1000);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fs", required_argument, NULL, 'f' },
		{ "journal", required_argument, NULL, 'j' },
		{ "interval", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "fail-closed", no_argument, NULL, 'C' },
		{ "refuse-unwaited", no_argument, NULL, 'R' },
		{ "max-changes", required_argument, NULL, 'm' },
		{ "max-size", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'K' },
		{ "commit-delay", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static struct vbjd_config_src src;
	struct daemon d = { 0 };
	struct vbjd_config cf;
	bool check_only = false;
	unsigned long long delay = 0;
	static const int sigs[] = { SIGUSR1, SIGHUP, SIGTERM, SIGINT };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t mask;
	char boot[64];
	uint64_t next, last, wd_usec, wd_next = 0, retry_at = 0, full_since = 0;
	unsigned int full_tries = 0;
	bool full = false, full_busy = false;
	int c, i, ret, lock;
	pid_t holder;

	atexit(cli_close_stdout);
	vbjd_log_init();
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		const char *key = NULL, *val = optarg;

		switch (c) {
		case 'f':
			key = "fs";
			break;
		case 'j':
			key = "journal";
			break;
		case 'i':
			key = "interval";
			break;
		case 't':
			key = "timeout";
			break;
		case 'm':
			key = "max-changes";
			break;
		case 'b':
			key = "max-size";
			break;
		case 'C':
			key = "fail-closed", val = "yes";
			break;
		case 'R':
			key = "refuse-unwaited", val = "yes";
			break;
		case 'F':
			key = "force", val = "yes";
			break;
		case 'v':
			key = "verbose", val = "yes";
			break;
		case 'c':
			/* in order: the options after it override it */
			if (vbjd_config_src_add(&src, optarg, NULL, NULL))
				return 2;
			break;
		case 'K':
			check_only = true;
			break;
		case 'D':
			/* a test's knob: not a setting of the config file */
			if (cli_parse_ms(optarg, 0, 60000, &delay))
				return bad_usage("--commit-delay: '%s' is not a "
						 "time from 0 to 60s", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("vbjournald %s\n", VFSB_VERSION);
			return 0;
		case ':':
			return bad_usage("%s needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return bad_usage("unknown option '-%c'", optopt);
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
		if (key && vbjd_config_src_add(&src, NULL, key, val))
			return 2;
	}
	if (optind != argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (vbjd_config_load(&cf, &src))
		return 2;
	if (check_only) {
		vbjd_config_print(&cf, stdout);
		return 0;
	}
	for (i = 0; i < cf.nfs; i++)
		d.fs[i].path = cf.fs[i];
	d.nfs = cf.nfs;
	d.journal = cf.journal;
	d.timeout_ms = cf.timeout_ms;
	d.commit_delay_ms = delay;
	d.fail_closed = cf.fail_closed;
	d.refuse_unwaited = cf.refuse_unwaited;
	d.force = cf.force;
	take_settings(&d, &cf);
	/*
	 * In this order: the lock (one daemon per journal, before anything
	 * of it is read), the device (no module: nothing is created), then
	 * the journal (created with its id if new) and its recovery.
	 */
	if (mkdir(d.journal, 0700) && errno != EEXIST) {
		vbjd_log(LOG_ERR, "%s: %s", d.journal,
			 strerror(errno));
		return 1;
	}
	/* a stop while it waits for room (until_room()) ends it cleanly */
	sigemptyset(&mask);
	for (i = 0; i < (int)(sizeof(sigs) / sizeof(*sigs)); i++)
		sigaddset(&mask, sigs[i]);
	sigprocmask(SIG_BLOCK, &mask, &wait_mask);
	for (i = 0; i < (int)(sizeof(sigs) / sizeof(*sigs)); i++) {
		sigdelset(&wait_mask, sigs[i]);
		sigaction(sigs[i], &sa, NULL);
	}
	lock = vbj_lock_take(d.journal, &holder);
	if (lock == -EBUSY) {
		if (holder > 0)
			vbjd_log(LOG_ERR, "the journal %s is in use by "
				 "another vbjournald (pid %d)", d.journal,
				 (int)holder);
		else
			vbjd_log(LOG_ERR, "the journal %s is in use by "
				 "another vbjournald", d.journal);
		return 1;
	}
	if (lock < 0) {
		vbjd_log(LOG_ERR, "%s/%s: %s", d.journal,
			 VBJ_LOCK_NAME, strerror(-lock));
		return 1;
	}
	/* the subscription a stopped session left (fdstore.h), or a new one */
	boot_id(boot, sizeof(boot));
	d.dev = vbjd_fdstore_take();
	if (d.dev >= 0 && d.force) {
		/* not with --force: fdstore.h */
		vbjd_fdstore_drop(d.dev, (const char *const *)cf.fs, d.nfs);
		d.dev = -ENOENT;
	}
	d.resumed = d.dev >= 0;
	if (!d.resumed)
		d.dev = vfsb_open_flags(O_NONBLOCK);
	if (d.dev == -ENOENT || d.dev == -ENXIO || d.dev == -ENODEV) {
		vbjd_log(LOG_ERR, "%s not found: is the vfsbarrier "
			 "module loaded? (modprobe vfsbarrier)",
			 VFSB_DEVICE_PATH);
		return 1;
	} else if (d.dev == -EACCES || d.dev == -EPERM) {
		vbjd_log(LOG_ERR, "%s: permission denied: vbjournald "
			 "must run as root", VFSB_DEVICE_PATH);
		return 1;
	} else if (d.dev < 0) {
		vbjd_log(LOG_ERR, "%s: %s", VFSB_DEVICE_PATH,
			 strerror(-d.dev));
		return 1;
	}
	ret = until_room(&d, open_journal, boot);
	if (ret == -EINTR)
		return 0;
	if (ret) {
		vbjd_log(LOG_ERR, "%s", d.st.why);
		return 1;
	}
	/* from now on each failure says itself as it happens */
	d.st.log = true;
	d.st.log_line = store_log;
	ret = setup_fs(&d, boot);
	if (!ret)
		ret = until_room(&d, register_fs, boot);
	if (!ret)
		ret = until_room(&d, recover, boot);
	if (ret == -EINTR)
		return 0;
	if (ret)
		return 1;
	/* what an earlier session acked and could not name yet */
	if (start_namer(&d))
		return 1;
	vbj_namer_kick(d.namer, d.base - 1);
	printf("vbjournald: journal %016" PRIx64 " epoch %" PRId64
	       ", %d filesystems\n", d.st.journal_id, d.base, d.nfs);
	fflush(stdout);
	/* a restart gets the subscription back; not with --force (fdstore.h) */
	c = d.force ? 0 : vbjd_fdstore_put(d.dev);
	if (c)
		vbjd_log(LOG_WARNING, "FDSTORE: %s", strerror(-c));
	vbjd_notify("READY=1\nSTATUS=journaling %d filesystems, epoch %" PRId64,
		    d.nfs, d.base);
	/* a ping at half the watchdog's interval, from a loop that works */
	wd_usec = vbjd_watchdog_usec();
	last = now_ms();
	while (!want_stop) {
		struct pollfd p = { .fd = d.dev, .events = POLLIN };
		uint64_t t = now_ms(), wake;

		next = last + d.interval_ms;
		wake = full ? retry_at : next;
		if (wd_usec && wd_next < wake)
			wake = wd_next;
		/*
		 * A full disk: the device is not read until the retry. The
		 * flags change only inside a nap: a SIGHUP taken in the last
		 * one (the commit delay's) is acted on now. A stop ended the
		 * loop already; a checkpoint asked for was tried after the
		 * drain, and one the journal could not take waits for the
		 * retry like the rest (a wake-up now would spin until then).
		 */
		if (want_reload)
			wake = t;
		nap(&p, full ? 0 : 1, t >= wake ? 0 : wake - t);
		if (wd_usec && now_ms() >= wd_next) {
			vbjd_notify("WATCHDOG=1");
			wd_next = now_ms() + wd_usec / 2000;
		}
		if (want_reload) {
			want_reload = 0;
			reload(&d, &src, &cf);
		}
		if (full && now_ms() < retry_at)
			continue;
		ret = drain(&d);
		if (!ret && (want_checkpoint || now_ms() >= next)) {
			ret = checkpoint(&d);
			if (!ret) {
				want_checkpoint = 0;
				last = now_ms();
				vbjd_log(LOG_DEBUG, "epoch %" PRId64 " durable",
					 vbj_last_closed(&d.st));
				vbjd_notify("STATUS=epoch %" PRId64 " durable, "
					    "%d filesystems",
					    vbj_last_closed(&d.st), d.nfs);
			}
		}
		if (ret == -ENOSPC || ret == -EBUSY) {
			/*
			 * Nothing is acked: the writers wait (up to --timeout,
			 * then as --fail-closed says), nothing read is lost.
			 * EBUSY: another connection (the namer thread, a
			 * consumer registering) kept the journal's write lock
			 * past SQLite's 10 s wait; a slow disk under load can
			 * do that, and it passes: tried again each second.
			 */
			bool busy = ret == -EBUSY;
			unsigned int wait = busy ? 1000 :
					    full_backoff_ms(full_tries++);

			if (!full) {
				full_since = now_ms();
				full_busy = busy;
				vbjd_log(busy ? LOG_WARNING : LOG_ERR,
					 "%s: %s: nothing is acknowledged, "
					 "writers wait; retrying", d.journal,
					 busy ? "the journal stayed locked by "
					 "another connection" :
					 "the journal's filesystem is full");
			} else {
				vbjd_log(LOG_DEBUG, "%s: still %s, retry in "
					 "%u ms", d.journal,
					 busy ? "locked" : "full", wait);
			}
			full = true;
			retry_at = now_ms() + wait;
			vbjd_notify("STATUS=journal %s (%s): not "
				    "acknowledging, retry in %u s",
				    busy ? "locked" : "disk full", d.journal,
				    wait / 1000);
			continue;
		}
		if (ret)
			break;
		if (full) {
			full = false;
			full_tries = 0;
			vbjd_log(LOG_NOTICE, "%s: %s again after %" PRIu64
				 " s: acknowledging", d.journal,
				 full_busy ? "unlocked" : "space",
				 (now_ms() - full_since) / 1000);
			vbjd_notify("STATUS=epoch %" PRId64 " durable, %d "
				    "filesystems", vbj_last_closed(&d.st), d.nfs);
		}
	}
	vbjd_notify("STOPPING=1");
	if (!ret)
		ret = checkpoint(&d);
	if (!ret && !vbj_begin(&d.st)) {
		vbj_meta_set(&d.st, "session_clean", "1");
		ret = vbj_commit(&d.st);
	}
	if (ret)
		vbjd_log(LOG_ERR, "%s", strerror(-ret));
	vbj_namer_stop(d.namer);
	vbj_close(&d.st);
	return ret ? 1 : 0;
}
