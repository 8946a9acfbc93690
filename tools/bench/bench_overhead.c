// SPDX-License-Identifier: GPL-2.0
/*
 * Per-operation cost of the write paths vfsbarrier hooks, in each
 * configuration side by side in one boot (issue items 1 and 5a).
 *
 *   bench_overhead overhead OUT.json   configurations x operations x fs
 *   bench_overhead scaling OUT.json    0, 1, 10, 100 watched superblocks
 *
 * A run is one tight loop of an operation, sized at start so that it
 * takes about VFSB_BENCH_RUN_MS in the baseline. A round runs every
 * operation in every configuration; the configurations are interleaved
 * as finely as switching between them allows (see cmd_overhead()), in
 * alternating (ABBA) orders. A figure is the median over the rounds, a
 * ratio the median of the per-round ratios to that round's baseline,
 * with half the range as the spread; "best" ratios compare the fastest
 * runs, which a busy host disturbs least. A configuration that cannot
 * be measured yet (the record stream) has a reason instead of a setup
 * and shows up as null / "n/a (...)".
 */
#include "common.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MAX_FS 4
#define MAX_REPS 32

/* ---- raw io_uring: one write at a time, no liburing ---- */

struct ring {
	int fd;
	void *sq_ptr, *cq_ptr;
	size_t sq_len, cq_len, sqes_len;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_setup(struct ring *r, unsigned int entries)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	memset(r, 0, sizeof(*r));
	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -errno;
	r->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	r->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (r->cq_len > r->sq_len)
			r->sq_len = r->cq_len;
		r->cq_len = 0;
	}
	r->sq_ptr = mmap(NULL, r->sq_len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (r->sq_ptr == MAP_FAILED)
		return -errno;
	if (r->cq_len) {
		r->cq_ptr = mmap(NULL, r->cq_len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_POPULATE, r->fd,
				 IORING_OFF_CQ_RING);
		if (r->cq_ptr == MAP_FAILED)
			return -errno;
	} else {
		r->cq_ptr = r->sq_ptr;
	}
	r->sqes_len = p.sq_entries * sizeof(struct io_uring_sqe);
	r->sqes = mmap(NULL, r->sqes_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = (void *)((char *)r->sq_ptr + p.sq_off.tail);
	r->sq_mask = (void *)((char *)r->sq_ptr + p.sq_off.ring_mask);
	r->sq_array = (void *)((char *)r->sq_ptr + p.sq_off.array);
	r->cq_head = (void *)((char *)r->cq_ptr + p.cq_off.head);
	r->cq_tail = (void *)((char *)r->cq_ptr + p.cq_off.tail);
	r->cq_mask = (void *)((char *)r->cq_ptr + p.cq_off.ring_mask);
	r->cqes = (void *)((char *)r->cq_ptr + p.cq_off.cqes);
	return 0;
}

static void ring_free(struct ring *r)
{
	munmap(r->sqes, r->sqes_len);
	if (r->cq_len)
		munmap(r->cq_ptr, r->cq_len);
	munmap(r->sq_ptr, r->sq_len);
	close(r->fd);
}

/*
 * Submits n IORING_OP_WRITEs of len bytes (page-aligned offsets from
 * off) in one io_uring_enter() and waits for all of them; 0 when every
 * one wrote len bytes, else the first bad result or -errno.
 */
static int ring_write(struct ring *r, int fd, const void *buf,
		      unsigned int len, uint64_t off, unsigned int n)
{
	unsigned int tail = *r->sq_tail, idx, head, i;
	struct io_uring_sqe *sqe;
	int res, ret = 0;

	for (i = 0; i < n; i++) {
		idx = (tail + i) & *r->sq_mask;
		sqe = &r->sqes[idx];
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_WRITE;
		sqe->fd = fd;
		sqe->addr = (uintptr_t)buf;
		sqe->len = len;
		sqe->off = off + (uint64_t)i * len;
		r->sq_array[idx] = idx;
	}
	__atomic_store_n(r->sq_tail, tail + n, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, n, n, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		head = *r->cq_head;
		if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			return -EIO;
		res = r->cqes[head & *r->cq_mask].res;
		if (res != (int)len && !ret)
			ret = res < 0 ? res : -EIO;
		__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	}
	return ret;
}

/* ---- the operations ---- */

struct octx {
	int dirfd;
	int fd;
	struct ring ring;
	char buf[4096];
};

#define FILE_PAGES 256		/* 1 MiB files for the data writes */
#define URING_BATCH 32		/* divides FILE_PAGES */

static int open_prefilled(struct octx *c, const char *name)
{
	int i;

	c->fd = openat(c->dirfd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
		       0644);
	if (c->fd < 0)
		return -errno;
	for (i = 0; i < FILE_PAGES; i++)
		if (pwrite(c->fd, c->buf, 4096, (off_t)i * 4096) != 4096)
			return -EIO;
	return 0;
}

static int open_file(struct octx *c, const char *name, int flags)
{
	c->fd = openat(c->dirfd, name, flags | O_CREAT | O_CLOEXEC, 0644);
	return c->fd < 0 ? -errno : 0;
}

static void close_unlink(struct octx *c, const char *name)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	unlinkat(c->dirfd, name, 0);
}

static int run_create_unlink(struct octx *c, long n)
{
	long i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = openat(c->dirfd, "cu", O_WRONLY | O_CREAT | O_EXCL |
			    O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		close(fd);
		if (unlinkat(c->dirfd, "cu", 0))
			return -errno;
	}
	return 0;
}

static int run_mkdir_rmdir(struct octx *c, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		if (mkdirat(c->dirfd, "md", 0755))
			return -errno;
		if (unlinkat(c->dirfd, "md", AT_REMOVEDIR))
			return -errno;
	}
	return 0;
}

static int setup_rename(struct octx *c)
{
	int ret = open_file(c, "ra", O_WRONLY);

	unlinkat(c->dirfd, "rb", 0);
	return ret;
}

static int run_rename(struct octx *c, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (renameat(c->dirfd, i & 1 ? "rb" : "ra",
			     c->dirfd, i & 1 ? "ra" : "rb"))
			return -errno;
	return 0;
}

static void teardown_rename(struct octx *c)
{
	close_unlink(c, "ra");
	unlinkat(c->dirfd, "rb", 0);
}

static int setup_chmod(struct octx *c)
{
	return open_file(c, "ch", O_RDWR);
}

static int run_chmod(struct octx *c, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (fchmod(c->fd, i & 1 ? 0644 : 0600))
			return -errno;
	return 0;
}

static void teardown_chmod(struct octx *c)
{
	close_unlink(c, "ch");
}

