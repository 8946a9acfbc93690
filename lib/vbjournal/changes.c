// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libvbjournal: what may have changed since a cursor (vbjournal.h).
 *
 * The answer comes only from epochs whose changes have all ended
 * (closed by a checkpoint, or recovered after the session that had them
 * open ended): nothing it names is still being written. Its entries, in
 * this order: the directories that may have changed (DIR), those
 * renamed, whose subtree counts as changed (MOVED), the files their
 * directory alone may not lead to (FILE), the rescans the journal's
 * gaps require (RESCAN). Paths are the tree's now, from the handles
 * (resolve.h); the stored ones are the fallback, said as such.
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

#include "internal.h"
#include "resolve.h"

/*
 * under's path as the journal stores paths (the daemon resolves them
 * from handles: absolute, symlinks resolved, no "." or "..", no
 * trailing slash), into out (PATH_MAX). What exists is resolved by
 * realpath(); the rest of it, a directory since deleted that the
 * journal may still name, is appended ("." dropped, ".." taken off).
 * The existing part's path in *exists. 0, or -errno of what failed.
 */
static int canonical_path(const char *arg, char *out, char *exists)
{
	char abs[PATH_MAX], head[PATH_MAX], *slash, *rest, *comp, *save;
	size_t len;

	if (arg[0] == '/') {
		if (snprintf(abs, sizeof(abs), "%s", arg) >= (int)sizeof(abs))
			return -ENAMETOOLONG;
	} else {
		if (!getcwd(head, sizeof(head)))
			return -errno;
		if (snprintf(abs, sizeof(abs), "%s/%s", head, arg) >=
		    (int)sizeof(abs))
			return -ENAMETOOLONG;
	}
	/* the longest leading part that exists */
	snprintf(head, sizeof(head), "%s", abs);
	rest = NULL;
	while (!realpath(head, out)) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		slash = strrchr(head, '/');
		if (!slash)
			return -ENOENT;
		/* abs keeps the rest after the same offset */
		rest = abs + (slash - head) + 1;
		if (slash == head)
			slash[1] = 0;
		else
			*slash = 0;
	}
	snprintf(exists, PATH_MAX, "%s", out);
	for (comp = rest ? strtok_r(rest, "/", &save) : NULL; comp;
	     comp = strtok_r(NULL, "/", &save)) {
		if (!strcmp(comp, "."))
			continue;
		len = strlen(out);
		if (!strcmp(comp, "..")) {
			slash = strrchr(out, '/');
			if (slash == out)
				out[1] = 0;
			else if (slash)
				*slash = 0;
			continue;
		}
		if (snprintf(out + len, PATH_MAX - len, "%s%s",
			     len > 1 ? "/" : "", comp) >= (int)(PATH_MAX - len))
			return -ENAMETOOLONG;
	}
	return 0;
}

/* Whether path is dir or under it (both canonical). */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/*
 * Whether the canonical path (whose existing part is exists) is inside
 * a filesystem the journal keeps, or holds one: on the device of one's
 * --fs path, under that path, or above it. *names: those paths, for
 * the message. 1 yes, 0 no, -EIO.
 */
static int under_journaled(struct vbj_store *s, const char *path,
			   const char *exists, char *names, size_t sz)
{
	struct stat ps, ms;
	sqlite3_stmt *st;
	bool have_dev = !stat(exists, &ps);
	int ret = 0, rc;
	size_t n = 0;

	names[0] = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT mount FROM filesystems ORDER BY fs",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *m = (const char *)sqlite3_column_text(st, 0);
		char canon[PATH_MAX];

		if (!m)
			continue;
		if (!realpath(m, canon))
			snprintf(canon, sizeof(canon), "%s", m);
		if (path_within(path, canon) || path_within(canon, path) ||
		    (have_dev && !stat(canon, &ms) && ms.st_dev == ps.st_dev))
			ret = 1;
		if (n < sz)
			n += snprintf(names + n, sz - n, "%s%s", n ? ", " : "", m);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -EIO;
	if (!names[0])
		snprintf(names, sz, "none");
	return ret;
}

/*
 * j->under for the path under (the last one asked is kept: a follower
 * asks again and again). 0, -EINVAL it cannot be resolved, -EXDEV not
 * inside a journaled filesystem (errmsg: why, without the path), or
 * the journal's -errno.
 */
