// SPDX-License-Identifier: GPL-2.0
/*
 * A watched filesystem's life: unmounted (announced to every subscriber,
 * unwatchable by id, never again a cost to a barrier), mounted again
 * (the same fs_uuid in its records), frozen and thawed, shut down with a
 * write in flight, and re-formatted in a loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "vfsb.h"
#include "rec_batch.h"
#include "task.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define DIR_T	"/tmp/lc-t"
#define DIR_E	"/tmp/lc-e"

/* ext4's shutdown ioctl (the generic FS_IOC_SHUTDOWN number) */
#ifndef FS_IOC_SHUTDOWN
#define FS_IOC_SHUTDOWN		_IOR('X', 125, __u32)
#endif
#define SHUTDOWN_NOLOGFLUSH	2

/* WATCH of path: its id, or -errno. */
static long watch_id(int dev, const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC);
	__u32 id;
	long ret;

	if (fd < 0)
		return -errno;
	ret = vfsb_watch_fd_id(dev, fd, NULL, &id);
	close(fd);
	return ret ? ret : (long)id;
}

static int list_count(int dev)
{
	struct vfsb_list l = { 0 };

	return ioctl(dev, VFSB_IOC_LIST, &l) ? -errno : (int)l.count;
}

/* STATS of the tracking of dev_t d (maybe unmounted): 0 or -ENOENT. */
static int stats_of(int dev, dev_t d, struct vfsb_sb_stats *out)
{
	struct vfsb_sb_stats st[32];
	struct vfsb_stats req = {
		.capacity = 32, .entry_size = sizeof(st[0]),
		.entries_ptr = (unsigned long)st,
	};
	unsigned int i;

	if (ioctl(dev, VFSB_IOC_STATS, &req))
		return -errno;
	for (i = 0; i < req.count && i < 32; i++) {
		if (vfsb_dev_t(st[i].dev) == d) {
			*out = st[i];
			return 0;
		}
	}
	return -ENOENT;
}

/* Records of one type and dev in b; the index of the last, or -1. */
static int rec_last(struct rec_batch *b, int type, dev_t d, int *count)
{
	int i, last = -1;

	*count = 0;
	for (i = 0; i < b->n; i++) {
		if (b->rec[i]->type == type && vfsb_dev_t(b->rec[i]->dev) == d) {
			last = i;
			(*count)++;
		}
	}
	return last;
}

/*
 * Unmounting a watched filesystem: every subscriber gets an UNMOUNT
 * record, after the last record of that filesystem; the watch stays,
 * marked unmounted, until unwatched by id (an fd on it can no longer be
 * had); barriers no longer wait on it.
 */
