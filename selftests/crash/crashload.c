// SPDX-License-Identifier: GPL-2.0
/*
 * The crash test's guest program (selftests/crash/crash.sh runs it).
 *
 *   crashload populate DIR          a tree of directories and small files,
 *                                   with an area for each workload mode
 *   crashload run DIR JR SEED [WDIR]  the mode's writes in DIR, and every
 *                                   WAIT_MS (newdirs: 4x) a checkpoint (vbjournal)
 *                                   followed by a manifest of the tree in
 *                                   JR/manifest; runs until the guest is
 *                                   killed; with WDIR the writers write there (the
 *                                   same tree through another mount: an
 *                                   NFS client's), the manifest is of DIR
 *   crashload manifest DIR JR CURSOR  a manifest now, as run writes it
 *   crashload mount SRC DIR TYPE OPTS  mount(2) with OPTS as its text,
 *                                   retried for 20 s while the server is
 *                                   not yet up (busybox mount talks to
 *                                   rpcbind itself for NFSv3)
 *   crashload verify DIR JR         after the crash: what a consumer of
 *                                   `vbjournal changes --json` since the
 *                                   manifest's cursor would find (below)
 *
 * VFSB_CRASH_MODE chooses the workload: mixed (default: every kind of
 * write in d00..d39), hardlink (files hA<i>/f<j> with a second name
 * hB<i>_<j>/l, written mostly through the first), tmpfile (O_TMPFILE
 * files made in tS, linked into tD*, written through the descriptor
 * they were made with; also files made as tS/u*, linked into tD* and
 * unlinked from tS, written through their descriptor), dirrename
 * (whole subtrees of r* renamed while written inside, the journal's
 * disk kept busy so that the daemon's commits lag), restart (mixed's
 * workload while crash.sh restarts the daemon every second or so
 * through a file descriptor store: svcrun.c), nfs (mixed's workload
 * written through an NFS client's mount of DIR, over loopback: the
 * changes are nfsd's, a kernel thread's), newdirs (directories made
 * and written in: newdirs_op()).
 *
 * The manifest holds a line per entry: "D path", or "F path size mode
 * mtime hash ino" for anything else. A path differs when its line is not
 * the same (or it is in one of the manifest and the tree only). The
 * verifier models the consumer of vbjournal(1) (its own copy of the tree
 * is the manifest, with an inode map from it) and counts a differing
 * path as covered when the answer leads that consumer to it:
 *   - its directory is named (`dir`): the consumer re-reads its entries,
 *     sees names new and gone, compares the names it knows;
 *   - an ancestor is named as `moved`: that subtree is read whole;
 *   - an ancestor is a directory the consumer never saw, in a directory
 *     it re-reads (read whole), or one gone that it learns is gone;
 *   - it is a directory named by `dir` that is gone;
 *   - a `file` entry names it, or has the inode the manifest gives it
 *     (the consumer looks the other names up in its inode map);
 *   - a rescan of its filesystem, or a full rescan (exit 3).
 * Nothing else: a file changed through a hard link A/f is not covered
 * for its name B/f by `dir A`. verify prints "CRASHTEST verify: mode M,
 * cursor C, paths P, differing D, covered C (...), missed M, named N,
 * false positives F, gaps G" (an entry named whose target did not
 * differ is a false positive) and, as its own negative control, how many
 * entries the answer could not do without; it exits 1 on a miss.
 * VFSB_CRASH_ANSWER=FILE reads the answer from FILE instead of asking
 * vbjournal (host tests of the verifier).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <sys/mman.h>
#include <sys/mount.h>
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
	unsigned long long ino;	/* a file's inode number, 0 for a directory */
	bool dir;
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
	e->dir = line[0] == 'D';
	e->ino = 0;
	if (!e->dir && strrchr(line, ' '))
		e->ino = strtoull(strrchr(line, ' ') + 1, NULL, 10);
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

/*
 * path with each newline written as "\\n" (the manifest is one line an
 * entry; the mirror mode makes files with a newline in their names).
 */
static const char *nl_esc(const char *path, char *out, size_t sz)
{
	size_t k = 0;

	for (; *path && k + 3 < sz; path++) {
		if (*path == '\n') {
			out[k++] = '\\';
			out[k++] = 'n';
		} else {
			out[k++] = *path;
		}
	}
	out[k] = 0;
	return out;
}

