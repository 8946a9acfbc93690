// SPDX-License-Identifier: GPL-2.0
/*
 * What administrators see without the device: the module's tracepoints
 * in tracefs (events/vfsbarrier/) and its read-only state under
 * /sys/module/vfsbarrier/parameters/ (hooks, coverage, watches).
 *
 * Each test enables the events, clears the trace, does something, and
 * reads back the lines it must have produced, with the right device
 * numbers and results. Tests that need tracefs skip when the kernel has
 * none; the sysfs checks run regardless.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "vfsb.h"
#include "modparam.h"
#include "rec_batch.h"
#include "testfs.h"
#include "kselftest_harness.h"

#define DIR_T	"/tmp/vb-trace"
#define TRACEFS	"/sys/kernel/tracing"
#define EVENTS	TRACEFS "/events/vfsbarrier"

static const char *const events[] = {
	"vfsb_barrier_start", "vfsb_barrier_done", "vfsb_watch",
	"vfsb_unwatch", "vfsb_record_dropped", "vfsb_overflow",
	"vfsb_unbracketed", "vfsb_hooks",
};

static char tbuf[8 << 20];
static struct rec_batch batch;

/* ---- tracefs ---- */

/* tracefs at TRACEFS, mounted if it is not: 0 or -errno. */
static int tracefs_ready(void)
{
	if (!access(TRACEFS "/trace", F_OK))
		return 0;
	mkdir(TRACEFS, 0755);
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		return -errno;
	return access(TRACEFS "/trace", F_OK) ? -errno : 0;
}

/* Every vfsbarrier event on (or off), tracing on, the trace empty. */
static int trace_events(bool on)
{
	int ret = sysfs_write(EVENTS "/enable", on ? "1" : "0");

	if (!ret && on)
		ret = sysfs_write(TRACEFS "/tracing_on", "1");
	if (!ret && on) {
		/* an open for writing with O_TRUNC empties the buffer */
		int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

		if (fd < 0)
			return -errno;
		close(fd);
	}
	return ret;
}

/* The whole trace into tbuf, NUL-terminated: its length or -errno. */
static ssize_t trace_read(void)
{
	int fd = open(TRACEFS "/trace", O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	while (n < sizeof(tbuf) - 1 &&
	       (r = read(fd, tbuf + n, sizeof(tbuf) - 1 - n)) > 0)
		n += r;
	close(fd);
	tbuf[n] = 0;
	return n;
}

/*
 * The first line of tbuf at or after from that is event's and holds the
 * text fmt makes (after "event: "), or NULL. Lines look like
 * "  prog-123  [001] .....  12.345: vfsb_watch: dev=0:45 id=1 ...".
 */
static const char *trace_find(const char *from, const char *event,
			      const char *fmt, ...)
{
	char want[256], tag[64];
	const char *line, *end, *hit;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	snprintf(tag, sizeof(tag), " %s: ", event);
	for (line = from; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		hit = memmem(line, end - line, tag, strlen(tag));
		if (hit && memmem(hit, end - hit, want, strlen(want)))
			return line;
	}
	return NULL;
}

/* How many lines of tbuf are event's and hold text. */
static int trace_count(const char *event, const char *text)
{
	const char *p = tbuf;
	int n = 0;

	while ((p = trace_find(p, event, "%s", text))) {
		n++;
		p = strchrnul(p, '\n');
	}
	return n;
}

/* "M:m" of path's filesystem, as the events print it. */
static int dev_str(const char *path, char *buf, size_t sz)
{
	dev_t d;
	int ret = vfsb_path_sb_dev(path, &d);

	if (!ret)
		snprintf(buf, sz, "%u:%u", major(d), minor(d));
	return ret;
}

FIXTURE(tr) {
	int dev;		/* /dev/vfsbarrier */
	int tracefs;		/* 0, or why tracefs cannot be had */
	char sdev[32];		/* DIR_T's filesystem, "M:m" */
	char linger[32];	/* hooks_linger_ms to restore, if set */
};

FIXTURE_SETUP(tr)
{
	ASSERT_EQ(0, mount_tmpfs(DIR_T));
	ASSERT_EQ(0, dev_str(DIR_T, self->sdev, sizeof(self->sdev)));
	self->tracefs = tracefs_ready();
	if (!self->tracefs)
		ASSERT_EQ(0, trace_events(true));
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
}

FIXTURE_TEARDOWN(tr)
{
	if (!self->tracefs)
		trace_events(false);
	if (self->dev >= 0)
		close(self->dev);
	if (self->linger[0])
		param_set("hooks_linger_ms", self->linger);
	umount2(DIR_T, MNT_DETACH);
}

#define NEED_TRACEFS() do {						\
	if (self->tracefs)						\
		SKIP(return, "no tracefs: %s", strerror(-self->tracefs)); \
} while (0)

