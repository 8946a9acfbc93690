// SPDX-License-Identifier: GPL-2.0
/*
 * The record matrix: every write operation of the coverage matrix
 * (test_coverage.c), on tmpfs and on ext4, announces exactly the
 * records it should, with every field right.
 *
 * For each (operation, filesystem) pair, one KTAP result named
 * rm.<fs>.<op>: prepare, drain the ring, run the operation once, drain
 * again, and compare what was read with the row's expectation: which
 * records (reasons, flags, in which directory, under which name, about
 * which object), in which order, and nothing else. Each record is then
 * checked field by field:
 *  - reasons and flags exactly (DIR, EXCHANGE; never NO_HANDLE here:
 *    tmpfs and ext4 encode handles);
 *  - dev (the mount's st_dev), fs_uuid (ext4: the superblock's), pid,
 *    uid, time_ns within the operation, seq increasing, header_size;
 *  - parent_ino, and the PARENT_FH item resolving (open_by_handle_at on
 *    the mount's root) to that directory;
 *  - the NAME item;
 *  - ino/generation and the OBJECT_FH item resolving to the object,
 *    where the object exists before the operation; ino 0 and no
 *    OBJECT_FH where it does not (creations);
 *  - cookie: nonzero and shared by a rename's records, 0 elsewhere;
 *  - offset/length: the byte range of data writes, the new size of a
 *    truncate, 0 elsewhere; lost 0.
 * A row may name errnos meaning "this filesystem cannot do that"
 * (FICLONE, O_DIRECT on tmpfs): a SKIP saying so and how many records
 * the failed call announced (records are pre-modify: a call that fails
 * after its hook has announced itself).
 *
 * The filesystems are mounted, watched and subscribed to once, by the
 * parent process; each test (a forked child) drains the shared ring
 * before and after its operation. Tests run one at a time, and nothing
 * else writes to these mounts, so what the child reads after its
 * operation is exactly what that operation announced.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/fs.h>

#include "vfsb.h"
#include "rec_batch.h"
#include "matrix_fs.h"
#include "write_ops.h"
#include "kselftest_harness.h"

#define DIR_TMPFS	"/tmp/vrm-tmpfs"
#define DIR_EXT4	"/tmp/vrm-ext4"
#define DIR_BTRFS	"/tmp/vrm-btrfs"
#define DIR_XFS	"/tmp/vrm-xfs"

/* ---- expectations ---- */

enum { IN_D = 1, IN_D2 = 2 };

struct exp {
	__u32 reasons;		/* exactly; 0 ends the list */
	__u32 flags;		/* exactly */
	int dir;		/* IN_D or IN_D2: the parent directory */
	const char *name;	/* the NAME item; NULL: none */
	const char *obj;	/* the object, before the operation, in d
				   (or obj_in); NULL: none yet (ino 0, no
				   OBJECT_FH) */
	int obj_in;		/* IN_D2: obj is in d2; 0: in d */
	bool gone;		/* the operation frees the object: its handle
				   may be stale afterwards */
	int cookie;		/* 0: cookie 0; n: nonzero, shared within n */
	__u64 offset, length;
	bool any_order;		/* may come anywhere in the batch */
	const char *what;	/* what it is, for messages */
};

#define EXP_MAX 4

struct row {
	const char *name;
	const char *what;		/* for messages */
	int (*prep)(struct wop_ctx *c);	/* 0 or -errno; may be NULL */
	int (*run)(struct wop_ctx *c);	/* 0 or -errno */
	int unsupported[4];		/* errnos meaning "this fs can't": SKIP */
	struct exp exp[EXP_MAX];
	int none_on_tmpfs;		/* documented: tmpfs announces nothing */
	const char *none_why;
};

/* shorthands for the table */
#define R(x)		VFSB_R_##x
#define NSOP(rs, fl, nm, ob)	{ .reasons = (rs), .flags = (fl), .dir = IN_D, .name = (nm), .obj = (ob) }
#define DATA(off, len)	{ .reasons = R(DATA_WRITE), .dir = IN_D, .obj = "f", \
			  .offset = (off), .length = (len), .what = "the data write" }

/* ---- the fixture: one variant per filesystem ---- */

enum { FS_TMPFS, FS_EXT4, FS_BTRFS, FS_XFS, FS_N };

/* Set up once by the parent (rm_global_setup), inherited by each test. */
static struct matrix_fs g_fs[FS_N] = {
	[FS_TMPFS] = { .name = "tmpfs", .dir = DIR_TMPFS, .watch = true },
	[FS_EXT4] = { .name = "ext4", .dir = DIR_EXT4, .kind = TESTFS_EXT4,
		      .watch = true },
	[FS_BTRFS] = { .name = "btrfs", .dir = DIR_BTRFS, .kind = TESTFS_BTRFS,
		       .watch = true },
	[FS_XFS] = { .name = "xfs", .dir = DIR_XFS, .kind = TESTFS_XFS,
		     .watch = true },
};
static int g_dev = -1, g_sub_err = -EIO;
static __u8 g_uuid[FS_N][16];
static bool g_uuid_known[FS_N];

static struct rec_batch batch;

FIXTURE(rm) {
	struct wop_ctx c;
};

FIXTURE_VARIANT(rm) {
	int fs;
};

