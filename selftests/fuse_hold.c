// SPDX-License-Identifier: GPL-2.0
/*
 * The FUSE hold server (API in fuse_hold.h): a small in-memory file
 * system that speaks the raw /dev/fuse protocol (no libfuse: the tests
 * are static binaries in a busybox guest) and can hold a request
 * unanswered on command.
 *
 * Served: INIT, DESTROY, LOOKUP, FORGET, BATCH_FORGET, GETATTR, SETATTR,
 * MKNOD, MKDIR, SYMLINK, READLINK, LINK, UNLINK, RMDIR, RENAME, RENAME2
 * (NOREPLACE, EXCHANGE), CREATE, OPEN, READ, WRITE, FLUSH, FSYNC, RELEASE,
 * OPENDIR, READDIR, FSYNCDIR, RELEASEDIR, SETXATTR, GETXATTR, LISTXATTR,
 * REMOVEXATTR, FALLOCATE (KEEP_SIZE, PUNCH_HOLE, ZERO_RANGE), STATFS,
 * ACCESS. Anything else is answered -ENOSYS (the kernel then falls back,
 * e.g. to local POSIX locks and generic lseek).
 *
 * Limits: one hold at a time; file data in memory, 64 MiB a file; reads
 * do not update atime; ACCESS knows only the primary group.
 *
 * Design, and why:
 * - One server thread owns the tree, so the tree needs no lock; fh->lock
 *   guards only what the test shares with it (hold state, counters).
 * - Holding parks a copy of the request and reads on. fh_release() pokes
 *   an eventfd and the server thread answers the parked request itself,
 *   so the tree stays single-threaded.
 * - Entry and attribute timeouts are 0: the kernel asks us for every
 *   lookup and stat, so stat always agrees with the tree, and every
 *   operation reaches the server, where it can be held.
 * - No writeback cache: write(2) sends WRITE and waits for the answer.
 * - The server thread unshares its file table and opens /dev/fuse there,
 *   so no other thread (nor any child the test forks) holds the device.
 *   If the test process dies with a request held (failed assertion,
 *   harness timeout), the server thread's exit closes the last descriptor,
 *   the kernel aborts the connection and the held syscall fails with
 *   ENOTCONN. With a shared table, the thread sleeping in the held syscall
 *   would keep the descriptor open and the process would never finish
 *   dying (D state).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <linux/falloc.h>
#include <linux/fuse.h>

#include "fuse_hold.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

#define FH_NOPS		64		/* every FUSE opcode is below this */
#define FH_BUFSIZE	(FH_MAX_WRITE + 4096)	/* a WRITE and its headers */
#define FH_MAX_FILE	(64 << 20)	/* file data lives in memory */
#define FH_INIT_TIMEOUT_MS 30000	/* bounds fh_mount() on a broken kernel */

struct fh_node;

struct fh_dirent {
	struct fh_dirent *next;
	struct fh_node *node;
	uint64_t cookie;	/* READDIR offset: stays valid across changes */
	char name[];
};

struct fh_xattr {
	struct fh_xattr *next;
	char *value;		/* points into name[], after the name's NUL */
	size_t size;
	char name[];
};

struct fh_node {
	uint64_t id;		/* the nodeid; never reused, so generation 0 */
	uint64_t nlookup;	/* kernel references: entry replies - FORGETs */
	uint32_t mode, uid, gid, rdev, nlink;
	struct timespec atime, mtime, ctime;
	char *data;		/* file contents or symlink target */
	size_t size, cap;
	struct fh_node *parent;	/* directories: for ".." and loop checks */
	struct fh_dirent *kids;	/* directories: in cookie order */
	uint64_t next_cookie;
	struct fh_xattr *xattrs;
};

enum fh_state { FH_IDLE, FH_ARMED, FH_HELD };

struct fuse_hold {
	char *mountpoint;
	unsigned int flags;
	int debug;		/* FUSE_HOLD_DEBUG set: log requests to stderr */
	int fd;			/* /dev/fuse, in the server thread's table */
	int evfd;		/* wakes the server thread: release or stop */
	pthread_t thread;
	int started;
	int private_files;	/* the server thread has its own file table */

	pthread_mutex_t lock;	/* guards this block */
	pthread_cond_t cond;	/* broadcast on every change in it */
	enum fh_state state;
	uint32_t hold_op;	/* FH_ARMED: the opcode to hold */
	void *held;		/* FH_HELD: the parked request */
	int release, stop;	/* asked of the server thread */
	int mounted, ready;	/* mount(2) done; INIT answered */
	int dead, error;	/* server thread gone; why, if it never started */
	unsigned long counts[FH_NOPS];
	unsigned long live;	/* nodes allocated */

	/* Touched by the server thread only (and by fh_mount/fh_umount
	   when it is not running). */
	struct fh_node **nodes;	/* by nodeid; 0 is invalid, 1 the root */
	uint64_t nnodes, cap;
	char *buf, *out;	/* request and reply buffers */
};

/* The request being served. */
struct fh_req {
	struct fuse_hold *fh;
	const struct fuse_in_header *in;
	struct fh_node *n;	/* in->nodeid, or NULL */
	const char *arg;	/* payload after the header */
	size_t len;
};

#define FH_NOREPLY 1		/* handler result: FORGETs get no answer */

/* ---- the tree ---------------------------------------------------------- */

enum { FH_A = 1, FH_M = 2, FH_C = 4 };

static void fhs_touch(struct fh_node *n, int which)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (which & FH_A)
		n->atime = now;
	if (which & FH_M)
		n->mtime = now;
	if (which & FH_C)
		n->ctime = now;
}

static struct fh_node *fhs_node(struct fuse_hold *fh, uint64_t id)
{
	return id && id < fh->nnodes ? fh->nodes[id] : NULL;
}

