// SPDX-License-Identifier: GPL-2.0
/*
 * What a user without privileges can do on a watched filesystem must not
 * hold a write section longer than the filesystem operation it brackets:
 * a barrier (and so every journal checkpoint) waits for sections, so a
 * section that lasts while its task sleeps on something else is a stall
 * anyone could cause.
 *
 * Pipes and device nodes live on filesystems but their writes are not
 * the filesystem's data: pipe_write() blocks for as long as the pipe is
 * full. The kernel's own freeze does not count them either
 * (file_start_write() is a no-op for anything but a regular file).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "vfsb.h"
#include "task.h"
#include "testfs.h"
#include "kselftest_harness.h"

#define DIR_U	"/tmp/unpriv"

/*
 * As "nobody": opens the FIFO "fifo" in directory path for reading and writing (so the
 * open does not wait for a reader) and writes into it until the pipe is
 * full and the write blocks. Never returns.
 */
static void fill_fifo(const char *path)
{
	static char buf[65536];
	int fd;

	/* from inside: the guest's / may not be searchable by nobody */
	if (chdir(path) || drop_to_nobody())
		_exit(10);
	fd = open("fifo", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(20 + errno);
	memset(buf, 'p', sizeof(buf));
	for (;;)
		if (write(fd, buf, sizeof(buf)) < 0)
			_exit(12);
}

/*
 * A FIFO writer blocked on a full pipe holds no section: barriers
 * complete at once and the filesystem shows nothing in flight.
 */
TEST(blocked_fifo_writer_holds_no_section)
{
	struct vfsb_sb_stats st;
	pid_t pid;
	int dev;

	ASSERT_EQ(0, mount_tmpfs(DIR_U));
	ASSERT_EQ(0, chmod(DIR_U, 01777));
	ASSERT_EQ(0, mkfifo(DIR_U "/fifo", 0666));
	ASSERT_EQ(0, chmod(DIR_U "/fifo", 0666));	/* whatever the umask */
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_U));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		fill_fifo(DIR_U);
	/* the child is asleep in pipe_write() (or already gone: failed) */
	if (wait_proc_sleeping(pid)) {
		int status = 0;

		waitpid(pid, &status, WNOHANG);
		ASSERT_EQ(0, WEXITSTATUS(status));
		ASSERT_TRUE(false);
	}

	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_U, 0, 3000));
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_U, &st));
	EXPECT_EQ(0, st.in_flight);
	/* and again: nothing piles up behind it */
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_U, 0, 3000));

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(dev);
	umount2(DIR_U, MNT_DETACH);
}

/* The same for a device node's writes (/dev/null's, made on tmpfs). */
TEST(device_node_write_is_not_a_data_change)
{
	struct vfsb_sb_stats before, after;
	int dev, fd;

	ASSERT_EQ(0, mount_tmpfs(DIR_U));
	ASSERT_EQ(0, mknod(DIR_U "/null", S_IFCHR | 0666, makedev(1, 3)));
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_U));
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_U, &before));
	fd = open(DIR_U "/null", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(3, write(fd, "abc", 3));
	close(fd);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_U, &after));
	/* no section was begun for the write (opening for write takes none) */
	EXPECT_EQ(before.sections_begun, after.sections_begun);
	close(dev);
	umount2(DIR_U, MNT_DETACH);
}

TEST_HARNESS_MAIN
