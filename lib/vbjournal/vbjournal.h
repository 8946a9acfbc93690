/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libvbjournal: what a consumer links to ask vbjournald's change journal
 * "what may have changed since cursor C" (libvbjournal(3)).
 *
 * ABI: the soname is libvbjournal.so.1 and every function below carries
 * the symbol version VBJOURNAL_1.0, but those marked with a later one
 * (libvbjournal.map). Within soname 1 functions are only added (under a
 * new symbol version), never changed or removed. The structures are
 * allocated by the library and handed out by pointer: never allocate,
 * copy or embed one; fields are only appended.
 *
 * Errors: a function that can fail returns a negative errno value and
 * leaves a one-line reason for vbjournal_errmsg(). The journal's SQLite
 * schema is private to the library.
 */
#ifndef VBJOURNAL_H
#define VBJOURNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* This header's version of the API (1.0 = 0x10000, 1.1 = 0x10100). */
#define VBJOURNAL_API_VERSION	0x10100
/* Where vbjournald keeps its journal by default. */
#define VBJOURNAL_DEFAULT_DIR	"/var/lib/vbjournal"
/* Room for any cursor ("JOURNAL-ID:EPOCH") with its NUL. */
#define VBJOURNAL_CURSOR_MAX	40

struct vbjournal;
struct vbjournal_changes;

/* The library's release (e.g. "0.3.0"). */
const char *vbjournal_version(void);

/* vbjournal_open() flags: also register, ack and unregister consumers. */
#define VBJOURNAL_OPEN_WRITE	0x1u

/*
 * Opens the journal in dir (read-only unless VBJOURNAL_OPEN_WRITE).
 * 0, or -errno with *jp still set (NULL only for -ENOMEM) so that
 * vbjournal_errmsg() says why: -ENOENT no journal there, -EACCES
 * permission denied, -EMEDIUMTYPE an SQLite database but not a journal,
 * -ENODATA journal.db is empty, -EBADMSG truncated, -EUCLEAN corrupt,
 * -EINVAL unknown flags, -EIO anything else. vbjournal_close() it
 * either way.
 */
int vbjournal_open(struct vbjournal **jp, const char *dir, unsigned int flags);
void vbjournal_close(struct vbjournal *j);
/* The last failure's reason, one line ("" when none). */
const char *vbjournal_errmsg(const struct vbjournal *j);

/* The journal's id: the first half of each of its cursors. */
uint64_t vbjournal_id(const struct vbjournal *j);
/*
 * A cursor's parts: 1 to 16 hexadecimal digits, ':', the epoch in
 * decimal. 0 or -EINVAL.
 */
int vbjournal_parse_cursor(const char *cursor, uint64_t *journal_id,
			   int64_t *epoch);
/*
 * The current cursor (that of the last closed epoch) into buf. 0,
 * -ENOSPC when size is less than VBJOURNAL_CURSOR_MAX, -errno.
 */
int vbjournal_cursor(struct vbjournal *j, char *buf, size_t size);
/*
 * Asks the daemon (the process holding the journal's lock) to close the
 * epoch, waits up to timeout_ms for it, and gives the new cursor. 0,
 * -ESRCH the daemon is not running, -EXDEV it runs in another pid
 * namespace, -ETIMEDOUT, -EPERM, -EINVAL timeout_ms < 0, -errno.
 */
int vbjournal_checkpoint(struct vbjournal *j, int timeout_ms, char *buf,
			 size_t size);

/* ---- Changes since a cursor ---- */

enum vbjournal_kind {
	VBJOURNAL_DIR = 1,	/* re-read this directory's entries */
	VBJOURNAL_MOVED = 2,	/* a directory renamed: re-read its subtree */
	VBJOURNAL_FILE = 3,	/* a file its directory may not lead to */
	VBJOURNAL_RESCAN = 4,	/* a gap: rescan what scope says */
};

enum vbjournal_path_source {
	VBJOURNAL_PATH_NONE = 0,	/* no path known: the handle only */
	VBJOURNAL_PATH_HANDLE = 1,	/* the handle, opened when asked */
	VBJOURNAL_PATH_STORED = 2,	/* the path the daemon stored */
};

/* One entry of an answer; valid until the next call on its iterator. */
struct vbjournal_entry {
	int kind;			/* enum vbjournal_kind */
	/* DIR, MOVED: its path (NULL: none); RESCAN: the scope's path
	   (NULL: none known). Any bytes but NUL, not always UTF-8. */
	const char *path;
	size_t path_len;
	int path_source;		/* DIR, MOVED: enum vbjournal_path_source */
	int gone;			/* DIR, MOVED, FILE: no longer exists */
	int64_t fs;			/* DIR, MOVED, FILE: the filesystem's number */
	/* DIR, MOVED, FILE: the object's file handle as the journal keeps
	   it (struct file_handle bytes); FILE: NULL when it has none */
	const unsigned char *handle;
	size_t handle_len;
	/* FILE */
	uint64_t ino;
	uint32_t generation;
	int64_t nlink;			/* -1: not known (why says why) */
	const char *const *names;	/* its names found, sorted */
	size_t nnames;
	int names_complete;		/* every name found (or it is gone) */
	const char *why;		/* nlink -1: why; else NULL */
	/* RESCAN */
	const char *scope;		/* "fs" or "dir" */
	const char *reason;		/* vbjournal(1), GAPS */
};