static struct fh_node *fhs_new_node(struct fuse_hold *fh, uint32_t mode,
				    uint32_t uid, uint32_t gid)
{
	struct fh_node *n;

	if (fh->nnodes == fh->cap) {
		uint64_t cap = fh->cap * 2;
		struct fh_node **nodes = realloc(fh->nodes, cap * sizeof(*nodes));

		if (!nodes)
			return NULL;
		fh->nodes = nodes;
		fh->cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->id = fh->nnodes++;
	n->mode = mode;
	n->uid = uid;
	n->gid = gid;
	n->nlink = S_ISDIR(mode) ? 2 : 1;
	n->next_cookie = 3;	/* 1 and 2 are "." and ".." */
	fhs_touch(n, FH_A | FH_M | FH_C);
	fh->nodes[n->id] = n;
	pthread_mutex_lock(&fh->lock);
	fh->live++;
	pthread_mutex_unlock(&fh->lock);
	return n;
}

static void fhs_free_node(struct fuse_hold *fh, struct fh_node *n)
{
	while (n->xattrs) {
		struct fh_xattr *x = n->xattrs;

		n->xattrs = x->next;
		free(x);
	}
	while (n->kids) {	/* only at unmount: a removed dir is empty */
		struct fh_dirent *d = n->kids;

		n->kids = d->next;
		free(d);
	}
	fh->nodes[n->id] = NULL;
	free(n->data);
	free(n);
	pthread_mutex_lock(&fh->lock);
	fh->live--;
	pthread_mutex_unlock(&fh->lock);
}

/* A node dies when no name and no kernel reference is left. */
static void fhs_maybe_free(struct fuse_hold *fh, struct fh_node *n)
{
	if (!n->nlink && !n->nlookup && n->id != FUSE_ROOT_ID)
		fhs_free_node(fh, n);
}

/* Grows (zero-filled) or shrinks a node's data. */
static int fhs_resize(struct fh_node *n, uint64_t size)
{
	if (size > FH_MAX_FILE)
		return -EFBIG;
	if (size > n->cap) {
		size_t cap = n->cap * 2 > size ? n->cap * 2 : size;
		char *data;

		if (cap > FH_MAX_FILE)
			cap = FH_MAX_FILE;
		data = realloc(n->data, cap);
		if (!data)
			return -ENOSPC;
		n->data = data;
		n->cap = cap;
	}
	if (size > n->size)
		memset(n->data + n->size, 0, size - n->size);
	n->size = size;
	return 0;
}

/* The link that points at dir's entry called name, or at NULL past the
   last entry when there is none (that is where a new entry goes). */
static struct fh_dirent **fhs_find(struct fh_node *dir, const char *name)
{
	struct fh_dirent **pp = &dir->kids;

	while (*pp && strcmp((*pp)->name, name))
		pp = &(*pp)->next;
	return pp;
}

static struct fh_dirent *fhs_dirent_new(const char *name)
{
	size_t len = strlen(name) + 1;
	struct fh_dirent *d = malloc(sizeof(*d) + len);

	if (d)
		memcpy(d->name, name, len);
	return d;
}

/* Appends d, naming n, to dir. A subdirectory's ".." links to dir. */
static void fhs_attach(struct fh_node *dir, struct fh_dirent *d,
		       struct fh_node *n)
{
	struct fh_dirent **pp = &dir->kids;

	while (*pp)
		pp = &(*pp)->next;
	d->next = NULL;
	d->node = n;
	d->cookie = dir->next_cookie++;
	*pp = d;
	if (S_ISDIR(n->mode)) {
		n->parent = dir;
		dir->nlink++;
	}
	fhs_touch(dir, FH_M | FH_C);
}

/* Drops the entry at *pp from dir; the node's own nlink is not touched. */
static struct fh_node *fhs_detach(struct fh_node *dir,
				  struct fh_dirent **pp)
{
	struct fh_dirent *d = *pp;
	struct fh_node *n = d->node;

	*pp = d->next;
	free(d);
	if (S_ISDIR(n->mode))
		dir->nlink--;
	fhs_touch(dir, FH_M | FH_C);
	return n;
}

/* unlink, rmdir, and the target of a replacing rename. */
static void fhs_remove(struct fuse_hold *fh, struct fh_node *dir,
		       struct fh_dirent **pp)
{
	struct fh_node *n = fhs_detach(dir, pp);

	n->nlink = S_ISDIR(n->mode) ? 0 : n->nlink - 1;
	fhs_touch(n, FH_C);
	fhs_maybe_free(fh, n);
}

static int fhs_is_ancestor(const struct fh_node *a, const struct fh_node *n)
{
	for (; n; n = n->parent)
		if (n == a)
			return 1;
	return 0;
}

static struct fh_xattr **fhs_xattr(struct fh_node *n, const char *name)
{
	struct fh_xattr **pp = &n->xattrs;

	while (*pp && strcmp((*pp)->name, name))
		pp = &(*pp)->next;
	return pp;
}

/* ---- replies ----------------------------------------------------------- */

static int fhs_send(struct fuse_hold *fh, uint64_t unique, int error,
		    const void *a, size_t alen, const void *b, size_t blen)
{
	struct fuse_out_header oh = {
		.len = sizeof(oh) + (error ? 0 : alen + blen),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[3] = {
		{ .iov_base = &oh, .iov_len = sizeof(oh) },
		{ .iov_base = (void *)a, .iov_len = error ? 0 : alen },
		{ .iov_base = (void *)b, .iov_len = error ? 0 : blen },
	};

	/* A failed write means the kernel gave up on the request (its caller
	   was interrupted or the connection aborted): nothing left to do. */
	if (writev(fh->fd, iov, 3) < 0 && fh->debug)
		fprintf(stderr, "fuse_hold: reply %llu: %s\n",
			(unsigned long long)unique, strerror(errno));
	return 0;
}

static int fhs_ok(struct fh_req *r, const void *data, size_t len)
{
	return fhs_send(r->fh, r->in->unique, 0, data, len, NULL, 0);
}

static void fhs_fill_attr(const struct fh_node *n, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = n->id;
	a->size = n->size;
	a->blocks = (n->size + 511) / 512;
	a->atime = n->atime.tv_sec;
	a->mtime = n->mtime.tv_sec;
	a->ctime = n->ctime.tv_sec;
	a->atimensec = n->atime.tv_nsec;
	a->mtimensec = n->mtime.tv_nsec;
	a->ctimensec = n->ctime.tv_nsec;
	a->mode = n->mode;
	a->nlink = n->nlink;
	a->uid = n->uid;
	a->gid = n->gid;
	a->rdev = n->rdev;
	a->blksize = 4096;
}

/* An entry reply is a kernel reference: FORGET will give it back. The
   valid times stay 0 so the kernel asks again next time. */
static void fhs_fill_entry(struct fh_node *n, struct fuse_entry_out *e)
{
	memset(e, 0, sizeof(*e));
	e->nodeid = n->id;
	fhs_fill_attr(n, &e->attr);
	n->nlookup++;
}

static int fhs_entry(struct fh_req *r, struct fh_node *n)
{
	struct fuse_entry_out e;

	fhs_fill_entry(n, &e);
	return fhs_ok(r, &e, sizeof(e));
}

static int fhs_attr_reply(struct fh_req *r)
{
	struct fuse_attr_out o;

	memset(&o, 0, sizeof(o));
	fhs_fill_attr(r->n, &o.attr);
	return fhs_ok(r, &o, sizeof(o));
}

static uint32_t fhs_open_flags(struct fuse_hold *fh)
{
	return fh->flags & FH_DIRECT_IO ? FOPEN_DIRECT_IO : 0;
}

/* ---- request parsing --------------------------------------------------- */

/* The payload as a fixed-size struct, or NULL when it is too short. */
#define FHS_ARG(r, type) ((r)->len >= sizeof(type) ? (const type *)(r)->arg : NULL)

/* The NUL-terminated string at offset off of the payload, or NULL. */
static const char *fhs_str(const struct fh_req *r, size_t off)
{
	if (off >= r->len || !memchr(r->arg + off, 0, r->len - off))
		return NULL;
	return r->arg + off;
}

/* The string right after the one at s, both in the payload, or NULL. */
static const char *fhs_next_str(const struct fh_req *r, const char *s)
{
	return s ? fhs_str(r, s - r->arg + strlen(s) + 1) : NULL;
}

/* ---- handlers: 0 = answered, FH_NOREPLY, or -errno to answer with ------ */

static int fhs_init(struct fh_req *r)
{
	const struct fuse_init_in *a = (const void *)r->arg;
	struct fuse_init_out o;

	/* Old kernels send only up to flags: that is all we read. */
	if (r->len < offsetof(struct fuse_init_in, flags2))
		return -EINVAL;
	if (a->major != FUSE_KERNEL_VERSION)
		return -EPROTO;
	memset(&o, 0, sizeof(o));
	o.major = FUSE_KERNEL_VERSION;
	o.minor = a->minor < FUSE_KERNEL_MINOR_VERSION ? a->minor :
		  FUSE_KERNEL_MINOR_VERSION;
	o.max_readahead = a->max_readahead;
	/*
	 * Only what keeps every operation a request that reaches us and waits
	 * for us: no writeback cache, no atomic O_TRUNC, no readdirplus, no
	 * lock or ACL delegation. Parallel dirops lets a lookup proceed in a
	 * directory where another one is held.
	 */
	o.flags = a->flags & (FUSE_ASYNC_READ | FUSE_BIG_WRITES |
			      FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES);
	if (r->fh->flags & FH_ASYNC_DIO)
		o.flags |= a->flags & FUSE_ASYNC_DIO;
	o.max_background = 16;
	o.congestion_threshold = 12;
	o.max_write = FH_MAX_WRITE;
	o.time_gran = 1;
	o.max_pages = FH_MAX_WRITE / 4096;
	fhs_ok(r, &o, sizeof(o));
	/* The kernel has processed the reply when write() returns. */
	pthread_mutex_lock(&r->fh->lock);
	r->fh->ready = 1;
	pthread_cond_broadcast(&r->fh->cond);
	pthread_mutex_unlock(&r->fh->lock);
	return 0;
}

static int fhs_lookup(struct fh_req *r)
{
	const char *name = fhs_str(r, 0);
	struct fh_dirent *d;

	if (!name)
		return -EINVAL;
	if (!S_ISDIR(r->n->mode))
		return -ENOTDIR;
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	d = *fhs_find(r->n, name);
	return d ? fhs_entry(r, d->node) : -ENOENT;
}

static void fhs_forget_one(struct fuse_hold *fh, uint64_t id, uint64_t nlookup)
{
	struct fh_node *n = fhs_node(fh, id);

	if (!n)
		return;
	n->nlookup -= nlookup < n->nlookup ? nlookup : n->nlookup;
	fhs_maybe_free(fh, n);
}

static int fhs_forget(struct fh_req *r)
{
	const struct fuse_forget_in *a = FHS_ARG(r, struct fuse_forget_in);

	if (a)
		fhs_forget_one(r->fh, r->in->nodeid, a->nlookup);
	return FH_NOREPLY;
}

static int fhs_batch_forget(struct fh_req *r)
{
	const struct fuse_batch_forget_in *a = FHS_ARG(r, struct fuse_batch_forget_in);
	const struct fuse_forget_one *one;
	uint32_t i;

	if (!a || r->len < sizeof(*a) + a->count * sizeof(*one))
		return FH_NOREPLY;
	one = (const void *)(a + 1);
	for (i = 0; i < a->count; i++)
		fhs_forget_one(r->fh, one[i].nodeid, one[i].nlookup);
	return FH_NOREPLY;
}

static int fhs_getattr(struct fh_req *r)
{
	return fhs_attr_reply(r);
}

static int fhs_setattr(struct fh_req *r)
{
	const struct fuse_setattr_in *a = FHS_ARG(r, struct fuse_setattr_in);
	struct fh_node *n = r->n;
	struct timespec now;
	int err;

	if (!a)
		return -EINVAL;
	clock_gettime(CLOCK_REALTIME, &now);
	if (a->valid & FATTR_SIZE) {
		if (S_ISDIR(n->mode))
			return -EISDIR;
		if (!S_ISREG(n->mode))
			return -EINVAL;
		err = fhs_resize(n, a->size);
		if (err)
			return err;
		n->mtime = now;
	}
	if (a->valid & FATTR_MODE)
		n->mode = (n->mode & S_IFMT) | (a->mode & 07777);
	if (a->valid & FATTR_UID)
		n->uid = a->uid;
	if (a->valid & FATTR_GID)
		n->gid = a->gid;
	if (a->valid & FATTR_ATIME)
		n->atime = a->valid & FATTR_ATIME_NOW ? now :
			(struct timespec){ .tv_sec = a->atime, .tv_nsec = a->atimensec };
	if (a->valid & FATTR_MTIME)
		n->mtime = a->valid & FATTR_MTIME_NOW ? now :
			(struct timespec){ .tv_sec = a->mtime, .tv_nsec = a->mtimensec };
	/* Without writeback cache the kernel leaves ctime to us. */
	n->ctime = a->valid & FATTR_CTIME ?
		(struct timespec){ .tv_sec = a->ctime, .tv_nsec = a->ctimensec } : now;
	if (a->valid & FATTR_KILL_SUIDGID)
		n->mode &= ~(S_ISUID | S_ISGID);
	return fhs_attr_reply(r);
}

/* Creates a node called name in the request's directory: the common part
   of MKNOD, MKDIR, SYMLINK and CREATE. */
static int fhs_make(struct fh_req *r, const char *name, uint32_t mode,
		    struct fh_node **out)
{
	struct fh_node *dir = r->n, *n;
	struct fh_dirent *d;

	if (!name)
		return -EINVAL;
	if (!S_ISDIR(dir->mode))
		return -ENOTDIR;
	if (!dir->nlink)
		return -ENOENT;		/* removed while still open */
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	if (*fhs_find(dir, name))
		return -EEXIST;
	d = fhs_dirent_new(name);
	n = d ? fhs_new_node(r->fh, mode, r->in->uid, r->in->gid) : NULL;
	if (!n) {
		free(d);
		return -ENOMEM;
	}
	if (dir->mode & S_ISGID) {	/* BSD group semantics, as ext4 */
		n->gid = dir->gid;
		if (S_ISDIR(mode))
			n->mode |= S_ISGID;
	}
	fhs_attach(dir, d, n);
	*out = n;
	return 0;
}

/* The kernel applied the umask already (we do not ask for DONT_MASK). */
static int fhs_mknod(struct fh_req *r)
{
	const struct fuse_mknod_in *a = FHS_ARG(r, struct fuse_mknod_in);
	struct fh_node *n;
	int err;

	if (!a)
		return -EINVAL;
	switch (a->mode & S_IFMT) {
	case S_IFREG: case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		break;
	default:
		return -EINVAL;
	}
	err = fhs_make(r, fhs_str(r, sizeof(*a)), a->mode & (S_IFMT | 07777), &n);
	if (err)
		return err;
	n->rdev = a->rdev;
	return fhs_entry(r, n);
}

static int fhs_mkdir(struct fh_req *r)
{
	const struct fuse_mkdir_in *a = FHS_ARG(r, struct fuse_mkdir_in);
	struct fh_node *n;
	int err;

	if (!a)
		return -EINVAL;
	err = fhs_make(r, fhs_str(r, sizeof(*a)), S_IFDIR | (a->mode & 07777), &n);
	return err ? err : fhs_entry(r, n);
}

/* Payload: the new name, then the link's target. */
static int fhs_symlink(struct fh_req *r)
{
	const char *name = fhs_str(r, 0), *target = fhs_next_str(r, name);
	struct fh_node *n;
	int err;

	if (!target)
		return -EINVAL;
	if (strlen(target) >= PATH_MAX)
		return -ENAMETOOLONG;
	err = fhs_make(r, name, S_IFLNK | 0777, &n);
	if (err)
		return err;
	if (fhs_resize(n, strlen(target))) {
		fhs_remove(r->fh, r->n, fhs_find(r->n, name));
		return -ENOMEM;
	}
	memcpy(n->data, target, n->size);
	return fhs_entry(r, n);
}

static int fhs_link(struct fh_req *r)
{
	const struct fuse_link_in *a = FHS_ARG(r, struct fuse_link_in);
	const char *name = a ? fhs_str(r, sizeof(*a)) : NULL;
	struct fh_node *n = a ? fhs_node(r->fh, a->oldnodeid) : NULL;
	struct fh_dirent *d;

	if (!name)
		return -EINVAL;
	if (!n)
		return -ESTALE;
	if (S_ISDIR(n->mode))
		return -EPERM;
	if (!S_ISDIR(r->n->mode))
		return -ENOTDIR;
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	if (*fhs_find(r->n, name))
		return -EEXIST;
	d = fhs_dirent_new(name);
	if (!d)
		return -ENOMEM;
	fhs_attach(r->n, d, n);
	n->nlink++;
	fhs_touch(n, FH_C);
	return fhs_entry(r, n);
}

static int fhs_unlink_common(struct fh_req *r, int rmdir)
{
	const char *name = fhs_str(r, 0);
	struct fh_dirent **pp;
	struct fh_node *victim;

	if (!name)
		return -EINVAL;
	if (!S_ISDIR(r->n->mode))
		return -ENOTDIR;
	pp = fhs_find(r->n, name);
	if (!*pp)
		return -ENOENT;
	victim = (*pp)->node;
	if (rmdir && !S_ISDIR(victim->mode))
		return -ENOTDIR;
	if (!rmdir && S_ISDIR(victim->mode))
		return -EISDIR;
	if (rmdir && victim->kids)
		return -ENOTEMPTY;
	fhs_remove(r->fh, r->n, pp);
	return fhs_ok(r, NULL, 0);
}

static int fhs_unlink(struct fh_req *r)
{
	return fhs_unlink_common(r, 0);
}

static int fhs_rmdir(struct fh_req *r)
{
	return fhs_unlink_common(r, 1);
}

/* RENAME and RENAME2: names start at off in the payload. */
static int fhs_do_rename(struct fh_req *r, uint64_t newdir,
			 uint32_t flags, size_t off)
{
	const char *oname = fhs_str(r, off), *nname = fhs_next_str(r, oname);
	struct fh_node *od = r->n, *nd = fhs_node(r->fh, newdir), *src, *dst;
	struct fh_dirent **op, **np, *d;

	if (!nname)
		return -EINVAL;
	if (!nd)
		return -ESTALE;
	if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE)) ||
	    ((flags & RENAME_NOREPLACE) && (flags & RENAME_EXCHANGE)))
		return -EINVAL;		/* RENAME_WHITEOUT is for overlayfs */
	if (!S_ISDIR(od->mode) || !S_ISDIR(nd->mode))
		return -ENOTDIR;
	if (strlen(nname) > NAME_MAX)
		return -ENAMETOOLONG;
	op = fhs_find(od, oname);
	if (!*op)
		return -ENOENT;
	src = (*op)->node;
	np = fhs_find(nd, nname);
	dst = *np ? (*np)->node : NULL;
	if (dst && (flags & RENAME_NOREPLACE))
		return -EEXIST;
	if (!dst && (flags & RENAME_EXCHANGE))
		return -ENOENT;
	if (dst == src)		/* the same inode: POSIX says do nothing */
		return fhs_ok(r, NULL, 0);
	/* No directory may end up below itself. */
	if (S_ISDIR(src->mode) && fhs_is_ancestor(src, nd))
		return -EINVAL;
	if (flags & RENAME_EXCHANGE) {
		if (S_ISDIR(dst->mode) && fhs_is_ancestor(dst, od))
			return -EINVAL;
		(*op)->node = dst;
		(*np)->node = src;
		/* Each moved directory's ".." follows it (a no-op in one dir). */
		if (S_ISDIR(src->mode)) {
			src->parent = nd;
			od->nlink--;
			nd->nlink++;
		}
		if (S_ISDIR(dst->mode)) {
			dst->parent = od;
			nd->nlink--;
			od->nlink++;
		}
		fhs_touch(src, FH_C);
		fhs_touch(dst, FH_C);
		fhs_touch(od, FH_M | FH_C);
		fhs_touch(nd, FH_M | FH_C);
		return fhs_ok(r, NULL, 0);
	}
	if (dst) {
		if (S_ISDIR(src->mode) && !S_ISDIR(dst->mode))
			return -ENOTDIR;
		if (!S_ISDIR(src->mode) && S_ISDIR(dst->mode))
			return -EISDIR;
		if (dst->kids)
			return -ENOTEMPTY;
	}
	/* Allocate first: nothing may fail once the tree starts changing. */
	d = fhs_dirent_new(nname);
	if (!d)
		return -ENOMEM;
	if (dst)
		fhs_remove(r->fh, nd, np);
	/* The removal may have freed the entry op pointed into: look again. */
	fhs_detach(od, fhs_find(od, oname));
	fhs_attach(nd, d, src);
	fhs_touch(src, FH_C);
	return fhs_ok(r, NULL, 0);
}