static int setup_setxattr(struct octx *c)
{
	return open_file(c, "xa", O_RDWR);
}

/* trusted.*: tmpfs on 6.1 has no user.* xattrs */
static int run_setxattr(struct octx *c, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		c->buf[0] = (char)i;
		if (fsetxattr(c->fd, "trusted.vfsb_bench", c->buf, 32, 0))
			return -errno;
	}
	return 0;
}

static void teardown_setxattr(struct octx *c)
{
	close_unlink(c, "xa");
}

static int setup_pwrite(struct octx *c)
{
	return open_prefilled(c, "pw");
}

static int run_pwrite_4k(struct octx *c, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (pwrite(c->fd, c->buf, 4096,
			   (off_t)(i % FILE_PAGES) * 4096) != 4096)
			return -EIO;
	return 0;
}

static void teardown_pwrite(struct octx *c)
{
	close_unlink(c, "pw");
}

static int setup_write1(struct octx *c)
{
	return open_file(c, "w1", O_WRONLY | O_TRUNC);
}

static int run_write_1b(struct octx *c, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (write(c->fd, c->buf, 1) != 1)
			return -EIO;
	return 0;
}

static void teardown_write1(struct octx *c)
{
	close_unlink(c, "w1");
}

static int setup_uring(struct octx *c)
{
	int ret = open_prefilled(c, "ur");

	return ret ? ret : ring_setup(&c->ring, URING_BATCH);
}

/*
 * Batches of URING_BATCH writes per io_uring_enter(): on 6.1 buffered
 * writes to tmpfs and ext4 cannot be done without blocking, so each is
 * punted to an io-wq worker; one write per enter would measure the
 * worker's wake-up (milliseconds under TCG), not the write.
 */
static int run_uring_4k(struct octx *c, long n)
{
	unsigned int k;
	long i;
	int ret;

	for (i = 0; i < n; i += k) {
		k = n - i < URING_BATCH ? n - i : URING_BATCH;
		ret = ring_write(&c->ring, c->fd, c->buf, 4096,
				 (uint64_t)(i % FILE_PAGES) * 4096, k);
		if (ret)
			return ret;
	}
	return 0;
}

static void teardown_uring(struct octx *c)
{
	ring_free(&c->ring);
	close_unlink(c, "ur");
}

struct op {
	const char *key;	/* JSON */
	const char *label;	/* table */
	int (*setup)(struct octx *c);
	int (*run)(struct octx *c, long n);
	void (*teardown)(struct octx *c);
	bool scaling;		/* also in the watched-superblocks series */
	int records;		/* records one iteration announces */
};

static const struct op ops[] = {
	{ "create_unlink", "create+unlink", NULL, run_create_unlink, NULL, true, 2 },
	{ "mkdir_rmdir", "mkdir+rmdir", NULL, run_mkdir_rmdir, NULL, false, 2 },
	{ "rename", "rename", setup_rename, run_rename, teardown_rename, false, 2 },
	{ "chmod", "chmod", setup_chmod, run_chmod, teardown_chmod, true, 1 },
	{ "setxattr", "setxattr", setup_setxattr, run_setxattr, teardown_setxattr, false, 1 },
	{ "pwrite_4k", "pwrite 4K", setup_pwrite, run_pwrite_4k, teardown_pwrite, true, 1 },
	{ "write_1b", "write 1B", setup_write1, run_write_1b, teardown_write1, true, 1 },
	{ "io_uring_4k", "io_uring 4K", setup_uring, run_uring_4k, teardown_uring, false, 1 },
};
#define NOPS ARRAY_SIZE(ops)

static long op_iters[MAX_FS][NOPS];
static long reps;

/*
 * Ring size for a subscriber during a run of n iterations of op: room
 * for all the run's records (about 192 bytes each, plus the setup's),
 * at least the default, at most 8 MiB (8 subscribers: 64 MiB), so that
 * a reader falling behind during the loop does not turn the figure into
 * one of a lossy stream (which costs the writer less: no copy).
 */
#define RING_CAP (8U << 20)

static uint32_t ring_for(const struct op *op, long n)
{
	uint64_t want = ((uint64_t)n * op->records + FILE_PAGES + 64) * 192;
	uint32_t r = VFSB_RING_DEFAULT;

	while (r < want && r < RING_CAP)
		r <<= 1;
	return r;
}

/* One timed run of op on the directory dirfd: ns per op, or NAN. */
static double time_op(const struct op *op, int dirfd, long n)
{
	static struct octx c;
	uint64_t t0, t1;
	int ret;

	memset(&c, 0, sizeof(c));
	memset(c.buf, 'v', sizeof(c.buf));
	c.dirfd = dirfd;
	c.fd = -1;
	ret = op->setup ? op->setup(&c) : 0;
	if (ret) {
		progress("%s: setup failed: %s", op->key, strerror(-ret));
		return NAN;
	}
	sync();
	t0 = now_ns();
	ret = op->run(&c, n);
	t1 = now_ns();
	if (op->teardown)
		op->teardown(&c);
	if (ret) {
		progress("%s: failed: %s", op->key, strerror(-ret));
		return NAN;
	}
	return (double)(t1 - t0) / (double)n;
}

/* ---- configurations ---- */

struct cstate {
	const struct bench_fs *fs;
	int nfs;
	const char *other;	/* an unrelated fs, for other_watched */
	int dev;
	int notify_fd;		/* fanotify or inotify group */
	bool inotify;
	int stop_efd;
	pthread_t reader;
	uint64_t events, overflows;	/* written by the reader */
	struct drainer *drain;		/* streaming, coalesced */
	uint32_t ring;			/* their ring size for this run */
};

/* ---- record subscribers, drained by one thread ---- */

#define MAX_SUBS 8
#define DRAIN_BUF (64 << 10)	/* per read(), as vbctl stream */

struct drainer {
	int n;
	int fd[MAX_SUBS];
	int stop_efd;
	pthread_t thr;
	struct rec_count cnt;	/* added to atomically by the thread */
};

static void drain_fd(struct drainer *d, int fd)
{
	static char buf[DRAIN_BUF] __attribute__((aligned(8)));
	struct rec_count c;
	ssize_t len;

	for (;;) {
		len = read(fd, buf, sizeof(buf));
		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0) {
			if (len < 0 && errno != EAGAIN)
				die("read records: %s", strerror(errno));
			return;
		}
		memset(&c, 0, sizeof(c));
		rec_count_buf(buf, len, &c);
		__atomic_add_fetch(&d->cnt.changes, c.changes, __ATOMIC_RELAXED);
		__atomic_add_fetch(&d->cnt.creates, c.creates, __ATOMIC_RELAXED);
		__atomic_add_fetch(&d->cnt.bytes, c.bytes, __ATOMIC_RELAXED);
		__atomic_add_fetch(&d->cnt.overflows, c.overflows, __ATOMIC_RELAXED);
		__atomic_add_fetch(&d->cnt.lost, c.lost, __ATOMIC_RELAXED);
	}
}

