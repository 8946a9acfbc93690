// SPDX-License-Identifier: GPL-2.0
/*
 * The pre-modify record stream: what each operation announces, that it
 * is announced before the change, overflow accounting, filters,
 * coalescing, bad input.
 */
#define _GNU_SOURCE
#include <linux/fs.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "vfsb.h"
#include "fuse_hold.h"
#include "rec_batch.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define DIR_R "/tmp/vb-rec"
#define DIR_F "/tmp/vb-fuse"
#define DIR_L "/tmp/vb-lower"
#define DIR_O "/tmp/vb-ovl"

static struct rec_batch batch;

FIXTURE(rec) {
	int dev;
	int mnt;	/* for open_by_handle_at */
};

FIXTURE_SETUP(rec)
{
	ASSERT_EQ(0, mount_tmpfs(DIR_R));
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_R));
	ASSERT_EQ(0, vfsb_subscribe(self->dev, 0, 0, 0, NULL));
	self->mnt = open(DIR_R, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->mnt);
}

FIXTURE_TEARDOWN(rec)
{
	close(self->mnt);
	close(self->dev);
	umount2(DIR_R, MNT_DETACH);
}

TEST_F(rec, each_operation_announces_itself)
{
	struct vfsb_record *r;
	long long dino;
	__u64 last = 0;
	char nb[256];
	int fd, i, from, to;

	ASSERT_EQ(0, mkdir(DIR_R "/d", 0755));
	dino = ino_of(DIR_R "/d");
	ASSERT_EQ(0, touch(DIR_R "/d/f"));
	fd = open(DIR_R "/d/f", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(5, pwrite(fd, "hello", 5, 100));
	close(fd);
	ASSERT_EQ(0, rename(DIR_R "/d/f", DIR_R "/g"));
	ASSERT_EQ(0, chmod(DIR_R "/g", 0600));
	ASSERT_EQ(0, truncate(DIR_R "/g", 7));
	ASSERT_EQ(0, setxattr(DIR_R "/g", "trusted.t", "v", 1, 0));
	ASSERT_EQ(0, link(DIR_R "/g", DIR_R "/d/h"));
	ASSERT_EQ(0, unlink(DIR_R "/d/h"));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));

	for (i = 0; i < batch.n; i++) {
		EXPECT_EQ(VFSB_REC_CHANGE, batch.rec[i]->type);
		EXPECT_LT(last, batch.rec[i]->seq) TH_LOG("seq not increasing at %d", i);
		last = batch.rec[i]->seq;
		EXPECT_EQ(0, batch.rec[i]->size % 8);
	}
	/* mkdir d: CREATE|DIR in the root, parent handle resolves to it */
	i = rec_find(&batch, VFSB_R_CREATE, "d");
	ASSERT_LE(0, i);
	r = batch.rec[i];
	EXPECT_TRUE(r->flags & VFSB_RECF_DIR);
	EXPECT_EQ(ino_of(DIR_R), r->parent_ino);
	EXPECT_EQ(ino_of(DIR_R), rec_resolve_ino(r, VFSB_ITEM_PARENT_FH, self->mnt));
	/* create f in d */
	i = rec_find(&batch, VFSB_R_CREATE, "f");
	ASSERT_LE(0, i);
	EXPECT_EQ(dino, batch.rec[i]->parent_ino);
	EXPECT_EQ(dino, rec_resolve_ino(batch.rec[i], VFSB_ITEM_PARENT_FH, self->mnt));
	/* the write: range, object handle */
	i = rec_find(&batch, VFSB_R_DATA_WRITE, NULL);
	ASSERT_LE(0, i);
	r = batch.rec[i];
	EXPECT_EQ(100, r->offset);
	EXPECT_EQ(5, r->length);
	EXPECT_EQ(dino, r->parent_ino);
	EXPECT_EQ(ino_of(DIR_R "/g"), r->ino);
	EXPECT_EQ(ino_of(DIR_R "/g"), rec_resolve_ino(r, VFSB_ITEM_OBJECT_FH, self->mnt));
	/* rename: FROM (d, f) and TO (root, g) share a cookie */
	from = rec_find(&batch, VFSB_R_RENAME_FROM, "f");
	to = rec_find(&batch, VFSB_R_RENAME_TO, "g");
	ASSERT_LE(0, from);
	ASSERT_LE(0, to);
	EXPECT_NE(0, batch.rec[from]->cookie);
	EXPECT_EQ(batch.rec[from]->cookie, batch.rec[to]->cookie);
	EXPECT_EQ(dino, batch.rec[from]->parent_ino);
	EXPECT_EQ(ino_of(DIR_R), batch.rec[to]->parent_ino);
	EXPECT_EQ(batch.rec[from]->ino, batch.rec[to]->ino);
	/* attributes, truncate, xattr, link, unlink */
	EXPECT_LE(0, rec_find(&batch, VFSB_R_ATTRIB, "g"));
	i = rec_find(&batch, VFSB_R_TRUNCATE, "g");
	ASSERT_LE(0, i);
	EXPECT_EQ(7, batch.rec[i]->offset);
	EXPECT_LE(0, rec_find(&batch, VFSB_R_XATTR, "g"));
	EXPECT_LE(0, rec_find(&batch, VFSB_R_HARDLINK, "h"));
	i = rec_find(&batch, VFSB_R_DELETE, "h");
	ASSERT_LE(0, i);
	EXPECT_EQ(dino, batch.rec[i]->parent_ino);
	/* writer identity */
	EXPECT_EQ(getpid(), batch.rec[0]->pid);
	EXPECT_EQ(0, batch.rec[0]->uid);
	TH_LOG("%d records, last %s", batch.n,
	       vfsb_rec_name(batch.rec[batch.n - 1], nb, sizeof(nb)));
}

