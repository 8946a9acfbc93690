// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the benchmark programs; see common.h. */
#include "common.h"

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int bench_quick;
static const char *bench_prog = "bench";
static uint64_t bench_t0;

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull,
			       .tv_nsec = ns % 1000000000ull };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void bench_init(const char *prog)
{
	const char *q = getenv("VFSB_BENCH_QUICK");

	bench_prog = prog;
	bench_quick = q && *q && strcmp(q, "0");
	bench_t0 = now_ns();
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IOLBF, 0);
}

long bench_env(const char *name, long full, long quick)
{
	const char *v = getenv(name);

	if (v && *v)
		return strtol(v, NULL, 0);
	return bench_quick ? quick : full;
}

long bench_env_in(const char *name, long full, long quick, long min, long max)
{
	long v = bench_env(name, full, quick);

	if (v > max)
		v = max;
	if (v < min)
		v = min;
	return v;
}

void progress(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bench[%s] +%llus: ", bench_prog,
		(unsigned long long)((now_ns() - bench_t0) / 1000000000ull));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bench[%s]: FATAL: ", bench_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

int cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % cpu_count(), &set);
	sched_setaffinity(0, sizeof(set), &set);	/* best effort */
}

/* ---- statistics ---- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct summary summarize(const double *v, int n)
{
	struct summary s = { NAN, NAN, NAN, 0 };
	double t[256];
	int i, m = 0;

	for (i = 0; i < n && m < (int)ARRAY_SIZE(t); i++)
		if (!isnan(v[i]))
			t[m++] = v[i];
	if (!m)
		return s;
	qsort(t, m, sizeof(*t), cmp_d);
	s.n = m;
	s.min = t[0];
	s.max = t[m - 1];
	s.med = m & 1 ? t[m / 2] : (t[m / 2 - 1] + t[m / 2]) / 2;
	return s;
}

double spread_pct(struct summary s)
{
	if (s.n < 1 || isnan(s.med) || s.med == 0)
		return NAN;
	return (s.max - s.min) / 2 / s.med * 100;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t pct_u64(const uint64_t *sorted, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (size_t)ceil(p / 100 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

struct summary ratio_summary(const double *v, const double *base, int n)
{
	double r[256];
	int i;

	for (i = 0; i < n && i < (int)ARRAY_SIZE(r); i++)
		r[i] = v[i] / base[i];
	return summarize(r, i);
}

double sum_valid(const double *v, int n)
{
	double t = 0;
	int i, m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i])) {
			t += v[i];
			m++;
		}
	return m ? t : NAN;
}

/* ---- module and device ---- */

void mod_set(bool loaded)
{
	int i, ret;

	if (loaded == vfsb_module_loaded())
		return;
	if (loaded) {
		ret = vfsb_module_load();
		if (ret && ret != -EEXIST)
			die("load %s: %s", vfsb_module_path(), strerror(-ret));
		/* devtmpfs creates the node asynchronously */
		vfsb_wait_device(5000);
		return;
	}
	/*
	 * The last unwatch frees its tracking from a work item after an
	 * RCU and an SRCU grace period; the module is busy until then.
	 */
	for (i = 0; i < 3000; i++) {
		ret = vfsb_module_unload();
		if (!ret || ret == -ENOENT)
			return;
		if (ret != -EWOULDBLOCK && ret != -EBUSY && ret != -EAGAIN)
			break;
		usleep(10000);
	}
	die("delete_module: %s", strerror(-ret));
}

void mod_wait_refcnt(int n)
{
	int cur = vfsb_module_wait_refcnt(n, 60000);

	if (cur > n)
		progress("module refcnt stays %d, expected %d", cur, n);
}

int dev_open(void)
{
	int fd = vfsb_open();

	if (fd < 0)
		die("open %s: %s", VFSB_DEVICE_PATH, strerror(-fd));
	return fd;
}

int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", dir, strerror(errno));
	return fd;
}

/* ---- the record stream ---- */

