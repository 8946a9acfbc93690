/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the library's files share (not installed): the handle behind
 * struct vbjournal, and how an internal failure becomes the API's
 * negative errno.
 */
#ifndef VBJ_INTERNAL_H
#define VBJ_INTERNAL_H

#include <limits.h>
#include <stdbool.h>

#include "store.h"
#include "vbjournal.h"

/* What the shared object exports; everything else is hidden. */
#define VBJ_EXPORT	__attribute__((visibility("default")))

struct vbjournal {
	struct vbj_store s;
	char dir[PATH_MAX];
	int ifd;		/* vbjournal_fd()'s inotify, or -1 */
	/* the last --under asked, and what it came to */
	char *under_arg;
	char under[PATH_MAX];
	bool under_all;
};

/* A new call: no failure yet. */
void vbj_reset(struct vbjournal *j);
/* The API's -errno for the failure recorded in j->s (enum vbj_err). */
int vbj_errno(struct vbjournal *j);
/* Records a failure of the API's own (not SQLite's): returns -err. */
int vbj_error(struct vbjournal *j, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "%016x:%lld" into buf: 0 or -ENOSPC. */
int vbj_format_cursor(struct vbjournal *j, int64_t epoch, char *buf,
		      size_t size);
/*
 * Why cursor cannot be answered (-EINVAL not a cursor, -ESTALE with
 * errmsg), or 0 with *epoch; -errno when the journal failed.
 */
int vbj_check_cursor(struct vbjournal *j, const char *cursor,
		     int64_t *epoch);

#endif /* VBJ_INTERNAL_H */
