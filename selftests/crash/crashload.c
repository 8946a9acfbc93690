// SPDX-License-Identifier: GPL-2.0
/*
 * The crash test's guest program (selftests/crash/crash.sh runs it).
 *
 *   crashload populate DIR          a tree of directories and small files
 *   crashload run DIR JR SEED       random writes of every kind in DIR, and
 *                                   every WAIT_MS a checkpoint (vbjournal)
 *                                   followed by a manifest of the tree in
 *                                   JR/manifest; runs until the guest is
 *                                   killed (VFSB_CRASH_REFUSE=1: the
 *                                   daemon refuses what cannot wait)
 *   crashload verify DIR JR         after the crash: every directory whose
 *                                   state differs from the last manifest
 *                                   must be named by vbjournal changes
 *                                   since the manifest's cursor
 *
 * A directory's state is the names and types of its entries and, for its
 * files, size, mode, mtime and a hash of the contents. verify prints
 * "CRASHTEST verify: differing D, named N, missed M, false positives F,
 * gaps G" and exits 1 on a miss.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "vfsb.h"
#include "vfsb_uring.h"

#define NDIRS		40
#define NFILES		50	/* per directory: 2000 files */
#define FILE_MAX	4096
#define WAIT_MS		500
#define WORKERS		2

/* ---- the tree's state ---- */

struct ent {
	char *path;		/* relative to the tree's root, "" for it */
	char *line;		/* what the manifest says of it */
	char *parent;		/* its directory's path */
};

struct state {
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

static void add(struct state *s, const char *path, const char *line)
{
	struct ent *e;
	const char *slash = strrchr(path, '/');

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->e = realloc(s->e, s->cap * sizeof(*s->e));
		if (!s->e)
			exit(1);
	}
	e = &s->e[s->n++];
	e->path = strdup(path);
	e->line = strdup(line);
	e->parent = slash ? strndup(path, slash - path) : strdup("");
}

static uint64_t file_hash(const char *abs)
{
	char buf[FILE_MAX];
	uint64_t h = 14695981039346656037ULL;
	ssize_t n;
	int fd = open(abs, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		h = fnv(buf, n, h);
	close(fd);
	return h;
}

/* Everything under root/rel into s. */
static void walk(struct state *s, const char *root, const char *rel)
{
	char abs[2 * PATH_MAX], child[PATH_MAX], line[PATH_MAX + 128];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(abs, sizeof(abs), "%s/%s", root, rel);
	d = opendir(abs);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "lost+found"))
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", rel,
			     rel[0] ? "/" : "", de->d_name) >= (int)sizeof(child))
			continue;
		snprintf(abs, sizeof(abs), "%s/%s", root, child);
		if (lstat(abs, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			snprintf(line, sizeof(line), "D %s", child);
			add(s, child, line);
			walk(s, root, child);
		} else {
			snprintf(line, sizeof(line), "F %s %lld %o %lld.%09ld %016llx",
				 child, (long long)st.st_size, st.st_mode,
				 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
				 (unsigned long long)file_hash(abs));
			add(s, child, line);
		}
	}
	closedir(d);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path, ((const struct ent *)b)->path);
}

/* ---- the workload ---- */

static void rnd_name(char *out, size_t sz, unsigned int *seed, int nfiles)
{
	snprintf(out, sz, "d%02d/f%03d", rand_r(seed) % NDIRS,
		 rand_r(seed) % nfiles);
}

static void fill(char *buf, size_t n, unsigned int *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = 'a' + rand_r(seed) % 26;
}

static int aio_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	aio_context_t ctx = 0;
	struct iocb cb = { 0 }, *cbs[1] = { &cb };
	struct io_event ev;
	int ret = -1;

	if (syscall(SYS_io_setup, 1, &ctx))
		return -1;
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_fildes = fd;
	cb.aio_buf = (unsigned long)buf;
	cb.aio_nbytes = len;
	cb.aio_offset = off;
	if (syscall(SYS_io_submit, ctx, 1, cbs) == 1 &&
	    syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) == 1)
		ret = 0;
	syscall(SYS_io_destroy, ctx);
	return ret;
}

/* The daemon refuses what cannot wait (VFSB_CRASH_REFUSE=1). */
static bool refuse_unwaited;