static int fhs_rename(struct fh_req *r)
{
	const struct fuse_rename_in *a = FHS_ARG(r, struct fuse_rename_in);

	return a ? fhs_do_rename(r, a->newdir, 0, sizeof(*a)) : -EINVAL;
}

static int fhs_rename2(struct fh_req *r)
{
	const struct fuse_rename2_in *a = FHS_ARG(r, struct fuse_rename2_in);

	return a ? fhs_do_rename(r, a->newdir, a->flags, sizeof(*a)) : -EINVAL;
}

static int fhs_readlink(struct fh_req *r)
{
	if (!S_ISLNK(r->n->mode))
		return -EINVAL;
	return fhs_ok(r, r->n->data, r->n->size);
}

/* OPEN never sees O_TRUNC: without FUSE_ATOMIC_O_TRUNC the kernel sends a
   SETATTR for it. File handles are not needed: READ and WRITE carry the
   nodeid. */
static int fhs_open(struct fh_req *r)
{
	struct fuse_open_out o = { .open_flags = fhs_open_flags(r->fh) };

	if (S_ISDIR(r->n->mode))
		return -EISDIR;
	return fhs_ok(r, &o, sizeof(o));
}

static int fhs_create(struct fh_req *r)
{
	const struct fuse_create_in *a = FHS_ARG(r, struct fuse_create_in);
	struct fuse_open_out o = { .open_flags = fhs_open_flags(r->fh) };
	struct fuse_entry_out e;
	struct fh_node *n;
	int err;

	if (!a)
		return -EINVAL;
	err = fhs_make(r, fhs_str(r, sizeof(*a)), S_IFREG | (a->mode & 07777), &n);
	if (err)
		return err;
	fhs_fill_entry(n, &e);
	return fhs_send(r->fh, r->in->unique, 0, &e, sizeof(e), &o, sizeof(o));
}

