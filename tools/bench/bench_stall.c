// SPDX-License-Identifier: GPL-2.0
/*
 * Writer stall (issue item 3): the latency of each 4 KiB pwrite() of a
 * writer thread on a watched fs while another thread, on the other CPU,
 *   - does nothing (baseline),
 *   - issues barriers back to back (normal, then expedited, as separate
 *     scenarios),
 *   - freezes and thaws the fs back to back (FIFREEZE/FITHAW; ext4 only,
 *     tmpfs cannot freeze).
 *
 *   bench_stall stall OUT.json
 *
 * Scenarios run in ABBA order over the repetitions; each run gives a
 * p50, p99 and max of its writes, and a figure is the median over the
 * repetitions (ratios: the median of per-repetition ratios).
 *
 * A write under FIFREEZE/FITHAW takes milliseconds (it waits for the
 * thaw), against tens of microseconds otherwise: that series times fewer
 * writes per run (VFSB_BENCH_STALL_FREEZE_WRITES), or it alone would
 * take most of the benchmark's time while its p99 is far off anyway.
 */
#include "common.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MAX_FS 4
#define MAX_REPS 32

enum { SC_BASE, SC_BARRIER, SC_EXPEDITED, SC_FREEZE, NSCEN };
static const char *scen_key[NSCEN] = { "baseline", "barrier", "expedited_barrier", "fsfreeze" };
static const char *scen_label[NSCEN] = { "no barriers", "barrier storm", "expedited storm", "FIFREEZE/FITHAW" };
enum { S_P50, S_P99, S_MAX, NSTATS };
static const char *stat_key[NSTATS] = { "p50", "p99", "max" };

static long reps, nwrites, nwrites_freeze;
static int dev;

struct disturber {
	pthread_t th;
	int scen;
	int fd;			/* the fs root */
	volatile bool stop;
	uint64_t count;
};

static void *disturber_main(void *arg)
{
	struct disturber *d = arg;
	int ret;

	pin_cpu(1);
	while (!d->stop) {
		switch (d->scen) {
		case SC_BARRIER:
		case SC_EXPEDITED:
			ret = vfsb_barrier_fd(dev, d->fd, d->scen == SC_EXPEDITED ?
					      VFSB_BARRIER_EXPEDITED : 0, 0, NULL);
			if (ret)
				die("barrier: %s", strerror(-ret));
			break;
		case SC_FREEZE:
			if (ioctl(d->fd, FIFREEZE, 0))
				die("FIFREEZE: %s", strerror(errno));
			if (ioctl(d->fd, FITHAW, 0))
				die("FITHAW: %s", strerror(errno));
			break;
		}
		d->count++;
	}
	return NULL;
}

/* One run: nwrites timed writes; stats in us; disturbances per second. */
static void run(const char *dir, int rootfd, int scen, double out[NSTATS],
		double *rate)
{
	static uint64_t lat[1 << 20];
	static char buf[4096];
	struct disturber d = { .scen = scen, .fd = rootfd };
	char path[512];
	long i, n = scen == SC_FREEZE ? nwrites_freeze : nwrites;
	uint64_t t0, t1, ts;
	int fd;

	snprintf(path, sizeof(path), "%s/stall", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	memset(buf, 's', sizeof(buf));
	for (i = 0; i < 256; i++)
		if (pwrite(fd, buf, 4096, i * 4096) != 4096)
			die("prefill: %s", strerror(errno));
	sync();
	if (scen != SC_BASE) {
		if (pthread_create(&d.th, NULL, disturber_main, &d))
			die("pthread_create failed");
		usleep(50000);
	}
	ts = now_ns();
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		if (pwrite(fd, buf, 4096, (i % 256) * 4096) != 4096)
			die("write: %s", strerror(errno));
		t1 = now_ns();
		lat[i] = t1 - t0;
	}
	ts = now_ns() - ts;
	if (scen != SC_BASE) {
		d.stop = true;
		pthread_join(d.th, NULL);
	}
	close(fd);
	unlink(path);
	sort_u64(lat, n);
	out[S_P50] = pct_u64(lat, n, 50) / 1e3;
	out[S_P99] = pct_u64(lat, n, 99) / 1e3;
	out[S_MAX] = lat[n - 1] / 1e3;
	*rate = d.count / (ts / 1e9);
}

