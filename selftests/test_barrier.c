// SPDX-License-Identifier: GPL-2.0
/*
 * The barrier against a data write held in flight with userfaultfd:
 * it waits for that write only, never blocks new writes, and times out,
 * takes signals and works asynchronously as documented.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/xattr.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "vfsb.h"
#include "task.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define DIR_A "/tmp/vb-a"
#define DIR_B "/tmp/vb-b"
#define DIR_C "/tmp/vb-c"

FIXTURE(watched) {
	int dev;
	int fd;		/* DIR_A/held, the file the held write goes to */
};

FIXTURE_SETUP(watched)
{
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	ASSERT_EQ(0, mount_tmpfs(DIR_B));
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_A));
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_B));
	self->fd = open(DIR_A "/held", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(watched)
{
	close(self->fd);
	close(self->dev);
	umount2(DIR_A, MNT_DETACH);
	umount2(DIR_B, MNT_DETACH);
}

TEST_F(watched, barrier_waits_for_held_write_only)
{
	struct uffd_hold h;
	struct pollfd pfd;
	__u64 cookie;

	ASSERT_EQ(0, uffd_hold_start(&h, self->fd));
	EXPECT_LE(1, fs_in_flight(self->dev, DIR_A));

	/* the barrier cannot complete while the write is held */
	ASSERT_EQ(0, vfsb_barrier_start_path(self->dev, DIR_A, 0, &cookie));
	ASSERT_NE(0, cookie);
	EXPECT_EQ(VFSB_BARRIER_PENDING, vfsb_barrier_poll(self->dev, cookie, NULL));
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(self->dev, DIR_A, 0, 200));
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(self->dev, DIR_A,
						VFSB_BARRIER_EXPEDITED, 200));

	/* ... but new writes, creates and renames on the same fs complete */
	EXPECT_EQ(0, put_file(DIR_A "/new", "new data"));
	EXPECT_EQ(0, mkdir(DIR_A "/dir", 0755));
	EXPECT_EQ(0, rename(DIR_A "/new", DIR_A "/dir/renamed"));
	EXPECT_EQ(0, unlink(DIR_A "/dir/renamed"));
	/* ... and a barrier on another watched fs completes */
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_B, 0, 0));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_B, VFSB_BARRIER_EXPEDITED, 0));
	EXPECT_FALSE(uffd_hold_done(&h));
	EXPECT_EQ(VFSB_BARRIER_PENDING, vfsb_barrier_poll(self->dev, cookie, NULL));

	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_A, 0, 0));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_A, VFSB_BARRIER_EXPEDITED, 0));
	/* the async barrier completes too, and poll() says so */
	pfd.fd = self->dev;
	pfd.events = POLLPRI;
	EXPECT_EQ(1, poll(&pfd, 1, 30000));
	EXPECT_TRUE(pfd.revents & POLLPRI);
	EXPECT_EQ(VFSB_BARRIER_DONE, vfsb_barrier_poll(self->dev, cookie, NULL));
	/* a cookie reported done is forgotten */
	EXPECT_EQ(-ENOENT, vfsb_barrier_poll(self->dev, cookie, NULL));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_A));
}

TEST_F(watched, barrier_all_waits_for_each_watch)
{
	struct vfsb_barrier b = { .flags = VFSB_BARRIER_ALL, .timeout_ms = 200 };
	struct uffd_hold h;

	ASSERT_EQ(0, uffd_hold_start(&h, self->fd));
	EXPECT_EQ(-ETIMEDOUT, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER, &b));
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	b.timeout_ms = 0;
	EXPECT_EQ(0, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER, &b));
}

static void on_usr1(int sig)
{
	(void)sig;
}

struct barrier_thread {
	int dev;
	pid_t tid;
	int ret;
};

static void *barrier_thread(void *arg)
{
	struct barrier_thread *bt = arg;

	__atomic_store_n(&bt->tid, gettid(), __ATOMIC_RELEASE);
	bt->ret = vfsb_barrier_path(bt->dev, DIR_A, 0, 0);
	return NULL;
}