int sub_open(const char *const *paths, int npaths, uint32_t ring_bytes,
	     uint32_t flags)
{
	int fd, i, ret;

	fd = vfsb_open_flags(O_NONBLOCK);
	if (fd < 0)
		die("open %s: %s", VFSB_DEVICE_PATH, strerror(-fd));
	ret = vfsb_subscribe(fd, ring_bytes, 0, flags, NULL);
	if (ret)
		die("SUBSCRIBE: %s", strerror(-ret));
	for (i = 0; i < npaths; i++) {
		ret = vfsb_watch_path(fd, paths[i]);
		if (ret)
			die("watch %s: %s", paths[i], strerror(-ret));
	}
	return fd;
}

void rec_count_buf(void *buf, size_t len, struct rec_count *c)
{
	const struct vfsb_record *r;
	size_t off;

	for (off = 0; (r = vfsb_rec_at(buf, len, off)); off += r->size) {
		if (r->type == VFSB_REC_OVERFLOW) {
			c->overflows++;
			c->lost += r->lost;
		} else if (r->type == VFSB_REC_CHANGE) {
			c->changes++;
			c->bytes += r->size;
			if (r->reasons & VFSB_R_CREATE)
				c->creates++;
		}
	}
	if (off != len)
		die("read() returned a malformed record at offset %zu of %zu",
		    off, len);
}

/* ---- filesystems ---- */

int bench_fs_list(struct bench_fs *fs, int max)
{
	const char *env = getenv("VFSB_BENCH_FS");
	char buf[1024], *tok, *save, *colon;
	int n = 0;

	if (!env || !*env)
		die("VFSB_BENCH_FS is not set (bench.sh sets it)");
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, " ", &save); tok && n < max;
	     tok = strtok_r(NULL, " ", &save)) {
		colon = strchr(tok, ':');
		if (!colon)
			die("VFSB_BENCH_FS: bad entry %s", tok);
		*colon = 0;
		snprintf(fs[n].name, sizeof(fs[n].name), "%s", tok);
		snprintf(fs[n].dir, sizeof(fs[n].dir), "%s", colon + 1);
		n++;
	}
	if (!n)
		die("VFSB_BENCH_FS lists no filesystem");
	return n;
}

int bench_fs_primary(const struct bench_fs *fs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(fs[i].name, "ext4"))
			return i;
	return 0;
}

void bench_subdir(char *out, size_t len, const char *dir, const char *sub)
{
	snprintf(out, len, "%s/%s", dir, sub);
	if (mkdir(out, 0755) && errno != EEXIST)
		die("mkdir %s: %s", out, strerror(errno));
}

/* ---- JSON ---- */

void bench_json_begin(struct jw *j, const char *out)
{
	int ret = jw_open(j, out, false);

	if (ret)
		die("open %s: %s", out, strerror(-ret));
	jw_obj(j, NULL);
}

int bench_json_end(struct jw *j, uint64_t t0)
{
	int ret;

	jw_num(j, "seconds", (now_ns() - t0) / 1e9);
	jw_end(j);
	jw_end(j);
	ret = jw_close(j);
	if (ret)
		die("writing JSON: %s", strerror(-ret));
	return 0;
}

void jw_per_fs(struct jw *j, const char *key, const struct bench_fs *fs,
	       int nfs, int primary, void (*emit)(struct jw *j, int f))
{
	char by_fs[64];
	int f;

	jw_obj(j, key);
	emit(j, primary);
	jw_end(j);
	snprintf(by_fs, sizeof(by_fs), "%s_by_fs", key);
	jw_obj(j, by_fs);
	for (f = 0; f < nfs; f++) {
		jw_obj(j, fs[f].name);
		emit(j, f);
		jw_end(j);
	}
	jw_end(j);
}

/* ---- main() ---- */

int bench_main(int argc, char **argv, const char *prog,
	       const struct bench_cmd *cmds, int ncmds)
{
	char names[128] = "";
	size_t n = 0;
	int i;

	for (i = 0; i < ncmds; i++)
		n += snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0,
			      "%s%s", i ? "|" : "", cmds[i].name);
	if (argc != 3)
		die("usage: %s %s OUT.json", prog, names);
	bench_init(argv[1]);
	for (i = 0; i < ncmds; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argv[2]);
	die("unknown command %s (usage: %s %s OUT.json)", argv[1], prog, names);
}

const char *fmt_num(char *buf, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, 32, "n/a");
	else
		snprintf(buf, 32, "%.*f", prec, v);
	return buf;
}
