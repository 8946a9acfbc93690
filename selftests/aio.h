/* SPDX-License-Identifier: GPL-2.0 */
/* Raw Linux AIO (no libaio: the tests are static), one request at a time. */
#ifndef AIO_H
#define AIO_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/aio_abi.h>

/* One IOCB_CMD_* on fd, waited for; *res is the event's res. 0/-errno. */
int aio_run(aio_context_t ctx, int fd, int opcode, const void *buf,
	    size_t len, off_t off, long long *res);

/* A whole IOCB_CMD_PWRITE in a context of its own (io_setup ..
   io_destroy): 0 when all len bytes were written. */
int aio_write1(int fd, const void *buf, size_t len, off_t off);

#endif /* AIO_H */
