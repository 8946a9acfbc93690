// SPDX-License-Identifier: GPL-2.0
/*
 * vbjournal-publish: the journal's closed epochs into a Redis stream.
 *
 *   vbjournal-publish [--journal DIR] --redis ADDR [--stream KEY]
 *                     [--consumer NAME] [--host NAME] [--once]
 *                     [--retry-timeout TIME] [--replicas N]
 *                     [--wait-timeout TIME] [--auth-file FILE]
 *
 * Each closed epoch becomes one stream entry (format version 1,
 * vbjournal-publish(1)): the host, the journal id, the epoch, the epoch
 * before it ("since"), the journaled filesystems and the epoch's answer
 * as `vbjournal changes --json` gives it (read from a child
 * `vbjournal follow --consumer NAME --json`, so that one program builds
 * the answer). "journal_id:epoch" is the idempotency key: a Lua script
 * appends the entry and records the journal's last published epoch in
 * a hash beside the stream, atomically; an epoch at or below it is not
 * appended again. Only once the engine confirmed it (and, with
 * --replicas, WAIT saw it replicated) is the epoch acknowledged to the
 * journal's consumer: at-least-once from the journal, exactly once per
 * key in the stream, in order per journal. The journal is read and
 * written through libvbjournal's API alone (libvbjournal(3)).
 *
 * Exit: 0; 1 error; 2 usage; 4-9 the journal is missing, unreadable,
 * foreign, empty, truncated, corrupt (as vbjournal); 10 the engine
 * could not be reached within the retry time; 11 the engine refused.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <hiredis/hiredis.h>

#include <vbjournal.h>

#include "cli.h"
#include "jw.h"

#define PROG		"vbjournal-publish"
#define DEFAULT_JOURNAL	"/var/lib/vbjournal"
#define DEFAULT_CONSUMER "publish"
#define ENTRY_VERSION	"1"

enum {
	EXIT_ENGINE_DOWN = 10,	/* not reachable within --retry-timeout */
	EXIT_ENGINE_REFUSED = 11,	/* an error reply */
};

/*
 * KEYS[1] the stream, KEYS[2] the hash of last published epochs;
 * ARGV[1] the journal id, ARGV[2] the epoch, ARGV[3...] the entry's
 * fields and values. Returns {1, id} when appended, {0, id} when the
 * journal's epoch was published already (id: the entry of the last one).
 * Atomic (a script runs alone, and its effects reach the AOF and the
 * replicas as one MULTI/EXEC).
 */
static const char script[] =
	"local last = redis.call('HGET', KEYS[2], ARGV[1])\n"
	"if last then\n"
	"  local sp = string.find(last, ' ', 1, true)\n"
	"  if tonumber(ARGV[2]) <= tonumber(string.sub(last, 1, sp - 1)) then\n"
	"    return {0, string.sub(last, sp + 1)}\n"
	"  end\n"
	"end\n"
	"local id = redis.call('XADD', KEYS[1], '*', unpack(ARGV, 3))\n"
	"redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. ' ' .. id)\n"
	"return {1, id}\n";