TEST_F(rec, rename_exchange_and_rmdir)
{
	int i;

	ASSERT_EQ(0, touch(DIR_R "/a"));
	ASSERT_EQ(0, mkdir(DIR_R "/b", 0755));
	ASSERT_EQ(0, renameat2(AT_FDCWD, DIR_R "/a", AT_FDCWD, DIR_R "/b",
			       RENAME_EXCHANGE));
	ASSERT_EQ(0, rmdir(DIR_R "/a"));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	i = rec_find(&batch, VFSB_R_RENAME_FROM | VFSB_R_RENAME_TO, "a");
	ASSERT_LE(0, i);
	EXPECT_TRUE(batch.rec[i]->flags & VFSB_RECF_EXCHANGE);
	i = rec_find(&batch, VFSB_R_DELETE, "a");
	ASSERT_LE(0, i);
	EXPECT_TRUE(batch.rec[i]->flags & VFSB_RECF_DIR);
}

/* The record is readable while the write it announces is still held. */
TEST_F(rec, announced_before_the_data_changes)
{
	struct uffd_hold h;
	struct stat st;
	int fd, i;

	fd = open(DIR_R "/held", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	ASSERT_EQ(0, uffd_hold_start(&h, fd));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	i = rec_find(&batch, VFSB_R_DATA_WRITE, NULL);
	ASSERT_LE(0, i);
	EXPECT_EQ(h.u.page, batch.rec[i]->length);
	/* the change has not happened yet */
	ASSERT_EQ(0, stat(DIR_R "/held", &st));
	EXPECT_EQ(0, st.st_size);
	EXPECT_FALSE(uffd_hold_done(&h));
	/* the protocol: batch read, barrier waits, then the change is there */
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(self->dev, DIR_R, 0, 100));
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_R, 0, 0));
	ASSERT_EQ(0, stat(DIR_R "/held", &st));
	EXPECT_EQ(h.u.page, st.st_size);
	close(fd);
}

TEST_F(rec, two_subscribers_get_the_full_stream)
{
	int dev2 = vfsb_open(), n1, i;

	ASSERT_LE(0, dev2);
	ASSERT_EQ(0, vfsb_watch_path(dev2, DIR_R));
	ASSERT_EQ(0, vfsb_subscribe(dev2, 0, 0, 0, NULL));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	for (i = 0; i < 50; i++) {
		char p[64];

		snprintf(p, sizeof(p), DIR_R "/s%d", i);
		ASSERT_EQ(0, touch(p));
	}
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	n1 = batch.n;
	ASSERT_EQ(0, rec_drain(dev2, &batch));
	EXPECT_EQ(50, n1);
	EXPECT_EQ(50, batch.n);
	close(dev2);
}