static double sres[MAX_FS][NSCEN][NSTATS][MAX_REPS];
static double srate[MAX_FS][NSCEN][MAX_REPS];
static bool can_freeze[MAX_FS];

static struct summary ratio(int f, int sc, int st)
{
	double r[MAX_REPS];
	int i;

	for (i = 0; i < reps; i++)
		r[i] = sres[f][sc][st][i] / sres[f][SC_BASE][st][i];
	return summarize(r, reps);
}

static void json_stall_fs(struct jw *j, int f)
{
	char key[64];
	int s, k;

	/* the names: baseline/barrier/fsfreeze x p99/max */
	for (k = S_P99; k <= S_MAX; k++)
		for (s = 0; s < NSCEN; s++) {
			snprintf(key, sizeof(key), "%s_%s_us", scen_key[s], stat_key[k]);
			jw_num(j, key, summarize(sres[f][s][k], reps).med);
		}
	for (s = 0; s < NSCEN; s++) {
		snprintf(key, sizeof(key), "%s_p50_us", scen_key[s]);
		jw_num(j, key, summarize(sres[f][s][S_P50], reps).med);
	}
	jw_obj(j, "p99_ratio");
	for (s = 1; s < NSCEN; s++)
		jw_num(j, scen_key[s], ratio(f, s, S_P99).med);
	jw_end(j);
	jw_obj(j, "p99_ratio_spread_pct");
	for (s = 1; s < NSCEN; s++)
		jw_num(j, scen_key[s], spread_pct(ratio(f, s, S_P99)));
	jw_end(j);
	jw_obj(j, "spread_pct");
	for (s = 0; s < NSCEN; s++) {
		jw_obj(j, scen_key[s]);
		for (k = 0; k < NSTATS; k++)
			jw_num(j, stat_key[k], spread_pct(summarize(sres[f][s][k], reps)));
		jw_end(j);
	}
	jw_end(j);
	jw_obj(j, "disturbances_per_s");
	for (s = 1; s < NSCEN; s++)
		jw_num(j, scen_key[s], summarize(srate[f][s], reps).med);
	jw_end(j);
	if (!can_freeze[f])
		jw_str(j, "fsfreeze_note", "this fs cannot freeze (FIFREEZE: EOPNOTSUPP)");
}

