// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libvbjournal: named consumers (vbjournal.h). The journal keeps the
 * epochs a registered consumer has not acked yet, up to vbjournald's
 * size cap; a consumer left behind by the cap is told "rescan
 * required", never given a wrong answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A named consumer's epoch: 0, -ENOENT, or the journal's -errno. */
static int consumer_epoch(struct vbjournal *j, const char *name,
			  int64_t *epoch)
{
	sqlite3_stmt *st;
	int ret = -ENOENT, rc;

	if (sqlite3_prepare_v2(j->s.db, "SELECT epoch FROM consumers WHERE "
			       "name = ?", -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(&j->s, "consumers");
		return vbj_errno(j);
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*epoch = sqlite3_column_int64(st, 0);
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		vbj_fail(&j->s, "consumers");
		ret = vbj_errno(j);
	}
	sqlite3_finalize(st);
	if (ret == -ENOENT)
		vbj_error(j, ENOENT, "consumer %s: not registered", name);
	return ret;
}

/* Adds (create) or moves a consumer: 0, -EEXIST, -ENOENT, -errno. */
static int set_consumer(struct vbjournal *j, const char *name, int64_t epoch,
			bool create)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(j->s.db, create ?
			       "INSERT INTO consumers(epoch, name) VALUES(?, ?)" :
			       "UPDATE consumers SET epoch = ? WHERE name = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(&j->s, "consumers");
		return vbj_errno(j);
	}
	sqlite3_bind_int64(st, 1, epoch);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT)
		vbj_fail(&j->s, create ? "registering" : "acknowledging");
	sqlite3_finalize(st);
	if (j->s.err)
		return vbj_errno(j);
	if (rc != SQLITE_DONE || !sqlite3_changes(j->s.db))
		return create ?
		       vbj_error(j, EEXIST, "consumer %s: exists already", name) :
		       vbj_error(j, ENOENT, "consumer %s: not registered", name);
	return 0;
}

/*
 * register_at()'s work inside its transaction: the epoch to register at
 * (cursor, or the last closed when NULL), checked, then the consumer
 * added or (move) set there.
 */
static int register_in(struct vbjournal *j, const char *name,
		       const char *cursor, bool move, int64_t *epoch)
{
	int64_t closed, old;
	int ret;

	closed = vbj_last_closed(&j->s);
	if (j->s.err)
		return vbj_errno(j);
	*epoch = closed;
	if (cursor) {
		ret = vbj_check_cursor(j, cursor, epoch);
		if (ret)
			return ret;
		if (*epoch > closed)
			return vbj_error(j, ERANGE, "%s: after the current "
					 "cursor", cursor);
	}
	if (!move)
		return set_consumer(j, name, *epoch, true);
	ret = consumer_epoch(j, name, &old);
	if (ret && ret != -ENOENT)
		return ret;
	vbj_reset(j);
	return set_consumer(j, name, *epoch, ret == -ENOENT);
}