struct opts {
	const char *journal, *redis, *stream, *consumer, *host, *auth_file;
	const char *vbjournal;
	bool once;
	unsigned long long retry_ms, replicas, wait_ms;
	bool retry_given;
	/* for tests (vbjournal-publish(1), TESTING) */
	unsigned long long die_after;	/* SIGKILL itself after the Nth confirm */
	bool ack_first;			/* the negative control: ack, then publish */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--journal DIR] --redis ADDR [--stream KEY]\n"
		"         [--consumer NAME] [--host NAME] [--once]\n"
		"         [--retry-timeout TIME] [--replicas N [--wait-timeout TIME]]\n"
		"         [--auth-file FILE] [--vbjournal PATH]\n"
		"       " PROG " --help | --version\n"
		"\n"
		"Publishes each closed epoch of the journal as one entry of a Redis\n"
		"stream, once per journal_id:epoch, and acknowledges it in the journal\n"
		"(as consumer NAME) only after the engine confirmed it.\n"
		"\n"
		"  --journal DIR         the journal (default %s)\n"
		"  --redis ADDR          HOST[:PORT] (port 6379), or a unix socket's path\n"
		"                        (with a '/', or unix:PATH)\n"
		"  --stream KEY          the stream (default vbj:{HOST}:epochs); the last\n"
		"                        published epochs are in KEY:published\n"
		"  --consumer NAME       the journal's consumer (default %s; registered\n"
		"                        at the current cursor when missing)\n"
		"  --host NAME           the host's name in entries (default: hostname)\n"
		"  --once                publish what is closed now, then exit\n"
		"  --retry-timeout TIME  give up on an unreachable engine after TIME\n"
		"                        (default: never; with --once 30s)\n"
		"  --replicas N          WAIT until N replicas have each entry\n"
		"  --wait-timeout TIME   how long WAIT may take (default 10s)\n"
		"  --auth-file FILE      AUTH with the file's \"PASSWORD\" or \"USER PASSWORD\"\n"
		"  --vbjournal PATH      the vbjournal program (default: beside this one)\n"
		"  --help, --version\n"
		"\n"
		"exit status: 0 done; 1 error; 2 usage; 4-9 the journal (as vbjournal);\n"
		"10 engine unreachable; 11 engine refused (" PROG "(1))\n",
		DEFAULT_JOURNAL, DEFAULT_CONSUMER);
}

#define bad_usage(...) cli_usage_error(PROG, __VA_ARGS__)

/* ---- the engine ---- */

struct engine {
	const struct opts *o;
	redisContext *c;
	char host[256];
	int port;		/* 0: host is a unix socket's path */
	char why[512];		/* the last failure */
};

static void engine_close(struct engine *e)
{
	if (e->c)
		redisFree(e->c);
	e->c = NULL;
}

/* ADDR into host and port: 0 or -EINVAL. */
static int parse_addr(const char *addr, char *host, size_t sz, int *port)
{
	const char *colon;
	unsigned long long p = 6379;

	if (!strncmp(addr, "unix:", 5) || strchr(addr, '/')) {
		if (!strncmp(addr, "unix:", 5))
			addr += 5;
		if (!*addr || strlen(addr) >= sz)
			return -EINVAL;
		snprintf(host, sz, "%s", addr);
		*port = 0;
		return 0;
	}
	colon = strrchr(addr, ':');
	if (colon && cli_parse_uint(colon + 1, 1, 65535, &p))
		return -EINVAL;
	if (colon ? colon == addr || (size_t)(colon - addr) >= sz :
	    !*addr || strlen(addr) >= sz)
		return -EINVAL;
	snprintf(host, sz, "%.*s", colon ? (int)(colon - addr) : (int)strlen(addr),
		 addr);
	*port = p;
	return 0;
}

