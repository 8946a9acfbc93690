// SPDX-License-Identifier: GPL-2.0
/*
 * vbjournal: questions to the change journal vbjournald keeps.
 *
 *   vbjournal [--journal DIR] cursor
 *   vbjournal [--journal DIR] changes --since CURSOR [--under PATH] [--json]
 *   vbjournal [--journal DIR] follow --since CURSOR [--under PATH] [--json]
 *   vbjournal [--journal DIR] status [--json]
 *   vbjournal [--journal DIR] checkpoint
 *   vbjournal [--journal DIR] register NAME | ack NAME CURSOR |
 *                             unregister NAME | consumers [--json]
 *   vbjournal [--journal DIR] changes --consumer NAME [--under PATH] [--json]
 *
 * Named consumers: the journal keeps the epochs a registered consumer
 * has not acked yet, up to vbjournald's size cap; a consumer left behind
 * by the cap gets "full rescan required" for its cursor, and consumers
 * says so, never a wrong answer.
 *
 * changes answers only from epochs whose changes have all ended (closed
 * by a checkpoint, or recovered after the session that had them open
 * ended): nothing it names is still being written. It prints the
 * directories that may have changed after the cursor, the rescans the
 * journal's gaps require, and the cursor to ask from next time. A
 * cursor of another journal, of a trimmed range or from the future
 * cannot be answered: "full rescan required", exit 3.
 *
 * Exit: 0; 1 error; 2 usage; 3 full rescan required; 4-9 the journal
 * is missing, unreadable, foreign, empty, truncated, corrupt (enum
 * vbj_err, vbjournal(1)). Queries open it read-only.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "cli.h"
#include "jw.h"
#include "lock.h"
#include "mirror.h"
#include "resolve.h"
#include "store.h"

#define DEFAULT_JOURNAL "/var/lib/vbjournal"
/*
 * The "version" of every JSON object printed (vbjournal(1), JSON
 * OUTPUT): fields may be added within a version; a field changed or
 * taken away makes the next one.
 */
#define JSON_VERSION 1

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vbjournal [--journal DIR] COMMAND [ARGS]\n"
		"       vbjournal --help | --version\n"
		"\n"
		"commands:\n"
		"  changes (--since CURSOR | --consumer NAME) [--under PATH] [--json]\n"
		"      the directories that may have changed after the cursor, the\n"
		"      rescans the journal's gaps require, the cursor to ask from next\n"
		"  follow (--since CURSOR | --consumer NAME) [--under PATH] [--json]\n"
		"      the same for each epoch as it closes, until interrupted\n"
		"  cursor              the current cursor\n"
		"  status [--json]     the journal, the daemon and the consumers\n"
		"  checkpoint          ask the daemon to close the epoch, print the cursor\n"
		"  register NAME       a named consumer, from the current cursor\n"
		"  ack NAME CURSOR     the consumer has processed up to the cursor\n"
		"  unregister NAME     the consumer is gone: its epochs are not kept\n"
		"  consumers [--json]  each consumer's epoch and lag\n"
		"  mirror SRC DST [--consumer NAME] [--checkpoint] [--full] [--full-above PCT] [--no-checksum] [--progress] [--verbose]\n"
		"      mirror SRC into DST with rsync, from the journal's answers;\n"
		"      exit 10: rsync failed (vbjournal mirror --help)\n"
		"\n"
		"options (anywhere on the line):\n"
		"  --journal DIR   the journal (default %s)\n"
		"  --help          this text\n"
		"  --version       vbjournal's version\n"
		"\n"
		"exit status: 0 done; 1 error; 2 usage; 3 full rescan required;\n"
		"4 no journal; 5 permission denied; 6 not a journal; 7 empty journal;\n"
		"8 truncated journal; 9 corrupt journal (vbjournal(1))\n",
		DEFAULT_JOURNAL);
}

/* A usage error: what is wrong, and where to read more. Returns 2. */
#define bad_usage(...) cli_usage_error("vbjournal", __VA_ARGS__)

/*
 * --under's path as the journal stores paths (the daemon resolves them
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

static void print_cursor(struct vbj_store *s, int64_t epoch)
{
	printf("%016" PRIx64 ":%" PRId64 "\n", s->journal_id, epoch);
}

/*
 * A cursor's form: 1 to 16 hexadecimal digits (the journal id), ':',
 * the epoch in decimal. 0, or -EINVAL: a usage error, not a cursor the
 * journal cannot answer.
 */
