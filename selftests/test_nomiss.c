// SPDX-License-Identifier: GPL-2.0
/*
 * Never miss silently: no write outside a section without a signal, no
 * record outside a section, and every way the module could lose one
 * made visible.
 *
 * - many_*: thousands of writers held in flight at once (each blocked on
 *   a userfaultfd page of its own, inside the write), all waited for by
 *   the barrier: it stays pending until the last one is released, and
 *   nothing is counted missed. write(2) with 10000 writers, AIO with
 *   2000, io_uring with 600 (one ring each: io-wq runs a ring's writes
 *   to one regular file one at a time).
 * - a section whose bookkeeping cannot be allocated (the fail_alloc
 *   knob) is announced unfenced, with a RESCAN record.
 * - a data helper's call whose return hook finds no instance free (the
 *   pool emptied by fallocate(2) calls held on a frozen ext4) gives its
 *   filesystem a RESCAN at the next barrier; where there is no pool,
 *   every call is bracketed.
 * - the closing hooks cannot be switched off (ftrace_enabled=0 is
 *   refused while they are in), and a group whose completion hook is
 *   missing (the fail_hook knob) is not hooked at all: its writes are
 *   announced unfenced with a RESCAN, and no barrier hangs on them.
 * - an operation that began before the watch announces inside a
 *   section; a fenced barrier waits for writes that began before it.
 * - coalescing keys on the filesystem too; pseudo filesystems cannot be
 *   watched; STATS does not hold the module up while it copies; a stuck
 *   filesystem's expedited barriers do not delay another's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>

#include "vfsb.h"
#include "vfsb_uring.h"
#include "aio.h"
#include "fuse_hold.h"
#include "modparam.h"
#include "rec_batch.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define DIR_A	"/tmp/nm-a"
#define DIR_B	"/tmp/nm-b"
#define DIR_F	"/tmp/nm-fuse"

/* ---- small helpers ---- */

static struct rec_batch *batch_new(void)
{
	return calloc(1, sizeof(struct rec_batch));
}

/* The first record of type on dev (any dev when 0), or NULL. */
static struct vfsb_record *rec_of_type(struct rec_batch *b, int type,
				       __u32 dev)
{
	int i;

	for (i = 0; i < b->n; i++)
		if (b->rec[i]->type == type && (!dev || b->rec[i]->dev == dev))
			return b->rec[i];
	return NULL;
}

/* new_encode_dev() of path's filesystem, as records carry it. */
static __u32 rec_dev_of(const char *path)
{
	dev_t d;

	if (vfsb_path_sb_dev(path, &d))
		return 0;
	return (minor(d) & 0xff) | (major(d) << 8) | ((minor(d) & ~0xffU) << 12);
}

/* ---- many writers held at once ---- */

enum many_kind { MANY_WRITE, MANY_AIO, MANY_URING };
/* writers held at most on a lockdep kernel (many_writers()) */
#define MANY_LOCKDEP	2000

/*
 * n writers, each writing 1 byte to a file of its own from a page of
 * its own in a region registered with userfaultfd and never filled:
 * each blocks inside its write, in the kernel, until its page comes.
 */
struct many {
	enum many_kind kind;
	int n;
	int uffd;
	size_t page;
	char *region;
	char *src;
	int *fds;
	pthread_t *th;
	int *res;
	int held;		/* writers seen blocked so far */
	atomic_int done;
};

struct many_arg {
	struct many *m;
	int i;
};

static void *many_writer(void *arg)
{
	struct many_arg *a = arg;
	struct many *m = a->m;
	char *buf = m->region + (size_t)a->i * m->page;
	int fd = m->fds[a->i], ret = 0;

	switch (m->kind) {
	case MANY_WRITE:
		ret = write(fd, buf, 1) == 1 ? 0 : -errno;
		break;
	case MANY_AIO:
		ret = aio_write1(fd, buf, 1, 0);
		break;
	case MANY_URING: {
		struct vfsb_uring r = { 0 };

		ret = vfsb_uring_init(&r, 2);
		if (!ret)
			ret = vfsb_uring_write(&r, fd, buf, 1, 0, 1);
		vfsb_uring_exit(&r);
		break;
	}
	}
	m->res[a->i] = ret;
	atomic_fetch_add(&m->done, 1);
	free(a);
	return NULL;
}

/* Room for n threads and n open files in this process. */
static int many_limits(int n)
{
	/* a file each, and an io_uring each for MANY_URING */
	struct rlimit rl = { .rlim_cur = 2 * n + 256, .rlim_max = 2 * n + 256 };
	const char *knob = "/proc/sys/kernel/threads-max";
	char buf[32];

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	/* raise only: io_uring's workers and the kernel's threads count too */
	if (!sysfs_read(knob, buf, sizeof(buf)) && atoi(buf) < 3 * n + 4096) {
		snprintf(buf, sizeof(buf), "%d", 3 * n + 4096);
		sysfs_write(knob, buf);
	}
	/*
	 * and as many pids: a small kernel (BASE_SMALL) defaults to 4096
	 * and allows at most 32768
	 */
	knob = "/proc/sys/kernel/pid_max";
	if (!sysfs_read(knob, buf, sizeof(buf)) && atoi(buf) < 3 * n + 4096) {
		snprintf(buf, sizeof(buf), "%d", 3 * n + 4096);
		if (sysfs_write(knob, buf))
			sysfs_write(knob, "32768");
	}
	return 0;
}

