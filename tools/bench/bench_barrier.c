// SPDX-License-Identifier: GPL-2.0
/*
 * Barrier latency (issue items 2 and 5b).
 *
 *   bench_barrier latency OUT.json  idle / 2 writer threads, each of
 *                                   normal, expedited and async
 *                                   (BARRIER_START, poll(POLLPRI),
 *                                   BARRIER_POLL) barriers
 *   bench_barrier rate OUT.json     with 0, 100, 10000 sections begun
 *                                   per second by a paced writer
 *
 * Latency is what the caller sees: from before the ioctl to after it
 * returned (for async: from before BARRIER_START to the BARRIER_POLL
 * that reports the cookie done). Each series of barriers gives a p50,
 * p99 and max; a figure is the median of the series' values over the
 * repetitions, with half their range as the spread.
 */
#include "common.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_FS 4
#define MAX_REPS 32
#define MAX_K 4096

enum { M_NORMAL, M_EXPEDITED, M_ASYNC, NMODES };
static const char *mode_key[NMODES] = { "normal", "expedited", "async" };
enum { S_P50, S_P99, S_MAX, NSTATS };
static const char *stat_key[NSTATS] = { "p50", "p99", "max" };

static long reps, nbarriers;
static int dev;

/* One barrier of the given mode on the superblock of fd: latency in ns. */
static uint64_t one_barrier(int fd, int mode)
{
	uint64_t t0 = now_ns();
	int ret;


	if (mode == M_ASYNC) {
		struct pollfd pfd = { dev, POLLPRI, 0 };
		__u64 cookie;

		ret = vfsb_barrier_start_fd(dev, fd, 0, &cookie);
		if (ret)
			die("BARRIER_START: %s", strerror(-ret));
		for (;;) {
			int n = poll(&pfd, 1, 30000);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				die("async barrier: no completion within 30s");
			ret = vfsb_barrier_poll(dev, cookie, NULL);
			if (ret < 0)
				die("BARRIER_POLL: %s", strerror(-ret));
			if (ret == VFSB_BARRIER_DONE)
				break;
		}
	} else {
		ret = vfsb_barrier_fd(dev, fd, mode == M_EXPEDITED ?
				      VFSB_BARRIER_EXPEDITED : 0, 30000, NULL);
		if (ret)
			die("BARRIER: %s", strerror(-ret));
	}
	return now_ns() - t0;
}

/* A series of n barriers: p50, p99 and max in microseconds. */
static void series(int fd, int mode, long n, double out[NSTATS])
{
	static uint64_t lat[MAX_K];
	long i;

	for (i = 0; i < n; i++)
		lat[i] = one_barrier(fd, mode);
	sort_u64(lat, n);
	out[S_P50] = pct_u64(lat, n, 50) / 1e3;
	out[S_P99] = pct_u64(lat, n, 99) / 1e3;
	out[S_MAX] = lat[n - 1] / 1e3;
}

/* ---- writers ---- */

struct writer {
	pthread_t th;
	char path[512];
	long rate;		/* writes per second; 0: as fast as it can */
	size_t size;		/* bytes per write */
	volatile bool stop;
	uint64_t writes;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	static char buf[4096];
	uint64_t next = now_ns(), gap = w->rate ? 1000000000ull / w->rate : 0;
	int fd = open(w->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	unsigned long i = 0;

	if (fd < 0)
		die("open %s: %s", w->path, strerror(errno));
	memset(buf, 'w', sizeof(buf));
	while (!w->stop) {
		if (gap) {
			uint64_t now = now_ns();
			struct timespec ts;

			next += gap;
			if (next + 10000000ull < now)
				next = now;	/* fell far behind: no burst */
			if (next > now) {
				ts.tv_sec = next / 1000000000ull;
				ts.tv_nsec = next % 1000000000ull;
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			}
		}
		if (pwrite(fd, buf, w->size, (off_t)(i++ % 256) * w->size) !=
		    (ssize_t)w->size)
			die("write %s: %s", w->path, strerror(errno));
		w->writes++;
	}
	close(fd);
	unlink(w->path);
	return NULL;
}

static void writers_start(struct writer *w, int n, const char *dir,
			  long rate, size_t size)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		snprintf(w[i].path, sizeof(w[i].path), "%s/writer%d", dir, i);
		w[i].rate = rate;
		w[i].size = size;
		if (pthread_create(&w[i].th, NULL, writer_main, &w[i]))
			die("pthread_create failed");
	}
	usleep(100000);		/* let them get going */
}

