// SPDX-License-Identifier: GPL-2.0
/*
 * Record throughput (issue item 4): the highest rate of operations for
 * which a read() subscriber gets every record, none lost, against the
 * highest rate at which a fanotify group gets every event.
 *
 *   bench_records records OUT.json
 *
 * Workload: VFSB_BENCH_RECORDS_WRITERS threads (one per CPU) create
 * files of unique names, each in its own directory of a fresh tmpfs,
 * VFSB_BENCH_RECORDS_OPS creates per trial in all. Unique names so
 * that fanotify cannot merge two events into one (it merges events
 * with the same directory and name) and every create is one record and
 * one event: the counts are comparable and a shortfall is a loss.
 *
 * Listeners, each alone on the fs (fanotify with the module unloaded,
 * vfsbarrier with its hooks kept registered by a device watching an
 * unrelated tmpfs):
 *   vfsb      a subscriber with the default ring (VFSB_RING_DEFAULT);
 *             loss = VFSB_REC_OVERFLOW records, which say how many
 *   fanotify  FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_REPORT_DFID_NAME
 *             (what a record carries: parent handle, name, object
 *             handle), FAN_MARK_FILESYSTEM, the default queue (16384
 *             events); loss = a FAN_Q_OVERFLOW event (which does not
 *             say how many: lost = creates - events received)
 * Both readers are one thread on the last CPU (which it shares with a
 * writer), reading into a buffer of VFSB_BENCH_RECORDS_READ_BYTES
 * (64 KiB, as vbctl stream; one vfsb row reads 1 MiB at a time).
 *
 * Part A ("eager reader"): the reader poll()s and reads as soon as
 * there is something. The writers first run unthrottled
 * (VFSB_BENCH_RECORDS_REPS times for the two main listeners); if
 * nothing was lost there the answer is "lossless at the writers'
 * maximum rate" (writer_bound: the reader was never the limit). If
 * something was lost, paced trials bisect between the best lossless
 * and the lowest lossy rate (at most VFSB_BENCH_RECORDS_STEPS of them,
 * within VFSB_BENCH_RECORDS_BUDGET_S for the phase).
 *
 * Part B ("periodic reader"): the reader sleeps
 * VFSB_BENCH_RECORDS_PERIOD_MS between drains, as a batch indexer
 * might; loss then begins where one period's records no longer fit in
 * the ring or queue, so this compares capacities: a small (64 KiB)
 * ring, the default ring, a 4 MiB ring (more records than fanotify's
 * queue holds events) and fanotify's queue, with the same search. A ring
 * larger than one trial's records can never overflow, so the 4 MiB ring's
 * trials are VFSB_BENCH_RECORDS_BIG_OPS creates long.
 * Every vfsb trial also checks that the OVERFLOW records' counts add up
 * to exactly the records missing.
 */
#include "common.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MNT "/mnt/bench-records"
#define MAX_WRITERS 8
#define MAX_TRIALS 64
#define FAN_QUEUE_DEFAULT 16384	/* fanotify's default queue (events) */

enum { K_VFSB, K_FAN };

static long nops, nwriters, nsteps, read_bytes, period_ms, slow_ops, big_ops;
static double budget_s;
static uint64_t t_phase;

/* ---- one trial ---- */

struct result;

struct trial {
	struct result *res;
	const char *what;	/* listener label */
	int kind;
	uint32_t ring;		/* vfsb ring bytes (0: default) */
	long period;		/* reader sleeps this many ms between drains */
	long rbytes;		/* read() buffer */
	long target;		/* ops/s in all, 0: unthrottled */
	long ops;
	double secs, rate;	/* achieved */
	uint64_t received;	/* create records / events */
	uint64_t overflows;	/* OVERFLOW records / FAN_Q_OVERFLOW events */
	uint64_t lost;		/* vfsb: as the records say; fanotify: ops - received */
	bool lossless;
	bool accounted;		/* vfsb: received + lost == ops */
	double rec_bytes;	/* mean size of a record / event */
};

static struct trial trials[MAX_TRIALS];
static int ntrials;

struct reader {
	int fd, kind, stop_efd;
	long period, rbytes;
	pthread_t th;
	char *buf;
	struct rec_count cnt;		/* vfsb */
	uint64_t fan_creates, fan_overflows, fan_bytes;
};

