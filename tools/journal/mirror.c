// SPDX-License-Identifier: GPL-2.0
/*
 * vbjournal mirror SRC DST: an incremental one-way mirror of SRC into DST
 * driven by the journal, with rsync doing every transfer. The reference
 * consumer of vbjournal(1), ENTRIES:
 *
 *   dir P      rsync -d --delete of P's entries (not its subtree); a
 *              subdirectory of P the mirror does not have as one (new,
 *              or a file before) is copied whole
 *   moved P    rsync -r --delete of P's subtree
 *   file ...   each of its names is copied, in the same run as the
 *              directories (rsync -H links the names it sees together);
 *              one whose names were not all found: a full run
 *   rescan     of SRC's filesystem (or "full rescan required", exit 3
 *              of changes): a full rsync -a --delete (also with
 *              --full-above PCT when the answer names that much)
 *
 * It asks libvbjournal what changed since C under SRC (what `vbjournal
 * changes --since C --under SRC` answers) in this process, where the
 * directories' handles are opened, and keeps its consumer there too:
 * the public API alone (libvbjournal(3)), as a vendor's consumer would.
 * Its state (the cursor it has
 * mirrored up to, SRC, the size of the tree at the last full run)
 * lives in DST/.vbjournal-mirror/
 * (excluded from every transfer), written with fsync and rename after
 * syncfs() of DST: the cursor moves only once what rsync wrote is on
 * disk, so a crash of the mirror repeats work and never skips any. It
 * also keeps a registered consumer (default "mirror") in the journal at
 * that cursor, never ahead of it, so that the journal keeps the epochs
 * it has not mirrored yet; one an admin unregistered is registered
 * again.
 *
 * First run (no state): the cursor is taken first (after a checkpoint
 * with --checkpoint), the consumer registered at it, then the full copy;
 * every change after the cursor is in a later answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <vbjournal.h>

#include "cli.h"
#include "mirror.h"

#define STATE_DIR	".vbjournal-mirror"
#define STATE_VERSION	1
/*
 * A full run when the work names more than this % of the dirs; 0: never
 * for that reason (the default: a full run compares by size and mtime,
 * which misses a file rewritten at the same size within the timestamp
 * tick of its last copy; the crash test found one in 19 crashes).
 */
#define FULL_ABOVE	0
/* rsync's exit statuses for a partial transfer */
#define RSYNC_PARTIAL	23
#define RSYNC_VANISHED	24
/* the mirror's own exit status when rsync failed */
#define EXIT_RSYNC	10

#define bad_usage(...) cli_usage_error("vbjournal mirror", __VA_ARGS__)

struct strv {
	char **v;
	size_t n, cap;
};

struct mirror {
	const char *journal, *consumer;
	char src[PATH_MAX], dst[PATH_MAX], state[PATH_MAX];
	bool checkpoint, force_full, progress, verbose, checksum;
	unsigned int skip;	/* VBJOURNAL_MIRROR_SKIP: test only */
	unsigned long long full_above;	/* %, 0: never */
	struct vbjournal *j;	/* opened to write its consumer */
	/* the state file */
	bool have_state;
	char cursor[64], state_src[PATH_MAX];
	long long dirs;		/* directories at the last full run, -1 */
	bool last_full;		/* the last run was a full one */
	/* this run's work, relative to SRC */
	struct strv list;	/* "P/" (entries of P), files */
	struct strv rec;	/* subtrees, whole */
	size_t ndirs, nfiles;
	const char *full_why;
	bool partial;		/* the last rsync failed with a partial transfer */
};

enum { SKIP_DIR = 1, SKIP_MOVED = 2, SKIP_FILE = 4, SKIP_NEW = 8,
	SKIP_RESCAN = 16 };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vbjournal [--journal DIR] mirror SRC DST [--consumer NAME]\n"
		"                 [--checkpoint] [--full] [--full-above PCT] [--no-checksum]\n"
		"                 [--progress] [--verbose]\n"
		"\n"
		"Mirrors SRC into DST incrementally, from the journal's answers,\n"
		"with rsync; prints the cursor mirrored up to.\n"
		"  --journal DIR    the journal (default /var/lib/vbjournal)\n"
		"  --consumer NAME  the journal's consumer to register and ack\n"
		"                   (default mirror)\n"
		"  --checkpoint     ask the daemon to close the epoch first\n"
		"  --full           a full rsync -a --delete this time\n"
		"  --full-above PCT a full run (by size and mtime) when the answer names\n"
		"                   more than PCT%% of the directories (default 0: never)\n"
		"  --no-checksum    let rsync skip files of the same size and mtime\n"
		"  --progress       rsync's progress on stderr\n"
		"  --verbose        what each run does, on stderr\n"
		"\n"
		"exit status: 0 done; 1 error; 2 usage; 4-9 the journal (vbjournal(1));\n"
		"10 rsync failed (the cursor was not advanced)\n");
}