static int set_under(struct vbjournal *j, const char *under)
{
	char exists[PATH_MAX], names[512];
	int ret;

	if (j->under_arg && !strcmp(j->under_arg, under))
		return 0;
	free(j->under_arg);
	j->under_arg = NULL;
	ret = canonical_path(under, j->under, exists);
	if (ret)
		return vbj_error(j, EINVAL, "%s", strerror(-ret));
	ret = under_journaled(&j->s, j->under, exists, names, sizeof(names));
	if (ret < 0) {
		vbj_fail(&j->s, "filesystems");
		return vbj_errno(j);
	}
	if (!ret)
		return vbj_error(j, EXDEV, "not inside a journaled filesystem "
				 "(the journal keeps: %s)", names);
	/* everything: no range to keep */
	j->under_all = !strcmp(j->under, "/");
	j->under_arg = strdup(under);
	return j->under_arg ? 0 : vbj_error(j, ENOMEM, "out of memory");
}

/*
 * ---- Object ("file") entries ----
 *
 * A file the module announced with VFSB_RECF_LINKS: its record's
 * directory may not lead to its names. Its names are looked for when
 * asked, by inode, in the directories the journal knows for it (its
 * records' parents, its hard links' directories) and, when that leaves
 * some unfound, in the answer's changed directories of its filesystem.
 */
struct fobj {
	int64_t fs;
	unsigned char key[256];
	int len;
	uint64_t ino;
	uint32_t gen;
	long long nlink;	/* -1: not known (why: err) */
	dev_t dev;
	bool have_dev, gone;
	int err;
	char **names;
	int nnames;
};

struct fset {
	struct fobj *o;
	int n;
};

static void fset_free(struct fset *f)
{
	int i, k;

	for (i = 0; i < f->n; i++) {
		for (k = 0; k < f->o[i].nnames; k++)
			free(f->o[i].names[k]);
		free(f->o[i].names);
	}
	free(f->o);
	f->o = NULL;
	f->n = 0;
}

static bool fobj_complete(const struct fobj *o)
{
	return o->gone || (o->nlink >= 0 && o->nnames >= o->nlink);
}

static int fobj_cmp(const void *a, const void *b)
{
	const struct fobj *x = a, *y = b;

	if (x->fs != y->fs)
		return x->fs < y->fs ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The objects of epochs (from, to], each opened for its link count. */
static int load_files(struct vbj_store *s, struct vbj_resolver *r,
		      int64_t from, int64_t to, struct fset *f)
{
	sqlite3_stmt *st;
	int rc, cap = 0;

	if (s->version < 1)
		return 0;
	if (sqlite3_prepare_v2(s->db, "SELECT fs, handle, max(ino), "
			       "max(generation) FROM objects WHERE epoch > ? "
			       "AND epoch <= ? GROUP BY fs, handle", -1, &st,
			       NULL) != SQLITE_OK)
		return vbj_fail(s, "objects");
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct fobj *o;
		struct stat sb;
		int fd, len = sqlite3_column_bytes(st, 1);

		if (len > (int)sizeof(o->key))
			continue;
		if (f->n == cap) {
			void *p = realloc(f->o, (cap = cap ? 2 * cap : 16) *
					  sizeof(*f->o));

			if (!p) {
				sqlite3_finalize(st);
				return vbj_fail(s, "objects: out of memory");
			}
			f->o = p;
		}
		o = &f->o[f->n++];
		memset(o, 0, sizeof(*o));
		o->fs = sqlite3_column_int64(st, 0);
		memcpy(o->key, sqlite3_column_blob(st, 1), len);
		o->len = len;
		o->ino = sqlite3_column_int64(st, 2);
		o->gen = sqlite3_column_int64(st, 3);
		o->nlink = -1;
		fd = vbj_open_key(r, o->fs, o->key, len, O_PATH);
		if (fd == -ESTALE) {
			o->gone = true;
			o->nlink = 0;
		} else if (fd < 0) {
			o->err = fd;
		} else if (fstat(fd, &sb)) {
			o->err = -errno;
		} else {
			o->ino = sb.st_ino;
			o->nlink = sb.st_nlink;
			o->dev = sb.st_dev;
			o->have_dev = true;
			o->gone = !sb.st_nlink;
		}
		if (fd >= 0)
			close(fd);
	}
	if (rc != SQLITE_DONE)
		vbj_fail(s, "objects");
	sqlite3_finalize(st);
	if (f->n)
		qsort(f->o, f->n, sizeof(*f->o), fobj_cmp);
	return s->err;
}