/* poll()s every subscriber and reads what is there until told to stop */
static void *drainer_main(void *arg)
{
	struct drainer *d = arg;
	struct pollfd pfd[MAX_SUBS + 1];
	bool stopping;
	int i;

	pin_cpu(1);
	for (;;) {
		for (i = 0; i < d->n; i++)
			pfd[i] = (struct pollfd){ d->fd[i], POLLIN, 0 };
		pfd[d->n] = (struct pollfd){ d->stop_efd, POLLIN, 0 };
		if (poll(pfd, d->n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		stopping = pfd[d->n].revents;
		for (i = 0; i < d->n; i++)
			if (pfd[i].revents || stopping)
				drain_fd(d, d->fd[i]);
		if (stopping)
			return NULL;
	}
}

/* n subscribers on paths, each with its own open device */
static struct drainer *drainer_start(const char *const *paths, int npaths,
				     int n, uint32_t ring, uint32_t flags)
{
	struct drainer *d = calloc(1, sizeof(*d));
	int i;

	if (!d)
		die("out of memory");
	d->n = n;
	for (i = 0; i < n; i++)
		d->fd[i] = sub_open(paths, npaths, ring, flags);
	d->stop_efd = eventfd(0, EFD_CLOEXEC);
	if (d->stop_efd < 0)
		die("eventfd: %s", strerror(errno));
	if (pthread_create(&d->thr, NULL, drainer_main, d))
		die("pthread_create failed");
	return d;
}

/* records + losses seen so far: stops moving once the reader caught up */
static uint64_t drainer_seen(struct drainer *d)
{
	return __atomic_load_n(&d->cnt.changes, __ATOMIC_RELAXED) +
	       __atomic_load_n(&d->cnt.overflows, __ATOMIC_RELAXED);
}

/* Drains the rest, closes the subscribers; the counts stay in *out. */
static void drainer_stop(struct drainer *d, struct rec_count *out)
{
	uint64_t one = 1;
	int i;

	if (write(d->stop_efd, &one, sizeof(one)) != sizeof(one))
		die("eventfd write: %s", strerror(errno));
	pthread_join(d->thr, NULL);
	close(d->stop_efd);
	for (i = 0; i < d->n; i++)
		close(d->fd[i]);
	if (out)
		*out = d->cnt;
	free(d);
}

/* Drains the notification group until told to stop; counts events. */
static void *reader_main(void *arg)
{
	struct cstate *s = arg;
	static char buf[1 << 16] __attribute__((aligned(8)));
	struct pollfd pfd[2] = { { s->notify_fd, POLLIN, 0 },
				 { s->stop_efd, POLLIN, 0 } };
	bool stopping = false;
	ssize_t len;

	pin_cpu(1);
	for (;;) {
		if (!stopping && poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			stopping = true;
		len = read(s->notify_fd, buf, sizeof(buf));
		if (len <= 0) {
			if (stopping)
				break;
			continue;
		}
		if (s->inotify) {
			char *p = buf;

			while (p < buf + len) {
				struct inotify_event *e = (void *)p;

				if (e->mask & IN_Q_OVERFLOW)
					__atomic_add_fetch(&s->overflows, 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&s->events, 1, __ATOMIC_RELAXED);
				p += sizeof(*e) + e->len;
			}
		} else {
			struct fanotify_event_metadata *m = (void *)buf;
			ssize_t left = len;

			for (; FAN_EVENT_OK(m, left); m = FAN_EVENT_NEXT(m, left)) {
				if (m->mask & FAN_Q_OVERFLOW)
					__atomic_add_fetch(&s->overflows, 1, __ATOMIC_RELAXED);
				if (m->fd >= 0)
					close(m->fd);
				__atomic_add_fetch(&s->events, 1, __ATOMIC_RELAXED);
			}
		}
	}
	return NULL;
}

static void reader_start(struct cstate *s)
{
	s->events = s->overflows = 0;
	s->stop_efd = eventfd(0, EFD_CLOEXEC);
	if (s->stop_efd < 0)
		die("eventfd: %s", strerror(errno));
	if (pthread_create(&s->reader, NULL, reader_main, s))
		die("pthread_create failed");
}

static void reader_stop(struct cstate *s)
{
	uint64_t one = 1;

	if (write(s->stop_efd, &one, sizeof(one)) != sizeof(one))
		die("eventfd write: %s", strerror(errno));
	pthread_join(s->reader, NULL);
	close(s->stop_efd);
	close(s->notify_fd);
	if (s->overflows)
		progress("warning: the %s queue overflowed %llu times",
			 s->inotify ? "inotify" : "fanotify",
			 (unsigned long long)s->overflows);
}

static int setup_none(struct cstate *s)
{
	(void)s;
	return 0;
}

/*
 * The configurations with live hooks share one device (s->dev, opened
 * for the whole group) that watches the unrelated fs: registering the
 * hooks takes seconds under TCG, watching one more fs milliseconds.
 */
static int setup_watched(struct cstate *s)
{
	int i, ret;

	for (i = 0; i < s->nfs; i++) {
		ret = dev_watch(s->dev, s->fs[i].dir);
		if (ret)
			die("watch %s: %s", s->fs[i].dir, strerror(-ret));
	}
	return 0;
}

static void teardown_watched(struct cstate *s)
{
	int i, ret;

	for (i = 0; i < s->nfs; i++) {
		ret = dev_unwatch(s->dev, s->fs[i].dir);
		if (ret)
			die("unwatch %s: %s", s->fs[i].dir, strerror(-ret));
	}
	/* the unrelated fs's tracking and the device remain */
	mod_wait_refcnt(2);
}

/*
 * streaming, coalesced: a second open device subscribes (default 1 MiB
 * ring) and watches the fs under test; a thread on CPU 1 drains it.
 */
static int setup_subscriber(struct cstate *s, uint32_t flags)
{
	const char *paths[MAX_FS];
	int i;

	for (i = 0; i < s->nfs; i++)
		paths[i] = s->fs[i].dir;
	s->drain = drainer_start(paths, s->nfs, 1, s->ring, flags);
	return 0;
}

static int setup_streaming(struct cstate *s)
{
	return setup_subscriber(s, 0);
}

static int setup_coalesced(struct cstate *s)
{
	return setup_subscriber(s, VFSB_SUB_COALESCE);
}

static struct rec_count last_drain;	/* of the last teardown_subscriber() */

static void teardown_subscriber(struct cstate *s)
{
	drainer_stop(s->drain, &last_drain);
	s->drain = NULL;
	/* the unrelated fs's tracking and the device remain */
	mod_wait_refcnt(2);
}

#define FAN_BENCH_MASK (FAN_MODIFY | FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | \
			FAN_MOVED_TO | FAN_ATTRIB | FAN_ONDIR | FAN_EVENT_ON_CHILD)

static int setup_fanotify(struct cstate *s)
{
	int i;

	s->inotify = false;
	s->notify_fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID |
				     FAN_UNLIMITED_QUEUE | FAN_CLOEXEC |
				     FAN_NONBLOCK, O_RDONLY | O_LARGEFILE);
	if (s->notify_fd < 0)
		die("fanotify_init: %s", strerror(errno));
	for (i = 0; i < s->nfs; i++)
		if (fanotify_mark(s->notify_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				  FAN_BENCH_MASK, AT_FDCWD, s->fs[i].dir))
			die("fanotify_mark %s: %s", s->fs[i].dir, strerror(errno));
	reader_start(s);
	return 0;
}

static void write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		progress("cannot set %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int setup_inotify(struct cstate *s)
{
	char dir[256];
	int i;

	write_sysctl("/proc/sys/fs/inotify/max_queued_events", "4194304");
	s->inotify = true;
	s->notify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->notify_fd < 0)
		die("inotify_init1: %s", strerror(errno));
	for (i = 0; i < s->nfs; i++) {
		snprintf(dir, sizeof(dir), "%s/overhead", s->fs[i].dir);
		if (inotify_add_watch(s->notify_fd, dir, IN_MODIFY | IN_CREATE |
				      IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
				      IN_ATTRIB) < 0)
			die("inotify_add_watch %s: %s", dir, strerror(errno));
	}
	reader_start(s);
	return 0;
}

struct config {
	const char *key;	/* JSON: key_ns */
	const char *label;
	bool module;		/* loaded while measuring */
	bool hooks;		/* hooks registered: the second group */
	int (*setup)(struct cstate *s);
	void (*teardown)(struct cstate *s);
	const char *na;		/* not measurable: why */
};

static const struct config configs[] = {
	{ "baseline", "baseline", false, false, setup_none, NULL, NULL },
	{ "unwatched", "unwatched", true, false, setup_none, NULL, NULL },
	{ "other_watched", "other-watched", true, true, setup_none, NULL, NULL },
	{ "watched", "watched", true, true, setup_watched, teardown_watched, NULL },
	{ "streaming", "streaming", true, true, setup_streaming, teardown_subscriber, NULL },
	{ "coalesced", "coalesced", true, true, setup_coalesced, teardown_subscriber, NULL },
	{ "fanotify", "fanotify", false, false, setup_fanotify, reader_stop, NULL },
	{ "inotify", "inotify", false, false, setup_inotify, reader_stop, NULL },
};
#define NCFG ARRAY_SIZE(configs)

static const char *config_help[NCFG] = {
	"module not loaded",
	"module loaded, nothing watched (no hooks registered)",
	"module loaded, an unrelated tmpfs watched: hooks live, this fs not watched",
	"module loaded, this fs (and the unrelated tmpfs) watched by an open device",
	"module loaded, this fs watched by a subscriber (ring of 1-8 MiB: the run's records fit; all reasons) drained by a thread on CPU 1",
	"the same with VFSB_SUB_COALESCE and no barrier during the loop (one record per directory and reason)",
	"no module; FAN_REPORT_FID group, FAN_MARK_FILESYSTEM, drained by a thread",
	"no module; inotify on the test directory, drained by a thread",
};

static double res[MAX_FS][NOPS][NCFG][MAX_REPS];
static double evs[MAX_FS][NOPS][NCFG][MAX_REPS];	/* events per op */
static double lost[MAX_FS][NOPS][NCFG][MAX_REPS];	/* records lost per run */

static bool is_notify(int c)
{
	return configs[c].setup == setup_fanotify || configs[c].setup == setup_inotify;
}

static bool is_stream(int c)
{
	return configs[c].setup == setup_streaming || configs[c].setup == setup_coalesced;
}

/* Sum over the rounds (NAN where not measured). */
static double sum_reps(const double *v)
{
	double t = 0;
	int r, m = 0;

	for (r = 0; r < reps; r++)
		if (!isnan(v[r])) {
			t += v[r];
			m++;
		}
	return m ? t : NAN;
}

/*
 * The measurable configurations of one group (hooks or not), forwards
 * when flip is even, backwards when odd; returns how many.
 */
static int group_order(bool hooks, int flip, int *order)
{
	int i, n = 0, t;

	for (i = 0; i < (int)NCFG; i++)
		if (!configs[i].na && configs[i].hooks == hooks)
			order[n++] = i;
	if (flip & 1)
		for (i = 0; i < n / 2; i++) {
			t = order[i];
			order[i] = order[n - 1 - i];
			order[n - 1 - i] = t;
		}
	return n;
}

static struct summary ratio_summary(const double *v, const double *base)
{
	double r[MAX_REPS];
	int i;

	for (i = 0; i < reps; i++)
		r[i] = v[i] / base[i];
	return summarize(r, reps);
}

static void print_overhead_table(const struct bench_fs *fs, int nfs)
{
	char b1[32], b2[32];
	unsigned int o, c;
	int f;

	for (f = 0; f < nfs; f++) {
		printf("\n[1] per-operation cost on %s: baseline in ns/op, others as ratio to baseline\n"
		       "    (median of %ld rounds, +-x%% = half the range; ratios paired per round)\n",
		       fs[f].name, reps);
		printf("%-15s", "config");
		for (o = 0; o < NOPS; o++)
			printf(" %-14s", ops[o].label);
		printf("\n%-15s", "iterations");
		for (o = 0; o < NOPS; o++)
			printf(" %-14ld", op_iters[f][o]);
		printf("\n");
		for (c = 0; c < NCFG; c++) {
			printf("%-15s", c ? configs[c].label : "baseline ns");
			if (configs[c].na) {
				printf(" %s\n", configs[c].na);
				continue;
			}
			for (o = 0; o < NOPS; o++) {
				struct summary s = c ?
					ratio_summary(res[f][o][c], res[f][o][0]) :
					summarize(res[f][o][0], reps);
				char cell[40];

				snprintf(cell, sizeof(cell), "%s +-%s%%",
					 fmt_num(b1, s.med, c ? 3 : 0),
					 fmt_num(b2, spread_pct(s), 1));
				printf(" %-14s", cell);
			}
			printf("\n");
			if (!is_stream(c))
				continue;
			/* what the subscriber got: records per op, and any loss */
			printf("%-15s", "  recs/op,lost");
			for (o = 0; o < NOPS; o++) {
				char cell[40];
				double l = sum_reps(lost[f][o][c]);

				snprintf(cell, sizeof(cell), "%s/%s%s",
					 fmt_num(b1, summarize(evs[f][o][c], reps).med, 2),
					 fmt_num(b2, l, 0), l > 0 ? " LOST" : "");
				printf(" %-14s", cell);
			}
			printf("\n");
		}
		printf("    recs/op,lost: records the subscriber read per op (median of rounds) / records\n"
		       "    lost to a full ring over all rounds (\"LOST\": that figure is of a lossy stream)\n");
	}
	for (f = 0; f < nfs; f++) {
		printf("\n[1b] the same on %s, best run over best baseline run (a busy host only ever slows a run down)\n",
		       fs[f].name);
		printf("%-15s", "config");
		for (o = 0; o < NOPS; o++)
			printf(" %-11s", ops[o].label);
		printf("\n");
		for (c = 0; c < NCFG; c++) {
			if (configs[c].na)
				continue;
			printf("%-15s", c ? configs[c].label : "baseline ns");
			for (o = 0; o < NOPS; o++) {
				double base = summarize(res[f][o][0], reps).min;
				double v = summarize(res[f][o][c], reps).min;

				printf(" %-11s", fmt_num(b1, c ? v / base : base, c ? 3 : 0));
			}
			printf("\n");
		}
	}
	printf("\n    configurations:\n");
	for (c = 0; c < NCFG; c++)
		printf("    %-14s %s\n", configs[c].label,
		       configs[c].na ? configs[c].na : config_help[c]);
}

static void json_overhead_fs(struct jw *j, int f)
{
	unsigned int o, c;
	char key[64];
	int r;

	for (o = 0; o < NOPS; o++) {
		jw_obj(j, ops[o].key);
		for (c = 0; c < NCFG; c++) {
			snprintf(key, sizeof(key), "%s_ns", configs[c].key);
			jw_num(j, key, configs[c].na ? NAN :
			       summarize(res[f][o][c], reps).med);
		}
		jw_int(j, "iterations", op_iters[f][o]);
		jw_int(j, "reps", reps);
		jw_int(j, "stream_ring_bytes", ring_for(&ops[o], op_iters[f][o]));
		jw_obj(j, "ratio");
		for (c = 1; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       ratio_summary(res[f][o][c], res[f][o][0]).med);
		jw_end(j);
		/* best run over best run: robust to a busy host, which only slows */
		jw_obj(j, "ratio_best");
		for (c = 1; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       summarize(res[f][o][c], reps).min /
			       summarize(res[f][o][0], reps).min);
		jw_end(j);
		jw_obj(j, "ratio_spread_pct");
		for (c = 1; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       spread_pct(ratio_summary(res[f][o][c], res[f][o][0])));
		jw_end(j);
		jw_obj(j, "ns_spread_pct");
		for (c = 0; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       spread_pct(summarize(res[f][o][c], reps)));
		jw_end(j);
		/* notification events or records per op, median over rounds */
		jw_obj(j, "events_per_op");
		for (c = 0; c < NCFG; c++)
			if (is_notify(c) || is_stream(c))
				jw_num(j, configs[c].key,
				       summarize(evs[f][o][c], reps).med);
		jw_end(j);
		/* records the subscriber lost (OVERFLOW), summed over the rounds */
		jw_obj(j, "records_lost");
		for (c = 0; c < NCFG; c++)
			if (is_stream(c))
				jw_num(j, configs[c].key, sum_reps(lost[f][o][c]));
		jw_end(j);
		jw_obj(j, "reps_ns");
		for (c = 0; c < NCFG; c++) {
			if (configs[c].na) {
				jw_null(j, configs[c].key);
				continue;
			}
			jw_arr(j, configs[c].key);
			for (r = 0; r < reps; r++)
				jw_num(j, NULL, res[f][o][c][r]);
			jw_end_arr(j);
		}
		jw_end(j);
		jw_end(j);
	}
}

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", dir, strerror(errno));
	return fd;
}

