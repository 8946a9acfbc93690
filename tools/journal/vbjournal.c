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
 * is missing, unreadable, foreign, empty, truncated, corrupt
 * (vbjournal(1)). Queries open it read-only. Every answer comes from
 * libvbjournal (libvbjournal(3)), as a vendor's program gets it; this
 * file only prints it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vbjournal.h>

#include "cli.h"
#include "jw.h"
#include "mirror.h"

#define DEFAULT_JOURNAL VBJOURNAL_DEFAULT_DIR
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

/* "vbjournal: WHY" for a journal failure: its exit status. */
static int fail(struct vbjournal *j, int err)
{
	fprintf(stderr, "vbjournal: %s\n", vbjournal_errmsg(j));
	return cli_journal_exit(err);
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

/* Prints the name of a dir or moved entry (text): "label PATH[ note]". */
static void print_dir(const char *label, const struct vbjournal_entry *e)
{
	const char *note = e->path_source == VBJOURNAL_PATH_HANDLE ? "" :
			   e->gone ? " (gone)" : e->path ? " (stored path)" : "";
	char h[520];

	if (e->path) {
		printf("%s ", label);
		cli_escape(stdout, e->path, e->path_len);
		printf("%s\n", note);
		return;
	}
	hex(e->handle, e->handle_len > 256 ? 256 : e->handle_len, h);
	printf("%s ? fs=%" PRId64 " handle=%s%s\n", label, e->fs, h, note);
}

static void json_dir(struct jw *j, const struct vbjournal_entry *e)
{
	char h[520];

	hex(e->handle, e->handle_len > 256 ? 256 : e->handle_len, h);
	jw_obj(j, NULL);
	if (e->path)
		jw_bytes(j, "path", e->path, e->path_len);
	jw_str(j, "path_source", e->path_source == VBJOURNAL_PATH_HANDLE ?
	       "handle" : e->path_source == VBJOURNAL_PATH_STORED ? "stored" :
	       "none");
	jw_bool(j, "gone", e->gone);
	jw_int(j, "fs", e->fs);
	jw_str(j, "handle", h);
	jw_end(j);
}

/* A file entry: one line per name found, then what is not known. */
static void print_file(const struct vbjournal_entry *e)
{
	char nl[24];
	size_t k;

	if (e->nlink >= 0)
		snprintf(nl, sizeof(nl), "%" PRId64, e->nlink);
	else
		snprintf(nl, sizeof(nl), "?");
	for (k = 0; k < e->nnames; k++) {
		printf("file ino=%" PRIu64 " nlink=%s ", e->ino, nl);
		cli_escape(stdout, e->names[k], strlen(e->names[k]));
		putchar('\n');
	}
	if (e->gone)
		printf("file ino=%" PRIu64 " nlink=0 ? (gone)\n", e->ino);
	else if (e->nlink < 0)
		printf("file ino=%" PRIu64 " nlink=? ? (found %zu names, "
		       "of a link count not known: %s; look it up by "
		       "inode in your own map)\n", e->ino, e->nnames, e->why);
	else if (!e->names_complete)
		printf("file ino=%" PRIu64 " nlink=%s ? (found %zu of %s "
		       "names: look the others up by inode in your own "
		       "map)\n", e->ino, nl, e->nnames, nl);
}

static void json_file(struct jw *j, const struct vbjournal_entry *e)
{
	char h[520];
	size_t k;

	jw_obj(j, NULL);
	jw_str(j, "kind", "file");
	jw_int(j, "fs", e->fs);
	if (!e->handle) {
		jw_null(j, "handle");
	} else {
		hex(e->handle, e->handle_len, h);
		jw_str(j, "handle", h);
	}
	jw_uint(j, "ino", e->ino);
	jw_uint(j, "generation", e->generation);
	if (e->nlink >= 0)
		jw_int(j, "nlink", e->nlink);
	else
		jw_null(j, "nlink");
	jw_bool(j, "gone", e->gone);
	jw_arr(j, "names");
	for (k = 0; k < e->nnames; k++) {
		jw_obj(j, NULL);
		jw_bytes(j, "path", e->names[k], strlen(e->names[k]));
		jw_end(j);
	}
	jw_end(j);
	jw_bool(j, "names_complete", e->names_complete);
	if (e->nlink < 0)
		jw_str(j, "why", e->why);
	jw_end(j);
}

static void print_rescan(const struct vbjournal_entry *e, struct jw *j)
{
	if (j) {
		jw_obj(j, NULL);
		jw_str(j, "scope", e->scope);
		jw_str(j, "reason", e->reason);
		/* a gap of no known filesystem, or an older one */
		if (e->path)
			jw_bytes(j, "path", e->path, e->path_len);
		else
			jw_null(j, "path");
		jw_end(j);
		return;
	}
	printf("rescan %s ", e->scope);
	if (e->path && e->path[0])
		cli_escape(stdout, e->path, e->path_len);
	else
		putchar('?');
	printf(" (%s)\n", e->reason);
}

/*
 * An answer: the entries in their order (dir, moved, file, rescan),
 * each kind a JSON array of its own, then the cursor to ask from next.
 */
static int print_changes(struct vbjournal *jn, struct vbjournal_changes *it,
			 bool json)
{
	static const char *const arrays[] = {
		[VBJOURNAL_DIR] = "dirs", [VBJOURNAL_MOVED] = "moved",
		[VBJOURNAL_FILE] = "files", [VBJOURNAL_RESCAN] = "rescan",
	};
	const struct vbjournal_entry *e;
	int kind = VBJOURNAL_DIR, n = 0, ret;
	struct jw j;

	if (json) {
		jw_init(&j, stdout, true);
		jw_obj(&j, NULL);
		jw_int(&j, "version", JSON_VERSION);
		jw_str(&j, "cursor", vbjournal_changes_cursor(it));
		jw_arr(&j, arrays[kind]);
	}
	while ((ret = vbjournal_changes_next(it, &e)) > 0) {
		/* the arrays of the kinds that had no entry, empty */
		for (; json && kind < e->kind; kind++) {
			jw_end(&j);
			jw_arr(&j, arrays[kind + 1]);
		}
		n += e->kind == VBJOURNAL_DIR;
		if (e->kind == VBJOURNAL_DIR || e->kind == VBJOURNAL_MOVED) {
			if (json)
				json_dir(&j, e);
			else
				print_dir(e->kind == VBJOURNAL_DIR ? "dir" :
					  "moved", e);
		} else if (e->kind == VBJOURNAL_FILE) {
			if (json)
				json_file(&j, e);
			else
				print_file(e);
		} else {
			print_rescan(e, json ? &j : NULL);
		}
	}
	if (ret < 0)
		return fail(jn, ret);
	if (json) {
		for (; kind < VBJOURNAL_RESCAN; kind++) {
			jw_end(&j);
			jw_arr(&j, arrays[kind + 1]);
		}
		jw_end(&j);
		jw_int(&j, "count", n);
		jw_end(&j);
		return jw_close(&j) ? 1 : 0;
	}
	printf("cursor %s\n", vbjournal_changes_cursor(it));
	return 0;
}

/*
 * What vbjournal_changes() refused: a full rescan (3), --under not
 * answerable (2), or the journal's failure.
 */
static int changes_refused(struct vbjournal *j, int ret, const char *under,
			   bool json)
{
	if (ret == -ESTALE) {
		say_full_rescan(vbjournal_errmsg(j), json);
		return 3;
	}
	if (under && (ret == -EINVAL || ret == -EXDEV)) {
		fprintf(stderr, "vbjournal: --under %s: %s\n", under,
			vbjournal_errmsg(j));
		return 2;
	}
	return fail(j, ret);
}

static int cmd_changes(struct vbjournal *j, const char *since,
		       const char *under, bool json)
{
	struct vbjournal_changes *it;
	int ret;

	ret = vbjournal_changes(j, since, under, 0, &it);
	if (ret)
		return changes_refused(j, ret, under, json);
	ret = print_changes(j, it, json);
	vbjournal_changes_free(it);
	return ret;
}

/*
 * Each epoch as it closes, one JSON object per line (or the text form):
 * for log shippers and queues. Waits on the library's descriptor, and
 * looks again every 200 ms whatever it says. Ends when the journal can
 * no longer answer from the cursor (the size cap overtook it): exit 3.
 */
static int cmd_follow(struct vbjournal *j, const char *since,
		      const char *under, bool json)
{
	char cur[VBJOURNAL_CURSOR_MAX];
	struct vbjournal_changes *it;
	int fd = vbjournal_fd(j), ret;

	snprintf(cur, sizeof(cur), "%s", since);
	for (;;) {
		ret = vbjournal_changes(j, cur, under,
					VBJOURNAL_CHANGES_ONE_EPOCH, &it);
		if (ret == -EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			struct timespec ts = { 0, 200000000 };

			if (fd < 0)
				nanosleep(&ts, NULL);
			else if (poll(&p, 1, 200) > 0)
				vbjournal_process(j);
			continue;
		}
		if (ret)
			return changes_refused(j, ret, under, json);
		ret = print_changes(j, it, json);
		snprintf(cur, sizeof(cur), "%s", vbjournal_changes_cursor(it));
		vbjournal_changes_free(it);
		if (ret || cli_flush_stdout())
			return ret ? ret : 1;
	}
}

static int cmd_status(struct vbjournal *j, bool json)
{
	struct vbjournal_status *st;
	double rate, avg_ms;
	struct jw jw;
	size_t i;
	int ret;

	ret = vbjournal_status(j, &st);
	if (ret)
		return fail(j, ret);
	rate = st->session_seconds > 0 ?
	       (double)st->intents / st->session_seconds : 0;
	avg_ms = st->acks ? st->ack_ns_sum / 1e6 / st->acks : 0;
	if (!json) {
		printf("journal %s\nepoch %" PRId64 " (open), last closed %" PRId64
		       ", first kept %" PRId64 "\n", st->journal_id, st->epoch,
		       st->last_closed, st->first_epoch);
		if (!strcmp(st->daemon, "running"))
			printf("daemon running (pid %" PRId64 ")\n", st->pid);
		else
			printf("daemon %s\n", st->daemon);
		printf("filesystems %zu\n", st->nfilesystems);
		for (i = 0; i < st->nfilesystems; i++) {
			const struct vbjournal_fs *f = st->filesystems[i];

			printf("fs=%" PRId64 " %s ", f->fs, f->uuid ? f->uuid : "?");
			if (f->mount)
				cli_escape(stdout, f->mount, strlen(f->mount));
			else
				fputc('?', stdout);
			fputc('\n', stdout);
		}
		printf("size %" PRId64 " bytes (journal.db %" PRId64 ", -wal %"
		       PRId64 ", -shm %" PRId64 "), %" PRId64 " directory rows, %"
		       PRId64 " gaps\n", st->size_bytes, st->db_bytes,
		       st->wal_bytes, st->shm_bytes, st->directory_rows, st->gaps);
		if (st->session_ran)
			printf("session: %" PRId64 " s, %" PRIu64 " intents (%.1f/s), "
			       "%" PRIu64 " records, ack latency avg %.2f ms max "
			       "%.2f ms, %" PRIu64 " changes went on unacked\n",
			       st->session_seconds, st->intents, rate, st->records,
			       avg_ms, st->ack_ns_max / 1e6, st->unacked_changes);
		printf("consumers %" PRId64 ", largest lag %" PRId64 " epochs\n",
		       st->consumers, st->largest_lag);
		vbjournal_status_free(st);
		return 0;
	}
	jw_init(&jw, stdout, true);
	jw_obj(&jw, NULL);
	jw_int(&jw, "version", JSON_VERSION);
	jw_str(&jw, "journal_id", st->journal_id);
	jw_int(&jw, "epoch", st->epoch);
	jw_int(&jw, "last_closed", st->last_closed);
	jw_int(&jw, "first_epoch", st->first_epoch);
	jw_str(&jw, "daemon", st->daemon);
	if (!strcmp(st->daemon, "running"))
		jw_int(&jw, "pid", st->pid);
	jw_arr(&jw, "filesystems");
	for (i = 0; i < st->nfilesystems; i++) {
		const struct vbjournal_fs *f = st->filesystems[i];

		jw_obj(&jw, NULL);
		jw_int(&jw, "fs", f->fs);
		jw_str(&jw, "uuid", f->uuid ? f->uuid : "");
		if (f->mount)
			jw_str(&jw, "mount", f->mount);
		else
			jw_null(&jw, "mount");
		jw_end(&jw);
	}
	jw_end(&jw);
	jw_int(&jw, "size_bytes", st->size_bytes);
	jw_int(&jw, "db_bytes", st->db_bytes);
	jw_int(&jw, "wal_bytes", st->wal_bytes);
	jw_int(&jw, "shm_bytes", st->shm_bytes);
	jw_int(&jw, "directory_rows", st->directory_rows);
	jw_int(&jw, "gaps", st->gaps);
	jw_int(&jw, "session_seconds", st->session_seconds);
	jw_uint(&jw, "intents", st->intents);
	jw_num(&jw, "intents_per_s", rate);
	jw_uint(&jw, "records", st->records);
	jw_num(&jw, "ack_latency_avg_ms", avg_ms);
	jw_num(&jw, "ack_latency_max_ms", st->ack_ns_max / 1e6);
	jw_uint(&jw, "unacked_changes", st->unacked_changes);
	jw_int(&jw, "consumers", st->consumers);
	jw_int(&jw, "largest_lag", st->largest_lag);
	jw_end(&jw);
	vbjournal_status_free(st);
	return jw_close(&jw) ? 1 : 0;
}

/*
 * Asks the daemon for a checkpoint and waits (30 s) until one closes.
 * The daemon: the process that holds the journal's lock, and no other.
 */
static int cmd_checkpoint(struct vbjournal *j)
{
	char cur[VBJOURNAL_CURSOR_MAX];
	int ret = vbjournal_checkpoint(j, 30000, cur, sizeof(cur));

	if (ret == -EXDEV) {
		fprintf(stderr, "vbjournal: %s: run vbjournal checkpoint there\n",
			vbjournal_errmsg(j));
		return 1;
	}
	if (ret)
		return fail(j, ret);
	printf("%s\n", cur);
	return 0;
}

/* A consumer's command refused: 1 for what it says, else the journal's. */
static int consumer_refused(struct vbjournal *j, int ret)
{
	if (ret == -ENOENT || ret == -EEXIST || ret == -ERANGE) {
		fprintf(stderr, "vbjournal: %s\n", vbjournal_errmsg(j));
		return 1;
	}
	if (ret == -ESTALE) {
		fprintf(stderr, "vbjournal: %s\n", vbjournal_errmsg(j));
		return 3;
	}
	return fail(j, ret);
}

/* From now on: the cursor it starts from. */
static int cmd_register(struct vbjournal *j, const char *name)
{
	char cur[VBJOURNAL_CURSOR_MAX];
	int ret = vbjournal_register(j, name, cur, sizeof(cur));

	if (ret)
		return consumer_refused(j, ret);
	printf("%s\n", cur);
	return 0;
}

static int cmd_consumers(struct vbjournal *j, bool json)
{
	struct vbjournal_consumer **list;
	struct jw jw;
	int i, n;

	n = vbjournal_consumers(j, &list);
	if (n < 0)
		return fail(j, n);
	if (json) {
		jw_init(&jw, stdout, true);
		jw_arr(&jw, NULL);
	}
	for (i = 0; i < n; i++) {
		const struct vbjournal_consumer *c = list[i];

		if (json) {
			jw_obj(&jw, NULL);
			jw_int(&jw, "version", JSON_VERSION);
			jw_str(&jw, "name", c->name);
			jw_int(&jw, "epoch", c->epoch);
			jw_int(&jw, "lag", c->lag);
			jw_bool(&jw, "rescan_required", c->rescan_required);
			jw_end(&jw);
		} else {
			printf("%s epoch %" PRId64 " lag %" PRId64 "%s\n", c->name,
			       c->epoch, c->lag, c->rescan_required ?
			       " FULL RESCAN REQUIRED (trimmed by the size cap)" : "");
		}
	}
	vbjournal_consumers_free(list);
	if (json) {
		jw_end(&jw);
		if (jw_close(&jw))
			return 1;
	}
	return 0;
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
	if (a->since && vbjournal_parse_cursor(a->since, &id, &epoch))
		return bad_usage("--since: '%s' is not a cursor (JOURNAL-ID:EPOCH, "
				 "as vbjournal cursor prints it)", a->since);
	if (!strcmp(a->cmd->name, "ack") && vbjournal_parse_cursor(a->arg[1], &id, &epoch))
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
	char since_buf[VBJOURNAL_CURSOR_MAX];
	const char *cmd, *since;
	struct vbjournal *j;
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
	/* only the consumers' commands write */
	ret = vbjournal_open(&j, a.journal, !strcmp(cmd, "register") ||
			     !strcmp(cmd, "ack") || !strcmp(cmd, "unregister") ?
			     VBJOURNAL_OPEN_WRITE : 0);
	if (ret) {
		ret = fail(j, ret);
		vbjournal_close(j);
		return ret;
	}
	/*
	 * --under is refused before the consumer is looked up: asked from
	 * the current cursor, the answer is made (and dropped) only once
	 * the path has been checked
	 */
	if (a.consumer && a.under) {
		struct vbjournal_changes *it;

		ret = vbjournal_cursor(j, since_buf, sizeof(since_buf));
		if (!ret)
			ret = vbjournal_changes(j, since_buf, a.under, 0, &it);
		if (ret) {
			ret = changes_refused(j, ret, a.under, a.json);
			vbjournal_close(j);
			return ret;
		}
		vbjournal_changes_free(it);
	}
	if (a.consumer) {
		ret = vbjournal_consumer_cursor(j, a.consumer, since_buf,
						sizeof(since_buf));
		if (ret) {
			ret = consumer_refused(j, ret);
			vbjournal_close(j);
			return ret;
		}
		since = since_buf;
	}
	if (!strcmp(cmd, "register")) {
		ret = cmd_register(j, a.arg[0]);
	} else if (!strcmp(cmd, "unregister")) {
		ret = vbjournal_unregister(j, a.arg[0]);
		ret = ret ? consumer_refused(j, ret) : 0;
	} else if (!strcmp(cmd, "ack")) {
		ret = vbjournal_ack(j, a.arg[0], a.arg[1]);
		ret = ret ? consumer_refused(j, ret) : 0;
	} else if (!strcmp(cmd, "consumers")) {
		ret = cmd_consumers(j, a.json);
	} else if (!strcmp(cmd, "cursor")) {
		ret = vbjournal_cursor(j, since_buf, sizeof(since_buf));
		if (ret)
			ret = fail(j, ret);
		else
			printf("%s\n", since_buf);
	} else if (!strcmp(cmd, "changes")) {
		ret = cmd_changes(j, since, a.under, a.json);
	} else if (!strcmp(cmd, "follow")) {
		ret = cmd_follow(j, since, a.under, a.json);
	} else if (!strcmp(cmd, "status")) {
		ret = cmd_status(j, a.json);
	} else {
		ret = cmd_checkpoint(j);
	}
	vbjournal_close(j);
	return ret;
}