/*
 * Opens n files in dir and starts the n writers; returns once every one
 * is held (its fault has reached the uffd): 0 or -errno.
 */
static int many_start(struct many *m, enum many_kind kind, int n,
		      const char *dir)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	pthread_attr_t attr;
	char path[PATH_MAX];
	int i, faults = 0;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->n = n;
	m->page = sysconf(_SC_PAGESIZE);
	if (many_limits(n))
		return -errno;
	m->uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (m->uffd < 0 || ioctl(m->uffd, UFFDIO_API, &api))
		return -errno;
	m->region = mmap(NULL, (size_t)n * m->page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m->src = mmap(NULL, m->page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m->fds = calloc(n, sizeof(*m->fds));
	m->th = calloc(n, sizeof(*m->th));
	m->res = calloc(n, sizeof(*m->res));
	if (m->region == MAP_FAILED || m->src == MAP_FAILED || !m->fds ||
	    !m->th || !m->res)
		return -ENOMEM;
	memset(m->src, 'm', m->page);
	reg.range.start = (unsigned long)m->region;
	reg.range.len = (size_t)n * m->page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(m->uffd, UFFDIO_REGISTER, &reg))
		return -errno;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/m%d", dir, i);
		m->fds[i] = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (m->fds[i] < 0)
			return -errno;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < n; i++) {
		struct many_arg *a = malloc(sizeof(*a));

		if (!a)
			return -ENOMEM;
		a->m = m;
		a->i = i;
		if (pthread_create(&m->th[i], &attr, many_writer, a)) {
			fprintf(stderr, "# thread %d of %d could not start\n",
				i, n);
			return -EAGAIN;
		}
	}
	pthread_attr_destroy(&attr);
	/*
	 * Every writer is held once its fault message is here. Bounded:
	 * 60 s without a new one ends the wait (m->held says how many).
	 */
	while (faults < n) {
		struct pollfd p = { .fd = m->uffd, .events = POLLIN };
		struct uffd_msg msg;

		if (poll(&p, 1, 60000) != 1)
			return -ETIMEDOUT;
		if (read(m->uffd, &msg, sizeof(msg)) != sizeof(msg))
			return -EIO;
		if (msg.event == UFFD_EVENT_PAGEFAULT)
			m->held = ++faults;
	}
	return 0;
}

/* Supplies pages [from, to): their writers go on. */
static int many_fill(struct many *m, int from, int to)
{
	struct uffdio_copy copy;
	int i;

	for (i = from; i < to; i++) {
		memset(&copy, 0, sizeof(copy));
		copy.dst = (unsigned long)(m->region + (size_t)i * m->page);
		copy.src = (unsigned long)m->src;
		copy.len = m->page;
		if (ioctl(m->uffd, UFFDIO_COPY, &copy))
			return -errno;
	}
	return 0;
}

static void many_join(struct many *m, int from, int to)
{
	int i;

	for (i = from; i < to; i++)
		pthread_join(m->th[i], NULL);
}

static void many_free(struct many *m)
{
	int i;

	if (m->uffd >= 0)
		close(m->uffd);
	for (i = 0; m->fds && i < m->n; i++)
		if (m->fds[i] > 0)
			close(m->fds[i]);
	free(m->fds);
	free(m->th);
	free(m->res);
	if (m->region && m->region != MAP_FAILED)
		munmap(m->region, (size_t)m->n * m->page);
	if (m->src && m->src != MAP_FAILED)
		munmap(m->src, m->page);
}

/*
 * n writers of kind held on a watched tmpfs: the barrier waits for each,
 * to the last one (which began last: with a fixed number of places for
 * sections, the one that would lack one), and nothing is missed.
 */
static void many_writers(struct __test_metadata *_metadata,
			 enum many_kind kind, int n)
{
	struct timespec t0, t1;
	struct vfsb_sb_stats st;
	struct many m;
	__u64 cookie;
	int dev, i, ret;

	/*
	 * A lockdep kernel (the debug kernel of make check-matrix) checks
	 * every lock of every writer: 10 000 of them took 146 s to hold
	 * alone and 400 s beside other guests. What it is there for (lock
	 * order, use after free, leaks) 2 000 show as well; the release
	 * kernels keep the full count.
	 */
	if (n > MANY_LOCKDEP && !access("/proc/lockdep", F_OK)) {
		TH_LOG("lockdep kernel: %d writers, not %d", MANY_LOCKDEP, n);
		n = MANY_LOCKDEP;
	}
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	ASSERT_EQ(0, mount(NULL, DIR_A, NULL, MS_REMOUNT, "size=512m"));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = many_start(&m, kind, n, DIR_A);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, ret) TH_LOG("starting %d writers: %s (%d held)", n,
				 strerror(-ret), m.held);
	TH_LOG("%d writers held in %.1f s", n, (t1.tv_sec - t0.tv_sec) +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_A, &st));
	EXPECT_LE((__u64)n, st.in_flight);
	EXPECT_EQ(0, st.missed);
	ASSERT_EQ(0, vfsb_barrier_start_path(dev, DIR_A, 0, &cookie));
	/* all but the last: the barrier must still wait for it */
	ASSERT_EQ(0, many_fill(&m, 0, n - 1));
	many_join(&m, 0, n - 1);
	EXPECT_EQ(n - 1, atomic_load(&m.done));
	EXPECT_EQ(VFSB_BARRIER_PENDING, vfsb_barrier_poll(dev, cookie, NULL))
		TH_LOG("the barrier returned with a writer still in flight");
	ASSERT_EQ(0, many_fill(&m, n - 1, n));
	many_join(&m, n - 1, n);
	EXPECT_EQ(0, vfsb_barrier_wait(dev, cookie, 60000));
	for (i = 0; i < n; i++)
		if (m.res[i])
			break;
	EXPECT_EQ(n, i) TH_LOG("writer %d: %s", i, strerror(-m.res[i]));
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_A, &st));
	EXPECT_EQ(0, st.in_flight);
	EXPECT_EQ(0, st.missed);
	many_free(&m);
	close(dev);
	umount2(DIR_A, MNT_DETACH);
}