VBJ_EXPORT int vbjournal_register_at(struct vbjournal *j, const char *name,
				     const char *cursor, unsigned int flags,
				     char *buf, size_t size)
{
	int64_t e;
	int ret;

	vbj_reset(j);
	if (flags & ~VBJOURNAL_REGISTER_MOVE)
		return vbj_error(j, EINVAL, "unknown flags 0x%x", flags);
	if (buf && size < VBJOURNAL_CURSOR_MAX)
		return vbj_format_cursor(j, 0, buf, size);
	/*
	 * the check and the row in one transaction: no trim comes between
	 * (vbjournald's trims keep what the consumers' rows ask for)
	 */
	if (sqlite3_exec(j->s.db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		vbj_fail(&j->s, "registering");
		return vbj_errno(j);
	}
	ret = register_in(j, name, cursor, flags & VBJOURNAL_REGISTER_MOVE, &e);
	if (!ret && sqlite3_exec(j->s.db, "COMMIT", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		vbj_fail(&j->s, "registering");
		ret = vbj_errno(j);
	}
	if (ret && !sqlite3_get_autocommit(j->s.db)) {
		/* the failure's reason, not the rollback's */
		sqlite3_exec(j->s.db, "ROLLBACK", NULL, NULL, NULL);
	}
	if (ret || !buf)
		return ret;
	return vbj_format_cursor(j, e, buf, size);
}

VBJ_EXPORT int vbjournal_register(struct vbjournal *j, const char *name,
				  char *buf, size_t size)
{
	return vbjournal_register_at(j, name, NULL, 0, buf, size);
}

VBJ_EXPORT int vbjournal_unregister(struct vbjournal *j, const char *name)
{
	sqlite3_stmt *st;
	int rc;

	vbj_reset(j);
	if (sqlite3_prepare_v2(j->s.db, "DELETE FROM consumers WHERE name = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(&j->s, "unregistering");
		return vbj_errno(j);
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		vbj_fail(&j->s, "unregistering");
		return vbj_errno(j);
	}
	if (!sqlite3_changes(j->s.db))
		return vbj_error(j, ENOENT, "consumer %s: not registered", name);
	return 0;
}

VBJ_EXPORT int vbjournal_ack(struct vbjournal *j, const char *name,
			     const char *cursor)
{
	int64_t e, old, closed;
	int ret;

	vbj_reset(j);
	ret = vbj_check_cursor(j, cursor, &e);
	if (!ret)
		ret = consumer_epoch(j, name, &old);
	if (ret)
		return ret;
	closed = vbj_last_closed(&j->s);
	if (j->s.err)
		return vbj_errno(j);
	if (e > closed || e < old)
		return vbj_error(j, ERANGE, "%s: not a cursor vbjournal changes "
				 "gave after %" PRId64, cursor, old);
	return set_consumer(j, name, e, false);
}

VBJ_EXPORT int vbjournal_consumer_cursor(struct vbjournal *j, const char *name,
					 char *buf, size_t size)
{
	int64_t e;
	int ret;

	vbj_reset(j);
	ret = consumer_epoch(j, name, &e);
	return ret ? ret : vbj_format_cursor(j, e, buf, size);
}

VBJ_EXPORT void vbjournal_consumers_free(struct vbjournal_consumer **list)
{
	size_t i;

	for (i = 0; list && list[i]; i++) {
		free((char *)list[i]->name);
		free(list[i]);
	}
	free(list);
}

VBJ_EXPORT int vbjournal_consumers(struct vbjournal *j,
				   struct vbjournal_consumer ***listp)
{
	int64_t closed, first;
	struct vbjournal_consumer **list;
	sqlite3_stmt *st;
	int rc, n = 0;

	vbj_reset(j);
	*listp = NULL;
	closed = vbj_last_closed(&j->s);
	first = vbj_first_epoch(&j->s);
	if (j->s.err)
		return vbj_errno(j);
	list = calloc(1, sizeof(*list));
	if (!list)
		return vbj_error(j, ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(j->s.db, "SELECT name, epoch FROM consumers "
			       "ORDER BY name", -1, &st, NULL) != SQLITE_OK) {
		free(list);
		vbj_fail(&j->s, "consumers");
		return vbj_errno(j);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		struct vbjournal_consumer *c, **p;
		/* the name and the cursor in one allocation */
		size_t len = strlen(name ? name : "") + 1;
		char *mem;

		p = realloc(list, (n + 2) * sizeof(*p));
		if (!p)
			break;
		list = p;
		c = calloc(1, sizeof(*c));
		mem = malloc(len + VBJOURNAL_CURSOR_MAX);
		if (!c || !mem) {
			free(c);
			free(mem);
			break;
		}
		memcpy(mem, name ? name : "", len);
		c->name = mem;
		c->epoch = sqlite3_column_int64(st, 1);
		c->lag = closed - c->epoch;
		c->rescan_required = c->epoch + 1 < first;
		vbj_format_cursor(j, c->epoch, mem + len, VBJOURNAL_CURSOR_MAX);
		c->cursor = mem + len;
		list[n++] = c;
		list[n] = NULL;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		vbj_fail(&j->s, "consumers");
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW) {
		vbjournal_consumers_free(list);
		return vbj_error(j, ENOMEM, "out of memory");
	}
	if (rc != SQLITE_DONE) {
		vbjournal_consumers_free(list);
		return vbj_errno(j);
	}
	*listp = list;
	return n;
}