static void reader_drain(struct reader *rd)
{
	ssize_t len;

	for (;;) {
		len = read(rd->fd, rd->buf, rd->rbytes);
		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0) {
			if (len < 0 && errno != EAGAIN)
				die("read: %s", strerror(errno));
			return;
		}
		if (rd->kind == K_VFSB) {
			rec_count_buf(rd->buf, len, &rd->cnt);
		} else {
			struct fanotify_event_metadata *m = (void *)rd->buf;
			ssize_t left = len;

			for (; FAN_EVENT_OK(m, left); m = FAN_EVENT_NEXT(m, left)) {
				if (m->mask & FAN_Q_OVERFLOW)
					rd->fan_overflows++;
				else if (m->mask & FAN_CREATE)
					rd->fan_creates++;
				rd->fan_bytes += m->event_len;
				if (m->fd >= 0)
					close(m->fd);
			}
		}
	}
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct pollfd pfd[2] = { { rd->fd, POLLIN, 0 }, { rd->stop_efd, POLLIN, 0 } };
	bool stopping = false;

	pin_cpu(cpu_count() - 1);
	while (!stopping) {
		if (rd->period) {
			/* a batch reader: sleep, then take what is there */
			if (poll(&pfd[1], 1, rd->period) < 0 && errno != EINTR)
				die("poll: %s", strerror(errno));
			stopping = pfd[1].revents;
		} else {
			if (poll(pfd, 2, -1) < 0 && errno != EINTR)
				die("poll: %s", strerror(errno));
			stopping = pfd[1].revents;
		}
		reader_drain(rd);
	}
	/* the writers are done: everything is queued; take the rest */
	reader_drain(rd);
	return NULL;
}

struct writer {
	pthread_t th;
	int idx;
	long ops;
	double rate;		/* ops/s of this writer; 0: unthrottled */
	int dirfd;
	const volatile bool *go;
	uint64_t t_end;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint64_t t0, next, gap = w->rate > 0 ? (uint64_t)(1e9 / w->rate) : 0;
	char name[32];
	long i;
	int fd;

	pin_cpu(w->idx);
	prctl(PR_SET_TIMERSLACK, 1UL);
	while (!__atomic_load_n(w->go, __ATOMIC_ACQUIRE))
		;
	t0 = next = now_ns();
	for (i = 0; i < w->ops; i++) {
		if (gap) {
			uint64_t now;

			next = t0 + (uint64_t)i * gap;
			now = now_ns();
			/* sleep only when ahead by a millisecond: batches of ops */
			if (next > now + 1000000) {
				struct timespec ts = { .tv_sec = next / 1000000000ull,
						       .tv_nsec = next % 1000000000ull };

				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			}
		}
		snprintf(name, sizeof(name), "f%ld", i);
		fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s: %s", name, strerror(errno));
		close(fd);
	}
	w->t_end = now_ns();
	return NULL;
}

static int listener_open(const struct trial *t)
{
	const char *mnt = MNT;
	int fd;

	if (t->kind == K_VFSB)
		return sub_open(&mnt, 1, t->ring, 0);
	fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID | FAN_REPORT_DFID_NAME |
			   FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_LARGEFILE);
	if (fd < 0)
		die("fanotify_init: %s", strerror(errno));
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			  FAN_CREATE | FAN_DELETE | FAN_MODIFY | FAN_ATTRIB |
			  FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, AT_FDCWD, mnt))
		die("fanotify_mark %s: %s", mnt, strerror(errno));
	return fd;
}

