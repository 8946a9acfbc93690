// SPDX-License-Identifier: LGPL-2.1-or-later
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
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "store.h"

static const char *const schema =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
	/* ident (version 1): vbj_fs_ident() of the filesystem at mount */
	"CREATE TABLE IF NOT EXISTS filesystems("
	"  fs INTEGER PRIMARY KEY, uuid TEXT UNIQUE, mount TEXT, ident TEXT);"
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
	"  name TEXT PRIMARY KEY, epoch INTEGER NOT NULL);"
	/*
	 * version 1: files changed in an epoch whose names their record's
	 * directory does not lead to (VFSB_RECF_LINKS: more than one link,
	 * or changed through a name they no longer have), by handle (else
	 * "ino:N:G"); vbjournal finds their names when asked
	 */
	"CREATE TABLE IF NOT EXISTS objects("
	"  epoch INTEGER NOT NULL, fs INTEGER NOT NULL, handle BLOB NOT NULL,"
	"  ino INTEGER, generation INTEGER,"
	"  PRIMARY KEY(epoch, fs, handle)) WITHOUT ROWID;"
	/*
	 * the directories known to hold a name of an object (its records'
	 * parents, its hard links' directories): where its names are
	 * looked for; epoch: the last that named it
	 */
	"CREATE TABLE IF NOT EXISTS object_dirs("
	"  fs INTEGER NOT NULL, handle BLOB NOT NULL, dir BLOB NOT NULL,"
	"  epoch INTEGER NOT NULL,"
	"  PRIMARY KEY(fs, handle, dir)) WITHOUT ROWID;";

int vbj_exec(struct vbj_store *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		vbj_fail(s, sql);
		return -EIO;
	}
	return 0;
}


bool vbj_disk_full(struct vbj_store *s)
{
	int sys;

	if (!s->db)
		return false;
	sys = sqlite3_system_errno(s->db);
	return (sqlite3_errcode(s->db) & 0xff) == SQLITE_FULL ||
	       sys == ENOSPC || sys == EDQUOT;
}

bool vbj_busy(struct vbj_store *s)
{
	return s->db && (sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY;
}

/*
 * sql prepared once per connection: found by its address (vbj_run()'s
 * callers pass string literals), else prepared and kept while there is
 * room. The daemon runs the same few statements for every record it
 * stores and every intent it commits, and preparing one (parsing and
 * planning it) cost about as much as running it. *kept: whether it is
 * kept (reset after use) or the caller's to finalize.
 */
static sqlite3_stmt *vbj_prepared(struct vbj_store *s, const char *sql,
				  bool *kept)
{
	sqlite3_stmt *st;
	int i;

	for (i = 0; i < s->nstmts; i++) {
		if (s->stmts[i].sql == sql) {
			*kept = true;
			return s->stmts[i].st;
		}
	}
	*kept = s->nstmts < VBJ_STMTS;
	if (sqlite3_prepare_v3(s->db, sql, -1,
			       *kept ? SQLITE_PREPARE_PERSISTENT : 0, &st,
			       NULL) != SQLITE_OK)
		return NULL;
	if (*kept) {
		s->stmts[s->nstmts].sql = sql;
		s->stmts[s->nstmts++].st = st;
	}
	return st;
}

/* One statement with text/int64 arguments ('t', 'i', 'b' + len). */
static int vbj_run(struct vbj_store *s, const char *sql, const char *types,
		   ...)
{
	sqlite3_stmt *st;
	va_list ap;
	bool kept;
	int i, rc;

	st = vbj_prepared(s, sql, &kept);
	if (!st) {
		vbj_fail(s, sql);
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
	/* a kept statement holds no lock nor copy of its arguments */
	if (kept) {
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	} else {
		sqlite3_finalize(st);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		vbj_fail(s, sql);
		return -EIO;
	}
	return 0;
}

int vbj_begin(struct vbj_store *s)
{
	return vbj_run(s, "BEGIN IMMEDIATE", "");
}

int vbj_commit(struct vbj_store *s)
{
	return vbj_run(s, "COMMIT", "");
}

int vbj_fail(struct vbj_store *s, const char *what)
{
	int code = s->db ? sqlite3_errcode(s->db) & 0xff : SQLITE_ERROR;
	enum vbj_err err;

	err = code == SQLITE_CORRUPT || code == SQLITE_NOTADB ? VBJ_E_CORRUPT :
	      code == SQLITE_PERM || code == SQLITE_AUTH ||
	      code == SQLITE_READONLY ? VBJ_E_ACCESS : VBJ_E_FAILED;
	if (s->log) {
		char line[sizeof(s->why)];

		snprintf(line, sizeof(line), "journal: %s: %s: %s", s->path,
			 what, s->db ? sqlite3_errmsg(s->db) : "cannot open");
		if (s->log_line)
			s->log_line(line);
		else
			fprintf(stderr, "%s\n", line);
	}
	if (s->err)
		return s->err;
	s->err = err;
	s->full = vbj_disk_full(s);
	snprintf(s->why, sizeof(s->why), "%s: %s: %s%s", s->path, what,
		 s->db ? sqlite3_errmsg(s->db) : "cannot open",
		 err == VBJ_E_CORRUPT ? " (the journal is corrupt)" : "");
	return err;
}

int64_t vbj_int(struct vbj_store *s, const char *sql, int64_t dflt)
{
	sqlite3_stmt *st;
	int64_t v = dflt;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(s, sql);
		return dflt;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		vbj_fail(s, sql);
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

	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(s, "reading its meta table");
		return -EIO;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);

		snprintf(val, sz, "%s", v ? v : "");
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		vbj_fail(s, "reading its meta table");
		ret = -EIO;
	}
	sqlite3_finalize(st);
	return ret;
}

