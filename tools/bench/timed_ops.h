/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations bench_overhead times (timed_ops.c): the write paths the
 * module hooks, each a loop of n iterations with its own setup and
 * teardown, timed outside them.
 */
#ifndef VFSB_BENCH_TIMED_OPS_H
#define VFSB_BENCH_TIMED_OPS_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_FS 4		/* filesystems under test */
#define MAX_REPS 32		/* rounds */
#define NOPS ((size_t)10)	/* entries of ops[] */
#define FILE_PAGES 256		/* 1 MiB files for the data writes */

struct octx;

struct op {
	const char *key;	/* JSON */
	const char *label;	/* table */
	int (*setup)(struct octx *c);
	int (*run)(struct octx *c, long n);
	void (*teardown)(struct octx *c);
	bool scaling;		/* also in the watched-superblocks series */
	int records;		/* records one iteration announces */
};

extern const struct op ops[NOPS];

/* Ring size for a subscriber during a run of n iterations of op. */
uint32_t ring_for(const struct op *op, long n);
/* One timed run of op on the directory dirfd: ns per op, or NAN. */
double time_op(const struct op *op, int dirfd, long n);
/* Iterations for a run of op: from the environment, or calibrated. */
long calibrated_iters(const struct op *op, int dirfd);

#endif /* VFSB_BENCH_TIMED_OPS_H */