static uint64_t writers_stop(struct writer *w, int n)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < n; i++)
		w[i].stop = true;
	for (i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		total += w[i].writes;
	}
	return total;
}

static void setup_common(void)
{
	reps = bench_env_in("VFSB_BENCH_BARRIER_REPS", 6, 2, LONG_MIN, MAX_REPS);
	nbarriers = bench_env_in("VFSB_BENCH_BARRIERS", 100, 20, 1, MAX_K);
	mod_set(true);
	dev = dev_open();
}

static void fmt_cell(char *cell, size_t len, const double *v)
{
	struct summary s = summarize(v, reps);
	char b1[32], b2[32];

	snprintf(cell, len, "%s +-%s%%", fmt_num(b1, s.med, 0),
		 fmt_num(b2, spread_pct(s), 0));
}

/* ---- 2: idle and loaded ---- */

enum { SC_IDLE, SC_LOAD, NSCEN };
static const char *scen_key[NSCEN] = { "idle", "load" };

static double lres[MAX_FS][NSCEN][NMODES][NSTATS][MAX_REPS];
static double load_wps[MAX_FS][MAX_REPS];

static void json_latency_fs(struct jw *j, int f)
{
	char key[64];
	int s, m, k;

#define MED(sc, mo, st) summarize(lres[f][sc][mo][st], reps).med
	/* the names first */
	jw_num(j, "idle_p50_us", MED(SC_IDLE, M_NORMAL, S_P50));
	jw_num(j, "idle_p99_us", MED(SC_IDLE, M_NORMAL, S_P99));
	jw_num(j, "idle_max_us", MED(SC_IDLE, M_NORMAL, S_MAX));
	jw_num(j, "load_p50_us", MED(SC_LOAD, M_NORMAL, S_P50));
	jw_num(j, "load_p99_us", MED(SC_LOAD, M_NORMAL, S_P99));
	jw_num(j, "load_max_us", MED(SC_LOAD, M_NORMAL, S_MAX));
	jw_num(j, "expedited_p50_us", MED(SC_IDLE, M_EXPEDITED, S_P50));
	jw_num(j, "expedited_p99_us", MED(SC_IDLE, M_EXPEDITED, S_P99));
	jw_num(j, "expedited_load_p50_us", MED(SC_LOAD, M_EXPEDITED, S_P50));
	jw_num(j, "expedited_load_p99_us", MED(SC_LOAD, M_EXPEDITED, S_P99));
	jw_num(j, "async_p50_us", MED(SC_IDLE, M_ASYNC, S_P50));
	jw_num(j, "async_p99_us", MED(SC_IDLE, M_ASYNC, S_P99));
	jw_num(j, "async_load_p50_us", MED(SC_LOAD, M_ASYNC, S_P50));
	jw_num(j, "async_load_p99_us", MED(SC_LOAD, M_ASYNC, S_P99));
#undef MED
	jw_num(j, "load_writes_per_s", summarize(load_wps[f], reps).med);
	jw_obj(j, "detail");
	for (m = 0; m < NMODES; m++) {
		jw_obj(j, mode_key[m]);
		for (s = 0; s < NSCEN; s++) {
			jw_obj(j, scen_key[s]);
			for (k = 0; k < NSTATS; k++) {
				struct summary sm = summarize(lres[f][s][m][k], reps);

				snprintf(key, sizeof(key), "%s_us", stat_key[k]);
				jw_num(j, key, sm.med);
				snprintf(key, sizeof(key), "%s_spread_pct", stat_key[k]);
				jw_num(j, key, spread_pct(sm));
			}
			jw_end(j);
		}
		jw_end(j);
	}
	jw_end(j);
}