/* One random change in dir. */
static void one_op(const char *dir, unsigned int *seed, int id, long *made)
{
	char rel[64], rel2[96], abs[PATH_MAX], abs2[PATH_MAX], buf[FILE_MAX];
	int op = rand_r(seed) % 16, fd;
	off_t off = rand_r(seed) % FILE_MAX;
	size_t len = 1 + rand_r(seed) % 256;
	struct vfsb_uring ring;
	char *p;

	rnd_name(rel, sizeof(rel), seed, NFILES);
	snprintf(abs, sizeof(abs), "%s/%s", dir, rel);
	if (off + len > FILE_MAX)
		len = FILE_MAX - off;
	fill(buf, len, seed);
	switch (op) {
	case 0:	/* create */
		snprintf(rel2, sizeof(rel2), "d%02d/n%d_%ld", rand_r(seed) % NDIRS,
			 id, (*made)++);
		snprintf(abs2, sizeof(abs2), "%s/%s", dir, rel2);
		fd = open(abs2, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0) {
			if (write(fd, buf, len) < 0)
				break;
			close(fd);
		}
		break;
	case 1:	/* pwrite */
	case 2:
		fd = open(abs, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (pwrite(fd, buf, len, off) < 0)
				break;
			close(fd);
		}
		break;
	case 3:	/* append, kept small */
		fd = open(abs, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			struct stat st;

			if (!fstat(fd, &st) && st.st_size < FILE_MAX - 64 &&
			    write(fd, buf, 16) < 0)
				break;
			close(fd);
		}
		break;
	case 4:	/* a store through a shared mapping */
		fd = open(abs, O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			struct stat st;

			if (!fstat(fd, &st) && st.st_size > 0) {
				p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, 0);
				if (p != MAP_FAILED) {
					p[rand_r(seed) % st.st_size] = buf[0];
					munmap(p, st.st_size);
				}
			}
			close(fd);
		}
		break;
	case 5:	/* rename across directories */
		snprintf(rel2, sizeof(rel2), "d%02d/r%d_%ld", rand_r(seed) % NDIRS,
			 id, (*made)++);
		snprintf(abs2, sizeof(abs2), "%s/%s", dir, rel2);
		rename(abs, abs2);
		break;
	case 6:	/* unlink */
		unlink(abs);
		break;
	case 7:	/* mkdir, or rmdir of one made before */
		snprintf(abs2, sizeof(abs2), "%s/d%02d/sub%d", dir,
			 rand_r(seed) % NDIRS, id);
		if (mkdir(abs2, 0755) && errno == EEXIST)
			rmdir(abs2);
		break;
	case 8:
		chmod(abs, 0600 | (rand_r(seed) % 2 ? 044 : 0));
		break;
	case 9: {
		struct timespec ts[2] = { { rand_r(seed), 0 }, { rand_r(seed), 0 } };

		utimensat(AT_FDCWD, abs, ts, 0);
		break;
	}
	case 10:
		setxattr(abs, "user.crash", buf, 8, 0);
		break;
	case 11:
		truncate(abs, rand_r(seed) % FILE_MAX);
		break;
	case 12:
		fd = open(abs, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			fallocate(fd, 0, off, len);
			close(fd);
		}
		break;
	case 13:
		/*
		 * io_uring: where what cannot wait is refused
		 * (--refuse-unwaited), alone, retried on EAGAIN as an
		 * application would; else after a write(2) of the same
		 * file, which waits for the directory's ack (an unacked
		 * io_uring write can be lost in a crash: README)
		 */
		fd = open(abs, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		if ((refuse_unwaited || pwrite(fd, buf, 1, off) == 1) &&
		    !vfsb_uring_init(&ring, 4)) {
			int tries = 0;

			while (vfsb_uring_write(&ring, fd, buf, len, off, 1) ==
			       -EAGAIN && refuse_unwaited && ++tries < 1000)
				poll(NULL, 0, 1);
			vfsb_uring_exit(&ring);
		}
		close(fd);
		break;
	case 14:	/* Linux AIO */
		fd = open(abs, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			aio_pwrite(fd, buf, len, off);
			close(fd);
		}
		break;
	default:	/* create again what was unlinked or renamed away */
		fd = open(abs, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		break;
	}
}

static void populate(const char *dir)
{
	char path[PATH_MAX], buf[FILE_MAX];
	unsigned int seed = 1;
	int i, j, fd;

	for (i = 0; i < NDIRS; i++) {
		snprintf(path, sizeof(path), "%s/d%02d", dir, i);
		mkdir(path, 0755);
		for (j = 0; j < NFILES; j++) {
			size_t len = rand_r(&seed) % FILE_MAX;

			snprintf(path, sizeof(path), "%s/d%02d/f%03d", dir, i, j);
			fill(buf, len, &seed);
			fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
			if (fd < 0 || write(fd, buf, len) < 0)
				exit(1);
			close(fd);
		}
	}
	sync();
}

/* Runs a command; its first line of output into out. Exit status. */
static int run(char *const argv[], char *out, size_t sz)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], out, sz - 1);
	out[n > 0 ? n : 0] = 0;
	out[strcspn(out, "\n")] = 0;
	while (read(p[0], sz > 1 ? out + sz - 1 : out, 0) > 0)
		;
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* A manifest of the tree as of cursor, durable when this returns. */
static int write_manifest(const char *dir, const char *jr, const char *cursor)
{
	char tmp[PATH_MAX], final[PATH_MAX];
	struct state s = { 0 };
	size_t i;
	FILE *f;
	int dfd;

	walk(&s, dir, "");
	qsort(s.e, s.n, sizeof(*s.e), by_path);
	snprintf(tmp, sizeof(tmp), "%s/manifest.tmp", jr);
	snprintf(final, sizeof(final), "%s/manifest", jr);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "cursor %s\n", cursor);
	for (i = 0; i < s.n; i++)
		fprintf(f, "%s\n", s.e[i].line);
	if (fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, final))
		return -1;
	dfd = open(jr, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd))
		return -1;
	close(dfd);
	for (i = 0; i < s.n; i++) {
		free(s.e[i].path);
		free(s.e[i].line);
		free(s.e[i].parent);
	}
	free(s.e);
	return 0;
}