/* A fixture for its longer time limit: thousands of threads under TCG. */
FIXTURE(many) {};
FIXTURE_SETUP(many) {}
FIXTURE_TEARDOWN(many) {}

TEST_F_TIMEOUT(many, write_writers_all_waited_for, 600)
{
	many_writers(_metadata, MANY_WRITE, 10000);
}

TEST_F_TIMEOUT(many, aio_writers_all_waited_for, 600)
{
	many_writers(_metadata, MANY_AIO, 2000);
}

TEST_F_TIMEOUT(many, uring_writers_all_waited_for, 600)
{
	many_writers(_metadata, MANY_URING, 600);
}

/* ---- what cannot be bracketed is said ---- */

/*
 * No memory for a section's bookkeeping: the write goes on unbracketed,
 * its record says so, and a RESCAN record names its filesystem.
 */
TEST(failed_allocation_is_announced_as_rescan)
{
	struct rec_batch *b = batch_new();
	struct vfsb_sb_stats st;
	struct vfsb_record *r;
	char why[64];
	int dev, fd, i;
	__u32 sdev;

	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	sdev = rec_dev_of(DIR_A);
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));
	fd = open(DIR_A "/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rec_drain(dev, b));
	ASSERT_EQ(0, param_set("fail_alloc", "1"));
	EXPECT_EQ(5, write(fd, "hello", 5));
	param_set("fail_alloc", "0");
	close(fd);
	ASSERT_EQ(0, rec_drain(dev, b));
	i = rec_find(b, VFSB_R_DATA_WRITE, NULL);
	ASSERT_LE(0, i);
	EXPECT_TRUE(b->rec[i]->flags & VFSB_RECF_UNFENCED);
	r = rec_of_type(b, VFSB_REC_RESCAN, sdev);
	ASSERT_NE(NULL, r) TH_LOG("no RESCAN record for the filesystem");
	vfsb_rescan_format(r->reasons, why, sizeof(why));
	EXPECT_TRUE(r->reasons & VFSB_RESCAN_NO_MEMORY) TH_LOG("why: %s", why);
	EXPECT_LE(1, r->lost);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_A, &st));
	EXPECT_LE(1, st.missed);
	EXPECT_LE(1, st.rescans);
	EXPECT_EQ(0, st.in_flight);
	close(dev);
	free(b);
	umount2(DIR_A, MNT_DETACH);
}

/*
 * While the hooks are in, ftrace cannot be switched off: that would stop
 * the hooks that close sections and strand every open one.
 */
TEST(ftrace_cannot_be_switched_off_under_the_hooks)
{
	const char *knob = "/proc/sys/kernel/ftrace_enabled";
	char was[16];
	int dev, fd, ret;

	if (sysfs_read(knob, was, sizeof(was)))
		SKIP(return, "no %s on this kernel", knob);
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));
	ret = sysfs_write(knob, "0");
	EXPECT_NE(0, ret) TH_LOG("ftrace_enabled=0 was accepted");
	if (!ret)
		sysfs_write(knob, "1");
	/* and the hooks still work: a write opens and closes its section */
	fd = open(DIR_A "/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, write(fd, "x", 1));
	close(fd);
	EXPECT_EQ(0, fs_in_flight(dev, DIR_A));
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_A, 0, 10000));
	close(dev);
	umount2(DIR_A, MNT_DETACH);
}

/*
 * A group of hooks whose completion hook this kernel lacks (simulated
 * with fail_hook) is not hooked at all: its submissions open nothing
 * that could not be closed; their writes are announced unfenced with a
 * RESCAN, and the barrier does not hang.
 */
/* Waits out the hooks' linger (10 s) before and after. */
FIXTURE(hookset) {};
FIXTURE_SETUP(hookset) {}
FIXTURE_TEARDOWN(hookset) {}