static int parse_cursor(const char *cursor, uint64_t *id, int64_t *epoch)
{
	const char *colon = strchr(cursor, ':');
	size_t n = colon ? (size_t)(colon - cursor) : 0, i;
	unsigned long long e;

	if (!n || n > 16)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)cursor[i]))
			return -EINVAL;
	if (cli_parse_uint(colon + 1, 0, INT64_MAX, &e))
		return -EINVAL;
	*id = strtoull(cursor, NULL, 16);
	*epoch = e;
	return 0;
}

/* Why cursor cannot be answered, or NULL; *epoch: its epoch. */
static const char *check_cursor(struct vbj_store *s, const char *cursor,
				int64_t *epoch)
{
	int64_t last, first;
	uint64_t id;

	if (parse_cursor(cursor, &id, epoch))
		return "not a cursor";
	if (id != s->journal_id)
		return "the cursor is of another journal";
	last = vbj_last_epoch(s);
	first = vbj_first_epoch(s);
	if (s->err)
		return NULL;	/* the caller sees s->err */
	if (*epoch > last)
		return "the cursor is ahead of this journal";
	if (*epoch + 1 < first)
		return "the epochs after the cursor were trimmed";
	return NULL;
}

static void hex(const unsigned char *p, int n, char *out)
{
	int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void say_full_rescan(const char *why, bool json)
{
	if (json)
		printf("{\"version\":%d,\"rescan_required\":\"full\","
		       "\"why\":\"%s\"}\n", JSON_VERSION, why);
	else
		printf("full rescan required: %s\n", why);
	fflush(stdout);
}

/*
 * The directories of table in epochs (from, to], one "label PATH" line
 * (or JSON object) each: changes, the directories that may have
 * changed; moves, those renamed, whose subtree counts as changed (what
 * was journaled inside one before the move carries its old path, so a
 * query under its new place, or under anything inside it, names it).
 * Each path is the directory's now, from its handle; where the handle
 * cannot be opened, the one stored, said so: " (stored path)", or
 * " (gone)" when the directory no longer exists.
 */
static int print_dirs(struct vbj_store *s, struct vbj_resolver *r,
		      const char *table, const char *label, int64_t from,
		      int64_t to, const char *under, struct jw *j)
{
	char sql[200], now[PATH_MAX];
	sqlite3_stmt *st;
	int n = 0, rc;

	/*
	 * --under is answered by the tree as it is now: every row of the
	 * range is resolved, then kept by its path (not by the stored
	 * path's index, which a later rename made wrong)
	 */
	snprintf(sql, sizeof(sql), "SELECT DISTINCT path, fs, handle FROM %s "
		 "WHERE epoch > ?1 AND epoch <= ?2 ORDER BY path", table);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(s, table);
		return -1;
	}
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		int pl = sqlite3_column_bytes(st, 0);
		int64_t fs = sqlite3_column_int64(st, 1);
		const void *key = sqlite3_column_blob(st, 2);
		int hl = sqlite3_column_bytes(st, 2), err;
		enum vbj_path_source src;
		const char *note;
		char h[520];

		hex(key, hl > 256 ? 256 : hl, h);
		if (!path || !path[0])
			path = NULL;
		src = vbj_dir_path(r, fs, key, hl, now, &err);
		if (src == VBJ_PATH_HANDLE) {
			path = now;
			pl = strlen(now);
		}
		/*
		 * what is under it; a moved directory that holds it too;
		 * one named only by its handle always
		 */
		if (under && path &&
		    !path_within(path, under) &&
		    !(!strcmp(table, "moves") && path_within(under, path)))
			continue;
		note = src == VBJ_PATH_HANDLE ? "" :
		       src == VBJ_PATH_GONE ? " (gone)" :
		       path ? " (stored path)" : "";
		if (j) {
			jw_obj(j, NULL);
			if (path)
				jw_bytes(j, "path", path, pl);
			jw_str(j, "path_source", src == VBJ_PATH_HANDLE ?
			       "handle" : path ? "stored" : "none");
			jw_bool(j, "gone", src == VBJ_PATH_GONE);
			jw_int(j, "fs", fs);
			jw_str(j, "handle", h);
			jw_end(j);
		} else if (path) {
			printf("%s ", label);
			cli_escape(stdout, path, pl);
			printf("%s\n", note);
		} else {
			printf("%s ? fs=%" PRId64 " handle=%s%s\n", label, fs, h,
			       note);
		}
		n++;
	}
	if (rc != SQLITE_DONE)
		vbj_fail(s, table);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? n : -1;
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

/* Why an object's link count is not known. */
static void fobj_why(const struct fobj *o, char *buf, size_t sz)
{
	if (o->err == -EOPNOTSUPP)
		snprintf(buf, sz, "no file handle");
	else
		snprintf(buf, sz, "cannot open it by handle: %s",
			 strerror(-o->err));
}

