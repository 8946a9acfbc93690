// SPDX-License-Identifier: GPL-2.0
/*
 * bench_overhead hooks OUT.json: how many hook callbacks each operation
 * runs, per hooked function, watched and other-watched (only another
 * filesystem watched), from a module built with VFSB_HOOK_STATS=y
 * (parameters/hook_hits: calls per hook; scripts/bench.sh builds and
 * boots one). With any other module there is nothing to count: the
 * figures are null. Each ratio of the per-op phase then comes with the
 * number of callbacks that make it.
 */
#include "common.h"
#include "bench_overhead.h"
#include "timed_ops.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HITS_PATH	"/sys/module/vfsbarrier/parameters/hook_hits"
#define MAX_HOOKS	128
#define HOOK_ITERS	1000
/* below this per operation: the system's own writes meanwhile */
#define MIN_COUNT	0.01

struct hits {
	int n;
	char sym[MAX_HOOKS][64];
	double count[MAX_HOOKS];
};

/* The module's counters now: 0, or -errno (no such parameter). */
static int hits_read(struct hits *h)
{
	char line[160];
	FILE *f = fopen(HITS_PATH, "r");

	if (!f)
		return -errno;
	h->n = 0;
	while (h->n < MAX_HOOKS && fgets(line, sizeof(line), f)) {
		unsigned long long c;

		if (sscanf(line, "%63s %llu", h->sym[h->n], &c) == 2)
			h->count[h->n++] = (double)c;
	}
	fclose(f);
	return 0;
}

/* per-op[configuration][fs][op]: after minus before, per iteration */
static struct hits per_op[2][MAX_FS][NOPS];
static struct bench_fs fs[MAX_FS];
static int nfs;
static const char *const conf_key[2] = { "watched", "other_watched" };

static void count_run(int c, int f, unsigned int o, int dirfd)
{
	struct hits before, after;
	struct hits *p = &per_op[c][f][o];
	int i;

	if (hits_read(&before))
		die("%s: %s", HITS_PATH, strerror(errno));
	if (isnan(time_op(&ops[o], dirfd, HOOK_ITERS)))
		die("hooks: %s on %s failed", ops[o].key, fs[f].name);
	if (hits_read(&after))
		die("%s: %s", HITS_PATH, strerror(errno));
	p->n = after.n;
	for (i = 0; i < after.n; i++) {
		memcpy(p->sym[i], after.sym[i], sizeof(p->sym[i]));
		p->count[i] = (after.count[i] - (i < before.n ?
						  before.count[i] : 0)) / HOOK_ITERS;
	}
}

static double total(const struct hits *p)
{
	double t = 0;
	int i;

	for (i = 0; i < p->n; i++)
		t += p->count[i];
	return t;
}

static void json_hooks_fs(struct jw *j, int f)
{
	unsigned int o;
	int c, i;

	for (o = 0; o < NOPS; o++) {
		jw_obj(j, ops[o].key);
		for (c = 0; c < 2; c++) {
			const struct hits *p = &per_op[c][f][o];

			jw_obj(j, conf_key[c]);
			jw_num(j, "total", total(p));
			for (i = 0; i < p->n; i++)
				if (p->count[i] >= MIN_COUNT)
					jw_num(j, p->sym[i], p->count[i]);
			jw_end(j);
		}
		jw_end(j);
	}
}

int cmd_hooks(const char *out)
{
	char dir[256];
	int dirfd[MAX_FS], f, c, dev, i, ret;
	unsigned int o;
	uint64_t t0 = now_ns();
	const char *other = getenv("VFSB_BENCH_OTHER");
	struct hits probe;
	struct jw j;

	nfs = bench_fs_list(fs, MAX_FS);
	if (!other || !*other)
		die("VFSB_BENCH_OTHER is not set (bench.sh sets it)");
	mod_set(true);
	if (hits_read(&probe)) {
		progress("hooks: this module counts no hook calls (built without VFSB_HOOK_STATS=y)");
		bench_json_begin(&j, out);
		jw_null(&j, "hooks_per_op");
		jw_obj(&j, "hooks_info");
		jw_str(&j, "note", "module built without VFSB_HOOK_STATS=y");
		return bench_json_end(&j, t0);
	}
	for (f = 0; f < nfs; f++) {
		bench_subdir(dir, sizeof(dir), fs[f].dir, "hooks");
		dirfd[f] = open_dir(dir);
	}
	dev = vfsb_open();
	if (dev < 0)
		die("open %s: %s", VFSB_DEVICE_PATH, strerror(-dev));
	ret = vfsb_watch_path(dev, other);
	if (ret)
		die("watch %s: %s", other, strerror(-ret));
	/* other-watched first: the hooks are in, these filesystems not watched */
	for (c = 1; c >= 0; c--) {
		if (c == 0)
			for (f = 0; f < nfs; f++) {
				ret = vfsb_watch_path(dev, fs[f].dir);
				if (ret)
					die("watch %s: %s", fs[f].dir, strerror(-ret));
			}
		for (f = 0; f < nfs; f++)
			for (o = 0; o < NOPS; o++)
				count_run(c, f, o, dirfd[f]);
	}
	close(dev);
	printf("\nhook callbacks per operation (%d iterations each)\n", HOOK_ITERS);
	for (f = 0; f < nfs; f++)
		for (o = 0; o < NOPS; o++)
			for (c = 0; c < 2; c++) {
				const struct hits *p = &per_op[c][f][o];

				printf("%-6s %-14s %-13s %5.2f:", fs[f].name, ops[o].key,
				       conf_key[c], total(p));
				for (i = 0; i < p->n; i++)
					if (p->count[i] >= MIN_COUNT)
						printf(" %s %.2f", p->sym[i], p->count[i]);
				printf("\n");
			}
	bench_json_begin(&j, out);
	jw_per_fs(&j, "hooks_per_op", fs, nfs, bench_fs_primary(fs, nfs),
		  json_hooks_fs);
	jw_obj(&j, "hooks_info");
	jw_int(&j, "iterations", HOOK_ITERS);
	jw_str(&j, "unit", "hook callbacks per operation, by hooked function");
	return bench_json_end(&j, t0);
}
