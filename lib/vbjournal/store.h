/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The change journal on disk (store.c): an SQLite database in WAL mode
 * with synchronous=FULL, so a COMMIT that returned is on stable storage.
 *
 * Journal epochs number the journal's whole life; each daemon session
 * maps the module's epochs (1, 2, ... per subscription) onto them from
 * its base. An epoch is open (0), durable (1: its checkpoint and syncfs
 * completed) or recovered (2: left open by a session that ended, so
 * every change in it has ended too). A cursor is "<journal id>:<epoch>":
 * every change of epochs up to that one has been seen.
 */
#ifndef VBJ_STORE_H
#define VBJ_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#define VBJ_DB_NAME	"journal.db"
/*
 * PRAGMA user_version: 0 had no object entries; 1 has objects and
 * object_dirs. The daemon's open brings an older journal up to date
 * and refuses a newer one; queries read any (an older one has no
 * object entries).
 */
#define VBJ_SCHEMA_VERSION	1

/* How many statements a connection keeps prepared (store.c). */
#define VBJ_STMTS	32

enum vbj_epoch_state { VBJ_OPEN = 0, VBJ_DURABLE = 1, VBJ_RECOVERED = 2 };

/* How the journal is opened: queries read only, and never write. */
enum vbj_mode {
	VBJ_READ,		/* SQLITE_OPEN_READONLY: a read-only copy too */
	VBJ_WRITE,		/* the consumers table (register, ack) */
	VBJ_CREATE,		/* the daemon: made when missing or empty */
};

/*
 * Why the journal cannot be used (vbj_open()), or why a query failed:
 * the numbers are vbjournal's exit statuses (vbjournal(1)).
 */
enum vbj_err {
	VBJ_OK = 0,
	VBJ_E_FAILED = 1,	/* SQLite or the system said no: see why */
	VBJ_E_MISSING = 4,	/* no directory, or no journal.db in it */
	VBJ_E_ACCESS = 5,	/* permission denied */
	VBJ_E_FOREIGN = 6,	/* an SQLite database, not a journal */
	VBJ_E_EMPTY = 7,	/* journal.db of zero length */
	VBJ_E_TRUNCATED = 8,	/* shorter than its own header says */
	VBJ_E_CORRUPT = 9,	/* not a database, or malformed */
};

struct vbj_store {
	sqlite3 *db;
	uint64_t journal_id;
	int version;		/* the journal's schema (VBJ_SCHEMA_VERSION) */
	char path[4096];	/* of journal.db */
	/* the first failure (vbj_open(), vbj_int(), vbj_fail()) */
	enum vbj_err err;
	bool full;		/* that first failure: the disk was full */
	char why[4096 + 1024];
	bool log;		/* also print each failure on stderr (daemon) */
	/* with log: prints one failure's line instead (NULL: stderr) */
	void (*log_line)(const char *line);
	/* statements kept prepared (store.c, vbj_prepared()) */
	int nstmts;
	struct {
		const char *sql;
		sqlite3_stmt *st;
	} stmts[VBJ_STMTS];
};

/*
 * Opens the journal in dir. 0, or an enum vbj_err with s->why saying
 * what is wrong in one line (for "PROG: WHY").
 */
int vbj_open(struct vbj_store *s, const char *dir, enum vbj_mode mode);
void vbj_close(struct vbj_store *s);

/*
 * Records that what (e.g. "reading the changes") failed with the
 * connection's last SQLite error, unless a failure is recorded already:
 * s->why is "JOURNAL.DB: WHAT: SQLITE'S MESSAGE". With s->log, each
 * failure is printed on stderr as it happens. Returns s->err.
 */
int vbj_fail(struct vbj_store *s, const char *what);

int vbj_begin(struct vbj_store *s);
/* COMMIT: durable when it returns 0. */
int vbj_commit(struct vbj_store *s);
int vbj_exec(struct vbj_store *s, const char *sql);

/*
 * Whether the last failure was the journal's filesystem full (SQLite's
 * SQLITE_FULL, or ENOSPC/EDQUOT underneath): a state to wait out, not
 * an error to stop on. Asked before a ROLLBACK, which clears it.
 */