static int fhs_read(struct fh_req *r)
{
	const struct fuse_read_in *a = FHS_ARG(r, struct fuse_read_in);
	struct fh_node *n = r->n;
	size_t cnt = 0;

	if (!a)
		return -EINVAL;
	if (S_ISDIR(n->mode))
		return -EISDIR;
	if (a->offset < n->size)
		cnt = n->size - a->offset < a->size ? n->size - a->offset : a->size;
	return fhs_ok(r, cnt ? n->data + a->offset : NULL, cnt);
}

static int fhs_write(struct fh_req *r)
{
	const struct fuse_write_in *a = FHS_ARG(r, struct fuse_write_in);
	struct fh_node *n = r->n;
	struct fuse_write_out o;
	uint64_t end;
	int err;

	if (!a || r->len < sizeof(*a) + a->size)
		return -EINVAL;
	if (!S_ISREG(n->mode))
		return -EINVAL;
	end = a->offset + a->size;
	if (end < a->offset)
		return -EFBIG;
	if (end > n->size) {
		err = fhs_resize(n, end);
		if (err)
			return err;
	}
	if (a->size)
		memcpy(n->data + a->offset, a + 1, a->size);
	fhs_touch(n, FH_M | FH_C);
	memset(&o, 0, sizeof(o));
	o.size = a->size;
	return fhs_ok(r, &o, sizeof(o));
}

