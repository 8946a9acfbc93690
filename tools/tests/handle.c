// SPDX-License-Identifier: GPL-2.0
/*
 * vbj-handle PATH: for the host tests, the file handle of PATH as the
 * module's records carry it (struct file_handle: handle_bytes,
 * handle_type, f_handle), in hexadecimal, then its inode number and
 * generation: "HEX INO GEN". Exit: 0, or 1 after saying what failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>

int main(int argc, char **argv)
{
	union {
		struct file_handle fh;
		unsigned char bytes[8 + MAX_HANDLE_SZ];
	} h;
	unsigned int i, gen = 0;
	struct stat st;
	int mnt, fd;

	if (argc != 2) {
		fprintf(stderr, "usage: vbj-handle PATH\n");
		return 2;
	}
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, argv[1], &h.fh, &mnt, 0) ||
	    lstat(argv[1], &st)) {
		fprintf(stderr, "vbj-handle: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fd = open(argv[1], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, FS_IOC_GETVERSION, &gen))
			gen = 0;
		close(fd);
	}
	for (i = 0; i < 8 + h.fh.handle_bytes; i++)
		printf("%02x", h.bytes[i]);
	printf(" %llu %u\n", (unsigned long long)st.st_ino, gen);
	return 0;
}