static int strv_add(struct strv *sv, const char *s, size_t len)
{
	if (sv->n == sv->cap) {
		size_t cap = sv->cap ? 2 * sv->cap : 64;
		char **v = realloc(sv->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n] = strndup(s, len);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each once. */
static void strv_uniq(struct strv *sv)
{
	size_t i, k = 0;

	if (!sv->n)
		return;
	qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
	for (i = 1; i < sv->n; i++) {
		if (!strcmp(sv->v[i], sv->v[k]))
			free(sv->v[i]);
		else
			sv->v[++k] = sv->v[i];
	}
	sv->n = k + 1;
}

static void strv_free(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

static bool within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return path[0] == '/';
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* path (absolute, within SRC) relative to SRC: "." for SRC itself. */
static const char *rel_of(const struct mirror *m, const char *path)
{
	size_t n = strcmp(m->src, "/") ? strlen(m->src) : 0;

	return path[n] ? path + n + 1 : ".";
}

/* ---- children ---- */

/*
 * Runs argv with stdout into *out (when out) or onto our stderr, stdin
 * from /dev/null. Its exit status, or -errno.
 */
static int run(char *const argv[], char **out, size_t *outlen, bool use_path)
{
	size_t len = 0, cap = 0;
	int p[2] = { -1, -1 }, status, ret = 0;
	char *buf = NULL;
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		if (out) {
			close(p[0]);
			close(p[1]);
		}
		return ret;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(out ? p[1] : 2, 1);
		if (use_path)
			execvp(argv[0], argv);
		else
			execv(argv[0], argv);
		fprintf(stderr, "vbjournal mirror: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (out) {
		ssize_t n;

		close(p[1]);
		for (;;) {
			if (cap - len < 65536) {
				char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 20);

				if (!b) {
					ret = -ENOMEM;
					break;
				}
				buf = b;
			}
			n = read(p[0], buf + len, cap - len - 1);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (n < 0)
					ret = -errno;
				break;
			}
			len += n;
		}
		close(p[0]);
		if (buf)
			buf[len] = 0;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (out) {
		if (ret) {
			free(buf);
			return ret;
		}
		*out = buf;
		*outlen = len;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* vbjournal itself, with args after --journal DIR. */
static int self(const struct mirror *m, const char *const *args, char **out,
		size_t *outlen)
{
	char *argv[16];
	int i = 0;

	argv[i++] = "/proc/self/exe";
	argv[i++] = "--journal";
	argv[i++] = (char *)m->journal;
	while (*args && i < 15)
		argv[i++] = (char *)*args++;
	argv[i] = NULL;
	return run(argv, out, outlen, false);
}

/* ---- the state in DST/.vbjournal-mirror ---- */

static void hexenc(const char *s, char *out)
{
	for (; *s; s++, out += 2)
		sprintf(out, "%02x", (unsigned char)*s);
	*out = 0;
}

static int hexdec(const char *h, char *out, size_t sz)
{
	size_t n = strlen(h), i;
	unsigned int b;

	if (n % 2 || n / 2 >= sz)
		return -EINVAL;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(h + 2 * i, "%2x", &b) != 1 || !b)
			return -EINVAL;
		out[i] = b;
	}
	out[i] = 0;
	return 0;
}

/* 0 (m->have_state says whether there is one), or -errno / -EINVAL. */
static int read_state(struct mirror *m)
{
	char path[PATH_MAX + 32], line[2 * PATH_MAX + 64], val[2 * PATH_MAX + 1];
	int version = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/state", m->state);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	m->dirs = -1;
	while (fgets(line, sizeof(line), f)) {
		long long n;

		if (sscanf(line, "vbjournal-mirror %d", &version) == 1)
			continue;
		if (sscanf(line, "cursor %63s", m->cursor) == 1)
			continue;
		if (!strcmp(line, "last full\n")) {
			m->last_full = true;
			continue;
		}
		if (sscanf(line, "dirs %lld", &n) == 1) {
			m->dirs = n;
			continue;
		}
		if (sscanf(line, "src %8191s", val) == 1 &&
		    hexdec(val, m->state_src, sizeof(m->state_src))) {
			fclose(f);
			return -EINVAL;
		}
	}
	fclose(f);
	if (version != STATE_VERSION || !m->cursor[0] || !m->state_src[0])
		return -EINVAL;
	m->have_state = true;
	return 0;
}

/* name in the state directory, written durably: fsync, rename, fsync. */
static int write_file(const struct mirror *m, const char *name,
		      const char *data, size_t len)
{
	char tmp[PATH_MAX + 32], final[PATH_MAX + 32];
	int fd, dfd, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", m->state, name);
	snprintf(final, sizeof(final), "%s/%s", m->state, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		data += n;
		len -= n;
	}
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, final))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	dfd = open(m->state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fsync(dfd))
		ret = -errno;
	close(dfd);
	return ret;
}