/*
 * Iterations per timed run: VFSB_BENCH_ITERS (all ops) or
 * VFSB_BENCH_ITERS_<op> when set; otherwise calibrated so that a run of
 * the op takes about VFSB_BENCH_RUN_MS in the baseline, between
 * MIN_ITERS and 100000 (TCG makes the namespace operations far too slow
 * for 100k each in the time the whole benchmark may take).
 */
#define MAX_ITERS 100000
#define MIN_ITERS 1000

static long calibrated_iters(const struct op *op, int dirfd)
{
	long all = bench_env("VFSB_BENCH_ITERS", 0, 0), n;
	long run_ms = bench_env("VFSB_BENCH_RUN_MS", 250, 30);
	char name[64];
	double ns, k;

	snprintf(name, sizeof(name), "VFSB_BENCH_ITERS_%s", op->key);
	n = bench_env(name, all, all);
	if (n > 0)
		return n;
	/* warm up, then time a short run */
	time_op(op, dirfd, bench_quick ? 50 : 200);
	ns = time_op(op, dirfd, bench_quick ? 100 : 500);
	if (isnan(ns) || ns <= 0)
		return MIN_ITERS;
	n = (long)(run_ms * 1e6 / ns);
	if (n > MAX_ITERS)
		n = MAX_ITERS;
	if (n < (bench_quick ? 100 : MIN_ITERS))
		n = bench_quick ? 100 : MIN_ITERS;
	/* two significant digits, a multiple of the io_uring batch */
	for (k = 1; n / k >= 100; k *= 10)
		;
	return (long)(n / k) * (long)k;
}

