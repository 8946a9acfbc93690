// SPDX-License-Identifier: GPL-2.0
/*
 * bench_overhead scaling: the cost per operation with 0, 1, 10 and 100
 * watched superblocks (5a), and with 1 and 8 record subscribers (5c);
 * see bench_overhead.c for the method.
 */
#include "common.h"
#include "bench_overhead.h"
#include "drainer.h"
#include "timed_ops.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static long op_iters[NOPS];
static long reps;

/* ---- 5a: cost with 1, 10, 100 watched superblocks ---- */

static const int nsbs[] = { 0, 1, 10, 100 };
#define NSB ARRAY_SIZE(nsbs)
#define SB_ROOT "/mnt/bench-sb"

static double sres[NOPS][NSB][MAX_REPS];

/* 5c: subscribers on the fs under test (its only watched superblock) */
static const int nsubs[] = { 1, 8 };
#define NSUBS ARRAY_SIZE(nsubs)
static double subres[NOPS][NSUBS][MAX_REPS];
static double sublost[NOPS][NSUBS][MAX_REPS];
static double subrecs[NOPS][NSUBS][MAX_REPS];	/* per op and subscriber */
static double subbase[NOPS][MAX_REPS];	/* no subscriber, the same runs */
static long sub_reps;		/* the first sub_reps rounds measure them */
static long sub_iters[NOPS];	/* shorter runs: 8 rings take long to drain */

/* One timed run of op with n drained subscribers on path. */
static void time_subscribers(unsigned int o, int q, int r, int dirfd,
			     const char *path)
{
	struct drainer *d = drainer_start(&path, 1, nsubs[q],
					  ring_for(&ops[o], sub_iters[o]), 0);
	struct rec_count cnt;
	uint64_t last;

	subres[o][q][r] = time_op(&ops[o], dirfd, sub_iters[o]);
	do {
		last = drainer_seen(d);
		usleep(20000);
	} while (drainer_seen(d) != last);
	drainer_stop(d, &cnt);
	sublost[o][q][r] = (double)cnt.lost;
	subrecs[o][q][r] = (double)cnt.changes / sub_iters[o] / nsubs[q];
	if (cnt.lost)
		progress("warning: %d subscribers, %s: %llu records lost",
			 nsubs[q], ops[o].key, (unsigned long long)cnt.lost);
	/* the subscribers' devices are gone: one tracking, one device */
	mod_wait_refcnt(2);
}

/*
 * Watches or unwatches the superblocks path[have..want) so that the
 * first want are watched, then waits until the unwatched ones' tracking
 * is freed (work items in the background would disturb the next run).
 */
static void watch_n(int dev, char path[][64], int *have, int want)
{
	int ret;

	for (; *have < want; (*have)++) {
		ret = vfsb_watch_path(dev, path[*have]);
		if (ret)
			die("watch %s: %s", path[*have], strerror(-ret));
	}
	for (; *have > want; (*have)--) {
		ret = vfsb_unwatch_path(dev, path[*have - 1]);
		if (ret)
			die("unwatch %s: %s", path[*have - 1], strerror(-ret));
	}
	/* one reference per tracking, one for the open device */
	mod_wait_refcnt(want + 1);
}