/* Runs t (kind, ring, period, target, ops filled in) and fills the rest. */
static void run_trial(struct trial *t)
{
	static char *buf;
	struct writer w[MAX_WRITERS];
	struct reader rd;
	volatile bool go = false;
	uint64_t one = 1, t0, tend = 0;
	char dir[64];
	int i;

	if (!buf) {
		buf = aligned_alloc(8, 1 << 20);
		if (!buf)
			die("out of memory");
	}
	mkdir(MNT, 0755);
	if (mount("tmpfs", MNT, "tmpfs", 0, "size=256m"))
		die("mount %s: %s", MNT, strerror(errno));
	/* the directories first: their mkdir records are not the workload's */
	for (i = 0; i < nwriters; i++) {
		snprintf(dir, sizeof(dir), MNT "/w%d", i);
		if (mkdir(dir, 0755))
			die("mkdir %s: %s", dir, strerror(errno));
	}
	memset(&rd, 0, sizeof(rd));
	rd.kind = t->kind;
	rd.period = t->period;
	rd.rbytes = t->rbytes;
	rd.buf = buf;
	rd.fd = listener_open(t);
	rd.stop_efd = eventfd(0, EFD_CLOEXEC);
	if (rd.stop_efd < 0)
		die("eventfd: %s", strerror(errno));
	if (pthread_create(&rd.th, NULL, reader_main, &rd))
		die("pthread_create failed");
	for (i = 0; i < nwriters; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		snprintf(dir, sizeof(dir), MNT "/w%d", i);
		w[i].dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w[i].dirfd < 0)
			die("open %s: %s", dir, strerror(errno));
		w[i].idx = i;
		w[i].ops = t->ops / nwriters + (i < t->ops % nwriters);
		w[i].rate = t->target ? (double)t->target / nwriters : 0;
		w[i].go = &go;
		if (pthread_create(&w[i].th, NULL, writer_main, &w[i]))
			die("pthread_create failed");
	}
	usleep(50000);
	t0 = now_ns();
	__atomic_store_n(&go, true, __ATOMIC_RELEASE);
	for (i = 0; i < nwriters; i++) {
		pthread_join(w[i].th, NULL);
		close(w[i].dirfd);
		if (w[i].t_end > tend)
			tend = w[i].t_end;
	}
	if (write(rd.stop_efd, &one, sizeof(one)) != sizeof(one))
		die("eventfd write: %s", strerror(errno));
	pthread_join(rd.th, NULL);
	close(rd.stop_efd);
	close(rd.fd);

	t->secs = (tend - t0) / 1e9;
	t->rate = t->ops / t->secs;
	if (t->kind == K_VFSB) {
		t->received = rd.cnt.creates;
		t->overflows = rd.cnt.overflows;
		t->lost = rd.cnt.lost;
		t->accounted = rd.cnt.creates + rd.cnt.lost == (uint64_t)t->ops &&
			       rd.cnt.changes == rd.cnt.creates;
		t->rec_bytes = rd.cnt.changes ? (double)rd.cnt.bytes / rd.cnt.changes : NAN;
		/* the device is closed: the keeper's tracking and device remain */
		mod_wait_refcnt(2);
	} else {
		t->received = rd.fan_creates;
		t->overflows = rd.fan_overflows;
		t->lost = t->ops > (long)rd.fan_creates ? t->ops - rd.fan_creates : 0;
		t->accounted = true;
		t->rec_bytes = rd.fan_creates ? (double)rd.fan_bytes / rd.fan_creates : NAN;
	}
	t->lossless = !t->overflows && !t->lost && t->received == (uint64_t)t->ops;
	if (umount2(MNT, 0))
		die("umount %s: %s", MNT, strerror(errno));
	progress("records: %-22s period %3ldms target %5ld/s: %ld creates in %.2fs = %.0f/s, "
		 "received %llu, lost %llu (%llu overflow%s)%s",
		 t->what, t->period, t->target, t->ops, t->secs, t->rate,
		 (unsigned long long)t->received, (unsigned long long)t->lost,
		 (unsigned long long)t->overflows, t->overflows == 1 ? "" : "s",
		 t->accounted ? "" : " ACCOUNTING MISMATCH");
}

/* ---- the search ---- */

struct result {
	const char *key, *what;
	int kind;
	uint32_t ring;
	long period, ops, rbytes;
	double full_rate;	/* fastest unthrottled trial */
	uint64_t full_lost;	/* records lost in the unthrottled trials */
	double max_lossless;	/* highest lossless achieved rate; NAN: none */
	double min_lossy;	/* lowest rate that lost records; NAN: none */
	bool writer_bound;	/* every unthrottled trial lossless */
	bool accounted;		/* every vfsb trial's counts added up */
	double rec_bytes;
	int ntr;		/* its trials */
};

static bool over_budget(void)
{
	return (now_ns() - t_phase) / 1e9 > budget_s;
}

static struct trial *run_one(struct result *res, long target)
{
	struct trial *t;

