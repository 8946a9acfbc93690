/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the journal's handles lead to now (resolve.c): the answer of
 * vbjournal changes names directories and files as the tree is when it
 * is asked, not as it was when the daemon committed. A handle is opened
 * with open_by_handle_at() on a descriptor of the journaled
 * filesystem's mount point (which takes CAP_DAC_READ_SEARCH: root),
 * and a directory's path read back from /proc/self/fd. The paths the
 * daemon stored are the fallback, said as such.
 */
#ifndef VBJ_RESOLVE_H
#define VBJ_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

#define VBJ_RESOLVE_MAX_FS	64

struct vbj_resolver {
	struct vbj_store *s;
	int nfs;
	struct {
		int64_t id;
		int fd;		/* the mount point, or -errno */
	} fs[VBJ_RESOLVE_MAX_FS];
};

/* Where a path in an answer comes from. */
enum vbj_path_source {
	VBJ_PATH_HANDLE,	/* the handle, opened now */
	VBJ_PATH_STORED,	/* the handle could not be opened: stored */
	VBJ_PATH_GONE,		/* the object no longer exists (ESTALE) */
};

void vbj_resolver_init(struct vbj_resolver *r, struct vbj_store *s);
void vbj_resolver_fini(struct vbj_resolver *r);

/*
 * Opens what key (a struct file_handle as the records carry it, or an
 * "ino:N:G" key of a filesystem without handles) names on filesystem
 * fs, with flags (O_PATH, O_DIRECTORY...): a descriptor, or -errno:
 * -ESTALE it no longer exists, -EOPNOTSUPP the key is no handle,
 * -EPERM not root, else why the mount point could not be opened.
 */
int vbj_open_key(struct vbj_resolver *r, int64_t fs, const void *key,
		 int len, int flags);

/* The path of the directory (or file) open as fd: 0 or -errno. */
int vbj_fd_path(int fd, char *path, size_t sz);

/*
 * A directory's path now into path (PATH_MAX): VBJ_PATH_HANDLE; else
 * path is left as it is (the stored one) and the answer is
 * VBJ_PATH_GONE (a directory that no longer exists: stale handle, or
 * removed while something still holds it) or VBJ_PATH_STORED, with
 * *err the reason (-errno).
 */
enum vbj_path_source vbj_dir_path(struct vbj_resolver *r, int64_t fs,
				  const void *key, int len, char *path,
				  int *err);

#endif /* VBJ_RESOLVE_H */
