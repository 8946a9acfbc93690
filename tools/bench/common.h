/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the vfsbarrier benchmark programs (see BENCHMARKS.md):
 * clocks, statistics, module load/unload by syscall, the device's
 * ioctls, CPU pinning, the filesystems under test, and a small JSON
 * writer. Each program prints progress lines on stderr, its part of the
 * results table on stdout and its part of results.json into a file.
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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- setup ---- */

extern int bench_quick;		/* VFSB_BENCH_QUICK=1: tiny loop counts */

/* Reads the environment, line-buffers stdout, names the progress lines. */
void bench_init(const char *prog);
/* A number from the environment (quick/full defaults when unset). */
long bench_env(const char *name, long full, long quick);
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

/* ---- the module and its device ---- */

bool mod_loaded(void);
/* Loads or unloads vfsbarrier.ko ($VFSB_KO); dies when it cannot. */
void mod_set(bool loaded);
/* Waits (up to 60 s) until the module's reference count is n. */
void mod_wait_refcnt(int n);
int dev_open(void);		/* dies on failure */
int dev_watch(int dev, const char *path);	/* 0 or -errno */
int dev_unwatch(int dev, const char *path);
int dev_barrier(int dev, int fd, uint32_t flags);
/* Counters of the superblock of path; 0 or -errno. */
int dev_stats(int dev, const char *path, struct vfsb_sb_stats *out);
const char *mod_version(int dev);	/* "" when unknown */

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
void rec_count_buf(const void *buf, size_t len, struct rec_count *c);

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

/* ---- JSON ---- */

/*
 * Streaming writer with comma bookkeeping. Keys are NULL inside arrays.
 * Numbers that are NAN are written as null (a figure not measured).
 */
struct jw {
	FILE *f;
	int depth;
	bool first[32];
};

void jw_open(struct jw *j, const char *path);
void jw_close(struct jw *j);
void jw_obj(struct jw *j, const char *key);
void jw_arr(struct jw *j, const char *key);
void jw_end(struct jw *j);	/* closes the innermost object or array */
void jw_end_arr(struct jw *j);
void jw_num(struct jw *j, const char *key, double v);
void jw_int(struct jw *j, const char *key, long long v);
void jw_str(struct jw *j, const char *key, const char *s);
void jw_null(struct jw *j, const char *key);
void jw_bool(struct jw *j, const char *key, bool v);

/* "1.234" or "n/a" for the table; buf must hold 32 bytes. */
const char *fmt_num(char *buf, double v, int prec);

#endif /* VFSB_BENCH_COMMON_H */