TEST_F_TIMEOUT(hookset, a_group_without_its_completion_is_left_out, 120)
{
	struct rec_batch *b = batch_new();
	struct vfsb_uring r = { 0 };
	struct vfsb_version v;
	struct vfsb_record *rec;
	int dev, fd, i;

	ASSERT_NE(NULL, b);
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, wait_hooks_off(dev));
	ASSERT_EQ(0, param_set("fail_hook", "io_complete_rw"));
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));
	ASSERT_EQ(0, vfsb_get_version(dev, &v));
	EXPECT_FALSE(v.coverage & VFSB_COV_IO_URING);
	EXPECT_TRUE(v.coverage & VFSB_COV_DATA);
	if (v.coverage_known & VFSB_COV_AIO)
		EXPECT_EQ(VFSB_COV_AIO, v.coverage & VFSB_COV_AIO);
	fd = open(DIR_A "/f", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, rec_drain(dev, b));
	if (vfsb_uring_init(&r, 4)) {
		vfsb_uring_exit(&r);
		SKIP(goto out, "no io_uring here");
	}
	EXPECT_EQ(0, vfsb_uring_write(&r, fd, "data", 4, 0, 1));
	vfsb_uring_exit(&r);
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_A, 0, 10000));
	EXPECT_EQ(0, fs_in_flight(dev, DIR_A));
	ASSERT_EQ(0, rec_drain(dev, b));
	i = rec_find(b, VFSB_R_DATA_WRITE, NULL);
	ASSERT_LE(0, i);
	EXPECT_TRUE(b->rec[i]->flags & VFSB_RECF_UNFENCED);
	rec = rec_of_type(b, VFSB_REC_RESCAN, rec_dev_of(DIR_A));
	EXPECT_NE(NULL, rec);
out:
	close(fd);
	close(dev);
	/* sysfs drops an empty write: a newline is what clears it */
	param_set("fail_hook", "\n");
	/* the next test gets the whole table again */
	dev = vfsb_open();
	if (dev >= 0) {
		wait_hooks_off(dev);
		if (!vfsb_watch_path(dev, DIR_A) &&
		    !vfsb_get_version(dev, &v))
			EXPECT_EQ(v.coverage_known & VFSB_COV_IO_URING,
				  v.coverage & VFSB_COV_IO_URING);
		vfsb_unwatch_path(dev, DIR_A);
		wait_hooks_off(dev);
		close(dev);
	}
	param_set("hooks_linger_ms", "10000");
	free(b);
	umount2(DIR_A, MNT_DETACH);
}

/* ---- a return hook with no instance ---- */

#define DIR_E	"/tmp/nm-ext4"

/*
 * The data helpers' sections come from return hooks (module/spans.c):
 * where those draw from a pool of instances, a call that finds none
 * free runs without a section, and only the hook's nmissed counter
 * knows. How this kernel hooks vfs_fallocate(), and the size of the
 * pool its calls draw from (0: none): 6.1's kretprobe, one per
 * function with VFSB_SPAN_KRP_MAXACTIVE (1024) instances, listed in
 * debugfs as "r"; fprobe before 6.14 (rethook), VFSB_SPAN_MAXACTIVE
 * (4096) shared by all the helpers; fprobe from 6.14 keeps its return
 * on each task's shadow stack, with no pool.
 */
static int span_pool(const char **how)
{
	char line[256];
	struct utsname u;
	int maj = 0, min = 0;
	FILE *f;

	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	f = fopen("/sys/kernel/debug/kprobes/list", "r");
	while (f && fgets(line, sizeof(line), f)) {
		/* at the ftrace site: +0, or +4 behind an ENDBR */
		if (strstr(line, "  r  vfs_fallocate+0x")) {
			fclose(f);
			*how = "kretprobe";
			return 1024;
		}
	}
	if (f)
		fclose(f);
	if (!uname(&u))
		sscanf(u.release, "%d.%d", &maj, &min);
	if (maj < 6 || (maj == 6 && min < 14)) {
		*how = "fprobe on rethook";
		return 4096;
	}
	*how = "fprobe on the function graph";
	return 0;
}

/* Whether thread tid's kernel stack shows every one of the names. */
static bool stack_shows(pid_t tid, const char *a, const char *b)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return strstr(buf, a) && strstr(buf, b);
}

struct falloc_call {
	int fd;
	atomic_int tid;
	int ret;
};

static void *falloc_caller(void *arg)
{
	struct falloc_call *c = arg;

	atomic_store(&c->tid, gettid());
	c->ret = fallocate(c->fd, 0, 0, 4096) ? -errno : 0;
	return NULL;
}

FIXTURE(pool) {
	int dev, dirfd, fd, n, started;
	bool frozen, mounted, *seen;
	struct falloc_call *calls;
	pthread_t *th;
	struct rec_batch *b;
};

FIXTURE_SETUP(pool)
{
	self->dev = self->dirfd = self->fd = -1;
}

/* Whatever happened, the callers are let go and joined. */
FIXTURE_TEARDOWN(pool)
{
	int i;

	if (self->frozen)
		ioctl(self->dirfd, FITHAW, 0);
	for (i = 0; i < self->started; i++)
		pthread_join(self->th[i], NULL);
	free(self->calls);
	free(self->seen);
	free(self->th);
	free(self->b);
	if (self->fd >= 0)
		close(self->fd);
	if (self->dirfd >= 0)
		close(self->dirfd);
	if (self->dev >= 0)
		close(self->dev);
	if (self->mounted)
		umount2(DIR_E, MNT_DETACH);
}

/*
 * A call whose return hook finds the pool empty gets no section: the
 * next barrier must give its filesystem a RESCAN (VFSB_RESCAN_NO_RETURN),
 * never silence. With ext4 frozen, n fallocate(2) calls each block in
 * vfs_fallocate()'s sb_start_write, past the hook's entry, so the ones
 * that got an instance keep it; n is more than the pool. Where there is
 * no pool, every call must be bracketed, waited for by the barrier, and
 * no RESCAN given.
 */