TEST(unmount_is_announced_then_unwatched_by_id)
{
	static struct rec_batch b;
	struct vfsb_sb_stats st, after;
	struct stat sbuf;
	int dev, dev2, n, i_unmount, i_change;
	long id, id2;

	ASSERT_EQ(0, mount_tmpfs(DIR_T));
	ASSERT_EQ(0, stat(DIR_T, &sbuf));
	dev = vfsb_open_flags(O_NONBLOCK);
	dev2 = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_LE(0, dev2);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_subscribe(dev2, 0, 0, 0, NULL));
	id = watch_id(dev, DIR_T);
	id2 = watch_id(dev2, DIR_T);
	ASSERT_LT(0, id);
	ASSERT_LT(0, id2);
	ASSERT_EQ(0, put_file(DIR_T "/f", "data"));
	ASSERT_EQ(0, umount(DIR_T));

	/* both subscribers learn it, after the filesystem's last change */
	ASSERT_EQ(0, rec_drain(dev, &b));
	i_unmount = rec_last(&b, VFSB_REC_UNMOUNT, sbuf.st_dev, &n);
	EXPECT_EQ(1, n);
	ASSERT_LE(0, i_unmount);
	i_change = rec_last(&b, VFSB_REC_CHANGE, sbuf.st_dev, &n);
	EXPECT_LT(0, n);
	EXPECT_LT(i_change, i_unmount);
	EXPECT_LT(b.rec[i_change]->seq, b.rec[i_unmount]->seq);
	EXPECT_EQ(i_unmount, b.n - 1);
	b.n = 0;
	b.used = 0;
	ASSERT_EQ(0, rec_drain(dev2, &b));
	rec_last(&b, VFSB_REC_UNMOUNT, sbuf.st_dev, &n);
	EXPECT_EQ(1, n);

	/* still listed, marked unmounted; barriers skip it */
	EXPECT_EQ(1, list_count(dev));
	ASSERT_EQ(0, stats_of(dev, sbuf.st_dev, &st));
	EXPECT_TRUE(st.flags & VFSB_STATS_UNMOUNTED);
	EXPECT_EQ(0, vfsb_barrier_fd(dev, -1, VFSB_BARRIER_ALL, 5000, NULL));
	ASSERT_EQ(0, stats_of(dev, sbuf.st_dev, &after));
	EXPECT_EQ(st.barriers, after.barriers);

	/* by id: once, then it is gone */
	EXPECT_EQ(0, vfsb_unwatch_id(dev, id, NULL));
	EXPECT_EQ(-ENOENT, vfsb_unwatch_id(dev, id, NULL));
	EXPECT_EQ(0, list_count(dev));
	EXPECT_EQ(-EINVAL, vfsb_unwatch_id(dev, 0, NULL));
	/* the other opener's watch is its own */
	EXPECT_EQ(1, list_count(dev2));
	EXPECT_EQ(0, vfsb_unwatch_id(dev2, id2, NULL));
	EXPECT_EQ(-ENOENT, stats_of(dev, sbuf.st_dev, &st));
	close(dev);
	close(dev2);
}

/*
 * Many unmounted watches cost a barrier nothing: BARRIER_ALL takes a
 * grace period only on what is mounted.
 */
TEST(dead_watches_are_not_waited_on)
{
	struct vfsb_sb_stats st, *all = NULL;
	unsigned int n = 0;
	int dev, i, ndead = 0;
	char path[64];

	dev = vfsb_open();
	ASSERT_LE(0, dev);
	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), DIR_T "%d", i);
		ASSERT_EQ(0, mount_tmpfs(path));
		ASSERT_EQ(0, vfsb_watch_path(dev, path));
		ASSERT_EQ(0, umount(path));
	}
	ASSERT_EQ(0, mount_tmpfs(DIR_T));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	EXPECT_EQ(17, list_count(dev));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(0, vfsb_barrier_fd(dev, -1, VFSB_BARRIER_ALL, 5000,
					     NULL));
	/* by flag, not by dev: a new tmpfs may reuse a dead one's (7.x) */
	ASSERT_EQ(0, vfsb_stats(dev, &all, &n));
	for (i = 0; i < (int)n; i++) {
		if (!(all[i].flags & VFSB_STATS_UNMOUNTED))
			continue;
		ndead++;
		EXPECT_EQ(0, all[i].barriers);
	}
	free(all);
	EXPECT_EQ(16, ndead);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_T, &st));
	EXPECT_EQ(10, st.barriers);
	close(dev);
	umount(DIR_T);
}

/*
 * A fresh ext4 on the scratch disk at DIR_E, watched by a new
 * non-blocking subscriber *dev: 0, -ENODEV (no disk: skip) or -errno.
 */
static int subscribed_ext4(int *dev)
{
	int ret = mount_ext4(DIR_E);

	if (ret)
		return ret;
	*dev = vfsb_open_flags(O_NONBLOCK);
	if (*dev < 0)
		return -errno;
	ret = vfsb_subscribe(*dev, 0, 0, 0, NULL);
	return ret ? ret : vfsb_watch_path(*dev, DIR_E);
}