TEST_F(watched, barrier_is_interruptible_and_retryable)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	struct barrier_thread bt = { .dev = self->dev };
	struct uffd_hold h;
	pthread_t th;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, uffd_hold_start(&h, self->fd));
	ASSERT_EQ(0, pthread_create(&th, NULL, barrier_thread, &bt));
	while (!__atomic_load_n(&bt.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	/* the thread sleeps in the barrier (the write is held) */
	ASSERT_EQ(0, wait_sleeping(bt.tid));
	ASSERT_EQ(0, pthread_kill(th, SIGUSR1));
	pthread_join(th, NULL);
	EXPECT_EQ(-EINTR, bt.ret);
	/* safe to retry: still waits for the held write, then completes */
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(self->dev, DIR_A, 0, 100));
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_A, 0, 0));
}

static volatile sig_atomic_t usr2_seen;

static void on_usr2(int sig)
{
	(void)sig;
	usr2_seen = 1;
}

/* A signal whose handler has SA_RESTART: the barrier goes on waiting. */
TEST_F(watched, barrier_restarts_under_sa_restart)
{
	struct sigaction sa = { .sa_handler = on_usr2, .sa_flags = SA_RESTART };
	struct barrier_thread bt = { .dev = self->dev };
	struct uffd_hold h;
	pthread_t th;

	usr2_seen = 0;
	ASSERT_EQ(0, sigaction(SIGUSR2, &sa, NULL));
	ASSERT_EQ(0, uffd_hold_start(&h, self->fd));
	ASSERT_EQ(0, pthread_create(&th, NULL, barrier_thread, &bt));
	while (!__atomic_load_n(&bt.tid, __ATOMIC_ACQUIRE))
		sched_yield();
	ASSERT_EQ(0, wait_sleeping(bt.tid));
	ASSERT_EQ(0, pthread_kill(th, SIGUSR2));
	while (!usr2_seen)
		sched_yield();
	/* the handler ran, and the thread sleeps in the barrier again */
	ASSERT_EQ(0, wait_sleeping(bt.tid));
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	pthread_join(th, NULL);
	EXPECT_EQ(0, bt.ret);
}

TEST_F(watched, async_barrier_limits)
{
	struct vfsb_barrier_poll bp = { 0 };
	struct uffd_hold h;
	__u64 cookies[VFSB_MAX_ASYNC], cookie;
	int i, done = 0;

	ASSERT_EQ(0, uffd_hold_start(&h, self->fd));
	for (i = 0; i < VFSB_MAX_ASYNC; i++) {
		ASSERT_EQ(0, vfsb_barrier_start_path(self->dev, DIR_A, 0, &cookies[i]));
		ASSERT_NE(0, cookies[i]);
	}
	/* all pending: one more is refused, nothing is done yet */
	EXPECT_EQ(-EAGAIN, vfsb_barrier_start_path(self->dev, DIR_A, 0, &cookie));
	EXPECT_EQ(0, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER_POLL, &bp));
	EXPECT_EQ(VFSB_BARRIER_PENDING, bp.state);
	EXPECT_EQ(-ENOENT, vfsb_barrier_poll(self->dev, 12345678, NULL));
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	/* cookie 0 reaps any completed one; all complete */
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_A, 0, 0));
	while (done < VFSB_MAX_ASYNC) {
		struct pollfd pfd = { .fd = self->dev, .events = POLLPRI };

		ASSERT_EQ(1, poll(&pfd, 1, 30000));
		memset(&bp, 0, sizeof(bp));
		ASSERT_EQ(0, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER_POLL, &bp));
		if (bp.state == VFSB_BARRIER_DONE) {
			EXPECT_NE(0, bp.done_cookie);
			done++;
		}
	}
	EXPECT_EQ(VFSB_MAX_ASYNC, done);
}

/*
 * Barriers pending on a filesystem whose writer is stuck count against
 * the opener that started them, never against another opener's barriers
 * on another filesystem: 66 openers with 64 pending barriers each on
 * DIR_A (more than the 4096 the module once allowed all openers
 * together), and a new opener's barrier on DIR_B still completes.
 */
