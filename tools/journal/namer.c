// SPDX-License-Identifier: GPL-2.0
/* vbjournald's namer; see namer.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "namer.h"

#define NAMER_BATCH	4096
#define NAMER_MAX_FS	64
/*
 * After an ack, the namer waits this long before it looks: the acks of
 * that time are named in one round (one read, one commit of its own)
 * instead of one round each. An untar acks a new directory every few
 * milliseconds, and a round per ack doubled the daemon's commits. A
 * checkpoint's kick (renames to name) and a stop are not delayed.
 */
#define NAMER_DELAY_MS	100

struct vbj_namer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool kicked, stop;	/* under lock */
	bool soon;		/* under lock: a checkpoint's kick, no delay */
	int64_t moves_upto;	/* under lock: the highest asked for */
	sqlite3 *db;
	int nfs;
	int64_t ids[NAMER_MAX_FS];
	int fds[NAMER_MAX_FS];
};

struct named {
	int64_t epoch, fs;
	int hlen;
	unsigned char handle[256];
	char *path;
};

/* The path of the object of handle h on fs, or "" (gone, unreachable). */
static char *path_of(struct vbj_namer *n, int64_t fs, const void *h,
		     int hlen)
{
	const struct file_handle *fh = h;
	char link[64], path[PATH_MAX] = "";
	unsigned char copy[256];
	ssize_t len;
	int i, fd;

	for (i = 0; i < n->nfs; i++) {
		if (n->ids[i] != fs)
			continue;
		if (hlen < 8 || hlen > (int)sizeof(copy) ||
		    (int)fh->handle_bytes + 8 != hlen)
			break;
		memcpy(copy, h, hlen);
		fd = open_by_handle_at(n->fds[i], (void *)copy, O_PATH);
		if (fd < 0)
			break;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, path, sizeof(path) - 1);
		path[len > 0 ? len : 0] = 0;
		close(fd);
		break;
	}
	return strdup(path);
}

/*
 * One batch of table's rows without a path, up to epoch upto: read in a
 * short transaction, looked up with none open (a lookup may wait for a
 * writer that waits for the daemon's next commit), then written in
 * another. Whether there may be more.
 */