static void run_load(const char *dir, const char *jr, unsigned int seed)
{
	char journal[PATH_MAX], cursor[128];
	char *ck[] = { "vbjournal", "--journal", journal, "checkpoint", NULL };
	int i, n = 0;

	snprintf(journal, sizeof(journal), "%s/journal", jr);
	for (i = 0; i < WORKERS; i++) {
		if (!fork()) {
			unsigned int s = seed * 7919 + i;
			long made = 0;

			for (;;)
				one_op(dir, &s, i, &made);
		}
	}
	for (;;) {
		struct timespec ts = { 0, WAIT_MS * 1000000L };

		nanosleep(&ts, NULL);
		if (run(ck, cursor, sizeof(cursor)) || !cursor[0]) {
			fprintf(stderr, "crashload: checkpoint failed\n");
			continue;
		}
		if (write_manifest(dir, jr, cursor)) {
			fprintf(stderr, "crashload: manifest: %s\n", strerror(errno));
			continue;
		}
		if (!n++)
			printf("CRASHTEST running\n");
		fflush(stdout);
	}
}

/* ---- verification ---- */

static void read_manifest(const char *jr, char *cursor, size_t csz,
			  struct state *s)
{
	char path[PATH_MAX], line[PATH_MAX + 128], rel[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/manifest", jr);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "cursor %127s", cursor) != 1) {
		fprintf(stderr, "crashload: no manifest in %s\n", jr);
		exit(2);
	}
	(void)csz;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line + 2, "%4095s", rel) == 1)
			add(s, rel, line);
	}
	fclose(f);
}

/* One signature per directory: its entries' lines, hashed in order. */
struct sig {
	char *dir;
	uint64_t h;
};

static int sig_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sig *)a)->dir, ((const struct sig *)b)->dir);
}

static struct sig *signatures(struct state *s, size_t *n)
{
	struct sig *g = calloc(s->n + 1, sizeof(*g));
	size_t i, k = 0;

	qsort(s->e, s->n, sizeof(*s->e), by_path);
	g[k++] = (struct sig){ strdup(""), 14695981039346656037ULL };
	for (i = 0; i < s->n; i++)
		if (s->e[i].line[0] == 'D')
			g[k++] = (struct sig){ s->e[i].path, 14695981039346656037ULL };
	qsort(g, k, sizeof(*g), sig_cmp);
	for (i = 0; i < s->n; i++) {
		struct sig key = { s->e[i].parent, 0 }, *d;

		d = bsearch(&key, g, k, sizeof(*g), sig_cmp);
		if (d)
			d->h = fnv(s->e[i].line, strlen(s->e[i].line) + 1, d->h);
	}
	*n = k;
	return g;
}