/* FLUSH, FSYNC, RELEASE...: the data is already where it goes. */
static int fhs_nop(struct fh_req *r)
{
	return fhs_ok(r, NULL, 0);
}

static int fhs_opendir(struct fh_req *r)
{
	struct fuse_open_out o = { .open_flags = 0 };

	if (!S_ISDIR(r->n->mode))
		return -ENOTDIR;
	return fhs_ok(r, &o, sizeof(o));
}

/* Packs one fuse_dirent; returns its size, or 0 when it does not fit. */
static size_t fhs_pack_dirent(char *buf, size_t room, uint64_t ino,
			      uint64_t cookie, uint32_t mode, const char *name)
{
	size_t namelen = strlen(name);
	size_t size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
	struct fuse_dirent *d = (void *)buf;

	if (size > room)
		return 0;
	memset(buf, 0, size);
	d->ino = ino;
	d->off = cookie;	/* where the next READDIR resumes */
	d->namelen = namelen;
	d->type = (mode & S_IFMT) >> 12;	/* DT_* */
	memcpy(d->name, name, namelen);
	return size;
}

/*
 * Offsets are cookies: "." is 1, ".." 2, and every entry gets the next
 * number of its directory when it is added and keeps it, and entries stay
 * in cookie order. So a READDIR resuming after a change neither repeats
 * nor skips the entries that stayed.
 */
static int fhs_readdir(struct fh_req *r)
{
	const struct fuse_read_in *a = FHS_ARG(r, struct fuse_read_in);
	struct fh_node *n = r->n;
	char *out = r->fh->out;
	size_t room, used = 0, sz;
	struct fh_dirent *d;

	if (!a)
		return -EINVAL;
	if (!S_ISDIR(n->mode))
		return -ENOTDIR;
	room = a->size < FH_BUFSIZE ? a->size : FH_BUFSIZE;
	/*
	 * One page per reply at most, whatever the kernel asks for (7.x asks
	 * for up to max_pages): a short reply is valid FUSE, and it makes a
	 * directory of a few hundred entries take several READDIRs on every
	 * kernel, which is the resumption path worth testing.
	 */
	if (room > FH_READDIR_MAX)
		room = FH_READDIR_MAX;
	if (a->offset < 1) {
		sz = fhs_pack_dirent(out, room, n->id, 1, S_IFDIR, ".");
		if (!sz)
			goto full;
		used += sz;
	}
	if (a->offset < 2) {
		sz = fhs_pack_dirent(out + used, room - used,
				     n->parent ? n->parent->id : n->id, 2, S_IFDIR, "..");
		if (!sz)
			goto full;
		used += sz;
	}
	for (d = n->kids; d; d = d->next) {
		if (d->cookie <= a->offset)
			continue;
		sz = fhs_pack_dirent(out + used, room - used, d->node->id,
				     d->cookie, d->node->mode, d->name);
		if (!sz)
			break;
		used += sz;
	}
full:
	return fhs_ok(r, out, used);
}

/* The kernel sends the 8-byte compat header (size, flags) unless we ask
   for FUSE_SETXATTR_EXT, so only those two fields are read. */
static int fhs_setxattr(struct fh_req *r)
{
	const struct fuse_setxattr_in *a = (const void *)r->arg;
	const char *name = fhs_str(r, FUSE_COMPAT_SETXATTR_IN_SIZE);
	struct fh_xattr **pp, *x;
	size_t nlen;

	if (!name)
		return -EINVAL;
	nlen = strlen(name) + 1;
	if (FUSE_COMPAT_SETXATTR_IN_SIZE + nlen + a->size > r->len)
		return -EINVAL;
	if (nlen - 1 > XATTR_NAME_MAX)
		return -ERANGE;
	pp = fhs_xattr(r->n, name);
	if (*pp && (a->flags & XATTR_CREATE))
		return -EEXIST;
	if (!*pp && (a->flags & XATTR_REPLACE))
		return -ENODATA;
	x = malloc(sizeof(*x) + nlen + a->size);
	if (!x)
		return -ENOMEM;
	memcpy(x->name, name, nlen);
	x->value = x->name + nlen;
	x->size = a->size;
	memcpy(x->value, name + nlen, a->size);
	x->next = *pp ? (*pp)->next : NULL;
	free(*pp);
	*pp = x;
	fhs_touch(r->n, FH_C);
	return fhs_ok(r, NULL, 0);
}

