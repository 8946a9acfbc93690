// SPDX-License-Identifier: GPL-2.0
/* The change journal's database; see store.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

static const char *const schema =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS filesystems("
	"  fs INTEGER PRIMARY KEY, uuid TEXT UNIQUE, mount TEXT);"
	"CREATE TABLE IF NOT EXISTS epochs("
	"  epoch INTEGER PRIMARY KEY, state INTEGER NOT NULL DEFAULT 0,"
	"  opened INTEGER, closed INTEGER);"
	/* one row per directory and epoch: a retry or a later change of it
	   in the same epoch adds nothing */
	"CREATE TABLE IF NOT EXISTS changes("
	"  epoch INTEGER NOT NULL, fs INTEGER NOT NULL, handle BLOB NOT NULL,"
	"  path TEXT, PRIMARY KEY(epoch, fs, handle)) WITHOUT ROWID;"
	/* "anything under P since C": one range scan of this index */
	"CREATE INDEX IF NOT EXISTS changes_by_path ON changes(path, epoch);"
	/*
	 * directories renamed in an epoch: what was journaled under them
	 * before carries their old path, so a query under the new one
	 * must name them as a whole
	 */
	"CREATE TABLE IF NOT EXISTS moves("
	"  epoch INTEGER NOT NULL, fs INTEGER NOT NULL, handle BLOB NOT NULL,"
	"  path TEXT, PRIMARY KEY(epoch, fs, handle)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS gaps("
	"  id INTEGER PRIMARY KEY, epoch INTEGER NOT NULL, fs INTEGER,"
	"  scope TEXT NOT NULL, reason TEXT NOT NULL, path TEXT);"
	"CREATE INDEX IF NOT EXISTS gaps_by_epoch ON gaps(epoch);"
	"CREATE TABLE IF NOT EXISTS consumers("
	"  name TEXT PRIMARY KEY, epoch INTEGER NOT NULL);";

int vbj_exec(struct vbj_store *s, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "journal: %s: %s\n", sql, err ? err : "?");
		sqlite3_free(err);
		return -EIO;
	}
	return 0;
}

int vbj_begin(struct vbj_store *s)
{
	return vbj_exec(s, "BEGIN IMMEDIATE");
}

int vbj_commit(struct vbj_store *s)
{
	return vbj_exec(s, "COMMIT");
}

/* One statement with text/int64 arguments ('t', 'i', 'b' + len). */
static int vbj_run(struct vbj_store *s, const char *sql, const char *types,
		   ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int i, rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "journal: %s: %s\n", sql, sqlite3_errmsg(s->db));
		return -EIO;
	}
	va_start(ap, types);
	for (i = 0; types[i]; i++) {
		if (types[i] == 't') {
			sqlite3_bind_text(st, i + 1, va_arg(ap, const char *),
					  -1, SQLITE_TRANSIENT);
		} else if (types[i] == 'i') {
			sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
		} else {
			const void *p = va_arg(ap, const void *);

			sqlite3_bind_blob(st, i + 1, p, va_arg(ap, int),
					  SQLITE_TRANSIENT);
		}
	}
	va_end(ap);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "journal: %s: %s\n", sql, sqlite3_errmsg(s->db));
		return -EIO;
	}
	return 0;
}

int64_t vbj_int(struct vbj_store *s, const char *sql, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return dflt;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int vbj_meta_set(struct vbj_store *s, const char *key, const char *val)
{
	return vbj_run(s, "INSERT OR REPLACE INTO meta VALUES(?, ?)", "tt",
		       key, val);
}

int vbj_meta_get(struct vbj_store *s, const char *key, char *val, int sz)
{
	sqlite3_stmt *st;
	int ret = -ENOENT;

	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(val, sz, "%s", (const char *)sqlite3_column_text(st, 0));
		ret = 0;
	}
	sqlite3_finalize(st);
	return ret;
}

int vbj_open(struct vbj_store *s, const char *dir, bool create)
{
	char path[PATH_MAX], id[32];
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	int ret;

	memset(s, 0, sizeof(*s));
	if (create && mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", dir, VBJ_DB_NAME);
	if (!create && access(path, F_OK))
		return -ENOENT;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		fprintf(stderr, "journal: %s: %s\n", path,
			s->db ? sqlite3_errmsg(s->db) : "cannot open");
		sqlite3_close(s->db);
		s->db = NULL;
		return -EIO;
	}
	sqlite3_busy_timeout(s->db, 10000);
	/* a COMMIT that returned is on disk: the acks rely on it */
	ret = vbj_exec(s, "PRAGMA journal_mode=WAL");
	if (!ret)
		ret = vbj_exec(s, "PRAGMA synchronous=FULL");
	if (!ret && create)
		ret = vbj_exec(s, schema);
	if (ret)
		goto fail;
	if (vbj_meta_get(s, "journal_id", id, sizeof(id))) {
		uint64_t r = 0;
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

		if (!create || fd < 0 || read(fd, &r, sizeof(r)) != sizeof(r)) {
			if (fd >= 0)
				close(fd);
			ret = -EIO;
			goto fail;
		}
		close(fd);
		s->journal_id = r ? r : 1;
		snprintf(id, sizeof(id), "%016" PRIx64, s->journal_id);
		ret = vbj_meta_set(s, "journal_id", id);
		if (ret)
			goto fail;
	} else {
		s->journal_id = strtoull(id, NULL, 16);
	}
	return 0;
fail:
	vbj_close(s);
	return ret;
}