/*
 * The object entries: with --under, those with a name under it, and
 * those whose names are not all found (they may be under it).
 */
static int print_files(struct vbj_store *s, struct vbj_resolver *r,
		       int64_t from, int64_t to, const char *under,
		       struct jw *j)
{
	struct fset f = { 0 };
	char h[520], why[160];
	int i, k;

	if (load_files(s, r, from, to, &f) || find_names(s, r, &f, from, to)) {
		fset_free(&f);
		return s->err;
	}
	for (i = 0; i < f.n; i++) {
		struct fobj *o = &f.o[i];
		bool complete = fobj_complete(o), keep = !under || !complete;
		char nl[24];

		for (k = 0; !keep && k < o->nnames; k++)
			keep = path_within(o->names[k], under);
		if (!keep)
			continue;
		if (o->nlink >= 0)
			snprintf(nl, sizeof(nl), "%lld", o->nlink);
		else
			snprintf(nl, sizeof(nl), "?");
		fobj_why(o, why, sizeof(why));
		if (j) {
			jw_obj(j, NULL);
			jw_str(j, "kind", "file");
			jw_int(j, "fs", o->fs);
			if (o->err == -EOPNOTSUPP) {
				jw_null(j, "handle");
			} else {
				hex(o->key, o->len, h);
				jw_str(j, "handle", h);
			}
			jw_uint(j, "ino", o->ino);
			jw_uint(j, "generation", o->gen);
			if (o->nlink >= 0)
				jw_int(j, "nlink", o->nlink);
			else
				jw_null(j, "nlink");
			jw_bool(j, "gone", o->gone);
			jw_arr(j, "names");
			for (k = 0; k < o->nnames; k++) {
				jw_obj(j, NULL);
				jw_bytes(j, "path", o->names[k],
					 strlen(o->names[k]));
				jw_end(j);
			}
			jw_end(j);
			jw_bool(j, "names_complete", complete);
			if (o->nlink < 0)
				jw_str(j, "why", why);
			jw_end(j);
			continue;
		}
		for (k = 0; k < o->nnames; k++) {
			printf("file ino=%" PRIu64 " nlink=%s ", o->ino, nl);
			cli_escape(stdout, o->names[k], strlen(o->names[k]));
			putchar('\n');
		}
		if (o->gone)
			printf("file ino=%" PRIu64 " nlink=0 ? (gone)\n", o->ino);
		else if (o->nlink < 0)
			printf("file ino=%" PRIu64 " nlink=? ? (found %d names, "
			       "of a link count not known: %s; look it up by "
			       "inode in your own map)\n", o->ino, o->nnames,
			       why);
		else if (!complete)
			printf("file ino=%" PRIu64 " nlink=%s ? (found %d of %s "
			       "names: look the others up by inode in your own "
			       "map)\n", o->ino, nl, o->nnames, nl);
	}
	fset_free(&f);
	return 0;
}

/* What changed in epochs (from, to]; the cursor printed is to's. */
static int print_changes(struct vbj_store *s, int64_t from, int64_t to,
			 const char *under, bool json)
{
	struct vbj_resolver r;
	sqlite3_stmt *st;
	char cur[64];
	struct jw j;
	int n, rc, ret;

	snprintf(cur, sizeof(cur), "%016" PRIx64 ":%" PRId64, s->journal_id, to);
	if (json) {
		jw_init(&j, stdout, true);
		jw_obj(&j, NULL);
		jw_int(&j, "version", JSON_VERSION);
		jw_str(&j, "cursor", cur);
		jw_arr(&j, "dirs");
	}
	vbj_resolver_init(&r, s);
	n = print_dirs(s, &r, "changes", "dir", from, to, under,
		       json ? &j : NULL);
	if (n < 0) {
		vbj_resolver_fini(&r);
		return s->err;
	}
	if (json) {
		jw_end(&j);
		jw_arr(&j, "moved");
	}
	if (print_dirs(s, &r, "moves", "moved", from, to, under,
		       json ? &j : NULL) < 0) {
		vbj_resolver_fini(&r);
		return s->err;
	}
	if (json) {
		jw_end(&j);
		jw_arr(&j, "files");
	}
	ret = print_files(s, &r, from, to, under, json ? &j : NULL);
	vbj_resolver_fini(&r);
	if (ret)
		return ret;
	if (json) {
		jw_end(&j);
		jw_arr(&j, "rescan");
	}
	if (sqlite3_prepare_v2(s->db,
			       "SELECT DISTINCT scope, reason, path FROM gaps "
			       "WHERE epoch > ? AND epoch <= ?", -1, &st,
			       NULL) != SQLITE_OK)
		return vbj_fail(s, "gaps");
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *scope = (const char *)sqlite3_column_text(st, 0);
		const char *reason = (const char *)sqlite3_column_text(st, 1);

		scope = scope ? scope : "fs";
		reason = reason ? reason : "?";
		const char *path = (const char *)sqlite3_column_text(st, 2);
		int pl = sqlite3_column_bytes(st, 2);

		if (json) {
			jw_obj(&j, NULL);
			jw_str(&j, "scope", scope);
			jw_str(&j, "reason", reason);
			/* a gap of no known filesystem, or an older one */
			if (path)
				jw_bytes(&j, "path", path, pl);
			else
				jw_null(&j, "path");
			jw_end(&j);
		} else {
			printf("rescan %s ", scope);
			if (path && path[0])
				cli_escape(stdout, path, pl);
			else
				putchar('?');
			printf(" (%s)\n", reason);
		}
	}
	if (rc != SQLITE_DONE)
		vbj_fail(s, "gaps");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return s->err;
	if (json) {
		jw_end(&j);
		jw_int(&j, "count", n);
		jw_end(&j);
		return jw_close(&j) ? 1 : 0;
	}
	printf("cursor %s\n", cur);
	return 0;
}