TEST(filters_and_coalescing)
{
	int devf, devc, i;

	ASSERT_EQ(0, mount_tmpfs(DIR_R));
	ASSERT_EQ(0, mkdir(DIR_R "/d", 0755));
	devf = vfsb_open();
	devc = vfsb_open();
	ASSERT_LE(0, devf);
	ASSERT_LE(0, devc);
	ASSERT_EQ(0, vfsb_watch_path(devf, DIR_R));
	ASSERT_EQ(0, vfsb_watch_path(devc, DIR_R));
	ASSERT_EQ(0, vfsb_subscribe(devf, 0, VFSB_R_DELETE, 0, NULL));
	ASSERT_EQ(0, vfsb_subscribe(devc, 0, 0, VFSB_SUB_COALESCE, NULL));
	for (i = 0; i < 100; i++) {
		char p[64];

		snprintf(p, sizeof(p), DIR_R "/d/c%d", i);
		ASSERT_EQ(0, touch(p));
	}
	ASSERT_EQ(0, unlink(DIR_R "/d/c0"));
	/* the filter passes the one DELETE only */
	ASSERT_EQ(0, rec_drain(devf, &batch));
	ASSERT_EQ(1, batch.n);
	EXPECT_EQ(VFSB_R_DELETE, batch.rec[0]->reasons);
	/* coalesced: one CREATE in d and one DELETE in d, this epoch */
	ASSERT_EQ(0, rec_drain(devc, &batch));
	EXPECT_EQ(2, batch.n);
	/* after the subscriber's barrier, a new epoch: delivered again */
	ASSERT_EQ(0, vfsb_barrier_path(devc, DIR_R, 0, 0));
	ASSERT_EQ(0, touch(DIR_R "/d/after1"));
	ASSERT_EQ(0, touch(DIR_R "/d/after2"));
	ASSERT_EQ(0, rec_drain(devc, &batch));
	ASSERT_EQ(1, batch.n);
	EXPECT_LE(0, rec_find(&batch, VFSB_R_CREATE, "after1"));
	close(devf);
	close(devc);
	umount2(DIR_R, MNT_DETACH);
}

/* A small ring and a burst: every operation is delivered or counted. */
TEST(overflow_counts_every_lost_record)
{
	const int n = 3000;
	long long delivered = 0, lost = 0, overflows = 0;
	struct stat st;
	int dev, i, j;

	ASSERT_EQ(0, mount_tmpfs(DIR_R));
	ASSERT_EQ(0, stat(DIR_R, &st));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_R));
	ASSERT_EQ(0, vfsb_subscribe(dev, VFSB_RING_MIN, 0, 0, NULL));
	for (i = 0; i < n; i++) {
		char p[64];

		snprintf(p, sizeof(p), DIR_R "/o%d", i);
		ASSERT_EQ(0, touch(p));
		/* read now and then, to lose in several places */
		if (i % 1000 == 999) {
			ASSERT_EQ(0, rec_drain(dev, &batch));
			for (j = 0; j < batch.n; j++) {
				if (batch.rec[j]->type == VFSB_REC_OVERFLOW) {
					overflows++;
					lost += batch.rec[j]->lost;
				} else {
					delivered++;
				}
			}
		}
	}
	ASSERT_EQ(0, rec_drain(dev, &batch));
	for (j = 0; j < batch.n; j++) {
		struct vfsb_rec_item *it;

		if (batch.rec[j]->type != VFSB_REC_OVERFLOW) {
			delivered++;
			continue;
		}
		overflows++;
		lost += batch.rec[j]->lost;
		it = vfsb_rec_item(batch.rec[j], VFSB_ITEM_DEVS);
		ASSERT_NE(NULL, it);
		EXPECT_EQ(4, it->len);
		EXPECT_EQ(st.st_dev, makedev(major(*(__u32 *)vfsb_item_data(it)),
					     minor(*(__u32 *)vfsb_item_data(it))));
	}
	TH_LOG("%d ops: %lld delivered, %lld lost in %lld overflows",
	       n, delivered, lost, overflows);
	EXPECT_LT(0, overflows);
	EXPECT_EQ(n, delivered + lost);
	close(dev);
	umount2(DIR_R, MNT_DETACH);
}

/*
 * The default ring holds as many typical records (a create: two handles
 * and a name) as fanotify's default queue holds events, 16384: a
 * consumer that reads late loses nothing sooner than with fanotify.
 */