FIXTURE_VARIANT_ADD(rm, tmpfs) { .fs = FS_TMPFS };
FIXTURE_VARIANT_ADD(rm, ext4) { .fs = FS_EXT4 };
FIXTURE_VARIANT_ADD(rm, btrfs) { .fs = FS_BTRFS };
FIXTURE_VARIANT_ADD(rm, xfs) { .fs = FS_XFS };

FIXTURE_SETUP(rm)
{
	struct wop_ctx *c = &self->c;

	wop_ctx_init(c, g_fs[variant->fs].name);
	if (g_dev < 0 || g_sub_err || g_fs[variant->fs].err)
		return;
	ASSERT_EQ(0, wop_ctx_dirs(c, g_fs[variant->fs].dir, _metadata->name));
}

FIXTURE_TEARDOWN(rm)
{
	wop_ctx_release(&self->c);
}

#define ULL(x) ((unsigned long long)(x))

static const char *reasons_str(__u32 r, char *buf, size_t sz)
{
	vfsb_reasons_format(r, buf, sz);
	if (!buf[0])
		snprintf(buf, sz, "none");
	return buf;
}

static const char *flags_str(__u32 f, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s%s%s%s%s%s%s%s%s%s%s",
		 f & VFSB_RECF_DIR ? "DIR " : "",
		 f & VFSB_RECF_NO_HANDLE ? "NO_HANDLE " : "",
		 f & VFSB_RECF_EXCHANGE ? "EXCHANGE " : "",
		 f & VFSB_RECF_MORE_DEVS ? "MORE_DEVS " : "",
		 f & VFSB_RECF_UNFENCED ? "UNFENCED " : "",
		 f & VFSB_RECF_REPLACED ? "REPLACED " : "",
		 f & VFSB_RECF_TO_EOF ? "TO_EOF " : "",
		 f & VFSB_RECF_APPEND ? "APPEND " : "",
		 f & VFSB_RECF_OVERWRITE ? "OVERWRITE " : "",
		 f & ~0x1ffU ? "unknown " : "",
		 f ? "" : "0");
	return buf;
}

/* What the row's op and fs print before every problem. */
struct rm_check {
	struct __test_metadata *md;
	const char *op, *fs;
	int problems;
};

static void __attribute__((format(printf, 2, 3)))
bad(struct rm_check *k, const char *fmt, ...)
{
	struct __test_metadata *_metadata = k->md;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	TH_LOG("%s on %s: %s", k->op, k->fs, msg);
	k->problems++;
	_metadata->passed = 0;
}

/* The record as one line, for messages. */
static const char *rec_str(struct vfsb_record *r, int mnt, char *out, size_t sz)
{
	char rs[128], fs[128], nb[NAME_MAX + 1];

	if (r->type != VFSB_REC_CHANGE) {
		snprintf(out, sz, "seq=%llu type=%u lost=%llu", ULL(r->seq),
			 r->type, ULL(r->lost));
		return out;
	}
	snprintf(out, sz,
		 "seq=%llu %s flags=%s parent_ino=%llu (fh->%lld) name='%s' ino=%llu gen=%u (fh->%lld) cookie=%llu range=%llu+%llu items=%u pid=%u tid=%u",
		 ULL(r->seq), reasons_str(r->reasons, rs, sizeof(rs)),
		 flags_str(r->flags, fs, sizeof(fs)), ULL(r->parent_ino),
		 rec_resolve_ino(r, VFSB_ITEM_PARENT_FH, mnt),
		 vfsb_rec_item(r, VFSB_ITEM_NAME) ? vfsb_rec_name(r, nb, sizeof(nb)) : "(none)",
		 ULL(r->ino), r->generation,
		 rec_resolve_ino(r, VFSB_ITEM_OBJECT_FH, mnt),
		 ULL(r->cookie), ULL(r->offset), ULL(r->length), r->nr_items,
		 r->pid, r->tid);
	return out;
}

/* What is known about the expected objects, sampled before the op. */
struct known {
	long long dino[3];		/* by IN_D / IN_D2 */
	long long oino[EXP_MAX];	/* by expectation; -1: none */
	bool ogen_known[EXP_MAX];
	__u32 ogen[EXP_MAX];
	bool odir[EXP_MAX];
};

static void sample(struct wop_ctx *c, const struct row *row, struct known *kn)
{
	const struct exp *e;
	struct stat st;
	char p[PATH_MAX];
	int i, fd;

	kn->dino[IN_D] = ino_of(c->d);
	kn->dino[IN_D2] = ino_of(c->d2);
	for (i = 0; i < EXP_MAX && row->exp[i].reasons; i++) {
		e = &row->exp[i];
		kn->oino[i] = -1;
		kn->ogen_known[i] = false;
		if (!e->obj)
			continue;
		snprintf(p, sizeof(p), "%s/%s", e->obj_in == IN_D2 ? c->d2 : c->d, e->obj);
		if (lstat(p, &st))
			continue;
		kn->oino[i] = st.st_ino;
		kn->odir[i] = S_ISDIR(st.st_mode);
		fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			long g = 0;

			if (!ioctl(fd, FS_IOC_GETVERSION, &g)) {
				kn->ogen_known[i] = true;
				kn->ogen[i] = (__u32)g;
			}
			close(fd);
		}
	}
}

