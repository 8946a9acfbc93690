// SPDX-License-Identifier: GPL-2.0
/*
 * The FUSE hold server (fuse_hold.c): its tree behaves like a file
 * system, and a held request keeps its syscall in flight, for sure and
 * for as long as the test likes, while the rest of the mount goes on.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "bg.h"
#include "fuse_hold.h"
#include "hold_calls.h"
#include "kselftest_harness.h"

/* Bounds a broken run only: nothing here sleeps to synchronize. */
#define HOLD_TIMEOUT_MS 20000
#define FUSE_SUPER_MAGIC 0x65735546

/* ---- helpers ----------------------------------------------------------- */

struct mnt {
	struct fuse_hold *fh;
	char path[32];
	int root;		/* O_PATH fd of the mount's root, for *at() */
};

static int mnt_up(struct mnt *m, unsigned int flags)
{
	strcpy(m->path, "/tmp/fuse_hold.XXXXXX");
	m->root = -1;
	if (!mkdtemp(m->path))
		return -errno;
	m->fh = fh_mount_flags(m->path, flags);
	if (!m->fh) {
		int err = -errno;

		rmdir(m->path);
		m->path[0] = 0;
		return err;
	}
	m->root = open(m->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return m->root < 0 ? -errno : 0;
}

/* Idempotent, so that both a test and its teardown may call it. */
static void mnt_down(struct mnt *m)
{
	if (m->root >= 0)
		close(m->root);
	m->root = -1;
	fh_umount(m->fh);
	m->fh = NULL;
	if (m->path[0])
		rmdir(m->path);
	m->path[0] = 0;
}

/* Creates or truncates dir/name with len bytes of buf. */
static ssize_t put(int dir, const char *name, const void *buf, size_t len)
{
	int fd = openat(dir, name, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* Reads up to len bytes of dir/name through a fresh open, which drops
   the page cache, so the data comes from the server. */
static ssize_t get(int dir, const char *name, void *buf, size_t len)
{
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, 0);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* fstatat's errno, or 0. */
static int stat_err(int dir, const char *name)
{
	struct stat st;

	return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) ? errno : 0;
}

static int ts_le(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec <= b.tv_nsec);
}

/* ---- the syscalls to hold, and their effects --------------------------- */

static void check_mkdir(struct __test_metadata *_metadata, struct ctx *c)
{
	struct stat st;

	ASSERT_EQ(0, fstatat(c->held, "d", &st, 0));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(0750U, st.st_mode & 07777);
}

static void check_create(struct __test_metadata *_metadata, struct ctx *c)
{
	struct stat st;

	ASSERT_EQ(0, fstatat(c->held, "new", &st, 0));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(0640U, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_size);
}

static void check_mknod(struct __test_metadata *_metadata, struct ctx *c)
{
	struct stat st;

	ASSERT_EQ(0, fstatat(c->held, "fifo", &st, 0));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

static void check_symlink(struct __test_metadata *_metadata, struct ctx *c)
{
	char buf[8];
	struct stat st;

	ASSERT_EQ(1, readlinkat(c->held, "sl", buf, sizeof(buf)));
	EXPECT_EQ('f', buf[0]);
	ASSERT_EQ(0, fstatat(c->held, "sl", &st, 0));
	EXPECT_EQ(5, st.st_size);
}

static void check_link(struct __test_metadata *_metadata, struct ctx *c)
{
	struct stat a, b;

	ASSERT_EQ(0, fstatat(c->held, "f", &a, 0));
	ASSERT_EQ(0, fstatat(c->held, "f2", &b, 0));
	EXPECT_EQ(a.st_ino, b.st_ino);
	EXPECT_EQ(2U, b.st_nlink);
}

static void check_rename(struct __test_metadata *_metadata, struct ctx *c)
{
	char buf[16];

	EXPECT_EQ(ENOENT, stat_err(c->held, "f"));
	ASSERT_EQ(5, get(c->held, "g", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
}

static void check_rename_exchange(struct __test_metadata *_metadata, struct ctx *c)
{
	struct stat st;
	char buf[16];

	ASSERT_EQ(0, fstatat(c->held, "f", &st, 0));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(5, get(c->held, "sub", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
}

static void check_chmod(struct __test_metadata *_metadata, struct ctx *c)
{
	struct stat st;

	ASSERT_EQ(0, fstatat(c->held, "f", &st, 0));
	EXPECT_EQ(0604U, st.st_mode & 07777);
}

static void check_truncate(struct __test_metadata *_metadata, struct ctx *c)
{
	char buf[16];

	ASSERT_EQ(2, get(c->held, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "he", 2));
}

static void check_setxattr(struct __test_metadata *_metadata, struct ctx *c)
{
	char buf[8];

	ASSERT_EQ(3, fgetxattr(c->fd, "user.hold", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "yes", 3));
}

static void check_removexattr(struct __test_metadata *_metadata, struct ctx *c)
{
	char buf[8];

	EXPECT_EQ(-1, fgetxattr(c->fd, "user.pre", buf, sizeof(buf)));
	EXPECT_EQ(ENODATA, errno);
}

static void check_unlink(struct __test_metadata *_metadata, struct ctx *c)
{
	EXPECT_EQ(ENOENT, stat_err(c->held, "f"));
}

static void check_rmdir(struct __test_metadata *_metadata, struct ctx *c)
{
	EXPECT_EQ(ENOENT, stat_err(c->held, "sub"));
}

static void check_write(struct __test_metadata *_metadata, struct ctx *c)
{
	char buf[16];

	ASSERT_EQ(10, get(c->held, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "helloWORLD", 10));
}

static void check_fallocate(struct __test_metadata *_metadata, struct ctx *c)
{
	static const char zeros[8192 - 5];
	static char buf[8200];

	ASSERT_EQ(8192, get(c->held, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	EXPECT_EQ(0, memcmp(buf + 5, zeros, sizeof(zeros)));
}

static void check_fsync(struct __test_metadata *_metadata, struct ctx *c)
{
	char buf[16];

	EXPECT_EQ(5, get(c->held, "f", buf, sizeof(buf)));
}

/* ---- holding: each operation stays in flight until released ----------- */

FIXTURE(hold) {
	struct mnt m;
	struct ctx c;
	struct bg bg;
};

FIXTURE_VARIANT(hold) {
	uint32_t opcode;
	int (*op)(struct ctx *c);	/* runs in a thread: 0 or -errno */
	void (*check)(struct __test_metadata *_metadata, struct ctx *c);
};

#define HOLD_VARIANT(name, opc, fn, chk) \
	FIXTURE_VARIANT_ADD(hold, name) { \
		.opcode = FUSE_##opc, .op = fn, .check = chk, \
	}

HOLD_VARIANT(mkdir, MKDIR, call_mkdir, check_mkdir);
HOLD_VARIANT(create, CREATE, call_create, check_create);
HOLD_VARIANT(mknod, MKNOD, call_mknod, check_mknod);
HOLD_VARIANT(symlink, SYMLINK, call_symlink, check_symlink);
HOLD_VARIANT(link, LINK, call_link, check_link);
HOLD_VARIANT(rename, RENAME, call_rename, check_rename);
HOLD_VARIANT(rename_noreplace, RENAME2, call_rename_noreplace, check_rename);
HOLD_VARIANT(rename_exchange, RENAME2, call_rename_exchange, check_rename_exchange);
HOLD_VARIANT(chmod, SETATTR, call_chmod, check_chmod);
HOLD_VARIANT(truncate, SETATTR, call_ftruncate, check_truncate);
HOLD_VARIANT(setxattr, SETXATTR, call_fsetxattr, check_setxattr);
HOLD_VARIANT(removexattr, REMOVEXATTR, call_fremovexattr, check_removexattr);
HOLD_VARIANT(unlink, UNLINK, call_unlink, check_unlink);
HOLD_VARIANT(rmdir, RMDIR, call_rmdir, check_rmdir);
HOLD_VARIANT(write, WRITE, call_pwrite, check_write);
HOLD_VARIANT(fallocate, FALLOCATE, call_fallocate, check_fallocate);
HOLD_VARIANT(fsync, FSYNC, call_fsync, check_fsync);

/* held/ holds the file f ("hello", user.pre=1, open as c.fd) and the
   directory sub; other/ is empty. */
FIXTURE_SETUP(hold)
{
	self->c.held = self->c.other = self->c.fd = -1;
	ASSERT_EQ(0, mnt_up(&self->m, 0));
	ASSERT_EQ(0, ctx_make(&self->c, self->m.path, false));
}

/* Also after a failed assertion with the syscall still held: unmounting
   answers it, so the thread can be joined. */
FIXTURE_TEARDOWN(hold)
{
	ctx_close(&self->c);
	mnt_down(&self->m);
	bg_join(&self->bg);
}

/*
 * Work in other/ while a request on held/ waits: it must all complete,
 * including requests with the held one's opcode (the hold took one).
 */
static void work_elsewhere(struct __test_metadata *_metadata,
			   struct fuse_hold *fh, int dir)
{
	unsigned long mkdirs = fh_count(fh, FUSE_MKDIR);
	unsigned long writes = fh_count(fh, FUSE_WRITE);
	struct stat st;
	char buf[4];
	int fd;

	ASSERT_EQ(0, mkdirat(dir, "side", 0755));
	fd = openat(dir, "side/file", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(3, pwrite(fd, "abc", 3, 0));
	EXPECT_EQ(0, fsync(fd));
	EXPECT_EQ(0, fchmod(fd, 0600));
	EXPECT_EQ(0, fsetxattr(fd, "user.side", "x", 1, 0));
	EXPECT_EQ(0, fallocate(fd, 0, 0, 4096));
	EXPECT_EQ(0, ftruncate(fd, 3));
	EXPECT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	close(fd);
	ASSERT_EQ(0, fstatat(dir, "side/file", &st, 0));
	EXPECT_EQ(3, st.st_size);
	EXPECT_EQ(0, symlinkat("file", dir, "side/sl"));
	EXPECT_EQ(0, linkat(dir, "side/file", dir, "side/hard", 0));
	EXPECT_EQ(0, mknodat(dir, "side/fifo", S_IFIFO | 0600, 0));
	EXPECT_EQ(0, renameat(dir, "side/file", dir, "side/moved"));
	EXPECT_EQ(0, renameat2(dir, "side/moved", dir, "side/sl", RENAME_EXCHANGE));
	EXPECT_EQ(0, unlinkat(dir, "side/moved", 0));
	EXPECT_EQ(0, unlinkat(dir, "side/sl", 0));
	EXPECT_EQ(0, unlinkat(dir, "side/hard", 0));
	EXPECT_EQ(0, unlinkat(dir, "side/fifo", 0));
	ASSERT_EQ(0, unlinkat(dir, "side", AT_REMOVEDIR));
	/* They were answered by the server, not short-cut by the kernel. */
	EXPECT_EQ(mkdirs + 1, fh_count(fh, FUSE_MKDIR));
	EXPECT_EQ(writes + 1, fh_count(fh, FUSE_WRITE));
}

TEST_F_TIMEOUT(hold, stays_in_flight_until_released, 120)
{
	struct fuse_hold *fh = self->m.fh;
	unsigned long seen = fh_count(fh, variant->opcode);

	ASSERT_EQ(0, fh_hold(fh, variant->opcode));
	ASSERT_EQ(0, bg_start(&self->bg, variant->op, &self->c));
	ASSERT_EQ(0, fh_wait_held(fh, HOLD_TIMEOUT_MS));
	/* The request is parked in the server, unanswered: its syscall
	   cannot have returned, however long we look. */
	EXPECT_FALSE(atomic_load(&self->bg.done));
	EXPECT_EQ(seen + 1, fh_count(fh, variant->opcode));

	work_elsewhere(_metadata, fh, self->c.other);
	EXPECT_FALSE(atomic_load(&self->bg.done));

	ASSERT_EQ(0, fh_release(fh));
	bg_join(&self->bg);
	ASSERT_TRUE(atomic_load(&self->bg.done));
	ASSERT_EQ(0, self->bg.ret);
	variant->check(_metadata, &self->c);
}

/* ---- the tree ---------------------------------------------------------- */

FIXTURE(fs) {
	struct mnt m;
	struct ctx c;
	struct bg bg;
};

FIXTURE_SETUP(fs)
{
	ASSERT_EQ(0, mnt_up(&self->m, 0));
}

FIXTURE_TEARDOWN(fs)
{
	mnt_down(&self->m);
	bg_join(&self->bg);
}

/* The names in directory dir/name, space-separated, in READDIR order. */
static int list_dir(int dir, const char *name, char *names, size_t len)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	size_t used = 0;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	names[0] = 0;
	while ((de = readdir(d)))
		used += snprintf(names + used, len - used, "%s%s",
				 used ? " " : "", de->d_name);
	closedir(d);
	return used < len ? 0 : -ENOSPC;
}

TEST_F(fs, directories_files_and_link_counts)
{
	int r = self->m.root, fd;
	char names[128], buf[16];
	struct stat st;

	ASSERT_EQ(0, fstatat(r, "", &st, AT_EMPTY_PATH));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(0755U, st.st_mode & 07777);
	EXPECT_EQ((ino_t)FUSE_ROOT_ID, st.st_ino);
	EXPECT_EQ(2U, st.st_nlink);
	EXPECT_EQ(geteuid(), st.st_uid);

	ASSERT_EQ(0, mkdirat(r, "a", 0755));
	ASSERT_EQ(0, mkdirat(r, "a/b", 0700));
	ASSERT_EQ(10, put(r, "a/f", "0123456789", 10));
	ASSERT_EQ(0, fstatat(r, "", &st, AT_EMPTY_PATH));
	EXPECT_EQ(3U, st.st_nlink);
	ASSERT_EQ(0, fstatat(r, "a", &st, 0));
	EXPECT_EQ(3U, st.st_nlink);
	ASSERT_EQ(0, fstatat(r, "a/b", &st, 0));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	EXPECT_EQ(0700U, st.st_mode & 07777);
	ASSERT_EQ(0, fstatat(r, "a/f", &st, 0));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	EXPECT_EQ(10, st.st_size);
	EXPECT_EQ(1U, st.st_nlink);
	ASSERT_EQ(10, get(r, "a/f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "0123456789", 10));

	ASSERT_EQ(0, list_dir(r, "a", names, sizeof(names)));
	EXPECT_STREQ(". .. b f", names);

	EXPECT_EQ(-1, mkdirat(r, "a", 0755));
	EXPECT_EQ(EEXIST, errno);
	fd = openat(r, "a/f", O_CREAT | O_EXCL | O_WRONLY, 0644);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, unlinkat(r, "a", AT_REMOVEDIR));
	EXPECT_EQ(ENOTEMPTY, errno);
	EXPECT_EQ(-1, unlinkat(r, "a/f", AT_REMOVEDIR));
	EXPECT_EQ(ENOTDIR, errno);
	EXPECT_EQ(-1, mkdirat(r, "a/f/x", 0755));
	EXPECT_EQ(ENOTDIR, errno);
	EXPECT_EQ(ENOENT, stat_err(r, "a/nope"));

	ASSERT_EQ(0, unlinkat(r, "a/f", 0));
	ASSERT_EQ(0, unlinkat(r, "a/b", AT_REMOVEDIR));
	ASSERT_EQ(0, list_dir(r, "a", names, sizeof(names)));
	EXPECT_STREQ(". ..", names);
	ASSERT_EQ(0, unlinkat(r, "a", AT_REMOVEDIR));
	EXPECT_EQ(ENOENT, stat_err(r, "a"));
	ASSERT_EQ(0, fstatat(r, "", &st, AT_EMPTY_PATH));
	EXPECT_EQ(2U, st.st_nlink);
}

/* More entries than one READDIR page holds: each exactly once, in order. */
TEST_F(fs, readdir_over_several_requests)
{
	/*
	 * The server answers at most FH_READDIR_MAX bytes per READDIR, so
	 * 300 dirents of ~104 bytes take about eight requests.
	 */
	static char names[1 << 16], want[1 << 16];
	unsigned long before = fh_count(self->m.fh, FUSE_READDIR);
	size_t used;
	int i;

	ASSERT_EQ(0, mkdirat(self->m.root, "d", 0755));
	used = snprintf(want, sizeof(want), ". ..");
	for (i = 0; i < 300; i++) {
		char name[100];

		snprintf(name, sizeof(name),
			 "d/entry-with-a-long-name-padded-to-make-each-dirent-take-more-room-%04d", i);
		ASSERT_EQ(0, put(self->m.root, name, "", 0));
		used += snprintf(want + used, sizeof(want) - used, " %s", name + 2);
	}
	ASSERT_EQ(0, list_dir(self->m.root, "d", names, sizeof(names)));
	EXPECT_STREQ(want, names);
	EXPECT_LT(before + 4, fh_count(self->m.fh, FUSE_READDIR));
}

TEST_F(fs, rename_semantics)
{
	int r = self->m.root;
	struct stat st, st2;
	char buf[16];

	ASSERT_EQ(5, put(r, "a", "AAAAA", 5));
	ASSERT_EQ(2, put(r, "b", "BB", 2));
	ASSERT_EQ(0, fstatat(r, "a", &st, 0));
	/* over a file: replaces it */
	ASSERT_EQ(0, renameat(r, "a", r, "b"));
	EXPECT_EQ(ENOENT, stat_err(r, "a"));
	ASSERT_EQ(0, fstatat(r, "b", &st2, 0));
	EXPECT_EQ(st.st_ino, st2.st_ino);
	ASSERT_EQ(5, get(r, "b", buf, sizeof(buf)));

	/* directories: link counts follow the move */
	ASSERT_EQ(0, mkdirat(r, "d1", 0755));
	ASSERT_EQ(0, mkdirat(r, "d2", 0755));
	ASSERT_EQ(0, mkdirat(r, "d1/sub", 0755));
	ASSERT_EQ(1, put(r, "d1/sub/x", "x", 1));
	ASSERT_EQ(0, renameat(r, "d1/sub", r, "d2/sub"));
	ASSERT_EQ(0, fstatat(r, "d1", &st, 0));
	EXPECT_EQ(2U, st.st_nlink);
	ASSERT_EQ(0, fstatat(r, "d2", &st, 0));
	EXPECT_EQ(3U, st.st_nlink);
	ASSERT_EQ(1, get(r, "d2/sub/x", buf, sizeof(buf)));

	/* what may not be replaced */
	ASSERT_EQ(0, mkdirat(r, "full", 0755));
	ASSERT_EQ(1, put(r, "full/y", "y", 1));
	EXPECT_EQ(-1, renameat(r, "d2/sub", r, "full"));
	EXPECT_EQ(ENOTEMPTY, errno);
	EXPECT_EQ(-1, renameat(r, "d2/sub", r, "b"));
	EXPECT_EQ(ENOTDIR, errno);
	EXPECT_EQ(-1, renameat(r, "b", r, "d2"));
	EXPECT_EQ(EISDIR, errno);
	EXPECT_EQ(-1, renameat(r, "d2", r, "d2/sub/in"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, renameat(r, "nope", r, "x"));
	EXPECT_EQ(ENOENT, errno);

	/* over an empty directory */
	ASSERT_EQ(0, mkdirat(r, "empty", 0755));
	ASSERT_EQ(0, renameat(r, "d2/sub", r, "empty"));
	ASSERT_EQ(1, get(r, "empty/x", buf, sizeof(buf)));
	ASSERT_EQ(0, fstatat(r, "d2", &st, 0));
	EXPECT_EQ(2U, st.st_nlink);

	/* RENAME2 */
	EXPECT_EQ(-1, renameat2(r, "b", r, "full/y", RENAME_NOREPLACE));
	EXPECT_EQ(EEXIST, errno);
	ASSERT_EQ(0, renameat2(r, "b", r, "c", RENAME_NOREPLACE));
	ASSERT_EQ(0, renameat2(r, "c", r, "empty", RENAME_EXCHANGE));
	ASSERT_EQ(0, fstatat(r, "c", &st, 0));
	EXPECT_TRUE(S_ISDIR(st.st_mode));
	ASSERT_EQ(1, get(r, "c/x", buf, sizeof(buf)));
	ASSERT_EQ(5, get(r, "empty", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "AAAAA", 5));
	/* across directories, a directory for a file */
	ASSERT_EQ(0, renameat2(r, "c", r, "full/y", RENAME_EXCHANGE));
	ASSERT_EQ(0, fstatat(r, "full", &st, 0));
	EXPECT_EQ(3U, st.st_nlink);
	ASSERT_EQ(1, get(r, "full/y/x", buf, sizeof(buf)));
	ASSERT_EQ(1, get(r, "c", buf, sizeof(buf)));
	EXPECT_EQ(-1, renameat2(r, "c", r, "nope", RENAME_EXCHANGE));
	EXPECT_EQ(ENOENT, errno);

	/* the root now holds d1, d2, full: 2 + 3 */
	ASSERT_EQ(0, fstatat(r, "", &st, AT_EMPTY_PATH));
	EXPECT_EQ(5U, st.st_nlink);
}

TEST_F(fs, attributes)
{
	struct timespec before, times[2] = {
		{ .tv_sec = 1000, .tv_nsec = 123 },
		{ .tv_sec = 2000, .tv_nsec = 456789 },
	};
	int r = self->m.root, fd;
	struct stat st, st2;
	char buf[32];

	ASSERT_EQ(10, put(r, "f", "0123456789", 10));
	ASSERT_EQ(0, fchmodat(r, "f", 04751, 0));
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	EXPECT_EQ(04751U, st.st_mode & 07777);
	EXPECT_TRUE(S_ISREG(st.st_mode));
	ASSERT_EQ(0, fchownat(r, "f", 1234, 5678, 0));
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	EXPECT_EQ(1234U, st.st_uid);
	EXPECT_EQ(5678U, st.st_gid);
	EXPECT_EQ(0U, st.st_mode & S_ISUID);	/* chown drops set-uid */

	fd = openat(r, "f", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 20));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(20, st.st_size);
	ASSERT_EQ(20, get(r, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "0123456789\0\0\0\0\0\0\0\0\0\0", 20));
	ASSERT_EQ(0, ftruncate(fd, 4));
	ASSERT_EQ(4, get(r, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "0123", 4));
	close(fd);
	/* O_TRUNC is a SETATTR too */
	fd = openat(r, "f", O_WRONLY | O_TRUNC | O_CLOEXEC);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	EXPECT_EQ(0, st.st_size);

	ASSERT_EQ(0, utimensat(r, "f", times, 0));
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	EXPECT_EQ(1000, st.st_atim.tv_sec);
	EXPECT_EQ(123, st.st_atim.tv_nsec);
	EXPECT_EQ(2000, st.st_mtim.tv_sec);
	EXPECT_EQ(456789, st.st_mtim.tv_nsec);

	clock_gettime(CLOCK_REALTIME, &before);
	ASSERT_EQ(0, utimensat(r, "f", NULL, 0));
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	EXPECT_TRUE(ts_le(before, st.st_mtim));
	EXPECT_TRUE(ts_le(before, st.st_ctim));

	/* writes move mtime and ctime; chmod moves ctime */
	clock_gettime(CLOCK_REALTIME, &before);
	ASSERT_EQ(3, put(r, "f", "abc", 3));
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	EXPECT_TRUE(ts_le(before, st.st_mtim));
	ASSERT_EQ(0, fchmodat(r, "f", 0600, 0));
	ASSERT_EQ(0, fstatat(r, "f", &st2, 0));
	EXPECT_TRUE(ts_le(st.st_ctim, st2.st_ctim));
	EXPECT_EQ(3, st2.st_size);
	EXPECT_EQ(1, st2.st_blocks);
}

TEST_F(fs, hard_and_symbolic_links)
{
	int r = self->m.root;
	static char target[1001];
	struct stat st, st2;
	char buf[1100];

	ASSERT_EQ(4, put(r, "f", "data", 4));
	ASSERT_EQ(0, linkat(r, "f", r, "g", 0));
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	ASSERT_EQ(0, fstatat(r, "g", &st2, 0));
	EXPECT_EQ(st.st_ino, st2.st_ino);
	EXPECT_EQ(2U, st2.st_nlink);
	ASSERT_EQ(0, unlinkat(r, "f", 0));
	ASSERT_EQ(0, fstatat(r, "g", &st2, 0));
	EXPECT_EQ(1U, st2.st_nlink);
	ASSERT_EQ(4, get(r, "g", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "data", 4));

	ASSERT_EQ(0, symlinkat("g", r, "s"));
	ASSERT_EQ(1, readlinkat(r, "s", buf, sizeof(buf)));
	EXPECT_EQ('g', buf[0]);
	ASSERT_EQ(0, fstatat(r, "s", &st, AT_SYMLINK_NOFOLLOW));
	EXPECT_TRUE(S_ISLNK(st.st_mode));
	EXPECT_EQ(1, st.st_size);
	ASSERT_EQ(0, fstatat(r, "s", &st, 0));
	EXPECT_EQ(st2.st_ino, st.st_ino);
	ASSERT_EQ(4, get(r, "s", buf, sizeof(buf)));

	memset(target, 't', sizeof(target) - 1);
	ASSERT_EQ(0, symlinkat(target, r, "long"));
	ASSERT_EQ(1000, readlinkat(r, "long", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, target, 1000));

	ASSERT_EQ(0, mkdirat(r, "d", 0755));
	EXPECT_EQ(-1, linkat(r, "d", r, "d2", 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, linkat(r, "g", r, "s", 0));
	EXPECT_EQ(EEXIST, errno);
}

TEST_F(fs, extended_attributes)
{
	char path[64], buf[32];
	int fd;

	ASSERT_EQ(0, put(self->m.root, "f", "", 0));
	fd = openat(self->m.root, "f", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fsetxattr(fd, "user.a", "1", 1, 0));
	ASSERT_EQ(0, fsetxattr(fd, "user.b", "22", 2, 0));
	ASSERT_EQ(0, fsetxattr(fd, "user.empty", "", 0, 0));
	EXPECT_EQ(1, fgetxattr(fd, "user.a", NULL, 0));
	ASSERT_EQ(2, fgetxattr(fd, "user.b", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "22", 2));
	EXPECT_EQ(0, fgetxattr(fd, "user.empty", buf, sizeof(buf)));
	EXPECT_EQ(-1, fgetxattr(fd, "user.b", buf, 1));
	EXPECT_EQ(ERANGE, errno);
	EXPECT_EQ(-1, fgetxattr(fd, "user.none", buf, sizeof(buf)));
	EXPECT_EQ(ENODATA, errno);

	EXPECT_EQ(25, flistxattr(fd, NULL, 0));
	ASSERT_EQ(25, flistxattr(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "user.a\0user.b\0user.empty\0", 25));
	EXPECT_EQ(-1, flistxattr(fd, buf, 10));
	EXPECT_EQ(ERANGE, errno);

	EXPECT_EQ(-1, fsetxattr(fd, "user.a", "x", 1, XATTR_CREATE));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, fsetxattr(fd, "user.c", "x", 1, XATTR_REPLACE));
	EXPECT_EQ(ENODATA, errno);
	ASSERT_EQ(0, fsetxattr(fd, "user.a", "333", 3, XATTR_REPLACE));
	ASSERT_EQ(3, fgetxattr(fd, "user.a", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "333", 3));

	ASSERT_EQ(0, fremovexattr(fd, "user.a"));
	EXPECT_EQ(-1, fgetxattr(fd, "user.a", buf, sizeof(buf)));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(-1, fremovexattr(fd, "user.a"));
	EXPECT_EQ(ENODATA, errno);
	EXPECT_EQ(18, flistxattr(fd, NULL, 0));
	close(fd);

	/* by path, on a directory */
	ASSERT_EQ(0, mkdirat(self->m.root, "d", 0755));
	snprintf(path, sizeof(path), "%s/d", self->m.path);
	ASSERT_EQ(0, setxattr(path, "user.dir", "yes", 3, 0));
	ASSERT_EQ(3, getxattr(path, "user.dir", buf, sizeof(buf)));
	ASSERT_EQ(0, removexattr(path, "user.dir"));
}

TEST_F(fs, fallocate_modes)
{
	static const char zeros[4096];
	static char buf[8192];
	int r = self->m.root, fd;
	struct stat st;

	fd = openat(r, "f", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(8, pwrite(fd, "abcdefgh", 8, 0));
	ASSERT_EQ(0, fallocate(fd, 0, 0, 4096));
	ASSERT_EQ(0, fstatat(r, "f", &st, 0));
	EXPECT_EQ(4096, st.st_size);
	ASSERT_EQ(4096, get(r, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "abcdefgh", 8));
	EXPECT_EQ(0, memcmp(buf + 8, zeros, 4096 - 8));

	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 100000));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(4096, st.st_size);

	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2, 3));
	ASSERT_EQ(4096, get(r, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "ab\0\0\0fgh", 8));

	ASSERT_EQ(0, fallocate(fd, FALLOC_FL_ZERO_RANGE, 6, 4194));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(4200, st.st_size);
	ASSERT_EQ(4200, get(r, "f", buf, sizeof(buf)));
	EXPECT_EQ(0, memcmp(buf, "ab\0\0\0f\0\0", 8));

	/* modes the kernel does not pass to FUSE */
	EXPECT_EQ(-1, fallocate(fd, FALLOC_FL_COLLAPSE_RANGE, 0, 4096));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(fd);
}

/* A write bigger than max_write is several WRITEs; reading it back after
   a fresh open takes READs: the data went through the server. */
TEST_F(fs, large_write_and_read)
{
	static unsigned char data[1 << 20], back[(1 << 20) + 1];
	unsigned long writes = fh_count(self->m.fh, FUSE_WRITE);
	unsigned long reads;
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < sizeof(data); i++)
		data[i] = i * 7 + (i >> 12);
	fd = openat(self->m.root, "big", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)sizeof(data), write(fd, data, sizeof(data)));
	close(fd);
	EXPECT_LE(writes + sizeof(data) / FH_MAX_WRITE, fh_count(self->m.fh, FUSE_WRITE));
	ASSERT_EQ(0, fstatat(self->m.root, "big", &st, 0));
	EXPECT_EQ((off_t)sizeof(data), st.st_size);

	reads = fh_count(self->m.fh, FUSE_READ);
	fd = openat(self->m.root, "big", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(back);) {
		ssize_t n = read(fd, back + i, sizeof(back) - i);

		ASSERT_LE(0, n);
		if (!n)
			break;
		i += n;
	}
	close(fd);
	EXPECT_EQ(sizeof(data), i);
	EXPECT_EQ(0, memcmp(data, back, sizeof(data)));
	EXPECT_LT(reads, fh_count(self->m.fh, FUSE_READ));
}

TEST_F(fs, special_files_and_statfs)
{
	int r = self->m.root;
	char name[300];
	struct statfs sf;
	struct stat st;

	ASSERT_EQ(0, mknodat(r, "fifo", S_IFIFO | 0640, 0));
	ASSERT_EQ(0, fstatat(r, "fifo", &st, 0));
	EXPECT_TRUE(S_ISFIFO(st.st_mode));
	EXPECT_EQ(0640U, st.st_mode & 07777);
	ASSERT_EQ(0, mknodat(r, "null", S_IFCHR | 0600, makedev(1, 3)));
	ASSERT_EQ(0, fstatat(r, "null", &st, 0));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(makedev(1, 3), st.st_rdev);

	ASSERT_EQ(0, statfs(self->m.path, &sf));
	EXPECT_EQ(FUSE_SUPER_MAGIC, sf.f_type);
	EXPECT_EQ(255, sf.f_namelen);
	EXPECT_EQ(4096, sf.f_bsize);

	memset(name, 'n', 256);
	name[256] = 0;
	EXPECT_EQ(-1, mkdirat(r, name, 0755));
	EXPECT_EQ(ENAMETOOLONG, errno);
	name[255] = 0;
	EXPECT_EQ(0, mkdirat(r, name, 0755));
}

/* Unlinked, closed files are forgotten by the kernel and freed by us. */
TEST_F(fs, forget_frees_nodes)
{
	struct fuse_hold *fh = self->m.fh;
	unsigned long base = fh_live_nodes(fh);
	char name[16];
	struct stat st;
	int i;

	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		ASSERT_EQ(1, put(self->m.root, name, "x", 1));
	}
	EXPECT_EQ(base + 20, fh_live_nodes(fh));
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		ASSERT_EQ(0, unlinkat(self->m.root, name, 0));
	}
	/* The last iput of each queued its FORGET before unlink returned (or
	   will, when the asynchronous RELEASE is answered); the kernel hands
	   out queued forgets ahead of requests, so a few round trips bring
	   them all. Bounded: this is not waiting on time. */
	for (i = 0; i < 200 && fh_live_nodes(fh) != base; i++)
		ASSERT_EQ(0, fstatat(self->m.root, "", &st, AT_EMPTY_PATH));
	EXPECT_EQ(base, fh_live_nodes(fh));
	EXPECT_LT(0UL, fh_count(fh, FUSE_FORGET) + fh_count(fh, FUSE_BATCH_FORGET));
}

TEST_F(fs, hold_api)
{
	struct fuse_hold *fh = self->m.fh;

	EXPECT_EQ(-ENOENT, fh_release(fh));
	EXPECT_EQ(-EINVAL, fh_hold(fh, FUSE_INIT));
	EXPECT_EQ(-EINVAL, fh_hold(fh, 1000));
	ASSERT_EQ(0, fh_hold(fh, FUSE_MKDIR));
	EXPECT_EQ(-EBUSY, fh_hold(fh, FUSE_UNLINK));
	/* Nothing sends a MKDIR: the wait can only run out (a negative
	   result, so a short bound is fine). */
	EXPECT_EQ(-ETIMEDOUT, fh_wait_held(fh, 50));
	/* Releasing a hold that caught nothing disarms it ... */
	EXPECT_EQ(-ENOENT, fh_release(fh));
	/* ... so this mkdir is answered at once. */
	EXPECT_EQ(0, mkdirat(self->m.root, "d", 0755));
	EXPECT_STREQ("MKDIR", fh_opname(FUSE_MKDIR));
	EXPECT_STREQ("?", fh_opname(63));

	/* A hold can be armed again once released. */
	self->c.held = self->m.root;
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, unlinkat(self->m.root, "d", AT_REMOVEDIR));
		ASSERT_EQ(0, fh_hold(fh, FUSE_MKDIR));
		ASSERT_EQ(0, bg_start(&self->bg, call_mkdir, &self->c));
		ASSERT_EQ(0, fh_wait_held(fh, HOLD_TIMEOUT_MS));
		EXPECT_FALSE(atomic_load(&self->bg.done));
		ASSERT_EQ(0, fh_release(fh));
		bg_join(&self->bg);
		EXPECT_EQ(0, self->bg.ret);
	}
}