/* One timed run of op o on fs f in configuration c, repetition r. */
static void measure(struct cstate *st, int c, int f, int o, int dirfd, int r)
{
	const struct config *cf = &configs[c];
	uint64_t ev0, last;

	if (!cf->hooks)
		mod_set(cf->module);
	st->ring = ring_for(&ops[o], op_iters[f][o]);
	cf->setup(st);
	ev0 = st->events;
	res[f][o][c][r] = time_op(&ops[o], dirfd, op_iters[f][o]);
	evs[f][o][c][r] = NAN;
	lost[f][o][c][r] = NAN;
	if (is_stream(c)) {
		/* the drainer reads what the loop announced */
		do {
			last = drainer_seen(st->drain);
			usleep(20000);
		} while (drainer_seen(st->drain) != last);
		cf->teardown(st);
		evs[f][o][c][r] = (double)last_drain.changes / op_iters[f][o];
		lost[f][o][c][r] = (double)last_drain.lost;
		if (last_drain.lost)
			progress("warning: %s %s: %llu records lost (%llu OVERFLOW records)",
				 cf->key, ops[o].key,
				 (unsigned long long)last_drain.lost,
				 (unsigned long long)last_drain.overflows);
		return;
	}
	if (is_notify(c)) {
		/* let the reader catch up before counting */
		do {
			last = st->events;
			usleep(20000);
		} while (st->events != last);
		evs[f][o][c][r] = (double)(st->events - ev0) / op_iters[f][o];
	}
	if (cf->teardown)
		cf->teardown(st);
}