/* The handle item is well formed: a struct file_handle of item length. */
static bool fh_item_ok(struct vfsb_rec_item *it)
{
	struct file_handle *fh = vfsb_item_data(it);

	return it->len >= 8 && fh->handle_bytes > 0 &&
	       fh->handle_bytes <= MAX_HANDLE_SZ && it->len == 8 + fh->handle_bytes;
}

/* Field by field: actual record r against expectation i. */
static void check_fields(struct rm_check *k, struct wop_ctx *c, int fsi,
			 const struct row *row, int i, const struct known *kn,
			 struct vfsb_record *r, __u64 cookies[EXP_MAX + 1])
{
	const struct exp *e = &row->exp[i];
	const char *dname = e->dir == IN_D2 ? c->d2 : c->d;
	const char *oname = e->obj_in == IN_D2 ? c->d2 : c->d;
	char rs[128], ers[128], fs[128], efs[128], nb[NAME_MAX + 1], line[1024];
	struct vfsb_rec_item *it;
	long long res;
	int want_items;

	rec_str(r, g_fs[fsi].root, line, sizeof(line));
	if (r->reasons != e->reasons)
		bad(k, "expected %s: reasons %s, got %s [%s]",
		    e->what ? e->what : "record", reasons_str(e->reasons, ers, sizeof(ers)),
		    reasons_str(r->reasons, rs, sizeof(rs)), line);
	if (r->flags != e->flags)
		bad(k, "%s record: flags %s, expected %s [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)),
		    flags_str(r->flags, fs, sizeof(fs)),
		    flags_str(e->flags, efs, sizeof(efs)), line);
	/* the directory, by number and by handle */
	if ((long long)r->parent_ino != kn->dino[e->dir])
		bad(k, "%s record: parent_ino %llu, expected %lld (%s) [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->parent_ino),
		    kn->dino[e->dir], dname, line);
	it = vfsb_rec_item(r, VFSB_ITEM_PARENT_FH);
	if (!it) {
		bad(k, "%s record: no PARENT_FH item [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), line);
	} else if (!fh_item_ok(it)) {
		bad(k, "%s record: malformed PARENT_FH item (len %u) [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), it->len, line);
	} else {
		res = rec_resolve_ino(r, VFSB_ITEM_PARENT_FH, g_fs[fsi].root);
		if (res != kn->dino[e->dir])
			bad(k, "%s record: PARENT_FH resolves to %lld (%s), expected ino %lld (%s) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), res,
			    res < 0 ? strerror(-res) : "ino", kn->dino[e->dir], dname, line);
	}
	/* the name */
	it = vfsb_rec_item(r, VFSB_ITEM_NAME);
	if (e->name && (!it || strcmp(vfsb_rec_name(r, nb, sizeof(nb)), e->name)))
		bad(k, "%s record: name '%s', expected '%s' [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)),
		    it ? vfsb_rec_name(r, nb, sizeof(nb)) : "(no NAME item)", e->name, line);
	if (!e->name && it)
		bad(k, "%s record: unexpected NAME item '%s' [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)),
		    vfsb_rec_name(r, nb, sizeof(nb)), line);
	/* the object */
	it = vfsb_rec_item(r, VFSB_ITEM_OBJECT_FH);
	if (e->obj && kn->oino[i] < 0) {
		bad(k, "test bug: object %s/%s did not exist before the op", oname, e->obj);
	} else if (e->obj) {
		if ((long long)r->ino != kn->oino[i])
			bad(k, "%s record '%s': ino %llu, expected %lld (%s/%s) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    e->name ? e->name : "", ULL(r->ino), kn->oino[i], oname,
			    e->obj, line);
		if (kn->ogen_known[i] && r->generation != kn->ogen[i])
			bad(k, "%s record: generation %u, expected %u (%s) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    r->generation, kn->ogen[i], e->obj, line);
		if (!it) {
			bad(k, "%s record: no OBJECT_FH item for existing %s [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), e->obj, line);
		} else if (!fh_item_ok(it)) {
			bad(k, "%s record: malformed OBJECT_FH item (len %u) [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), it->len, line);
		} else {
			res = rec_resolve_ino(r, VFSB_ITEM_OBJECT_FH, g_fs[fsi].root);
			if (res != kn->oino[i] && !(e->gone && res == -ESTALE))
				bad(k, "%s record: OBJECT_FH resolves to %lld (%s), expected ino %lld (%s/%s) [%s]",
				    reasons_str(e->reasons, ers, sizeof(ers)), res,
				    res < 0 ? strerror(-res) : "ino", kn->oino[i],
				    oname, e->obj, line);
		}
	} else {
		if (r->ino || r->generation)
			bad(k, "%s record: ino %llu gen %u for an object that does not exist yet [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->ino),
			    r->generation, line);
		if (it)
			bad(k, "%s record: OBJECT_FH for an object that does not exist yet [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)), line);
	}
	want_items = 1 + (e->obj ? 1 : 0) + (e->name ? 1 : 0);
	if (r->nr_items != (__u32)want_items)
		bad(k, "%s record: %u items, expected %d [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), r->nr_items,
		    want_items, line);
	/* cookie */
	if (!e->cookie && r->cookie)
		bad(k, "%s record: cookie %llu, expected 0 [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->cookie), line);
	if (e->cookie && !r->cookie)
		bad(k, "%s record: cookie 0, expected a nonzero one [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), line);
	if (e->cookie && r->cookie) {
		if (!cookies[e->cookie])
			cookies[e->cookie] = r->cookie;
		else if (cookies[e->cookie] != r->cookie)
			bad(k, "%s record: cookie %llu, but its pair has %llu [%s]",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    ULL(r->cookie), ULL(cookies[e->cookie]), line);
	}
	/* range (data), new size (truncate) */
	if (r->offset != e->offset || r->length != e->length)
		bad(k, "%s record: offset/length %llu+%llu, expected %llu+%llu [%s]",
		    reasons_str(e->reasons, ers, sizeof(ers)), ULL(r->offset),
		    ULL(r->length), ULL(e->offset), ULL(e->length), line);
	if (r->lost)
		bad(k, "CHANGE record with lost=%llu [%s]", ULL(r->lost), line);
}

/* Checks every record has: header, identity, time, items in bounds. */
static void check_common(struct rm_check *k, int fsi, struct vfsb_record *r,
			 __u64 t0, __u64 t1, __u64 *last_seq)
{
	char line[1024];
	struct vfsb_rec_item *it;
	__u32 n;

	rec_str(r, g_fs[fsi].root, line, sizeof(line));
	if (r->header_size != sizeof(struct vfsb_record) || r->size % 8 ||
	    r->size < r->header_size || r->size > VFSB_RECORD_MAX)
		bad(k, "bad record size %u / header_size %u [%s]", r->size,
		    r->header_size, line);
	it = vfsb_rec_first_item(r);
	for (n = 0; n < r->nr_items; n++, it = vfsb_rec_next_item(it)) {
		if ((char *)(it + 1) > (char *)r + r->size ||
		    (char *)vfsb_rec_next_item(it) > (char *)r + r->size) {
			bad(k, "item %u runs past the record's end [%s]", n, line);
			break;
		}
		if (it->type < VFSB_ITEM_PARENT_FH || it->type > VFSB_ITEM_NAME ||
		    it->reserved)
			bad(k, "item %u: type %u reserved %u [%s]", n, it->type,
			    it->reserved, line);
	}
	if (r->seq <= *last_seq)
		bad(k, "seq %llu after %llu: not increasing", ULL(r->seq), ULL(*last_seq));
	*last_seq = r->seq;
	if (r->type != VFSB_REC_CHANGE)
		return;
	if (makedev(major(r->dev), minor(r->dev)) != g_fs[fsi].st_dev)
		bad(k, "dev %u:%u, expected %u:%u [%s]", major(r->dev), minor(r->dev),
		    major(g_fs[fsi].st_dev), minor(g_fs[fsi].st_dev), line);
	if (g_uuid_known[fsi] && memcmp(r->fs_uuid, g_uuid[fsi], 16))
		bad(k, "fs_uuid is not the superblock's [%s]", line);
	if (r->pid != (__u32)getpid())
		bad(k, "pid %u, expected %d [%s]", r->pid, getpid(), line);
	if (r->uid != (__u32)geteuid())
		bad(k, "uid %u, expected %u [%s]", r->uid, geteuid(), line);
	if (r->time_ns < t0 || r->time_ns > t1)
		bad(k, "time_ns %llu outside the operation [%llu, %llu] [%s]",
		    ULL(r->time_ns), ULL(t0), ULL(t1), line);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool rm_unsupported(const struct row *row, int err)
{
	return wop_errno_in(row->unsupported, sizeof(row->unsupported) /
			    sizeof(row->unsupported[0]), err);
}

/* A candidate for expectation e: same reasons, name and directory. */
static bool rm_candidate(const struct exp *e, const struct known *kn,
			 struct vfsb_record *r, int strict)
{
	char nb[NAME_MAX + 1];
	bool has_name = vfsb_rec_item(r, VFSB_ITEM_NAME);

	if (r->type != VFSB_REC_CHANGE)
		return false;
	if (strict >= 1 && r->reasons != e->reasons)
		return false;
	if (strict >= 2 && (e->name ? !has_name || strcmp(vfsb_rec_name(r, nb, sizeof(nb)), e->name)
				    : has_name))
		return false;
	if (strict >= 3 && (long long)r->parent_ino != kn->dino[e->dir])
		return false;
	return true;
}

static void rm_run(struct __test_metadata *_metadata,
		   FIXTURE_DATA(rm) *self,
		   const FIXTURE_VARIANT(rm) *variant,
		   const struct row *row)
{
	struct wop_ctx *c = &self->c;
	int fsi = variant->fs;
	struct rm_check k = { .md = _metadata, .op = row->name, .fs = c->fs };
	int match[REC_MAX], owner[EXP_MAX];
	__u64 cookies[EXP_MAX + 1] = { 0 };
	__u64 t0, t1, last_seq = 0;
	struct known kn;
	char line[1024], ers[128];
	int i, j, n_exp, n_change = 0, strict, prev = -1, ret;

	ASSERT_LE(0, g_dev) TH_LOG("open " VFSB_DEVICE_PATH ": %s", strerror(-g_dev));
	ASSERT_EQ(0, g_sub_err) TH_LOG("VFSB_IOC_SUBSCRIBE: %s", strerror(-g_sub_err));
	if (g_fs[fsi].kind != TESTFS_TMPFS && g_fs[fsi].err == -ENODEV)
		SKIP(return, "%s on %s: no scratch disk for it, or no such filesystem in this kernel",
		     row->name, g_fs[fsi].name);
	ASSERT_EQ(0, g_fs[fsi].err) TH_LOG("mounting/watching %s failed: %s",
					   g_fs[fsi].name, strerror(-g_fs[fsi].err));
	for (n_exp = 0; n_exp < EXP_MAX && row->exp[n_exp].reasons; n_exp++)
		;
	if (row->prep) {
		ret = row->prep(c);
		if (ret && rm_unsupported(row, ret))
			SKIP(return, "%s on %s: not supported by %s (%s while preparing)",
			     row->name, c->fs, c->fs, strerror(-ret));
		ASSERT_EQ(0, ret) TH_LOG("%s on %s: preparing failed: %s",
					 row->name, c->fs, strerror(-ret));
	}
	sample(c, row, &kn);
	ASSERT_LT(0, kn.dino[IN_D]);
	ASSERT_LT(0, kn.dino[IN_D2]);
	/* what the preparation announced is not this row's business */
	ASSERT_EQ(0, rec_drain(g_dev, &batch));

	t0 = now_ns();
	ret = row->run(c);
	t1 = now_ns();
	ASSERT_EQ(0, rec_drain(g_dev, &batch)) TH_LOG("%s on %s: reading records: %s",
						      row->name, c->fs, strerror(errno));
	if (ret && rm_unsupported(row, ret)) {
		for (i = 0; i < batch.n; i++)
			TH_LOG("%s on %s (failed call) announced: %s", row->name, c->fs,
			       rec_str(batch.rec[i], g_fs[fsi].root, line, sizeof(line)));
		SKIP(return, "%s on %s: not supported by %s (%s); the failed call announced %d record(s)",
		     row->name, c->fs, c->fs, strerror(-ret), batch.n);
	}
	ASSERT_EQ(0, ret) TH_LOG("%s (%s) on %s failed: %s",
				 row->name, row->what, c->fs, strerror(-ret));

	if (row->none_on_tmpfs && fsi == FS_TMPFS && batch.n == 0)
		SKIP(return, "%s on tmpfs: no record, as documented: %s",
		     row->name, row->none_why);

	for (i = 0; i < batch.n; i++) {
		check_common(&k, fsi, batch.rec[i], t0, t1, &last_seq);
		if (batch.rec[i]->type == VFSB_REC_OVERFLOW)
			bad(&k, "an OVERFLOW record (lost %llu): the ring should never fill here",
			    ULL(batch.rec[i]->lost));
		else if (batch.rec[i]->type == VFSB_REC_CHANGE)
			n_change++;
		else
			bad(&k, "record of unknown type %u", batch.rec[i]->type);
		match[i] = -1;
	}

	/*
	 * Pair each expectation with a record: the best candidate first
	 * (same reasons, name and directory), looser ones after, so that a
	 * wrong field is reported as such rather than as missing + extra.
	 */
	for (j = 0; j < n_exp; j++)
		owner[j] = -1;
	for (strict = 3; strict >= 0; strict--) {
		for (j = 0; j < n_exp; j++) {
			if (owner[j] >= 0)
				continue;
			for (i = 0; i < batch.n; i++) {
				if (match[i] < 0 &&
				    rm_candidate(&row->exp[j], &kn, batch.rec[i], strict)) {
					match[i] = j;
					owner[j] = i;
					break;
				}
			}
		}
	}
	for (j = 0; j < n_exp; j++) {
		const struct exp *e = &row->exp[j];

		if (owner[j] < 0) {
			bad(&k, "missing: %s record%s%s%s in %s%s%s",
			    reasons_str(e->reasons, ers, sizeof(ers)),
			    e->name ? " '" : "", e->name ? e->name : "", e->name ? "'" : "",
			    e->dir == IN_D2 ? c->d2 : c->d,
			    e->what ? ": " : "", e->what ? e->what : "");
			continue;
		}
		check_fields(&k, c, fsi, row, j, &kn, batch.rec[owner[j]], cookies);
		if (!e->any_order) {
			if (owner[j] < prev)
				bad(&k, "%s record '%s' came before the one expected ahead of it",
				    reasons_str(e->reasons, ers, sizeof(ers)),
				    e->name ? e->name : "");
			prev = owner[j];
		}
	}
	for (i = 0; i < batch.n; i++) {
		if (match[i] >= 0 || batch.rec[i]->type != VFSB_REC_CHANGE)
			continue;
		for (j = 0; j < i; j++)
			if (batch.rec[j]->type == VFSB_REC_CHANGE &&
			    batch.rec[j]->size == batch.rec[i]->size &&
			    batch.rec[j]->reasons == batch.rec[i]->reasons &&
			    batch.rec[j]->ino == batch.rec[i]->ino &&
			    batch.rec[j]->offset == batch.rec[i]->offset &&
			    batch.rec[j]->length == batch.rec[i]->length &&
			    !memcmp((char *)batch.rec[j] + batch.rec[j]->header_size,
				    (char *)batch.rec[i] + batch.rec[i]->header_size,
				    batch.rec[i]->size - batch.rec[i]->header_size))
				break;
		bad(&k, "unexpected %s record #%d of %d%s: %s",
		    j < i ? "duplicate" : "extra", i + 1, batch.n,
		    j < i ? " (same as an earlier one but for seq/time)" : "",
		    rec_str(batch.rec[i], g_fs[fsi].root, line, sizeof(line)));
	}
	if (k.problems) {
		TH_LOG("%s (%s) on %s: expected %d record(s), got %d; all of them:",
		       row->name, row->what, c->fs, n_exp, n_change);
		for (i = 0; i < batch.n; i++)
			TH_LOG("  #%d %s", i + 1,
			       rec_str(batch.rec[i], g_fs[fsi].root, line, sizeof(line)));
		return;
	}
	TH_LOG("%s on %s: %d record(s), as expected%s", row->name, c->fs, n_change,
	       g_uuid_known[fsi] ? " (fs_uuid checked)" : "");
	for (i = 0; i < batch.n; i++)
		TH_LOG("  #%d %s", i + 1,
		       rec_str(batch.rec[i], g_fs[fsi].root, line, sizeof(line)));
}

/* One row of the table: a struct row, and one TEST_F. */
#define ROW(n, desc, prep_fn, ...) \
	static const struct row row_##n = { \
		.name = #n, .what = desc, .prep = prep_fn, .run = wop_##n, \
		__VA_ARGS__ \
	}; \
	TEST_F(rm, n) \
	{ \
		rm_run(_metadata, self, variant, &row_##n); \
	}

/* ---- namespace operations ---- */

/* one CREATE in d: the name, no object yet */
ROW(open_creat, "open(O_CREAT|O_EXCL) of a new file", NULL,
    .exp = { NSOP(R(CREATE), 0, "new", NULL) })
/* O_TRUNC has nothing to truncate in a file just created: one CREATE */
ROW(open_creat_trunc, "open(O_CREAT|O_TRUNC) of a new file", NULL,
    .exp = { NSOP(R(CREATE), 0, "new", NULL) })
/* one TRUNCATE to size 0 of the existing f */
ROW(open_trunc, "open(O_TRUNC) of an existing file", wop_prep_file,
    .exp = { NSOP(R(TRUNCATE), 0, "f", "f") })
ROW(mkdir, "mkdir", NULL,
    .exp = { NSOP(R(CREATE), VFSB_RECF_DIR, "newdir", NULL) })
ROW(mknod_fifo, "mknod(S_IFIFO)", NULL,
    .exp = { NSOP(R(CREATE), 0, "fifo", NULL) })
ROW(symlink, "symlink", NULL,
    .exp = { NSOP(R(CREATE), 0, "sl", NULL) })
/* one HARDLINK: the new name, the object linked */
ROW(link, "link", wop_prep_file,
    .exp = { NSOP(R(HARDLINK), 0, "f2", "f") })
ROW(unlink, "unlink", wop_prep_file,
    .exp = { { .reasons = R(DELETE), .dir = IN_D, .name = "f", .obj = "f", .gone = true } })
ROW(rmdir, "rmdir", wop_prep_dir,
    .exp = { { .reasons = R(DELETE), .flags = VFSB_RECF_DIR, .dir = IN_D,
	       .name = "sub", .obj = "sub", .gone = true } })
/* a rename: FROM (old dir, old name), then TO (new dir, new name), both
   about the object moved, sharing a nonzero cookie */
ROW(rename, "rename in one directory", wop_prep_file,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 } })
ROW(rename_crossdir, "rename across directories", wop_prep_file,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D2, .name = "moved", .obj = "f", .cookie = 1 } })
/* a directory: both records flagged DIR */
ROW(rename_dir_crossdir, "rename of a directory across directories", wop_prep_dir,
    .exp = { { .reasons = R(RENAME_FROM), .flags = VFSB_RECF_DIR, .dir = IN_D,
	       .name = "sub", .obj = "sub", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .flags = VFSB_RECF_DIR, .dir = IN_D2,
	       .name = "sub2", .obj = "sub", .cookie = 1 } })
/*
 * over an existing g: the pair, TO flagged OVERWRITE, and the object
 * that was g deleted by name (flagged REPLACED, same cookie): a
 * consumer learns that an object disappeared, not only that f moved
 */
ROW(rename_replace, "rename over an existing file", wop_prep_two_files,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .flags = VFSB_RECF_OVERWRITE, .dir = IN_D,
	       .name = "g", .obj = "f", .cookie = 1 },
	     { .reasons = R(DELETE), .flags = VFSB_RECF_REPLACED, .dir = IN_D,
	       .name = "g", .obj = "g", .gone = true, .cookie = 1 } })
ROW(renameat2_noreplace, "renameat2(RENAME_NOREPLACE)", wop_prep_file,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 } })
/*
 * RENAME_EXCHANGE: both names move both ways, so both records are
 * FROM|TO, flagged EXCHANGE, sharing a cookie. Each is about the object
 * that was under its name (as a FROM record is): f's record about f,
 * g's about g. Both objects are then known by number and handle (and the
 * DIR flag is right for each name); naming f in both would leave g's
 * object unknown.
 */
ROW(renameat2_exchange, "renameat2(RENAME_EXCHANGE) of two files", wop_prep_two_files,
    .exp = { { .reasons = R(RENAME_FROM) | R(RENAME_TO), .flags = VFSB_RECF_EXCHANGE,
	       .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_FROM) | R(RENAME_TO), .flags = VFSB_RECF_EXCHANGE,
	       .dir = IN_D, .name = "g", .obj = "g", .cookie = 1 } })