/* Everything under root/rel into s. */
static void walk(struct state *s, const char *root, const char *rel)
{
	char abs[2 * PATH_MAX], child[PATH_MAX], line[2 * PATH_MAX + 160];
	char esc[PATH_MAX];
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
		nl_esc(child, esc, sizeof(esc));
		if (S_ISDIR(st.st_mode)) {
			snprintf(line, sizeof(line), "D %s", esc);
			add(s, esc, line);
			walk(s, root, child);
		} else {
			snprintf(line, sizeof(line), "F %s %lld %o %lld.%09ld %016llx %llu",
				 esc, (long long)st.st_size, st.st_mode,
				 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
				 (unsigned long long)file_hash(abs),
				 (unsigned long long)st.st_ino);
			add(s, esc, line);
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

enum mode { MIXED, HARDLINK, TMPFILE, DIRRENAME, RESTART, NFS, MIRROR,
	    NEWDIRS };

static const char *const mode_names[] = { "mixed", "hardlink", "tmpfile",
					  "dirrename", "restart", "nfs",
					  "mirror", "newdirs" };
static enum mode mode;

/* A file written in directory d: d/f, or d/s/f (s made if need be). */
static void write_inside(const char *d, unsigned int *seed, const char *buf,
			 size_t len)
{
	char f[PATH_MAX + 8];
	int fd;

	if (rand_r(seed) % 2) {
		snprintf(f, sizeof(f), "%s/s", d);
		mkdir(f, 0755);
		snprintf(f, sizeof(f), "%s/s/f", d);
	} else {
		snprintf(f, sizeof(f), "%s/f", d);
	}
	fd = open(f, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		if (write(fd, buf, len) < 0)
			len = 0;
		close(fd);
	}
}

/*
 * A directory made, then written in, over and over: d<nn>/t<id>_<j>
 * (four names a worker reuses), its file f or s/f. Now and then the
 * name is renamed away (to d<nn>/old<id>_<n>, whole) and made again: a
 * new directory under a name a consumer knows. What a mkdir makes in a
 * directory acked in the epoch counts as acked too (VFSB_SUB_NEW_DIRS),
 * so the writes inside it wait for nothing and only their records name
 * it: a crash before the daemon stores them must still leave an answer
 * that leads a consumer who read it before (the manifest's walk, after
 * the epoch began) back into it.
 */
static void new_dir_op(const char *dir, unsigned int *seed, int id,
		       long *made, const char *buf, size_t len)
{
	char d[PATH_MAX], old[PATH_MAX];
	int n = rand_r(seed) % NDIRS;

	snprintf(d, sizeof(d), "%s/d%02d/t%d_%d", dir, n, id,
		 rand_r(seed) % 4);
	if (mkdir(d, 0755) && errno == EEXIST && !(rand_r(seed) % 8)) {
		snprintf(old, sizeof(old), "%s/d%02d/old%d_%ld", dir, n, id,
			 (*made)++);
		if (!rename(d, old))
			mkdir(d, 0755);
	}
	write_inside(d, seed, buf, len);
}

/*
 * The newdirs mode's op: a new directory d0<0|1>/u<tag>_<id>_<k> (tag
 * from the boot's seed, k counting up: never one made before) with a
 * file in it, or a file written again in one of the last four it made. Two parents only, acked by their
 * first change in each epoch, so that what is made below them waits
 * for nothing (VFSB_SUB_NEW_DIRS) and a crash can come between a write
 * inside a new directory and the daemon's storing of its record, after
 * the manifest's walk saw the directory.
 */
#define NEWDIRS_MAX	1000

static void newdirs_op(const char *dir, unsigned int *seed, int id,
		       long *made)
{
	static long recent[4];
	static int nrecent;
	static struct timespec since;
	static unsigned int tag;
	char d[PATH_MAX], buf[256];
	size_t len = 1 + rand_r(seed) % sizeof(buf);
	struct timespec now;
	long k;

	if (!tag)
		tag = 1 + *seed % 1000000;
	/* a thousand a boot: the tree the next boots walk stays small */
	if (*made >= NEWDIRS_MAX) {
		poll(NULL, 0, 10);
		return;
	}
	fill(buf, len, seed);
	/*
	 * the last four, while the first of them is younger than 300 ms:
	 * of this epoch most likely (an older one's first change in the
	 * epoch would wait, and its intent wake the daemon, which then
	 * stores the records the crash should find in the ring)
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - since.tv_sec) * 1000 +
	    (now.tv_nsec - since.tv_nsec) / 1000000 > 300) {
		nrecent = 0;
		since = now;
	}
	if (nrecent && rand_r(seed) % 2) {
		k = recent[rand_r(seed) % nrecent];
	} else {
		k = (*made)++;
		recent[nrecent < 4 ? nrecent++ : rand_r(seed) % 4] = k;
	}
	snprintf(d, sizeof(d), "%s/d%02ld/u%u_%d_%ld", dir, k % 2, tag, id,
		 k);
	mkdir(d, 0755);
	write_inside(d, seed, buf, len);
}

/*
 * An io_uring openat of path with O_CREAT | O_EXCL (made in an io-wq
 * worker): its descriptor, or -errno. Retried on EAGAIN, as an
 * application would.
 */
static int uring_create(struct vfsb_uring *r, const char *path)
{
	int tries = 0, res;

	do {
		res = vfsb_uring_openat(r, path, O_CREAT | O_EXCL | O_WRONLY |
					O_CLOEXEC, 0644);
	} while (res == -EAGAIN && ++tries < 1000 && !poll(NULL, 0, 1));
	return res;
}

/* One random change in dir. */
static void one_op(const char *dir, unsigned int *seed, int id, long *made)
{
	char rel[64], rel2[96], abs[PATH_MAX], abs2[PATH_MAX], buf[FILE_MAX];
	int op = rand_r(seed) % 17, fd;
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
		 * io_uring, whose writes and creating opens wait for their
		 * directory's ack in an io-wq worker: a write of a file, or
		 * a new file made by an io_uring openat and written by it.
		 * EAGAIN (an application's retry) only if one was refused.
		 */
		if (vfsb_uring_init(&ring, 4)) {
			vfsb_uring_exit(&ring);
			break;
		}
		if (rand_r(seed) % 2) {
			fd = open(abs, O_WRONLY | O_CLOEXEC);
		} else {
			snprintf(rel2, sizeof(rel2), "d%02d/u%d_%ld",
				 rand_r(seed) % NDIRS, id, (*made)++);
			snprintf(abs2, sizeof(abs2), "%s/%s", dir, rel2);
			fd = uring_create(&ring, abs2);
		}
		if (fd >= 0) {
			int tries = 0;

			while (vfsb_uring_write(&ring, fd, buf, len, off, 1) ==
			       -EAGAIN && ++tries < 1000)
				poll(NULL, 0, 1);
			close(fd);
		}
		vfsb_uring_exit(&ring);
		break;
	case 14:	/* Linux AIO */
		fd = open(abs, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			aio_pwrite(fd, buf, len, off);
			close(fd);
		}
		break;
	case 15:
		new_dir_op(dir, seed, id, made, buf, len);
		break;
	default:	/* create again what was unlinked or renamed away */
		fd = open(abs, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		break;
	}
}

/* ---- the other workload modes: each in its own area of the tree ---- */

#define HDIRS		8	/* hA00..: files f00..; hB00_00..: their links */
#define HFILES		16
#define TDIRS		8	/* tD00..: names of files made in tS */
#define RPARENTS	6	/* r00..: subtrees s0.. with x/ and x/y/ */
#define RSUBS		3
#define RFILES		4
#define SLOTS		8
#define MDIRS		4	/* mirror: m<i>, names of every kind */
#define MNAMES		6


static void put_file(const char *path, size_t len, unsigned int *seed)
{
	char buf[FILE_MAX];
	int fd;

	fill(buf, len, seed);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, len) < 0)
		exit(1);
	close(fd);
}

/* One subtree: SUB/x/f0.., SUB/x/y/f0.. */
static void make_subtree(const char *sub, unsigned int *seed)
{
	char path[PATH_MAX];
	int k;

	if (mkdir(sub, 0755))
		return;
	snprintf(path, sizeof(path), "%s/x", sub);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/x/y", sub);
	mkdir(path, 0755);
	for (k = 0; k < RFILES; k++) {
		snprintf(path, sizeof(path), "%s/x/f%d", sub, k);
		put_file(path, rand_r(seed) % 1024, seed);
		snprintf(path, sizeof(path), "%s/x/y/f%d", sub, k);
		put_file(path, rand_r(seed) % 1024, seed);
	}
}

static void populate_areas(const char *dir)
{
	char path[PATH_MAX], link2[PATH_MAX];
	unsigned int seed = 2;
	int i, j;

	/*
	 * hardlink: hA<i>/f<j> is also hB<i>_<j>/l, a directory of its own,
	 * which nothing but that name's own changes names
	 */
	for (i = 0; i < HDIRS; i++) {
		snprintf(path, sizeof(path), "%s/hA%02d", dir, i);
		mkdir(path, 0755);
		for (j = 0; j < HFILES; j++) {
			snprintf(path, sizeof(path), "%s/hA%02d/f%02d", dir, i, j);
			put_file(path, rand_r(&seed) % FILE_MAX, &seed);
			snprintf(link2, sizeof(link2), "%s/hB%02d_%02d", dir, i, j);
			mkdir(link2, 0755);
			snprintf(link2, sizeof(link2), "%s/hB%02d_%02d/l", dir, i, j);
			link(path, link2);
		}
	}
	/* tmpfile: tS, where they are made, and tD<i>, where they are named */
	snprintf(path, sizeof(path), "%s/tS", dir);
	mkdir(path, 0755);
	for (i = 0; i < TDIRS; i++) {
		snprintf(path, sizeof(path), "%s/tD%02d", dir, i);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/tD%02d/seed", dir, i);
		put_file(path, 100, &seed);
	}
	/* mirror: m<i>, where names become directories and back */
	for (i = 0; i < MDIRS; i++) {
		snprintf(path, sizeof(path), "%s/m%d", dir, i);
		mkdir(path, 0755);
	}
	/* dirrename: r<i>/s<j>/x/{f,y/f} */
	for (i = 0; i < RPARENTS; i++) {
		snprintf(path, sizeof(path), "%s/r%02d", dir, i);
		mkdir(path, 0755);
		for (j = 0; j < RSUBS; j++) {
			snprintf(path, sizeof(path), "%s/r%02d/s%d", dir, i, j);
			make_subtree(path, &seed);
		}
	}
}

/* One writing op through fd, of a kind drawn from seed. */
static void write_fd(int fd, unsigned int *seed)
{
	char buf[FILE_MAX];
	off_t off = rand_r(seed) % (FILE_MAX / 2);
	size_t len = 1 + rand_r(seed) % 256;

	fill(buf, len, seed);
	switch (rand_r(seed) % 6) {
	case 0:
		if (ftruncate(fd, rand_r(seed) % FILE_MAX))
			break;
		break;
	case 1:
		fchmod(fd, 0600 | (rand_r(seed) % 2 ? 044 : 0));
		break;
	case 2: {
		struct timespec ts[2] = { { rand_r(seed), 0 }, { rand_r(seed), 0 } };

		futimens(fd, ts);
		break;
	}
	default:
		if (pwrite(fd, buf, len, off) < 0)
			break;
		break;
	}
}

static void hardlink_op(const char *dir, unsigned int *seed, int id,
			long *made, int *fds)
{
	int op = rand_r(seed) % 16, i = rand_r(seed) % HDIRS;
	int j = rand_r(seed) % HFILES, s = rand_r(seed) % SLOTS, fd;
	char a[PATH_MAX], l[PATH_MAX];
	struct timespec pause = { 0, 5000000 };

	/* paced, so that an epoch names some of the hB directories only */
	nanosleep(&pause, NULL);
	snprintf(a, sizeof(a), "%s/hA%02d/f%02d", dir, i, j);
	snprintf(l, sizeof(l), "%s/hB%02d_%02d/l", dir, i, j);
	switch (op) {
	case 0 ... 8:	/* through the first name */
	case 9:		/* through the other */
		fd = open(op == 9 ? l : a, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			write_fd(fd, seed);
			close(fd);
		}
		break;
	case 10 ... 12:	/* through a descriptor opened long before */
		if (fds[s] < 0)
			fds[s] = open(a, O_WRONLY | O_CLOEXEC);
		if (fds[s] >= 0)
			write_fd(fds[s], seed);
		if (op == 12 && fds[s] >= 0 && rand_r(seed) % 8 == 0) {
			close(fds[s]);
			fds[s] = -1;
		}
		break;
	case 13:	/* the other name taken away, or given again */
		if (unlink(l) && errno == ENOENT)
			link(a, l);
		break;
	case 14:	/* one more name, in another file's hB directory */
		snprintf(l, sizeof(l), "%s/hB%02d_%02d/n%d_%ld", dir,
			 rand_r(seed) % HDIRS, rand_r(seed) % HFILES, id,
			 (*made)++);
		link(a, l);
		break;
	default:	/* the first name replaced: a new file, one name */
		snprintf(l, sizeof(l), "%s/hA%02d/f%02d.new", dir, i, j);
		fd = open(l, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0) {
			write_fd(fd, seed);
			close(fd);
			if (rand_r(seed) % 4 == 0)
				rename(l, a);
			else
				unlink(l);
		}
		break;
	}
}

/* A descriptor of an O_TMPFILE file and the name linkat() gave it. */
struct tslot {
	int fd;
	char name[PATH_MAX];
};

static void tmpfile_op(const char *dir, unsigned int *seed, int id,
		       long *made, struct tslot *t)
{
	int op = rand_r(seed) % 12, s = rand_r(seed) % SLOTS;
	char path[PATH_MAX], buf[512];
	struct tslot *ts = &t[s];

	switch (op) {
	case 0:		/* made in tS, named in tD<k>, then written */
		if (ts->fd >= 0)
			close(ts->fd);
		snprintf(path, sizeof(path), "%s/tS", dir);
		ts->fd = open(path, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
		if (ts->fd < 0)
			break;
		fill(buf, sizeof(buf), seed);
		if (write(ts->fd, buf, 1 + rand_r(seed) % sizeof(buf)) < 0)
			break;
		snprintf(ts->name, sizeof(ts->name), "%s/tD%02d/t%d_%ld", dir,
			 rand_r(seed) % TDIRS, id, (*made)++);
		if (linkat(ts->fd, "", AT_FDCWD, ts->name, AT_EMPTY_PATH)) {
			close(ts->fd);
			ts->fd = -1;
		}
		break;
	case 1:		/* made as tS/u, linked into tD<k>, tS/u unlinked */
		if (ts->fd >= 0)
			close(ts->fd);
		snprintf(path, sizeof(path), "%s/tS/u%d_%ld", dir, id, (*made)++);
		ts->fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);
		if (ts->fd < 0)
			break;
		fill(buf, sizeof(buf), seed);
		snprintf(ts->name, sizeof(ts->name), "%s/tD%02d/u%d_%ld", dir,
			 rand_r(seed) % TDIRS, id, (*made)++);
		if (write(ts->fd, buf, 1 + rand_r(seed) % sizeof(buf)) < 0 ||
		    link(path, ts->name) || unlink(path)) {
			close(ts->fd);
			ts->fd = -1;
		}
		break;
	case 2 ... 8:	/* through the descriptor it was made with */
		if (ts->fd >= 0)
			write_fd(ts->fd, seed);
		break;
	case 9:		/* its name moved to another tD */
		if (ts->fd < 0)
			break;
		snprintf(path, sizeof(path), "%s/tD%02d/m%d_%ld", dir,
			 rand_r(seed) % TDIRS, id, (*made)++);
		if (!rename(ts->name, path))
			snprintf(ts->name, sizeof(ts->name), "%s", path);
		break;
	case 10:	/* a second name */
		if (ts->fd < 0)
			break;
		snprintf(path, sizeof(path), "%s/tD%02d/k%d_%ld", dir,
			 rand_r(seed) % TDIRS, id, (*made)++);
		link(ts->name, path);
		break;
	default:	/* written through its name */
		if (ts->fd < 0)
			break;
		{
			int fd = open(ts->name, O_WRONLY | O_CLOEXEC);

			if (fd >= 0) {
				write_fd(fd, seed);
				close(fd);
			}
		}
		break;
	}
}

/* snprintf for paths, which the tree keeps short. */
static __attribute__((format(printf, 3, 4)))
void pathf(char *out, size_t sz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, sz, fmt, ap);
	va_end(ap);
}

/* A random entry of dir whose name starts with c, into out; 0 if found. */
static int pick(const char *dir, char c, unsigned int *seed, char *out,
		size_t sz)
{
	struct dirent *de;
	int n = 0, want;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	want = rand_r(seed) % 8;
	while ((de = readdir(d)))
		if (de->d_name[0] == c) {
			pathf(out, sz, "%s/%s", dir, de->d_name);
			if (n++ >= want)
				break;
		}
	closedir(d);
	return n ? 0 : -1;
}

static void dirrename_op(const char *dir, unsigned int *seed, int id,
			 long *made)
{
	int op = rand_r(seed) % 10, fd;
	char parent[PATH_MAX], sub[PATH_MAX], path[PATH_MAX], to[PATH_MAX];

	snprintf(parent, sizeof(parent), "%s/r%02d", dir,
		 rand_r(seed) % RPARENTS);
	if (pick(parent, 's', seed, sub, sizeof(sub))) {
		pathf(sub, sizeof(sub), "%s/s%d_%ld", parent, id, (*made)++);
		make_subtree(sub, seed);
		return;
	}
	snprintf(to, sizeof(to), "%s/r%02d/s%d_%ld", dir,
		 rand_r(seed) % RPARENTS, id, (*made)++);
	pathf(path, sizeof(path), "%s/x%s/f%d", sub,
		 rand_r(seed) % 2 ? "/y" : "", rand_r(seed) % RFILES);
	switch (op) {
	case 0 ... 1:	/* a whole subtree renamed */
		rename(sub, to);
		break;
	case 2:		/* renamed, then written inside at once */
		if (!rename(sub, to)) {
			pathf(path, sizeof(path), "%s/x/y/f%d", to,
				 rand_r(seed) % RFILES);
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				write_fd(fd, seed);
				close(fd);
			}
		}
		break;
	case 3 ... 5:	/* written inside */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			write_fd(fd, seed);
			close(fd);
		}
		break;
	case 6:		/* opened, its subtree renamed, written: a stale path */
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			rename(sub, to);
			write_fd(fd, seed);
			close(fd);
		}
		break;
	case 7:		/* an inner directory renamed within its subtree */
		pathf(path, sizeof(path), "%s/x/y", sub);
		pathf(to, sizeof(to), "%s/x/y%d", sub, id);
		if (rename(path, to))
			rename(to, path);
		break;
	case 8:		/* a new file deep inside */
		pathf(path, sizeof(path), "%s/x/y/n%d_%ld", sub, id, (*made)++);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		break;
	default:	/* a new subtree */
		make_subtree(to, seed);
		break;
	}
}

