// SPDX-License-Identifier: GPL-2.0
/*
 * bench_overhead overhead: the cost per operation of each configuration
 * (module loaded or not, hooks live, this fs watched, a subscriber
 * streaming or coalescing, fanotify, inotify) on each filesystem, side
 * by side in one boot; see bench_overhead.c for the method.
 */
#include "common.h"
#include "bench_overhead.h"
#include "drainer.h"
#include "timed_ops.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <unistd.h>

static long op_iters[MAX_FS][NOPS];
static long reps;

/* ---- configurations ---- */

struct cstate {
	const struct bench_fs *fs;
	int nfs;
	const char *other;	/* an unrelated fs, for other_watched */
	int dev;
	int notify_fd;		/* fanotify or inotify group */
	bool inotify;
	int stop_efd;
	pthread_t reader;
	uint64_t events, overflows;	/* written by the reader */
	struct drainer *drain;		/* streaming, coalesced */
	uint32_t ring;			/* their ring size for this run */
};


/* Drains the notification group until told to stop; counts events. */
static void *reader_main(void *arg)
{
	struct cstate *s = arg;
	static char buf[1 << 16] __attribute__((aligned(8)));
	struct pollfd pfd[2] = { { s->notify_fd, POLLIN, 0 },
				 { s->stop_efd, POLLIN, 0 } };
	bool stopping = false;
	ssize_t len;

	pin_cpu(1);
	for (;;) {
		if (!stopping && poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			stopping = true;
		len = read(s->notify_fd, buf, sizeof(buf));
		if (len <= 0) {
			if (stopping)
				break;
			continue;
		}
		if (s->inotify) {
			char *p = buf;

			while (p < buf + len) {
				struct inotify_event *e = (void *)p;

				if (e->mask & IN_Q_OVERFLOW)
					__atomic_add_fetch(&s->overflows, 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&s->events, 1, __ATOMIC_RELAXED);
				p += sizeof(*e) + e->len;
			}
		} else {
			struct fanotify_event_metadata *m = (void *)buf;
			ssize_t left = len;

			for (; FAN_EVENT_OK(m, left); m = FAN_EVENT_NEXT(m, left)) {
				if (m->mask & FAN_Q_OVERFLOW)
					__atomic_add_fetch(&s->overflows, 1, __ATOMIC_RELAXED);
				if (m->fd >= 0)
					close(m->fd);
				__atomic_add_fetch(&s->events, 1, __ATOMIC_RELAXED);
			}
		}
	}
	return NULL;
}

static void reader_start(struct cstate *s)
{
	s->events = s->overflows = 0;
	s->stop_efd = eventfd(0, EFD_CLOEXEC);
	if (s->stop_efd < 0)
		die("eventfd: %s", strerror(errno));
	if (pthread_create(&s->reader, NULL, reader_main, s))
		die("pthread_create failed");
}

static void reader_stop(struct cstate *s)
{
	uint64_t one = 1;

	if (write(s->stop_efd, &one, sizeof(one)) != sizeof(one))
		die("eventfd write: %s", strerror(errno));
	pthread_join(s->reader, NULL);
	close(s->stop_efd);
	close(s->notify_fd);
	if (s->overflows)
		progress("warning: the %s queue overflowed %llu times",
			 s->inotify ? "inotify" : "fanotify",
			 (unsigned long long)s->overflows);
}

static int setup_none(struct cstate *s)
{
	(void)s;
	return 0;
}

/*
 * The configurations with live hooks share one device (s->dev, opened
 * for the whole group) that watches the unrelated fs: registering the
 * hooks takes seconds under TCG, watching one more fs milliseconds.
 */
static int setup_watched(struct cstate *s)
{
	int i, ret;

	for (i = 0; i < s->nfs; i++) {
		ret = vfsb_watch_path(s->dev, s->fs[i].dir);
		if (ret)
			die("watch %s: %s", s->fs[i].dir, strerror(-ret));
	}
	return 0;
}

static void teardown_watched(struct cstate *s)
{
	int i, ret;

	for (i = 0; i < s->nfs; i++) {
		ret = vfsb_unwatch_path(s->dev, s->fs[i].dir);
		if (ret)
			die("unwatch %s: %s", s->fs[i].dir, strerror(-ret));
	}
	/* the unrelated fs's tracking and the device remain */
	mod_wait_refcnt(2);
}

/*
 * streaming, coalesced: a second open device subscribes (default 1 MiB
 * ring) and watches the fs under test; a thread on CPU 1 drains it.
 */
static int setup_subscriber(struct cstate *s, uint32_t flags)
{
	const char *paths[MAX_FS];
	int i;

	for (i = 0; i < s->nfs; i++)
		paths[i] = s->fs[i].dir;
	s->drain = drainer_start(paths, s->nfs, 1, s->ring, flags);
	return 0;
}

static int setup_streaming(struct cstate *s)
{
	return setup_subscriber(s, 0);
}

static int setup_coalesced(struct cstate *s)
{
	return setup_subscriber(s, VFSB_SUB_COALESCE);
}

static struct rec_count last_drain;	/* of the last teardown_subscriber() */

static void teardown_subscriber(struct cstate *s)
{
	drainer_stop(s->drain, &last_drain);
	s->drain = NULL;
	/* the unrelated fs's tracking and the device remain */
	mod_wait_refcnt(2);
}

#define FAN_BENCH_MASK (FAN_MODIFY | FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | \
			FAN_MOVED_TO | FAN_ATTRIB | FAN_ONDIR | FAN_EVENT_ON_CHILD)

