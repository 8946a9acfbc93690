// SPDX-License-Identifier: GPL-2.0
/*
 * An asynchronous write whose submission returns before the write is
 * done: Linux AIO or io_uring, O_DIRECT, on a FUSE mount that negotiated
 * FUSE_ASYNC_DIO and holds the WRITE reply. io_submit() (or io_uring's
 * io-wq worker, which FUSE's lack of nowait support sends it to) returns
 * with the request queued; the write section must outlive it, until the
 * completion.
 */
#define _GNU_SOURCE
#include <linux/aio_abi.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "vfsb.h"
#include "vfsb_uring.h"
#include "fuse_hold.h"
#include "testfs.h"
#include "kselftest_harness.h"

#define DIR_AF "/tmp/vb-adio"

/* A watched FUSE_ASYNC_DIO mount and an O_DIRECT file with a page buffer. */
FIXTURE(adio) {
	struct fuse_hold *fh;
	int dev, fd;
	void *buf;
};

FIXTURE_SETUP(adio)
{
	self->dev = self->fd = -1;
	mkdir(DIR_AF, 0755);
	self->fh = fh_mount_flags(DIR_AF, FH_DIRECT_IO | FH_ASYNC_DIO);
	ASSERT_NE(NULL, self->fh);
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_AF));
	self->fd = open(DIR_AF "/f", O_CREAT | O_RDWR | O_DIRECT | O_CLOEXEC, 0644);
	ASSERT_LE(0, self->fd);
	/* fuse makes extending async writes blocking: write inside i_size */
	ASSERT_EQ(0, ftruncate(self->fd, 8192));
	ASSERT_EQ(0, posix_memalign(&self->buf, 4096, 4096));
	memset(self->buf, 'a', 4096);
}

FIXTURE_TEARDOWN(adio)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->dev >= 0)
		close(self->dev);
	free(self->buf);
	if (self->fh)
		fh_umount(self->fh);
}

TEST_F(adio, aio_write_section_lasts_until_completion)
{
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct io_event ev;
	aio_context_t ctx = 0;

	ASSERT_EQ(0, syscall(SYS_io_setup, 4, &ctx));
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_fildes = self->fd;
	cb.aio_buf = (unsigned long)self->buf;
	cb.aio_nbytes = 4096;

	ASSERT_EQ(0, fh_hold(self->fh, FUSE_WRITE));
	/* returns while the server still holds the WRITE */
	ASSERT_EQ(1, syscall(SYS_io_submit, ctx, 1, cbs));
	ASSERT_EQ(0, fh_wait_held(self->fh, 20000));
	EXPECT_LE(1, fs_in_flight(self->dev, DIR_AF));
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(self->dev, DIR_AF, 0, 200));
	ASSERT_EQ(0, fh_release(self->fh));
	ASSERT_EQ(1, syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL));
	EXPECT_EQ(4096, ev.res);
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_AF, 0, 0));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_AF));
	syscall(SYS_io_destroy, ctx);
}

TEST_F(adio, uring_write_section_lasts_until_completion)
{
	struct io_uring_sqe sqe = { 0 };
	struct vfsb_uring r;
	int res = 0;

	ASSERT_EQ(0, vfsb_uring_init(&r, 8));
	sqe.opcode = IORING_OP_WRITE;
	sqe.fd = self->fd;
	sqe.addr = (unsigned long)self->buf;
	sqe.len = 4096;
	sqe.off = 4096;

	ASSERT_EQ(0, fh_hold(self->fh, FUSE_WRITE));
	/* returns at once: the write goes on in io-wq, then in FUSE */
	ASSERT_EQ(0, vfsb_uring_submit(&r, &sqe));
	ASSERT_EQ(0, fh_wait_held(self->fh, 20000));
	EXPECT_LE(1, fs_in_flight(self->dev, DIR_AF));
	EXPECT_EQ(-ETIMEDOUT, vfsb_barrier_path(self->dev, DIR_AF, 0, 200));
	ASSERT_EQ(0, fh_release(self->fh));
	ASSERT_EQ(0, vfsb_uring_reap(&r, &res));
	EXPECT_EQ(4096, res);
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_AF, 0, 0));
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_AF));
	vfsb_uring_exit(&r);
}

TEST_HARNESS_MAIN