static int open_fail(struct vbj_store *s, enum vbj_err err,
		     const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int open_fail(struct vbj_store *s, enum vbj_err err,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	s->err = err;
	return err;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * Before SQLite reads it: whether journal.db is there, readable, not
 * empty, and as long as its header says. SQLite calls a truncated file
 * "malformed" like any other damage, or answers from what is left; the
 * header's page size (offset 16) and page count (offset 28, valid when
 * the change counter at 24 equals the one at 92) tell which it is (the
 * file format's section 1.3). A WAL file with frames in it may hold
 * pages the main file does not have yet: then only a partial page
 * counts as truncation.
 */
static int check_file(struct vbj_store *s, const char *dir)
{
	unsigned char h[100];
	char wal[sizeof(s->path) + 8];
	struct stat st, ws;
	uint32_t psize, pages;
	ssize_t n;
	int fd;

	if (stat(dir, &st))
		return open_fail(s, errno == EACCES ? VBJ_E_ACCESS :
				 errno == ENOENT || errno == ENOTDIR ?
				 VBJ_E_MISSING : VBJ_E_FAILED,
				 errno == ENOENT ? "%s: no journal here (no such "
				 "directory)" : "%s: %s", dir, strerror(errno));
	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_fail(s, errno == EACCES ? VBJ_E_ACCESS :
				 errno == ENOENT ? VBJ_E_MISSING : VBJ_E_FAILED,
				 errno == ENOENT ? "%s: no journal here (no %s)" :
				 errno == EACCES ? "%s: permission denied "
				 "reading %s" : "%s: %s: %s", dir, VBJ_DB_NAME,
				 strerror(errno));
	if (fstat(fd, &st)) {
		close(fd);
		return open_fail(s, VBJ_E_FAILED, "%s: %s", s->path,
				 strerror(errno));
	}
	n = st.st_size ? pread(fd, h, sizeof(h), 0) : 0;
	close(fd);
	if (!st.st_size)
		return open_fail(s, VBJ_E_EMPTY, "%s: the journal is empty "
				 "(zero length: vbjournald never set it up)",
				 s->path);
	if (n < 0)
		return open_fail(s, VBJ_E_FAILED, "%s: %s", s->path,
				 strerror(errno));
	/* not an SQLite header: SQLite says so */
	if (n < 16 || memcmp(h, "SQLite format 3", 16))
		return 0;
	if (n < (ssize_t)sizeof(h))
		return open_fail(s, VBJ_E_TRUNCATED, "%s: the journal is "
				 "truncated (%lld bytes, not even its header)",
				 s->path, (long long)st.st_size);
	psize = h[16] << 8 | h[17];
	if (psize == 1)
		psize = 65536;
	if (psize < 512 || (psize & (psize - 1)))
		return 0;
	pages = be32(h + 24) == be32(h + 92) ? be32(h + 28) : 0;
	snprintf(wal, sizeof(wal), "%s-wal", s->path);
	if (st.st_size % psize ||
	    ((stat(wal, &ws) || ws.st_size == 0) &&
	     (uint64_t)st.st_size < (uint64_t)pages * psize))
		return open_fail(s, VBJ_E_TRUNCATED, "%s: the journal is "
				 "truncated (%lld bytes, its header says %llu)",
				 s->path, (long long)st.st_size,
				 (unsigned long long)pages * psize);
	return 0;
}

/* The path as an SQLite URI with immutable=1 (RFC 3986 escapes). */
static void immutable_uri(const char *path, char *out, size_t sz)
{
	static const char hexd[] = "0123456789ABCDEF";
	size_t n = snprintf(out, sz, "file:");
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p && n + 4 < sz; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p)) {
			out[n++] = *p;
		} else {
			out[n++] = '%';
			out[n++] = hexd[*p >> 4];
			out[n++] = hexd[*p & 15];
		}
	}
	snprintf(out + n, sz - n, "?immutable=1");
}

