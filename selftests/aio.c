// SPDX-License-Identifier: GPL-2.0
/* Raw Linux AIO; see aio.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "aio.h"

int aio_run(aio_context_t ctx, int fd, int opcode, const void *buf,
	    size_t len, off_t off, long long *res)
{
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long n;

	memset(&cb, 0, sizeof(cb));
	cb.aio_fildes = fd;
	cb.aio_lio_opcode = opcode;
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	n = syscall(__NR_io_submit, ctx, 1, cbs);
	if (n < 0)
		return -errno;
	if (n != 1)
		return -EIO;
	for (;;) {
		n = syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL);
		if (n == 1)
			break;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	*res = ev.res;
	return 0;
}

int aio_write1(int fd, const void *buf, size_t len, off_t off)
{
	aio_context_t ctx = 0;
	long long res;
	int ret;

	if (syscall(__NR_io_setup, 4, &ctx))
		return -errno;
	ret = aio_run(ctx, fd, IOCB_CMD_PWRITE, buf, len, off, &res);
	syscall(__NR_io_destroy, ctx);
	if (ret)
		return ret;
	return res < 0 ? (int)res : (size_t)res == len ? 0 : -EIO;
}
