// SPDX-License-Identifier: GPL-2.0
/*
 * Shared writable mappings: stores cannot be bracketed, so the claim is
 * narrower (README, "mmap"): the write fault that makes a page writable
 * (->page_mkwrite) runs inside a section; stores into a page that is
 * already writable do not. After msync() the page is write-protected
 * again, so the next store faults, and is covered, again.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include <sys/mount.h>

#include "vfsb.h"
#include "testfs.h"
#include "kselftest_harness.h"

#define DIR_E "/tmp/vb-ext4"

FIXTURE(ext4) {
	int dev;
	int fd;
	char *map;
	size_t len;
};

FIXTURE_SETUP(ext4)
{
	int ret = mount_ext4(DIR_E);

	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_E));
	self->len = 2 * sysconf(_SC_PAGESIZE);
	self->fd = open(DIR_E "/mapped", O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ftruncate(self->fd, self->len));
	ASSERT_EQ(0, fsync(self->fd));
	self->map = mmap(NULL, self->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->map);
}

FIXTURE_TEARDOWN(ext4)
{
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, self->len);
	close(self->fd);
	close(self->dev);
	umount2(DIR_E, MNT_DETACH);
}

TEST_F(ext4, write_fault_is_a_section_store_is_not)
{
	long long b0, b1, b2, b3;

	b0 = fs_begun(self->dev, DIR_E);
	ASSERT_LE(0, b0);
	/* first store into a clean page: write fault, page_mkwrite */
	self->map[0] = 'a';
	b1 = fs_begun(self->dev, DIR_E);
	EXPECT_LT(b0, b1);
	/* the page is writable now: stores do not enter the kernel */
	self->map[1] = 'b';
	self->map[100] = 'c';
	b2 = fs_begun(self->dev, DIR_E);
	EXPECT_EQ(b1, b2);
	/* writeback write-protects it; the next store faults again */
	ASSERT_EQ(0, msync(self->map, self->len, MS_SYNC));
	self->map[2] = 'd';
	b3 = fs_begun(self->dev, DIR_E);
	EXPECT_LT(b2, b3);
	EXPECT_EQ(0, fs_in_flight(self->dev, DIR_E));
	EXPECT_EQ(0, vfsb_barrier_path(self->dev, DIR_E, 0, 5000));
}

TEST_HARNESS_MAIN