/*
 * 16384 creates: a fixture for the longer time limit, which the debug
 * kernel (KASAN, lockdep) needs on a busy host (the default 30 s ran
 * out there once, with every check already passed).
 */
FIXTURE(deep) {};
FIXTURE_SETUP(deep) {}
FIXTURE_TEARDOWN(deep) {}

TEST_F_TIMEOUT(deep, default_ring_holds_fanotify_queue_depth, 300)
{
	const int n = 16384;
	long long delivered = 0, lost = 0;
	ssize_t got;
	int dev, i;

	ASSERT_EQ(0, mount_tmpfs(DIR_R));
	ASSERT_EQ(0, mkdir(DIR_R "/q", 0755));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_R));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	for (i = 0; i < n; i++) {
		char p[64];

		snprintf(p, sizeof(p), DIR_R "/q/file-%05d", i);
		ASSERT_EQ(0, touch(p));
	}
	/* counted as read: more than a rec_batch indexes */
	ASSERT_EQ(0, fcntl(dev, F_SETFL, O_NONBLOCK));
	while ((got = read(dev, batch.buf, 65536)) > 0) {
		struct vfsb_record *r;
		size_t off;

		for (off = 0; (r = vfsb_rec_at(batch.buf, got, off));
		     off += r->size) {
			if (r->type == VFSB_REC_OVERFLOW)
				lost += r->lost;
			else
				delivered++;
		}
	}
	EXPECT_EQ(EAGAIN, errno);
	TH_LOG("%d creates unread: %lld records delivered, %lld lost",
	       n, delivered, lost);
	EXPECT_EQ(0, lost);
	EXPECT_LE(n, delivered);
	close(dev);
	umount2(DIR_R, MNT_DETACH);
}

/* Records of reasons about name in the batch. */
static int count_named(struct rec_batch *b, __u32 reasons, const char *name)
{
	int i, n = 0;

	for (i = 0; i < b->n; i++) {
		struct vfsb_rec_item *it = vfsb_rec_item(b->rec[i],
							 VFSB_ITEM_NAME);

		if (b->rec[i]->type == VFSB_REC_CHANGE &&
		    b->rec[i]->reasons == reasons && it &&
		    it->len == strlen(name) &&
		    !memcmp(vfsb_item_data(it), name, it->len))
			n++;
	}
	return n;
}

/*
 * A change that says exactly what the previous, still unread record
 * says is merged into it, as fanotify merges its unread events; once
 * read, or from another writer, it is a record of its own.
 */
TEST_F(rec, identical_unread_records_merge)
{
	pid_t pid;
	int st;

	ASSERT_EQ(0, touch(DIR_R "/m"));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	ASSERT_EQ(0, chmod(DIR_R "/m", 0600));
	ASSERT_EQ(0, chmod(DIR_R "/m", 0644));
	ASSERT_EQ(0, chmod(DIR_R "/m", 0600));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	EXPECT_EQ(1, count_named(&batch, VFSB_R_ATTRIB, "m"));
	/* read: the next one is stored */
	ASSERT_EQ(0, chmod(DIR_R "/m", 0644));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	EXPECT_EQ(1, count_named(&batch, VFSB_R_ATTRIB, "m"));
	/* another process: its pid differs, so does its record */
	ASSERT_EQ(0, chmod(DIR_R "/m", 0600));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(chmod(DIR_R "/m", 0644) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, st);
	ASSERT_EQ(0, chmod(DIR_R "/m", 0600));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	EXPECT_EQ(3, count_named(&batch, VFSB_R_ATTRIB, "m"));
}

/* The one data-write record of inode ino in the batch, or NULL. */
static struct vfsb_record *only_write(struct rec_batch *b, ino_t ino)
{
	struct vfsb_record *found = NULL;
	int i;

	for (i = 0; i < b->n; i++) {
		if (b->rec[i]->type != VFSB_REC_CHANGE ||
		    b->rec[i]->reasons != VFSB_R_DATA_WRITE ||
		    b->rec[i]->ino != ino)
			continue;
		if (found)
			return NULL;
		found = b->rec[i];
	}
	return found;
}