static int cmd_latency(const char *out)
{
	struct bench_fs fs[MAX_FS];
	struct writer w[2];
	int nfs, f, r, s, m, k, mi, si, fd, primary, ret;
	char dir[256], cell[64];
	uint64_t t0 = now_ns(), ts, tl;
	double v[NSTATS];
	struct jw j;

	nfs = bench_fs_list(fs, MAX_FS);
	primary = bench_fs_primary(fs, nfs);
	setup_common();
	for (f = 0; f < nfs; f++) {
		ret = vfsb_watch_path(dev, fs[f].dir);
		if (ret)
			die("watch %s: %s", fs[f].dir, strerror(-ret));
	}
	progress("barrier: %ld repetitions x %ld barriers per series", reps, nbarriers);
	for (f = 0; f < nfs; f++) {
		bench_subdir(dir, sizeof(dir), fs[f].dir, "barrier");
		fd = open_dir(dir);
		for (r = 0; r < reps; r++) {
			ts = now_ns();
			for (si = 0; si < NSCEN; si++) {
				s = r & 1 ? NSCEN - 1 - si : si;
				if (s == SC_LOAD)
					writers_start(w, 2, dir, 0, 4096);
				tl = now_ns();
				for (mi = 0; mi < NMODES; mi++) {
					m = r & 1 ? NMODES - 1 - mi : mi;
					series(fd, m, nbarriers, v);
					for (k = 0; k < NSTATS; k++)
						lres[f][s][m][k][r] = v[k];
				}
				if (s == SC_LOAD)
					load_wps[f][r] = writers_stop(w, 2) /
						((now_ns() - tl) / 1e9);
			}
			progress("barrier: %s rep %d/%ld done in %.1fs", fs[f].name,
				 r + 1, reps, (now_ns() - ts) / 1e9);
		}
		close(fd);
	}
	close(dev);
	mod_set(false);

	for (f = 0; f < nfs; f++) {
		printf("\n[2] barrier latency on %s, us as the caller sees it (%ld barriers per series;\n"
		       "    median of %ld series, +-half-range); load = 2 threads writing 4 KiB, %.0f writes/s\n",
		       fs[f].name, nbarriers, reps, summarize(load_wps[f], reps).med);
		printf("%-20s %-14s %-14s %-14s\n", "", "p50", "p99", "max");
		for (m = 0; m < NMODES; m++) {
			for (s = 0; s < NSCEN; s++) {
				char label[40];

				snprintf(label, sizeof(label), "%s, %s", mode_key[m], scen_key[s]);
				printf("%-20s", label);
				for (k = 0; k < NSTATS; k++) {
					fmt_cell(cell, sizeof(cell), lres[f][s][m][k]);
					printf(" %-14s", cell);
				}
				printf("\n");
			}
		}
	}

	bench_json_begin(&j, out);
	jw_per_fs(&j, "barrier", fs, nfs, primary, json_latency_fs);
	jw_obj(&j, "barrier_info");
	jw_str(&j, "primary_fs", fs[primary].name);
	jw_int(&j, "barriers_per_series", nbarriers);
	jw_int(&j, "reps", reps);
	return bench_json_end(&j, t0);
}

/* ---- 5b: latency vs the rate sections begin ---- */

static const long rates[] = { 0, 100, 10000 };
#define NRATES ARRAY_SIZE(rates)
static const int rmodes[] = { M_NORMAL, M_EXPEDITED };
#define NRMODES ARRAY_SIZE(rmodes)

static double rres[NRATES][NRMODES][NSTATS][MAX_REPS];
static double achieved[NRATES][MAX_REPS];