/* Adds path to o's names, once. */
static void fobj_add_name(struct fobj *o, const char *path)
{
	char **p;
	int i;

	for (i = 0; i < o->nnames; i++)
		if (!strcmp(o->names[i], path))
			return;
	p = realloc(o->names, (o->nnames + 1) * sizeof(*p));
	if (!p)
		return;
	o->names = p;
	o->names[o->nnames] = strdup(path);
	if (o->names[o->nnames])
		o->nnames++;
}

/* The entries of the directory key (on fs) that are names of f's objects. */
static void scan_dir(struct vbj_resolver *r, struct fset *f, int64_t fs,
		     const void *key, int len)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int fd;

	fd = vbj_open_key(r, fs, key, len, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	if (vbj_fd_path(fd, dir, sizeof(dir)) || !(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		struct fobj k = { .fs = fs, .ino = e->d_ino }, *o;
		int i;

		if (e->d_type == DT_DIR)
			continue;
		o = bsearch(&k, f->o, f->n, sizeof(*f->o), fobj_cmp);
		if (!o)
			continue;
		/* the first of that inode */
		while (o > f->o && !fobj_cmp(o - 1, &k))
			o--;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    sb.st_ino != e->d_ino || S_ISDIR(sb.st_mode))
			continue;
		if (snprintf(path, sizeof(path), "%s%s%s", dir,
			     strcmp(dir, "/") ? "/" : "", e->d_name) >=
		    (int)sizeof(path))
			continue;
		for (i = 0; o + i < f->o + f->n && !fobj_cmp(o + i, &k); i++)
			if (!o[i].gone &&
			    (!o[i].have_dev || o[i].dev == sb.st_dev))
				fobj_add_name(&o[i], path);
	}
	closedir(d);
}

/* Scans each directory sql gives (its ?1 fs, ?2 from, ?3 to). */
static int scan_dirs(struct vbj_store *s, struct vbj_resolver *r,
		     struct fset *f, const char *sql, int64_t fs,
		     int64_t from, int64_t to)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return vbj_fail(s, "the objects' directories");
	sqlite3_bind_int64(st, 1, fs);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		scan_dir(r, f, fs, sqlite3_column_blob(st, 0),
			 sqlite3_column_bytes(st, 0));
	if (rc != SQLITE_DONE)
		vbj_fail(s, "the objects' directories");
	sqlite3_finalize(st);
	return s->err;
}

#define OBJECT_DIRS \
	"SELECT dir FROM object_dirs WHERE fs = ?1 AND handle IN " \
	"(SELECT handle FROM objects WHERE fs = ?1 AND epoch > ?2 AND " \
	"epoch <= ?3)"

/* Every object's names, as far as they can be found. */
static int find_names(struct vbj_store *s, struct vbj_resolver *r,
		      struct fset *f, int64_t from, int64_t to)
{
	int i, k;

	for (i = 0; i < f->n; i = k) {
		bool more = false;

		/* one filesystem at a time: the objects are sorted by fs */
		for (k = i; k < f->n && f->o[k].fs == f->o[i].fs; k++)
			;
		if (scan_dirs(s, r, f, OBJECT_DIRS, f->o[i].fs, from, to))
			return s->err;
		for (k = i; k < f->n && f->o[k].fs == f->o[i].fs; k++)
			more |= !fobj_complete(&f->o[k]);
		if (more && scan_dirs(s, r, f, "SELECT handle FROM changes "
				      "WHERE fs = ?1 AND epoch > ?2 AND "
				      "epoch <= ?3 EXCEPT " OBJECT_DIRS,
				      f->o[i].fs, from, to))
			return s->err;
	}
	for (i = 0; i < f->n; i++)
		if (f->o[i].nnames > 1)
			qsort(f->o[i].names, f->o[i].nnames, sizeof(char *),
			      str_cmp);
	return 0;
}

/* ---- The iterator ---- */

enum phase { PH_DIRS, PH_MOVED, PH_FILES, PH_RESCAN, PH_DONE };

struct vbjournal_changes {
	struct vbjournal *j;
	int64_t from, to;
	char *under;		/* NULL: everything */
	char cursor[VBJOURNAL_CURSOR_MAX];
	enum phase phase;
	sqlite3_stmt *st;	/* the phase's query, once started */
	struct vbj_resolver r;
	struct fset f;
	bool loaded;		/* f holds the answer's objects */
	int fi;			/* the next object */
	struct vbjournal_entry e;
	char now[PATH_MAX];
	char why[160];
};