static int setup_fanotify(struct cstate *s)
{
	int i;

	s->inotify = false;
	s->notify_fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID |
				     FAN_UNLIMITED_QUEUE | FAN_CLOEXEC |
				     FAN_NONBLOCK, O_RDONLY | O_LARGEFILE);
	if (s->notify_fd < 0)
		die("fanotify_init: %s", strerror(errno));
	for (i = 0; i < s->nfs; i++)
		if (fanotify_mark(s->notify_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
				  FAN_BENCH_MASK, AT_FDCWD, s->fs[i].dir))
			die("fanotify_mark %s: %s", s->fs[i].dir, strerror(errno));
	reader_start(s);
	return 0;
}

static void write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		progress("cannot set %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static int setup_inotify(struct cstate *s)
{
	char dir[256];
	int i;

	write_sysctl("/proc/sys/fs/inotify/max_queued_events", "4194304");
	s->inotify = true;
	s->notify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->notify_fd < 0)
		die("inotify_init1: %s", strerror(errno));
	for (i = 0; i < s->nfs; i++) {
		snprintf(dir, sizeof(dir), "%s/overhead", s->fs[i].dir);
		if (inotify_add_watch(s->notify_fd, dir, IN_MODIFY | IN_CREATE |
				      IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
				      IN_ATTRIB) < 0)
			die("inotify_add_watch %s: %s", dir, strerror(errno));
	}
	reader_start(s);
	return 0;
}

struct config {
	const char *key;	/* JSON: key_ns */
	const char *label;
	bool module;		/* loaded while measuring */
	bool hooks;		/* hooks registered: the second group */
	int (*setup)(struct cstate *s);
	void (*teardown)(struct cstate *s);
	const char *na;		/* not measurable: why */
};

static const struct config configs[] = {
	{ "baseline", "baseline", false, false, setup_none, NULL, NULL },
	{ "unwatched", "unwatched", true, false, setup_none, NULL, NULL },
	{ "other_watched", "other-watched", true, true, setup_none, NULL, NULL },
	{ "watched", "watched", true, true, setup_watched, teardown_watched, NULL },
	{ "streaming", "streaming", true, true, setup_streaming, teardown_subscriber, NULL },
	{ "coalesced", "coalesced", true, true, setup_coalesced, teardown_subscriber, NULL },
	{ "fanotify", "fanotify", false, false, setup_fanotify, reader_stop, NULL },
	{ "inotify", "inotify", false, false, setup_inotify, reader_stop, NULL },
};
#define NCFG ARRAY_SIZE(configs)

static const char *config_help[NCFG] = {
	"module not loaded",
	"module loaded, nothing watched (no hooks registered)",
	"module loaded, an unrelated tmpfs watched: hooks live, this fs not watched",
	"module loaded, this fs (and the unrelated tmpfs) watched by an open device",
	"module loaded, this fs watched by a subscriber (ring of 1-8 MiB: the run's records fit; all reasons) drained by a thread on CPU 1",
	"the same with VFSB_SUB_COALESCE and no barrier during the loop (one record per directory and reason)",
	"no module; FAN_REPORT_FID group, FAN_MARK_FILESYSTEM, drained by a thread",
	"no module; inotify on the test directory, drained by a thread",
};