/* vbjournal_changes() flags: only the epoch after the cursor. */
#define VBJOURNAL_CHANGES_ONE_EPOCH	0x1u

/*
 * What may have changed after the cursor since, in the epochs closed
 * now: an iterator yielding every DIR entry, then MOVED, FILE and
 * RESCAN. under (NULL: everything) keeps what is under that path as
 * vbjournal(1) --under does. 0, or -EINVAL since is not a cursor or
 * unknown flags; -ESTALE the journal cannot answer from it: full rescan
 * required (another journal's, trimmed, ahead; errmsg says which);
 * -EXDEV under is not inside a journaled filesystem; -EAGAIN with
 * ONE_EPOCH, no epoch has closed after since yet; -errno.
 */
int vbjournal_changes(struct vbjournal *j, const char *since,
		      const char *under, unsigned int flags,
		      struct vbjournal_changes **itp);
/* 1 with *ep the next entry, 0 at the end, -errno. */
int vbjournal_changes_next(struct vbjournal_changes *it,
			   const struct vbjournal_entry **ep);
/* The cursor to ask from next time (that of the answer's last epoch). */
const char *vbjournal_changes_cursor(const struct vbjournal_changes *it);
void vbjournal_changes_free(struct vbjournal_changes *it);

/*
 * Following: a descriptor (owned by j) that poll() reports readable
 * when the journal may have changed; then vbjournal_process() and ask
 * again. It may wake with nothing new. -errno when it cannot be made.
 */
int vbjournal_fd(struct vbjournal *j);
/* Drains the descriptor: 1 the journal was written, 0 not, -errno. */
int vbjournal_process(struct vbjournal *j);

/* ---- Named consumers (the journal keeps what they have not acked) ---- */

/* From the current cursor, given in buf. -EEXIST, -EACCES read-only. */
int vbjournal_register(struct vbjournal *j, const char *name, char *buf,
		       size_t size);

/* vbjournal_register_at() flags: one registered already is moved there. */
#define VBJOURNAL_REGISTER_MOVE	0x1u

/*
 * VBJOURNAL_1.1. Registers name at cursor (NULL: the current cursor),
 * checked and set in one transaction, so that from its return the
 * journal keeps every epoch after it; the cursor registered into buf
 * (NULL: not wanted; else size at least VBJOURNAL_CURSOR_MAX). With
 * VBJOURNAL_REGISTER_MOVE a consumer of that name is moved to it,
 * forwards or back (a consumer whose own copy went back to an older
 * cursor). 0; -EEXIST registered already (without MOVE); -ESTALE the
 * journal cannot answer from that cursor (another journal's, trimmed,
 * ahead); -ERANGE a cursor after the current one; -EINVAL not a cursor
 * or unknown flags; -ENOSPC; -EACCES read-only; -errno.
 */
int vbjournal_register_at(struct vbjournal *j, const char *name,
			  const char *cursor, unsigned int flags, char *buf,
			  size_t size);

/*
 * The consumer has processed everything up to cursor. -ENOENT not
 * registered; -ESTALE the journal cannot answer from that cursor;
 * -ERANGE a cursor before the consumer's or after the current one.
 */
int vbjournal_ack(struct vbjournal *j, const char *name, const char *cursor);
/* Its epochs are no longer kept for it. -ENOENT not registered. */
int vbjournal_unregister(struct vbjournal *j, const char *name);
/* Its cursor. -ENOENT not registered. */
int vbjournal_consumer_cursor(struct vbjournal *j, const char *name,
			      char *buf, size_t size);

struct vbjournal_consumer {
	const char *name;
	const char *cursor;
	int64_t epoch;			/* the last it acked */
	int64_t lag;			/* closed epochs after it */
	int rescan_required;		/* trimmed past it by the size cap */
};

/*
 * Every consumer, by name: *listp a NULL-terminated array, freed with
 * vbjournal_consumers_free(). The count, or -errno.
 */
int vbjournal_consumers(struct vbjournal *j,
			struct vbjournal_consumer ***listp);
void vbjournal_consumers_free(struct vbjournal_consumer **list);

/* ---- Status ---- */

struct vbjournal_fs {
	int64_t fs;
	const char *uuid;		/* NULL: none stored */
	const char *mount;		/* NULL: none stored */
};

struct vbjournal_status {
	const char *journal_id;		/* 16 hex digits */
	int64_t epoch;			/* the highest (open) */
	int64_t last_closed;
	int64_t first_epoch;		/* the first kept */
	/* "running", "stopped", "not running", "never started" */
	const char *daemon;
	int64_t pid;			/* running: its pid (0: not visible) */
	const struct vbjournal_fs *const *filesystems;	/* NULL-terminated */
	size_t nfilesystems;
	int64_t db_bytes, wal_bytes, shm_bytes, size_bytes;
	int64_t directory_rows, gaps;
	int session_ran;		/* a daemon session has begun once */
	int64_t session_seconds;
	uint64_t intents, records, acks, ack_ns_sum, ack_ns_max;
	uint64_t unacked_changes;
	int64_t consumers, largest_lag;
};

int vbjournal_status(struct vbjournal *j, struct vbjournal_status **stp);
void vbjournal_status_free(struct vbjournal_status *st);

#ifdef __cplusplus
}
#endif

#endif /* VBJOURNAL_H */