/* The filesystem's UUID, not its dev, is what survives a remount. */
TEST(remount_keeps_the_uuid)
{
	static struct rec_batch b;
	__u8 uuid[16];
	int dev, ret, i, n = 0;

	ret = subscribed_ext4(&dev);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, put_file(DIR_E "/one", "1"));
	ASSERT_EQ(0, umount(DIR_E));
	ASSERT_EQ(0, mount(getenv("VFSB_SCRATCH_DEV"), DIR_E, "ext4", 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	ASSERT_EQ(0, put_file(DIR_E "/two", "2"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	ASSERT_LT(2, b.n);
	memcpy(uuid, b.rec[0]->fs_uuid, 16);
	for (i = 0; i < b.n; i++) {
		EXPECT_EQ(0, memcmp(uuid, b.rec[i]->fs_uuid, 16));
		n += b.rec[i]->type == VFSB_REC_UNMOUNT;
	}
	EXPECT_EQ(1, n);
	EXPECT_NE(0, uuid[0] | uuid[1] | uuid[2] | uuid[3]);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

struct bg_put {
	const char *path;
	int ret;
	pid_t tid;
	volatile int started, done;
};

static void *bg_put_fn(void *arg)
{
	struct bg_put *p = arg;

	p->tid = syscall(SYS_gettid);
	__atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
	p->ret = put_file(p->path, "frozen");
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Freeze: a create blocked on the frozen filesystem has not been granted
 * write access, announced nothing and holds no section, so a barrier
 * returns at once; it is announced after the thaw.
 */
TEST(barrier_returns_while_a_create_waits_on_freeze)
{
	static struct rec_batch b;
	struct bg_put p = { .path = DIR_E "/new" };
	pthread_t th;
	int dev, dir, ret;

	ret = subscribed_ext4(&dev);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	dir = open(DIR_E, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dir);
	ASSERT_EQ(0, ioctl(dir, FIFREEZE, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, bg_put_fn, &p));
	while (!__atomic_load_n(&p.started, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_EQ(0, wait_sleeping(p.tid));
	EXPECT_FALSE(__atomic_load_n(&p.done, __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, fs_in_flight(dev, DIR_E));
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_E, 0, 5000));
	ASSERT_EQ(0, rec_drain(dev, &b));
	EXPECT_GT(0, rec_find(&b, VFSB_R_CREATE, "new"));
	ASSERT_EQ(0, ioctl(dir, FITHAW, 0));
	pthread_join(th, NULL);
	EXPECT_EQ(0, p.ret);
	ASSERT_EQ(0, rec_drain(dev, &b));
	EXPECT_LE(0, rec_find(&b, VFSB_R_CREATE, "new"));
	close(dir);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * A write(2) announces its change (rw_verify_area()) before it waits
 * for the freeze (file_start_write()): it holds the barrier until the
 * thaw, as the record it announced promises. And FIFREEZE issued while
 * a barrier waits on a held write neither deadlocks nor loses the
 * waiter: the freeze waits for the write, the barrier completes when
 * the write does.
 */
struct bg_freeze {
	int dir, ret;
	volatile pid_t tid;
};

static void *bg_freeze_fn(void *arg)
{
	struct bg_freeze *x = arg;

	__atomic_store_n(&x->tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	x->ret = ioctl(x->dir, FIFREEZE, 0) ? -errno : 0;
	return NULL;
}

/* A watched ext4 with a write(2) held in flight in it (userfaultfd). */
FIXTURE(held) {
	struct uffd_hold h;
	int dev, dir, fd;
	bool holding;
};

FIXTURE_SETUP(held)
{
	int ret;

	self->dev = self->dir = self->fd = -1;
	self->holding = false;
	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_E));
	self->dir = open(DIR_E, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->dir);
	self->fd = open(DIR_E "/held", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, uffd_hold_start(&self->h, self->fd));
	self->holding = true;
}

FIXTURE_TEARDOWN(held)
{
	if (self->holding && !uffd_hold_done(&self->h))
		uffd_hold_release(&self->h);
	if (self->fd >= 0)
		close(self->fd);
	if (self->dir >= 0) {
		ioctl(self->dir, FITHAW, 0);
		close(self->dir);
	}
	if (self->dev >= 0)
		close(self->dev);
	umount2(DIR_E, MNT_DETACH);
}

TEST_F(held, freeze_while_a_barrier_waits)
{
	struct bg_freeze f = { .dir = self->dir };
	pthread_t th;
	__u64 cookie;

	ASSERT_EQ(0, vfsb_barrier_start_path(self->dev, DIR_E, 0, &cookie));
	/* FIFREEZE in a thread: it waits for the held write */
	ASSERT_EQ(0, pthread_create(&th, NULL, bg_freeze_fn, &f));
	while (!__atomic_load_n(&f.tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	/* the freeze is under way, waiting for the held write */
	ASSERT_EQ(0, wait_sleeping(f.tid));
	EXPECT_EQ(VFSB_BARRIER_PENDING,
		  vfsb_barrier_poll(self->dev, cookie, NULL));
	EXPECT_EQ(0, uffd_hold_done(&self->h));
	EXPECT_EQ((ssize_t)self->h.u.page, uffd_hold_release(&self->h));
	pthread_join(th, NULL);
	EXPECT_EQ(0, f.ret);
	/* the write is done, the filesystem frozen: the barrier completed */
	EXPECT_EQ(0, vfsb_barrier_wait(self->dev, cookie, 5000));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_E, 0, 5000));
	EXPECT_EQ(0, ioctl(self->dir, FITHAW, 0));
}

/*
 * FS_IOC_SHUTDOWN with a write held in flight: the write ends (its
 * result is the filesystem's business), its section with it, and the
 * barrier returns; nothing is left in flight.
 */
TEST_F(held, shutdown_with_a_write_in_flight)
{
	__u32 how = SHUTDOWN_NOLOGFLUSH;

	EXPECT_LE(1, fs_in_flight(self->dev, DIR_E));
	ASSERT_EQ(0, ioctl(self->dir, FS_IOC_SHUTDOWN, &how));
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(self->dev, DIR_E, 0, 100));
	uffd_hold_release(&self->h);
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_E, 0, 5000));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_E));
	close(self->fd);
	self->fd = -1;
	close(self->dir);
	self->dir = -1;
	EXPECT_EQ(0, umount(DIR_E));
	EXPECT_EQ(1, list_count(self->dev));
}

/*
 * The scratch disk re-formatted and remounted in a loop under one
 * subscriber that barriers and reads: every unmount is announced, and
 * unwatching by id leaves no dead watch behind.
 */
FIXTURE(churn) {};
FIXTURE_SETUP(churn) {}
FIXTURE_TEARDOWN(churn) {}

TEST_F_TIMEOUT(churn, mount_churn_leaves_no_dead_watch, 300)
{
	static struct rec_batch b;
	int dev, i, j, ret, unmounts = 0;
	long id;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, umount(DIR_E));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	for (i = 0; i < 8; i++) {
		/* mkfs each time: a new UUID, maybe the same dev */
		ASSERT_EQ(0, mount_ext4(DIR_E));
		id = watch_id(dev, DIR_E);
		ASSERT_LT(0, id);
		ASSERT_EQ(0, put_file(DIR_E "/f", "data"));
		EXPECT_EQ(0, vfsb_barrier_fd(dev, -1, VFSB_BARRIER_ALL, 5000,
					     NULL));
		ASSERT_EQ(0, umount(DIR_E));
		b.n = 0;
		b.used = 0;
		ASSERT_EQ(0, rec_drain(dev, &b));
		for (j = 0; j < b.n; j++)
			unmounts += b.rec[j]->type == VFSB_REC_UNMOUNT;
		EXPECT_EQ(0, vfsb_unwatch_id(dev, id, NULL));
		EXPECT_EQ(0, list_count(dev));
	}
	EXPECT_EQ(8, unmounts);
	close(dev);
}

TEST_HARNESS_MAIN