static int cmd_overhead(const char *out)
{
	struct bench_fs fs[MAX_FS];
	struct cstate st;
	int nfs, f, r, i, g, n, dirfd[MAX_FS], order[NCFG], primary;
	long budget_s;
	unsigned int o;
	char dir[256];
	struct jw j;
	uint64_t t0 = now_ns();

	nfs = bench_fs_list(fs, MAX_FS);
	primary = bench_fs_primary(fs, nfs);
	reps = bench_env("VFSB_BENCH_REPS", 10, 2);
	if (reps > MAX_REPS)
		reps = MAX_REPS;
	budget_s = bench_env("VFSB_BENCH_OVERHEAD_BUDGET_S", 700, 300);
	for (f = 0; f < nfs; f++) {
		bench_subdir(dir, sizeof(dir), fs[f].dir, "overhead");
		dirfd[f] = open_dir(dir);
	}
	memset(&st, 0, sizeof(st));
	st.fs = fs;
	st.nfs = nfs;
	st.dev = -1;
	st.other = getenv("VFSB_BENCH_OTHER");
	if (!st.other || !*st.other)
		die("VFSB_BENCH_OTHER is not set (bench.sh sets it)");
	for (f = 0; f < nfs; f++)
		for (o = 0; o < NOPS; o++)
			for (i = 0; i < (int)NCFG; i++)
				for (r = 0; r < MAX_REPS; r++)
					res[f][o][i][r] = evs[f][o][i][r] =
						lost[f][o][i][r] = NAN;

	pin_cpu(0);
	progress("overhead: %ld rounds x %d fs x %zu ops x %zu configurations",
		 reps, nfs, NOPS, NCFG);
	/* warm the caches and size the runs, in the baseline */
	mod_set(false);
	for (f = 0; f < nfs; f++) {
		for (o = 0; o < NOPS; o++)
			op_iters[f][o] = calibrated_iters(&ops[o], dirfd[f]);
		progress("overhead: %s iterations per run calibrated", fs[f].name);
	}

	/*
	 * Each round measures every op in every configuration. The
	 * configurations without hooks (cheap to switch: module load and
	 * unload without hooks take tens of ms) run back to back for each
	 * op, then those with hooks (registered once per round: seconds);
	 * rounds alternate which group comes first, ops alternate the
	 * order within a group.
	 */
	for (r = 0; r < reps; r++) {
		uint64_t tr = now_ns();

		for (g = 0; g < 2; g++) {
			bool hooks = (g ^ r) & 1;
			int ret;

			if (hooks) {
				mod_set(true);
				st.dev = dev_open();
				ret = dev_watch(st.dev, st.other);
				if (ret)
					die("watch %s: %s", st.other, strerror(-ret));
				/* let the text patching's deferred work finish */
				sleep_ns(1000000000ull);
			}
			for (f = 0; f < nfs; f++) {
				for (o = 0; o < NOPS; o++) {
					n = group_order(hooks, r + f * NOPS + o, order);
					for (i = 0; i < n; i++)
						measure(&st, order[i], f, o, dirfd[f], r);
				}
			}
			if (hooks) {
				close(st.dev);
				st.dev = -1;
				/* waits for the hooks to go */
				mod_set(false);
			}
		}
		progress("overhead: round %d/%ld done in %.1fs", r + 1, reps,
			 (now_ns() - tr) / 1e9);
		/* a slow (shared) host must not push the run past its limit */
		if (r + 1 >= 2 && r + 1 < reps &&
		    (now_ns() - t0) / 1e9 > budget_s) {
			progress("overhead: over the %lds budget: stopping after %d rounds",
				 budget_s, r + 1);
			reps = r + 1;
		}
	}
	mod_set(false);
	for (f = 0; f < nfs; f++)
		close(dirfd[f]);

	print_overhead_table(fs, nfs);

	/* one object of top-level members; bench.sh merges the files */
	jw_open(&j, out);
	jw_obj(&j, NULL);
	jw_obj(&j, "overhead");
	json_overhead_fs(&j, primary);
	jw_end(&j);
	jw_obj(&j, "overhead_by_fs");
	for (f = 0; f < nfs; f++) {
		jw_obj(&j, fs[f].name);
		json_overhead_fs(&j, f);
		jw_end(&j);
	}
	jw_end(&j);
	jw_obj(&j, "overhead_info");
	jw_str(&j, "primary_fs", fs[primary].name);
	jw_int(&j, "reps", reps);
	jw_obj(&j, "configs");
	for (i = 0; i < (int)NCFG; i++)
		jw_str(&j, configs[i].key, configs[i].na ? configs[i].na : config_help[i]);
	jw_end(&j);
	jw_num(&j, "seconds", (now_ns() - t0) / 1e9);
	jw_end(&j);
	jw_end(&j);
	jw_close(&j);
	return 0;
}

/* ---- 5a: cost with 1, 10, 100 watched superblocks ---- */

static const int nsbs[] = { 0, 1, 10, 100 };
#define NSB ARRAY_SIZE(nsbs)
#define SB_ROOT "/mnt/bench-sb"

static double sres[NOPS][NSB][MAX_REPS];

/* 5c: subscribers on the fs under test (its only watched superblock) */
static const int nsubs[] = { 1, 8 };
#define NSUBS ARRAY_SIZE(nsubs)
static double subres[NOPS][NSUBS][MAX_REPS];
static double sublost[NOPS][NSUBS][MAX_REPS];
static double subrecs[NOPS][NSUBS][MAX_REPS];	/* per op and subscriber */
static double subbase[NOPS][MAX_REPS];	/* no subscriber, the same runs */
static long sub_reps;		/* the first sub_reps rounds measure them */
static long sub_iters[NOPS];	/* shorter runs: 8 rings take long to drain */