/*
 * vbjournald has no knob to hold its commits back: in dirrename mode the
 * journal's disk is kept busy instead (large writes, each fsync'ed), so
 * that the daemon's commit and fsync lag behind the renames.
 */
static void busy_disk(const char *jr)
{
	static char buf[1 << 20];
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/busy", jr);
	memset(buf, 'b', sizeof(buf));
	for (;;) {
		fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return;
		for (int k = 0; k < 4; k++)
			if (write(fd, buf, sizeof(buf)) < 0)
				break;
		fsync(fd);
		close(fd);
	}
}

/*
 * The mirror mode's own corner: in m<i>, names with a newline or bytes
 * that are not UTF-8 (files only with a newline: the manifest escapes
 * it), each a file, a directory (with a file and a subdirectory in it)
 * or a symbolic link, replaced by another kind now and then; hard
 * links ln<n> to another m directory's plain files, made and taken
 * away (while the daemon runs, so that the journal knows their
 * directories); files rewritten (often at the same size, through
 * either name), chmod, xattrs.
 */
static void mirror_op(const char *dir, unsigned int *seed)
{
	static const char *const kinds[] = { "plain%d", "bad\xff\xfe%d",
					     "new\nline%d", "ln%d" };
	char path[PATH_MAX], sub[PATH_MAX + 16], buf[512], name[64];
	int k = rand_r(seed) % 4, n = rand_r(seed) % MNAMES, op = rand_r(seed) % 8;
	struct stat st;
	size_t len;
	int fd;

	snprintf(name, sizeof(name), kinds[k], n);
	snprintf(path, sizeof(path), "%s/m%d/%s", dir, rand_r(seed) % MDIRS, name);
	if (lstat(path, &st)) {
		st.st_mode = 0;
		op = 0;
	}
	if (op == 0 && k == 3) {	/* a link made, or taken away */
		if (st.st_mode) {
			unlink(path);
		} else {
			snprintf(sub, sizeof(sub), "%s/m%d/plain%d", dir,
				 rand_r(seed) % MDIRS, rand_r(seed) % MNAMES);
			link(sub, path);
		}
		return;
	}
	if (op == 0) {			/* made, or replaced by another kind */
		if (S_ISDIR(st.st_mode)) {
			snprintf(sub, sizeof(sub), "%s/in", path);
			unlink(sub);
			snprintf(sub, sizeof(sub), "%s/d/in", path);
			unlink(sub);
			snprintf(sub, sizeof(sub), "%s/d", path);
			rmdir(sub);
			rmdir(path);
		} else if (st.st_mode) {
			unlink(path);
		}
		if (k != 2 && (S_ISREG(st.st_mode) || !st.st_mode) &&
		    rand_r(seed) % 2) {
			mkdir(path, 0755);
			snprintf(sub, sizeof(sub), "%s/in", path);
			put_file(sub, rand_r(seed) % 512, seed);
			snprintf(sub, sizeof(sub), "%s/d", path);
			mkdir(sub, 0700);
			snprintf(sub, sizeof(sub), "%s/d/in", path);
			put_file(sub, rand_r(seed) % 512, seed);
		} else if (S_ISLNK(st.st_mode) || rand_r(seed) % 3) {
			put_file(path, rand_r(seed) % 512, seed);
		} else {
			snprintf(sub, sizeof(sub), "target-%d", rand_r(seed) % 100);
			symlink(sub, path);
		}
		return;
	}
	if (S_ISDIR(st.st_mode)) {	/* a file inside changes */
		snprintf(sub, sizeof(sub), "%s/%s", path,
			 rand_r(seed) % 2 ? "in" : "d/in");
		strcpy(path, sub);
		if (lstat(path, &st))
			return;
	}
	if (!S_ISREG(st.st_mode))
		return;
	switch (op) {
	case 1 ... 4:			/* rewritten, often the same size */
		len = op < 3 ? (size_t)st.st_size : rand_r(seed) % sizeof(buf);
		if (len > sizeof(buf))
			len = sizeof(buf);
		fill(buf, len, seed);
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, buf, len) < 0)
				len = 0;
			close(fd);
		}
		break;
	case 5:
		chmod(path, rand_r(seed) % 2 ? 0600 : 0644);
		break;
	default:
		snprintf(buf, sizeof(buf), "v%d", rand_r(seed) % 1000);
		setxattr(path, rand_r(seed) % 2 ? "user.a" : "user.b", buf,
			 strlen(buf), 0);
		break;
	}
}

