/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kind of write the module hooks, one round at a time, in a
 * directory of the writer's own (mixed_writes.c): the load of the
 * everything-at-once test (test_stress.c) and of the hook churn
 * reproducer (stress/vfsb_stress.c). Results do not matter, only that
 * the calls are made.
 */
#ifndef MIXED_WRITES_H
#define MIXED_WRITES_H

#include <limits.h>
#include <stdbool.h>
#include <linux/aio_abi.h>

#include "vfsb_uring.h"

struct mixed_writes {
	char f[PATH_MAX / 4], g[PATH_MAX / 4], sub[PATH_MAX / 4];
	struct vfsb_uring ring;
	bool ring_up;
	int pipe[2];		/* io_uring's splice reads it; -1: none */
	aio_context_t aio;
	bool aio_up;
	unsigned long rounds;
};

/* Makes dir/w<id> and what a round needs (io_uring and AIO if there). */
void mixed_writes_init(struct mixed_writes *m, const char *dir, int id);
/* open O_CREAT|O_TRUNC, write, pwrite, ftruncate, io_uring and AIO
   writes, io_uring's splice into the file, a store through a shared
   mapping, fchmod, fsetxattr, chmod, utimes, setxattr, truncate,
   rename, link, unlink, io_uring's creating openat, mkdir, rmdir. */
void mixed_writes_round(struct mixed_writes *m);
void mixed_writes_exit(struct mixed_writes *m);

#endif /* MIXED_WRITES_H */
