// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libvbjournal: the handle, errors, cursors, checkpoints, following and
 * status (vbjournal.h). The queries are in changes.c and consumers.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "internal.h"
#include "lock.h"

#ifndef VFSB_VERSION
#define VFSB_VERSION "unknown"
#endif

VBJ_EXPORT const char *vbjournal_version(void)
{
	return VFSB_VERSION;
}

void vbj_reset(struct vbjournal *j)
{
	j->s.err = VBJ_OK;
	j->s.full = false;
	j->s.why[0] = 0;
}

int vbj_errno(struct vbjournal *j)
{
	switch (j->s.err) {
	case VBJ_OK:
		return 0;
	case VBJ_E_MISSING:
		return -ENOENT;
	case VBJ_E_ACCESS:
		return -EACCES;
	case VBJ_E_FOREIGN:
		return -EMEDIUMTYPE;
	case VBJ_E_EMPTY:
		return -ENODATA;
	case VBJ_E_TRUNCATED:
		return -EBADMSG;
	case VBJ_E_CORRUPT:
		return -EUCLEAN;
	default:
		return -EIO;
	}
}

int vbj_error(struct vbjournal *j, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->s.why, sizeof(j->s.why), fmt, ap);
	va_end(ap);
	return -err;
}

int vbj_format_cursor(struct vbjournal *j, int64_t epoch, char *buf,
		      size_t size)
{
	if (size < VBJOURNAL_CURSOR_MAX)
		return vbj_error(j, ENOSPC, "a cursor needs %d bytes",
				 VBJOURNAL_CURSOR_MAX);
	snprintf(buf, size, "%016" PRIx64 ":%" PRId64, j->s.journal_id, epoch);
	return 0;
}

VBJ_EXPORT int vbjournal_open(struct vbjournal **jp, const char *dir,
			      unsigned int flags)
{
	struct vbjournal *j = calloc(1, sizeof(*j));
	int ret;

	*jp = j;
	if (!j)
		return -ENOMEM;
	j->ifd = -1;
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	if (flags & ~VBJOURNAL_OPEN_WRITE)
		return vbj_error(j, EINVAL, "unknown flags 0x%x", flags);
	ret = vbj_open(&j->s, dir, flags & VBJOURNAL_OPEN_WRITE ? VBJ_WRITE :
		       VBJ_READ);
	return ret ? vbj_errno(j) : 0;
}

VBJ_EXPORT void vbjournal_close(struct vbjournal *j)
{
	if (!j)
		return;
	vbj_close(&j->s);
	if (j->ifd >= 0)
		close(j->ifd);
	free(j->under_arg);
	free(j);
}

VBJ_EXPORT const char *vbjournal_errmsg(const struct vbjournal *j)
{
	return j ? j->s.why : "out of memory";
}

VBJ_EXPORT uint64_t vbjournal_id(const struct vbjournal *j)
{
	return j->s.journal_id;
}

VBJ_EXPORT int vbjournal_parse_cursor(const char *cursor, uint64_t *id,
				      int64_t *epoch)
{
	const char *colon = strchr(cursor, ':'), *p;
	size_t n = colon ? (size_t)(colon - cursor) : 0, i;
	unsigned long long e;
	char *end;

	if (!n || n > 16)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)cursor[i]))
			return -EINVAL;
	/* decimal digits only: strtoull() would take blanks and signs */
	for (p = colon + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	if (p == colon + 1)
		return -EINVAL;
	errno = 0;
	e = strtoull(colon + 1, &end, 10);
	if (errno == ERANGE || e > INT64_MAX)
		return -EINVAL;
	*id = strtoull(cursor, NULL, 16);
	*epoch = e;
	return 0;
}

int vbj_check_cursor(struct vbjournal *j, const char *cursor, int64_t *epoch)
{
	int64_t last, first;
	uint64_t id;

	if (vbjournal_parse_cursor(cursor, &id, epoch))
		return vbj_error(j, EINVAL, "not a cursor");
	if (id != j->s.journal_id)
		return vbj_error(j, ESTALE, "the cursor is of another journal");
	last = vbj_last_epoch(&j->s);
	first = vbj_first_epoch(&j->s);
	if (j->s.err)
		return vbj_errno(j);
	if (*epoch > last)
		return vbj_error(j, ESTALE, "the cursor is ahead of this journal");
	if (*epoch + 1 < first)
		return vbj_error(j, ESTALE,
				 "the epochs after the cursor were trimmed");
	return 0;
}