/* Data-write records of inode ino in the batch. */
static int count_writes(struct rec_batch *b, ino_t ino)
{
	int i, n = 0;

	for (i = 0; i < b->n; i++)
		n += b->rec[i]->type == VFSB_REC_CHANGE &&
		     b->rec[i]->reasons == VFSB_R_DATA_WRITE &&
		     b->rec[i]->ino == ino;
	return n;
}

/*
 * Data writes of one writer to one file whose ranges touch or overlap
 * are merged into its unread record, whose range then covers them all
 * (as fanotify merges unread modify events); a range apart, or a write
 * after the record was read, is a record of its own.
 */
TEST_F(rec, touching_unread_writes_merge_their_ranges)
{
	struct vfsb_record *r;
	char buf[16] = "0123456789abcdef";
	struct stat st;
	int fd;

	fd = open(DIR_R "/w", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	/* appended byte by byte, then overlapped */
	ASSERT_EQ(1, pwrite(fd, buf, 1, 0));
	ASSERT_EQ(1, pwrite(fd, buf, 1, 1));
	ASSERT_EQ(1, pwrite(fd, buf, 1, 2));
	ASSERT_EQ(8, pwrite(fd, buf, 8, 1));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	r = only_write(&batch, st.st_ino);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(0, r->offset);
	EXPECT_EQ(9, r->length);
	/* read already: the next one, though it touches, is its own */
	ASSERT_EQ(1, pwrite(fd, buf, 1, 9));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	r = only_write(&batch, st.st_ino);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(9, r->offset);
	EXPECT_EQ(1, r->length);
	/* a range apart: two records */
	ASSERT_EQ(1, pwrite(fd, buf, 1, 10));
	ASSERT_EQ(1, pwrite(fd, buf, 1, 100));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	EXPECT_EQ(2, count_writes(&batch, st.st_ino));
	/* a range before the record's, touching it: merged too */
	ASSERT_EQ(2, pwrite(fd, buf, 2, 20));
	ASSERT_EQ(2, pwrite(fd, buf, 2, 18));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	r = only_write(&batch, st.st_ino);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(18, r->offset);
	EXPECT_EQ(4, r->length);
	close(fd);
}

/* A read that faults (-EFAULT) consumes nothing: the next read gets it. */
TEST_F(rec, faulting_read_loses_nothing)
{
	char *bad;
	int fl;

	ASSERT_EQ(0, touch(DIR_R "/kept"));
	/* a buffer whose pages are not mapped at all */
	bad = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, bad);
	fl = fcntl(self->dev, F_GETFL);
	fcntl(self->dev, F_SETFL, fl | O_NONBLOCK);
	EXPECT_EQ(-1, read(self->dev, bad, 65536));
	EXPECT_EQ(EFAULT, errno);
	fcntl(self->dev, F_SETFL, fl);
	munmap(bad, 65536);
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	EXPECT_LE(0, rec_find(&batch, VFSB_R_CREATE, "kept"));
}