	if (ntrials >= MAX_TRIALS)
		die("too many trials");
	t = &trials[ntrials];
	memset(t, 0, sizeof(*t));
	t->res = res;
	t->what = res->what;
	t->kind = res->kind;
	t->ring = res->ring;
	t->period = res->period;
	t->rbytes = res->rbytes;
	t->target = target;
	t->ops = res->ops;
	run_trial(t);
	ntrials++;
	if (!res->ntr++) {
		res->accounted = true;
		res->writer_bound = true;
		res->max_lossless = res->min_lossy = res->full_rate = NAN;
	}
	res->accounted &= t->accounted;
	if (!isnan(t->rec_bytes))
		res->rec_bytes = t->rec_bytes;
	if (t->lossless && !(t->rate <= res->max_lossless))
		res->max_lossless = t->rate;
	if (!t->lossless && !(t->rate >= res->min_lossy))
		res->min_lossy = t->rate;
	if (!target) {
		if (!(t->rate <= res->full_rate))
			res->full_rate = t->rate;
		res->full_lost += t->lost;
		res->writer_bound &= t->lossless;
	}
	return t;
}

/*
 * After the unthrottled trials: when one lost records, paced trials
 * bisect between the best lossless rate (or nothing) and the lowest
 * lossy one, until they are within 10% or the steps or budget run out.
 */
static void bisect(struct result *res)
{
	double lo, hi;
	long target;
	int s;

	for (s = 0; s < nsteps && !res->writer_bound && !over_budget(); s++) {
		lo = res->max_lossless;
		hi = res->min_lossy;
		if (!isnan(lo) && (lo >= hi || hi / lo < 1.1))
			break;
		target = (long)(isnan(lo) ? hi / 2 : (lo + hi) / 2);
		if (target < 10)
			break;
		run_one(res, target);
	}
}

/* ---- output ---- */

static void print_result(const struct result *r)
{
	char b1[32], b2[32], b3[32];

	printf("%-34s %-8s %-9llu %-13s %-9s %s\n", r->what,
	       fmt_num(b1, r->full_rate, 0), (unsigned long long)r->full_lost,
	       fmt_num(b2, r->max_lossless, 0), fmt_num(b3, r->min_lossy, 0),
	       r->writer_bound ? "yes: lossless at the writers' full speed" :
	       isnan(r->max_lossless) ? "no (no lossless rate found)" : "no");
}

static void json_trial(struct jw *j, const struct trial *t)
{
	jw_obj(j, NULL);
	jw_int(j, "target_per_s", t->target);
	jw_int(j, "ops", t->ops);
	jw_num(j, "seconds", t->secs);
	jw_num(j, "ops_per_s", t->rate);
	jw_int(j, "received", (long long)t->received);
	jw_int(j, "lost", (long long)t->lost);
	jw_int(j, "overflows", (long long)t->overflows);
	jw_bool(j, "lossless", t->lossless);
	if (t->kind == K_VFSB)
		jw_bool(j, "lost_count_exact", t->accounted);
	jw_end(j);
}

static void json_result(struct jw *j, const struct result *r)
{
	int i;

	jw_obj(j, r->key);
	jw_str(j, "listener", r->what);
	if (r->kind == K_VFSB)
		jw_int(j, "ring_bytes", r->ring ? r->ring : VFSB_RING_DEFAULT);
	else
		jw_int(j, "queue_events", FAN_QUEUE_DEFAULT);
	jw_int(j, "read_bytes", r->rbytes);
	jw_int(j, "reader_period_ms", r->period);
	jw_int(j, "ops_per_trial", r->ops);
	jw_num(j, "max_lossless_ops_per_s", r->max_lossless);
	jw_bool(j, "writer_bound", r->writer_bound);
	jw_num(j, "min_lossy_ops_per_s", r->min_lossy);
	jw_num(j, "full_speed_ops_per_s", r->full_rate);
	jw_int(j, "full_speed_lost", (long long)r->full_lost);
	jw_num(j, "mean_bytes", r->rec_bytes);
	/* records (events) the ring (queue) holds */
	jw_num(j, "capacity", r->kind == K_VFSB ?
	       (r->ring ? r->ring : VFSB_RING_DEFAULT) / r->rec_bytes :
	       FAN_QUEUE_DEFAULT);
	if (r->kind == K_VFSB)
		jw_bool(j, "lost_counts_exact", r->accounted);
	jw_arr(j, "trials");
	for (i = 0; i < ntrials; i++)
		if (trials[i].res == r)
			json_trial(j, &trials[i]);
	jw_end(j);
	jw_end(j);
}