static int verify(const char *dir, const char *jr)
{
	char cursor[128], journal[PATH_MAX], line[PATH_MAX + 64];
	struct state before = { 0 }, now = { 0 };
	struct sig *gb, *gn;
	size_t nb, nn, i, nlisted = 0, ndiff = 0, nmiss = 0, nfp = 0, ngap = 0;
	size_t nunres = 0, dirlen = strlen(dir);
	char **listed = NULL;
	FILE *p;

	read_manifest(jr, cursor, sizeof(cursor), &before);
	walk(&now, dir, "");
	snprintf(journal, sizeof(journal),
		 "vbjournal --journal %s/journal changes --since %s", jr, cursor);
	p = popen(journal, "r");
	if (!p)
		return 2;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "dir ? ", 6)) {
			nunres++;
		} else if (!strncmp(line, "dir ", 4)) {
			const char *path = line + 4;
			size_t len = strlen(line);

			/* a path not from its handle now: as it was stored */
			if (len > 14 && !strcmp(line + len - 14, " (stored path)"))
				line[len - 14] = 0;
			else if (len > 7 && !strcmp(line + len - 7, " (gone)"))
				line[len - 7] = 0;

			if (!strncmp(path, dir, dirlen) &&
			    (path[dirlen] == '/' || !path[dirlen])) {
				path += dirlen + (path[dirlen] == '/');
				listed = realloc(listed, (nlisted + 1) * sizeof(*listed));
				listed[nlisted++] = strdup(path);
			}
		} else if (!strncmp(line, "rescan fs", 9)) {
			ngap++;
			printf("CRASHTEST gap: %s\n", line);
		} else if (!strncmp(line, "full rescan", 11)) {
			printf("CRASHTEST %s\n", line);
			ngap++;
		}
	}
	pclose(p);
	gb = signatures(&before, &nb);
	gn = signatures(&now, &nn);
	/* directories in both trees whose state differs must be named */
	for (i = 0; i < nb; i++) {
		struct sig *o = bsearch(&gb[i], gn, nn, sizeof(*gn), sig_cmp);
		size_t k;
		bool named = false;

		if (!o || o->h == gb[i].h)
			continue;
		ndiff++;
		for (k = 0; k < nlisted && !named; k++)
			named = !strcmp(listed[k], gb[i].dir);
		if (!named) {
			nmiss++;
			printf("CRASHTEST %s: /%s differs and was not named\n",
			       ngap ? "covered by a gap" : "MISSED", gb[i].dir);
		}
	}
	for (i = 0; i < nlisted; i++) {
		struct sig key = { listed[i], 0 }, *a, *b;

		a = bsearch(&key, gb, nb, sizeof(*gb), sig_cmp);
		b = bsearch(&key, gn, nn, sizeof(*gn), sig_cmp);
		if (a && b && a->h == b->h)
			nfp++;
	}
	/* a gap makes the filesystem a rescan: nothing under it is missed */
	printf("CRASHTEST verify: cursor %s, directories %zu, differing %zu, "
	       "named %zu (+%zu unresolved), missed %zu, covered by gaps %zu, "
	       "false positives %zu, gaps %zu\n", cursor, nn, ndiff, nlisted,
	       nunres, ngap ? 0 : nmiss, ngap ? nmiss : 0, nfp, ngap);
	return nmiss && !ngap;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "populate")) {
		populate(argv[2]);
		return 0;
	}
	refuse_unwaited = getenv("VFSB_CRASH_REFUSE") &&
			  !strcmp(getenv("VFSB_CRASH_REFUSE"), "1");
	if (argc == 5 && !strcmp(argv[1], "run")) {
		run_load(argv[2], argv[3], strtoul(argv[4], NULL, 0));
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "verify"))
		return verify(argv[2], argv[3]);
	fprintf(stderr, "usage: crashload populate DIR | run DIR JR SEED | "
		"verify DIR JR\n");
	return 2;
}