/* GETXATTR and LISTXATTR: size 0 asks for the length, else for the data,
   which must fit. */
static int fhs_sized_reply(struct fh_req *r, uint32_t room,
			   const void *data, size_t len)
{
	struct fuse_getxattr_out o;

	if (!room) {
		memset(&o, 0, sizeof(o));
		o.size = len;
		return fhs_ok(r, &o, sizeof(o));
	}
	return len > room ? -ERANGE : fhs_ok(r, data, len);
}

static int fhs_getxattr(struct fh_req *r)
{
	const struct fuse_getxattr_in *a = FHS_ARG(r, struct fuse_getxattr_in);
	const char *name = a ? fhs_str(r, sizeof(*a)) : NULL;
	struct fh_xattr *x;

	if (!name)
		return -EINVAL;
	x = *fhs_xattr(r->n, name);
	return x ? fhs_sized_reply(r, a->size, x->value, x->size) : -ENODATA;
}

static int fhs_listxattr(struct fh_req *r)
{
	const struct fuse_getxattr_in *a = FHS_ARG(r, struct fuse_getxattr_in);
	size_t len = 0, nlen;
	struct fh_xattr *x;

	if (!a)
		return -EINVAL;
	for (x = r->n->xattrs; x; x = x->next) {
		nlen = strlen(x->name) + 1;
		if (len + nlen > FH_BUFSIZE)
			return -E2BIG;
		memcpy(r->fh->out + len, x->name, nlen);
		len += nlen;
	}
	return fhs_sized_reply(r, a->size, r->fh->out, len);
}

static int fhs_removexattr(struct fh_req *r)
{
	const char *name = fhs_str(r, 0);
	struct fh_xattr **pp, *x;

	if (!name)
		return -EINVAL;
	pp = fhs_xattr(r->n, name);
	if (!*pp)
		return -ENODATA;
	x = *pp;
	*pp = x->next;
	free(x);
	fhs_touch(r->n, FH_C);
	return fhs_ok(r, NULL, 0);
}

/* Data is in memory, so allocating is only growing the size; a hole
   reads back as zeros. The kernel lets only these three modes through. */