/* fh_umount with a syscall held: it is answered, and the mount goes. */
TEST_F(fs, umount_with_a_held_request)
{
	self->c.held = self->m.root;
	ASSERT_EQ(0, fh_hold(self->m.fh, FUSE_MKDIR));
	ASSERT_EQ(0, bg_start(&self->bg, call_mkdir, &self->c));
	ASSERT_EQ(0, fh_wait_held(self->m.fh, HOLD_TIMEOUT_MS));
	EXPECT_FALSE(atomic_load(&self->bg.done));
	mnt_down(&self->m);
	bg_join(&self->bg);
	EXPECT_EQ(0, self->bg.ret);
}

/* With FH_NO_DEFAULT_PERMISSIONS, access(2) asks the server. */
TEST(access_without_default_permissions)
{
	struct mnt m;
	unsigned long n;

	ASSERT_EQ(0, mnt_up(&m, FH_NO_DEFAULT_PERMISSIONS));
	ASSERT_EQ(0, put(m.root, "f", "", 0));
	n = fh_count(m.fh, FUSE_ACCESS);
	EXPECT_EQ(0, faccessat(m.root, "f", R_OK | W_OK, 0));
	EXPECT_EQ(-1, faccessat(m.root, "f", X_OK, 0));
	EXPECT_EQ(EACCES, errno);
	ASSERT_EQ(0, fchmodat(m.root, "f", 0755, 0));
	EXPECT_EQ(0, faccessat(m.root, "f", X_OK, 0));
	EXPECT_EQ(n + 3, fh_count(m.fh, FUSE_ACCESS));
	mnt_down(&m);
}