TEST(bad_input)
{
	char buf[16], big[VFSB_RECORD_MAX];
	struct vfsb_subscribe s = { 0 };
	int dev = vfsb_open(), fl;

	ASSERT_LE(0, dev);
	/* reading before subscribing */
	EXPECT_EQ(-1, read(dev, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	s.ring_bytes = VFSB_RING_MAX + 1;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	s.ring_bytes = 100;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	s.ring_bytes = 0;
	s.flags = 1U << 9;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	s.flags = 0;
	s.reasons = 1U << 30;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	s.reasons = 0;
	/* an intent timeout without intent mode */
	s.intent_timeout_ms = 1;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	s.intent_timeout_ms = 0;
	EXPECT_EQ(-EFAULT, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, NULL));
	EXPECT_EQ(0, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	EXPECT_NE(0, s.journal_id);
	EXPECT_EQ(-EBUSY, vfsb_ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	/* empty and non-blocking */
	fl = fcntl(dev, F_GETFL);
	fcntl(dev, F_SETFL, fl | O_NONBLOCK);
	EXPECT_EQ(-1, read(dev, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);	/* smaller than a record header */
	EXPECT_EQ(-1, read(dev, big, sizeof(big)));
	EXPECT_EQ(EAGAIN, errno);
	close(dev);
}

static void *mkdir_thread(void *arg)
{
	(void)arg;
	mkdir(DIR_F "/newdir", 0755);
	return NULL;
}

/* The record is readable while a held mkdir has not created anything. */
TEST(fuse_mkdir_announced_before_it_exists)
{
	struct fuse_hold *fh;
	pthread_t th;
	struct stat st;
	int dev, i, nodes;

	mkdir(DIR_F, 0755);
	fh = fh_mount(DIR_F);
	ASSERT_NE(NULL, fh);
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_F));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	nodes = fh_live_nodes(fh);
	ASSERT_EQ(0, fh_hold(fh, FUSE_MKDIR));
	ASSERT_EQ(0, pthread_create(&th, NULL, mkdir_thread, NULL));
	ASSERT_EQ(0, fh_wait_held(fh, 20000));
	ASSERT_EQ(0, rec_drain(dev, &batch));
	i = rec_find(&batch, VFSB_R_CREATE, "newdir");
	EXPECT_LE(0, i);
	/*
	 * The directory does not exist yet: the server has not made it.
	 * (A stat would wait for the parent's lock, which mkdir holds.)
	 */
	EXPECT_EQ(nodes, fh_live_nodes(fh));
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(dev, DIR_F, 0, 100));
	ASSERT_EQ(0, fh_release(fh));
	pthread_join(th, NULL);
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_F, 0, 0));
	EXPECT_EQ(nodes + 1, fh_live_nodes(fh));
	EXPECT_EQ(0, stat(DIR_F "/newdir", &st));
	close(dev);
	fh_umount(fh);
}

/* overlayfs writes reach the upper layer through vfs_* helpers. */
TEST(overlayfs_changes_are_recorded_on_the_upper_fs)
{
	char opts[256];
	int dev, i;

	ASSERT_EQ(0, mount_tmpfs(DIR_R));
	mkdir(DIR_L, 0755);
	mkdir(DIR_O, 0755);
	ASSERT_EQ(0, mkdir(DIR_R "/u", 0755));
	ASSERT_EQ(0, mkdir(DIR_R "/w", 0755));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_R));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s/u,workdir=%s/w",
		 DIR_L, DIR_R, DIR_R);
	ASSERT_EQ(0, mount("overlay", DIR_O, "overlay", 0, opts));
	ASSERT_EQ(0, rec_drain(dev, &batch));
	ASSERT_EQ(0, touch(DIR_O "/via-overlay"));
	ASSERT_EQ(0, rec_drain(dev, &batch));
	i = rec_find(&batch, VFSB_R_CREATE, "via-overlay");
	ASSERT_LE(0, i);
	EXPECT_EQ(ino_of(DIR_R "/u"), batch.rec[i]->parent_ino);
	EXPECT_EQ(0, fs_in_flight(dev, DIR_R));
	umount2(DIR_O, MNT_DETACH);
	close(dev);
	umount2(DIR_R, MNT_DETACH);
}

/* ---- changes through paths other than the usual syscalls ---- */

/* The first record about ino with reason bits, or NULL. */
static struct vfsb_record *rec_about(struct rec_batch *b, __u32 reasons,
				     long long ino)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (b->rec[i]->type == VFSB_REC_CHANGE &&
		    (b->rec[i]->reasons & reasons) &&
		    (long long)b->rec[i]->ino == ino)
			return b->rec[i];
	return NULL;
}

/* How many records of the batch say "announced outside a section". */
static int unfenced_in(struct rec_batch *b)
{
	char why[128];
	int i, n = 0;

	for (i = 0; i < b->n; i++) {
		struct vfsb_record *r = b->rec[i];

		if (r->type != VFSB_REC_RESCAN && !(r->flags & VFSB_RECF_UNFENCED))
			continue;
		n++;
		if (r->type == VFSB_REC_RESCAN)
			vfsb_rescan_format(r->reasons, why, sizeof(why));
		else
			vfsb_reasons_format(r->reasons, why, sizeof(why));
		fprintf(stderr, "# unfenced: type %u %s ino %llu pid %u\n", r->type,
			why, (unsigned long long)r->ino, r->pid);
	}
	return n;
}

/*
 * setfacl: an ACL record about the file (6.2+: through vfs_set_acl()
 * and its own security hook; 6.1: set_posix_acl() from the xattr).
 */