TEST_F(watched, stuck_barriers_refuse_no_other_opener)
{
	enum { OPENERS = 4096 / VFSB_MAX_ASYNC + 2 };
	struct uffd_hold h;
	int fds[OPENERS], i, j, started = 0, fresh;
	__u64 cookie;

	ASSERT_EQ(0, uffd_hold_start(&h, self->fd));
	for (i = 0; i < OPENERS; i++) {
		fds[i] = vfsb_open();
		ASSERT_LE(0, fds[i]);
		for (j = 0; j < VFSB_MAX_ASYNC; j++)
			if (!vfsb_barrier_start_path(fds[i], DIR_A, 0, &cookie))
				started++;
	}
	TH_LOG("%d barriers pending on the stuck filesystem", started);
	fresh = vfsb_open();
	ASSERT_LE(0, fresh);
	EXPECT_EQ(0, vfsb_barrier_path(fresh, DIR_B, 0, 3000));
	EXPECT_EQ(OPENERS * VFSB_MAX_ASYNC, started);
	close(fresh);
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	for (i = 0; i < OPENERS; i++)
		close(fds[i]);
}

TEST_F(watched, bad_requests)
{
	struct vfsb_barrier b = { .fd = -1 };
	struct vfsb_watch w = { .fd = -1 };
	__u64 cookie;

	ASSERT_EQ(0, mount_tmpfs(DIR_C));
	/* nobody watches C */
	EXPECT_EQ(-ENOENT, vfsb_barrier_path(self->dev, DIR_C, 0, 0));
	EXPECT_EQ(-ENOENT, vfsb_unwatch_path(self->dev, DIR_C));
	EXPECT_EQ(-ENOENT, vfsb_barrier_start_path(self->dev, DIR_C, 0, &cookie));
	EXPECT_EQ(-EBADF, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER, &b));
	EXPECT_EQ(-EBADF, vfsb_ioctl(self->dev, VFSB_IOC_WATCH, &w));
	EXPECT_EQ(-EEXIST, vfsb_watch_path(self->dev, DIR_A));
	b.fd = self->fd;
	b.flags = 1U << 7;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER, &b));
	b.flags = 0;
	b.reserved = 1;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER, &b));
	w.fd = self->fd;
	w.flags = 1;
	EXPECT_EQ(-EINVAL, vfsb_ioctl(self->dev, VFSB_IOC_WATCH, &w));
	EXPECT_EQ(-EFAULT, vfsb_ioctl(self->dev, VFSB_IOC_BARRIER, NULL));
	EXPECT_EQ(-EFAULT, vfsb_ioctl(self->dev, VFSB_IOC_STATS, (void *)8));
	/* unwatch, then the barrier on it is refused */
	EXPECT_EQ(0, vfsb_unwatch_path(self->dev, DIR_B));
	EXPECT_EQ(-ENOENT, vfsb_barrier_path(self->dev, DIR_B, 0, 0));
	umount2(DIR_C, MNT_DETACH);
}

TEST_F(watched, failed_write_access_leaves_no_section)
{
	long long begun;
	int fd;

	ASSERT_EQ(0, mkdir(DIR_A "/ro", 0755));
	ASSERT_EQ(0, mount(DIR_A, DIR_A "/ro", NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount(NULL, DIR_A "/ro", NULL,
			   MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
	begun = fs_begun(self->dev, DIR_A);
	EXPECT_EQ(-1, mkdir(DIR_A "/ro/x", 0755));
	EXPECT_EQ(EROFS, errno);
	EXPECT_EQ(-1, open(DIR_A "/ro/y", O_CREAT | O_WRONLY, 0644));
	EXPECT_EQ(EROFS, errno);
	EXPECT_EQ(-1, chmod(DIR_A "/ro/held", 0600));
	EXPECT_EQ(EROFS, errno);
	EXPECT_EQ(-1, truncate(DIR_A "/ro/held", 0));
	EXPECT_EQ(EROFS, errno);
	/* fsetxattr(): the mnt_want_put_file() side */
	fd = open(DIR_A "/ro/held", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, fsetxattr(fd, "trusted.vfsb", "1", 1, 0));
	EXPECT_EQ(EROFS, errno);
	close(fd);
	/*
	 * The failed calls entered mnt_want_write*(), but a section opens
	 * only once write access is granted (a writer blocked on a frozen
	 * filesystem must not hold the barrier): none opened, none is left.
	 */
	EXPECT_EQ(begun, fs_begun(self->dev, DIR_A));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_A));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_A, 0, 5000));
	umount2(DIR_A "/ro", MNT_DETACH);
}