/* Sends AUTH from --auth-file: 0, or -1 with why set. */
static int engine_auth(struct engine *e)
{
	char buf[1024], *nl, *sp;
	redisReply *r;
	ssize_t n;
	int fd, ret = 0;

	if (!e->o->auth_file)
		return 0;
	fd = open(e->o->auth_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(e->why, sizeof(e->why), "%s: %s", e->o->auth_file,
			 strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		snprintf(e->why, sizeof(e->why), "%s: %s", e->o->auth_file,
			 n ? strerror(errno) : "empty");
		return -1;
	}
	buf[n] = 0;
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	sp = strchr(buf, ' ');
	if (sp) {
		*sp = 0;
		r = redisCommand(e->c, "AUTH %s %s", buf, sp + 1);
	} else {
		r = redisCommand(e->c, "AUTH %s", buf);
	}
	explicit_bzero(buf, sizeof(buf));
	if (!r || r->type == REDIS_REPLY_ERROR) {
		snprintf(e->why, sizeof(e->why), "AUTH: %s",
			 r ? r->str : e->c->errstr);
		ret = -1;
	}
	if (r)
		freeReplyObject(r);
	return ret;
}

/* Connects (5 s timeout): 0, or -1 with why set. */
static int engine_connect(struct engine *e)
{
	struct timeval tv = { 5, 0 };

	engine_close(e);
	e->c = e->port ? redisConnectWithTimeout(e->host, e->port, tv) :
			 redisConnectUnixWithTimeout(e->host, tv);
	if (!e->c || e->c->err) {
		snprintf(e->why, sizeof(e->why), "connecting to %s%s%.0d: %s",
			 e->host, e->port ? ":" : "", e->port,
			 e->c ? e->c->errstr : "out of memory");
		engine_close(e);
		return -1;
	}
	/* a reply that does not come is a failure too */
	redisSetTimeout(e->c, (struct timeval){ 60, 0 });
	if (engine_auth(e)) {
		engine_close(e);
		return -1;
	}
	return 0;
}

/* An error reply that a retry may cure: the server still loading its
   data, a replica being promoted, a busy script, a cluster moving. */
static bool transient(const char *err)
{
	static const char *const words[] = {
		"LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN",
		"READONLY", "NOREPLICAS",
	};
	size_t i, n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i]);
		if (!strncmp(err, words[i], n) && (!err[n] || err[n] == ' '))
			return true;
	}
	return false;
}

/* The fields of one entry, as EVAL's argument vector. */
#define NFIELDS 9
struct entry {
	const char *argv[7 + 2 * NFIELDS];
	size_t len[7 + 2 * NFIELDS];
	int argc;
	char jid[20], epoch[24], since[24], key[48];
};

static void entry_arg(struct entry *en, const char *s, size_t len)
{
	en->argv[en->argc] = s;
	en->len[en->argc++] = len;
}

static void entry_str(struct entry *en, const char *s)
{
	entry_arg(en, s, strlen(s));
}

/*
 * Runs the publishing script for en. 1 appended, 0 a duplicate (the
 * epoch was there), -1 the connection failed, -2 a transient error
 * reply, -3 a refusal (why says it). *id: the entry's id.
 */
static int engine_publish(struct engine *e, struct entry *en, char *id,
			  size_t idsz)
{
	redisReply *r;
	int ret;

	r = redisCommandArgv(e->c, en->argc, en->argv, en->len);
	if (!r) {
		snprintf(e->why, sizeof(e->why), "%s", e->c->errstr);
		return -1;
	}
	if (r->type == REDIS_REPLY_ERROR) {
		snprintf(e->why, sizeof(e->why), "%s", r->str);
		ret = transient(r->str) ? -2 : -3;
	} else if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		   r->element[0]->type != REDIS_REPLY_INTEGER ||
		   r->element[1]->type != REDIS_REPLY_STRING) {
		snprintf(e->why, sizeof(e->why), "an unexpected reply to the "
			 "publishing script");
		ret = -3;
	} else {
		snprintf(id, idsz, "%s", r->element[1]->str);
		ret = r->element[0]->integer ? 1 : 0;
	}
	freeReplyObject(r);
	if (ret < 0 || !e->o->replicas)
		return ret;
	/* the entry (new, or the earlier copy) on N replicas */
	r = redisCommand(e->c, "WAIT %llu %llu", e->o->replicas, e->o->wait_ms);
	if (!r) {
		snprintf(e->why, sizeof(e->why), "%s", e->c->errstr);
		return -1;
	}
	if (r->type == REDIS_REPLY_ERROR) {
		snprintf(e->why, sizeof(e->why), "WAIT: %s", r->str);
		ret = -3;
	} else if (r->type != REDIS_REPLY_INTEGER ||
		   (unsigned long long)r->integer < e->o->replicas) {
		snprintf(e->why, sizeof(e->why), "WAIT: %lld of %llu replicas "
			 "in %llu ms", r->type == REDIS_REPLY_INTEGER ?
			 r->integer : -1LL, e->o->replicas, e->o->wait_ms);
		ret = -2;
	}
	freeReplyObject(r);
	return ret;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Publishes en until the engine confirms it, reconnecting and retrying
 * (0.1 s doubling to 5 s) up to --retry-timeout. 1 appended, 0 a
 * duplicate, or an exit status (EXIT_ENGINE_*, or 0 with stop set).
 */