static int cmd_changes(struct vbj_store *s, const char *since,
		       const char *under, bool json)
{
	const char *why;
	int64_t from, to;

	why = check_cursor(s, since, &from);
	if (s->err)
		return s->err;
	if (why) {
		say_full_rescan(why, json);
		return 3;
	}
	to = vbj_last_closed(s);
	if (s->err)
		return s->err;
	return print_changes(s, from, to < from ? from : to, under, json);
}

/*
 * Each epoch as it closes, one JSON object per line (or the text form):
 * for log shippers and queues. Ends when the journal can no longer
 * answer from the cursor (the size cap overtook it): exit 3.
 */
static int cmd_follow(struct vbj_store *s, const char *since,
		      const char *under, bool json)
{
	const char *why;
	int64_t from, to;
	int ret;

	why = check_cursor(s, since, &from);
	for (;;) {
		struct timespec ts = { 0, 200000000 };

		if (s->err)
			return s->err;
		if (why) {
			say_full_rescan(why, json);
			return 3;
		}
		to = vbj_last_closed(s);
		while (!s->err && from < to) {
			ret = print_changes(s, from, from + 1, under, json);
			if (ret || cli_flush_stdout())
				return ret ? ret : 1;
			from++;
		}
		nanosleep(&ts, NULL);
		if (from + 1 < vbj_first_epoch(s))
			why = "the epochs after the cursor were trimmed";
	}
}

/* path's size in bytes, 0 when it is not there. */
static int64_t file_size(const char *path, const char *suffix)
{
	char name[PATH_MAX];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	return stat(name, &st) ? 0 : st.st_size;
}

/* The journaled filesystems: fs=N, uuid, mount (text or a JSON array). */
static void status_filesystems(struct vbj_store *s, struct jw *j)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db, "SELECT fs, uuid, mount FROM filesystems "
			       "ORDER BY fs", -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(s, "reading its filesystems");
		return;
	}
	if (j)
		jw_arr(j, "filesystems");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *uuid = (const char *)sqlite3_column_text(st, 1);
		const char *mount = (const char *)sqlite3_column_text(st, 2);
		long long fs = sqlite3_column_int64(st, 0);

		if (j) {
			jw_obj(j, NULL);
			jw_int(j, "fs", fs);
			jw_str(j, "uuid", uuid ? uuid : "");
			if (mount)
				jw_str(j, "mount", mount);
			else
				jw_null(j, "mount");
			jw_end(j);
			continue;
		}
		printf("fs=%lld %s ", fs, uuid ? uuid : "?");
		if (mount)
			cli_escape(stdout, mount, strlen(mount));
		else
			fputc('?', stdout);
		fputc('\n', stdout);
	}
	if (j)
		jw_end(j);
	sqlite3_finalize(st);
}