/* One timed run of op with n drained subscribers on path. */
static void time_subscribers(unsigned int o, int q, int r, int dirfd,
			     const char *path)
{
	struct drainer *d = drainer_start(&path, 1, nsubs[q],
					  ring_for(&ops[o], sub_iters[o]), 0);
	struct rec_count cnt;
	uint64_t last;

	subres[o][q][r] = time_op(&ops[o], dirfd, sub_iters[o]);
	do {
		last = drainer_seen(d);
		usleep(20000);
	} while (drainer_seen(d) != last);
	drainer_stop(d, &cnt);
	sublost[o][q][r] = (double)cnt.lost;
	subrecs[o][q][r] = (double)cnt.changes / sub_iters[o] / nsubs[q];
	if (cnt.lost)
		progress("warning: %d subscribers, %s: %llu records lost",
			 nsubs[q], ops[o].key, (unsigned long long)cnt.lost);
	/* the subscribers' devices are gone: one tracking, one device */
	mod_wait_refcnt(2);
}

/*
 * Watches or unwatches the superblocks path[have..want) so that the
 * first want are watched, then waits until the unwatched ones' tracking
 * is freed (work items in the background would disturb the next run).
 */
static void watch_n(int dev, char path[][64], int *have, int want)
{
	int ret;

	for (; *have < want; (*have)++) {
		ret = dev_watch(dev, path[*have]);
		if (ret)
			die("watch %s: %s", path[*have], strerror(-ret));
	}
	for (; *have > want; (*have)--) {
		ret = dev_unwatch(dev, path[*have - 1]);
		if (ret)
			die("unwatch %s: %s", path[*have - 1], strerror(-ret));
	}
	/* one reference per tracking, one for the open device */
	mod_wait_refcnt(want + 1);
}

