// SPDX-License-Identifier: GPL-2.0
/*
 * bench_hookcost: per-operation cost of several builds of vfsbarrier.ko
 * side by side in one boot, for hook-cost work (issue 6).
 *
 *   bench_hookcost TESTDIR OTHERDIR LABEL=KO [LABEL=KO ...]
 *
 * A round measures the baseline (no module loaded), then for each build
 * (forwards in even rounds, backwards in odd ones): load it, watch
 * OTHERDIR's fs (hooks live, TESTDIR's fs not watched: "other"), then
 * also TESTDIR's fs ("watched"), unload. Each figure of a round is the
 * fastest of HC_REPS runs of HC_ITERS operations (many short runs: on a
 * busy host the fastest is one the host did not interrupt; the close
 * after a run is timed, amortized over the run); the result is the
 * median over HC_ROUNDS rounds of the ratio to that round's baseline,
 * and the median ns/op.
 */
#include "common.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define MAX_KO 6
#define MAX_ROUNDS 16

static int dirfd_g;
static uint64_t t_start;	/* set by each op once its file is open */
static char buf[4096];

static int op_chmod(long n)
{
	int fd = openat(dirfd_g, "ch", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	long i;

	if (fd < 0)
		return -errno;
	t_start = now_ns();
	for (i = 0; i < n; i++)
		if (fchmod(fd, i & 1 ? 0644 : 0600))
			return -errno;
	close(fd);
	return 0;
}

static int op_setxattr(long n)
{
	int fd = openat(dirfd_g, "xa", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	long i;

	if (fd < 0)
		return -errno;
	t_start = now_ns();
	for (i = 0; i < n; i++) {
		buf[0] = (char)i;
		if (fsetxattr(fd, "trusted.vfsb_hc", buf, 32, 0))
			return -errno;
	}
	close(fd);
	return 0;
}

static int op_write1(long n)
{
	int fd = openat(dirfd_g, "w1", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			0644);
	long i;

	if (fd < 0)
		return -errno;
	t_start = now_ns();
	for (i = 0; i < n; i++)
		if (write(fd, buf, 1) != 1)
			return -EIO;
	close(fd);
	return 0;
}

static int op_pwrite4k(long n)
{
	int fd = openat(dirfd_g, "pw", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	long i;

	if (fd < 0)
		return -errno;
	t_start = now_ns();
	for (i = 0; i < n; i++)
		if (pwrite(fd, buf, 4096, (off_t)(i % 64) * 4096) != 4096)
			return -EIO;
	close(fd);
	return 0;
}

static int op_create_unlink(long n)
{
	long i;
	int fd;

	t_start = now_ns();
	for (i = 0; i < n; i++) {
		fd = openat(dirfd_g, "cu", O_WRONLY | O_CREAT | O_EXCL |
			    O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		close(fd);
		if (unlinkat(dirfd_g, "cu", 0))
			return -errno;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*run)(long n);
	long div;		/* fewer iterations for slow ops */
} ops[] = {
	{ "chmod", op_chmod, 1 },
	{ "setxattr", op_setxattr, 1 },
	{ "write_1b", op_write1, 1 },
	{ "pwrite_4k", op_pwrite4k, 2 },
	{ "create_unlink", op_create_unlink, 4 },
};
#define NOPS ARRAY_SIZE(ops)

static long iters, reps;

/* Fastest of reps runs, ns per op. */
static double measure(unsigned int o)
{
	double best = INFINITY;
	long n = iters / ops[o].div, r;
	uint64_t t1;
	int ret;

	for (r = 0; r < reps; r++) {
		t_start = now_ns();
		ret = ops[o].run(n);
		t1 = now_ns();
		if (ret)
			die("%s: %s", ops[o].name, strerror(-ret));
		best = fmin(best, (double)(t1 - t_start) / (double)n);
	}
	return best;
}

/* [round][op]: baseline; [round][ko][cfg][op] */
static double base[MAX_ROUNDS][NOPS];
static double res[MAX_ROUNDS][MAX_KO][2][NOPS];

static double median(double *v, int n)
{
	struct summary s = summarize(v, n);

	return s.med;
}

int main(int argc, char **argv)
{
	const char *label[MAX_KO], *ko[MAX_KO];
	long rounds;
	int nko, r, k, i, dev, ret;
	unsigned int o, c;

	bench_init("hookcost");
	if (argc < 4 || argc - 3 > MAX_KO)
		die("usage: bench_hookcost TESTDIR OTHERDIR LABEL=KO...");
	nko = argc - 3;
	for (k = 0; k < nko; k++) {
		char *eq = strchr(argv[3 + k], '=');

		if (!eq)
			die("%s: not LABEL=KO", argv[3 + k]);
		*eq = 0;
		label[k] = argv[3 + k];
		ko[k] = eq + 1;
	}
	iters = bench_env("HC_ITERS", 20000, 500);
	reps = bench_env("HC_REPS", 3, 1);
	rounds = bench_env("HC_ROUNDS", 3, 1);
	if (rounds > MAX_ROUNDS)
		rounds = MAX_ROUNDS;
	memset(buf, 'h', sizeof(buf));
	dirfd_g = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd_g < 0)
		die("%s: %s", argv[1], strerror(errno));
	pin_cpu(0);

	for (r = 0; r < rounds; r++) {
		mod_set(false);
		for (o = 0; o < NOPS; o++)
			base[r][o] = measure(o);
		for (i = 0; i < nko; i++) {
			k = r & 1 ? nko - 1 - i : i;
			setenv("VFSB_KO", ko[k], 1);
			mod_set(true);
			dev = dev_open();
			ret = vfsb_watch_path(dev, argv[2]);
			if (ret)
				die("watch %s: %s", argv[2], strerror(-ret));
			for (o = 0; o < NOPS; o++)
				res[r][k][0][o] = measure(o);
			ret = vfsb_watch_path(dev, argv[1]);
			if (ret)
				die("watch %s: %s", argv[1], strerror(-ret));
			for (o = 0; o < NOPS; o++)
				res[r][k][1][o] = measure(o);
			close(dev);
			mod_set(false);
			progress("round %d/%ld: %s done", r + 1, rounds, label[k]);
		}
	}

	printf("hookcost: %ld rounds, best of %ld runs of %ld iterations (ratio: median over rounds of run/baseline)\n",
	       rounds, reps, iters);
	printf("%-22s", "config");
	for (o = 0; o < NOPS; o++)
		printf(" %16s", ops[o].name);
	printf("\n%-22s", "baseline ns");
	for (o = 0; o < NOPS; o++) {
		double v[MAX_ROUNDS];

		for (r = 0; r < rounds; r++)
			v[r] = base[r][o];
		printf(" %16.0f", median(v, rounds));
	}
	printf("\n");
	for (k = 0; k < nko; k++)
		for (c = 0; c < 2; c++) {
			char name[64];

			snprintf(name, sizeof(name), "%s %s", label[k],
				 c ? "watched" : "other");
			printf("%-22s", name);
			for (o = 0; o < NOPS; o++) {
				double v[MAX_ROUNDS], d[MAX_ROUNDS];
				char cell[40];

				for (r = 0; r < rounds; r++) {
					v[r] = res[r][k][c][o] / base[r][o];
					d[r] = res[r][k][c][o] - base[r][o];
				}
				snprintf(cell, sizeof(cell), "%.3f (+%.0f)",
					 median(v, rounds), median(d, rounds));
				printf(" %16s", cell);
			}
			printf("\n");
		}
	return 0;
}