static int cmd_status(struct vbj_store *s, const char *dir, bool json)
{
	pid_t holder = 0;
	bool running, ran;
	int64_t last = vbj_last_epoch(s), closed = vbj_last_closed(s);
	char clean[8] = "?", pid[16] = "0", stats[160] = "", start[24] = "0";
	char boot[64];
	unsigned long long intents = 0, records = 0, acks = 0, sum = 0, max = 0;
	unsigned long long unacked = 0;
	int64_t rows, gaps, size, ncons, lag, secs, db, wal, shm, nfs;
	const char *daemon;
	double rate, avg_ms;
	struct jw j;
	char id[20];

	vbj_meta_get(s, "session_clean", clean, sizeof(clean));
	/* a session has begun once: recovery stores these */
	ran = !vbj_meta_get(s, "session_boot", boot, sizeof(boot)) ||
	      clean[0] != '?';
	/* running: a process holds the daemon's lock (lock.h) */
	running = !vbj_lock_holder(dir, &holder);
	if (running)
		snprintf(pid, sizeof(pid), "%d", (int)holder);
	vbj_meta_get(s, "session_stats", stats, sizeof(stats));
	vbj_meta_get(s, "session_start", start, sizeof(start));
	sscanf(stats, "%llu %llu %llu %llu %llu %llu", &intents, &records, &acks,
	       &sum, &max, &unacked);
	rows = vbj_int(s, "SELECT count(*) FROM changes", 0);
	gaps = vbj_int(s, "SELECT count(*) FROM gaps", 0);
	nfs = vbj_int(s, "SELECT count(*) FROM filesystems", 0);
	/* on disk: the database, its WAL and the WAL's index */
	db = file_size(s->path, "");
	wal = file_size(s->path, "-wal");
	shm = file_size(s->path, "-shm");
	size = db + wal + shm;
	ncons = vbj_int(s, "SELECT count(*) FROM consumers", 0);
	lag = ncons ?
	      closed - vbj_int(s, "SELECT min(epoch) FROM consumers", 0) : 0;
	/* no session yet: none to time */
	secs = atoll(start) > 0 ? time(NULL) - atoll(start) : 0;
	rate = secs > 0 ? (double)intents / secs : 0;
	avg_ms = acks ? sum / 1e6 / acks : 0;
	daemon = running ? "running" : !ran ? "never started" :
		 clean[0] == '1' ? "stopped" : "not running";
	snprintf(id, sizeof(id), "%016" PRIx64, s->journal_id);
	if (s->err)
		return s->err;
	if (!json) {
		printf("journal %s\nepoch %" PRId64 " (open), last closed %" PRId64
		       ", first kept %" PRId64 "\n", id, last, closed,
		       vbj_first_epoch(s));
		if (running)
			printf("daemon running (pid %s)\n", pid);
		else
			printf("daemon %s\n", daemon);
		printf("filesystems %" PRId64 "\n", nfs);
		status_filesystems(s, NULL);
		printf("size %" PRId64 " bytes (journal.db %" PRId64 ", -wal %"
		       PRId64 ", -shm %" PRId64 "), %" PRId64 " directory rows, %"
		       PRId64 " gaps\n", size, db, wal, shm, rows, gaps);
		if (ran)
			printf("session: %" PRId64 " s, %llu intents (%.1f/s), "
			       "%llu records, ack latency avg %.2f ms max %.2f "
			       "ms, %llu changes went on unacked\n", secs,
			       intents, rate, records, avg_ms, max / 1e6,
			       unacked);
		printf("consumers %" PRId64 ", largest lag %" PRId64 " epochs\n",
		       ncons, lag);
		return s->err;
	}
	jw_init(&j, stdout, true);
	jw_obj(&j, NULL);
	jw_int(&j, "version", JSON_VERSION);
	jw_str(&j, "journal_id", id);
	jw_int(&j, "epoch", last);
	jw_int(&j, "last_closed", closed);
	jw_int(&j, "first_epoch", vbj_first_epoch(s));
	jw_str(&j, "daemon", daemon);
	if (running)
		jw_int(&j, "pid", holder);
	status_filesystems(s, &j);
	jw_int(&j, "size_bytes", size);
	jw_int(&j, "db_bytes", db);
	jw_int(&j, "wal_bytes", wal);
	jw_int(&j, "shm_bytes", shm);
	jw_int(&j, "directory_rows", rows);
	jw_int(&j, "gaps", gaps);
	jw_int(&j, "session_seconds", secs);
	jw_uint(&j, "intents", intents);
	jw_num(&j, "intents_per_s", rate);
	jw_uint(&j, "records", records);
	jw_num(&j, "ack_latency_avg_ms", avg_ms);
	jw_num(&j, "ack_latency_max_ms", max / 1e6);
	jw_uint(&j, "unacked_changes", unacked);
	jw_int(&j, "consumers", ncons);
	jw_int(&j, "largest_lag", lag);
	jw_end(&j);
	return jw_close(&j) ? 1 : s->err;
}

/*
 * Asks the daemon for a checkpoint and waits (30 s) until one closes.
 * The daemon: the process that holds the journal's lock, and no other.
 */