VBJ_EXPORT int vbjournal_cursor(struct vbjournal *j, char *buf, size_t size)
{
	int64_t e;

	vbj_reset(j);
	e = vbj_last_closed(&j->s);
	if (j->s.err)
		return vbj_errno(j);
	return vbj_format_cursor(j, e, buf, size);
}

VBJ_EXPORT int vbjournal_checkpoint(struct vbjournal *j, int timeout_ms,
				    char *buf, size_t size)
{
	int64_t before;
	pid_t pid = 0;
	int i, ret;

	vbj_reset(j);
	if (timeout_ms < 0)
		return vbj_error(j, EINVAL, "a negative timeout");
	if (size < VBJOURNAL_CURSOR_MAX)
		return vbj_format_cursor(j, 0, buf, size);
	before = vbj_last_closed(&j->s);
	if (j->s.err)
		return vbj_errno(j);
	ret = vbj_lock_signal(j->dir, SIGUSR1, &pid);
	if (ret == -ESRCH && pid > 0)
		return vbj_error(j, ESRCH, "the daemon is not running (pid %d "
				 "ended)", (int)pid);
	if (ret == -ESRCH)
		return vbj_error(j, ESRCH, "the daemon is not running");
	if (ret == -EXDEV)
		return vbj_error(j, EXDEV, "the daemon runs in another pid "
				 "namespace");
	if (ret)
		return vbj_error(j, -ret, "signalling the daemon (pid %d): %s",
				 (int)pid, strerror(-ret));
	/* every 10 ms: a checkpoint takes a barrier and a syncfs() */
	for (i = 0; i <= timeout_ms / 10; i++) {
		struct timespec ts = { 0, 10000000 };
		int64_t now = vbj_last_closed(&j->s);

		if (j->s.err)
			return vbj_errno(j);
		if (now > before)
			return vbj_format_cursor(j, now, buf, size);
		if (i < timeout_ms / 10)
			nanosleep(&ts, NULL);
	}
	if (timeout_ms % 1000)
		return vbj_error(j, ETIMEDOUT, "no checkpoint within %d ms",
				 timeout_ms);
	return vbj_error(j, ETIMEDOUT, "no checkpoint within %d s",
			 timeout_ms / 1000);
}

/*
 * The daemon commits to journal.db's WAL, and checkpoints the WAL into
 * journal.db: either is written (IN_MODIFY) or replaced (a copy moved
 * in) when there may be something new.
 */
VBJ_EXPORT int vbjournal_fd(struct vbjournal *j)
{
	vbj_reset(j);
	if (j->ifd >= 0)
		return j->ifd;
	j->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (j->ifd < 0)
		return vbj_error(j, errno, "inotify: %s", strerror(errno));
	if (inotify_add_watch(j->ifd, j->dir, IN_MODIFY | IN_CLOSE_WRITE |
			      IN_MOVED_TO | IN_CREATE | IN_DELETE) < 0) {
		int err = errno;

		close(j->ifd);
		j->ifd = -1;
		return vbj_error(j, err, "%s: inotify: %s", j->dir,
				 strerror(err));
	}
	return j->ifd;
}

VBJ_EXPORT int vbjournal_process(struct vbjournal *j)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int changed = 0;
	ssize_t n;

	vbj_reset(j);
	if (j->ifd < 0)
		return vbj_error(j, EBADF, "no descriptor: call vbjournal_fd()");
	while ((n = read(j->ifd, buf, sizeof(buf))) > 0)
		changed = 1;
	if (n < 0 && errno != EAGAIN)
		return vbj_error(j, errno, "inotify: %s", strerror(errno));
	return changed;
}

/* path's size in bytes, 0 when it is not there. */
static int64_t file_size(const char *path, const char *suffix)
{
	char name[PATH_MAX + 8];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	return stat(name, &st) ? 0 : st.st_size;
}

/* The status and what its pointers lead to, in one allocation's care. */
struct status_mem {
	struct vbjournal_status st;
	char id[20];
	struct vbjournal_fs **fs;
	size_t nfs;
};

VBJ_EXPORT void vbjournal_status_free(struct vbjournal_status *st)
{
	struct status_mem *m = (struct status_mem *)st;
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nfs; i++) {
		free((char *)m->fs[i]->uuid);
		free((char *)m->fs[i]->mount);
		free(m->fs[i]);
	}
	free(m->fs);
	free(m);
}