#define STR(x)	#x
#define XSTR(x)	STR(x)
static const char version_sql[] =
	"PRAGMA user_version = " XSTR(VBJ_SCHEMA_VERSION);

/* What every version has (objects and object_dirs: version 1). */
static const char *const tables[] = {
	"meta", "filesystems", "epochs", "changes", "moves", "gaps",
	"consumers",
};

/* The first read: SQLite's verdict on the file, then ours. */
static int check_journal(struct vbj_store *s)
{
	sqlite3_stmt *st;
	char id[32];
	size_t i;
	int rc, have = 0;

	rc = sqlite3_prepare_v2(s->db, "SELECT name FROM sqlite_master "
				"WHERE type = 'table'", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		for (i = 0; name && i < sizeof(tables) / sizeof(tables[0]); i++)
			have += !strcmp(name, tables[i]);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE) {
		rc = sqlite3_errcode(s->db) & 0xff;
		sqlite3_finalize(st);
		if (rc == SQLITE_NOTADB)
			return open_fail(s, VBJ_E_CORRUPT, "%s: the journal is "
					 "corrupt: %s", s->path,
					 sqlite3_errmsg(s->db));
		return vbj_fail(s, "reading its tables");
	}
	sqlite3_finalize(st);
	if (have != (int)(sizeof(tables) / sizeof(tables[0])))
		return open_fail(s, VBJ_E_FOREIGN, "%s: not a vbjournal journal "
				 "(an SQLite database without the journal's "
				 "tables)", s->path);
	if (vbj_meta_get(s, "journal_id", id, sizeof(id)))
		return s->err ? (int)s->err :
		       open_fail(s, VBJ_E_FOREIGN, "%s: not a vbjournal journal "
				 "(it has no journal id)", s->path);
	s->journal_id = strtoull(id, NULL, 16);
	s->version = vbj_int(s, "PRAGMA user_version", 0);
	return s->err;
}