static int cmd_checkpoint(struct vbj_store *s, const char *dir)
{
	int64_t before = vbj_last_closed(s);
	pid_t pid = 0;
	int i, ret;

	if (s->err)
		return s->err;
	ret = vbj_lock_signal(dir, SIGUSR1, &pid);
	if (ret == -ESRCH && pid > 0) {
		fprintf(stderr, "vbjournal: the daemon is not running (pid %d "
			"ended)\n", (int)pid);
		return 1;
	}
	if (ret == -ESRCH) {
		fprintf(stderr, "vbjournal: the daemon is not running\n");
		return 1;
	}
	if (ret == -EXDEV) {
		fprintf(stderr, "vbjournal: the daemon runs in another pid "
			"namespace: run vbjournal checkpoint there\n");
		return 1;
	}
	if (ret) {
		fprintf(stderr, "vbjournal: signalling the daemon (pid %d): %s\n",
			(int)pid, strerror(-ret));
		return 1;
	}
	for (i = 0; i < 3000; i++) {
		struct timespec ts = { 0, 10000000 };

		if (vbj_last_closed(s) > before) {
			print_cursor(s, vbj_last_closed(s));
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "vbjournal: no checkpoint within 30 s\n");
	return 1;
}

/* A named consumer's epoch: 0 or -ENOENT. */
static int consumer_epoch(struct vbj_store *s, const char *name, int64_t *epoch)
{
	sqlite3_stmt *st;
	int ret = -ENOENT;

	int rc;

	if (sqlite3_prepare_v2(s->db, "SELECT epoch FROM consumers WHERE "
			       "name = ?", -1, &st, NULL) != SQLITE_OK) {
		vbj_fail(s, "consumers");
		return -EIO;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*epoch = sqlite3_column_int64(st, 0);
		ret = 0;
	} else if (rc != SQLITE_DONE) {
		vbj_fail(s, "consumers");
		ret = -EIO;
	}
	sqlite3_finalize(st);
	return ret;
}

static int set_consumer(struct vbj_store *s, const char *name, int64_t epoch,
			bool create)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, create ?
			       "INSERT INTO consumers(epoch, name) VALUES(?, ?)" :
			       "UPDATE consumers SET epoch = ? WHERE name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return vbj_fail(s, "consumers");
	sqlite3_bind_int64(st, 1, epoch);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_CONSTRAINT)
		vbj_fail(s, create ? "registering" : "acknowledging");
	sqlite3_finalize(st);
	if (s->err)
		return s->err;
	if (rc != SQLITE_DONE || !sqlite3_changes(s->db)) {
		fprintf(stderr, "vbjournal: consumer %s: %s\n", name,
			create ? "exists already" : "not registered");
		return 1;
	}
	return 0;
}

/* From now on: the cursor it starts from. */
static int cmd_register(struct vbj_store *s, const char *name)
{
	int64_t e = vbj_last_closed(s);

	if (s->err)
		return s->err;
	if (set_consumer(s, name, e, true))
		return s->err ? s->err : 1;
	print_cursor(s, e);
	return 0;
}

/*
 * The consumer is gone: the epochs only it had not acked are no longer
 * kept (the daemon's next checkpoint trims them).
 */