void vbj_close(struct vbj_store *s)
{
	if (s->db)
		sqlite3_close(s->db);
	s->db = NULL;
}

int vbj_fs_id(struct vbj_store *s, const char *uuid, const char *mount,
	      int64_t *id)
{
	sqlite3_stmt *st;
	int ret;

	ret = vbj_run(s, "INSERT OR IGNORE INTO filesystems(uuid, mount) "
		      "VALUES(?, ?)", "tt", uuid, mount);
	if (!ret)
		ret = vbj_run(s, "UPDATE filesystems SET mount = ? WHERE uuid = ?",
			      "tt", mount, uuid);
	if (ret)
		return ret;
	if (sqlite3_prepare_v2(s->db, "SELECT fs FROM filesystems WHERE uuid = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
	ret = -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		ret = 0;
	}
	sqlite3_finalize(st);
	return ret;
}

int64_t vbj_last_epoch(struct vbj_store *s)
{
	return vbj_int(s, "SELECT max(epoch) FROM epochs", 0);
}

int64_t vbj_last_closed(struct vbj_store *s)
{
	return vbj_int(s, "SELECT max(epoch) FROM epochs WHERE state != 0", 0);
}

int64_t vbj_first_epoch(struct vbj_store *s)
{
	return vbj_int(s, "SELECT min(epoch) FROM epochs", 1);
}

int vbj_epoch_add(struct vbj_store *s, int64_t epoch)
{
	return vbj_run(s, "INSERT OR IGNORE INTO epochs(epoch, state, opened) "
		       "VALUES(?, 0, strftime('%s','now'))", "i", epoch);
}

int vbj_epochs_close(struct vbj_store *s, int64_t upto, int state)
{
	return vbj_run(s, "UPDATE epochs SET state = ?, closed = "
		       "strftime('%s','now') WHERE state = 0 AND epoch <= ?",
		       "ii", (int64_t)state, upto);
}

int64_t vbj_trim(struct vbj_store *s, int64_t max_changes)
{
	int64_t closed = vbj_last_closed(s), keep, total;
	sqlite3_stmt *st;
	int ret;

	/* what every consumer has seen; with none, nothing is dropped */
	keep = vbj_int(s, "SELECT min(epoch) + 1 FROM consumers",
		       vbj_first_epoch(s));
	if (keep > closed)
		keep = closed;
	total = vbj_int(s, "SELECT count(*) FROM changes", 0);
	if (total > max_changes &&
	    sqlite3_prepare_v2(s->db, "SELECT epoch, count(*) FROM changes "
			       "GROUP BY epoch ORDER BY epoch", -1, &st,
			       NULL) == SQLITE_OK) {
		while (total > max_changes && sqlite3_step(st) == SQLITE_ROW) {
			int64_t e = sqlite3_column_int64(st, 0);

			if (e >= closed)
				break;
			total -= sqlite3_column_int64(st, 1);
			if (e + 1 > keep)
				keep = e + 1;
		}
		sqlite3_finalize(st);
	}
	if (keep <= vbj_first_epoch(s))
		return vbj_first_epoch(s);
	ret = vbj_run(s, "DELETE FROM changes WHERE epoch < ?", "i", keep);
	if (!ret)
		ret = vbj_run(s, "DELETE FROM moves WHERE epoch < ?", "i", keep);
	if (!ret)
		ret = vbj_run(s, "DELETE FROM gaps WHERE epoch < ?", "i", keep);
	if (!ret)
		ret = vbj_run(s, "DELETE FROM epochs WHERE epoch < ?", "i", keep);
	return ret ? ret : keep;
}

int vbj_change_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		   const void *handle, int len)
{
	return vbj_run(s, "INSERT OR IGNORE INTO changes(epoch, fs, handle) "
		       "VALUES(?, ?, ?)", "iib", epoch, fs, handle, len);
}

int vbj_move_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		 const void *handle, int len)
{
	return vbj_run(s, "INSERT OR IGNORE INTO moves(epoch, fs, handle) "
		       "VALUES(?, ?, ?)", "iib", epoch, fs, handle, len);
}

int vbj_gap_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		const char *scope, const char *reason, const char *path)
{
	return vbj_run(s, "INSERT INTO gaps(epoch, fs, scope, reason, path) "
		       "VALUES(?, ?, ?, ?, ?)", "iittt", epoch, fs, scope,
		       reason, path ? path : "");
}