/* The mode's writes, forever. */
static void worker(const char *dir, unsigned int s, int id)
{
	struct tslot t[SLOTS];
	int fds[SLOTS], k;
	long made = 0;

	for (k = 0; k < SLOTS; k++) {
		fds[k] = -1;
		t[k].fd = -1;
	}
	for (;;) {
		switch (mode) {
		case HARDLINK:
			hardlink_op(dir, &s, id, &made, fds);
			break;
		case TMPFILE:
			tmpfile_op(dir, &s, id, &made, t);
			break;
		case DIRRENAME:
			dirrename_op(dir, &s, id, &made);
			break;
		case NEWDIRS:
			newdirs_op(dir, &s, id, &made);
			break;
		case MIRROR:	/* mixed's, dirrename's, and its own corner */
			switch (rand_r(&s) % 4) {
			case 0 ... 1:
				one_op(dir, &s, id, &made);
				break;
			case 2:
				dirrename_op(dir, &s, id, &made);
				break;
			default:
				mirror_op(dir, &s);
				break;
			}
			break;
		default:
			one_op(dir, &s, id, &made);
			break;
		}
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
	populate_areas(dir);
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
	fprintf(f, "cursor %s mode %s\n", cursor, mode_names[mode]);
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

static void run_load(const char *dir, const char *jr, unsigned int seed,
		     const char *wdir)
{
	char journal[PATH_MAX], cursor[128];
	char *ck[] = { "vbjournal", "--journal", journal, "checkpoint", NULL };
	int i, k, n = 0;

	snprintf(journal, sizeof(journal), "%s/journal", jr);
	for (i = 0; i < WORKERS; i++) {
		if (!fork()) {
			worker(wdir, seed * 7919 + i, i);
			_exit(1);
		}
	}
	if (mode == DIRRENAME && !fork()) {
		busy_disk(jr);
		_exit(1);
	}
	for (;;) {
		/*
		 * newdirs: epochs long enough that, once the two parents'
		 * first changes were acked, the new directories below them
		 * are made and written for a while before the next one
		 */
		long ms = mode == NEWDIRS ? 4 * WAIT_MS : WAIT_MS;
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		k = run(ck, cursor, sizeof(cursor));
		if (k || !cursor[0]) {
			/*
			 * vbjournal waits 30 s for the checkpoint: a writer
			 * that waits for an ack the checkpoint holds back
			 * (a stall of the workload, not a miss) fails the
			 * test here, or a kill would hide it
			 */
			printf("CRASHTEST FAIL: checkpoint failed (vbjournal "
			       "exit %d)\n", k);
			fflush(stdout);
			continue;
		}
		/*
		 * newdirs: the consumer reads the tree a while into the next
		 * epoch, as the one who caught up before a crash would have:
		 * it sees directories made since the cursor, which are
		 * written in again after it read them
		 */
		if (mode == NEWDIRS) {
			ts = (struct timespec){ 0, 700 * 1000000L };
			nanosleep(&ts, NULL);
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
			  char *wmode, size_t wsz, struct state *s)
{
	char path[PATH_MAX], line[PATH_MAX + 160], rel[PATH_MAX], fmt[16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/manifest", jr);
	snprintf(fmt, sizeof(fmt), "cursor %%%zus", csz - 1);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, fmt, cursor) != 1) {
		fprintf(stderr, "crashload: no manifest in %s\n", jr);
		exit(2);
	}
	/* the mode of the workload the manifest was written by */
	if (strstr(line, " mode ")) {
		snprintf(wmode, wsz, "%s", strstr(line, " mode ") + 6);
		wmode[strcspn(wmode, "\n")] = 0;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line + 2, "%4095s", rel) == 1)
			add(s, rel, line);
	}
	fclose(f);
}

/* -- just enough JSON for vbjournal's answer -- */

struct jv {
	char t;			/* o(bject) a(rray) s(tring) n(umber) b t/f z(null) */
	char *s;		/* a string's or number's text */
	char **keys;		/* an object's */
	struct jv **v;		/* an object's values, an array's items */
	int n;
};

static void jskip(const char **p)
{
	while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
		(*p)++;
}

static char *jstring(const char **p)
{
	size_t cap = 64, n = 0;
	char *out = malloc(cap);

	(*p)++;			/* the opening quote */
	while (**p && **p != '"') {
		unsigned int c = (unsigned char)*(*p)++;

		if (c == '\\') {
			c = (unsigned char)*(*p)++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u':
				if (sscanf(*p, "%4x", &c) != 1)
					c = '?';
				*p += 4;
				break;
			}
		}
		if (n + 4 >= cap)
			out = realloc(out, cap *= 2);
		if (c < 0x80) {
			out[n++] = c;
		} else if (c < 0x800) {	/* \u escapes beyond ASCII */
			out[n++] = 0xc0 | c >> 6;
			out[n++] = 0x80 | (c & 0x3f);
		} else {
			out[n++] = 0xe0 | c >> 12;
			out[n++] = 0x80 | ((c >> 6) & 0x3f);
			out[n++] = 0x80 | (c & 0x3f);
		}
	}
	if (**p == '"')
		(*p)++;
	out[n] = 0;
	return out;
}

