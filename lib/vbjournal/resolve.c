// SPDX-License-Identifier: LGPL-2.1-or-later
/* Handles to what they name now; see resolve.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "resolve.h"

void vbj_resolver_init(struct vbj_resolver *r, struct vbj_store *s)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
}

void vbj_resolver_fini(struct vbj_resolver *r)
{
	int i;

	for (i = 0; i < r->nfs; i++)
		if (r->fs[i].fd >= 0)
			close(r->fs[i].fd);
	r->nfs = 0;
}

/* The mount point of fs, opened once: a descriptor or -errno. */
static int mount_fd(struct vbj_resolver *r, int64_t fs)
{
	sqlite3_stmt *st;
	int i, fd = -ENOENT;

	for (i = 0; i < r->nfs; i++)
		if (r->fs[i].id == fs)
			return r->fs[i].fd;
	/* version 0 has no ident: the mount point is taken as it is */
	if (sqlite3_prepare_v2(r->s->db, r->s->version >= 1 ?
			       "SELECT mount, ident FROM filesystems WHERE fs = ?" :
			       "SELECT mount, NULL FROM filesystems WHERE fs = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, fs);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		const char *want = (const char *)sqlite3_column_text(st, 1);
		char ident[48];

		fd = open((const char *)sqlite3_column_text(st, 0),
			  O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		/* another filesystem there now: its handles mean nothing */
		if (fd >= 0 && want && want[0]) {
			vbj_fs_ident(fd, ident, sizeof(ident));
			if (strcmp(ident, want)) {
				close(fd);
				fd = -EXDEV;
			}
		}
	}
	sqlite3_finalize(st);
	if (r->nfs < VBJ_RESOLVE_MAX_FS) {
		r->fs[r->nfs].id = fs;
		r->fs[r->nfs].fd = fd;
		r->nfs++;
	} else if (fd >= 0) {
		close(fd);
		fd = -EMFILE;
	}
	return fd;
}

int vbj_open_key(struct vbj_resolver *r, int64_t fs, const void *key,
		 int len, int flags)
{
	union {
		struct file_handle fh;
		char bytes[8 + MAX_HANDLE_SZ];
	} h;
	int mfd, fd;

	/* a struct file_handle whose size is its own, and not ino:N:G */
	if (len < 8 || len > (int)sizeof(h) || !memcmp(key, "ino:", 4))
		return -EOPNOTSUPP;
	memcpy(h.bytes, key, len);
	if ((int)h.fh.handle_bytes + 8 != len)
		return -EOPNOTSUPP;
	mfd = mount_fd(r, fs);
	if (mfd < 0)
		return mfd;
	fd = open_by_handle_at(mfd, &h.fh, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int vbj_fd_path(int fd, char *path, size_t sz)
{
	char link[40];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sz - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= sz - 1)
		return -ENAMETOOLONG;
	path[n] = 0;
	/* a disconnected dentry, or not a path of this namespace */
	return path[0] == '/' ? 0 : -ENOENT;
}

enum vbj_path_source vbj_dir_path(struct vbj_resolver *r, int64_t fs,
				  const void *key, int len, char *path,
				  int *err)
{
	char now[PATH_MAX];
	struct stat st;
	int fd, ret;

	fd = vbj_open_key(r, fs, key, len, O_PATH | O_DIRECTORY);
	if (fd < 0) {
		*err = fd;
		return fd == -ESTALE ? VBJ_PATH_GONE :
		       VBJ_PATH_STORED;
	}
	ret = fstat(fd, &st) ? -errno : 0;
	if (!ret && st.st_nlink == 0)
		ret = -ESTALE;	/* removed, still held by someone */
	if (!ret)
		ret = vbj_fd_path(fd, now, sizeof(now));
	close(fd);
	*err = ret;
	if (ret == -ESTALE)
		return VBJ_PATH_GONE;
	if (ret)
		return VBJ_PATH_STORED;
	snprintf(path, PATH_MAX, "%s", now);
	return VBJ_PATH_HANDLE;
}