/* The journaled filesystems into m. */
static int status_filesystems(struct vbjournal *j, struct status_mem *m)
{
	sqlite3_stmt *st;
	int rc;

	m->fs = calloc(1, sizeof(*m->fs));
	if (!m->fs)
		return -ENOMEM;
	if (sqlite3_prepare_v2(j->s.db, "SELECT fs, uuid, mount FROM filesystems "
			       "ORDER BY fs", -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(&j->s, "reading its filesystems");
		return vbj_errno(j);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *uuid = (const char *)sqlite3_column_text(st, 1);
		const char *mount = (const char *)sqlite3_column_text(st, 2);
		struct vbjournal_fs *f, **p;

		p = realloc(m->fs, (m->nfs + 2) * sizeof(*p));
		if (!p)
			break;
		m->fs = p;
		f = calloc(1, sizeof(*f));
		if (!f)
			break;
		f->fs = sqlite3_column_int64(st, 0);
		f->uuid = uuid ? strdup(uuid) : NULL;
		f->mount = mount ? strdup(mount) : NULL;
		m->fs[m->nfs++] = f;
		m->fs[m->nfs] = NULL;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		vbj_fail(&j->s, "reading its filesystems");
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? -ENOMEM : vbj_errno(j);
}

VBJ_EXPORT int vbjournal_status(struct vbjournal *j,
				struct vbjournal_status **stp)
{
	char clean[8] = "?", stats[160] = "", start[24] = "0", boot[64];
	struct vbjournal_status *st;
	struct status_mem *m;
	pid_t holder = 0;
	bool running;
	int ret;

	vbj_reset(j);
	*stp = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return vbj_error(j, ENOMEM, "out of memory");
	st = &m->st;
	st->epoch = vbj_last_epoch(&j->s);
	st->last_closed = vbj_last_closed(&j->s);
	vbj_meta_get(&j->s, "session_clean", clean, sizeof(clean));
	/* a session has begun once: recovery stores these */
	st->session_ran = !vbj_meta_get(&j->s, "session_boot", boot,
					 sizeof(boot)) || clean[0] != '?';
	/* running: a process holds the daemon's lock (lock.h) */
	running = !vbj_lock_holder(j->dir, &holder);
	if (running)
		st->pid = holder;
	vbj_meta_get(&j->s, "session_stats", stats, sizeof(stats));
	vbj_meta_get(&j->s, "session_start", start, sizeof(start));
	sscanf(stats, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %"
	       SCNu64 " %" SCNu64, &st->intents, &st->records, &st->acks,
	       &st->ack_ns_sum, &st->ack_ns_max, &st->unacked_changes);
	st->directory_rows = vbj_int(&j->s, "SELECT count(*) FROM changes", 0);
	st->gaps = vbj_int(&j->s, "SELECT count(*) FROM gaps", 0);
	/* on disk: the database, its WAL and the WAL's index */
	st->db_bytes = file_size(j->s.path, "");
	st->wal_bytes = file_size(j->s.path, "-wal");
	st->shm_bytes = file_size(j->s.path, "-shm");
	st->size_bytes = st->db_bytes + st->wal_bytes + st->shm_bytes;
	st->consumers = vbj_int(&j->s, "SELECT count(*) FROM consumers", 0);
	st->largest_lag = st->consumers ? st->last_closed -
			  vbj_int(&j->s, "SELECT min(epoch) FROM consumers", 0) : 0;
	/* no session yet: none to time */
	st->session_seconds = atoll(start) > 0 ? time(NULL) - atoll(start) : 0;
	st->daemon = running ? "running" : !st->session_ran ? "never started" :
		     clean[0] == '1' ? "stopped" : "not running";
	snprintf(m->id, sizeof(m->id), "%016" PRIx64, j->s.journal_id);
	st->journal_id = m->id;
	st->first_epoch = vbj_first_epoch(&j->s);
	ret = j->s.err ? vbj_errno(j) : status_filesystems(j, m);
	if (ret == -ENOMEM)
		vbj_error(j, ENOMEM, "out of memory");
	if (ret) {
		vbjournal_status_free(st);
		return ret;
	}
	st->filesystems = (const struct vbjournal_fs *const *)m->fs;
	st->nfilesystems = m->nfs;
	*stp = st;
	return 0;
}