TEST_F(rec, posix_acl_is_announced)
{
	struct {
		__u32 version;
		struct { __u16 tag, perm; __u32 id; } e[5];
	} acl = {
		.version = 2,
		.e = {
			{ 0x01, 6, ~0U },	/* ACL_USER_OBJ rw- */
			{ 0x02, 6, 1000 },	/* ACL_USER 1000 rw- */
			{ 0x04, 4, ~0U },	/* ACL_GROUP_OBJ r-- */
			{ 0x10, 6, ~0U },	/* ACL_MASK rw- */
			{ 0x20, 4, ~0U },	/* ACL_OTHER r-- */
		},
	};
	struct vfsb_record *r;

	ASSERT_EQ(0, touch(DIR_R "/f"));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	if (setxattr(DIR_R "/f", "system.posix_acl_access", &acl, sizeof(acl), 0))
		SKIP(return, "no POSIX ACLs on tmpfs here: %s", strerror(errno));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	r = rec_about(&batch, VFSB_R_ACL, ino_of(DIR_R "/f"));
	ASSERT_NE(NULL, r) TH_LOG("no ACL record about f (%d records)", batch.n);
	EXPECT_EQ(0, unfenced_in(&batch));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_R));
}

/*
 * A core dump is written with __kernel_write(), which skips
 * rw_verify_area(): its data must be announced all the same, inside a
 * section of the dying task.
 */
TEST_F(rec, core_dump_is_announced)
{
	const char *knob = "/proc/sys/kernel/core_pattern";
	char was[256] = "";
	struct vfsb_record *r;
	int fd, status;
	ssize_t n;
	pid_t pid;

	fd = open(knob, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		SKIP(return, "no %s", knob);
	n = read(fd, was, sizeof(was) - 1);
	was[n > 0 ? n : 0] = 0;
	ASSERT_LT(0, pwrite(fd, DIR_R "/core", strlen(DIR_R "/core"), 0));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	pid = fork();
	if (!pid) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_CORE, &rl);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (was[0] && pwrite(fd, was, strlen(was), 0) < 0)
		TH_LOG("core_pattern not restored");
	close(fd);
	if (!WIFSIGNALED(status) || !WCOREDUMP(status))
		SKIP(return, "no core was dumped (CONFIG_COREDUMP?)");
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	r = rec_about(&batch, VFSB_R_DATA_WRITE, ino_of(DIR_R "/core"));
	ASSERT_NE(NULL, r) TH_LOG("no data record about the core (%d records)",
				  batch.n);
	EXPECT_EQ(0, unfenced_in(&batch));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_R));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_R, 0, 10000));
}

/*
 * Process accounting writes an exiting task's record from do_exit()
 * with __kernel_write(): announced inside a section of the dying task.
 * (acct(NULL) writes the last record from a kworker, which no hook can
 * bracket: that one is announced unfenced, with a RESCAN.)
 */
TEST_F(rec, process_accounting_is_announced)
{
	struct vfsb_record *r = NULL;
	long long ino;
	int i, status;
	pid_t pid;

	ASSERT_EQ(0, touch(DIR_R "/acct"));
	ino = ino_of(DIR_R "/acct");
	if (acct(DIR_R "/acct"))
		SKIP(return, "no process accounting: %s", strerror(errno));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	pid = fork();
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	acct(NULL);
	for (i = 0; i < batch.n; i++)
		if (batch.rec[i]->type == VFSB_REC_CHANGE &&
		    batch.rec[i]->reasons == VFSB_R_DATA_WRITE &&
		    (long long)batch.rec[i]->ino == ino &&
		    batch.rec[i]->pid == (__u32)pid)
			r = batch.rec[i];
	ASSERT_NE(NULL, r) TH_LOG("no data record of the child's accounting");
	EXPECT_FALSE(r->flags & VFSB_RECF_UNFENCED);
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_R));
}

/*
 * Another user's kprobe on a hooked function (bpftrace, a security
 * agent) changes nothing: fallocate()'s one callback still opens its
 * section before it announces.
 */