static int cmd_scaling(const char *out)
{
	struct bench_fs fs[MAX_FS];
	int nfs, f, tf = -1, r, i, k, dev, dirfd;
	unsigned int o;
	char dir[256], path[100][64];
	struct jw j;
	uint64_t t0 = now_ns();
	char b1[32], b2[32], cell[40];

	nfs = bench_fs_list(fs, MAX_FS);
	for (f = 0; f < nfs; f++)
		if (!strcmp(fs[f].name, "tmpfs"))
			tf = f;
	if (tf < 0)
		die("scaling needs a tmpfs in VFSB_BENCH_FS");
	reps = bench_env("VFSB_BENCH_REPS", 10, 2);
	if (reps > MAX_REPS)
		reps = MAX_REPS;
	/* 8 subscribers' records take a while to drain: fewer rounds */
	sub_reps = bench_env("VFSB_BENCH_SUB_REPS", 4, 2);
	bench_subdir(dir, sizeof(dir), fs[tf].dir, "scaling");
	dirfd = open_dir(dir);

	/* the fs under test is superblock #1; 99 more small tmpfs mounts */
	snprintf(path[0], sizeof(path[0]), "%s", fs[tf].dir);
	mkdir(SB_ROOT, 0755);
	for (k = 1; k < 100; k++) {
		snprintf(path[k], sizeof(path[k]), SB_ROOT "/%d", k);
		mkdir(path[k], 0755);
		if (mount("tmpfs", path[k], "tmpfs", 0, "size=1m"))
			die("mount %s: %s", path[k], strerror(errno));
	}
	for (o = 0; o < NOPS; o++)
		for (i = 0; i < (int)NSB; i++)
			for (r = 0; r < MAX_REPS; r++)
				sres[o][i][r] = NAN;
	for (o = 0; o < NOPS; o++)
		for (i = 0; i < (int)NSUBS; i++)
			for (r = 0; r < MAX_REPS; r++)
				subres[o][i][r] = sublost[o][i][r] = subrecs[o][i][r] = NAN;
	for (o = 0; o < NOPS; o++)
		for (r = 0; r < MAX_REPS; r++)
			subbase[o][r] = NAN;

	pin_cpu(0);
	mod_set(true);
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		op_iters[0][o] = calibrated_iters(&ops[o], dirfd);
		sub_iters[o] = bench_env("VFSB_BENCH_SUB_ITERS", 8000, 8000);
		if (sub_iters[o] > op_iters[0][o] || sub_iters[o] < 1)
			sub_iters[o] = op_iters[0][o];
	}
	progress("scaling: %ld rounds x {0,1,10,100} watched superblocks, {1,8} subscribers in %ld of them",
		 reps, sub_reps < reps ? sub_reps : reps);
	/*
	 * Per round: 0 watched (no hooks) for every op; then, hooks
	 * registered once, 1, 10 and 100 watched back to back for each op
	 * (forwards, then backwards for the next op). Rounds alternate
	 * which half comes first.
	 */
	for (r = 0; r < reps; r++) {
		uint64_t tc = now_ns();
		int g, have, seq = 0;

		for (g = 0; g < 2; g++) {
			if (!((g ^ r) & 1)) {
				for (o = 0; o < NOPS; o++)
					if (ops[o].scaling)
						sres[o][0][r] = time_op(&ops[o], dirfd,
									op_iters[0][o]);
				continue;
			}
			dev = dev_open();
			have = 0;
			watch_n(dev, path, &have, 1);
			sleep_ns(1000000000ull);	/* as in cmd_overhead */
			for (o = 0; o < NOPS; o++) {
				if (!ops[o].scaling)
					continue;
				for (k = 1; k < (int)NSB; k++) {
					int w = seq & 1 ? (int)NSB - k : k;

					watch_n(dev, path, &have, nsbs[w]);
					sres[o][w][r] = time_op(&ops[o], dirfd,
								op_iters[0][o]);
				}
				/*
				 * then none, 1 and 8 subscribers (or backwards),
				 * 1 watched: the fs under test
				 */
				watch_n(dev, path, &have, 1);
				if (r < sub_reps && !(seq & 1))
					subbase[o][r] = time_op(&ops[o], dirfd, sub_iters[o]);
				for (k = 0; r < sub_reps && k < (int)NSUBS; k++)
					time_subscribers(o, seq & 1 ? (int)NSUBS - 1 - k : k,
							 r, dirfd, path[0]);
				if (r < sub_reps && (seq & 1))
					subbase[o][r] = time_op(&ops[o], dirfd, sub_iters[o]);
				seq++;
			}
			close(dev);
			/* until every tracking is freed and the hooks are gone */
			mod_wait_refcnt(0);
		}
		progress("scaling: round %d/%ld done in %.1fs", r + 1, reps,
			 (now_ns() - tc) / 1e9);
	}
	close(dirfd);
	mod_set(false);
	for (k = 1; k < 100; k++)
		umount2(path[k], MNT_DETACH);

	printf("\n[5a] cost vs number of watched superblocks (%s; the fs under test is one of them)\n"
	       "    ns/op with 0 watched (module loaded, no hooks), others as ratio to 0 watched;\n"
	       "    \"100 vs 1\" = ratio of 100 to 1 watched (measured back to back); median of %ld rounds, +-half-range\n",
	       fs[tf].name, reps);
	printf("%-15s %-10s", "op", "iterations");
	for (k = 0; k < (int)NSB; k++) {
		snprintf(cell, sizeof(cell), "%d watched", nsbs[k]);
		printf(" %-14s", cell);
	}
	printf(" %-14s\n", "100 vs 1");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		printf("%-15s %-10ld", ops[o].label, op_iters[0][o]);
		for (k = 0; k < (int)NSB; k++) {
			double rr[MAX_REPS];
			struct summary s;

			for (r = 0; r < reps; r++)
				rr[r] = sres[o][k][r] / sres[o][0][r];
			s = k ? summarize(rr, reps) : summarize(sres[o][0], reps);
			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, k ? 3 : 0),
				 fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s", cell);
		}
		{
			struct summary s = ratio_summary(sres[o][NSB - 1], sres[o][1]);

			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, 3), fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s\n", cell);
		}
	}

	printf("\n[5c] cost vs number of record subscribers (%s, its only watched superblock; each\n"
	       "    subscriber its own open device and a 1-8 MiB ring for the run's records, all drained\n"
	       "    by one thread on CPU 1)\n"
	       "    ratios to 1 watched without subscribers (same round, same iterations); \"8 vs 1\" =\n"
	       "    8 over 1 subscriber; median of the first %ld rounds, +-half-range\n",
	       fs[tf].name, sub_reps < reps ? sub_reps : reps);
	printf("%-15s %-10s %-10s %-14s %-14s %-14s %-14s\n", "op", "iterations",
	       "0 subs ns", "1 subscriber", "8 subscribers", "8 vs 1", "recs/op/sub,lost");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		printf("%-15s %-10ld %-10s", ops[o].label, sub_iters[o],
		       fmt_num(b1, summarize(subbase[o], reps).med, 0));
		for (k = 0; k < (int)NSUBS; k++) {
			struct summary s = ratio_summary(subres[o][k], subbase[o]);

			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, 3), fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s", cell);
		}
		{
			struct summary s = ratio_summary(subres[o][1], subres[o][0]);
			double l = sum_reps(sublost[o][0]) + sum_reps(sublost[o][1]);

			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, 3), fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s", cell);
			snprintf(cell, sizeof(cell), "%s/%s%s",
				 fmt_num(b1, summarize(subrecs[o][1], reps).med, 2),
				 fmt_num(b2, l, 0), l > 0 ? " LOST" : "");
			printf(" %-14s\n", cell);
		}
	}

	jw_open(&j, out);
	jw_obj(&j, NULL);
	jw_obj(&j, "subscribers");
	jw_str(&j, "fs", fs[tf].name);
	jw_int(&j, "reps", sub_reps < reps ? sub_reps : reps);
	jw_obj(&j, "ops");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		jw_obj(&j, ops[o].key);
		jw_int(&j, "iterations", sub_iters[o]);
		jw_int(&j, "ring_bytes", ring_for(&ops[o], sub_iters[o]));
		jw_num(&j, "watched_1_ns", summarize(subbase[o], reps).med);
		for (k = 0; k < (int)NSUBS; k++) {
			char key[48];
			struct summary sm = ratio_summary(subres[o][k], subbase[o]);

			snprintf(key, sizeof(key), "subscribers_%d_ns", nsubs[k]);
			jw_num(&j, key, summarize(subres[o][k], reps).med);
			snprintf(key, sizeof(key), "ratio_%d_vs_watched_1", nsubs[k]);
			jw_num(&j, key, sm.med);
			snprintf(key, sizeof(key), "ratio_%d_vs_watched_1_spread_pct", nsubs[k]);
			jw_num(&j, key, spread_pct(sm));
			snprintf(key, sizeof(key), "records_per_op_per_subscriber_%d", nsubs[k]);
			jw_num(&j, key, summarize(subrecs[o][k], reps).med);
			snprintf(key, sizeof(key), "records_lost_%d", nsubs[k]);
			jw_num(&j, key, sum_reps(sublost[o][k]));
		}
		{
			struct summary sm = ratio_summary(subres[o][1], subres[o][0]);

			jw_num(&j, "growth_8_vs_1", sm.med);
			jw_num(&j, "growth_8_vs_1_spread_pct", spread_pct(sm));
		}
		jw_end(&j);
	}
	jw_end(&j);
	jw_end(&j);
	jw_obj(&j, "watched_sbs");
	jw_str(&j, "fs", fs[tf].name);
	jw_int(&j, "reps", reps);
	jw_obj(&j, "ops");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		jw_obj(&j, ops[o].key);
		jw_int(&j, "iterations", op_iters[0][o]);
		for (k = 0; k < (int)NSB; k++) {
			char key[32];

			snprintf(key, sizeof(key), "watched_%d_ns", nsbs[k]);
			jw_num(&j, key, summarize(sres[o][k], reps).med);
		}
		for (k = 1; k < (int)NSB; k++) {
			double rr[MAX_REPS];
			char key[32];
			struct summary s;

			for (r = 0; r < reps; r++)
				rr[r] = sres[o][k][r] / sres[o][0][r];
			s = summarize(rr, reps);
			snprintf(key, sizeof(key), "ratio_%d", nsbs[k]);
			jw_num(&j, key, s.med);
			snprintf(key, sizeof(key), "ratio_%d_spread_pct", nsbs[k]);
			jw_num(&j, key, spread_pct(s));
		}
		/* growth: against 1 watched, measured back to back */
		for (k = 2; k < (int)NSB; k++) {
			struct summary s = ratio_summary(sres[o][k], sres[o][1]);
			char key[32];

			snprintf(key, sizeof(key), "growth_%d_vs_1", nsbs[k]);
			jw_num(&j, key, s.med);
			snprintf(key, sizeof(key), "growth_%d_vs_1_spread_pct", nsbs[k]);
			jw_num(&j, key, spread_pct(s));
		}
		jw_end(&j);
	}
	jw_end(&j);
	jw_num(&j, "seconds", (now_ns() - t0) / 1e9);
	jw_end(&j);
	jw_end(&j);
	jw_close(&j);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		die("usage: bench_overhead overhead|scaling OUT.json");
	bench_init(argv[1]);
	if (!strcmp(argv[1], "overhead"))
		return cmd_overhead(argv[2]);
	if (!strcmp(argv[1], "scaling"))
		return cmd_scaling(argv[2]);
	die("unknown command %s", argv[1]);
}