static double res[MAX_FS][NOPS][NCFG][MAX_REPS];
static double evs[MAX_FS][NOPS][NCFG][MAX_REPS];	/* events per op */
static double lost[MAX_FS][NOPS][NCFG][MAX_REPS];	/* records lost per run */

static bool is_notify(int c)
{
	return configs[c].setup == setup_fanotify || configs[c].setup == setup_inotify;
}

static bool is_stream(int c)
{
	return configs[c].setup == setup_streaming || configs[c].setup == setup_coalesced;
}



/*
 * The measurable configurations of one group (hooks or not), forwards
 * when flip is even, backwards when odd; returns how many.
 */
static int group_order(bool hooks, int flip, int *order)
{
	int i, n = 0, t;

	for (i = 0; i < (int)NCFG; i++)
		if (!configs[i].na && configs[i].hooks == hooks)
			order[n++] = i;
	if (flip & 1)
		for (i = 0; i < n / 2; i++) {
			t = order[i];
			order[i] = order[n - 1 - i];
			order[n - 1 - i] = t;
		}
	return n;
}


static void print_overhead_table(const struct bench_fs *fs, int nfs)
{
	char b1[32], b2[32];
	unsigned int o, c;
	int f;

	for (f = 0; f < nfs; f++) {
		printf("\n[1] per-operation cost on %s: baseline in ns/op, others as ratio to baseline\n"
		       "    (median of %ld rounds, +-x%% = half the range; ratios paired per round)\n",
		       fs[f].name, reps);
		printf("%-15s", "config");
		for (o = 0; o < NOPS; o++)
			printf(" %-14s", ops[o].label);
		printf("\n%-15s", "iterations");
		for (o = 0; o < NOPS; o++)
			printf(" %-14ld", op_iters[f][o]);
		printf("\n");
		for (c = 0; c < NCFG; c++) {
			printf("%-15s", c ? configs[c].label : "baseline ns");
			if (configs[c].na) {
				printf(" %s\n", configs[c].na);
				continue;
			}
			for (o = 0; o < NOPS; o++) {
				struct summary s = c ?
					ratio_summary(res[f][o][c], res[f][o][0], reps) :
					summarize(res[f][o][0], reps);
				char cell[40];

				snprintf(cell, sizeof(cell), "%s +-%s%%",
					 fmt_num(b1, s.med, c ? 3 : 0),
					 fmt_num(b2, spread_pct(s), 1));
				printf(" %-14s", cell);
			}
			printf("\n");
			if (!is_stream(c))
				continue;
			/* what the subscriber got: records per op, and any loss */
			printf("%-15s", "  recs/op,lost");
			for (o = 0; o < NOPS; o++) {
				char cell[40];
				double l = sum_valid(lost[f][o][c], reps);

				snprintf(cell, sizeof(cell), "%s/%s%s",
					 fmt_num(b1, summarize(evs[f][o][c], reps).med, 2),
					 fmt_num(b2, l, 0), l > 0 ? " LOST" : "");
				printf(" %-14s", cell);
			}
			printf("\n");
		}
		printf("    recs/op,lost: records the subscriber read per op (median of rounds) / records\n"
		       "    lost to a full ring over all rounds (\"LOST\": that figure is of a lossy stream)\n");
	}
	for (f = 0; f < nfs; f++) {
		printf("\n[1b] the same on %s, best run over best baseline run (a busy host only ever slows a run down)\n",
		       fs[f].name);
		printf("%-15s", "config");
		for (o = 0; o < NOPS; o++)
			printf(" %-11s", ops[o].label);
		printf("\n");
		for (c = 0; c < NCFG; c++) {
			if (configs[c].na)
				continue;
			printf("%-15s", c ? configs[c].label : "baseline ns");
			for (o = 0; o < NOPS; o++) {
				double base = summarize(res[f][o][0], reps).min;
				double v = summarize(res[f][o][c], reps).min;

				printf(" %-11s", fmt_num(b1, c ? v / base : base, c ? 3 : 0));
			}
			printf("\n");
		}
	}
	printf("\n    configurations:\n");
	for (c = 0; c < NCFG; c++)
		printf("    %-14s %s\n", configs[c].label,
		       configs[c].na ? configs[c].na : config_help[c]);
}

