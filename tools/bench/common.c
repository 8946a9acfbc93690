// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the benchmark programs; see common.h. */
#include "common.h"

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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

/* ---- module and device ---- */

bool mod_loaded(void)
{
	return access("/sys/module/vfsbarrier", F_OK) == 0;
}

static const char *ko_path(void)
{
	const char *p = getenv("VFSB_KO");

	return p && *p ? p : "/lib/vfsb/vfsbarrier.ko";
}

void mod_set(bool loaded)
{
	int i, fd;

	if (loaded == mod_loaded())
		return;
	if (loaded) {
		fd = open(ko_path(), O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("open %s: %s", ko_path(), strerror(errno));
		if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
			die("finit_module: %s", strerror(errno));
		close(fd);
		/* devtmpfs creates the node asynchronously */
		for (i = 0; i < 5000 && access(VFSB_DEVICE_PATH, F_OK); i++)
			usleep(1000);
		return;
	}
	/*
	 * The last unwatch frees its tracking from a work item after an
	 * RCU and an SRCU grace period; the module is busy until then.
	 */
	for (i = 0; i < 3000; i++) {
		if (!syscall(SYS_delete_module, "vfsbarrier", O_NONBLOCK))
			return;
		if (errno == ENOENT)
			return;
		if (errno != EWOULDBLOCK && errno != EBUSY && errno != EAGAIN)
			break;
		usleep(10000);
	}
	die("delete_module: %s", strerror(errno));
}

void mod_wait_refcnt(int n)
{
	int i, cur = -1;
	FILE *f;

	for (i = 0; i < 6000; i++) {
		f = fopen("/sys/module/vfsbarrier/refcnt", "r");
		if (!f)
			return;
		if (fscanf(f, "%d", &cur) != 1)
			cur = -1;
		fclose(f);
		if (cur <= n)
			return;
		usleep(10000);
	}
	progress("module refcnt stays %d, expected %d", cur, n);
}

int dev_open(void)
{
	int fd = open(VFSB_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", VFSB_DEVICE_PATH, strerror(errno));
	return fd;
}

static int path_ioctl(int dev, const char *path, unsigned long cmd)
{
	struct vfsb_watch w = { 0 };
	int ret;

	w.fd = open(path, O_PATH | O_CLOEXEC);
	if (w.fd < 0)
		return -errno;
	ret = ioctl(dev, cmd, &w) ? -errno : 0;
	close(w.fd);
	return ret;
}

int dev_watch(int dev, const char *path)
{
	return path_ioctl(dev, path, VFSB_IOC_WATCH);
}

int dev_unwatch(int dev, const char *path)
{
	return path_ioctl(dev, path, VFSB_IOC_UNWATCH);
}

int dev_barrier(int dev, int fd, uint32_t flags)
{
	struct vfsb_barrier b = { .fd = fd, .flags = flags };

	return ioctl(dev, VFSB_IOC_BARRIER, &b) ? -errno : 0;
}

int dev_stats(int dev, const char *path, struct vfsb_sb_stats *out)
{
	static struct vfsb_sb_stats st[256];
	struct vfsb_stats req = { .capacity = ARRAY_SIZE(st),
				  .entries_ptr = (uintptr_t)st };
	struct stat sb;
	unsigned int i;

	if (stat(path, &sb))
		return -errno;
	if (ioctl(dev, VFSB_IOC_STATS, &req))
		return -errno;
	for (i = 0; i < req.count && i < req.capacity; i++) {
		if (makedev(major(st[i].dev), minor(st[i].dev)) == sb.st_dev &&
		    !(st[i].flags & VFSB_STATS_UNMOUNTED)) {
			*out = st[i];
			return 0;
		}
	}
	return -ENOENT;
}

const char *mod_version(int dev)
{
	static struct vfsb_version v;

	if (ioctl(dev, VFSB_IOC_GET_VERSION, &v))
		return "";
	v.module_version[sizeof(v.module_version) - 1] = 0;
	return v.module_version;
}

/* ---- the record stream ---- */

int sub_open(const char *const *paths, int npaths, uint32_t ring_bytes,
	     uint32_t flags)
{
	struct vfsb_subscribe sub = { .ring_bytes = ring_bytes, .flags = flags };
	int fd, i, ret;

	fd = open(VFSB_DEVICE_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die("open %s: %s", VFSB_DEVICE_PATH, strerror(errno));
	if (ioctl(fd, VFSB_IOC_SUBSCRIBE, &sub))
		die("SUBSCRIBE: %s", strerror(errno));
	for (i = 0; i < npaths; i++) {
		ret = dev_watch(fd, paths[i]);
		if (ret)
			die("watch %s: %s", paths[i], strerror(-ret));
	}
	return fd;
}

void rec_count_buf(const void *buf, size_t len, struct rec_count *c)
{
	const char *p = buf, *end = p + len;
	const struct vfsb_record *r;

	while (p + sizeof(*r) <= end) {
		r = (const void *)p;
		if (r->size < sizeof(*r) || p + r->size > end)
			die("read() returned a malformed record (size %u)", r->size);
		if (r->type == VFSB_REC_OVERFLOW) {
			c->overflows++;
			c->lost += r->lost;
		} else if (r->type == VFSB_REC_CHANGE) {
			c->changes++;
			c->bytes += r->size;
			if (r->reasons & VFSB_R_CREATE)
				c->creates++;
		}
		p += r->size;
	}
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

static void jw_sep(struct jw *j, const char *key)
{
	if (!j->first[j->depth])
		fputs(", ", j->f);
	j->first[j->depth] = false;
	if (key)
		fprintf(j->f, "\"%s\": ", key);
}

void jw_open(struct jw *j, const char *path)
{
	memset(j, 0, sizeof(*j));
	j->f = fopen(path, "w");
	if (!j->f)
		die("open %s: %s", path, strerror(errno));
	j->first[0] = true;
}

void jw_close(struct jw *j)
{
	fputc('\n', j->f);
	if (fclose(j->f))
		die("writing JSON: %s", strerror(errno));
}

static void jw_push(struct jw *j, const char *key, char c)
{
	jw_sep(j, key);
	fputc(c, j->f);
	if (j->depth + 1 >= (int)ARRAY_SIZE(j->first))
		die("JSON nesting too deep");
	j->first[++j->depth] = true;
}

void jw_obj(struct jw *j, const char *key)
{
	jw_push(j, key, '{');
}

void jw_arr(struct jw *j, const char *key)
{
	jw_push(j, key, '[');
}

void jw_end(struct jw *j)
{
	j->depth--;
	fputc('}', j->f);
}

void jw_end_arr(struct jw *j)
{
	j->depth--;
	fputc(']', j->f);
}

void jw_num(struct jw *j, const char *key, double v)
{
	jw_sep(j, key);
	if (isnan(v) || isinf(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.6g", v);
}

void jw_int(struct jw *j, const char *key, long long v)
{
	jw_sep(j, key);
	fprintf(j->f, "%lld", v);
}

void jw_str(struct jw *j, const char *key, const char *s)
{
	jw_sep(j, key);
	fputc('"', j->f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(j->f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(j->f, "\\u%04x", *s);
		else
			fputc(*s, j->f);
	}
	fputc('"', j->f);
}

void jw_null(struct jw *j, const char *key)
{
	jw_sep(j, key);
	fputs("null", j->f);
}

void jw_bool(struct jw *j, const char *key, bool v)
{
	jw_sep(j, key);
	fputs(v ? "true" : "false", j->f);
}

const char *fmt_num(char *buf, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, 32, "n/a");
	else
		snprintf(buf, 32, "%.*f", prec, v);
	return buf;
}