TEST_F_TIMEOUT(pool, empty_return_hook_pool_gives_a_rescan, 300)
{
	struct vfsb_sb_stats st0, st;
	struct timespec t0, t1;
	pthread_attr_t attr;
	const char *how;
	__u64 cookie;
	__u32 sdev;
	int pool, n, held, i, ret, blocked = 0, rescan = 0;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	self->mounted = true;
	sdev = rec_dev_of(DIR_E);
	self->fd = open(DIR_E "/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, self->fd);
	self->dirfd = open(DIR_E, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, self->dirfd);
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_subscribe(self->dev, 0, 0, VFSB_SUB_COALESCE, NULL));
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_E));
	/* the hooks are in now */
	pool = span_pool(&how);
	n = (pool ? pool : 1024) + 32;
	self->b = batch_new();
	self->calls = calloc(n, sizeof(*self->calls));
	self->th = calloc(n, sizeof(*self->th));
	self->seen = calloc(n, sizeof(*self->seen));
	ASSERT_TRUE(self->b && self->calls && self->th && self->seen);
	ASSERT_EQ(0, many_limits(n));
	/* what earlier calls left is said now, not counted below */
	ASSERT_EQ(0, vfsb_barrier_path(self->dev, DIR_E, 0, 10000));
	ASSERT_EQ(0, rec_drain(self->dev, self->b));
	ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_E, &st0));
	ASSERT_EQ(0, st0.in_flight);

	ASSERT_EQ(0, ioctl(self->dirfd, FIFREEZE, 0));
	self->frozen = true;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < n; i++) {
		self->calls[i].fd = self->fd;
		ASSERT_EQ(0, pthread_create(&self->th[i], &attr, falloc_caller,
					    &self->calls[i]))
			TH_LOG("thread %d of %d could not start", i, n);
		self->started++;
	}
	pthread_attr_destroy(&attr);
	/* each one asleep in sb_start_write, inside vfs_fallocate */
	for (i = 0; i < 120000 && blocked < n; i++) {
		int k;

		for (k = 0; k < n; k++) {
			pid_t tid = atomic_load(&self->calls[k].tid);

			if (self->seen[k] || !tid ||
			    !stack_shows(tid, "vfs_fallocate", "percpu_"))
				continue;
			self->seen[k] = true;
			blocked++;
		}
		if (blocked < n)
			usleep(1000);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < n && self->seen[i]; i++)
		;
	if (i < n) {
		char path[64], buf[2048] = "";
		int sfd;

		snprintf(path, sizeof(path), "/proc/self/task/%d/stack",
			 atomic_load(&self->calls[i].tid));
		sfd = open(path, O_RDONLY | O_CLOEXEC);
		if (sfd >= 0) {
			ret = read(sfd, buf, sizeof(buf) - 1);
			buf[ret > 0 ? ret : 0] = 0;
			close(sfd);
		}
		TH_LOG("call %d's stack: %s", i, buf);
	}
	ASSERT_EQ(n, blocked) TH_LOG("only %d of %d calls blocked in vfs_fallocate",
				     blocked, n);
	ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_E, &st));
	held = st.in_flight;
	TH_LOG("%s, pool %d: %d calls held in %.1f s, %d in a section",
	       how, pool, n, (t1.tv_sec - t0.tv_sec) +
	       (t1.tv_nsec - t0.tv_nsec) / 1e9, held);
	/* the bracketed ones are waited for */
	ASSERT_EQ(0, vfsb_barrier_start_path(self->dev, DIR_E, 0, &cookie));
	EXPECT_EQ(VFSB_BARRIER_PENDING, vfsb_barrier_poll(self->dev, cookie, NULL))
		TH_LOG("the barrier passed %d calls in their sections", held);

	ASSERT_EQ(0, ioctl(self->dirfd, FITHAW, 0));
	self->frozen = false;
	for (i = 0; i < n; i++)
		pthread_join(self->th[i], NULL);
	self->started = 0;
	for (i = 0; i < n && !self->calls[i].ret; i++)
		;
	EXPECT_EQ(n, i) TH_LOG("call %d: %s", i, strerror(-self->calls[i].ret));
	EXPECT_EQ(0, vfsb_barrier_wait(self->dev, cookie, 60000));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_E, 0, 10000));
	ASSERT_EQ(0, rec_drain(self->dev, self->b));
	for (i = 0; i < self->b->n; i++) {
		struct vfsb_record *r = self->b->rec[i];
		char why[64];

		if (r->type != VFSB_REC_RESCAN || r->dev != sdev)
			continue;
		vfsb_rescan_format(r->reasons, why, sizeof(why));
		TH_LOG("RESCAN (%s), %llu lost", why, (unsigned long long)r->lost);
		rescan |= r->reasons & VFSB_RESCAN_NO_RETURN;
	}
	ASSERT_EQ(0, vfsb_stats_path(self->dev, DIR_E, &st));
	EXPECT_EQ(0, st.in_flight);
	/* every call was bracketed, or the filesystem is to be rescanned */
	EXPECT_TRUE(held == n || rescan)
		TH_LOG("%d calls ran without a section and no RESCAN said so",
		       n - held);
	if (pool) {
		/* and this test did empty the pool */
		EXPECT_GT(n, held) TH_LOG("all %d calls found an instance", n);
		EXPECT_LT(st0.rescans, st.rescans);
	} else {
		EXPECT_EQ(n, held);
		EXPECT_FALSE(rescan) TH_LOG("a RESCAN with every call bracketed");
	}
}