/* A journal id from /dev/urandom, stored: 0 or an enum vbj_err. */
static int new_journal_id(struct vbj_store *s)
{
	char id[32];
	uint64_t r = 0;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, &r, sizeof(r)) != sizeof(r)) {
		if (fd >= 0)
			close(fd);
		return open_fail(s, VBJ_E_FAILED, "/dev/urandom: %s",
				 strerror(errno ? errno : EIO));
	}
	close(fd);
	s->journal_id = r ? r : 1;
	snprintf(id, sizeof(id), "%016" PRIx64, s->journal_id);
	return vbj_meta_set(s, "journal_id", id) ? vbj_fail(s, "journal id") : 0;
}

/*
 * READ: a WAL database opened read-only needs its -shm file, which a
 * reader of a read-only copy cannot make. With neither -shm nor -wal
 * there, no writer has the journal open: it is read as the file it is
 * (immutable). 0, or an enum vbj_err.
 */
static int open_read(struct vbj_store *s)
{
	char uri[3 * sizeof(s->path) + 32], side[sizeof(s->path) + 8];
	int ret, code;

	if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		return vbj_fail(s, "opening it");
	ret = check_journal(s);
	code = sqlite3_errcode(s->db) & 0xff;
	if (!ret || (code != SQLITE_CANTOPEN && code != SQLITE_READONLY))
		return ret;
	snprintf(side, sizeof(side), "%s-wal", s->path);
	if (!access(side, F_OK))
		return ret;
	snprintf(side, sizeof(side), "%s-shm", s->path);
	if (!access(side, F_OK))
		return ret;
	vbj_close(s);
	s->err = VBJ_OK;
	immutable_uri(s->path, uri, sizeof(uri));
	if (sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
			    NULL) != SQLITE_OK)
		return vbj_fail(s, "opening it");
	return check_journal(s);
}

/*
 * CREATE: a file with no table at all (missing, zero length, or left
 * by a start that died before its first commit) gets the schema and a
 * journal id in one transaction; anything else must be a journal.
 */
