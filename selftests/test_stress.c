// SPDX-License-Identifier: GPL-2.0
/*
 * Everything at once, for a bounded time: writers of every kind on two
 * watched filesystems, a barrier storm, subscribers opening and closing,
 * watches coming and going, a filesystem mounted, watched and unmounted
 * in a loop, rmmod attempts, an ioctl fuzzer from root and from an
 * unprivileged user on an inherited descriptor, FIFOs written by an
 * unprivileged user (one writer blocked on a full pipe throughout, which
 * no barrier may wait for), and intent subscribers that never ack while
 * writers wait for them, in a wrapper (fallocate) and at the return to
 * user space (mkdir), until a timeout or the close. Then: no section left in
 * flight anywhere, a barrier over everything returns, rmmod never got
 * through while the module was in use, and one steady subscriber's
 * stream adds up (records received plus records reported lost equal the
 * records the module emitted to it, and nothing was announced
 * unfenced). The guest harness fails the run on any kernel splat.
 *
 * VFSB_STRESS_TEST_SECS sets the time (default 20 s).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "vfsb.h"
#include "mixed_writes.h"
#include "task.h"
#include "testfs.h"
#include "kselftest_harness.h"

#define DIR_A	"/tmp/ss-a"	/* the steady subscriber's filesystem */
#define DIR_B	"/tmp/ss-b"	/* everyone else's */
#define DIR_M	"/tmp/ss-m"	/* mounted and unmounted in a loop */
#define DIR_I	"/tmp/ss-i"	/* an intent subscriber's, one at a time */

/* Shared with the children: when to stop. */
static volatile int *g_stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool stopping(void)
{
	return __atomic_load_n(g_stop, __ATOMIC_ACQUIRE);
}

/* ---- the roles; each returns how many things went wrong ---- */

/* Every kind of write the module hooks, in dir/w<id>. */
static int role_writer(const char *dir, int id)
{
	struct mixed_writes m;

	mixed_writes_init(&m, dir, id);
	while (!stopping())
		mixed_writes_round(&m);
	mixed_writes_exit(&m);
	return 0;
}

/* Barriers of every kind, back to back; none may fail or time out. */
static int role_barriers(void)
{
	int dev = vfsb_open(), bad = 0, ret;
	__u64 cookie;

	if (dev < 0 || vfsb_watch_path(dev, DIR_A) || vfsb_watch_path(dev, DIR_B))
		return 1;
	while (!stopping()) {
		ret = vfsb_barrier_path(dev, DIR_A, 0, 30000);
		bad += ret != 0;
		ret = vfsb_barrier_path(dev, DIR_B, VFSB_BARRIER_EXPEDITED, 30000);
		bad += ret != 0;
		ret = vfsb_barrier_fd(dev, -1, VFSB_BARRIER_ALL, 30000, NULL);
		bad += ret != 0;
		ret = vfsb_barrier_start_path(dev, DIR_B, 0, &cookie);
		if (ret) {
			bad++;
			continue;
		}
		bad += vfsb_barrier_wait(dev, cookie, 30000) != 0;
	}
	if (bad)
		fprintf(stderr, "# barriers: %d failed\n", bad);
	close(dev);
	return bad;
}

/* Subscribers that come and go, reading a little each time. */
static int role_subscribers(void)
{
	static char buf[1 << 16];
	int bad = 0;

	while (!stopping()) {
		int dev = vfsb_open_flags(O_NONBLOCK);

		if (dev < 0) {
			bad++;
			continue;
		}
		if (vfsb_watch_path(dev, DIR_B) ||
		    vfsb_subscribe(dev, VFSB_RING_MIN << (rand() % 4), 0,
				   rand() % 2 ? VFSB_SUB_COALESCE : 0, NULL))
			bad++;
		usleep(rand() % 20000);
		if (read(dev, buf, sizeof(buf)) < 0 && errno != EAGAIN)
			bad++;
		close(dev);
	}
	if (bad)
		fprintf(stderr, "# subscribers: %d failed\n", bad);
	return bad;
}

/* Watches added and removed, descriptors closed with watches on. */
static int role_watches(void)
{
	int bad = 0, n;

	while (!stopping()) {
		int dev = vfsb_open();

		if (dev < 0) {
			bad++;
			continue;
		}
		for (n = 0; !stopping(); n++) {
			bad += vfsb_watch_path(dev, DIR_A) != 0;
			bad += vfsb_watch_path(dev, DIR_B) != 0;
			/* every 16th time, close with both watched */
			if (n == 15)
				break;
			bad += vfsb_unwatch_path(dev, DIR_A) != 0;
			bad += vfsb_unwatch_path(dev, DIR_B) != 0;
		}
		close(dev);
	}
	if (bad)
		fprintf(stderr, "# watches: %d failed\n", bad);
	return bad;
}