static int fhs_fallocate(struct fh_req *r)
{
	const struct fuse_fallocate_in *a = FHS_ARG(r, struct fuse_fallocate_in);
	struct fh_node *n = r->n;
	uint64_t end;
	int err;

	if (!a)
		return -EINVAL;
	if (!S_ISREG(n->mode))
		return -ENODEV;
	if (a->mode & ~(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
		return -EOPNOTSUPP;
	end = a->offset + a->length;
	if (end < a->offset)
		return -EFBIG;
	if (!(a->mode & FALLOC_FL_KEEP_SIZE) && end > n->size) {
		err = fhs_resize(n, end);
		if (err)
			return err;
	}
	if ((a->mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) &&
	    a->offset < n->size)
		memset(n->data + a->offset, 0,
		       (end < n->size ? end : n->size) - a->offset);
	fhs_touch(n, FH_M | FH_C);
	return fhs_ok(r, NULL, 0);
}

static int fhs_statfs(struct fh_req *r)
{
	struct fuse_statfs_out o;

	memset(&o, 0, sizeof(o));
	o.st.blocks = o.st.bfree = o.st.bavail = 1 << 18;	/* 1 GiB */
	o.st.files = 1 << 20;
	o.st.ffree = o.st.files - r->fh->live;
	o.st.bsize = o.st.frsize = 4096;
	o.st.namelen = NAME_MAX;
	return fhs_ok(r, &o, sizeof(o));
}

/* Only asked with FH_NO_DEFAULT_PERMISSIONS. Supplementary groups are not
   in the request, so only the primary group counts. */
static int fhs_access(struct fh_req *r)
{
	const struct fuse_access_in *a = FHS_ARG(r, struct fuse_access_in);
	const struct fh_node *n = r->n;
	uint32_t mask, bits;

	if (!a)
		return -EINVAL;
	mask = a->mask & 7;
	if (r->in->uid == 0)	/* root may do all but run a non-executable */
		bits = S_ISDIR(n->mode) || (n->mode & 0111) ? 7 : 6;
	else if (r->in->uid == n->uid)
		bits = (n->mode >> 6) & 7;
	else if (r->in->gid == n->gid)
		bits = (n->mode >> 3) & 7;
	else
		bits = n->mode & 7;
	return (mask & ~bits) ? -EACCES : fhs_ok(r, NULL, 0);
}

/* ---- dispatch ---------------------------------------------------------- */

struct fhs_op {
	int (*fn)(struct fh_req *r);
	int nodeless;		/* nodeid is 0 or need not exist */
	const char *name;
};

#define FHS_OP(op, f, nl) [FUSE_##op] = { .fn = f, .nodeless = nl, .name = #op }
#define FHS_NAME(op) [FUSE_##op] = { .fn = NULL, .nodeless = 1, .name = #op }

static const struct fhs_op *fhs_op(uint32_t opcode)
{
	static const struct fhs_op ops[FH_NOPS] = {
		FHS_OP(INIT, fhs_init, 1),
		FHS_OP(DESTROY, fhs_nop, 1),
		FHS_OP(FORGET, fhs_forget, 1),
		FHS_OP(BATCH_FORGET, fhs_batch_forget, 1),
		FHS_OP(LOOKUP, fhs_lookup, 0),
		FHS_OP(GETATTR, fhs_getattr, 0),
		FHS_OP(SETATTR, fhs_setattr, 0),
		FHS_OP(READLINK, fhs_readlink, 0),
		FHS_OP(SYMLINK, fhs_symlink, 0),
		FHS_OP(MKNOD, fhs_mknod, 0),
		FHS_OP(MKDIR, fhs_mkdir, 0),
		FHS_OP(UNLINK, fhs_unlink, 0),
		FHS_OP(RMDIR, fhs_rmdir, 0),
		FHS_OP(RENAME, fhs_rename, 0),
		FHS_OP(RENAME2, fhs_rename2, 0),
		FHS_OP(LINK, fhs_link, 0),
		FHS_OP(OPEN, fhs_open, 0),
		FHS_OP(CREATE, fhs_create, 0),
		FHS_OP(READ, fhs_read, 0),
		FHS_OP(WRITE, fhs_write, 0),
		FHS_OP(STATFS, fhs_statfs, 0),
		FHS_OP(RELEASE, fhs_nop, 0),
		FHS_OP(FSYNC, fhs_nop, 0),
		FHS_OP(FLUSH, fhs_nop, 0),
		FHS_OP(SETXATTR, fhs_setxattr, 0),
		FHS_OP(GETXATTR, fhs_getxattr, 0),
		FHS_OP(LISTXATTR, fhs_listxattr, 0),
		FHS_OP(REMOVEXATTR, fhs_removexattr, 0),
		FHS_OP(OPENDIR, fhs_opendir, 0),
		FHS_OP(READDIR, fhs_readdir, 0),
		FHS_OP(RELEASEDIR, fhs_nop, 0),
		FHS_OP(FSYNCDIR, fhs_nop, 0),
		FHS_OP(ACCESS, fhs_access, 0),
		FHS_OP(FALLOCATE, fhs_fallocate, 0),
		/* Answered -ENOSYS; named for the debug log. The kernel then
		   stops sending most of them or falls back to generic code. */
		FHS_NAME(INTERRUPT), FHS_NAME(GETLK), FHS_NAME(SETLK),
		FHS_NAME(SETLKW), FHS_NAME(BMAP), FHS_NAME(IOCTL),
		FHS_NAME(POLL), FHS_NAME(NOTIFY_REPLY), FHS_NAME(READDIRPLUS),
		FHS_NAME(LSEEK), FHS_NAME(COPY_FILE_RANGE),
	};

	return opcode < FH_NOPS && ops[opcode].name ? &ops[opcode] : NULL;
}

/* "MKDIR" for FUSE_MKDIR; "?" for opcodes this file does not know. */
const char *fh_opname(uint32_t opcode)
{
	const struct fhs_op *op = fhs_op(opcode);

	return op ? op->name : "?";
}

static void fhs_handle(struct fuse_hold *fh, const struct fuse_in_header *in)
{
	struct fh_req r = {
		.fh = fh,
		.in = in,
		.n = fhs_node(fh, in->nodeid),
		.arg = (const char *)(in + 1),
		.len = in->len - sizeof(*in),
	};
	const struct fhs_op *op = fhs_op(in->opcode);
	int err;

	if (!op || !op->fn)
		err = -ENOSYS;
	else if (!r.n && !op->nodeless)
		err = -ESTALE;
	else
		err = op->fn(&r);
	/* An INTERRUPT's unique has FUSE_INT_REQ_BIT set: answering it
	   -ENOSYS tells the kernel to stop sending them. */
	if (err < 0)
		fhs_send(fh, in->unique, err, NULL, 0, NULL, 0);
	if (fh->debug)
		fprintf(stderr, "fuse_hold: %s(%u) node %llu: %d\n",
			fh_opname(in->opcode), in->opcode,
			(unsigned long long)in->nodeid, err < 0 ? err : 0);
}

/* ---- the server thread ------------------------------------------------- */

static void fhs_poke(struct fuse_hold *fh)
{
	uint64_t one = 1;

	if (write(fh->evfd, &one, sizeof(one)) < 0)
		perror("fuse_hold: eventfd");
}

/*
 * Reads one request and serves it, or parks it when a hold is armed for
 * its opcode. Returns 1 when the connection is gone.
 */
static int fhs_receive(struct fuse_hold *fh)
{
	struct fuse_in_header *in = (void *)fh->buf;
	ssize_t n = read(fh->fd, fh->buf, FH_BUFSIZE);
	void *copy;

	/* ENOENT: the request was interrupted before we got it. */
	if (n < 0)
		return errno != EAGAIN && errno != EINTR && errno != ENOENT;
	if ((size_t)n < sizeof(*in) || in->len != (size_t)n)
		return 0;
	pthread_mutex_lock(&fh->lock);
	if (in->opcode < FH_NOPS)
		fh->counts[in->opcode]++;
	if (fh->state == FH_ARMED && in->opcode == fh->hold_op &&
	    (copy = malloc(n))) {
		memcpy(copy, in, n);
		fh->held = copy;
		fh->state = FH_HELD;
		pthread_cond_broadcast(&fh->cond);
		pthread_mutex_unlock(&fh->lock);
		return 0;
	}
	pthread_mutex_unlock(&fh->lock);
	fhs_handle(fh, in);
	return 0;
}

/* The eventfd fired: answer the parked request if asked; 1 means stop. */
static int fhs_wakeup(struct fuse_hold *fh)
{
	uint64_t v;
	void *req = NULL;
	int stop;

	if (read(fh->evfd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return 1;
	pthread_mutex_lock(&fh->lock);
	stop = fh->stop;
	if (fh->state == FH_HELD && fh->release) {
		req = fh->held;
		fh->held = NULL;
	}
	pthread_mutex_unlock(&fh->lock);
	if (req) {
		fhs_handle(fh, req);
		free(req);
		pthread_mutex_lock(&fh->lock);
		fh->state = FH_IDLE;
		fh->release = 0;
		pthread_cond_broadcast(&fh->cond);
		pthread_mutex_unlock(&fh->lock);
	}
	return stop;
}

/* A file table of our own, empty but for stdio and the eventfd (see the
   top of this file for why). Without it all still works, less robustly. */
static void fhs_private_files(struct fuse_hold *fh)
{
	if (unshare(CLONE_FILES))
		return;
	fh->private_files = 1;
	if (fh->evfd > 3)
		close_range(3, fh->evfd - 1, 0);
	close_range(fh->evfd + 1, ~0U, 0);
}

static int fhs_start(struct fuse_hold *fh)
{
	char opts[160];

	fhs_private_files(fh);
	fh->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fh->fd < 0)
		return -errno;
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=%u,group_id=%u,allow_other%s",
		 fh->fd, geteuid(), getegid(),
		 fh->flags & FH_NO_DEFAULT_PERMISSIONS ? "" : ",default_permissions");
	if (mount("fuse_hold", fh->mountpoint, "fuse", 0, opts))
		return -errno;
	pthread_mutex_lock(&fh->lock);
	fh->mounted = 1;
	pthread_mutex_unlock(&fh->lock);
	return 0;
}

static void *fhs_main(void *arg)
{
	struct fuse_hold *fh = arg;
	struct pollfd pfd[2];
	int err, stop = 0;

	err = fhs_start(fh);
	pfd[0] = (struct pollfd){ .fd = fh->fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = fh->evfd, .events = POLLIN };
	while (!err && !stop) {
		if (poll(pfd, 2, -1) < 0) {
			stop = errno != EINTR;
			continue;
		}
		if (pfd[1].revents)
			stop = fhs_wakeup(fh);
		if (!stop && pfd[0].revents)
			stop = fhs_receive(fh);
	}
	/* The last descriptor: closing it aborts the connection, which fails
	   whatever is still pending, a parked request included. */
	if (fh->fd >= 0)
		close(fh->fd);
	if (fh->private_files)
		close(fh->evfd);	/* our table's copy */
	pthread_mutex_lock(&fh->lock);
	fh->error = err;
	fh->dead = 1;
	free(fh->held);
	fh->held = NULL;
	fh->state = FH_IDLE;
	pthread_cond_broadcast(&fh->cond);
	pthread_mutex_unlock(&fh->lock);
	return NULL;
}

/* ---- the API ----------------------------------------------------------- */

/* Waits, fh->lock held, until pred() or the server's death, at most ms:
   0, -ETIMEDOUT or -ENOTCONN. */
static int fhs_wait(struct fuse_hold *fh, int (*pred)(struct fuse_hold *),
		    int ms)
{
	struct timespec dl;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	while (!pred(fh) && !fh->dead)
		if (pthread_cond_timedwait(&fh->cond, &fh->lock, &dl) == ETIMEDOUT)
			break;
	return pred(fh) ? 0 : fh->dead ? -ENOTCONN : -ETIMEDOUT;
}

static int fhs_is_ready(struct fuse_hold *fh)
{
	return fh->ready;
}

static int fhs_is_held(struct fuse_hold *fh)
{
	return fh->state == FH_HELD;
}

/*
 * Mounts an empty file system (a 0755 root owned by the caller) on
 * mountpoint, an existing directory, and serves it until fh_umount().
 * Returns NULL with errno set on failure.
 */
struct fuse_hold *fh_mount_flags(const char *mountpoint, unsigned int flags)
{
	struct fuse_hold *fh = calloc(1, sizeof(*fh));
	pthread_condattr_t ca;
	int err;

	if (!fh)
		return NULL;
	fh->fd = -1;
	fh->flags = flags;
	fh->debug = getenv("FUSE_HOLD_DEBUG") != NULL;
	pthread_mutex_init(&fh->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&fh->cond, &ca);
	pthread_condattr_destroy(&ca);
	fh->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fh->mountpoint = strdup(mountpoint);
	fh->buf = malloc(FH_BUFSIZE);
	fh->out = malloc(FH_BUFSIZE);
	fh->cap = 64;
	fh->nnodes = 1;		/* nodeid 0 means none */
	fh->nodes = calloc(fh->cap, sizeof(*fh->nodes));
	if (fh->evfd < 0) {
		err = -errno;
		goto fail;
	}
	err = -ENOMEM;
	if (!fh->mountpoint || !fh->buf || !fh->out || !fh->nodes ||
	    !fhs_new_node(fh, S_IFDIR | 0755, geteuid(), getegid()))
		goto fail;
	err = -pthread_create(&fh->thread, NULL, fhs_main, fh);
	if (err)
		goto fail;
	fh->started = 1;
	pthread_mutex_lock(&fh->lock);
	err = fhs_wait(fh, fhs_is_ready, FH_INIT_TIMEOUT_MS);
	if (err && fh->error)
		err = fh->error;
	pthread_mutex_unlock(&fh->lock);
	if (!err)
		return fh;
fail:
	fh_umount(fh);
	errno = -err;
	return NULL;
}

struct fuse_hold *fh_mount(const char *mountpoint)
{
	return fh_mount_flags(mountpoint, 0);
}

/*
 * Arms a hold: the next request with this opcode (FUSE_MKDIR, ...) is
 * received and parked unanswered until fh_release(). One hold at a time:
 * -EBUSY while one is armed or held.
 */
int fh_hold(struct fuse_hold *fh, uint32_t opcode)
{
	int ret = 0;

	if (opcode >= FH_NOPS || opcode == FUSE_INIT)
		return -EINVAL;
	pthread_mutex_lock(&fh->lock);
	if (fh->dead)
		ret = -ENOTCONN;
	else if (fh->state != FH_IDLE)
		ret = -EBUSY;
	else {
		fh->state = FH_ARMED;
		fh->hold_op = opcode;
	}
	pthread_mutex_unlock(&fh->lock);
	return ret;
}

/*
 * Waits until the armed hold has caught its request: 0, or -ETIMEDOUT
 * after timeout_ms (a bound for broken runs, not a synchronization), or
 * -ENOTCONN when the server is gone.
 */
int fh_wait_held(struct fuse_hold *fh, int timeout_ms)
{
	int ret;

	pthread_mutex_lock(&fh->lock);
	ret = fhs_wait(fh, fhs_is_held, timeout_ms);
	pthread_mutex_unlock(&fh->lock);
	return ret;
}

/*
 * Answers the held request, as if it had never been held, and returns
 * once the answer is written (its syscall then returns on its own).
 * Returns 0, or -ENOENT when nothing was held; an armed hold that caught
 * nothing is disarmed. -ENOTCONN: the server died with it unanswered.
 */
int fh_release(struct fuse_hold *fh)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&fh->lock);
	if (fh->state == FH_ARMED) {
		fh->state = FH_IDLE;
	} else if (fh->state == FH_HELD) {
		fh->release = 1;
		fhs_poke(fh);
		while (fh->state == FH_HELD && !fh->dead)
			pthread_cond_wait(&fh->cond, &fh->lock);
		ret = fh->release ? -ENOTCONN : 0;
		fh->release = 0;
	}
	pthread_mutex_unlock(&fh->lock);
	return ret;
}

