// SPDX-License-Identifier: GPL-2.0
/*
 * vbj-treecmp A B: whether the tree B is an exact copy of the tree A,
 * checked without rsync (the mirror's tests: vbjournal mirror uses
 * rsync, so rsync cannot be its judge). Every entry below A and B is
 * compared by its name (bytes), type, mode, owner, group, size, content
 * (FNV-1a 64 of every byte), symbolic link target, device number and
 * extended attributes (names and values). B's top-level
 * ".vbjournal-mirror" (the mirror's state) is left out. Names that are
 * hard links of one file in A but not in B are counted apart ("links
 * split"), and are a difference only with --links.
 *
 * Prints one "DIFF path: what" line per difference (the path escaped:
 * \n, \\ and \xNN for other bytes below 0x20 or above 0x7e), then
 * "treecmp: N entries, D differences, L links split".
 * Exit: 0 the same, 1 different, 2 usage or an error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

struct ent {
	char *path;		/* relative, raw bytes */
	char *desc;		/* everything compared but the name */
	dev_t dev;
	ino_t ino;
	nlink_t nlink;
	bool reg;
};

struct tree {
	struct ent *e;
	size_t n, cap;
};

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 1099511628211ULL;
	return h;
}

static int errors;

static void fail(const char *what, const char *path)
{
	fprintf(stderr, "vbj-treecmp: %s %s: %s\n", what, path, strerror(errno));
	errors++;
}

/* The xattrs of the entry at path: "name=hash;" sorted, into h. */
static uint64_t xattrs(const char *path)
{
	char list[65536], *names[1024], *p;
	uint64_t h = 14695981039346656037ULL;
	ssize_t n = llistxattr(path, list, sizeof(list));
	int k = 0, i, j;

	if (n < 0)
		return errno == ENOTSUP ? 0 : (fail("llistxattr", path), 0);
	for (p = list; p < list + n && k < 1024; p += strlen(p) + 1)
		names[k++] = p;
	for (i = 1; i < k; i++)		/* the order listxattr gives varies */
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			p = names[j];
			names[j] = names[j - 1];
			names[j - 1] = p;
		}
	for (i = 0; i < k; i++) {
		char val[65536];
		ssize_t v = lgetxattr(path, names[i], val, sizeof(val));

		h = fnv(names[i], strlen(names[i]) + 1, h);
		if (v < 0)
			fail("lgetxattr", path);
		else
			h = fnv(val, v, fnv(&v, sizeof(v), h));
	}
	return h;
}

static uint64_t content(const char *path)
{
	uint64_t h = 14695981039346656037ULL;
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		fail("open", path);
		return 0;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = fnv(buf, n, h);
	if (n < 0)
		fail("read", path);
	close(fd);
	return h;
}

static void add(struct tree *t, const char *rel, const char *abs,
		const struct stat *st)
{
	char desc[PATH_MAX + 200], target[PATH_MAX];
	struct ent *e;
	int n = 0;

	n = snprintf(desc, sizeof(desc), "mode %o uid %u gid %u xattrs %016llx",
		     st->st_mode, st->st_uid, st->st_gid,
		     (unsigned long long)xattrs(abs));
	if (S_ISREG(st->st_mode)) {
		snprintf(desc + n, sizeof(desc) - n, " size %lld content %016llx",
			 (long long)st->st_size,
			 (unsigned long long)content(abs));
	} else if (S_ISLNK(st->st_mode)) {
		ssize_t k = readlink(abs, target, sizeof(target) - 1);

		target[k > 0 ? k : 0] = 0;
		snprintf(desc + n, sizeof(desc) - n, " target %016llx",
			 (unsigned long long)fnv(target, strlen(target),
						 14695981039346656037ULL));
	} else if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		snprintf(desc + n, sizeof(desc) - n, " rdev %u:%u",
			 major(st->st_rdev), minor(st->st_rdev));
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4096;
		t->e = realloc(t->e, t->cap * sizeof(*t->e));
		if (!t->e)
			exit(2);
	}
	e = &t->e[t->n++];
	e->path = strdup(rel);
	e->desc = strdup(desc);
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->nlink = st->st_nlink;
	e->reg = S_ISREG(st->st_mode);
}