ROW(renameat2_exchange_dir, "renameat2(RENAME_EXCHANGE) of a file and a directory", wop_prep_file_and_dir,
    .exp = { { .reasons = R(RENAME_FROM) | R(RENAME_TO), .flags = VFSB_RECF_EXCHANGE,
	       .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_FROM) | R(RENAME_TO),
	       .flags = VFSB_RECF_EXCHANGE | VFSB_RECF_DIR,
	       .dir = IN_D, .name = "sub", .obj = "sub", .cookie = 1 } })
/*
 * RENAME_WHITEOUT: the pair, and a new entry: the whiteout (a 0:0
 * character device) left under the old name. overlayfs renames lower
 * files on its upper layer this way, so a journal that misses it brings
 * the lower file back.
 */
ROW(renameat2_whiteout, "renameat2(RENAME_WHITEOUT)", wop_prep_file,
    .unsupported = { EINVAL, EOPNOTSUPP },
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 },
	     { .reasons = R(CREATE), .dir = IN_D, .name = "f", .any_order = true,
	       .what = "the whiteout created under the old name" } })

/* ---- attributes: one record about f, in d, under its name ---- */

ROW(chmod, "chmod", wop_prep_file, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(fchmod, "fchmod", wop_prep_fd, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(chown, "chown", wop_prep_file, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(fchown, "fchown", wop_prep_fd, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(utimensat, "utimensat(path, NULL)", wop_prep_file, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(futimens, "futimens(fd, NULL)", wop_prep_fd, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
/* TRUNCATE: offset is the new size */
ROW(truncate, "truncate(path, 7)", wop_prep_file,
    .exp = { { .reasons = R(TRUNCATE), .dir = IN_D, .name = "f", .obj = "f", .offset = 7 } })
ROW(ftruncate, "ftruncate(fd, 7)", wop_prep_fd,
    .exp = { { .reasons = R(TRUNCATE), .dir = IN_D, .name = "f", .obj = "f", .offset = 7 } })
ROW(setxattr, "setxattr(trusted.*)", wop_prep_file, .exp = { NSOP(R(XATTR), 0, "f", "f") })
ROW(fsetxattr, "fsetxattr(trusted.*)", wop_prep_fd, .exp = { NSOP(R(XATTR), 0, "f", "f") })
ROW(removexattr, "removexattr(trusted.*)", wop_prep_xattr, .exp = { NSOP(R(XATTR), 0, "f", "f") })
ROW(fremovexattr, "fremovexattr(trusted.*)", wop_prep_xattr, .exp = { NSOP(R(XATTR), 0, "f", "f") })

/* ---- data: one DATA_WRITE about f (no name), the byte range ---- */

ROW(write, "write(64) at file position 0", wop_prep_fd, .exp = { DATA(0, 64) })
ROW(pwrite64, "pwrite64(64 at 1000)", wop_prep_fd, .exp = { DATA(1000, 64) })
/* one rw_verify_area for the whole vector: one record, 10+20 bytes */
ROW(writev, "writev(10+20) at file position 0", wop_prep_fd, .exp = { DATA(0, 30) })
ROW(pwritev2, "pwritev2(10+20 at 500, flags 0)", wop_prep_fd, .exp = { DATA(500, 30) })
ROW(pwritev2_dsync, "pwritev2(10+20 at 500, RWF_DSYNC)", wop_prep_fd, .exp = { DATA(500, 30) })
ROW(sendfile, "sendfile(4096) into f", wop_prep_src_dst, .exp = { DATA(0, WOP_BUFSZ) })
ROW(splice, "splice(4096) from a pipe into f", wop_prep_pipe, .exp = { DATA(0, WOP_BUFSZ) })
ROW(copy_file_range, "copy_file_range(4096) s -> f", wop_prep_src_dst, .exp = { DATA(0, WOP_BUFSZ) })
ROW(fallocate, "fallocate(0, 64 KiB)", wop_prep_fd, .exp = { DATA(0, 65536) })
/* FICLONE of the whole of s: length 0 and TO_EOF, from 0 to the end */
ROW(ficlone, "ioctl(FICLONE)", wop_prep_twins,
    .unsupported = { EOPNOTSUPP, EINVAL, EXDEV },
    .exp = { { .reasons = R(DATA_WRITE), .flags = VFSB_RECF_TO_EOF, .dir = IN_D,
	       .obj = "f", .what = "the whole file cloned over" } })
ROW(fideduperange, "ioctl(FIDEDUPERANGE)", wop_prep_twins,
    .unsupported = { EOPNOTSUPP, EINVAL, EXDEV }, .exp = { DATA(0, WOP_BUFSZ) })

/* O_APPEND: offset is f's size when announced (100), flagged APPEND */
ROW(append_write, "write(64) to an O_APPEND file of 100 bytes", wop_prep_file,
    .exp = { { .reasons = R(DATA_WRITE), .flags = VFSB_RECF_APPEND, .dir = IN_D,
	       .obj = "f", .offset = 100, .length = 64, .what = "the append" } })
/* collapsing moves everything after the range: from 4096 to the end */
ROW(fallocate_collapse, "fallocate(COLLAPSE_RANGE, 4096, 4096) of 3 pages",
    wop_prep_fd_3pages, .unsupported = { EOPNOTSUPP, EINVAL },
    .exp = { { .reasons = R(DATA_WRITE), .flags = VFSB_RECF_TO_EOF, .dir = IN_D,
	       .obj = "f", .offset = WOP_BUFSZ, .what = "the range and all after" } })

/* ---- attributes beyond setattr ---- */

ROW(chattr, "ioctl(FS_IOC_SETFLAGS, +noatime)", wop_prep_fd,
    .unsupported = { ENOTTY, EOPNOTSUPP }, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(fssetxattr, "ioctl(FS_IOC_FSSETXATTR, +noatime)", wop_prep_fd,
    .unsupported = { ENOTTY, EOPNOTSUPP }, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
/* needs the filesystem's verity feature (ext4 here) and CONFIG_FS_VERITY */
ROW(verity_enable, "ioctl(FS_IOC_ENABLE_VERITY)", wop_prep_file,
    .unsupported = { ENOTTY, EOPNOTSUPP }, .exp = { NSOP(R(ATTRIB), 0, "f", "f") })
ROW(fscrypt_policy, "ioctl(FS_IOC_SET_ENCRYPTION_POLICY) v1 on an empty directory",
    wop_prep_dir, .unsupported = { ENOTTY, EOPNOTSUPP },
    .exp = { NSOP(R(ATTRIB), VFSB_RECF_DIR, "sub", "sub") })

/* ---- asynchronous interfaces ---- */

ROW(uring_write, "io_uring IORING_OP_WRITE(4096 at 0)", wop_prep_ring, .exp = { DATA(0, WOP_BUFSZ) })
ROW(uring_write_async, "io_uring IORING_OP_WRITE with IOSQE_ASYNC (io-wq)", wop_prep_ring,
    .exp = { DATA(0, WOP_BUFSZ) })
ROW(uring_writev, "io_uring IORING_OP_WRITEV(100+200 at 0)", wop_prep_ring, .exp = { DATA(0, 300) })
ROW(uring_fallocate, "io_uring IORING_OP_FALLOCATE(0, 64 KiB)", wop_prep_ring,
    .exp = { DATA(0, 65536) })
ROW(uring_mkdirat, "io_uring IORING_OP_MKDIRAT", wop_prep_ring_dir,
    .exp = { NSOP(R(CREATE), VFSB_RECF_DIR, "ringdir", NULL) })
ROW(uring_renameat, "io_uring IORING_OP_RENAMEAT", wop_prep_ring_dir,
    .exp = { { .reasons = R(RENAME_FROM), .dir = IN_D, .name = "f", .obj = "f", .cookie = 1 },
	     { .reasons = R(RENAME_TO), .dir = IN_D, .name = "renamed", .obj = "f", .cookie = 1 } })
ROW(aio_write, "Linux AIO IOCB_CMD_PWRITE(4096 at 0)", wop_prep_aio, .exp = { DATA(0, WOP_BUFSZ) })
ROW(aio_writev, "Linux AIO IOCB_CMD_PWRITEV(100+200 at 0)", wop_prep_aio, .exp = { DATA(0, 300) })
/* O_DIRECT: ext4 (tmpfs has no O_DIRECT on 6.1) */
ROW(uring_write_odirect, "io_uring IORING_OP_WRITE(4096 at 0) on an O_DIRECT file",
    wop_prep_ring_odirect, .unsupported = { EINVAL }, .exp = { DATA(0, WOP_BUFSZ) })
ROW(aio_write_odirect, "Linux AIO IOCB_CMD_PWRITE(4096 at 0) on an O_DIRECT file",
    wop_prep_aio_odirect, .unsupported = { EINVAL }, .exp = { DATA(0, WOP_BUFSZ) })

/* ---- shared writable mapping: the write fault of the second page ---- */

ROW(mmap_store, "a store into a clean page of a MAP_SHARED mapping", wop_prep_map,
    .exp = { { .reasons = R(MMAP_WRITE), .dir = IN_D, .obj = "f",
	       .offset = WOP_BUFSZ, .length = WOP_BUFSZ, .what = "the page made writable" } },
    .none_on_tmpfs = 1,
    .none_why = "tmpfs has no ->page_mkwrite, its mapped pages are writable at once (README, coverage)")

/* ---- once per run, in the parent ---- */

/* The ext4 superblock's s_uuid, from the device: 16 bytes at 1024 + 0x68. */
static bool ext4_uuid(__u8 out[16])
{
	const char *dev = getenv("VFSB_SCRATCH_DEV");
	int fd = dev ? open(dev, O_RDONLY | O_CLOEXEC) : -1;
	bool ok;
	int i;

	if (fd < 0)
		return false;
	ok = pread(fd, out, 16, 1024 + 0x68) == 16;
	close(fd);
	/* mkfs makes a random one: all zero would check nothing */
	for (i = 0; ok && i < 16; i++)
		if (out[i])
			return true;
	return false;
}

static void __attribute__((constructor(200))) rm_global_setup(void)
{
	g_dev = matrix_fs_setup(g_fs, FS_N);
	if (g_dev < 0)
		return;
	g_uuid_known[FS_EXT4] = !g_fs[FS_EXT4].err && ext4_uuid(g_uuid[FS_EXT4]);
	/* one ring for the run: each test drains it before and after its op */
	g_sub_err = vfsb_subscribe(g_dev, 4U << 20, 0, 0, NULL);
}

/* Runs in the parent only: the harness's children leave by _exit(). */
static void __attribute__((destructor)) rm_global_teardown(void)
{
	matrix_fs_teardown(g_dev, g_fs, FS_N);
}

TEST_HARNESS_MAIN