TEST_F(rec, another_kprobe_on_a_hooked_function)
{
	const char *t = "/sys/kernel/tracing";
	char path[128];
	int fd, kfd, ffd;

	if (access("/sys/kernel/tracing/kprobe_events", F_OK))
		mount("nodev", t, "tracefs", 0, NULL);
	kfd = open("/sys/kernel/tracing/kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC);
	if (kfd < 0)
		SKIP(return, "no kprobe_events");
	ASSERT_LT(0, write(kfd, "p:vfsbt/fa vfs_fallocate", 24));
	snprintf(path, sizeof(path), "%s/events/vfsbt/enable", t);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "1", 1));
	ASSERT_EQ(0, touch(DIR_R "/f"));
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	ffd = open(DIR_R "/f", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ffd);
	EXPECT_EQ(0, fallocate(ffd, 0, 0, 8192));
	close(ffd);
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	EXPECT_NE(NULL, rec_about(&batch, VFSB_R_DATA_WRITE, ino_of(DIR_R "/f")));
	EXPECT_EQ(0, unfenced_in(&batch));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_R));
	EXPECT_EQ(1, write(fd, "0", 1));
	close(fd);
	close(kfd);
	kfd = open("/sys/kernel/tracing/kprobe_events", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (kfd >= 0)
		close(kfd);
}

/*
 * A data write through overlayfs with nfs_export=on: the record names
 * the upper filesystem's directory, by its own handle (6.1's real files
 * carry the overlay path: the overlay's ->encode_fh() may sleep, and is
 * not the upper filesystem's).
 */
TEST(overlayfs_data_write_names_the_upper_directory)
{
	char opts[256];
	struct vfsb_record *r;
	long long ino;
	int dev, fd, mnt, i;

	ASSERT_EQ(0, mount_tmpfs(DIR_R));
	ASSERT_EQ(0, mount_tmpfs(DIR_L));
	mkdir(DIR_O, 0755);
	ASSERT_EQ(0, mkdir(DIR_R "/u", 0755));
	ASSERT_EQ(0, mkdir(DIR_R "/w", 0755));
	ASSERT_EQ(0, mkdir(DIR_L "/sub", 0755));
	ASSERT_EQ(0, touch(DIR_L "/sub/f"));
	snprintf(opts, sizeof(opts),
		 "lowerdir=%s,upperdir=%s/u,workdir=%s/w,index=on,nfs_export=on",
		 DIR_L, DIR_R, DIR_R);
	if (mount("overlay", DIR_O, "overlay", 0, opts))
		SKIP(goto out, "overlay with nfs_export=on: %s", strerror(errno));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_R));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	/* copied up, then written through the overlay */
	fd = open(DIR_O "/sub/f", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rec_drain(dev, &batch));
	ASSERT_EQ(4, write(fd, "data", 4));
	close(fd);
	ASSERT_EQ(0, rec_drain(dev, &batch));
	ino = ino_of(DIR_R "/u/sub/f");
	/* the write's (copy-up's, in the work directory, come before) */
	r = NULL;
	for (i = 0; i < batch.n; i++)
		if (batch.rec[i]->type == VFSB_REC_CHANGE &&
		    batch.rec[i]->reasons == VFSB_R_DATA_WRITE &&
		    (long long)batch.rec[i]->ino == ino &&
		    batch.rec[i]->length == 4)
			r = batch.rec[i];
	ASSERT_NE(NULL, r) TH_LOG("no record of the 4-byte write to the upper file");
	/*
	 * With index=on the upper file has two links, u/sub/f and one in
	 * the index: the record names the directory of either, on the
	 * upper filesystem, by a handle of the upper filesystem.
	 */
	EXPECT_TRUE(r->parent_ino == (__u64)ino_of(DIR_R "/u/sub") ||
		    r->parent_ino == (__u64)ino_of(DIR_R "/w/index"))
		TH_LOG("parent %llu: neither u/sub nor w/index",
		       (unsigned long long)r->parent_ino);
	mnt = open(DIR_R, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mnt);
	EXPECT_EQ((long long)r->parent_ino,
		  rec_resolve_ino(r, VFSB_ITEM_PARENT_FH, mnt));
	EXPECT_EQ(ino, rec_resolve_ino(r, VFSB_ITEM_OBJECT_FH, mnt));
	EXPECT_EQ(0, unfenced_in(&batch));
	close(mnt);
	close(dev);
	umount2(DIR_O, MNT_DETACH);
out:
	umount2(DIR_L, MNT_DETACH);
	umount2(DIR_R, MNT_DETACH);
}

TEST_HARNESS_MAIN