/* ---- no record outside a section ---- */

/* getdents64() into a buffer whose page is missing: holds the dir's lock. */
struct dirlock {
	int dirfd;
	void *buf;
	long ret;
};

static void *dirlock_reader(void *arg)
{
	struct dirlock *d = arg;

	d->ret = syscall(SYS_getdents64, d->dirfd, d->buf, 4096);
	return NULL;
}

static void *mkdir_y(void *arg)
{
	(void)arg;
	mkdir(DIR_F "/d/y", 0755);
	return NULL;
}

/*
 * Whether thread tid sleeps in kernel function fn itself (the innermost
 * frame /proc shows; the scheduler's own are left out, and a lock's
 * slow path): not in something fn called.
 */
static int sleeps_in(pid_t tid, const char *fn)
{
	char path[64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* lockdep kernels show the rwsem's down_write_nested() above fn */
	if (fgets(line, sizeof(line), f)) {
		found = strstr(line, fn) != NULL;
		if (!found && strstr(line, "down_write") &&
		    fgets(line, sizeof(line), f))
			found = strstr(line, fn) != NULL;
	}
	fclose(f);
	return found;
}

struct tidded {
	void *(*fn)(void *);
	void *arg;
	atomic_int tid;
};

static void *tidded_run(void *arg)
{
	struct tidded *t = arg;

	atomic_store(&t->tid, gettid());
	return t->fn(t->arg);
}

/*
 * mkdir began before the watch (write access taken while unwatched: no
 * section) and announces after it: the announcement opens a section,
 * so the barrier after reading the record waits for the mkdir.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

/* A fixture for its time limit: the debug kernel takes its time. */
TEST_F_TIMEOUT(slow, operation_begun_before_the_watch_announces_inside_a_section,
	       180)
{
	struct rec_batch *b = batch_new();
	struct tidded tm = { .fn = mkdir_y };
	struct dirlock dl = { 0 };
	pthread_t reader, mk;
	struct fuse_hold *fh;
	struct uffd_page u;
	int dev, i, found = 0;

	ASSERT_NE(NULL, b);
	mkdir(DIR_F, 0755);
	fh = fh_mount(DIR_F);
	ASSERT_NE(NULL, fh);
	ASSERT_EQ(0, mkdir(DIR_F "/d", 0755));
	/* a reader holds d's lock, blocked on a missing page */
	ASSERT_EQ(0, uffd_page_init(&u));
	dl.buf = u.buf;
	dl.dirfd = open(DIR_F "/d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, dl.dirfd);
	ASSERT_EQ(0, pthread_create(&reader, NULL, dirlock_reader, &dl));
	ASSERT_EQ(0, uffd_page_wait_fault(&u, 10000));
	/*
	 * mkdir d/y: write access taken (unwatched), then d's lock waits:
	 * it sleeps in filename_create() itself (the walk to d, in FUSE
	 * lookups, would sleep in what it calls)
	 */
	ASSERT_EQ(0, pthread_create(&mk, NULL, tidded_run, &tm));
	for (i = 0; i < 30000 && !found; i++) {
		if (atomic_load(&tm.tid))
			found = sleeps_in(atomic_load(&tm.tid),
					  "filename_create") > 0;
		if (!found)
			usleep(1000);
	}
	if (!found) {
		char path[64], buf[2048] = "";
		int sfd;

		snprintf(path, sizeof(path), "/proc/self/task/%d/stack",
			 atomic_load(&tm.tid));
		sfd = open(path, O_RDONLY);
		if (sfd >= 0) {
			buf[read(sfd, buf, sizeof(buf) - 1) > 0 ? sizeof(buf) - 1 : 0] = 0;
			close(sfd);
		}
		TH_LOG("mkdir's stack: %s", buf);
	}
	ASSERT_TRUE(found) TH_LOG("mkdir never blocked on the directory");
	/* now watch; the mkdir goes on once the reader lets d go */
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_F));
	ASSERT_EQ(0, fh_hold(fh, FUSE_MKDIR));
	ASSERT_EQ(0, uffd_page_fill(&u));
	pthread_join(reader, NULL);
	ASSERT_EQ(0, fh_wait_held(fh, 10000));
	/* announced, and held in the filesystem */
	ASSERT_EQ(0, rec_drain(dev, b));
	i = rec_find(b, VFSB_R_CREATE, "y");
	ASSERT_LE(0, i);
	EXPECT_FALSE(b->rec[i]->flags & VFSB_RECF_UNFENCED);
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(dev, DIR_F, 0, 300))
		TH_LOG("the barrier passed an announced mkdir in flight");
	ASSERT_EQ(0, fh_release(fh));
	pthread_join(mk, NULL);
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_F, 0, 10000));
	close(dev);
	close(dl.dirfd);
	uffd_page_close(&u);
	uffd_page_unmap(&u);
	fh_umount(fh);
	free(b);
}