/* With FH_DIRECT_IO every read(2) is a READ, even of cached data. */
TEST(direct_io)
{
	struct mnt m;
	unsigned long reads;
	char buf[8];
	int fd;

	ASSERT_EQ(0, mnt_up(&m, FH_DIRECT_IO));
	fd = openat(m.root, "f", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(3, pwrite(fd, "abc", 3, 0));
	reads = fh_count(m.fh, FUSE_READ);
	ASSERT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(3, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(reads + 2, fh_count(m.fh, FUSE_READ));
	close(fd);
	mnt_down(&m);
}

/*
 * A process that dies with a request held must not hang: the server
 * thread's private file table holds the only /dev/fuse descriptor, so
 * its exit aborts the connection and the held syscall returns. (Were it
 * broken, this test would hang in D state and the run would time out.)
 */
TEST(death_with_a_held_request_does_not_hang)
{
	char path[] = "/tmp/fuse_hold.XXXXXX";
	struct stat st;
	int status;
	pid_t pid;

	ASSERT_NE(NULL, mkdtemp(path));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		static struct ctx c;
		static struct bg b;
		struct fuse_hold *fh = fh_mount(path);

		if (!fh)
			_exit(10);
		c.held = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (c.held < 0 || fh_hold(fh, FUSE_MKDIR) ||
		    bg_start(&b, call_mkdir, &c) || fh_wait_held(fh, HOLD_TIMEOUT_MS))
			_exit(11);
		_exit(0);	/* with the MKDIR held */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The connection was aborted: the mount answers ENOTCONN. */
	EXPECT_EQ(-1, stat(path, &st));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(0, umount2(path, 0));
	rmdir(path);
}

TEST_HARNESS_MAIN