static int publish(struct engine *e, struct entry *en, char *id, size_t idsz,
		   int *status)
{
	uint64_t start = now_ms();
	unsigned int backoff = 100;
	bool said = false;
	int ret;

	for (;;) {
		if (!e->c && engine_connect(e)) {
			ret = -1;
		} else {
			ret = engine_publish(e, en, id, idsz);
			if (ret >= 0) {
				if (said)
					fprintf(stderr, PROG ": %s: the engine "
						"answers again\n", e->o->redis);
				return ret;
			}
		}
		if (ret == -3) {
			fprintf(stderr, PROG ": the engine refused %s: %s\n",
				en->key, e->why);
			*status = EXIT_ENGINE_REFUSED;
			return -1;
		}
		if (ret == -1)
			engine_close(e);
		if (!said)
			fprintf(stderr, PROG ": %s: %s: retrying\n", e->o->redis,
				e->why);
		said = true;
		if (stop) {
			*status = 0;
			return -1;
		}
		if (e->o->retry_ms && now_ms() - start >= e->o->retry_ms) {
			fprintf(stderr, PROG ": the engine did not confirm %s "
				"within %llu ms: %s\n", en->key, e->o->retry_ms,
				e->why);
			*status = EXIT_ENGINE_DOWN;
			return -1;
		}
		sleep_ms(backoff);
		backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
	}
}

/* ---- the journal (libvbjournal's API, as any consumer) ---- */

/* PROG: WHY for a failure of the journal: vbjournal's exit status. */
static int journal_failed(struct vbjournal *j, int err)
{
	fprintf(stderr, PROG ": %s\n", vbjournal_errmsg(j));
	return cli_journal_exit(err);
}

/* A cursor's epoch: 0, or -EINVAL. */
static int cursor_epoch(const char *cursor, int64_t *epoch)
{
	uint64_t id;

	return vbjournal_parse_cursor(cursor, &id, epoch);
}

/* The consumer's epoch: 0, -ENOENT, or -errno (vbjournal_errmsg()). */
static int consumer_epoch(struct vbjournal *j, const char *name, int64_t *epoch)
{
	char cur[VBJOURNAL_CURSOR_MAX];
	int ret = vbjournal_consumer_cursor(j, name, cur, sizeof(cur));

	return ret ? ret : cursor_epoch(cur, epoch);
}

/* The last closed epoch: 0, or -errno (vbjournal_errmsg()). */
static int last_closed(struct vbjournal *j, int64_t *epoch)
{
	char cur[VBJOURNAL_CURSOR_MAX];
	int ret = vbjournal_cursor(j, cur, sizeof(cur));

	return ret ? ret : cursor_epoch(cur, epoch);
}

/*
 * The consumer has the engine's confirmation up to epoch: durable in
 * the journal when this returns 0 (synchronous=FULL), else 1 after
 * saying why. Behind it (acknowledged ahead by hand, or by another
 * publisher of the same name): moved back, so that the journal keeps
 * what this one has not published. Trimmed past it meanwhile (the size
 * cap): left where it is, and the next answer is a rescan.
 */
static int ack(struct vbjournal *j, const char *name, int64_t epoch)
{
	char cur[VBJOURNAL_CURSOR_MAX];
	int ret;

	snprintf(cur, sizeof(cur), "%016" PRIx64 ":%" PRId64, vbjournal_id(j),
		 epoch);
	ret = vbjournal_ack(j, name, cur);
	if (ret == -ERANGE)
		ret = vbjournal_register_at(j, name, cur,
					    VBJOURNAL_REGISTER_MOVE, NULL, 0);
	if (ret == -ENOENT) {
		fprintf(stderr, PROG ": consumer %s: not registered (any more)\n",
			name);
		return 1;
	}
	if (ret == -ESTALE) {
		fprintf(stderr, PROG ": %s not acknowledged: %s (the next "
			"answer is a rescan)\n", cur, vbjournal_errmsg(j));
		return 0;
	}
	if (ret)
		fprintf(stderr, PROG ": %s\n", vbjournal_errmsg(j));
	return ret ? 1 : 0;
}

