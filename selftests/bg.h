/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call run in a thread of its own (bg.c), for a syscall the test holds
 * in flight: done says whether it has returned. The test defines struct
 * ctx, what its calls work on.
 */
#ifndef BG_H
#define BG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

struct ctx;

struct bg {
	pthread_t thread;
	bool started;
	int (*fn)(struct ctx *c);
	struct ctx *c;
	int ret;		/* 0 or -errno; -EINPROGRESS until done */
	atomic_bool done;
};

/* Starts fn(c) in a new thread: 0, or -1 when none could be made. */
int bg_start(struct bg *b, int (*fn)(struct ctx *), struct ctx *c);
/* Waits for it to return; a no-op when none was started. */
void bg_join(struct bg *b);

#endif /* BG_H */