/* Requests received with this opcode, held ones included. */
unsigned long fh_count(struct fuse_hold *fh, uint32_t opcode)
{
	unsigned long n = 0;

	if (opcode < FH_NOPS) {
		pthread_mutex_lock(&fh->lock);
		n = fh->counts[opcode];
		pthread_mutex_unlock(&fh->lock);
	}
	return n;
}

/* Nodes alive in the tree, the root included: a leak check for FORGET. */
unsigned long fh_live_nodes(struct fuse_hold *fh)
{
	unsigned long n;

	pthread_mutex_lock(&fh->lock);
	n = fh->live;
	pthread_mutex_unlock(&fh->lock);
	return n;
}

/*
 * Answers a held request, disarms, unmounts (lazily if the mount is
 * busy), stops the server and frees everything. Whatever still uses a
 * lazily detached mount gets ENOTCONN from then on. NULL is a no-op.
 */
void fh_umount(struct fuse_hold *fh)
{
	uint64_t i;
	int mounted;

	if (!fh)
		return;
	pthread_mutex_lock(&fh->lock);
	mounted = fh->mounted;
	pthread_mutex_unlock(&fh->lock);
	if (fh->started)
		fh_release(fh);
	if (mounted && umount2(fh->mountpoint, 0))
		umount2(fh->mountpoint, MNT_DETACH);
	if (fh->started) {
		pthread_mutex_lock(&fh->lock);
		fh->stop = 1;
		if (!fh->dead)
			fhs_poke(fh);
		pthread_mutex_unlock(&fh->lock);
		pthread_join(fh->thread, NULL);
	}
	for (i = 1; fh->nodes && i < fh->nnodes; i++)
		if (fh->nodes[i])
			fhs_free_node(fh, fh->nodes[i]);
	if (fh->evfd >= 0)
		close(fh->evfd);
	pthread_cond_destroy(&fh->cond);
	pthread_mutex_destroy(&fh->lock);
	free(fh->nodes);
	free(fh->buf);
	free(fh->out);
	free(fh->mountpoint);
	free(fh);
}