/* A filesystem mounted, watched, written and unmounted under a watch. */
static int role_mounts(void)
{
	static char buf[1 << 16];
	int bad = 0;

	while (!stopping()) {
		int dev = vfsb_open_flags(O_NONBLOCK);

		if (dev < 0 || mount_tmpfs(DIR_M)) {
			bad++;
			if (dev >= 0)
				close(dev);
			continue;
		}
		bad += vfsb_subscribe(dev, 0, 0, 0, NULL) != 0;
		bad += vfsb_watch_path(dev, DIR_M) != 0;
		bad += put_file(DIR_M "/f", "data") != 0;
		bad += vfsb_barrier_path(dev, DIR_M, 0, 30000) != 0;
		bad += umount(DIR_M) != 0;
		if (read(dev, buf, sizeof(buf)) < 0 && errno != EAGAIN)
			bad++;
		close(dev);
	}
	if (bad)
		fprintf(stderr, "# mounts: %d failed\n", bad);
	return bad;
}

/*
 * As "nobody", in B: a writer blocked on a full FIFO for the whole run,
 * and FIFOs made, written, read and removed in a loop. The barriers on
 * B (role_barriers) must not wait for any of them.
 */
static int role_fifo(void)
{
	static char buf[65536];
	int bad = 0, n = 0, status, fd;
	pid_t holder, p;
	char name[32], c;

	holder = fork();
	if (holder < 0)
		return 1;
	if (!holder) {
		if (chdir(DIR_B) || drop_to_nobody() || mkfifo("held", 0600))
			_exit(1);
		fd = open("held", O_RDWR | O_CLOEXEC);
		for (;;)
			if (fd < 0 || write(fd, buf, sizeof(buf)) < 0)
				_exit(1);
	}
	while (!stopping()) {
		snprintf(name, sizeof(name), "fifo%d", n++);
		p = fork();
		if (p < 0) {
			bad++;
			continue;
		}
		if (!p) {
			if (chdir(DIR_B) || drop_to_nobody() || mkfifo(name, 0600))
				_exit(1);
			fd = open(name, O_RDWR | O_CLOEXEC);
			if (fd < 0 || write(fd, "x", 1) != 1 || read(fd, &c, 1) != 1)
				_exit(1);
			close(fd);
			_exit(unlink(name) ? 1 : 0);
		}
		waitpid(p, &status, 0);
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
		usleep(10000);
	}
	/* the holder must still be there, blocked: it never failed */
	bad += waitpid(holder, &status, WNOHANG) != 0;
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	unlink(DIR_B "/held");
	if (bad)
		fprintf(stderr, "# fifo: %d failed\n", bad);
	return bad;
}

/*
 * Intent subscribers on I that never ack: a mkdir (waits at its return
 * to user space) and a fallocate (waits in its wrapper, holding a module
 * reference) wait until the 200 ms timeout or the close, meanwhile the
 * rmmod role tries to unload; both changes must then be made.
 */
static int role_intent(void)
{
	int bad = 0, n = 0, i, status;
	char d[64], f[64];
	pid_t kids[2];

	while (!stopping()) {
		int dev = vfsb_open_flags(O_NONBLOCK), fd;

		if (dev < 0 || vfsb_subscribe_intent(dev, 0, 0, 200, NULL) ||
		    vfsb_watch_path(dev, DIR_I)) {
			bad++;
			if (dev >= 0)
				close(dev);
			continue;
		}
		snprintf(d, sizeof(d), DIR_I "/d%d", n);
		snprintf(f, sizeof(f), DIR_I "/f%d", n++);
		kids[0] = fork();
		if (!kids[0])
			_exit(mkdir(d, 0755) ? 1 : 0);
		kids[1] = fork();
		if (!kids[1]) {
			fd = open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			_exit(fd < 0 || fallocate(fd, 0, 0, 4096) ? 1 : 0);
		}
		usleep(rand() % 300000);
		close(dev);
		for (i = 0; i < 2; i++) {
			if (kids[i] < 0 || waitpid(kids[i], &status, 0) < 0) {
				bad++;
				continue;
			}
			bad += !WIFEXITED(status) || WEXITSTATUS(status);
		}
		rmdir(d);
		unlink(f);
	}
	if (bad)
		fprintf(stderr, "# intent: %d failed\n", bad);
	return bad;
}