VBJ_EXPORT void vbjournal_changes_free(struct vbjournal_changes *it)
{
	if (!it)
		return;
	if (it->st)
		sqlite3_finalize(it->st);
	vbj_resolver_fini(&it->r);
	fset_free(&it->f);
	free(it->under);
	free(it);
}

VBJ_EXPORT const char *vbjournal_changes_cursor(const struct vbjournal_changes *it)
{
	return it->cursor;
}

VBJ_EXPORT int vbjournal_changes(struct vbjournal *j, const char *since,
				 const char *under, unsigned int flags,
				 struct vbjournal_changes **itp)
{
	struct vbjournal_changes *it;
	int64_t from, to;
	int ret;

	vbj_reset(j);
	*itp = NULL;
	if (flags & ~VBJOURNAL_CHANGES_ONE_EPOCH)
		return vbj_error(j, EINVAL, "unknown flags 0x%x", flags);
	if (under) {
		ret = set_under(j, under);
		if (ret)
			return ret;
	}
	ret = vbj_check_cursor(j, since, &from);
	if (ret)
		return ret;
	to = vbj_last_closed(&j->s);
	if (j->s.err)
		return vbj_errno(j);
	if (flags & VBJOURNAL_CHANGES_ONE_EPOCH) {
		if (from >= to)
			return vbj_error(j, EAGAIN, "no epoch has closed after "
					 "the cursor yet");
		to = from + 1;
	} else if (to < from) {
		/* the cursor of the epoch open now: nothing closed after it */
		to = from;
	}
	it = calloc(1, sizeof(*it));
	if (!it || (under && !j->under_all && !(it->under = strdup(j->under)))) {
		free(it);
		return vbj_error(j, ENOMEM, "out of memory");
	}
	it->j = j;
	it->from = from;
	it->to = to;
	vbj_format_cursor(j, to, it->cursor, sizeof(it->cursor));
	vbj_resolver_init(&it->r, &j->s);
	*itp = it;
	return 0;
}

/* Starts the phase's query: 0 or -errno. */
static int start(struct vbjournal_changes *it, const char *sql,
		 const char *what)
{
	struct vbj_store *s = &it->j->s;

	if (sqlite3_prepare_v2(s->db, sql, -1, &it->st, NULL) != SQLITE_OK) {
		it->st = NULL;
		vbj_fail(s, what);
		return vbj_errno(it->j);
	}
	sqlite3_bind_int64(it->st, 1, it->from);
	sqlite3_bind_int64(it->st, 2, it->to);
	return 0;
}

/* Ends the phase's query, the next phase after it: 0 or -errno. */
static int finish(struct vbjournal_changes *it, int rc, const char *what)
{
	if (rc != SQLITE_DONE)
		vbj_fail(&it->j->s, what);
	sqlite3_finalize(it->st);
	it->st = NULL;
	if (rc != SQLITE_DONE)
		return vbj_errno(it->j);
	it->phase++;
	return 0;
}

/*
 * The next directory of changes (DIR) or moves (MOVED): 1, 0 at the
 * phase's end, -errno. Each path is the directory's now, from its
 * handle; where the handle cannot be opened, the one stored
 * (path_source), or gone when the directory no longer exists.
 */