/* A write held before the watch: a fenced barrier waits for it. */
struct held_write {
	int fd;
	ssize_t ret;
};

static void *held_writer(void *arg)
{
	struct held_write *h = arg;

	h->ret = pwrite(h->fd, "fenced", 6, 0);
	return NULL;
}

TEST(fenced_barrier_waits_for_writes_begun_before_the_watch)
{
	struct held_write hw = { 0 };
	struct fuse_hold *fh;
	pthread_t t;
	int dev, fd;

	mkdir(DIR_F, 0755);
	fh = fh_mount(DIR_F);
	ASSERT_NE(NULL, fh);
	fd = open(DIR_F "/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	hw.fd = fd;
	ASSERT_EQ(0, fh_hold(fh, FUSE_WRITE));
	ASSERT_EQ(0, pthread_create(&t, NULL, held_writer, &hw));
	ASSERT_EQ(0, fh_wait_held(fh, 10000));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_F));
	/* an unfenced barrier knows nothing of it */
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_F, 0, 10000));
	EXPECT_EQ(-ETIMEDOUT,
		  vfsb_barrier_path(dev, DIR_F, VFSB_BARRIER_FENCE, 300));
	EXPECT_EQ(-EINVAL, vfsb_barrier_path(dev, DIR_F,
					     VFSB_BARRIER_FENCE |
					     VFSB_BARRIER_ALL, 300));
	ASSERT_EQ(0, fh_release(fh));
	pthread_join(t, NULL);
	EXPECT_EQ(6, hw.ret);
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_F, VFSB_BARRIER_FENCE, 10000));
	close(dev);
	close(fd);
	fh_umount(fh);
}

/* ---- and the rest ---- */

/* Two filesystems' roots may share an inode number: both are given. */
TEST(coalescing_keys_on_the_filesystem)
{
	struct rec_batch *b = batch_new();
	int dev, i, creates = 0;

	ASSERT_NE(NULL, b);
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	ASSERT_EQ(0, mount_tmpfs(DIR_B));
	ASSERT_EQ(ino_of(DIR_A), ino_of(DIR_B));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, VFSB_SUB_COALESCE, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_B));
	ASSERT_EQ(0, touch(DIR_A "/one"));
	ASSERT_EQ(0, touch(DIR_B "/two"));
	ASSERT_EQ(0, rec_drain(dev, b));
	for (i = 0; i < b->n; i++)
		creates += b->rec[i]->type == VFSB_REC_CHANGE &&
			   (b->rec[i]->reasons & VFSB_R_CREATE);
	EXPECT_EQ(2, creates);
	EXPECT_LE(0, rec_find(b, VFSB_R_CREATE, "two"));
	close(dev);
	free(b);
	umount2(DIR_A, MNT_DETACH);
	umount2(DIR_B, MNT_DETACH);
}

/* Pipes, sockets and memfds are not filesystems to watch. */
TEST(pseudo_filesystems_are_refused)
{
	int dev = vfsb_open(), p[2], s, mfd;

	ASSERT_LE(0, dev);
	ASSERT_EQ(0, pipe2(p, O_CLOEXEC));
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, s);
	mfd = memfd_create("vfsb", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	EXPECT_EQ(-EINVAL, vfsb_watch_fd(dev, p[0], NULL));
	EXPECT_EQ(-EINVAL, vfsb_watch_fd(dev, s, NULL));
	EXPECT_EQ(-EINVAL, vfsb_watch_fd(dev, mfd, NULL));
	close(p[0]);
	close(p[1]);
	close(s);
	close(mfd);
	close(dev);
}

/* STATS copying into a page that is not there holds nobody else up. */
struct stats_call {
	int dev;
	void *buf;
	int ret;
};

static void *stats_caller(void *arg)
{
	struct stats_call *s = arg;
	struct vfsb_stats req = {
		.capacity = 4, .entry_size = sizeof(struct vfsb_sb_stats),
		.entries_ptr = (unsigned long)s->buf,
	};

	s->ret = vfsb_ioctl(s->dev, VFSB_IOC_STATS, &req);
	return NULL;
}

struct watch_call {
	atomic_int done;
	int ret;
};

static void *watch_caller(void *arg)
{
	struct watch_call *w = arg;
	int dev = vfsb_open();

	w->ret = dev < 0 ? -errno : vfsb_watch_path(dev, DIR_B);
	if (dev >= 0)
		close(dev);
	atomic_store(&w->done, 1);
	return NULL;
}

TEST(stats_copying_out_blocks_no_watch)
{
	struct stats_call sc = { 0 };
	struct watch_call wc = { 0 };
	struct uffd_page u;
	pthread_t ts, tw;
	int dev, i;

	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	ASSERT_EQ(0, mount_tmpfs(DIR_B));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));
	ASSERT_EQ(0, uffd_page_init(&u));
	sc.buf = u.buf;
	sc.dev = dev;
	ASSERT_EQ(0, pthread_create(&ts, NULL, stats_caller, &sc));
	/* STATS is in its copy to user space, held */
	ASSERT_EQ(0, uffd_page_wait_fault(&u, 10000));
	ASSERT_EQ(0, pthread_create(&tw, NULL, watch_caller, &wc));
	for (i = 0; i < 2000 && !atomic_load(&wc.done); i++)
		usleep(10000);
	EXPECT_TRUE(atomic_load(&wc.done))
		TH_LOG("WATCH waited for a STATS copying to user space");
	ASSERT_EQ(0, uffd_page_fill(&u));
	pthread_join(ts, NULL);
	pthread_join(tw, NULL);
	EXPECT_EQ(0, sc.ret);
	EXPECT_EQ(0, wc.ret);
	uffd_page_close(&u);
	uffd_page_unmap(&u);
	close(dev);
	umount2(DIR_A, MNT_DETACH);
	umount2(DIR_B, MNT_DETACH);
}