/* The module is in use throughout: an unload must never get through. */
static int role_rmmod(void)
{
	int got_through = 0, ret;

	while (!stopping()) {
		ret = vfsb_module_unload();
		if (!ret) {
			got_through++;
			vfsb_module_load();
		}
		usleep(5000);
	}
	if (got_through)
		fprintf(stderr, "# rmmod: unloaded %d times while in use\n",
			got_through);
	return got_through;
}

static const unsigned long g_cmds[] = {
	VFSB_IOC_GET_VERSION, VFSB_IOC_WATCH, VFSB_IOC_UNWATCH, VFSB_IOC_LIST,
	VFSB_IOC_BARRIER, VFSB_IOC_BARRIER_START, VFSB_IOC_BARRIER_POLL,
	VFSB_IOC_STATS, VFSB_IOC_SUBSCRIBE,
};

/*
 * One random ioctl on dev: a known command (maybe with another size or
 * direction) or a random one, with random contents, a bad pointer or
 * none. A barrier's timeout is kept short: a fuzzer that waits forever
 * on a busy filesystem finds nothing.
 */
static long fuzz_one(int dev)
{
	static union {
		__u64 align;
		char bytes[512];
	} u;
	unsigned long cmd;
	void *arg = u.bytes;
	size_t i;
	int r = rand();

	for (i = 0; i < sizeof(u.bytes); i++)
		u.bytes[i] = rand() % 4 ? 0 : rand();
	cmd = g_cmds[r % (sizeof(g_cmds) / sizeof(g_cmds[0]))];
	switch ((r >> 8) % 8) {
	case 0:
		cmd = (unsigned int)rand() * 2654435761U;
		break;
	case 1:
		cmd ^= 1UL << (16 + rand() % 14);	/* size or direction */
		break;
	case 2:
		arg = NULL;
		break;
	case 3:
		arg = (void *)0xffffffff81000000UL;
		break;
	default:
		break;
	}
	if (_IOC_NR(cmd) == _IOC_NR(VFSB_IOC_BARRIER) &&
	    _IOC_TYPE(cmd) == VFSB_IOC_MAGIC && arg == u.bytes) {
		struct vfsb_barrier *b = arg;

		b->timeout_ms = 1 + rand() % 100;
		if (rand() % 2)
			b->fd = open(DIR_B, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if ((cmd == VFSB_IOC_WATCH || cmd == VFSB_IOC_UNWATCH) && arg == u.bytes &&
	    rand() % 2)
		((struct vfsb_watch *)arg)->fd = open(DIR_B, O_RDONLY | O_CLOEXEC);
	return ioctl(dev, cmd, arg) < 0 ? -errno : 0;
}

/*
 * Root: anything may fail, nothing may crash. Unprivileged, on a
 * descriptor root opened: every command is refused with EPERM.
 */
static int role_fuzzer(bool unprivileged, unsigned int seed)
{
	int dev = vfsb_open(), bad = 0, fd;
	long ret, n = 0;

	if (dev < 0)
		return 1;
	srand(seed);
	if (unprivileged && drop_to_nobody())
		return 1;
	while (!stopping()) {
		ret = fuzz_one(dev);
		n++;
		if (unprivileged && ret != -EPERM) {
			if (bad++ < 5)
				fprintf(stderr, "# fuzzer (nobody): ioctl gave %ld, not -EPERM\n",
					ret);
		}
		/* the descriptors it opened for fd fields */
		for (fd = dev + 1; fd < 64; fd++)
			close(fd);
	}
	fprintf(stderr, "# fuzzer (%s): %ld ioctls\n",
		unprivileged ? "nobody" : "root", n);
	close(dev);
	return bad;
}

/* ---- the test ---- */

/* The steady subscriber's stream, counted as it is read. */
struct stream {
	unsigned long long change, lost, rescan, unfenced, bad_seq, last_seq;
};

static void stream_read(int dev, struct stream *s)
{
	static char buf[1 << 16];
	struct vfsb_record *r;
	ssize_t n;
	size_t off;

	while ((n = read(dev, buf, sizeof(buf))) > 0) {
		for (off = 0; (r = vfsb_rec_at(buf, n, off)); off += r->size) {
			/* an OVERFLOW takes the last lost number */
			if (r->seq <= s->last_seq && r->type != VFSB_REC_OVERFLOW)
				s->bad_seq++;
			s->last_seq = r->seq;
			if (r->type == VFSB_REC_CHANGE)
				s->change++;
			else if (r->type == VFSB_REC_OVERFLOW)
				s->lost += r->lost;
			else if (r->type == VFSB_REC_RESCAN)
				s->rescan++;
			if (r->flags & VFSB_RECF_UNFENCED)
				s->unfenced++;
		}
	}
}

static int stats_all(int dev, struct vfsb_sb_stats *st, int cap)
{
	struct vfsb_stats req = {
		.capacity = cap, .entry_size = sizeof(*st),
		.entries_ptr = (unsigned long)st,
	};

	return ioctl(dev, VFSB_IOC_STATS, &req) ? -errno : (int)req.count;
}

FIXTURE(stress) {};
FIXTURE_SETUP(stress) {}
FIXTURE_TEARDOWN(stress) {}

TEST_F_TIMEOUT(stress, everything_at_once_leaves_nothing_behind, 600)
{
	const char *env = getenv("VFSB_STRESS_TEST_SECS");
	double secs = env ? atof(env) : 20, end;
	struct vfsb_sb_stats st[64];
	struct stream s = { 0 };
	pid_t kids[16];
	int nkids = 0, dev, i, n, status, failed = 0;
	dev_t dev_a;
	int found_a = 0;

	g_stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g_stop);
	ASSERT_EQ(0, mount_tmpfs(DIR_A));
	ASSERT_EQ(0, mount_tmpfs(DIR_B));
	ASSERT_EQ(0, chmod(DIR_B, 01777));	/* role_fifo's, as nobody */
	ASSERT_EQ(0, mount_tmpfs(DIR_I));
	mkdir(DIR_M, 0755);
	ASSERT_EQ(0, vfsb_path_sb_dev(DIR_A, &dev_a));

	/* the steady subscriber: alone on A, with a small ring */
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, VFSB_RING_MIN, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_A));