/* One value at *p; NULL on malformed input. */
static struct jv *jparse(const char **p)
{
	struct jv *v = calloc(1, sizeof(*v));

	jskip(p);
	if (**p == '{' || **p == '[') {
		char close = **p == '{' ? '}' : ']';

		v->t = **p == '{' ? 'o' : 'a';
		(*p)++;
		for (;;) {
			char *key = NULL;
			struct jv *item;

			jskip(p);
			if (**p == close) {
				(*p)++;
				return v;
			}
			if (v->t == 'o') {
				if (**p != '"')
					return NULL;
				key = jstring(p);
				jskip(p);
				if (*(*p)++ != ':')
					return NULL;
			}
			item = jparse(p);
			if (!item)
				return NULL;
			v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
			v->v = realloc(v->v, (v->n + 1) * sizeof(*v->v));
			v->keys[v->n] = key;
			v->v[v->n++] = item;
			jskip(p);
			if (**p == ',')
				(*p)++;
			else if (**p != close)
				return NULL;
		}
	}
	if (**p == '"') {
		v->t = 's';
		v->s = jstring(p);
		return v;
	}
	if (!strncmp(*p, "true", 4) || !strncmp(*p, "null", 4)) {
		v->t = **p == 't' ? 't' : 'z';
		*p += 4;
		return v;
	}
	if (!strncmp(*p, "false", 5)) {
		v->t = 'f';
		*p += 5;
		return v;
	}
	if (**p == '-' || (**p >= '0' && **p <= '9')) {
		const char *b = *p;

		while (strchr("+-.eE0123456789", **p) && **p)
			(*p)++;
		v->t = 'n';
		v->s = strndup(b, *p - b);
		return v;
	}
	return NULL;
}