static int cmd_rate(const char *out)
{
	struct bench_fs fs[MAX_FS];
	struct vfsb_sb_stats st0, st1;
	struct writer w;
	int nfs, f, tf = -1, r, i, q, m, k, fd, ret;
	char dir[256], cell[64];
	uint64_t t0 = now_ns(), tr, ta;
	double v[NSTATS];
	struct jw j;

	nfs = bench_fs_list(fs, MAX_FS);
	for (f = 0; f < nfs; f++)
		if (!strcmp(fs[f].name, "tmpfs"))
			tf = f;
	if (tf < 0)
		tf = 0;
	setup_common();
	ret = vfsb_watch_path(dev, fs[tf].dir);
	if (ret)
		die("watch %s: %s", fs[tf].dir, strerror(-ret));
	bench_subdir(dir, sizeof(dir), fs[tf].dir, "rate");
	fd = open_dir(dir);
	progress("rate: %ld repetitions x {0,100,10000} sections/s", reps);
	for (r = 0; r < reps; r++) {
		for (i = 0; i < (int)NRATES; i++) {
			q = r & 1 ? (int)NRATES - 1 - i : i;
			tr = now_ns();
			if (rates[q])
				writers_start(&w, 1, dir, rates[q], 1);
			if (vfsb_stats_path(dev, fs[tf].dir, &st0))
				die("stats %s failed", fs[tf].dir);
			ta = now_ns();
			for (m = 0; m < (int)NRMODES; m++) {
				series(fd, rmodes[m], nbarriers, v);
				for (k = 0; k < NSTATS; k++)
					rres[q][m][k][r] = v[k];
			}
			if (vfsb_stats_path(dev, fs[tf].dir, &st1))
				die("stats %s failed", fs[tf].dir);
			achieved[q][r] = (st1.sections_begun - st0.sections_begun) /
					 ((now_ns() - ta) / 1e9);
			if (rates[q])
				writers_stop(&w, 1);
			progress("rate: rep %d/%ld %5ld/s (achieved %.0f/s) done in %.1fs",
				 r + 1, reps, rates[q], achieved[q][r],
				 (now_ns() - tr) / 1e9);
		}
	}
	close(fd);
	close(dev);
	mod_set(false);

	printf("\n[5b] barrier latency vs sections begun per second on %s (paced 1-byte writer;\n"
	       "    us, %ld barriers per series, median of %ld series, +-half-range)\n",
	       fs[tf].name, nbarriers, reps);
	printf("%-10s %-10s %-14s %-14s %-14s %-14s\n", "target/s", "achieved",
	       "normal p50", "normal p99", "exped. p50", "exped. p99");
	for (q = 0; q < (int)NRATES; q++) {
		printf("%-10ld %-10.0f", rates[q], summarize(achieved[q], reps).med);
		for (m = 0; m < (int)NRMODES; m++) {
			fmt_cell(cell, sizeof(cell), rres[q][m][S_P50]);
			printf(" %-14s", cell);
			fmt_cell(cell, sizeof(cell), rres[q][m][S_P99]);
			printf(" %-14s", cell);
		}
		printf("\n");
	}

	bench_json_begin(&j, out);
	jw_obj(&j, "section_rate");
	jw_str(&j, "fs", fs[tf].name);
	jw_int(&j, "barriers_per_series", nbarriers);
	jw_int(&j, "reps", reps);
	jw_obj(&j, "rates");
	for (q = 0; q < (int)NRATES; q++) {
		char key[64];

		snprintf(key, sizeof(key), "%ld", rates[q]);
		jw_obj(&j, key);
		jw_num(&j, "achieved_sections_per_s", summarize(achieved[q], reps).med);
		for (m = 0; m < (int)NRMODES; m++) {
			for (k = 0; k < NSTATS; k++) {
				struct summary sm = summarize(rres[q][m][k], reps);

				snprintf(key, sizeof(key), "%s_%s_us",
					 mode_key[rmodes[m]], stat_key[k]);
				jw_num(&j, key, sm.med);
				snprintf(key, sizeof(key), "%s_%s_spread_pct",
					 mode_key[rmodes[m]], stat_key[k]);
				jw_num(&j, key, spread_pct(sm));
			}
		}
		jw_end(&j);
	}
	jw_end(&j);
	return bench_json_end(&j, t0);
}

int main(int argc, char **argv)
{
	static const struct bench_cmd cmds[] = {
		{ "latency", cmd_latency },
		{ "rate", cmd_rate },
	};

	return bench_main(argc, argv, "bench_barrier", cmds, ARRAY_SIZE(cmds));
}