static int open_create(struct vbj_store *s)
{
	int64_t tables;

	if (sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
		return vbj_fail(s, "opening it");
	sqlite3_busy_timeout(s->db, 10000);
	tables = vbj_int(s, "SELECT count(*) FROM sqlite_master", -1);
	if (s->err)
		return s->err;
	/* a COMMIT that returned is on disk: the acks rely on it */
	if (vbj_exec(s, "PRAGMA synchronous=FULL"))
		return vbj_fail(s, "setting it up");
	if (!tables) {
		/* before the first table: pages freed by trims can be
		   given back (vbj_compact()) */
		if (vbj_exec(s, "PRAGMA auto_vacuum=INCREMENTAL") ||
		    vbj_exec(s, "PRAGMA journal_mode=WAL") || vbj_begin(s) ||
		    vbj_exec(s, schema) || vbj_exec(s, version_sql))
			return vbj_fail(s, "creating it");
		if (new_journal_id(s))
			return s->err;
		if (vbj_commit(s))
			return vbj_fail(s, "creating it");
	}
	if (check_journal(s))
		return s->err;
	if (s->version > VBJ_SCHEMA_VERSION)
		return open_fail(s, VBJ_E_FAILED, "%s: made by a newer "
				 "vbjournald (schema version %d; this one knows "
				 "%d): not touched", s->path, s->version,
				 VBJ_SCHEMA_VERSION);
	/* an older journal: what it lacks, in one transaction */
	if (s->version < VBJ_SCHEMA_VERSION) {
		if (vbj_begin(s) || vbj_exec(s, schema) ||
		    (!vbj_int(s, "SELECT count(*) FROM pragma_table_info("
			       "'filesystems') WHERE name = 'ident'", 0) &&
		     vbj_exec(s, "ALTER TABLE filesystems ADD COLUMN ident "
			      "TEXT")) ||
		    vbj_exec(s, version_sql) || vbj_commit(s))
			return vbj_fail(s, "bringing its schema up to date");
		s->version = VBJ_SCHEMA_VERSION;
	}
	return 0;
}

int vbj_open(struct vbj_store *s, const char *dir, enum vbj_mode mode)
{
	bool check = true;
	struct stat st;
	int ret;

	memset(s, 0, sizeof(*s));
	if (snprintf(s->path, sizeof(s->path), "%s/%s", dir, VBJ_DB_NAME) >=
	    (int)sizeof(s->path))
		return open_fail(s, VBJ_E_FAILED, "%s: %s", dir,
				 strerror(ENAMETOOLONG));
	if (mode == VBJ_CREATE && mkdir(dir, 0700) && errno != EEXIST)
		return open_fail(s, errno == EACCES ? VBJ_E_ACCESS :
				 VBJ_E_FAILED, "%s: %s", dir, strerror(errno));
	/* what the daemon is about to create, it need not check */
	if (mode == VBJ_CREATE)
		check = !stat(s->path, &st) && st.st_size > 0;
	if (check) {
		ret = check_file(s, dir);
		if (ret)
			return ret;
	}
	if (mode == VBJ_READ) {
		ret = open_read(s);
	} else if (mode == VBJ_CREATE) {
		ret = open_create(s);
	} else {
		ret = sqlite3_open_v2(s->path, &s->db, SQLITE_OPEN_READWRITE,
				      NULL) != SQLITE_OK ?
		      vbj_fail(s, "opening it") : 0;
		if (!ret) {
			sqlite3_busy_timeout(s->db, 10000);
			ret = vbj_exec(s, "PRAGMA synchronous=FULL") ?
			      vbj_fail(s, "setting it up") : check_journal(s);
		}
	}
	if (ret) {
		vbj_close(s);
		return ret;
	}
	if (mode == VBJ_READ)
		sqlite3_busy_timeout(s->db, 10000);
	return 0;
}

void vbj_close(struct vbj_store *s)
{
	while (s->nstmts > 0)
		sqlite3_finalize(s->stmts[--s->nstmts].st);
	if (s->db)
		sqlite3_close(s->db);
	s->db = NULL;
}

void vbj_fs_ident(int fd, char *out, size_t sz)
{
	struct statfs sf;
	struct stat st;

	if (!fstatfs(fd, &sf) && (sf.f_fsid.__val[0] || sf.f_fsid.__val[1]))
		snprintf(out, sz, "fsid:%08x%08x", (unsigned int)sf.f_fsid.__val[0],
			 (unsigned int)sf.f_fsid.__val[1]);
	else if (!fstat(fd, &st))
		snprintf(out, sz, "dev:%u:%u", major(st.st_dev), minor(st.st_dev));
	else
		snprintf(out, sz, "?");
}

int vbj_fs_id(struct vbj_store *s, const char *uuid, const char *mount,
	      const char *ident, int64_t *id)
{
	sqlite3_stmt *st;
	int ret;

	ret = vbj_run(s, "INSERT OR IGNORE INTO filesystems(uuid, mount) "
		      "VALUES(?, ?)", "tt", uuid, mount);
	if (!ret)
		ret = vbj_run(s, "UPDATE filesystems SET mount = ?, ident = ? "
			      "WHERE uuid = ?", "ttt", mount, ident, uuid);
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

/* Drops every epoch before keep, with what it holds. */
static int drop_before(struct vbj_store *s, int64_t keep)
{
	int ret = vbj_run(s, "DELETE FROM changes WHERE epoch < ?", "i", keep);

	if (!ret)
		ret = vbj_run(s, "DELETE FROM moves WHERE epoch < ?", "i", keep);
	if (!ret)
		ret = vbj_run(s, "DELETE FROM gaps WHERE epoch < ?", "i", keep);
	if (!ret)
		ret = vbj_run(s, "DELETE FROM objects WHERE epoch < ?", "i", keep);
	if (!ret)
		ret = vbj_run(s, "DELETE FROM epochs WHERE epoch < ?", "i", keep);
	return ret;
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
	/*
	 * where files' names are (their hard links' directories) is still
	 * needed by a later change of them, whatever was acked: only the
	 * size cap drops the oldest of it
	 */
	ret = vbj_run(s, "DELETE FROM object_dirs WHERE epoch < (SELECT epoch "
		      "FROM object_dirs ORDER BY epoch DESC LIMIT 1 OFFSET ?)",
		      "i", max_changes > 0 ? max_changes - 1 : 0);
	if (ret)
		return ret;
	if (keep <= vbj_first_epoch(s))
		return vbj_first_epoch(s);
	ret = drop_before(s, keep);
	return ret ? ret : keep;
}

/* The bytes of journal.db's pages in use (its free pages not counted). */
static int64_t used_bytes(struct vbj_store *s)
{
	return vbj_int(s, "SELECT (page_count - freelist_count) * page_size "
		       "FROM pragma_page_count(), pragma_freelist_count(), "
		       "pragma_page_size()", 0);
}

int64_t vbj_trim_bytes(struct vbj_store *s, int64_t max_bytes)
{
	int64_t closed = vbj_last_closed(s), first = vbj_first_epoch(s);
	int ret;

	while (first < closed && used_bytes(s) > max_bytes) {
		/* a size cap: where files' names are goes too */
		ret = vbj_run(s, "DELETE FROM object_dirs WHERE epoch <= ?",
			      "i", first);
		if (!ret)
			ret = drop_before(s, first + 1);
		if (ret)
			return ret;
		first = vbj_first_epoch(s);
	}
	return s->err ? -EIO : first;
}

int vbj_compact(struct vbj_store *s)
{
	int ret = vbj_exec(s, "PRAGMA incremental_vacuum");

	/* the WAL back to nothing: what the trim freed leaves the disk */
	if (!ret)
		ret = vbj_exec(s, "PRAGMA wal_checkpoint(TRUNCATE)");
	return ret;
}

int vbj_change_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		   const void *handle, int len)
{
	return vbj_run(s, "INSERT OR IGNORE INTO changes(epoch, fs, handle) "
		       "VALUES(?, ?, ?)", "iib", epoch, fs, handle, len);
}

int vbj_open_dirs(struct vbj_store *s,
		  int (*fn)(void *arg, int64_t epoch, int64_t fs,
			    const void *handle, int len),
		  void *arg)
{
	static const char sql[] =
		"SELECT c.epoch, c.fs, c.handle FROM changes c JOIN epochs e "
		"ON e.epoch = c.epoch WHERE e.state = 0 ORDER BY c.epoch";
	sqlite3_stmt *st;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return vbj_fail(s, sql);
	while (!ret && (rc = sqlite3_step(st)) == SQLITE_ROW)
		ret = fn(arg, sqlite3_column_int64(st, 0),
			 sqlite3_column_int64(st, 1),
			 sqlite3_column_blob(st, 2),
			 sqlite3_column_bytes(st, 2));
	if (!ret && rc != SQLITE_DONE)
		ret = vbj_fail(s, sql);
	sqlite3_finalize(st);
	return ret;
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

int vbj_object_dir_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		       const void *handle, int len, const void *dir, int dlen)
{
	return vbj_run(s, "INSERT INTO object_dirs(fs, handle, dir, epoch) "
		       "VALUES(?, ?, ?, ?) ON CONFLICT DO UPDATE SET epoch = "
		       "max(epoch, excluded.epoch)", "ibbi", fs, handle, len, dir,
		       dlen, epoch);
}

int vbj_object_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		   const void *handle, int len, uint64_t ino, uint32_t gen,
		   const void *dir, int dlen)
{
	int ret;

	ret = vbj_run(s, "INSERT OR IGNORE INTO objects(epoch, fs, handle, ino, "
		      "generation) VALUES(?, ?, ?, ?, ?)", "iibii", epoch, fs,
		      handle, len, (int64_t)ino, (int64_t)gen);
	if (!ret && dlen > 0)
		ret = vbj_object_dir_add(s, epoch, fs, handle, len, dir, dlen);
	return ret;
}
