/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Holding a data write in flight with userfaultfd (uffd_hold.c): a write
 * from a buffer whose page is missing blocks inside the kernel's write
 * path (after its write section began) until the test supplies the page.
 * The fault message tells the test, without any sleep, that the writer
 * is held.
 */
#ifndef UFFD_HOLD_H
#define UFFD_HOLD_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/* A registered, missing page: whoever reads it blocks until filled. */
struct uffd_page {
	int uffd;		/* -1 once closed */
	char *buf;		/* the missing page */
	char *src;		/* what it is filled with */
	size_t page;
};

/* 0 or -errno; uffd_page_close() and _unmap() undo a partial setup. */
int uffd_page_init(struct uffd_page *u);
/* Waits, at most ms (negative: no limit), for the fault on the page:
   its reader is then held. 0, -ETIMEDOUT or -errno. */
int uffd_page_wait_fault(struct uffd_page *u, int ms);
/* Supplies the page: the held reader goes on. */
int uffd_page_fill(struct uffd_page *u);
/* Closing the uffd also wakes a held reader (the fault is then served
   normally): teardown after a failed assertion relies on it. */
void uffd_page_close(struct uffd_page *u);
/* After uffd_page_close(), once no thread uses the buffer. */
void uffd_page_unmap(struct uffd_page *u);

/* write(fd) of a missing page, by a thread of its own. */
struct uffd_hold {
	struct uffd_page u;
	int fd;			/* the file written */
	pthread_t thread;
	volatile int done;
	ssize_t ret;
	int err;
};

/* Starts write(fd, page) and returns once the writer is held: 0/-errno. */
int uffd_hold_start(struct uffd_hold *h, int fd);
/* Whether the write has returned (it must not while held). */
int uffd_hold_done(struct uffd_hold *h);
/* Supplies the page; the write completes. Returns what write() did
   (the page size), or -errno. */
ssize_t uffd_hold_release(struct uffd_hold *h);

#endif /* UFFD_HOLD_H */