bool vbj_disk_full(struct vbj_store *s);
/* The last failure: another connection kept the write lock (SQLITE_BUSY). */
bool vbj_busy(struct vbj_store *s);

/* The first column of sql's first row, dflt when none or NULL (or on
   an error, which vbj_fail() records). */
int64_t vbj_int(struct vbj_store *s, const char *sql, int64_t dflt);

/* meta key/value; get: 0, -ENOENT. */
int vbj_meta_set(struct vbj_store *s, const char *key, const char *val);
int vbj_meta_get(struct vbj_store *s, const char *key, char *val, int sz);

/*
 * The filesystem's row id by its UUID (hex), added if new; its mount
 * point and ident (vbj_fs_ident()) set to these.
 */
int vbj_fs_id(struct vbj_store *s, const char *uuid, const char *mount,
	      const char *ident, int64_t *id);
/*
 * What tells the filesystem of fd from another mounted at the same
 * place: "fsid:HEX" (statfs()'s f_fsid, from the UUID on ext4 and
 * others), else "dev:MAJOR:MINOR". vbjournal opens handles on a mount
 * point only when it still has the ident the daemon saw.
 */
void vbj_fs_ident(int fd, char *out, size_t sz);

/* The highest epoch there is (0: none). */
int64_t vbj_last_epoch(struct vbj_store *s);
/* The highest epoch not open, i.e. whose changes have all ended. */
int64_t vbj_last_closed(struct vbj_store *s);
/* The lowest epoch still held (trimmed below it), 1 when none was. */
int64_t vbj_first_epoch(struct vbj_store *s);
int vbj_epoch_add(struct vbj_store *s, int64_t epoch);
/* Every open epoch up to upto gets state. */
int vbj_epochs_close(struct vbj_store *s, int64_t upto, int state);

/*
 * Drops the epochs every named consumer has acked and, beyond
 * max_changes rows, the oldest ones anyway (a consumer behind them
 * then gets "full rescan required", never a wrong answer). Keeps the
 * last closed epoch. The directories known to hold files' names
 * (object_dirs) outlive the epochs that learned them: only the newest
 * max_changes are kept. Returns the first epoch kept, or -errno.
 */
int64_t vbj_trim(struct vbj_store *s, int64_t max_changes);

/*
 * The byte cap: while journal.db's pages in use exceed max_bytes, drops
 * the oldest epoch (with its object_dirs), whoever has not acked it;
 * keeps the last closed epoch. Returns the first epoch kept, or -errno.
 */
int64_t vbj_trim_bytes(struct vbj_store *s, int64_t max_bytes);

/*
 * After a trim, outside a transaction: gives the freed pages back to
 * the filesystem (incremental vacuum; journals created before this
 * version reuse them instead) and truncates the WAL. 0 or -errno.
 */
int vbj_compact(struct vbj_store *s);

/* A directory (by handle) that may have changed in epoch. */
int vbj_change_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		   const void *handle, int len);
/* A directory (by handle) renamed in epoch: its subtree counts as changed. */
/*
 * fn for each directory of an epoch not closed yet (its key, as
 * vbj_change_add() stored it), until fn returns non-zero: that, else 0
 * or a store error.
 */
int vbj_open_dirs(struct vbj_store *s,
		  int (*fn)(void *arg, int64_t epoch, int64_t fs,
			    const void *handle, int len),
		  void *arg);
int vbj_move_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		 const void *handle, int len);
/*
 * A file changed in epoch whose names its record's directory dir (a
 * handle or "ino:N:G" key, dlen 0: none) may not lead to
 * (VFSB_RECF_LINKS): by handle (or "ino:N:G"), inode and generation.
 */
int vbj_object_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		   const void *handle, int len, uint64_t ino, uint32_t gen,
		   const void *dir, int dlen);
/* dir holds a name of the object (a hard link made there, say). */
int vbj_object_dir_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		       const void *handle, int len, const void *dir, int dlen);
/* A gap: scope "fs" (the whole filesystem) or "dir" (path). */
int vbj_gap_add(struct vbj_store *s, int64_t epoch, int64_t fs,
		const char *scope, const char *reason, const char *path);

#endif /* VBJ_STORE_H */
