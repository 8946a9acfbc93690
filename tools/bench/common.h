/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the vfsbarrier benchmark programs (see BENCHMARKS.md):
 * clocks, statistics, the module and the device (libvfsb, with the
 * benchmarks' policy: die on failure), CPU pinning, the filesystems
 * under test, JSON files, and main(). Each program prints progress lines
 * on stderr, its part of the results table on stdout and its part of
 * results.json into a file.
 */
#ifndef VFSB_BENCH_COMMON_H
#define VFSB_BENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/vfsbarrier.h>

#include "vfsb.h"
#include "jw.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- setup ---- */

extern int bench_quick;		/* VFSB_BENCH_QUICK=1: tiny loop counts */

/* Reads the environment, line-buffers stdout, names the progress lines. */
void bench_init(const char *prog);
/* A number from the environment (quick/full defaults when unset). */
long bench_env(const char *name, long full, long quick);
/* The same, kept within [min, max] (max first: min wins a conflict). */
long bench_env_in(const char *name, long full, long quick, long min, long max);
/* "bench[prog] +12s: ..." on stderr: the run's live progress. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

uint64_t now_ns(void);
void sleep_ns(uint64_t ns);
/* Pins the calling thread to cpu modulo the CPUs present. */
void pin_cpu(int cpu);
int cpu_count(void);

/* ---- statistics ---- */

/* One figure over repetitions: median and range. */
struct summary {
	double med, min, max;
	int n;
};

struct summary summarize(const double *v, int n);
/* Half the range as a percentage of the median (NAN when undefined). */
double spread_pct(struct summary s);
void sort_u64(uint64_t *v, size_t n);
/* Nearest-rank percentile (0 < p <= 100) of sorted values. */
uint64_t pct_u64(const uint64_t *sorted, size_t n, double p);
/* The summary of the n per-round ratios v[i] / base[i]. */
struct summary ratio_summary(const double *v, const double *base, int n);
/* Sum of the n values that are not NAN (NAN when none is a number). */
double sum_valid(const double *v, int n);

/* ---- the module and its device (libvfsb, and die on failure) ---- */

/* Loads or unloads vfsbarrier.ko ($VFSB_KO); dies when it cannot. */
void mod_set(bool loaded);
/* Waits (up to 60 s) until the module's reference count is n. */
void mod_wait_refcnt(int n);
int dev_open(void);		/* dies on failure */
/* A directory opened O_RDONLY (for the *at() calls); dies on failure. */
int open_dir(const char *dir);

/* ---- the record stream ---- */

/*
 * A new subscriber: opens the device (O_NONBLOCK), subscribes with this
 * ring size (0: default) and VFSB_SUB_* flags, then watches each path's
 * superblock. Dies on failure.
 */
int sub_open(const char *const *paths, int npaths, uint32_t ring_bytes,
	     uint32_t flags);

/* What a run of read() buffers held. */
struct rec_count {
	uint64_t changes;	/* VFSB_REC_CHANGE records */
	uint64_t creates;	/* of which VFSB_R_CREATE */
	uint64_t overflows;	/* VFSB_REC_OVERFLOW records */
	uint64_t lost;		/* the records they say were lost */
	uint64_t bytes;		/* of change records */
};

/* Adds the whole records in buf (one read()'s worth) to c. */
void rec_count_buf(void *buf, size_t len, struct rec_count *c);

/* ---- filesystems under test ---- */

/*
 * $VFSB_BENCH_FS lists them, "name:dir name:dir" (bench.sh mounts
 * them); the first ext4 one is the primary one that the top-level JSON
 * figures come from, tmpfs when there is none.
 */
struct bench_fs {
	char name[16];
	char dir[128];
};

int bench_fs_list(struct bench_fs *fs, int max);
int bench_fs_primary(const struct bench_fs *fs, int n);
/* dir/sub, created empty-ish (existing content is left alone). */
void bench_subdir(char *out, size_t len, const char *dir, const char *sub);

/* ---- JSON (jw.h, in libvfsb), written to a file ---- */

/*
 * A program's part of results.json is one object of top-level members
 * (bench.sh merges the files): begin opens out and that object; end
 * adds "seconds" since t0 to the object open then (the phase's info),
 * closes it and the top-level one, and the file. Both die on failure.
 */
void bench_json_begin(struct jw *j, const char *out);
int bench_json_end(struct jw *j, uint64_t t0);
/*
 * The figures of each filesystem under test, as members "key" (the
 * primary one's) and "key_by_fs" (an object per filesystem, by name);
 * emit(j, f) writes the members of filesystem f's object.
 */
void jw_per_fs(struct jw *j, const char *key, const struct bench_fs *fs,
	       int nfs, int primary, void (*emit)(struct jw *j, int f));

/* ---- the programs' main() ---- */

struct bench_cmd {
	const char *name;
	int (*run)(const char *out_json);
};

/* "PROG COMMAND OUT.json": runs the command named; dies on bad usage. */
int bench_main(int argc, char **argv, const char *prog,
	       const struct bench_cmd *cmds, int ncmds);

/* "1.234" or "n/a" for the table; buf must hold 32 bytes. */
const char *fmt_num(char *buf, double v, int prec);

#endif /* VFSB_BENCH_COMMON_H */