static void json_overhead_fs(struct jw *j, int f)
{
	unsigned int o, c;
	char key[64];
	int r;

	for (o = 0; o < NOPS; o++) {
		jw_obj(j, ops[o].key);
		for (c = 0; c < NCFG; c++) {
			snprintf(key, sizeof(key), "%s_ns", configs[c].key);
			jw_num(j, key, configs[c].na ? NAN :
			       summarize(res[f][o][c], reps).med);
		}
		jw_int(j, "iterations", op_iters[f][o]);
		jw_int(j, "reps", reps);
		jw_int(j, "stream_ring_bytes", ring_for(&ops[o], op_iters[f][o]));
		jw_obj(j, "ratio");
		for (c = 1; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       ratio_summary(res[f][o][c], res[f][o][0], reps).med);
		jw_end(j);
		/* best run over best run: robust to a busy host, which only slows */
		jw_obj(j, "ratio_best");
		for (c = 1; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       summarize(res[f][o][c], reps).min /
			       summarize(res[f][o][0], reps).min);
		jw_end(j);
		jw_obj(j, "ratio_spread_pct");
		for (c = 1; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       spread_pct(ratio_summary(res[f][o][c], res[f][o][0], reps)));
		jw_end(j);
		jw_obj(j, "ns_spread_pct");
		for (c = 0; c < NCFG; c++)
			jw_num(j, configs[c].key, configs[c].na ? NAN :
			       spread_pct(summarize(res[f][o][c], reps)));
		jw_end(j);
		/* notification events or records per op, median over rounds */
		jw_obj(j, "events_per_op");
		for (c = 0; c < NCFG; c++)
			if (is_notify(c) || is_stream(c))
				jw_num(j, configs[c].key,
				       summarize(evs[f][o][c], reps).med);
		jw_end(j);
		/* records the subscriber lost (OVERFLOW), summed over the rounds */
		jw_obj(j, "records_lost");
		for (c = 0; c < NCFG; c++)
			if (is_stream(c))
				jw_num(j, configs[c].key, sum_valid(lost[f][o][c], reps));
		jw_end(j);
		jw_obj(j, "reps_ns");
		for (c = 0; c < NCFG; c++) {
			if (configs[c].na) {
				jw_null(j, configs[c].key);
				continue;
			}
			jw_arr(j, configs[c].key);
			for (r = 0; r < reps; r++)
				jw_num(j, NULL, res[f][o][c][r]);
			jw_end(j);
		}
		jw_end(j);
		jw_end(j);
	}
}


/* One timed run of op o on fs f in configuration c, repetition r. */
static void measure(struct cstate *st, int c, int f, int o, int dirfd, int r)
{
	const struct config *cf = &configs[c];
	uint64_t ev0, last;

	if (!cf->hooks)
		mod_set(cf->module);
	st->ring = ring_for(&ops[o], op_iters[f][o]);
	cf->setup(st);
	ev0 = st->events;
	res[f][o][c][r] = time_op(&ops[o], dirfd, op_iters[f][o]);
	evs[f][o][c][r] = NAN;
	lost[f][o][c][r] = NAN;
	if (is_stream(c)) {
		/* the drainer reads what the loop announced */
		do {
			last = drainer_seen(st->drain);
			usleep(20000);
		} while (drainer_seen(st->drain) != last);
		cf->teardown(st);
		evs[f][o][c][r] = (double)last_drain.changes / op_iters[f][o];
		lost[f][o][c][r] = (double)last_drain.lost;
		if (last_drain.lost)
			progress("warning: %s %s: %llu records lost (%llu OVERFLOW records)",
				 cf->key, ops[o].key,
				 (unsigned long long)last_drain.lost,
				 (unsigned long long)last_drain.overflows);
		return;
	}
	if (is_notify(c)) {
		/* let the reader catch up before counting */
		do {
			last = st->events;
			usleep(20000);
		} while (st->events != last);
		evs[f][o][c][r] = (double)(st->events - ev0) / op_iters[f][o];
	}
	if (cf->teardown)
		cf->teardown(st);
}