/* Teardown at any moment: close and rmmod while a write is held. */
TEST(close_and_rmmod_while_write_held)
{
	struct uffd_hold h;
	int dev, fd;

	ASSERT_EQ(0, mount_tmpfs(DIR_C));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_C));
	fd = open(DIR_C "/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uffd_hold_start(&h, fd));
	/* the open device pins the module */
	EXPECT_EQ(-EWOULDBLOCK, vfsb_module_unload());
	/* close returns at once, though a section is in flight */
	close(dev);
	/* the tracking now waits for that section; rmmod is refused meanwhile */
	EXPECT_EQ(-EWOULDBLOCK, vfsb_module_unload());
	EXPECT_TRUE(vfsb_module_loaded());
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	/* then the teardown finishes and the module may go (bounded wait) */
	EXPECT_EQ(0, vfsb_module_wait_refcnt(0, 30000));
	EXPECT_EQ(0, vfsb_module_unload());
	EXPECT_EQ(0, vfsb_module_load());
	close(fd);
	umount2(DIR_C, MNT_DETACH);
}

TEST(unmount_watched_fs_repeatedly)
{
	int i;

	for (i = 0; i < 20; i++) {
		struct vfsb_barrier b = { .flags = VFSB_BARRIER_ALL };
		struct vfsb_sb_stats st[8];
		struct vfsb_stats req = { .capacity = 8,
					  .entry_size = sizeof(st[0]),
					  .entries_ptr = (unsigned long)st };
		int dev = vfsb_open();

		ASSERT_LE(0, dev);
		ASSERT_EQ(0, mount_tmpfs(DIR_C));
		ASSERT_EQ(0, vfsb_watch_path(dev, DIR_C));
		ASSERT_EQ(0, put_file(DIR_C "/f", "data"));
		ASSERT_EQ(0, umount(DIR_C));
		/* the tracking stays, marked unmounted, until close */
		ASSERT_EQ(0, vfsb_ioctl(dev, VFSB_IOC_STATS, &req));
		ASSERT_EQ(1U, req.count);
		EXPECT_TRUE(st[0].flags & VFSB_STATS_UNMOUNTED);
		EXPECT_EQ(st[0].sections_begun, st[0].sections_ended);
		EXPECT_EQ(0, vfsb_ioctl(dev, VFSB_IOC_BARRIER, &b));
		/* a new fs mounted there can be watched again */
		ASSERT_EQ(0, mount_tmpfs(DIR_C));
		EXPECT_EQ(0, vfsb_watch_path(dev, DIR_C));
		EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_C, 0, 0));
		close(dev);
		ASSERT_EQ(0, umount(DIR_C));
	}
}

struct frozen_writer {
	int ret;
	volatile int done;
};