static struct jv *jget(const struct jv *o, const char *key)
{
	int i;

	if (!o || o->t != 'o')
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->v[i];
	return NULL;
}

/* -- the answer, as the consumer takes it -- */

struct fentry {			/* a "file" entry */
	unsigned long long ino;
	char **names;		/* relative to the tree's root */
	int n;
	bool complete;
};

struct answer {
	char **dirs, **moved;	/* relative, sorted */
	size_t ndirs, nmoved;
	struct fentry *files;
	size_t nfiles;
	size_t elsewhere;	/* entries of no path under the tree */
	size_t gone;		/* directories said gone (stored path) */
	int gaps;		/* rescans of this filesystem, full rescans */
	/* the negative control: one entry left out */
	int off_kind;		/* 0 none, 'd' dirs, 'm' moved, 'f' files */
	size_t off;
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* path, made relative to root; NULL when it is not under root. */
static char *relative(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (!path || strncmp(path, root, n) || (path[n] && path[n] != '/'))
		return NULL;
	return strdup(path + n + (path[n] == '/'));
}

/* An object's path: path_hex decoded when there (bytes not UTF-8). */
static const char *jpath(const struct jv *o, char *buf, size_t sz)
{
	const struct jv *h = jget(o, "path_hex"), *p = jget(o, "path");
	size_t i, n;
	unsigned int b;

	if (h && h->t == 's') {
		n = strlen(h->s) / 2;
		for (i = 0; i < n && i + 1 < sz; i++) {
			if (sscanf(h->s + 2 * i, "%2x", &b) != 1)
				break;
			buf[i] = b;
		}
		buf[i] = 0;
		return buf;
	}
	return p && p->t == 's' ? p->s : NULL;
}

static void add_str(char ***v, size_t *n, char *s)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

/* A file entry, wherever it is in the answer (kind "file"). */
static void take_file(struct answer *a, const struct jv *o, const char *root)
{
	const struct jv *names = jget(o, "names"), *ino = jget(o, "ino");
	const struct jv *nc = jget(o, "names_complete");
	struct fentry f = { 0 };
	int i;

	f.ino = ino && ino->t == 'n' ? strtoull(ino->s, NULL, 10) : 0;
	f.complete = nc && nc->t == 't';
	for (i = 0; names && names->t == 'a' && i < names->n; i++) {
		char buf[PATH_MAX];
		char *r = relative(jpath(names->v[i], buf, sizeof(buf)), root);

		if (r) {
			f.names = realloc(f.names, (f.n + 1) * sizeof(*f.names));
			f.names[f.n++] = r;
		}
	}
	if (!f.n && !f.ino) {
		a->elsewhere++;
		return;
	}
	a->files = realloc(a->files, (a->nfiles + 1) * sizeof(*a->files));
	a->files[a->nfiles++] = f;
}

static void take_dirs(struct answer *a, const struct jv *arr, bool moved,
		      const char *root)
{
	int i;

	for (i = 0; arr && arr->t == 'a' && i < arr->n; i++) {
		const struct jv *o = arr->v[i];
		const struct jv *gone = jget(o, "gone"), *kind = jget(o, "kind");
		char *r, buf[PATH_MAX];

		if (kind && kind->t == 's' && !strcmp(kind->s, "file")) {
			take_file(a, o, root);
			continue;
		}
		r = relative(jpath(o, buf, sizeof(buf)), root);
		if (gone && gone->t == 't')
			a->gone++;
		if (!r) {
			a->elsewhere++;
			continue;
		}
		if (moved)
			add_str(&a->moved, &a->nmoved, r);
		else
			add_str(&a->dirs, &a->ndirs, r);
	}
}

/*
 * vbjournal changes --json since cursor (or VFSB_CRASH_ANSWER's file)
 * into a; 0, or -1 when there is no answer to judge.
 */
static int get_answer(const char *dir, const char *jr, const char *cursor,
		      struct answer *a)
{
	const char *file = getenv("VFSB_CRASH_ANSWER");
	char cmd[2 * PATH_MAX], *text = NULL;
	size_t len = 0, cap = 0, got;
	const struct jv *r;
	const char *p;
	struct jv *top;
	int status, i;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "vbjournal --journal %s/journal changes "
		 "--since %s --json", jr, cursor);
	f = file ? fopen(file, "r") : popen(cmd, "r");
	if (!f)
		return -1;
	do {
		if (len + 4096 >= cap)
			text = realloc(text, cap = 2 * cap + 8192);
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
	} while (got);
	text[len] = 0;
	status = file ? (fclose(f), 0) : pclose(f);
	if (!file && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
			printf("CRASHTEST full rescan required (exit 3)\n");
			a->gaps++;
			return 0;
		}
		printf("CRASHTEST FAIL: %s: status %d\n", cmd, status);
		return -1;
	}
	p = text;
	top = jparse(&p);
	if (!top || top->t != 'o') {
		printf("CRASHTEST FAIL: the answer is not a JSON object\n");
		return -1;
	}
	take_dirs(a, jget(top, "dirs"), false, dir);
	take_dirs(a, jget(top, "moved"), true, dir);
	r = jget(top, "files");
	for (i = 0; r && r->t == 'a' && i < r->n; i++)
		take_file(a, r->v[i], dir);
	r = jget(top, "rescan");
	for (i = 0; r && r->t == 'a' && i < r->n; i++) {
		const struct jv *pth = jget(r->v[i], "path");
		const struct jv *why = jget(r->v[i], "reason");
		char *rel = relative(pth && pth->t == 's' ? pth->s : dir, dir);

		/* a rescan of this filesystem, or of one unknown */
		if (rel && !rel[0]) {
			a->gaps++;
			printf("CRASHTEST gap: rescan fs %s (%s)\n", dir,
			       why && why->t == 's' ? why->s : "?");
		}
		free(rel);
	}
	qsort(a->dirs, a->ndirs, sizeof(*a->dirs), str_cmp);
	qsort(a->moved, a->nmoved, sizeof(*a->moved), str_cmp);
	free(text);
	return 0;
}

