// SPDX-License-Identifier: GPL-2.0
/* The operations bench_overhead times; see timed_ops.h. */
#include "common.h"
#include "timed_ops.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "vfsb_uring.h"

struct octx {
	int dirfd;
	int fd;
	int src;		/* sendfile's source */
	struct vfsb_uring ring;
	char buf[4096];
};

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

/*
 * The data helpers that a return hook brackets (module/spans.c): on
 * 6.1 a kretprobe fires on every call of any filesystem while anything
 * is watched, and its entry handler filters.
 */
static int setup_fallocate(struct octx *c)
{
	return open_prefilled(c, "fa");
}

/*
 * Pages already there: the call, not the allocation. tmpfs fails the
 * call with EINTR when the task has anything pending, a TWA_SIGNAL
 * task work included (fallocate(2) allows it). Seen twice in one 6.1
 * run (3ba47e0), in the op run just after the io_uring op; the module
 * queues such work only for an intent subscriber, which this phase
 * never has. Such a call is made again.
 */
static int run_fallocate_4k(struct octx *c, long n)
{
	long i;

	for (i = 0; i < n; i++)
		while (fallocate(c->fd, FALLOC_FL_KEEP_SIZE,
				 (off_t)(i % FILE_PAGES) * 4096, 4096))
			if (errno != EINTR)
				return -errno;
	return 0;
}

static void teardown_fallocate(struct octx *c)
{
	close_unlink(c, "fa");
}

static int setup_sendfile(struct octx *c)
{
	c->src = openat(c->dirfd, "sfsrc", O_RDWR | O_CREAT | O_TRUNC |
			O_CLOEXEC, 0644);
	if (c->src < 0)
		return -errno;
	if (write(c->src, c->buf, 1) != 1)
		return -EIO;
	return open_file(c, "sf", O_WRONLY | O_TRUNC);
}

/* do_splice_direct(), and vfs_iter_write() inside it */
static int run_sendfile_1b(struct octx *c, long n)
{
	long i;
	off_t off;

	for (i = 0; i < n; i++) {
		off = 0;
		if (sendfile(c->fd, c->src, &off, 1) != 1)
			return -EIO;
	}
	return 0;
}

static void teardown_sendfile(struct octx *c)
{
	if (c->src >= 0)
		close(c->src);
	c->src = -1;
	unlinkat(c->dirfd, "sfsrc", 0);
	close_unlink(c, "sf");
}

static int setup_uring(struct octx *c)
{
	int ret = open_prefilled(c, "ur");

	return ret ? ret : vfsb_uring_init(&c->ring, URING_BATCH);
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
		ret = vfsb_uring_write(&c->ring, c->fd, c->buf, 4096,
				       (uint64_t)(i % FILE_PAGES) * 4096, k);
		if (ret)
			return ret;
	}
	return 0;
}

static void teardown_uring(struct octx *c)
{
	vfsb_uring_exit(&c->ring);
	close_unlink(c, "ur");
}


const struct op ops[NOPS] = {
	{ "create_unlink", "create+unlink", NULL, run_create_unlink, NULL, true, 2 },
	{ "mkdir_rmdir", "mkdir+rmdir", NULL, run_mkdir_rmdir, NULL, false, 2 },
	{ "rename", "rename", setup_rename, run_rename, teardown_rename, false, 2 },
	{ "chmod", "chmod", setup_chmod, run_chmod, teardown_chmod, true, 1 },
	{ "setxattr", "setxattr", setup_setxattr, run_setxattr, teardown_setxattr, false, 1 },
	{ "pwrite_4k", "pwrite 4K", setup_pwrite, run_pwrite_4k, teardown_pwrite, true, 1 },
	{ "write_1b", "write 1B", setup_write1, run_write_1b, teardown_write1, true, 1 },
	{ "io_uring_4k", "io_uring 4K", setup_uring, run_uring_4k, teardown_uring, false, 1 },
	{ "fallocate_4k", "fallocate 4K", setup_fallocate, run_fallocate_4k, teardown_fallocate, false, 1 },
	{ "sendfile_1b", "sendfile 1B", setup_sendfile, run_sendfile_1b, teardown_sendfile, false, 1 },
};

_Static_assert(ARRAY_SIZE(ops) == NOPS, "NOPS is the number of ops");

/*
 * Ring size for a subscriber during a run of n iterations of op: room
 * for all the run's records (about 192 bytes each, plus the setup's),
 * at least the default, at most 8 MiB (8 subscribers: 64 MiB), so that
 * a reader falling behind during the loop does not turn the figure into
 * one of a lossy stream (which costs the writer less: no copy).
 */
#define RING_CAP (8U << 20)

uint32_t ring_for(const struct op *op, long n)
{
	uint64_t want = ((uint64_t)n * op->records + FILE_PAGES + 64) * 192;
	uint32_t r = VFSB_RING_DEFAULT;

	while (r < want && r < RING_CAP)
		r <<= 1;
	return r;
}

/* One timed run of op on the directory dirfd: ns per op, or NAN. */
double time_op(const struct op *op, int dirfd, long n)
{
	static struct octx c;
	uint64_t t0, t1;
	int ret;

	memset(&c, 0, sizeof(c));
	memset(c.buf, 'v', sizeof(c.buf));
	c.dirfd = dirfd;
	c.fd = -1;
	c.src = -1;
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


/*
 * Iterations per timed run: VFSB_BENCH_ITERS (all ops) or
 * VFSB_BENCH_ITERS_<op> when set; otherwise calibrated so that a run of
 * the op takes about VFSB_BENCH_RUN_MS in the baseline, between
 * MIN_ITERS and 100000 (TCG makes the namespace operations far too slow
 * for 100k each in the time the whole benchmark may take).
 */
#define MAX_ITERS 100000
#define MIN_ITERS 1000

long calibrated_iters(const struct op *op, int dirfd)
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