int cmd_scaling(const char *out)
{
	struct bench_fs fs[MAX_FS];
	int nfs, f, tf = -1, r, i, k, dev, dirfd;
	unsigned int o;
	char dir[256], path[100][64];
	struct jw j;
	uint64_t t0 = now_ns();
	char b1[32], b2[32], cell[40];

	nfs = bench_fs_list(fs, MAX_FS);
	for (f = 0; f < nfs; f++)
		if (!strcmp(fs[f].name, "tmpfs"))
			tf = f;
	if (tf < 0)
		die("scaling needs a tmpfs in VFSB_BENCH_FS");
	reps = bench_env_in("VFSB_BENCH_REPS", 10, 2, LONG_MIN, MAX_REPS);
	/* 8 subscribers' records take a while to drain: fewer rounds */
	sub_reps = bench_env("VFSB_BENCH_SUB_REPS", 4, 2);
	bench_subdir(dir, sizeof(dir), fs[tf].dir, "scaling");
	dirfd = open_dir(dir);

	/* the fs under test is superblock #1; 99 more small tmpfs mounts */
	snprintf(path[0], sizeof(path[0]), "%s", fs[tf].dir);
	mkdir(SB_ROOT, 0755);
	for (k = 1; k < 100; k++) {
		snprintf(path[k], sizeof(path[k]), SB_ROOT "/%d", k);
		mkdir(path[k], 0755);
		if (mount("tmpfs", path[k], "tmpfs", 0, "size=1m"))
			die("mount %s: %s", path[k], strerror(errno));
	}
	for (o = 0; o < NOPS; o++)
		for (i = 0; i < (int)NSB; i++)
			for (r = 0; r < MAX_REPS; r++)
				sres[o][i][r] = NAN;
	for (o = 0; o < NOPS; o++)
		for (i = 0; i < (int)NSUBS; i++)
			for (r = 0; r < MAX_REPS; r++)
				subres[o][i][r] = sublost[o][i][r] = subrecs[o][i][r] = NAN;
	for (o = 0; o < NOPS; o++)
		for (r = 0; r < MAX_REPS; r++)
			subbase[o][r] = NAN;

	pin_cpu(0);
	mod_set(true);
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		op_iters[o] = calibrated_iters(&ops[o], dirfd);
		sub_iters[o] = bench_env("VFSB_BENCH_SUB_ITERS", 8000, 8000);
		if (sub_iters[o] > op_iters[o] || sub_iters[o] < 1)
			sub_iters[o] = op_iters[o];
	}
	progress("scaling: %ld rounds x {0,1,10,100} watched superblocks, {1,8} subscribers in %ld of them",
		 reps, sub_reps < reps ? sub_reps : reps);
	/*
	 * Per round: 0 watched (no hooks) for every op; then, hooks
	 * registered once, 1, 10 and 100 watched back to back for each op
	 * (forwards, then backwards for the next op). Rounds alternate
	 * which half comes first.
	 */
	for (r = 0; r < reps; r++) {
		uint64_t tc = now_ns();
		int g, have, seq = 0;

		for (g = 0; g < 2; g++) {
			if (!((g ^ r) & 1)) {
				for (o = 0; o < NOPS; o++)
					if (ops[o].scaling)
						sres[o][0][r] = time_op(&ops[o], dirfd,
									op_iters[o]);
				continue;
			}
			dev = dev_open();
			have = 0;
			watch_n(dev, path, &have, 1);
			sleep_ns(1000000000ull);	/* as in cmd_overhead */
			for (o = 0; o < NOPS; o++) {
				if (!ops[o].scaling)
					continue;
				for (k = 1; k < (int)NSB; k++) {
					int w = seq & 1 ? (int)NSB - k : k;

					watch_n(dev, path, &have, nsbs[w]);
					sres[o][w][r] = time_op(&ops[o], dirfd,
								op_iters[o]);
				}
				/*
				 * then none, 1 and 8 subscribers (or backwards),
				 * 1 watched: the fs under test
				 */
				watch_n(dev, path, &have, 1);
				if (r < sub_reps && !(seq & 1))
					subbase[o][r] = time_op(&ops[o], dirfd, sub_iters[o]);
				for (k = 0; r < sub_reps && k < (int)NSUBS; k++)
					time_subscribers(o, seq & 1 ? (int)NSUBS - 1 - k : k,
							 r, dirfd, path[0]);
				if (r < sub_reps && (seq & 1))
					subbase[o][r] = time_op(&ops[o], dirfd, sub_iters[o]);
				seq++;
			}
			close(dev);
			/* until every tracking is freed and the hooks are gone */
			mod_wait_refcnt(0);
		}
		progress("scaling: round %d/%ld done in %.1fs", r + 1, reps,
			 (now_ns() - tc) / 1e9);
	}
	close(dirfd);
	mod_set(false);
	for (k = 1; k < 100; k++)
		umount2(path[k], MNT_DETACH);

	printf("\n[5a] cost vs number of watched superblocks (%s; the fs under test is one of them)\n"
	       "    ns/op with 0 watched (module loaded, no hooks), others as ratio to 0 watched;\n"
	       "    \"100 vs 1\" = ratio of 100 to 1 watched (measured back to back); median of %ld rounds, +-half-range\n",
	       fs[tf].name, reps);
	printf("%-15s %-10s", "op", "iterations");
	for (k = 0; k < (int)NSB; k++) {
		snprintf(cell, sizeof(cell), "%d watched", nsbs[k]);
		printf(" %-14s", cell);
	}
	printf(" %-14s\n", "100 vs 1");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		printf("%-15s %-10ld", ops[o].label, op_iters[o]);
		for (k = 0; k < (int)NSB; k++) {
			double rr[MAX_REPS];
			struct summary s;

			for (r = 0; r < reps; r++)
				rr[r] = sres[o][k][r] / sres[o][0][r];
			s = k ? summarize(rr, reps) : summarize(sres[o][0], reps);
			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, k ? 3 : 0),
				 fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s", cell);
		}
		{
			struct summary s = ratio_summary(sres[o][NSB - 1], sres[o][1], reps);

			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, 3), fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s\n", cell);
		}
	}

	printf("\n[5c] cost vs number of record subscribers (%s, its only watched superblock; each\n"
	       "    subscriber its own open device and a 1-8 MiB ring for the run's records, all drained\n"
	       "    by one thread on CPU 1)\n"
	       "    ratios to 1 watched without subscribers (same round, same iterations); \"8 vs 1\" =\n"
	       "    8 over 1 subscriber; median of the first %ld rounds, +-half-range\n",
	       fs[tf].name, sub_reps < reps ? sub_reps : reps);
	printf("%-15s %-10s %-10s %-14s %-14s %-14s %-14s\n", "op", "iterations",
	       "0 subs ns", "1 subscriber", "8 subscribers", "8 vs 1", "recs/op/sub,lost");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		printf("%-15s %-10ld %-10s", ops[o].label, sub_iters[o],
		       fmt_num(b1, summarize(subbase[o], reps).med, 0));
		for (k = 0; k < (int)NSUBS; k++) {
			struct summary s = ratio_summary(subres[o][k], subbase[o], reps);

			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, 3), fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s", cell);
		}
		{
			struct summary s = ratio_summary(subres[o][1], subres[o][0], reps);
			double l = sum_valid(sublost[o][0], reps) + sum_valid(sublost[o][1], reps);

			snprintf(cell, sizeof(cell), "%s +-%s%%",
				 fmt_num(b1, s.med, 3), fmt_num(b2, spread_pct(s), 1));
			printf(" %-14s", cell);
			snprintf(cell, sizeof(cell), "%s/%s%s",
				 fmt_num(b1, summarize(subrecs[o][1], reps).med, 2),
				 fmt_num(b2, l, 0), l > 0 ? " LOST" : "");
			printf(" %-14s\n", cell);
		}
	}

	bench_json_begin(&j, out);
	jw_obj(&j, "subscribers");
	jw_str(&j, "fs", fs[tf].name);
	jw_int(&j, "reps", sub_reps < reps ? sub_reps : reps);
	jw_obj(&j, "ops");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		jw_obj(&j, ops[o].key);
		jw_int(&j, "iterations", sub_iters[o]);
		jw_int(&j, "ring_bytes", ring_for(&ops[o], sub_iters[o]));
		jw_num(&j, "watched_1_ns", summarize(subbase[o], reps).med);
		for (k = 0; k < (int)NSUBS; k++) {
			char key[48];
			struct summary sm = ratio_summary(subres[o][k], subbase[o], reps);

			snprintf(key, sizeof(key), "subscribers_%d_ns", nsubs[k]);
			jw_num(&j, key, summarize(subres[o][k], reps).med);
			snprintf(key, sizeof(key), "ratio_%d_vs_watched_1", nsubs[k]);
			jw_num(&j, key, sm.med);
			snprintf(key, sizeof(key), "ratio_%d_vs_watched_1_spread_pct", nsubs[k]);
			jw_num(&j, key, spread_pct(sm));
			snprintf(key, sizeof(key), "records_per_op_per_subscriber_%d", nsubs[k]);
			jw_num(&j, key, summarize(subrecs[o][k], reps).med);
			snprintf(key, sizeof(key), "records_lost_%d", nsubs[k]);
			jw_num(&j, key, sum_valid(sublost[o][k], reps));
		}
		{
			struct summary sm = ratio_summary(subres[o][1], subres[o][0], reps);

			jw_num(&j, "growth_8_vs_1", sm.med);
			jw_num(&j, "growth_8_vs_1_spread_pct", spread_pct(sm));
		}
		jw_end(&j);
	}
	jw_end(&j);
	jw_end(&j);
	jw_obj(&j, "watched_sbs");
	jw_str(&j, "fs", fs[tf].name);
	jw_int(&j, "reps", reps);
	jw_obj(&j, "ops");
	for (o = 0; o < NOPS; o++) {
		if (!ops[o].scaling)
			continue;
		jw_obj(&j, ops[o].key);
		jw_int(&j, "iterations", op_iters[o]);
		for (k = 0; k < (int)NSB; k++) {
			char key[32];

			snprintf(key, sizeof(key), "watched_%d_ns", nsbs[k]);
			jw_num(&j, key, summarize(sres[o][k], reps).med);
		}
		for (k = 1; k < (int)NSB; k++) {
			double rr[MAX_REPS];
			char key[32];
			struct summary s;

			for (r = 0; r < reps; r++)
				rr[r] = sres[o][k][r] / sres[o][0][r];
			s = summarize(rr, reps);
			snprintf(key, sizeof(key), "ratio_%d", nsbs[k]);
			jw_num(&j, key, s.med);
			snprintf(key, sizeof(key), "ratio_%d_spread_pct", nsbs[k]);
			jw_num(&j, key, spread_pct(s));
		}
		/* growth: against 1 watched, measured back to back */
		for (k = 2; k < (int)NSB; k++) {
			struct summary s = ratio_summary(sres[o][k], sres[o][1], reps);
			char key[32];

			snprintf(key, sizeof(key), "growth_%d_vs_1", nsbs[k]);
			jw_num(&j, key, s.med);
			snprintf(key, sizeof(key), "growth_%d_vs_1_spread_pct", nsbs[k]);
			jw_num(&j, key, spread_pct(s));
		}
		jw_end(&j);
	}
	jw_end(&j);
	return bench_json_end(&j, t0);
}