static bool name_table(struct vbj_namer *n, const char *table, int64_t upto)
{
	struct named *rows;
	sqlite3_stmt *st;
	char sql[160];
	bool done = false;
	int nr = 0, i;

	rows = calloc(NAMER_BATCH, sizeof(*rows));
	if (!rows)
		return false;
	snprintf(sql, sizeof(sql), "SELECT epoch, fs, handle FROM %s WHERE "
		 "path IS NULL AND epoch <= ? LIMIT %d", table, NAMER_BATCH);
	if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(rows);
		return false;
	}
	sqlite3_bind_int64(st, 1, upto);
	while (nr < NAMER_BATCH && sqlite3_step(st) == SQLITE_ROW) {
		struct named *r = &rows[nr];
		int hlen = sqlite3_column_bytes(st, 2);

		if (hlen > (int)sizeof(r->handle))
			continue;
		r->epoch = sqlite3_column_int64(st, 0);
		r->fs = sqlite3_column_int64(st, 1);
		r->hlen = hlen;
		memcpy(r->handle, sqlite3_column_blob(st, 2), hlen);
		nr++;
	}
	sqlite3_finalize(st);
	for (i = 0; i < nr; i++)
		rows[i].path = path_of(n, rows[i].fs, rows[i].handle,
				       rows[i].hlen);
	snprintf(sql, sizeof(sql), "UPDATE %s SET path = ? WHERE epoch = ? "
		 "AND fs = ? AND handle = ?", table);
	if (nr && sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_exec(n->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		for (i = 0; i < nr; i++) {
			if (!rows[i].path)
				continue;
			/* "" marks it tried: gone, or not reachable */
			sqlite3_bind_text(st, 1, rows[i].path, -1,
					  SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, rows[i].epoch);
			sqlite3_bind_int64(st, 3, rows[i].fs);
			sqlite3_bind_blob(st, 4, rows[i].handle, rows[i].hlen,
					  SQLITE_STATIC);
			sqlite3_step(st);
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
		done = sqlite3_exec(n->db, "COMMIT", NULL, NULL, NULL) ==
		       SQLITE_OK;
		if (!done)
			sqlite3_exec(n->db, "ROLLBACK", NULL, NULL, NULL);
	}
	for (i = 0; i < nr; i++)
		free(rows[i].path);
	free(rows);
	/* a batch not written is tried again at the next kick */
	return done && nr == NAMER_BATCH;
}

static void *namer_main(void *arg)
{
	struct vbj_namer *n = arg;
	struct timespec until;
	int64_t upto;

	for (;;) {
		pthread_mutex_lock(&n->lock);
		while (!n->kicked && !n->stop)
			pthread_cond_wait(&n->cond, &n->lock);
		/* the acks of the next NAMER_DELAY_MS, in this round */
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += NAMER_DELAY_MS * 1000000L;
		until.tv_sec += until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (!n->soon && !n->stop &&
		       pthread_cond_timedwait(&n->cond, &n->lock, &until) !=
		       ETIMEDOUT)
			;
		if (n->stop) {
			pthread_mutex_unlock(&n->lock);
			return NULL;
		}
		n->kicked = false;
		n->soon = false;
		upto = n->moves_upto;
		pthread_mutex_unlock(&n->lock);
		while (name_table(n, "changes", INT64_MAX))
			;
		while (upto && name_table(n, "moves", upto))
			;
	}
}

int vbj_namer_start(struct vbj_namer **np, const char *db_path,
		    const int64_t *ids, const int *fds, int nfs)
{
	pthread_condattr_t ca;
	struct vbj_namer *n;
	sigset_t all, old;
	int i, ret;

	if (nfs > NAMER_MAX_FS)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (i = 0; i < nfs; i++) {
		n->ids[i] = ids[i];
		n->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
	}
	n->nfs = nfs;
	if (sqlite3_open_v2(db_path, &n->db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK) {
		ret = -EIO;
		goto fail;
	}
	/* the daemon's commits go first: a long wait here costs nothing */
	sqlite3_busy_timeout(n->db, 10000);
	pthread_mutex_init(&n->lock, NULL);
	/* its delay is measured on the monotonic clock, not the wall's */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n->cond, &ca);
	pthread_condattr_destroy(&ca);
	/*
	 * The thread takes no signal: one delivered to it would set the
	 * daemon's flag without waking the main loop's poll() (SIGHUP,
	 * SIGUSR1 and SIGTERM would wait up to the interval). It inherits
	 * the mask it is created with.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&n->thread, NULL, namer_main, n);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto fail;
	*np = n;
	return 0;
fail:
	sqlite3_close(n->db);
	for (i = 0; i < nfs; i++)
		if (n->fds[i] >= 0)
			close(n->fds[i]);
	free(n);
	return ret;
}

void vbj_namer_kick(struct vbj_namer *n, int64_t moves_upto)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->lock);
	n->kicked = true;
	if (moves_upto)
		n->soon = true;
	if (moves_upto > n->moves_upto)
		n->moves_upto = moves_upto;
	pthread_cond_signal(&n->cond);
	pthread_mutex_unlock(&n->lock);
}

void vbj_namer_stop(struct vbj_namer *n)
{
	int i;

	if (!n)
		return;
	pthread_mutex_lock(&n->lock);
	n->stop = true;
	pthread_cond_signal(&n->cond);
	pthread_mutex_unlock(&n->lock);
	pthread_join(n->thread, NULL);
	sqlite3_close(n->db);
	for (i = 0; i < n->nfs; i++)
		if (n->fds[i] >= 0)
			close(n->fds[i]);
	pthread_mutex_destroy(&n->lock);
	pthread_cond_destroy(&n->cond);
	free(n);
}
