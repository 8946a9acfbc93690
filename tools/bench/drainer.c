// SPDX-License-Identifier: GPL-2.0
/* Record subscribers drained by one thread; see drainer.h. */
#include "drainer.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

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
struct drainer *drainer_start(const char *const *paths, int npaths,
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
uint64_t drainer_seen(struct drainer *d)
{
	return __atomic_load_n(&d->cnt.changes, __ATOMIC_RELAXED) +
	       __atomic_load_n(&d->cnt.overflows, __ATOMIC_RELAXED);
}

/* Drains the rest, closes the subscribers; the counts stay in *out. */
void drainer_stop(struct drainer *d, struct rec_count *out)
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