/* The journaled filesystems as a JSON array, into a malloc'ed string. */
static char *filesystems_json(struct vbjournal *vj)
{
	struct vbjournal_status *st;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	struct jw j;

	if (vbjournal_status(vj, &st))
		return NULL;
	f = open_memstream(&buf, &len);
	if (!f) {
		vbjournal_status_free(st);
		return NULL;
	}
	jw_init(&j, f, true);
	jw_arr(&j, NULL);
	for (i = 0; i < st->nfilesystems; i++) {
		const struct vbjournal_fs *fs = st->filesystems[i];

		jw_obj(&j, NULL);
		jw_int(&j, "fs", fs->fs);
		jw_str(&j, "uuid", fs->uuid ? fs->uuid : "");
		if (fs->mount)
			jw_bytes(&j, "mount", fs->mount, strlen(fs->mount));
		else
			jw_null(&j, "mount");
		jw_end(&j);
	}
	vbjournal_status_free(st);
	jw_end(&j);
	/* jw_close() adds a newline: a field needs none */
	if (jw_close(&j) || fclose(f)) {
		free(buf);
		return NULL;
	}
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	return buf;
}

/* The first epoch the journal still holds: 0, or -errno. */
static int first_epoch(struct vbjournal *j, int64_t *epoch)
{
	struct vbjournal_status *st;
	int ret = vbjournal_status(j, &st);

	if (ret)
		return ret;
	*epoch = st->first_epoch;
	vbjournal_status_free(st);
	return 0;
}

/* ---- the child that builds the answers: vbjournal follow ---- */

struct child {
	pid_t pid;
	int fd;			/* its stdout */
	char *buf;		/* what was read and not yet taken */
	size_t len, cap;
	size_t taken;		/* the line returned last: goes next time */
};

/* The vbjournal beside this program, else the one in PATH. */
static const char *vbjournal_path(const struct opts *o)
{
	static char path[PATH_MAX];
	ssize_t n;
	char *slash;

	if (o->vbjournal)
		return o->vbjournal;
	n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	if (n > 0) {
		path[n] = 0;
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, "vbjournal");
			if (!access(path, X_OK))
				return path;
		}
	}
	return "vbjournal";
}

