// SPDX-License-Identifier: GPL-2.0
/*
 * The device node and the ioctl entry: permissions, version, unknown
 * commands, bad user pointers.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "vfsb.h"
#include "task.h"
#include "kselftest_harness.h"

TEST(node_is_root_only_char_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(VFSB_DEVICE_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600U, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_uid);
	EXPECT_EQ(0U, st.st_gid);
	/* misc devices have major 10 */
	EXPECT_EQ(10U, major(st.st_rdev));
}

TEST(version_ioctl)
{
	struct vfsb_version v;
	int fd = vfsb_open();

	ASSERT_LE(0, fd);
	memset(&v, 0xff, sizeof(v));
	ASSERT_EQ(0, vfsb_ioctl(fd, VFSB_IOC_GET_VERSION, &v));
	EXPECT_EQ((__u32)VFSB_ABI_VERSION, v.abi_version);
	EXPECT_NE(NULL, memchr(v.module_version, 0, sizeof(v.module_version)));
	EXPECT_LT(0U, strlen(v.module_version));
	close(fd);
}

TEST(unknown_ioctl_is_enotty)
{
	int fd = vfsb_open();
	int arg = 0;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, vfsb_ioctl(fd, _IO(VFSB_IOC_MAGIC, 0x7f), &arg));
	EXPECT_EQ(-ENOTTY, vfsb_ioctl(fd, _IOR('T', 0x01, int), &arg));
	/* the right number with the wrong size is another command */
	EXPECT_EQ(-ENOTTY, vfsb_ioctl(fd, _IOR(VFSB_IOC_MAGIC, 0x00, int), &arg));
	close(fd);
}

TEST(bad_pointers_are_efault)
{
	int fd = vfsb_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EFAULT, vfsb_ioctl(fd, VFSB_IOC_GET_VERSION, NULL));
	EXPECT_EQ(-EFAULT, vfsb_ioctl(fd, VFSB_IOC_GET_VERSION, (void *)1));
	EXPECT_EQ(-EFAULT, vfsb_ioctl(fd, VFSB_IOC_GET_VERSION,
				      (void *)0xffff800000000000ul));
	close(fd);
}

/* Runs fn in a child that dropped to uid 65534; returns its exit code. */
static int as_nobody(int (*fn)(int), int arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (drop_to_nobody())
			_exit(100);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int try_open(int unused)
{
	int fd = vfsb_open();

	(void)unused;
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

static int try_ioctl(int fd)
{
	struct vfsb_version v;

	return -vfsb_ioctl(fd, VFSB_IOC_GET_VERSION, &v);
}

TEST(unprivileged_open_is_refused)
{
	EXPECT_EQ(EACCES, as_nobody(try_open, 0));
}

TEST(unprivileged_ioctl_on_inherited_fd_is_refused)
{
	int fd = vfsb_open();

	ASSERT_LE(0, fd);
	/* the fd was opened by root; the capability check still applies */
	EXPECT_EQ(EPERM, as_nobody(try_ioctl, fd));
	EXPECT_EQ(0, try_ioctl(fd));
	close(fd);
}

TEST_HARNESS_MAIN