static int next_dir(struct vbjournal_changes *it, bool moves)
{
	const char *table = moves ? "moves" : "changes";
	struct vbjournal_entry *e = &it->e;
	int rc;

	/*
	 * under is answered by the tree as it is now: every row of the
	 * range is resolved, then kept by its path (not by the stored
	 * path's index, which a later rename made wrong)
	 */
	if (!it->st) {
		int ret = start(it, moves ?
				"SELECT DISTINCT path, fs, handle FROM moves "
				"WHERE epoch > ?1 AND epoch <= ?2 ORDER BY path" :
				"SELECT DISTINCT path, fs, handle FROM changes "
				"WHERE epoch > ?1 AND epoch <= ?2 ORDER BY path",
				table);

		if (ret)
			return ret;
	}
	while ((rc = sqlite3_step(it->st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(it->st, 0);
		int pl = sqlite3_column_bytes(it->st, 0), err;
		enum vbj_path_source src;

		memset(e, 0, sizeof(*e));
		e->kind = moves ? VBJOURNAL_MOVED : VBJOURNAL_DIR;
		e->fs = sqlite3_column_int64(it->st, 1);
		e->handle = sqlite3_column_blob(it->st, 2);
		e->handle_len = sqlite3_column_bytes(it->st, 2);
		if (!path || !path[0])
			path = NULL;
		src = vbj_dir_path(&it->r, e->fs, e->handle, e->handle_len,
				   it->now, &err);
		if (src == VBJ_PATH_HANDLE) {
			path = it->now;
			pl = strlen(it->now);
		}
		/*
		 * what is under it; a moved directory that holds it too;
		 * one named only by its handle always
		 */
		if (it->under && path && !path_within(path, it->under) &&
		    !(moves && path_within(it->under, path)))
			continue;
		e->path = path;
		e->path_len = path ? pl : 0;
		e->path_source = src == VBJ_PATH_HANDLE ? VBJOURNAL_PATH_HANDLE :
				 path ? VBJOURNAL_PATH_STORED : VBJOURNAL_PATH_NONE;
		e->gone = src == VBJ_PATH_GONE;
		return 1;
	}
	return finish(it, rc, table);
}

/*
 * The next object: with under, those with a name under it, and those
 * whose names are not all found (they may be under it). 1, 0 at the
 * phase's end, -errno.
 */
static int next_file(struct vbjournal_changes *it)
{
	struct vbj_store *s = &it->j->s;
	struct vbjournal_entry *e = &it->e;
	int k;

	if (!it->loaded) {
		it->loaded = true;
		if (load_files(s, &it->r, it->from, it->to, &it->f) ||
		    find_names(s, &it->r, &it->f, it->from, it->to))
			return vbj_errno(it->j);
	}
	while (it->fi < it->f.n) {
		struct fobj *o = &it->f.o[it->fi++];
		bool complete = fobj_complete(o), keep = !it->under || !complete;

		for (k = 0; !keep && k < o->nnames; k++)
			keep = path_within(o->names[k], it->under);
		if (!keep)
			continue;
		memset(e, 0, sizeof(*e));
		e->kind = VBJOURNAL_FILE;
		e->fs = o->fs;
		if (o->err != -EOPNOTSUPP) {
			e->handle = o->key;
			e->handle_len = o->len;
		}
		e->ino = o->ino;
		e->generation = o->gen;
		e->nlink = o->nlink;
		e->gone = o->gone;
		e->names = (const char *const *)o->names;
		e->nnames = o->nnames;
		e->names_complete = complete;
		if (o->nlink < 0) {
			if (o->err == -EOPNOTSUPP)
				snprintf(it->why, sizeof(it->why), "no file handle");
			else
				snprintf(it->why, sizeof(it->why), "cannot open "
					 "it by handle: %s", strerror(-o->err));
			e->why = it->why;
		}
		return 1;
	}
	it->phase++;
	return 0;
}

/* The next gap: 1, 0 at the phase's end, -errno. */
static int next_rescan(struct vbjournal_changes *it)
{
	struct vbjournal_entry *e = &it->e;
	int rc;

	if (!it->st) {
		int ret = start(it, "SELECT DISTINCT scope, reason, path FROM "
				"gaps WHERE epoch > ? AND epoch <= ?", "gaps");

		if (ret)
			return ret;
	}
	rc = sqlite3_step(it->st);
	if (rc != SQLITE_ROW)
		return finish(it, rc, "gaps");
	memset(e, 0, sizeof(*e));
	e->kind = VBJOURNAL_RESCAN;
	e->scope = (const char *)sqlite3_column_text(it->st, 0);
	e->reason = (const char *)sqlite3_column_text(it->st, 1);
	e->scope = e->scope ? e->scope : "fs";
	e->reason = e->reason ? e->reason : "?";
	/* NULL: a gap of no known filesystem, or an older one */
	e->path = (const char *)sqlite3_column_text(it->st, 2);
	e->path_len = sqlite3_column_bytes(it->st, 2);
	return 1;
}

VBJ_EXPORT int vbjournal_changes_next(struct vbjournal_changes *it,
				      const struct vbjournal_entry **ep)
{
	int ret = 0;

	vbj_reset(it->j);
	*ep = NULL;
	while (!ret && it->phase != PH_DONE) {
		switch (it->phase) {
		case PH_DIRS:
			ret = next_dir(it, false);
			break;
		case PH_MOVED:
			ret = next_dir(it, true);
			break;
		case PH_FILES:
			ret = next_file(it);
			break;
		default:
			ret = next_rescan(it);
			break;
		}
	}
	if (ret > 0)
		*ep = &it->e;
	return ret;
}