/* -- the consumer's model -- */

struct model {
	struct state *before, *now;	/* sorted by path */
	struct answer *a;
	char **diff;			/* the differing paths, sorted */
	size_t ndiff;
	struct ent **byino;		/* before's files by inode */
	size_t nbyino;
};

static struct ent *find(const struct state *s, const char *path)
{
	struct ent key = { .path = (char *)path };

	return bsearch(&key, s->e, s->n, sizeof(*s->e), by_path);
}

static bool in_sorted(char **v, size_t n, const char *path, size_t off)
{
	char **hit = bsearch(&path, v, n, sizeof(*v), str_cmp);

	return hit && (size_t)(hit - v) != off;
}

static bool is_diff(const struct model *m, const char *path)
{
	return in_sorted(m->diff, m->ndiff, path, (size_t)-1);
}

static bool named_dir(const struct model *m, const char *path)
{
	return in_sorted(m->a->dirs, m->a->ndirs, path,
			 m->a->off_kind == 'd' ? m->a->off : (size_t)-1);
}

static bool named_moved(const struct model *m, const char *path)
{
	return in_sorted(m->a->moved, m->a->nmoved, path,
			 m->a->off_kind == 'm' ? m->a->off : (size_t)-1);
}

static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? strndup(path, slash - path) : strdup("");
}

static bool whole(const struct model *m, const char *path);

/* The consumer re-reads path's entries. */
static bool reread(const struct model *m, const char *path)
{
	return named_dir(m, path) || whole(m, path);
}

/*
 * The consumer reads path's subtree whole: it is moved, under a subtree
 * read whole, or a directory it never saw in a directory it re-reads.
 */
static bool whole(const struct model *m, const char *path)
{
	struct ent *b, *n;
	char *up;
	bool ret;

	if (!path[0])
		return false;
	if (named_moved(m, path))
		return true;
	up = parent_of(path);
	ret = whole(m, up);
	if (!ret) {
		n = find(m->now, path);
		b = find(m->before, path);
		ret = n && n->dir && !(b && b->dir) && reread(m, up);
	}
	free(up);
	return ret;
}

/* A file entry leads the consumer to path (by a name, or its inode). */
static bool file_named(const struct model *m, const char *path)
{
	struct ent *b = find(m->before, path);
	size_t i;
	int k;

	for (i = 0; i < m->a->nfiles; i++) {
		const struct fentry *f = &m->a->files[i];

		if (m->a->off_kind == 'f' && m->a->off == i)
			continue;
		if (b && !b->dir && f->ino && f->ino == b->ino)
			return true;
		for (k = 0; k < f->n; k++)
			if (!strcmp(f->names[k], path))
				return true;
	}
	return false;
}

/*
 * How the consumer is led to the differing path: "gap", "moved" (a
 * subtree read whole, moved or new), "dir" (its directory re-read),
 * "gone" (a directory it was sent to, or one above, is gone), "file",
 * or NULL: missed.
 */
static const char *cover(const struct model *m, const char *path)
{
	const char *how = NULL;
	char *up = parent_of(path), *anc;
	struct ent *n = find(m->now, path), *b;

	if (m->a->gaps)
		how = "gap";
	else if (path[0] && (named_moved(m, path) || whole(m, up)))
		how = "whole";
	else if (path[0] && reread(m, up))
		how = "dir";
	else if (!n && named_dir(m, path))
		how = "gone";
	else if (file_named(m, path))
		how = "file";
	/* a directory above it is gone, and the consumer learns it */
	for (anc = strdup(up); !how && anc[0]; ) {
		char *next = parent_of(anc);

		b = find(m->before, anc);
		n = find(m->now, anc);
		if (b && b->dir && !(n && n->dir) &&
		    (named_dir(m, anc) || reread(m, next)))
			how = "gone";
		free(anc);
		anc = next;
	}
	free(anc);
	free(up);
	return how;
}

static void build_model(struct model *m)
{
	size_t i = 0, j = 0;

	qsort(m->before->e, m->before->n, sizeof(struct ent), by_path);
	qsort(m->now->e, m->now->n, sizeof(struct ent), by_path);
	while (i < m->before->n || j < m->now->n) {
		struct ent *b = i < m->before->n ? &m->before->e[i] : NULL;
		struct ent *n = j < m->now->n ? &m->now->e[j] : NULL;
		int c = !b ? 1 : !n ? -1 : strcmp(b->path, n->path);

		if (c < 0)
			add_str(&m->diff, &m->ndiff, b->path);
		else if (c > 0)
			add_str(&m->diff, &m->ndiff, n->path);
		else if (strcmp(b->line, n->line))
			add_str(&m->diff, &m->ndiff, b->path);
		i += c <= 0;
		j += c >= 0;
	}
}

/* Differing paths nothing leads to; each printed when print. */
static size_t misses(const struct model *m, bool print, size_t *how_n,
		     const char *const *hows, int nhows)
{
	size_t i, nmiss = 0;
	int k;

	for (i = 0; i < m->ndiff; i++) {
		const char *how = cover(m, m->diff[i]);

		if (!how) {
			nmiss++;
			if (print) {
				struct ent *b = find(m->before, m->diff[i]);
				struct ent *n = find(m->now, m->diff[i]);

				printf("CRASHTEST MISSED: /%s (%s), led to by no "
				       "entry\n", m->diff[i], !b ? "new" :
				       !n ? "gone" : "changed");
			}
			continue;
		}
		for (k = 0; how_n && k < nhows; k++)
			if (!strcmp(how, hows[k]))
				how_n[k]++;
	}
	return nmiss;
}