static int cmd_stall(const char *out)
{
	struct bench_fs fs[MAX_FS];
	int nfs, f, r, i, s, k, rootfd, primary, ret, order[NSCEN], n;
	double v[NSTATS], rate;
	char dir[256], cell[64], b1[32], b2[32];
	uint64_t t0 = now_ns(), tr;
	struct jw j;

	nfs = bench_fs_list(fs, MAX_FS);
	primary = bench_fs_primary(fs, nfs);
	reps = bench_env_in("VFSB_BENCH_STALL_REPS", 8, 2, LONG_MIN, MAX_REPS);
	nwrites = bench_env_in("VFSB_BENCH_STALL_WRITES", 20000, 1000, 1, 1 << 20);
	nwrites_freeze = bench_env_in("VFSB_BENCH_STALL_FREEZE_WRITES", 1000, 200,
				      100, nwrites);
	for (f = 0; f < MAX_FS; f++)
		for (s = 0; s < NSCEN; s++)
			for (k = 0; k < NSTATS; k++)
				for (r = 0; r < MAX_REPS; r++)
					sres[f][s][k][r] = NAN;
	mod_set(true);
	dev = dev_open();
	for (f = 0; f < nfs; f++) {
		ret = vfsb_watch_path(dev, fs[f].dir);
		if (ret)
			die("watch %s: %s", fs[f].dir, strerror(-ret));
	}
	pin_cpu(0);
	progress("stall: %ld repetitions x %ld writes per run (FIFREEZE series: %ld)",
		 reps, nwrites, nwrites_freeze);
	for (f = 0; f < nfs; f++) {
		bench_subdir(dir, sizeof(dir), fs[f].dir, "stall");
		rootfd = open(fs[f].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rootfd < 0)
			die("open %s: %s", fs[f].dir, strerror(errno));
		can_freeze[f] = !ioctl(rootfd, FIFREEZE, 0);
		if (can_freeze[f] && ioctl(rootfd, FITHAW, 0))
			die("FITHAW: %s", strerror(errno));
		n = 0;
		for (s = 0; s < NSCEN; s++)
			if (s != SC_FREEZE || can_freeze[f])
				order[n++] = s;
		for (r = 0; r < reps; r++) {
			tr = now_ns();
			for (i = 0; i < n; i++) {
				s = order[r & 1 ? n - 1 - i : i];
				run(dir, rootfd, s, v, &rate);
				for (k = 0; k < NSTATS; k++)
					sres[f][s][k][r] = v[k];
				srate[f][s][r] = rate;
			}
			progress("stall: %s rep %d/%ld done in %.1fs", fs[f].name,
				 r + 1, reps, (now_ns() - tr) / 1e9);
		}
		close(rootfd);
	}
	close(dev);
	mod_set(false);

	for (f = 0; f < nfs; f++) {
		printf("\n[3] writer stall on %s: per-write latency of 4 KiB pwrite() in us while another\n"
		       "    thread does X (%ld writes per run, %ld under FIFREEZE; median of %ld runs, +-half-range;\n"
		       "    p99 ratio to no barriers)\n",
		       fs[f].name, nwrites, nwrites_freeze, reps);
		printf("%-17s %-12s %-12s %-14s %-14s %-12s\n", "X", "p50", "p99",
		       "max", "p99 ratio", "X per s");
		for (s = 0; s < NSCEN; s++) {
			if (s == SC_FREEZE && !can_freeze[f]) {
				printf("%-17s n/a (%s cannot freeze)\n", scen_label[s], fs[f].name);
				continue;
			}
			printf("%-17s", scen_label[s]);
			for (k = 0; k < NSTATS; k++) {
				struct summary sm = summarize(sres[f][s][k], reps);

				snprintf(cell, sizeof(cell), "%s +-%s%%",
					 fmt_num(b1, sm.med, k == S_MAX ? 0 : 1),
					 fmt_num(b2, spread_pct(sm), 0));
				printf(" %-12s", cell);
			}
			if (s) {
				struct summary sm = ratio(f, s, S_P99);

				snprintf(cell, sizeof(cell), "%s +-%s%%",
					 fmt_num(b1, sm.med, 3),
					 fmt_num(b2, spread_pct(sm), 0));
			} else {
				snprintf(cell, sizeof(cell), "1");
			}
			printf(" %-14s %-12s\n", cell, s ?
			       fmt_num(b1, summarize(srate[f][s], reps).med, 0) : "-");
		}
	}

	bench_json_begin(&j, out);
	jw_per_fs(&j, "writer_stall", fs, nfs, primary, json_stall_fs);
	jw_obj(&j, "writer_stall_info");
	jw_str(&j, "primary_fs", fs[primary].name);
	jw_int(&j, "writes_per_run", nwrites);
	jw_int(&j, "fsfreeze_writes_per_run", nwrites_freeze);
	jw_int(&j, "reps", reps);
	return bench_json_end(&j, t0);
}

int main(int argc, char **argv)
{
	static const struct bench_cmd cmds[] = {
		{ "stall", cmd_stall },
	};

	return bench_main(argc, argv, "bench_stall", cmds, ARRAY_SIZE(cmds));
}
