// SPDX-License-Identifier: GPL-2.0
/*
 * The recovery of new directories: newdirs.h says why.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "newdirs.h"

#define FLOOR_KEY	"newdir_floor"

/* A handle as the module encodes it, and vbjournald stores it. */
struct key {
	int64_t epoch, fs;
	int len;
	unsigned char h[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

struct scan {
	int64_t floor;
	int (*mount_fd)(void *arg, int64_t fs);
	void *arg;
	struct key *keys;
	size_t n, cap;
};

int vbjd_newdirs_floor(struct vbj_store *st, time_t t)
{
	char v[32];

	snprintf(v, sizeof(v), "%lld",
		 (long long)t - VBJD_NEWDIRS_MARGIN_S);
	return vbj_meta_set(st, FLOOR_KEY, v);
}

static int add(struct scan *sc, int64_t epoch, int64_t fs, const void *h,
	       int len)
{
	struct key *k;

	if (len <= 0 || (size_t)len > sizeof(k->h))
		return 0;
	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? 2 * sc->cap : 64;

		k = realloc(sc->keys, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		sc->keys = k;
		sc->cap = cap;
	}
	k = &sc->keys[sc->n++];
	k->epoch = epoch;
	k->fs = fs;
	k->len = len;
	memcpy(k->h, h, len);
	return 0;
}

/*
 * What name in dfd is: 0, no directory changed since the floor (or gone
 * since: its parent says so); 1, a directory whose inode changed since
 * (its ctime: made, moved, its attributes set; or its birth time), or
 * with no ctime told, or a mount point (whose times are the mounted
 * root's); -1, not to be told (its parent is then read whole).
 */
static int new_dir(const struct scan *sc, int dfd, const char *name)
{
	struct statx sx;

	if (statx(dfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_CTIME | STATX_BTIME, &sx))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(sx.stx_mode))
		return 0;
	if (sx.stx_attributes_mask & sx.stx_attributes & STATX_ATTR_MOUNT_ROOT)
		return 1;
	return !(sx.stx_mask & STATX_CTIME) ||
	       sx.stx_ctime.tv_sec >= sc->floor ||
	       ((sx.stx_mask & STATX_BTIME) &&
		sx.stx_btime.tv_sec >= sc->floor);
}

/*
 * The directory h of an open epoch: each of its subdirectories changed
 * since the floor, a moved entry; the directory itself when it cannot
 * be read (whole, then).
 */
static int scan_dir(void *arg, int64_t epoch, int64_t fs, const void *h,
		    int len)
{
	struct scan *sc = arg;
	union {
		struct file_handle fh;
		unsigned char b[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct dirent *de;
	int mfd, dfd, ret = 0;
	DIR *dir;

	mfd = sc->mount_fd(sc->arg, fs);
	if (mfd < 0)
		return 0;	/* not watched now: its filesystem has a gap */
	if (len < (int)sizeof(u.fh) || len > (int)sizeof(u.b))
		return add(sc, epoch, fs, h, len);	/* "ino:N:G" */
	memcpy(u.b, h, len);
	if (u.fh.handle_bytes != (unsigned int)len - sizeof(u.fh))
		return add(sc, epoch, fs, h, len);
	dfd = open_by_handle_at(mfd, &u.fh, O_RDONLY | O_DIRECTORY |
				O_CLOEXEC);
	if (dfd < 0)
		return errno == ESTALE || errno == ENOENT ? 0 :
		       add(sc, epoch, fs, h, len);
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return add(sc, epoch, fs, h, len);
	}
	for (;;) {
		int mnt, k;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			/* a listing cut short: the parent whole */
			if (errno)
				ret = add(sc, epoch, fs, h, len);
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		k = new_dir(sc, dfd, de->d_name);
		if (!k)
			continue;
		u.fh.handle_bytes = MAX_HANDLE_SZ;
		if (k < 0 ||
		    name_to_handle_at(dfd, de->d_name, &u.fh, &mnt, 0)) {
			/* not to be told, or no handle for it: the parent */
			ret = add(sc, epoch, fs, h, len);
			break;
		}
		ret = add(sc, epoch, fs, u.b,
			  sizeof(u.fh) + u.fh.handle_bytes);
		if (ret)
			break;
	}
	closedir(dir);
	return ret;
}

int vbjd_newdirs_recover(struct vbj_store *st,
			 int (*mount_fd)(void *arg, int64_t fs), void *arg)
{
	struct scan sc = { .mount_fd = mount_fd, .arg = arg };
	char v[32], *end;
	size_t i;
	int ret;

	/* none saved: no session ever let a new directory go on unwaited */
	ret = vbj_meta_get(st, FLOOR_KEY, v, sizeof(v));
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	errno = 0;
	sc.floor = strtoll(v, &end, 10);
	if (errno || *end || end == v)
		sc.floor = 0;	/* every subdirectory counts as new */
	ret = vbj_open_dirs(st, scan_dir, &sc);
	for (i = 0; !ret && i < sc.n; i++)
		ret = vbj_move_add(st, sc.keys[i].epoch, sc.keys[i].fs,
				   sc.keys[i].h, sc.keys[i].len);
	free(sc.keys);
	return ret ? ret : (int)sc.n;
}