static void *frozen_writer(void *arg)
{
	struct frozen_writer *fw = arg;

	fw->ret = put_file("/tmp/vb-frz/new", "data");
	__atomic_store_n(&fw->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The contrast that motivates the barrier: FIFREEZE also waits for the
 * writes in flight, but then blocks every new writer until FITHAW
 * (ext4 on the scratch disk; tmpfs cannot freeze). The barrier tests
 * above show new writes completing while a barrier waits.
 */
TEST(fsfreeze_blocks_new_writes_the_barrier_does_not)
{
	struct frozen_writer fw = { 0 };
	struct uffd_hold h;
	__u64 cookie;
	pthread_t th;
	int ret, dir, dev, fd, i;

	ret = mount_ext4("/tmp/vb-frz");
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	dir = open("/tmp/vb-frz", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dir);
	ASSERT_EQ(0, ioctl(dir, FIFREEZE, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, frozen_writer, &fw));
	/* demonstration bound: the writer stays blocked while frozen */
	for (i = 0; i < 30 && !__atomic_load_n(&fw.done, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	EXPECT_FALSE(__atomic_load_n(&fw.done, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, ioctl(dir, FITHAW, 0));
	pthread_join(th, NULL);
	EXPECT_EQ(0, fw.ret);

	/* the same new write while a barrier waits on a held write: done */
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, "/tmp/vb-frz"));
	fd = open("/tmp/vb-frz/held", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uffd_hold_start(&h, fd));
	EXPECT_EQ(0, vfsb_barrier_start_path(dev, "/tmp/vb-frz", 0, &cookie));
	EXPECT_EQ(0, put_file("/tmp/vb-frz/new", "again"));
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(dev, "/tmp/vb-frz", 0, 100));
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	EXPECT_EQ(0, vfsb_barrier_path(dev, "/tmp/vb-frz", 0, 0));
	close(fd);
	close(dev);
	close(dir);
	umount2("/tmp/vb-frz", MNT_DETACH);
}

static int reaped_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

/*
 * A mkdir() whose mnt_want_write() is refused by a remount read-only
 * after the entry callback's own check exits with a write access token
 * and no section. Its entry must not become the next task's at the same
 * address (the slot rule compares start times), and unload frees what
 * is left with the counts balanced. Many short-lived tasks follow each
 * one so that some take its address.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

TEST_F_TIMEOUT(slow, tokens_of_exited_tasks_are_never_inherited, 400)
{
	int dev, fd, k, j, ret, stale = 0;
	char path[64];
	pid_t pid;

	ret = mount_ext4("/tmp/vb-tok");
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir("/tmp/vb-tok/ro", 0755));
	ASSERT_EQ(0, put_file("/tmp/vb-tok/f", "x"));
	ASSERT_EQ(0, mount("/tmp/vb-tok", "/tmp/vb-tok/ro", NULL, MS_BIND,
			   NULL));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, "/tmp/vb-tok"));
	for (k = 0; k < 40; k++) {
		ASSERT_EQ(0, mount(NULL, "/tmp/vb-tok/ro", NULL,
				   MS_REMOUNT | MS_BIND, NULL));
		fd = open("/tmp/vb-tok", O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		/* the mkdir passes the callback's check, then blocks */
		ASSERT_EQ(0, ioctl(fd, FIFREEZE, 0));
		snprintf(path, sizeof(path), "/tmp/vb-tok/ro/x%d", k);
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(mkdir(path, 0755) && errno == EROFS ? 0 : 1);
		ASSERT_EQ(0, wait_proc_state(pid, "D", 10000));
		ASSERT_EQ(0, mount(NULL, "/tmp/vb-tok/ro", NULL,
				   MS_REMOUNT | MS_BIND | MS_RDONLY, NULL));
		ASSERT_EQ(0, ioctl(fd, FITHAW, 0));
		close(fd);
		if (reaped_status(pid) == 0)
			stale++;
		for (j = 0; j < 24; j++) {
			pid = fork();
			ASSERT_LE(0, pid);
			if (!pid)
				_exit(chmod("/tmp/vb-tok/f", 0600 + (j & 1)));
			ASSERT_EQ(0, reaped_status(pid));
		}
	}
	/* every mkdir took the path that leaves a token */
	EXPECT_EQ(40, stale);
	EXPECT_EQ(0, vfsb_barrier_path(dev, "/tmp/vb-tok", 0, 5000));
	EXPECT_EQ(0, fs_in_flight(dev, "/tmp/vb-tok"));
	EXPECT_EQ(0, vfsb_unwatch_path(dev, "/tmp/vb-tok"));
	close(dev);
	umount2("/tmp/vb-tok/ro", MNT_DETACH);
	umount2("/tmp/vb-tok", MNT_DETACH);
	EXPECT_EQ(0, vfsb_module_wait_refcnt(0, 10000));
	EXPECT_EQ(0, vfsb_module_unload());
	EXPECT_EQ(0, vfsb_module_load());
}

TEST_HARNESS_MAIN
