// SPDX-License-Identifier: GPL-2.0
/* Every kind of write, one round at a time (see mixed_writes.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>

#include "mixed_writes.h"

/* page aligned: the same buffer serves O_DIRECT callers */
static char mw_buf[4096] __attribute__((aligned(4096)));

void mixed_writes_init(struct mixed_writes *m, const char *dir, int id)
{
	char d[PATH_MAX / 8];

	memset(m, 0, sizeof(*m));
	memset(mw_buf, 'x', sizeof(mw_buf));
	snprintf(d, sizeof(d), "%s/w%d", dir, id);
	mkdir(d, 0755);
	snprintf(m->f, sizeof(m->f), "%s/f", d);
	snprintf(m->g, sizeof(m->g), "%s/g", d);
	snprintf(m->sub, sizeof(m->sub), "%s/sub", d);
	m->ring_up = !vfsb_uring_init(&m->ring, 4);
	if (!m->ring_up)
		vfsb_uring_exit(&m->ring);
	/* non-blocking: a splice that failed leaves its bytes behind */
	if (pipe2(m->pipe, O_CLOEXEC | O_NONBLOCK))
		m->pipe[0] = m->pipe[1] = -1;
	m->aio_up = !syscall(SYS_io_setup, 4, &m->aio);
}

static void mw_aio_write(struct mixed_writes *m, int fd)
{
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct io_event ev;

	cb.aio_fildes = fd;
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_buf = (unsigned long)mw_buf;
	cb.aio_nbytes = 512;
	cb.aio_offset = 4096;
	if (syscall(SYS_io_submit, m->aio, 1, cbs) == 1)
		syscall(SYS_io_getevents, m->aio, 1, 1, &ev, NULL);
}

void mixed_writes_round(struct mixed_writes *m)
{
	struct timeval tv[2] = { { 0 } };
	int fd = open(m->f, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	char *p;

	if (fd >= 0) {
		(void)!write(fd, mw_buf, sizeof(mw_buf));
		(void)!pwrite(fd, mw_buf, 512, 100);
		(void)!ftruncate(fd, 16384);
		if (m->ring_up) {
			vfsb_uring_write(&m->ring, fd, mw_buf, 512, 8192, 1);
			/* 16 bytes from the pipe, by io_uring's splice */
			if (m->pipe[1] >= 0 &&
			    write(m->pipe[1], mw_buf, 16) == 16)
				vfsb_uring_splice(&m->ring, m->pipe[0], fd,
						  200, 16);
		}
		if (m->aio_up)
			mw_aio_write(m, fd);
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) {
			p[7] = (char)m->rounds;
			munmap(p, 4096);
		}
		fchmod(fd, (m->rounds & 1) ? 0600 : 0644);
		fsetxattr(fd, "trusted.vfsb", mw_buf, 8, 0);
		close(fd);
	}
	chmod(m->f, 0644);
	utimes(m->f, tv);
	setxattr(m->f, "trusted.vfsb2", mw_buf, 16, 0);
	(void)!truncate(m->f, 100);
	rename(m->f, m->g);
	link(m->g, m->f);
	unlink(m->g);
	if (m->ring_up) {
		int u = vfsb_uring_openat(&m->ring, m->g, O_CREAT | O_WRONLY |
					  O_CLOEXEC, 0644);

		if (u >= 0)
			close(u);
		unlink(m->g);
	}
	mkdir(m->sub, 0755);
	rmdir(m->sub);
	m->rounds++;
}

void mixed_writes_exit(struct mixed_writes *m)
{
	if (m->ring_up)
		vfsb_uring_exit(&m->ring);
	if (m->aio_up)
		syscall(SYS_io_destroy, m->aio);
	if (m->pipe[0] >= 0) {
		close(m->pipe[0]);
		close(m->pipe[1]);
	}
	m->pipe[0] = m->pipe[1] = -1;
	m->ring_up = m->aio_up = false;
}