int cmd_overhead(const char *out)
{
	struct bench_fs fs[MAX_FS];
	struct cstate st;
	int nfs, f, r, i, g, n, dirfd[MAX_FS], order[NCFG], primary;
	long budget_s;
	unsigned int o;
	char dir[256];
	struct jw j;
	uint64_t t0 = now_ns();

	nfs = bench_fs_list(fs, MAX_FS);
	primary = bench_fs_primary(fs, nfs);
	reps = bench_env_in("VFSB_BENCH_REPS", 10, 2, LONG_MIN, MAX_REPS);
	budget_s = bench_env("VFSB_BENCH_OVERHEAD_BUDGET_S", 700, 300);
	for (f = 0; f < nfs; f++) {
		bench_subdir(dir, sizeof(dir), fs[f].dir, "overhead");
		dirfd[f] = open_dir(dir);
	}
	memset(&st, 0, sizeof(st));
	st.fs = fs;
	st.nfs = nfs;
	st.dev = -1;
	st.other = getenv("VFSB_BENCH_OTHER");
	if (!st.other || !*st.other)
		die("VFSB_BENCH_OTHER is not set (bench.sh sets it)");
	for (f = 0; f < nfs; f++)
		for (o = 0; o < NOPS; o++)
			for (i = 0; i < (int)NCFG; i++)
				for (r = 0; r < MAX_REPS; r++)
					res[f][o][i][r] = evs[f][o][i][r] =
						lost[f][o][i][r] = NAN;

	pin_cpu(0);
	progress("overhead: %ld rounds x %d fs x %zu ops x %zu configurations",
		 reps, nfs, NOPS, NCFG);
	/* warm the caches and size the runs, in the baseline */
	mod_set(false);
	for (f = 0; f < nfs; f++) {
		for (o = 0; o < NOPS; o++)
			op_iters[f][o] = calibrated_iters(&ops[o], dirfd[f]);
		progress("overhead: %s iterations per run calibrated", fs[f].name);
	}

	/*
	 * Each round measures every op in every configuration. The
	 * configurations without hooks (cheap to switch: module load and
	 * unload without hooks take tens of ms) run back to back for each
	 * op, then those with hooks (registered once per round: seconds);
	 * rounds alternate which group comes first, ops alternate the
	 * order within a group.
	 */
	for (r = 0; r < reps; r++) {
		uint64_t tr = now_ns();

		for (g = 0; g < 2; g++) {
			bool hooks = (g ^ r) & 1;
			int ret;

			if (hooks) {
				mod_set(true);
				st.dev = dev_open();
				ret = vfsb_watch_path(st.dev, st.other);
				if (ret)
					die("watch %s: %s", st.other, strerror(-ret));
				/* let the text patching's deferred work finish */
				sleep_ns(1000000000ull);
			}
			for (f = 0; f < nfs; f++) {
				for (o = 0; o < NOPS; o++) {
					n = group_order(hooks, r + f * NOPS + o, order);
					for (i = 0; i < n; i++)
						measure(&st, order[i], f, o, dirfd[f], r);
				}
			}
			if (hooks) {
				close(st.dev);
				st.dev = -1;
				/* waits for the hooks to go */
				mod_set(false);
			}
		}
		progress("overhead: round %d/%ld done in %.1fs", r + 1, reps,
			 (now_ns() - tr) / 1e9);
		/* a slow (shared) host must not push the run past its limit */
		if (r + 1 >= 2 && r + 1 < reps &&
		    (now_ns() - t0) / 1e9 > budget_s) {
			progress("overhead: over the %lds budget: stopping after %d rounds",
				 budget_s, r + 1);
			reps = r + 1;
		}
	}
	mod_set(false);
	for (f = 0; f < nfs; f++)
		close(dirfd[f]);

	print_overhead_table(fs, nfs);

	bench_json_begin(&j, out);
	jw_per_fs(&j, "overhead", fs, nfs, primary, json_overhead_fs);
	jw_obj(&j, "overhead_info");
	jw_str(&j, "primary_fs", fs[primary].name);
	jw_int(&j, "reps", reps);
	jw_obj(&j, "configs");
	for (i = 0; i < (int)NCFG; i++)
		jw_str(&j, configs[i].key, configs[i].na ? configs[i].na : config_help[i]);
	jw_end(&j);
	return bench_json_end(&j, t0);
}
