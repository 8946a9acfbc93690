// SPDX-License-Identifier: GPL-2.0
/* A call run in a thread of its own; see bg.h. */
#include <errno.h>

#include "bg.h"

static void *bg_main(void *arg)
{
	struct bg *b = arg;

	b->ret = b->fn(b->c);
	atomic_store(&b->done, true);
	return NULL;
}

int bg_start(struct bg *b, int (*fn)(struct ctx *), struct ctx *c)
{
	b->fn = fn;
	b->c = c;
	b->ret = -EINPROGRESS;
	atomic_store(&b->done, false);
	b->started = pthread_create(&b->thread, NULL, bg_main, b) == 0;
	return b->started ? 0 : -1;
}

void bg_join(struct bg *b)
{
	if (b->started)
		pthread_join(b->thread, NULL);
	b->started = false;
}