/*
 * Expedited barriers that time out on a filesystem whose writer is stuck
 * are bounded per opener, and share one round: another filesystem's
 * expedited barrier is not held up behind them.
 */
TEST(stuck_filesystem_does_not_delay_other_barriers)
{
	struct held_write hw = { 0 };
	struct fuse_hold *fh;
	pthread_t t;
	int dev, dev2, fd, i, timedout = 0, again = 0, ret;

	mkdir(DIR_F, 0755);
	fh = fh_mount(DIR_F);
	ASSERT_NE(NULL, fh);
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	dev = vfsb_open();
	dev2 = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_LE(0, dev2);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_F));
	ASSERT_EQ(0, vfsb_watch_path(dev2, DIR_A));
	fd = open(DIR_F "/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	hw.fd = fd;
	ASSERT_EQ(0, fh_hold(fh, FUSE_WRITE));
	ASSERT_EQ(0, pthread_create(&t, NULL, held_writer, &hw));
	ASSERT_EQ(0, fh_wait_held(fh, 10000));
	for (i = 0; i < 300; i++) {
		ret = vfsb_barrier_path(dev, DIR_F, VFSB_BARRIER_EXPEDITED, 1);
		timedout += ret == -ETIMEDOUT;
		again += ret == -EAGAIN;
	}
	EXPECT_EQ(300, timedout + again);
	EXPECT_LT(0, again) TH_LOG("no bound on pending barriers");
	EXPECT_EQ(0, vfsb_barrier_path(dev2, DIR_A, VFSB_BARRIER_EXPEDITED,
				       20000));
	EXPECT_EQ(0, vfsb_barrier_path(dev2, DIR_A, 0, 20000));
	ASSERT_EQ(0, fh_release(fh));
	pthread_join(t, NULL);
	/* the timed-out ones finish with their round: then room again */
	for (i = 0; i < 2000; i++) {
		ret = vfsb_barrier_path(dev, DIR_F, VFSB_BARRIER_EXPEDITED,
					20000);
		if (ret != -EAGAIN)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, ret);
	close(fd);
	close(dev2);
	close(dev);
	fh_umount(fh);
	umount2(DIR_A, MNT_DETACH);
}

/* BARRIER_START racing BARRIER_POLL(0): no request is seen done early. */
struct poller {
	int dev;
	atomic_int stop;
	long polled;
};

static void *poll_any(void *arg)
{
	struct poller *p = arg;
	struct vfsb_barrier_poll bp;

	while (!atomic_load(&p->stop)) {
		memset(&bp, 0, sizeof(bp));
		if (!vfsb_ioctl(p->dev, VFSB_IOC_BARRIER_POLL, &bp) &&
		    bp.state == VFSB_BARRIER_DONE)
			p->polled++;
	}
	return NULL;
}

TEST(barrier_start_racing_poll)
{
	struct poller p = { 0 };
	struct vfsb_barrier_poll bp;
	pthread_t t;
	__u64 cookie;
	int i, started = 0;

	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	p.dev = vfsb_open();
	ASSERT_LE(0, p.dev);
	ASSERT_EQ(0, vfsb_watch_path(p.dev, DIR_A));
	ASSERT_EQ(0, pthread_create(&t, NULL, poll_any, &p));
	for (i = 0; i < 5000; i++)
		started += !vfsb_barrier_start_path(p.dev, DIR_A, 0, &cookie);
	atomic_store(&p.stop, 1);
	pthread_join(t, NULL);
	/* whatever is left completes and is reported once */
	for (i = 0; i < 3000 && p.polled < started; i++) {
		memset(&bp, 0, sizeof(bp));
		if (!vfsb_ioctl(p.dev, VFSB_IOC_BARRIER_POLL, &bp) &&
		    bp.state == VFSB_BARRIER_DONE)
			p.polled++;
		else
			usleep(1000);
	}
	EXPECT_EQ(started, p.polled);
	close(p.dev);
	umount2(DIR_A, MNT_DETACH);
}

/* GET_VERSION says which write paths are covered, once hooked. */
TEST(version_reports_live_coverage)
{
	struct vfsb_version v;
	int dev;

	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));
	ASSERT_EQ(0, vfsb_get_version(dev, &v));
	EXPECT_EQ(VFSB_HOOKS_LIVE, v.hooks);
	EXPECT_EQ(VFSB_COV_NAMESPACE | VFSB_COV_DATA,
		  v.coverage & (VFSB_COV_NAMESPACE | VFSB_COV_DATA));
	EXPECT_EQ(0, v.coverage & ~v.coverage_known);
	close(dev);
	umount2(DIR_A, MNT_DETACH);
}

TEST_HARNESS_MAIN