static int child_start(struct child *ch, const struct opts *o)
{
	const char *prog = vbjournal_path(o);
	char *argv[] = { "vbjournal", "--journal", (char *)o->journal,
			 "follow", "--consumer", (char *)o->consumer, "--json",
			 NULL };
	int p[2];

	if (pipe2(p, O_CLOEXEC)) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return -1;
	}
	ch->pid = fork();
	if (ch->pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!ch->pid) {
		dup2(p[1], 1);
		/* it ends with this process, killed or not */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execvp(prog, argv);
		fprintf(stderr, PROG ": %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	ch->fd = p[0];
	ch->len = 0;
	return 0;
}

/* Ends the child: its exit status, or 128 + signal. */
static int child_stop(struct child *ch, bool kill_it)
{
	int status;

	if (ch->pid <= 0)
		return 0;
	if (kill_it)
		kill(ch->pid, SIGTERM);
	close(ch->fd);
	free(ch->buf);
	ch->buf = NULL;
	ch->len = ch->cap = ch->taken = 0;
	while (waitpid(ch->pid, &status, 0) < 0 && errno == EINTR)
		;
	ch->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * The child's next line (without its newline; valid until the next
 * call): 1, 0 at its end, -1 when stop was set while waiting, -ENOMEM.
 */
static int child_line(struct child *ch, char **line)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	char *nl;
	ssize_t n;

	/* the line returned last time goes */
	if (ch->taken)
		memmove(ch->buf, ch->buf + ch->taken, ch->len - ch->taken);
	ch->len -= ch->taken;
	ch->taken = 0;
	while (!(nl = ch->len ? memchr(ch->buf, '\n', ch->len) : NULL)) {
		if (stop)
			return -1;
		if (poll(&p, 1, 200) <= 0)
			continue;
		if (ch->len + 4096 > ch->cap) {
			char *b = realloc(ch->buf, ch->cap + 65536);

			if (!b)
				return -ENOMEM;
			ch->buf = b;
			ch->cap += 65536;
		}
		n = read(ch->fd, ch->buf + ch->len, ch->cap - ch->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		ch->len += n;
	}
	*nl = 0;
	ch->taken = nl - ch->buf + 1;
	*line = ch->buf;
	return 1;
}

/* The string value of "key":"..." in a line of vbjournal's JSON. */
static int json_field(const char *line, const char *key, char *out, size_t sz)
{
	char pat[64];
	const char *p, *q;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return -ENOENT;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	if (*p++ != '"')
		return -EINVAL;
	q = strchr(p, '"');
	if (!q || (size_t)(q - p) >= sz)
		return -EINVAL;
	snprintf(out, sz, "%.*s", (int)(q - p), p);
	return 0;
}

/* ---- the loop ---- */

struct pub {
	const struct opts *o;
	struct vbjournal *j;
	struct engine e;
	char stream[512], published[600];
	unsigned long long confirmed;
};

/*
 * One entry: kind "epoch" (changes: its answer) or "rescan" (changes:
 * the full-rescan object), covering epochs (since, epoch]. Published,
 * then acknowledged: 0, or an exit status.
 */
static int publish_one(struct pub *p, const char *kind, int64_t since,
		       int64_t epoch, const char *changes)
{
	char id[64] = "", *fs;
	struct entry en = { .argc = 0 };
	int ret, status = 1;

	fs = filesystems_json(p->j);
	if (!fs) {
		fprintf(stderr, PROG ": %s\n", vbjournal_errmsg(p->j)[0] ?
			vbjournal_errmsg(p->j) : "out of memory");
		return 1;
	}
	snprintf(en.jid, sizeof(en.jid), "%016" PRIx64, vbjournal_id(p->j));
	snprintf(en.epoch, sizeof(en.epoch), "%" PRId64, epoch);
	snprintf(en.since, sizeof(en.since), "%" PRId64, since);
	snprintf(en.key, sizeof(en.key), "%s:%s", en.jid, en.epoch);
	entry_str(&en, "EVAL");
	entry_str(&en, script);
	entry_str(&en, "2");
	entry_str(&en, p->stream);
	entry_str(&en, p->published);
	entry_str(&en, en.jid);
	entry_str(&en, en.epoch);
	entry_str(&en, "v");
	entry_str(&en, ENTRY_VERSION);
	entry_str(&en, "key");
	entry_str(&en, en.key);
	entry_str(&en, "host");
	entry_str(&en, p->o->host);
	entry_str(&en, "journal_id");
	entry_str(&en, en.jid);
	entry_str(&en, "epoch");
	entry_str(&en, en.epoch);
	entry_str(&en, "since");
	entry_str(&en, en.since);
	entry_str(&en, "kind");
	entry_str(&en, kind);
	entry_str(&en, "filesystems");
	entry_str(&en, fs);
	entry_str(&en, "changes");
	entry_str(&en, changes);

	if (p->o->ack_first && ack(p->j, p->o->consumer, epoch)) {
		free(fs);
		return 1;
	}
	ret = publish(&p->e, &en, id, sizeof(id), &status);
	free(fs);
	if (ret < 0)
		return status;
	if (p->o->die_after && ++p->confirmed == p->o->die_after) {
		/* the test's crash: confirmed, not acknowledged */
		fflush(stdout);
		raise(SIGKILL);
	}
	if (!p->o->ack_first && ack(p->j, p->o->consumer, epoch))
		return 1;
	printf("%s %s %s %s\n", ret ? "published" : "duplicate", en.key, kind, id);
	if (cli_flush_stdout())
		return 1;
	return 0;
}

/*
 * Reads the child's answers from the consumer's epoch on, and publishes
 * each; with --once up to upto. 0 (the child is to be started again:
 * *again), or an exit status.
 */
static int run_child(struct pub *p, int64_t upto, bool *again)
{
	struct child ch = { .fd = -1 };
	char *line = NULL, cur[64], why[512];
	unsigned long long epoch;
	int64_t from;
	int ret = 0, st;

	*again = false;
	ret = consumer_epoch(p->j, p->o->consumer, &from);
	if (ret) {
		fprintf(stderr, PROG ": %s\n", ret == -ENOENT ?
			"the consumer is not registered (any more)" :
			vbjournal_errmsg(p->j));
		return 1;
	}
	if (p->o->once && from >= upto)
		return 0;
	if (child_start(&ch, p->o))
		return 1;
	for (;;) {
		const char *colon;
		int got = child_line(&ch, &line);

		if (got == -1)
			break;	/* stopped */
		if (got < 0) {
			fprintf(stderr, PROG ": out of memory\n");
			ret = 1;
			break;
		}
		if (!got) {
			/* follow ends only on an error it said */
			st = child_stop(&ch, false);
			fprintf(stderr, PROG ": vbjournal follow ended (exit "
				"%d)\n", st);
			ret = st >= 4 && st <= 9 ? st : 1;
			break;
		}
		if (!json_field(line, "rescan_required", why, sizeof(why))) {
			/*
			 * epochs the consumer had not acked were trimmed:
			 * one entry says so, for the epochs up to the first
			 * one kept
			 */
			int64_t first;

			json_field(line, "why", why, sizeof(why));
			child_stop(&ch, true);
			if (first_epoch(p->j, &first)) {
				fprintf(stderr, PROG ": %s\n",
					vbjournal_errmsg(p->j));
				ret = 1;
				break;
			}
			fprintf(stderr, PROG ": epochs after %" PRId64 " were "
				"trimmed (%s): publishing a rescan entry up to %"
				PRId64 "\n", from, why, first - 1);
			ret = publish_one(p, "rescan", from, first - 1, line);
			*again = !ret;
			break;
		}
		if (json_field(line, "cursor", cur, sizeof(cur)) ||
		    !(colon = strchr(cur, ':')) ||
		    cli_parse_uint(colon + 1, 0, INT64_MAX, &epoch)) {
			fprintf(stderr, PROG ": vbjournal follow printed no "
				"cursor: %.200s\n", line);
			ret = 1;
			break;
		}
		ret = publish_one(p, "epoch", from, (int64_t)epoch, line);
		if (ret)
			break;
		from = (int64_t)epoch;
		if (p->o->once && from >= upto)
			break;
	}
	child_stop(&ch, true);
	return ret;
}

static int parse_args(int argc, char **argv, struct opts *o, bool *done)
{
	static const struct option opts[] = {
		{ "journal", required_argument, NULL, 'J' },
		{ "redis", required_argument, NULL, 'r' },
		{ "stream", required_argument, NULL, 's' },
		{ "consumer", required_argument, NULL, 'c' },
		{ "host", required_argument, NULL, 'H' },
		{ "once", no_argument, NULL, '1' },
		{ "retry-timeout", required_argument, NULL, 'R' },
		{ "replicas", required_argument, NULL, 'n' },
		{ "wait-timeout", required_argument, NULL, 'w' },
		{ "auth-file", required_argument, NULL, 'a' },
		{ "vbjournal", required_argument, NULL, 'v' },
		{ "test-die-after", required_argument, NULL, 'D' },
		{ "test-ack-first", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool wait_given = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
			o->journal = optarg;
			break;
		case 'r':
			o->redis = optarg;
			break;
		case 's':
			if (!*optarg)
				return bad_usage("--stream: an empty key");
			o->stream = optarg;
			break;
		case 'c':
			if (!*optarg)
				return bad_usage("--consumer: an empty name");
			o->consumer = optarg;
			break;
		case 'H':
			if (!*optarg || strlen(optarg) > 255)
				return bad_usage("--host: a name of 1 to 255 bytes");
			o->host = optarg;
			break;
		case '1':
			o->once = true;
			break;
		case 'R':
			if (cli_parse_ms(optarg, 1, 86400000ULL * 365, &o->retry_ms))
				return bad_usage("--retry-timeout: '%s' is not a "
						 "time from 1ms to 365 days",
						 optarg);
			o->retry_given = true;
			break;
		case 'n':
			if (cli_parse_uint(optarg, 1, 1000, &o->replicas))
				return bad_usage("--replicas: '%s' is not a number "
						 "from 1 to 1000", optarg);
			break;
		case 'w':
			if (cli_parse_ms(optarg, 1, 3600000, &o->wait_ms))
				return bad_usage("--wait-timeout: '%s' is not a "
						 "time from 1ms to 1h", optarg);
			wait_given = true;
			break;
		case 'a':
			o->auth_file = optarg;
			break;
		case 'v':
			o->vbjournal = optarg;
			break;
		case 'D':
			if (cli_parse_uint(optarg, 1, 1000000, &o->die_after))
				return bad_usage("--test-die-after: '%s' is not a "
						 "number from 1", optarg);
			break;
		case 'A':
			o->ack_first = true;
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return 0;
		case 'V':
			printf(PROG " %s\n", VFSB_VERSION);
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
	if (optind < argc)
		return bad_usage("takes no argument ('%s')", argv[optind]);
	if (!o->redis)
		return bad_usage("--redis ADDR is required");
	if (wait_given && !o->replicas)
		return bad_usage("--wait-timeout applies to --replicas only");
	if (!o->retry_given && o->once)
		o->retry_ms = 30000;
	return 0;
}

int main(int argc, char **argv)
{
	static char hostname[256];
	struct opts o = {
		.journal = DEFAULT_JOURNAL, .consumer = DEFAULT_CONSUMER,
		.wait_ms = 10000,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct pub p = { .o = &o };
	bool done = false, again;
	int64_t upto = 0, e;
	int ret;

	atexit(cli_close_stdout);
	ret = parse_args(argc, argv, &o, &done);
	if (ret || done)
		return ret;
	if (!o.host) {
		if (gethostname(hostname, sizeof(hostname) - 1)) {
			fprintf(stderr, PROG ": gethostname: %s\n", strerror(errno));
			return 1;
		}
		o.host = hostname;
	}
	p.e.o = &o;
	if (parse_addr(o.redis, p.e.host, sizeof(p.e.host), &p.e.port))
		return bad_usage("--redis: '%s' is not HOST[:PORT] or a socket's "
				 "path", o.redis);
	if (o.stream)
		snprintf(p.stream, sizeof(p.stream), "%s", o.stream);
	else
		snprintf(p.stream, sizeof(p.stream), "vbj:{%s}:epochs", o.host);
	snprintf(p.published, sizeof(p.published), "%s:published", p.stream);

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	ret = vbjournal_open(&p.j, o.journal, VBJOURNAL_OPEN_WRITE);
	if (ret) {
		if (!p.j) {
			fprintf(stderr, PROG ": %s\n", strerror(-ret));
			return 1;
		}
		ret = journal_failed(p.j, ret);
		vbjournal_close(p.j);
		return ret;
	}
	ret = consumer_epoch(p.j, o.consumer, &e);
	if (ret == -ENOENT) {
		char cur[VBJOURNAL_CURSOR_MAX];

		ret = vbjournal_register(p.j, o.consumer, cur, sizeof(cur));
		if (!ret)
			fprintf(stderr, PROG ": registered consumer %s at %s\n",
				o.consumer, cur);
	}
	if (!ret)
		ret = last_closed(p.j, &upto);
	if (ret) {
		ret = journal_failed(p.j, ret);
		vbjournal_close(p.j);
		return ret;
	}
	do {
		ret = run_child(&p, upto, &again);
	} while (!ret && again && !stop);
	engine_close(&p.e);
	vbjournal_close(p.j);
	return ret;
}
