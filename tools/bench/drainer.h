/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record subscribers for bench_overhead (drainer.c): n open devices that
 * subscribe and watch the filesystems under test, all drained by one
 * thread on CPU 1, counting what they read.
 */
#ifndef VFSB_BENCH_DRAINER_H
#define VFSB_BENCH_DRAINER_H

#include <stdint.h>

#include "common.h"

#define MAX_SUBS 8

struct drainer;

/* n subscribers (ring bytes, VFSB_SUB_* flags) on the filesystems of
   paths, and their reader thread; dies on failure. */
struct drainer *drainer_start(const char *const *paths, int npaths,
			      int n, uint32_t ring, uint32_t flags);
/* Records and losses read so far: stops moving once the reader caught up. */
uint64_t drainer_seen(struct drainer *d);
/* Drains the rest, closes the subscribers; the counts go to *out. */
void drainer_stop(struct drainer *d, struct rec_count *out);

#endif /* VFSB_BENCH_DRAINER_H */