static int remove_file(const struct mirror *m, const char *name)
{
	char path[PATH_MAX + 32];
	int dfd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", m->state, name);
	if (unlink(path))
		return errno == ENOENT ? 0 : -errno;
	dfd = open(m->state, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fsync(dfd))
		ret = -errno;
	close(dfd);
	return ret;
}

static int write_state(struct mirror *m, const char *cursor, bool full)
{
	char buf[3 * PATH_MAX], hex[2 * PATH_MAX + 1];

	hexenc(m->src, hex);
	snprintf(buf, sizeof(buf), "vbjournal-mirror %d\nsrc %s\ncursor %s\n"
		 "consumer %s\ndirs %lld\nlast %s\n", STATE_VERSION, hex,
		 cursor, m->consumer, m->dirs, full ? "full" : "incremental");
	return write_file(m, "state", buf, strlen(buf));
}

/* What rsync wrote, on disk. */
static int sync_dst(const struct mirror *m)
{
	int fd = open(m->dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (syncfs(fd))
		ret = -errno;
	close(fd);
	return ret;
}

/* ---- the journal's consumer ---- */

/*
 * The consumer at cursor, or (NULL) at the current cursor given in out:
 * registered when missing (and with note, said on stderr: an admin
 * unregistered it), moved there when elsewhere, back too (acked ahead
 * of what DST holds). The cursor checked and the consumer set in one
 * transaction (vbjournal_register_at()). 0, or -errno with
 * vbjournal_errmsg().
 */
static int set_consumer(struct mirror *m, const char *cursor, char *out,
			size_t size, bool note)
{
	char was[VBJOURNAL_CURSOR_MAX];
	bool missing = false;
	int ret;

	if (note) {
		ret = vbjournal_consumer_cursor(m->j, m->consumer, was,
						sizeof(was));
		if (ret && ret != -ENOENT)
			return ret;
		missing = ret == -ENOENT;
	}
	ret = vbjournal_register_at(m->j, m->consumer, cursor,
				    VBJOURNAL_REGISTER_MOVE, out, size);
	if (!ret && missing)
		fprintf(stderr, "vbjournal mirror: consumer %s was not "
			"registered: registered again at %s\n", m->consumer,
			cursor ? cursor : out);
	return ret;
}

/* "vbjournal mirror: WHY" for a failure of the journal: an exit status. */
static int journal_failed(const struct mirror *m, int err)
{
	fprintf(stderr, "vbjournal mirror: %s\n", vbjournal_errmsg(m->j));
	return cli_journal_exit(err);
}

/* ---- rsync ---- */

static const char *const rsync_flags[] = {
	"-lptgoDAXH", "--numeric-ids", "--delete", "--modify-window=-1",
	"--exclude=/" STATE_DIR,
};

/*
 * One rsync run: full (-a of the tree), or with the list in
 * STATE_DIR/list (NUL-separated, relative to SRC), recursive or not.
 * Retries once on a partial transfer (23). 0, or its exit status.
 */
static int rsync_run(struct mirror *m, bool full, bool recursive)
{
	char src[PATH_MAX + 2], dst[PATH_MAX + 2], from[PATH_MAX + 32];
	const char *bin = getenv("VBJOURNAL_RSYNC");
	char *argv[24];
	int i = 0, k, rc, tries;

	argv[i++] = (char *)(bin && bin[0] ? bin : "rsync");
	for (k = 0; k < (int)(sizeof(rsync_flags) / sizeof(*rsync_flags)); k++)
		argv[i++] = (char *)rsync_flags[k];
	if (full) {
		argv[i++] = "-r";
	} else {
		argv[i++] = recursive ? "-r" : "-d";
		argv[i++] = "--ignore-missing-args";
		argv[i++] = "--from0";
		snprintf(from, sizeof(from), "--files-from=%s/list", m->state);
		argv[i++] = from;
		if (m->checksum)
			argv[i++] = "--checksum";
	}
	if (full)
		argv[i++] = "--stats";
	if (m->progress)
		argv[i++] = "--info=progress2";
	snprintf(src, sizeof(src), "%s/", m->src);
	snprintf(dst, sizeof(dst), "%s/", m->dst);
	argv[i++] = "--";
	argv[i++] = src;
	argv[i++] = dst;
	argv[i] = NULL;
	for (tries = 0; tries < 2; tries++) {
		char *out = NULL, *p;
		size_t len = 0;

		rc = run(argv, full ? &out : NULL, &len, true);
		if (out) {
			/* rsync's output (progress, statistics) to stderr */
			if (m->progress || m->verbose)
				fwrite(out, 1, len, stderr);
			p = strstr(out, "Number of files:");
			if (p && strchr(p, '\n'))
				*strchr(p, '\n') = 0;
			if (!rc && p && (p = strstr(p, "dir: "))) {
				long long n = 0;

				for (p += 5; *p; p++)
					if (*p >= '0' && *p <= '9')
						n = 10 * n + (*p - '0');
					else if (*p != ',')
						break;
				m->dirs = n;
			}
			free(out);
		}
		if (rc == 0)
			return 0;
		if (rc == RSYNC_VANISHED) {
			/*
			 * files that vanished while rsync ran: their
			 * directories changed after this answer's epochs, so
			 * a later answer names them again
			 */
			if (m->verbose)
				fprintf(stderr, "vbjournal mirror: rsync: some "
					"files vanished (their directories are "
					"in the next answer)\n");
			return 0;
		}
		if (rc < 0) {
			fprintf(stderr, "vbjournal mirror: rsync: %s\n",
				strerror(-rc));
			return EXIT_RSYNC;
		}
		if (rc != RSYNC_PARTIAL)
			break;
		fprintf(stderr, "vbjournal mirror: rsync: partial transfer "
			"(exit %d)%s\n", rc, tries ? "" : ", trying again");
	}
	m->partial = rc == RSYNC_PARTIAL;
	fprintf(stderr, "vbjournal mirror: rsync failed (exit %d): the cursor "
		"stays at %s\n", rc, m->have_state ? m->cursor : "none");
	return EXIT_RSYNC;
}

static int write_list(struct mirror *m, const char *name,
		      const struct strv *sv)
{
	size_t i, len = 0;
	char *buf, *p;
	int ret;

	for (i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + 1;
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	for (p = buf, i = 0; i < sv->n; i++)
		p = stpcpy(p, sv->v[i]) + 1;
	ret = write_file(m, name, buf, len);
	free(buf);
	return ret;
}

/* ---- the answer ---- */

/*
 * A dir entry P: P's entries, and each subdirectory of P the mirror
 * does not have as a directory, whole; P itself whole when the mirror
 * does not have it as a directory.
 */
static int add_dir(struct mirror *m, const char *rel)
{
	char s[PATH_MAX], d[PATH_MAX], child[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *dir;

	if (snprintf(d, sizeof(d), "%s/%s", m->dst, rel) >= (int)sizeof(d) ||
	    snprintf(s, sizeof(s), "%s/%s", m->src, rel) >= (int)sizeof(s)) {
		m->full_why = "a path too long";
		return 0;
	}
	if (!(m->skip & SKIP_NEW) &&
	    (lstat(d, &st) || !S_ISDIR(st.st_mode)))
		return strv_add(&m->rec, rel, strlen(rel));
	m->ndirs++;
	snprintf(child, sizeof(child), "%s/", rel);
	if (strv_add(&m->list, child, strlen(child)))
		return -ENOMEM;
	if (m->skip & SKIP_NEW)
		return 0;
	dir = opendir(s);
	if (!dir)
		return 0;	/* gone since: its parent says so */
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!strcmp(rel, ".") && !strcmp(e->d_name, STATE_DIR))
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		if (e->d_type == DT_UNKNOWN &&
		    (fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		     !S_ISDIR(st.st_mode)))
			continue;
		if (snprintf(d, sizeof(d), "%s/%s/%s", m->dst, rel,
			     e->d_name) >= (int)sizeof(d) ||
		    snprintf(child, sizeof(child), "%s/%s", rel,
			     e->d_name) >= (int)sizeof(child))
			continue;	/* too long for rsync too */
		if (!lstat(d, &st) && S_ISDIR(st.st_mode))
			continue;
		if (!strcmp(rel, "."))
			snprintf(child, sizeof(child), "%s", e->d_name);
		if (strv_add(&m->rec, child, strlen(child))) {
			closedir(dir);
			return -ENOMEM;
		}
	}
	closedir(dir);
	return 0;
}

/* An entry's path (any bytes but NUL) into out: 0, or -EINVAL. */
static int entry_path(const char *p, size_t len, char *out, size_t sz)
{
	if (!p || !len || len >= sz || memchr(p, 0, len))
		return -EINVAL;
	memcpy(out, p, len);
	out[len] = 0;
	return 0;
}

/*
 * A dir or moved entry: the work it makes, or m->full_why. 0 or
 * -ENOMEM.
 */
static int take_dir(struct mirror *m, const struct vbjournal_entry *e)
{
	bool moved = e->kind == VBJOURNAL_MOVED;
	char path[PATH_MAX];

	if (e->gone)
		return 0;	/* its parent is named */
	if (e->path_source != VBJOURNAL_PATH_HANDLE) {
		m->full_why = "a directory named by its stored path or handle "
			      "only (vbjournal mirror runs as root)";
		return 0;
	}
	if (entry_path(e->path, e->path_len, path, sizeof(path))) {
		m->full_why = "a path that cannot be read";
		return 0;
	}
	if (moved && within(m->src, path)) {
		m->full_why = "SRC or a directory above it moved";
		return 0;
	}
	if (!within(path, m->src))
		return 0;
	if (moved)
		return (m->skip & SKIP_MOVED) ? 0 :
		       strv_add(&m->rec, rel_of(m, path),
				strlen(rel_of(m, path)));
	return (m->skip & SKIP_DIR) ? 0 : add_dir(m, rel_of(m, path));
}

/* A file entry: each of its names, or m->full_why. 0 or -ENOMEM. */
static int take_file(struct mirror *m, const struct vbjournal_entry *e)
{
	size_t i;
	int ret = 0;

	if (m->skip & SKIP_FILE)
		return 0;
	if (!e->gone && !e->names_complete) {
		m->full_why = "a file whose names were not all found";
		return 0;
	}
	for (i = 0; !ret && i < e->nnames; i++) {
		const char *path = e->names[i];

		if (strlen(path) >= PATH_MAX) {
			m->full_why = "a path that cannot be read";
			return 0;
		}
		if (!within(path, m->src) || !strcmp(path, m->src))
			continue;
		m->nfiles++;
		ret = strv_add(&m->list, rel_of(m, path),
			       strlen(rel_of(m, path)));
	}
	return ret;
}

/* A rescan entry: a full run when it is of SRC's filesystem. */
static const char *take_rescan(struct mirror *m,
			       const struct vbjournal_entry *e)
{
	char path[PATH_MAX], canon[PATH_MAX];

	if (m->skip & SKIP_RESCAN)
		return NULL;
	if (entry_path(e->path, e->path_len, path, sizeof(path)))
		return "a rescan of a filesystem the journal does not know";
	if (!realpath(path, canon))
		snprintf(canon, sizeof(canon), "%s", path);
	if (within(m->src, canon) || within(canon, m->src))
		return "the journal requires a rescan";
	return NULL;
}

/*
 * The journal's answer since m->cursor under SRC (libvbjournal, in
 * this process: the handles opened here), turned into this run's work
 * or m->full_why; its cursor into cursor. 0; -ESTALE the journal
 * cannot answer from the cursor (a full run); or an exit status.
 */
static int take_changes(struct mirror *m, char *cursor, size_t csz)
{
	const struct vbjournal_entry *e;
	struct vbjournal_changes *it;
	const char *rescan = NULL;
	int ret;

	ret = vbjournal_changes(m->j, m->cursor, m->src, 0, &it);
	if (ret) {
		if (ret != -ESTALE) {
			fprintf(stderr, "vbjournal mirror: %s\n",
				vbjournal_errmsg(m->j));
			ret = ret == -EINVAL || ret == -EXDEV ? 1 :
			      cli_journal_exit(ret);
		}
		return ret;
	}
	snprintf(cursor, csz, "%s", vbjournal_changes_cursor(it));
	/* a rescan (the last entries) makes a full run whatever came before */
	while ((ret = vbjournal_changes_next(it, &e)) > 0) {
		if (e->kind == VBJOURNAL_RESCAN) {
			if (!rescan)
				rescan = take_rescan(m, e);
			continue;
		}
		if (m->full_why)
			continue;
		if (e->kind == VBJOURNAL_FILE)
			ret = take_file(m, e);
		else
			ret = take_dir(m, e);
		if (ret < 0)
			break;
	}
	if (ret < 0)
		fprintf(stderr, "vbjournal mirror: %s\n", ret == -ENOMEM ?
			strerror(ENOMEM) : vbjournal_errmsg(m->j));
	else if (rescan)
		m->full_why = rescan;
	vbjournal_changes_free(it);
	return ret < 0 ? (ret == -ENOMEM ? 1 : cli_journal_exit(ret)) : 0;
}

/* ---- runs ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Ends a run that copied up to cursor: durable, then the state, the ack. */
static int finish(struct mirror *m, const char *cursor, bool full)
{
	int ret = sync_dst(m);

	if (!ret)
		ret = write_state(m, cursor, full);
	if (!ret)
		ret = remove_file(m, "full");
	if (!ret)
		ret = remove_file(m, "plan");
	if (ret) {
		fprintf(stderr, "vbjournal mirror: %s: %s\n", m->state,
			strerror(-ret));
		return 1;
	}
	/*
	 * DST holds cursor durably: the consumer there. Trimmed past it
	 * meanwhile (the size cap): the next answer is "full rescan
	 * required", and the consumer is not put where the journal
	 * cannot answer from.
	 */
	ret = set_consumer(m, cursor, NULL, 0, true);
	if (ret == -ESTALE)
		fprintf(stderr, "vbjournal mirror: the journal no longer holds "
			"the epochs after %s (%s): the next run is a full one\n",
			cursor, vbjournal_errmsg(m->j));
	else if (ret)
		return journal_failed(m, ret);
	printf("%s\n", cursor);
	return 0;
}

/*
 * A full copy from a cursor taken before it: the first run, a rescan,
 * a cursor the journal cannot answer, most of the tree named.
 */
static int full_run(struct mirror *m, const char *why)
{
	char cursor[VBJOURNAL_CURSOR_MAX];
	int64_t e, old;
	uint64_t id;
	double t0 = now_s();
	int ret;

	ret = vbjournal_cursor(m->j, cursor, sizeof(cursor));
	if (!ret)
		ret = vbjournal_parse_cursor(cursor, &id, &e);
	if (ret)
		return journal_failed(m, ret);
	/*
	 * The journal keeps what comes after the cursor from now on. The
	 * consumer stays at (or goes back to) the cursor DST holds while
	 * that is older and the journal still answers from it: epochs are
	 * trimmed oldest first, so it then holds every one after the new
	 * cursor too. Else (another journal's, trimmed, none) the consumer
	 * is set at the current cursor in the same transaction that takes
	 * it, which becomes this run's.
	 */
	ret = -ESTALE;
	if (m->have_state && !vbjournal_parse_cursor(m->cursor, &id, &old) &&
	    old < e)
		ret = set_consumer(m, m->cursor, NULL, 0, true);
	if (ret == -ESTALE)
		ret = set_consumer(m, NULL, cursor, sizeof(cursor),
				   m->have_state);
	if (ret)
		return journal_failed(m, ret);
	ret = write_file(m, "full", "", 0);
	if (ret) {
		fprintf(stderr, "vbjournal mirror: %s: %s\n", m->state,
			strerror(-ret));
		return 1;
	}
	fprintf(stderr, "vbjournal mirror: %s: cursor %s taken; full copy of "
		"%s to %s\n", why, cursor, m->src, m->dst);
	ret = rsync_run(m, true, true);
	if (ret)
		return ret;
	fprintf(stderr, "vbjournal mirror: full copy done in %.1f s (%lld "
		"directories)\n", now_s() - t0, m->dirs);
	return finish(m, cursor, true);
}

/* write_list(), saying on stderr why it failed: 0, or 1 */
static int save_list(struct mirror *m, const char *name,
		     const struct strv *sv)
{
	int ret = write_list(m, name, sv);

	if (ret)
		fprintf(stderr, "vbjournal mirror: %s: %s\n", m->state,
			strerror(-ret));
	return ret ? 1 : 0;
}

static int partial_then_full(struct mirror *m, int ret);

/* One incremental rsync over sv's paths (none: nothing to do). */
static int sync_list(struct mirror *m, const struct strv *sv,
		     bool recursive)
{
	int ret;

	if (!sv->n)
		return 0;
	if (save_list(m, "list", sv))
		return 1;
	ret = rsync_run(m, false, recursive);
	return ret ? partial_then_full(m, ret) : 0;
}

/*
 * An incremental rsync that could not read a path the answer named
 * (exit 23 twice; --ignore-missing-args covers a path gone, not one
 * whose directory became a file, "link_stat ... Not a directory"): a
 * full run instead, which reads the tree as it is; the cursor moves
 * only when that succeeds. Another failure stays one.
 */
static int partial_then_full(struct mirror *m, int ret)
{
	if (ret != EXIT_RSYNC || !m->partial)
		return ret;
	m->partial = false;
	return full_run(m, "rsync could not read a path the answer named: "
			"a full run instead");
}

static int incremental(struct mirror *m)
{
	char cursor[64], path[PATH_MAX + 32];
	double t[5];
	struct stat st;
	int ret;

	snprintf(path, sizeof(path), "%s/full", m->state);
	if (!stat(path, &st))
		return full_run(m, "a full run was interrupted");
	t[0] = now_s();
	ret = take_changes(m, cursor, sizeof(cursor));
	t[2] = now_s();
	if (ret == -ESTALE)
		return full_run(m, "full rescan required");
	if (ret)
		return ret;
	if (m->full_why)
		return full_run(m, m->full_why);
	/* subtrees an interrupted run was copying whole */
	snprintf(path, sizeof(path), "%s/plan", m->state);
	{
		FILE *f = fopen(path, "re");
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		while (f && (n = getdelim(&line, &cap, 0, f)) > 0)
			if (n > 1 && strv_add(&m->rec, line, n - 1))
				return 1;
		free(line);
		if (f)
			fclose(f);
	}
	strv_uniq(&m->list);
	strv_uniq(&m->rec);
	/*
	 * Most of the tree named: a full run is faster. Not twice in a
	 * row: a full run compares by size and mtime, which misses a file
	 * rewritten with the same size in the same timestamp tick just
	 * after rsync read it; the run after a full one compares the
	 * contents of what the journal names since (--checksum).
	 */
	if (m->dirs > 0 && !m->last_full && m->full_above &&
	    (long long)(m->ndirs + m->rec.n) * 100 >
	    (long long)m->full_above * m->dirs)
		return full_run(m, "the journal names most of the tree");
	if (m->verbose)
		fprintf(stderr, "vbjournal mirror: %s to %s: %zu directories, "
			"%zu subtrees, %zu files\n", m->cursor, cursor, m->ndirs,
			m->rec.n, m->nfiles);
	/* the subtrees to copy whole, kept until the cursor moves */
	if (m->rec.n && save_list(m, "plan", &m->rec))
		return 1;
	t[3] = now_s();
	ret = sync_list(m, &m->list, false);
	if (!ret)
		ret = sync_list(m, &m->rec, true);
	if (ret)
		return ret;
	t[4] = now_s();
	ret = finish(m, cursor, false);
	if (m->verbose)
		fprintf(stderr, "vbjournal mirror: times: changes %.3f s, "
			"rsync %.3f s, finish %.3f s\n", t[2] - t[0],
			t[4] - t[3], now_s() - t[4]);
	return ret;
}

int vbj_mirror_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "journal", required_argument, NULL, 'J' },
		{ "consumer", required_argument, NULL, 'c' },
		{ "checkpoint", no_argument, NULL, 'k' },
		{ "full", no_argument, NULL, 'f' },
		{ "full-above", required_argument, NULL, 'a' },
		{ "no-checksum", no_argument, NULL, 'n' },
		{ "progress", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct mirror m = { .journal = "/var/lib/vbjournal",
			    .consumer = "mirror", .checksum = true, .dirs = -1,
			    .full_above = FULL_ABOVE };
	const char *skip = getenv("VBJOURNAL_MIRROR_SKIP");
	struct stat st;
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
			m.journal = optarg;
			break;
		case 'c':
			m.consumer = optarg;
			break;
		case 'k':
			m.checkpoint = true;
			break;
		case 'f':
			m.force_full = true;
			break;
		case 'a':
			if (cli_parse_uint(optarg, 0, 100, &m.full_above))
				return bad_usage("--full-above: '%s' is not a "
						 "percentage (0 to 100)", optarg);
			break;
		case 'n':
			m.checksum = false;
			break;
		case 'p':
			m.progress = true;
			break;
		case 'v':
			m.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("vbjournal %s\n", VFSB_VERSION);
			return 0;
		case ':':
			return bad_usage("%s needs a value", argv[optind - 1]);
		default:
			if (optopt)
				return bad_usage("unknown option '-%c'", optopt);
			return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* argv[optind] is "mirror" */
	if (argc - optind != 3)
		return bad_usage("mirror needs SRC DST");
	if (!m.consumer[0])
		return bad_usage("--consumer: an empty name");
	for (; skip && *skip; skip += strcspn(skip, ","), skip += !!*skip) {
		size_t n = strcspn(skip, ",");

		m.skip |= !strncmp(skip, "dir", n) && n == 3 ? SKIP_DIR :
			  !strncmp(skip, "moved", n) && n == 5 ? SKIP_MOVED :
			  !strncmp(skip, "file", n) && n == 4 ? SKIP_FILE :
			  !strncmp(skip, "new", n) && n == 3 ? SKIP_NEW :
			  !strncmp(skip, "rescan", n) && n == 6 ? SKIP_RESCAN : 0;
	}
	if (!realpath(argv[optind + 1], m.src) || stat(m.src, &st) ||
	    !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vbjournal mirror: SRC %s: %s\n", argv[optind + 1],
			errno ? strerror(errno) : "not a directory");
		return 2;
	}
	if (mkdir(argv[optind + 2], 0755) && errno != EEXIST) {
		fprintf(stderr, "vbjournal mirror: DST %s: %s\n", argv[optind + 2],
			strerror(errno));
		return 1;
	}
	if (!realpath(argv[optind + 2], m.dst) || stat(m.dst, &st) ||
	    !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vbjournal mirror: DST %s: %s\n", argv[optind + 2],
			errno ? strerror(errno) : "not a directory");
		return 2;
	}
	if (within(m.dst, m.src) || within(m.src, m.dst))
		return bad_usage("SRC %s and DST %s: one inside the other", m.src,
				 m.dst);
	if (snprintf(m.state, sizeof(m.state), "%s/%s", m.dst, STATE_DIR) >=
	    (int)sizeof(m.state))
		return bad_usage("DST %s: too long a path", m.dst);
	if (mkdir(m.state, 0700) && errno != EEXIST) {
		fprintf(stderr, "vbjournal mirror: %s: %s\n", m.state,
			strerror(errno));
		return 1;
	}
	ret = read_state(&m);
	if (ret) {
		fprintf(stderr, "vbjournal mirror: %s/state: %s\n", m.state,
			ret == -EINVAL ? "not a state this version wrote" :
			strerror(-ret));
		return 1;
	}
	if (m.have_state && strcmp(m.state_src, m.src)) {
		fprintf(stderr, "vbjournal mirror: %s mirrors %s, not %s\n",
			m.dst, m.state_src, m.src);
		return 2;
	}
	if (m.checkpoint) {
		const char *args[] = { "checkpoint", NULL };
		char *out = NULL;
		size_t len;

		ret = self(&m, args, &out, &len);
		free(out);
		if (ret)
			return ret < 0 ? 1 : ret;
	}
	ret = vbjournal_open(&m.j, m.journal, VBJOURNAL_OPEN_WRITE);
	if (ret) {
		fprintf(stderr, "vbjournal mirror: %s\n", m.j ?
			vbjournal_errmsg(m.j) : strerror(-ret));
		vbjournal_close(m.j);
		return cli_journal_exit(ret);
	}
	if (!m.have_state)
		ret = full_run(&m, "first run");
	else if (m.force_full)
		ret = full_run(&m, "--full");
	else
		ret = incremental(&m);
	vbjournal_close(m.j);
	strv_free(&m.list);
	strv_free(&m.rec);
	return ret;
}