static void walk(struct tree *t, const char *root, const char *rel, bool top_b)
{
	char abs[2 * PATH_MAX], child[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(abs, sizeof(abs), "%s%s%s", root, rel[0] ? "/" : "", rel);
	d = opendir(abs);
	if (!d) {
		fail("opendir", abs);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (top_b && !rel[0] && !strcmp(de->d_name, ".vbjournal-mirror"))
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", rel, rel[0] ? "/" : "",
			     de->d_name) >= (int)sizeof(child))
			continue;
		snprintf(abs, sizeof(abs), "%s/%s", root, child);
		if (lstat(abs, &st)) {
			fail("lstat", abs);
			continue;
		}
		add(t, child, abs, &st);
		if (S_ISDIR(st.st_mode))
			walk(t, root, child, top_b);
	}
	closedir(d);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path, ((const struct ent *)b)->path);
}

static int by_ino(const void *a, const void *b)
{
	const struct ent *x = *(struct ent *const *)a, *y = *(struct ent *const *)b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void put_path(const char *p)
{
	for (; *p; p++) {
		unsigned char c = *p;

		if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\\')
			fputs("\\\\", stdout);
		else if (c < 0x20 || c > 0x7e)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void diff(const char *path, const char *what)
{
	fputs("DIFF ", stdout);
	put_path(path);
	printf(": %s\n", what);
}

static struct ent *find(struct tree *t, const char *path)
{
	struct ent k = { .path = (char *)path };

	return bsearch(&k, t->e, t->n, sizeof(*t->e), by_path);
}

int main(int argc, char **argv)
{
	struct tree a = { 0 }, b = { 0 };
	struct ent **v;
	size_t i, j, ndiff = 0, split = 0, nv = 0;
	bool links = false;

	if (argc == 4 && !strcmp(argv[1], "--links")) {
		links = true;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: vbj-treecmp [--links] A B\n");
		return 2;
	}
	walk(&a, argv[1], "", false);
	walk(&b, argv[2], "", true);
	qsort(a.e, a.n, sizeof(*a.e), by_path);
	qsort(b.e, b.n, sizeof(*b.e), by_path);
	for (i = 0; i < a.n; i++) {
		struct ent *o = find(&b, a.e[i].path);
		char what[2 * PATH_MAX + 16];

		if (!o) {
			diff(a.e[i].path, "missing");
			ndiff++;
		} else if (strcmp(o->desc, a.e[i].desc)) {
			snprintf(what, sizeof(what), "%s, copy %s", a.e[i].desc,
				 o->desc);
			diff(a.e[i].path, what);
			ndiff++;
		}
	}
	for (i = 0; i < b.n; i++)
		if (!find(&a, b.e[i].path)) {
			diff(b.e[i].path, "extra");
			ndiff++;
		}
	/* the names of one file in A: one file in B too */
	v = calloc(a.n + 1, sizeof(*v));
	for (i = 0; v && i < a.n; i++)
		if (a.e[i].reg && a.e[i].nlink > 1)
			v[nv++] = &a.e[i];
	if (nv)
		qsort(v, nv, sizeof(*v), by_ino);
	for (i = 0; i < nv; i = j) {
		struct ent *first = find(&b, v[i]->path), *o;

		for (j = i + 1; j < nv && v[j]->ino == v[i]->ino; j++) {
			o = find(&b, v[j]->path);
			if (first && o && o->ino != first->ino) {
				split++;
				if (links) {
					diff(v[j]->path, "not a hard link of its "
					     "other name in the copy");
					ndiff++;
				}
			}
		}
	}
	free(v);
	printf("treecmp: %zu entries, %zu differences, %zu links split\n", a.n,
	       ndiff, split);
	if (errors)
		return 2;
	return ndiff ? 1 : 0;
}