/* Whether something under (or at) path differs. */
static bool diff_under(const struct model *m, const char *path, bool self)
{
	size_t i, n = strlen(path);

	for (i = 0; i < m->ndiff; i++) {
		const char *d = m->diff[i];

		if (!strcmp(d, path)) {
			if (self)
				return true;
			continue;
		}
		if (!n || (!strncmp(d, path, n) && d[n] == '/'))
			return true;
	}
	return false;
}

/* Whether a child of path differs (its entries' state). */
static bool diff_child(const struct model *m, const char *path)
{
	size_t i;

	for (i = 0; i < m->ndiff; i++) {
		char *up = parent_of(m->diff[i]);
		bool hit = !strcmp(up, path);

		free(up);
		if (hit)
			return true;
	}
	return false;
}

static int verify(const char *dir, const char *jr)
{
	static const char *const hows[] = { "dir", "whole", "gone", "file", "gap" };
	struct state before = { 0 }, now = { 0 };
	struct answer a = { 0 };
	struct model m = { &before, &now, &a, NULL, 0, NULL, 0 };
	size_t how_n[5] = { 0 }, i, nmiss, named, nfp = 0, need = 0;
	size_t need_k[3] = { 0 };
	char cursor[128], first[PATH_MAX + 16] = "", wmode[32] = "?";
	int k;

	read_manifest(jr, cursor, sizeof(cursor), wmode, sizeof(wmode), &before);
	walk(&now, dir, "");
	if (get_answer(dir, jr, cursor, &a))
		return 2;
	build_model(&m);
	nmiss = misses(&m, true, how_n, hows, 5);
	/* false positives: entries whose target did not change */
	for (i = 0; i < a.ndirs; i++)
		nfp += !is_diff(&m, a.dirs[i]) && !diff_child(&m, a.dirs[i]);
	for (i = 0; i < a.nmoved; i++)
		nfp += !diff_under(&m, a.moved[i], true);
	for (i = 0; i < a.nfiles; i++) {
		bool hit = false;
		size_t j;

		for (k = 0; !hit && k < a.files[i].n; k++)
			hit = is_diff(&m, a.files[i].names[k]);
		for (j = 0; !hit && j < before.n; j++)
			hit = !before.e[j].dir && before.e[j].ino == a.files[i].ino &&
			      is_diff(&m, before.e[j].path);
		nfp += !hit;
	}
	named = a.ndirs + a.nmoved + a.nfiles;
	/*
	 * The negative control: each entry left out in turn; those without
	 * which something is missed show that the check can fail.
	 */
	for (k = 0; !a.gaps && k < 3; k++) {
		size_t n = k == 0 ? a.ndirs : k == 1 ? a.nmoved : a.nfiles;

		a.off_kind = "dmf"[k];
		for (a.off = 0; a.off < n; a.off++) {
			size_t miss = misses(&m, false, NULL, NULL, 0);

			if (miss <= nmiss)
				continue;
			need_k[k]++;
			if (!need++)
				snprintf(first, sizeof(first), "%s %s%s: %zu missed",
					 k == 0 ? "dir" : k == 1 ? "moved" : "file",
					 k == 2 ? "of " : "/",
					 k == 0 ? a.dirs[a.off] : k == 1 ?
					 a.moved[a.off] : a.files[a.off].n ?
					 a.files[a.off].names[0] : "?",
					 miss - nmiss);
		}
	}
	a.off_kind = 0;
	printf("CRASHTEST control: %zu of %zu entries needed (dirs %zu of %zu, "
	       "moved %zu of %zu, files %zu of %zu)%s%s\n", need, named,
	       need_k[0], a.ndirs, need_k[1], a.nmoved, need_k[2], a.nfiles,
	       first[0] ? "; without " : "", first);
	printf("CRASHTEST verify: mode %s, cursor %s, paths %zu, differing %zu, "
	       "covered %zu (dir %zu, whole %zu, gone %zu, file %zu, gap %zu), "
	       "missed %zu, named %zu (dirs %zu, moved %zu, files %zu, "
	       "elsewhere %zu, gone %zu), false positives %zu, gaps %d\n",
	       wmode, cursor, now.n, m.ndiff, m.ndiff - nmiss,
	       how_n[0], how_n[1], how_n[2], how_n[3], how_n[4], nmiss, named,
	       a.ndirs, a.nmoved, a.nfiles, a.elsewhere, a.gone, nfp, a.gaps);
	return nmiss > 0;
}

/* mount(2) with the options' text, retried for 20 s (ECONNREFUSED & co.). */
static int mount_retry(const char *src, const char *dir, const char *type,
		       const char *opts)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!mount(src, dir, type, 0, opts))
			return 0;
		poll(NULL, 0, 200);
	}
	fprintf(stderr, "crashload: mount -t %s -o %s %s %s: %s\n", type, opts,
		src, dir, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	const char *env = getenv("VFSB_CRASH_MODE");
	unsigned int k;

	for (k = 0; env && env[0] && k < sizeof(mode_names) / sizeof(*mode_names); k++)
		if (!strcmp(env, mode_names[k]))
			break;
	if (k == sizeof(mode_names) / sizeof(*mode_names)) {
		fprintf(stderr, "crashload: VFSB_CRASH_MODE=%s: not one of "
			"mixed, hardlink, tmpfile, dirrename, restart, nfs, "
			"mirror, newdirs\n", env);
		return 2;
	}
	mode = env && env[0] ? k : MIXED;
	if (argc == 3 && !strcmp(argv[1], "populate")) {
		populate(argv[2]);
		return 0;
	}
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "run")) {
		run_load(argv[2], argv[3], strtoul(argv[4], NULL, 0),
			 argv[argc == 6 ? 5 : 2]);
		return 1;
	}
	if (argc == 5 && !strcmp(argv[1], "manifest"))
		return write_manifest(argv[2], argv[3], argv[4]) ? 1 : 0;
	if (argc == 6 && !strcmp(argv[1], "mount"))
		return mount_retry(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 4 && !strcmp(argv[1], "verify"))
		return verify(argv[2], argv[3]);
	fprintf(stderr, "usage: crashload populate DIR | run DIR JR SEED [WDIR] | "
		"manifest DIR JR CURSOR | mount SRC DIR TYPE OPTS | verify DIR JR\n");
	return 2;
}