TEST_F(tr, every_event_is_in_tracefs)
{
	char path[256], fmt[4096];
	size_t i;

	NEED_TRACEFS();
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(path, sizeof(path), EVENTS "/%s/format", events[i]);
		ASSERT_EQ(0, sysfs_read(path, fmt, sizeof(fmt)))
			TH_LOG("%s: no such event", events[i]);
		EXPECT_NE(NULL, strstr(fmt, "print fmt:")) TH_LOG("%s", path);
		snprintf(path, sizeof(path), EVENTS "/%s/enable", events[i]);
		ASSERT_EQ(0, sysfs_read(path, fmt, sizeof(fmt)));
		EXPECT_STREQ("1", fmt) TH_LOG("%s not enabled", events[i]);
	}
}

/* watch, a barrier on it, one on everything watched, unwatch: in order. */
TEST_F_TIMEOUT(tr, watch_barrier_unwatch, 120)
{
	__u64 waited = 0, waited_all = 0;
	const char *p;
	__u32 id = 0;
	int fd;

	NEED_TRACEFS();
	fd = open(DIR_T, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vfsb_watch_fd_id(self->dev, fd, NULL, &id));
	ASSERT_EQ(0, vfsb_barrier_fd(self->dev, fd, 0, 0, &waited));
	ASSERT_EQ(0, vfsb_barrier_fd(self->dev, -1, VFSB_BARRIER_ALL, 0,
				     &waited_all));
	ASSERT_EQ(0, vfsb_unwatch_fd(self->dev, fd, NULL));
	/* nobody watches it now: refused before it starts, not traced */
	EXPECT_EQ(-ENOENT, vfsb_barrier_fd(self->dev, fd, 0, 0, NULL));
	close(fd);
	ASSERT_LT(0, trace_read());

	p = trace_find(tbuf, "vfsb_watch", "dev=%s id=%u fstype=tmpfs",
		       self->sdev, id);
	ASSERT_NE(NULL, p) TH_LOG("no watch line for %s:\n%s", self->sdev, tbuf);
	p = trace_find(p, "vfsb_barrier_start", "dev=%s flags= nr_fs=1",
		       self->sdev);
	ASSERT_NE(NULL, p) TH_LOG("no barrier start:\n%s", tbuf);
	p = trace_find(p, "vfsb_barrier_done",
		       "dev=%s flags= waited_ns=%llu result=0", self->sdev,
		       (unsigned long long)waited);
	ASSERT_NE(NULL, p) TH_LOG("no barrier done, waited %llu:\n%s",
				  (unsigned long long)waited, tbuf);
	p = trace_find(p, "vfsb_barrier_start", "dev=0:0 flags=all nr_fs=1");
	ASSERT_NE(NULL, p) TH_LOG("no BARRIER_ALL start:\n%s", tbuf);
	p = trace_find(p, "vfsb_barrier_done",
		       "dev=0:0 flags=all waited_ns=%llu result=0",
		       (unsigned long long)waited_all);
	ASSERT_NE(NULL, p) TH_LOG("no BARRIER_ALL done:\n%s", tbuf);
	p = trace_find(p, "vfsb_unwatch", "dev=%s id=%u fstype=tmpfs",
		       self->sdev, id);
	ASSERT_NE(NULL, p) TH_LOG("no unwatch line:\n%s", tbuf);
	/* two barriers, two of each; the refused one left nothing */
	EXPECT_EQ(2, trace_count("vfsb_barrier_start", ""));
	EXPECT_EQ(2, trace_count("vfsb_barrier_done", "result=0"));
	EXPECT_EQ(2, trace_count("vfsb_barrier_done", ""));
	TH_LOG("dev %s: barrier waited %llu ns, BARRIER_ALL %llu ns",
	       self->sdev, (unsigned long long)waited,
	       (unsigned long long)waited_all);
}