enum { E_VFSB, E_VFSB_1M, E_FAN, NEAGER };
enum { B_VFSB_64K, B_VFSB, B_VFSB_4M, B_FAN, NBATCH };

static int cmd_records(const char *out)
{
	struct result eager[NEAGER] = {
		[E_VFSB] = { .key = "vfsb", .what = "vfsb, 1 MiB ring", .kind = K_VFSB },
		[E_VFSB_1M] = { .key = "vfsb_read_1m", .what = "vfsb, 1 MiB ring, 1 MiB read()",
				.kind = K_VFSB, .rbytes = 1 << 20 },
		[E_FAN] = { .key = "fanotify", .what = "fanotify, 16384 queue", .kind = K_FAN },
	};
	struct result batch[NBATCH] = {
		[B_VFSB_64K] = { .key = "vfsb_64k", .what = "vfsb, 64 KiB ring", .kind = K_VFSB,
				 .ring = 64 << 10 },
		[B_VFSB] = { .key = "vfsb", .what = "vfsb, 1 MiB ring", .kind = K_VFSB },
		[B_VFSB_4M] = { .key = "vfsb_4m", .what = "vfsb, 4 MiB ring", .kind = K_VFSB,
				.ring = 4 << 20 },
		[B_FAN] = { .key = "fanotify", .what = "fanotify, 16384 queue", .kind = K_FAN },
	};
	const char *other = getenv("VFSB_BENCH_OTHER");
	bool accounted = true;
	long reps, r;
	struct jw j;
	int keeper, ret, i;

	t_phase = now_ns();
	nops = bench_env("VFSB_BENCH_RECORDS_OPS", 20000, 4000);
	slow_ops = bench_env("VFSB_BENCH_RECORDS_SLOW_OPS", 6000, 2000);
	big_ops = bench_env("VFSB_BENCH_RECORDS_BIG_OPS", 60000, 30000);
	nwriters = bench_env("VFSB_BENCH_RECORDS_WRITERS", cpu_count(), cpu_count());
	nsteps = bench_env("VFSB_BENCH_RECORDS_STEPS", 5, 2);
	reps = bench_env("VFSB_BENCH_RECORDS_REPS", 2, 1);
	read_bytes = bench_env("VFSB_BENCH_RECORDS_READ_BYTES", 64 << 10, 64 << 10);
	period_ms = bench_env("VFSB_BENCH_RECORDS_PERIOD_MS", 200, 200);
	budget_s = bench_env("VFSB_BENCH_RECORDS_BUDGET_S", 150, 60);
	if (nwriters < 1 || nwriters > MAX_WRITERS)
		die("VFSB_BENCH_RECORDS_WRITERS must be 1..%d", MAX_WRITERS);
	if (read_bytes < VFSB_RECORD_MAX || read_bytes > 1 << 20)
		die("VFSB_BENCH_RECORDS_READ_BYTES must be %d..%d", VFSB_RECORD_MAX, 1 << 20);
	if (!other || !*other)
		die("VFSB_BENCH_OTHER is not set (bench.sh sets it)");
	for (i = 0; i < NEAGER; i++) {
		eager[i].ops = nops;
		if (!eager[i].rbytes)
			eager[i].rbytes = read_bytes;
	}
	/* a trial can only overflow what it more than fills */
	for (i = 0; i < NBATCH; i++) {
		batch[i].ops = !batch[i].ring ? nops :
			       batch[i].ring > VFSB_RING_DEFAULT ? big_ops : slow_ops;
		batch[i].period = period_ms;
		batch[i].rbytes = read_bytes;
	}
	progress("records: %ld creates per trial, %ld writers, read() of %ld bytes",
		 nops, nwriters, read_bytes);

	/*
	 * fanotify with no module loaded; vfsbarrier with its hooks
	 * registered once for all its trials. The eager listeners'
	 * unthrottled trials go F V.. V F, so drift on a shared host
	 * shows up as a difference between the repetitions.
	 */
	mod_set(false);
	run_one(&eager[E_FAN], 0);
	run_one(&batch[B_FAN], 0);
	mod_set(true);
	keeper = dev_open();
	ret = vfsb_watch_path(keeper, other);
	if (ret)
		die("watch %s: %s", other, strerror(-ret));
	sleep_ns(1000000000ull);	/* the text patching's deferred work */
	for (r = 0; r < reps; r++)
		run_one(&eager[E_VFSB], 0);
	run_one(&eager[E_VFSB_1M], 0);
	run_one(&batch[B_VFSB_64K], 0);
	run_one(&batch[B_VFSB], 0);
	run_one(&batch[B_VFSB_4M], 0);
	bisect(&batch[B_VFSB_64K]);
	bisect(&eager[E_VFSB]);
	bisect(&eager[E_VFSB_1M]);
	bisect(&batch[B_VFSB]);
	bisect(&batch[B_VFSB_4M]);
	close(keeper);
	mod_set(false);
	for (r = 1; r < reps; r++)
		run_one(&eager[E_FAN], 0);
	bisect(&eager[E_FAN]);
	bisect(&batch[B_FAN]);
	for (i = 0; i < NEAGER; i++)
		accounted &= eager[i].accounted;
	for (i = 0; i < NBATCH; i++)
		accounted &= batch[i].accounted;

	printf("\n[4] record throughput on a fresh tmpfs: %ld writer threads create files of unique names;\n"
	       "    creates/s of all writers; \"max lossless\" = fastest trial in which the reader got\n"
	       "    every record (event); \"lossy at\" = slowest trial that lost some; \"full\" = fastest\n"
	       "    unthrottled trial (%ld creates each; %ld of the eager ones), \"lost\" = lost in those\n",
	       nwriters, nops, reps);
	printf("%-34s %-8s %-9s %-13s %-9s %s\n", "A: eager reader (poll, read)",
	       "full/s", "lost", "max lossless", "lossy at", "writer-bound");
	for (i = 0; i < NEAGER; i++)
		print_result(&eager[i]);
	printf("B: reader drains every %ld ms (%ld creates per trial with the 64 KiB ring, %ld with 4 MiB)\n",
	       period_ms, slow_ops, big_ops);
	for (i = 0; i < NBATCH; i++)
		print_result(&batch[i]);
	printf("    record %.0f B: a 1 MiB ring holds ~%.0f, 64 KiB ~%.0f, 4 MiB ~%.0f; fanotify event %.0f B, queue 16384 events\n",
	       eager[E_VFSB].rec_bytes, VFSB_RING_DEFAULT / eager[E_VFSB].rec_bytes,
	       (64 << 10) / eager[E_VFSB].rec_bytes,
	       (4 << 20) / eager[E_VFSB].rec_bytes, eager[E_FAN].rec_bytes);
	printf("    vfsb lost counts (OVERFLOW records) %s; read() buffer %ld bytes unless stated\n",
	       accounted ? "matched every trial's shortfall exactly" :
	       "did NOT match the shortfall in some trial", read_bytes);

	bench_json_begin(&j, out);
	jw_obj(&j, "records");
	jw_num(&j, "max_lossless_ops_per_s", eager[E_VFSB].max_lossless);
	jw_bool(&j, "max_lossless_writer_bound", eager[E_VFSB].writer_bound);
	jw_num(&j, "fanotify_max_lossless_per_s", eager[E_FAN].max_lossless);
	jw_bool(&j, "fanotify_max_lossless_writer_bound", eager[E_FAN].writer_bound);
	jw_str(&j, "workload", "creates of unique names on a fresh tmpfs, one directory per writer thread");
	jw_int(&j, "writers", nwriters);
	jw_int(&j, "read_bytes", read_bytes);
	jw_bool(&j, "lost_counts_exact", accounted);
	jw_obj(&j, "eager_reader");
	jw_int(&j, "unthrottled_reps", reps);
	for (i = 0; i < NEAGER; i++)
		json_result(&j, &eager[i]);
	jw_end(&j);
	jw_obj(&j, "periodic_reader");
	jw_int(&j, "period_ms", period_ms);
	for (i = 0; i < NBATCH; i++)
		json_result(&j, &batch[i]);
	jw_end(&j);
	return bench_json_end(&j, t_phase);
}

int main(int argc, char **argv)
{
	static const struct bench_cmd cmds[] = {
		{ "records", cmd_records },
	};

	return bench_main(argc, argv, "bench_records", cmds, ARRAY_SIZE(cmds));
}