#define SPAWN(call) do {					\
		pid_t p = fork();				\
		ASSERT_LE(0, p);				\
		if (!p)						\
			_exit((call) ? 1 : 0);			\
		kids[nkids++] = p;				\
	} while (0)
	for (i = 0; i < 2; i++) {
		SPAWN(role_writer(DIR_A, i));
		SPAWN(role_writer(DIR_B, i));
	}
	SPAWN(role_barriers());
	SPAWN(role_subscribers());
	SPAWN(role_watches());
	SPAWN(role_mounts());
	SPAWN(role_rmmod());
	SPAWN(role_fifo());
	SPAWN(role_intent());
	SPAWN(role_fuzzer(false, 1));
	SPAWN(role_fuzzer(true, 2));
#undef SPAWN

	/* read in bursts: the small ring fills between them, so losses
	   have to be reported and counted too */
	end = now_s() + secs;
	while (now_s() < end) {
		usleep(200000);
		stream_read(dev, &s);
	}
	__atomic_store_n(g_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nkids; i++) {
		ASSERT_EQ(kids[i], waitpid(kids[i], &status, 0));
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			TH_LOG("child %d (role %d) failed: status %#x", kids[i],
			       i, status);
			failed++;
		}
	}
	EXPECT_EQ(0, failed);

	/* everything has stopped: nothing may be left in flight */
	EXPECT_EQ(0, vfsb_barrier_fd(dev, -1, VFSB_BARRIER_ALL, 30000, NULL));
	n = stats_all(dev, st, 64);
	ASSERT_LT(0, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, st[i].in_flight);
		EXPECT_EQ(st[i].sections_begun, st[i].sections_ended);
		if (vfsb_dev_t(st[i].dev) != dev_a)
			continue;
		found_a = 1;
		stream_read(dev, &s);
		TH_LOG("A: %llu sections, %llu records (%llu received, %llu reported lost), %llu rescans",
		       (unsigned long long)st[i].sections_begun,
		       (unsigned long long)(st[i].records + st[i].records_lost),
		       s.change, s.lost, s.rescan);
		/* the steady subscriber is A's only one */
		EXPECT_EQ(st[i].records, s.change);
		EXPECT_EQ(st[i].records_lost, s.lost);
		EXPECT_EQ(0, st[i].missed);
		EXPECT_EQ(0, st[i].unfenced);
	}
	EXPECT_TRUE(found_a);
	EXPECT_LT(0, s.change);
	EXPECT_EQ(0, s.bad_seq);
	EXPECT_EQ(0, s.rescan);
	EXPECT_EQ(0, s.unfenced);
	close(dev);
	umount2(DIR_M, MNT_DETACH);
	umount2(DIR_A, MNT_DETACH);
	umount2(DIR_B, MNT_DETACH);
	umount2(DIR_I, MNT_DETACH);
}

TEST_HARNESS_MAIN