/* Closing the device unwatches: traced the same way. */
TEST_F_TIMEOUT(tr, close_unwatches, 120)
{
	__u32 id = 0;
	int fd;

	NEED_TRACEFS();
	fd = open(DIR_T, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vfsb_watch_fd_id(self->dev, fd, NULL, &id));
	close(fd);
	close(self->dev);
	self->dev = -1;
	ASSERT_LT(0, trace_read());
	EXPECT_NE(NULL, trace_find(tbuf, "vfsb_unwatch",
				   "dev=%s id=%u fstype=tmpfs", self->sdev, id))
		TH_LOG("no unwatch at close:\n%s", tbuf);
}

/*
 * The smallest ring, more records than it holds, nothing read: each
 * lost record is traced (with the ring's running count), and so is the
 * OVERFLOW record the read then gets, with the same count.
 */
TEST_F_TIMEOUT(tr, overflow, 120)
{
	struct vfsb_record *ov = NULL;
	char path[64], want[64];
	int i;

	NEED_TRACEFS();
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_T));
	ASSERT_EQ(0, vfsb_subscribe(self->dev, VFSB_RING_MIN, 0, 0, NULL));
	/* CREATE records of over 64 bytes each: 16 KiB holds under 256 */
	for (i = 0; i < 600; i++) {
		snprintf(path, sizeof(path), DIR_T "/f%04d", i);
		ASSERT_EQ(0, touch(path));
	}
	ASSERT_EQ(0, rec_drain(self->dev, &batch));
	for (i = 0; i < batch.n; i++)
		if (batch.rec[i]->type == VFSB_REC_OVERFLOW)
			ov = batch.rec[i];
	ASSERT_NE(NULL, ov) TH_LOG("no OVERFLOW record in %d", batch.n);
	ASSERT_LT(0, ov->lost);
	ASSERT_LT(0, trace_read());

	snprintf(want, sizeof(want), "dev=%s lost=", self->sdev);
	EXPECT_EQ((int)ov->lost, trace_count("vfsb_record_dropped", want));
	EXPECT_NE(NULL, trace_find(tbuf, "vfsb_record_dropped",
				   "dev=%s lost=%llu", self->sdev,
				   (unsigned long long)ov->lost))
		TH_LOG("no dropped line with lost=%llu",
		       (unsigned long long)ov->lost);
	EXPECT_NE(NULL, trace_find(tbuf, "vfsb_overflow",
				   "lost=%llu seq=%llu dev=%s nr_devs=1",
				   (unsigned long long)ov->lost,
				   (unsigned long long)ov->seq, self->sdev))
		TH_LOG("no overflow line for lost=%llu seq=%llu:\n%.4000s",
		       (unsigned long long)ov->lost,
		       (unsigned long long)ov->seq, tbuf);
	EXPECT_EQ(1, trace_count("vfsb_overflow", ""));
	TH_LOG("%d records read, %llu lost: %d vfsb_record_dropped lines",
	       batch.n, (unsigned long long)ov->lost,
	       trace_count("vfsb_record_dropped", ""));
}