static int cmd_unregister(struct vbj_store *s, const char *name)
{
	sqlite3_stmt *st;
	int rc;

	if (s->err)
		return s->err;
	if (sqlite3_prepare_v2(s->db, "DELETE FROM consumers WHERE name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return vbj_fail(s, "unregistering");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return vbj_fail(s, "unregistering");
	if (!sqlite3_changes(s->db)) {
		fprintf(stderr, "vbjournal: consumer %s: not registered\n", name);
		return 1;
	}
	return 0;
}

static int cmd_ack(struct vbj_store *s, const char *name, const char *cursor)
{
	int64_t e, old;
	const char *why = check_cursor(s, cursor, &e);

	if (s->err)
		return s->err;
	if (why) {
		fprintf(stderr, "vbjournal: %s\n", why);
		return 3;
	}
	if (consumer_epoch(s, name, &old)) {
		if (s->err)
			return s->err;
		fprintf(stderr, "vbjournal: consumer %s: not registered\n", name);
		return 1;
	}
	if (e > vbj_last_closed(s) || e < old) {
		fprintf(stderr, "vbjournal: %s: not a cursor vbjournal changes "
			"gave after %" PRId64 "\n", cursor, old);
		return 1;
	}
	return set_consumer(s, name, e, false);
}

static int cmd_consumers(struct vbj_store *s, bool json)
{
	int64_t closed = vbj_last_closed(s), first = vbj_first_epoch(s);
	sqlite3_stmt *st;
	struct jw j;
	int rc;

	if (s->err)
		return s->err;
	if (sqlite3_prepare_v2(s->db, "SELECT name, epoch FROM consumers "
			       "ORDER BY name", -1, &st, NULL) != SQLITE_OK)
		return vbj_fail(s, "consumers");
	if (json) {
		jw_init(&j, stdout, true);
		jw_arr(&j, NULL);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int64_t e = sqlite3_column_int64(st, 1);
		bool overrun = e + 1 < first;

		if (json) {
			jw_obj(&j, NULL);
			jw_int(&j, "version", JSON_VERSION);
			jw_str(&j, "name", name);
			jw_int(&j, "epoch", e);
			jw_int(&j, "lag", closed - e);
			jw_bool(&j, "rescan_required", overrun);
			jw_end(&j);
		} else {
			printf("%s epoch %" PRId64 " lag %" PRId64 "%s\n", name, e,
			       closed - e, overrun ?
			       " FULL RESCAN REQUIRED (trimmed by the size cap)" : "");
		}
	}
	if (rc != SQLITE_DONE)
		vbj_fail(s, "consumers");
	sqlite3_finalize(st);
	if (json) {
		jw_end(&j);
		if (jw_close(&j))
			return 1;
	}
	return s->err;
}

/* What each command takes: its arguments, and the options that apply. */
enum { O_SINCE = 1, O_UNDER = 2, O_CONSUMER = 4, O_JSON = 8 };

static const struct command {
	const char *name;
	int nargs;
	const char *args;
	unsigned int opts;
} commands[] = {
	{ "changes", 0, NULL, O_SINCE | O_CONSUMER | O_UNDER | O_JSON },
	{ "follow", 0, NULL, O_SINCE | O_CONSUMER | O_UNDER | O_JSON },
	{ "cursor", 0, NULL, 0 },
	{ "status", 0, NULL, O_JSON },
	{ "checkpoint", 0, NULL, 0 },
	{ "register", 1, "NAME", 0 },
	{ "ack", 2, "NAME CURSOR", 0 },
	{ "unregister", 1, "NAME", 0 },
	{ "consumers", 0, NULL, O_JSON },
};

static const char *const opt_names[] = {
	[0] = "--since", [1] = "--under", [2] = "--consumer", [3] = "--json",
};

/* The command line: 0 to go on, else the exit status (help: 0 too,
   with *done set). */
struct args {
	const char *journal, *since, *under, *consumer;
	const struct command *cmd;
	char **arg;		/* the command's arguments */
	unsigned int given;	/* O_* */
	bool json;
};

static int parse_args(int argc, char **argv, struct args *a, bool *done)
{
	static const struct option opts[] = {
		{ "journal", required_argument, NULL, 'J' },
		{ "since", required_argument, NULL, 's' },
		{ "under", required_argument, NULL, 'u' },
		{ "consumer", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t id;
	int64_t epoch;
	unsigned int bit;
	size_t i;
	int c, n;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
			a->journal = optarg;
			break;
		case 's':
			a->since = optarg;
			a->given |= O_SINCE;
			break;
		case 'u':
			a->under = optarg;
			a->given |= O_UNDER;
			break;
		case 'c':
			a->consumer = optarg;
			a->given |= O_CONSUMER;
			break;
		case 'j':
			a->json = true;
			a->given |= O_JSON;
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return 0;
		case 'V':
			printf("vbjournal %s\n", VFSB_VERSION);
			*done = true;
			return 0;
		case ':':
			return bad_usage("%s needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return bad_usage("unknown option '-%c'", optopt);
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		return bad_usage("no command");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[optind], commands[i].name))
			a->cmd = &commands[i];
	if (!a->cmd)
		return bad_usage("unknown command '%s'", argv[optind]);
	a->arg = argv + optind + 1;
	n = argc - optind - 1;
	if (n > a->cmd->nargs && !a->cmd->nargs)
		return bad_usage("%s takes no argument ('%s')", a->cmd->name,
				 a->arg[0]);
	if (n != a->cmd->nargs)
		return bad_usage("%s needs %s", a->cmd->name, a->cmd->args);
	for (bit = 0; bit < 4; bit++)
		if (a->given & ~a->cmd->opts & (1U << bit))
			return bad_usage("%s does not apply to %s",
					 opt_names[bit], a->cmd->name);
	if ((a->cmd->opts & O_SINCE) && !a->since && !a->consumer)
		return bad_usage("%s needs --since CURSOR or --consumer NAME",
				 a->cmd->name);
	if (a->since && a->consumer)
		return bad_usage("--since or --consumer, not both");
	if (a->since && parse_cursor(a->since, &id, &epoch))
		return bad_usage("--since: '%s' is not a cursor (JOURNAL-ID:EPOCH, "
				 "as vbjournal cursor prints it)", a->since);
	if (!strcmp(a->cmd->name, "ack") && parse_cursor(a->arg[1], &id, &epoch))
		return bad_usage("ack: '%s' is not a cursor (JOURNAL-ID:EPOCH, "
				 "as vbjournal cursor prints it)", a->arg[1]);
	return 0;
}

/*
 * Whether the command is mirror (mirror.c parses its own options): the
 * first word that is neither an option nor an option's value.
 */
static bool is_mirror(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--journal") || !strcmp(argv[i], "--since") ||
		    !strcmp(argv[i], "--under") || !strcmp(argv[i], "--consumer") ||
		    !strcmp(argv[i], "--full-above")) {
			i++;
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		return !strcmp(argv[i], "mirror");
	}
	return false;
}

int main(int argc, char **argv)
{
	struct args a = { .journal = DEFAULT_JOURNAL };
	char since_buf[64], under_buf[PATH_MAX], exists[PATH_MAX];
	const char *cmd, *since, *under;
	struct vbj_store s;
	bool done = false;
	int ret;

	atexit(cli_close_stdout);
	if (is_mirror(argc, argv))
		return vbj_mirror_main(argc, argv);
	ret = parse_args(argc, argv, &a, &done);
	if (ret || done)
		return ret;
	cmd = a.cmd->name;
	since = a.since;
	under = a.under;
	/* only the consumers' commands write */
	ret = vbj_open(&s, a.journal, !strcmp(cmd, "register") ||
		       !strcmp(cmd, "ack") || !strcmp(cmd, "unregister") ?
		       VBJ_WRITE : VBJ_READ);
	if (ret) {
		fprintf(stderr, "vbjournal: %s\n", s.why);
		return ret;
	}
	if (under) {
		char names[512];

		ret = canonical_path(under, under_buf, exists);
		if (ret) {
			fprintf(stderr, "vbjournal: --under %s: %s\n", under,
				strerror(-ret));
			vbj_close(&s);
			return 2;
		}
		ret = under_journaled(&s, under_buf, exists, names,
				      sizeof(names));
		if (ret <= 0) {
			if (ret < 0)
				ret = vbj_fail(&s, "filesystems");
			if (s.err)
				fprintf(stderr, "vbjournal: %s\n", s.why);
			else
				fprintf(stderr, "vbjournal: --under %s: not inside "
					"a journaled filesystem (the journal "
					"keeps: %s)\n", under, names);
			vbj_close(&s);
			return s.err ? s.err : 2;
		}
		/* everything: no range to keep */
		under = strcmp(under_buf, "/") ? under_buf : NULL;
	}
	if (a.consumer) {
		int64_t e;

		if (consumer_epoch(&s, a.consumer, &e)) {
			if (s.err)
				fprintf(stderr, "vbjournal: %s\n", s.why);
			else
				fprintf(stderr, "vbjournal: consumer %s: not "
					"registered\n", a.consumer);
			vbj_close(&s);
			return s.err ? s.err : 1;
		}
		snprintf(since_buf, sizeof(since_buf), "%016" PRIx64 ":%" PRId64,
			 s.journal_id, e);
		since = since_buf;
	}
	if (!strcmp(cmd, "register")) {
		ret = cmd_register(&s, a.arg[0]);
	} else if (!strcmp(cmd, "unregister")) {
		ret = cmd_unregister(&s, a.arg[0]);
	} else if (!strcmp(cmd, "ack")) {
		ret = cmd_ack(&s, a.arg[0], a.arg[1]);
	} else if (!strcmp(cmd, "consumers")) {
		ret = cmd_consumers(&s, a.json);
	} else if (!strcmp(cmd, "cursor")) {
		int64_t e = vbj_last_closed(&s);

		if (!s.err)
			print_cursor(&s, e);
		ret = s.err;
	} else if (!strcmp(cmd, "changes")) {
		ret = cmd_changes(&s, since, under, a.json);
	} else if (!strcmp(cmd, "follow")) {
		ret = cmd_follow(&s, since, under, a.json);
	} else if (!strcmp(cmd, "status")) {
		ret = cmd_status(&s, a.journal, a.json);
	} else {
		ret = cmd_checkpoint(&s, a.journal);
	}
	if (s.err)
		fprintf(stderr, "vbjournal: %s\n", s.why);
	vbj_close(&s);
	return ret;
}