/*
 * A write whose section cannot be kept (the fail_alloc test knob):
 * traced with its filesystem and why.
 */
TEST_F_TIMEOUT(tr, unbracketed_write, 120)
{
	int fd;

	NEED_TRACEFS();
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_T));
	fd = open(DIR_T "/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, trace_events(true));
	ASSERT_EQ(0, param_set("fail_alloc", "1"));
	EXPECT_EQ(5, write(fd, "hello", 5));
	param_set("fail_alloc", "0");
	close(fd);
	ASSERT_LT(0, trace_read());
	EXPECT_EQ(1, trace_count("vfsb_unbracketed", "why=no_memory"))
		TH_LOG("trace:\n%s", tbuf);
	EXPECT_NE(NULL, trace_find(tbuf, "vfsb_unbracketed",
				   "dev=%s why=no_memory", self->sdev));
}

/* ---- the hooks' state: sysfs, and its trace events ---- */

/* Waits, at most timeout_ms, until hooks reads want: 0 or -ETIMEDOUT. */
static int wait_hooks(const char *want, int timeout_ms, char *seen,
		      size_t sz)
{
	int i;

	for (i = 0; i <= timeout_ms / 10; i++) {
		if (!param_get("hooks", seen, sz) && !strcmp(seen, want))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* "namespace,data,..." of a VFSB_COV_* mask, as libvfsb names them. */
static void coverage_names(__u32 cov, char *buf, size_t sz)
{
	unsigned int bit;
	size_t n = 0;

	buf[0] = 0;
	for (bit = 0; bit < 32; bit++) {
		if (!(cov & (1U << bit)))
			continue;
		n += snprintf(buf + n, sz - n, "%s%s", n ? "," : "",
			      vfsb_coverage_name(bit) ?: "?");
	}
}

/*
 * Out (linger 0 to get there), in at the first watch, lingering after
 * the last tracking is gone, out after hooks_linger_ms: sysfs says so at
 * each step, and each change is traced once, with the live coverage.
 */
TEST_F_TIMEOUT(tr, hooks_state_in_sysfs, 180)
{
	char seen[256], want[256];
	struct vfsb_version v;
	const char *p;
	int fd;

	ASSERT_EQ(0, param_get("hooks_linger_ms", self->linger,
			       sizeof(self->linger)));
	ASSERT_EQ(0, param_set("hooks_linger_ms", "0"));
	/* earlier tests' trackings may still be tearing down */
	ASSERT_EQ(0, wait_hooks("off", 30000, seen, sizeof(seen)))
		TH_LOG("hooks: %s", seen);
	ASSERT_EQ(0, param_get("coverage", seen, sizeof(seen)));
	EXPECT_STREQ("", seen);
	ASSERT_EQ(0, param_get("watches", seen, sizeof(seen)));
	EXPECT_STREQ("0", seen);
	/* long enough to be seen lingering, short enough to wait out */
	ASSERT_EQ(0, param_set("hooks_linger_ms", "3000"));
	if (!self->tracefs)
		ASSERT_EQ(0, trace_events(true));

	fd = open(DIR_T, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vfsb_watch_fd(self->dev, fd, NULL));
	close(fd);
	ASSERT_EQ(0, param_get("hooks", seen, sizeof(seen)));
	EXPECT_STREQ("live", seen);
	ASSERT_EQ(0, param_get("watches", seen, sizeof(seen)));
	EXPECT_LE(1, atoi(seen));
	/* the groups GET_VERSION reports, by libvfsb's names */
	ASSERT_EQ(0, vfsb_get_version(self->dev, &v));
	ASSERT_NE(0, v.coverage);
	coverage_names(v.coverage, want, sizeof(want));
	ASSERT_EQ(0, param_get("coverage", seen, sizeof(seen)));
	EXPECT_STREQ(want, seen);
	EXPECT_EQ(0, strncmp(seen, "namespace,data", 14)) TH_LOG("%s", seen);

	close(self->dev);
	self->dev = -1;
	/* the tracking goes after RCU and SRCU grace periods, then lingers */
	ASSERT_EQ(0, wait_hooks("lingering", 30000, seen, sizeof(seen)))
		TH_LOG("hooks: %s", seen);
	ASSERT_EQ(0, param_get("watches", seen, sizeof(seen)));
	EXPECT_STREQ("0", seen);
	ASSERT_EQ(0, param_get("coverage", seen, sizeof(seen)));
	EXPECT_STREQ(want, seen);
	ASSERT_EQ(0, wait_hooks("off", 30000, seen, sizeof(seen)))
		TH_LOG("hooks: %s", seen);
	ASSERT_EQ(0, param_get("coverage", seen, sizeof(seen)));
	EXPECT_STREQ("", seen);
	ASSERT_EQ(0, param_set("hooks_linger_ms", self->linger));
	self->linger[0] = 0;

	if (self->tracefs)
		return;
	ASSERT_LT(0, trace_read());
	p = trace_find(tbuf, "vfsb_hooks", "state=live coverage=0x%x error=0",
		       v.coverage);
	ASSERT_NE(NULL, p) TH_LOG("no live line (coverage %#x):\n%s",
				  v.coverage, tbuf);
	p = trace_find(p, "vfsb_hooks", "state=lingering coverage=0x%x error=0",
		       v.coverage);
	ASSERT_NE(NULL, p) TH_LOG("no lingering line:\n%s", tbuf);
	p = trace_find(p, "vfsb_hooks", "state=off coverage=0x0 error=0");
	ASSERT_NE(NULL, p) TH_LOG("no off line:\n%s", tbuf);
	EXPECT_EQ(3, trace_count("vfsb_hooks", "state="));
}

/* The state files are read-only, to root too. */
TEST_F(tr, state_files_refuse_writes)
{
	static const char *const names[] = { "hooks", "coverage", "watches" };
	char path[128], before[256], after[256];
	struct stat st;
	size_t i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), VFSB_PARAMS "%s", names[i]);
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
		EXPECT_EQ(0444U, st.st_mode & 07777) TH_LOG("%s", path);
		ASSERT_EQ(0, sysfs_read(path, before, sizeof(before)));
		EXPECT_GT(0, sysfs_write(path, "1")) TH_LOG("%s took a write", path);
		ASSERT_EQ(0, sysfs_read(path, after, sizeof(after)));
		EXPECT_STREQ(before, after);
	}
}

/*
 * Nor can they be set when the module is loaded: the load is refused
 * (the kernel's parameter parser calls ->set unchecked: without one
 * this would be a NULL call). Unloads the module and loads it again.
 */
TEST_F_TIMEOUT(tr, load_with_state_param_is_refused, 120)
{
	static const char *const args[] = { "hooks=live", "coverage=data",
					    "watches=1" };
	size_t i;
	int ko;

	close(self->dev);
	self->dev = -1;
	if (!self->tracefs)
		trace_events(false);
	ASSERT_EQ(0, vfsb_module_wait_refcnt(0, 30000));
	ASSERT_EQ(0, vfsb_module_unload());
	ko = open(vfsb_module_path(), O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ko);
	for (i = 0; i < 3; i++) {
		EXPECT_NE(0, syscall(SYS_finit_module, ko, args[i], 0))
			TH_LOG("loaded with %s", args[i]);
		EXPECT_EQ(EPERM, errno) TH_LOG("%s", args[i]);
		if (vfsb_module_loaded())
			ASSERT_EQ(0, vfsb_module_unload());
	}
	close(ko);
	ASSERT_EQ(0, vfsb_module_load());
	ASSERT_EQ(0, vfsb_wait_device(5000));
}

TEST_HARNESS_MAIN
