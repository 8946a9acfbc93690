// SPDX-License-Identifier: GPL-2.0
/*
 * vbjournal-publish against Debian's redis-server in the guest: the
 * journal's closed epochs go into a Redis stream, each once per
 * journal_id:epoch, in order, acknowledged in the journal only after
 * the engine confirmed it. Faults: the publisher killed (SIGKILL)
 * between the engine's confirmation and its acknowledgement, and at
 * any moment in follow mode; redis-server killed (SIGKILL) and started
 * again on its AOF (appendfsync always) while the publisher waits. The
 * check reads the stream back (redis-cli XRANGE) and wants every epoch
 * of the range, none twice, in order, each naming the directory that
 * changed in it. A negative control acks before publishing
 * (--test-ack-first) while redis is down: the check must then find the
 * epoch missing, so it can fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testfs.h"
#include "kselftest_harness.h"

#define DIR_W	"/tmp/pb-w"	/* watched */
#define DIR_J	"/tmp/pb-j"	/* the journal's filesystem */
#define JOURNAL	DIR_J "/journal"
#define DIR_R	"/tmp/pb-r"	/* redis-server's AOF */
#define SOCK	"/tmp/pb-redis.sock"
#define STREAM	"vbj:{guest}:epochs"
#define PUB_OUT	"/tmp/pb-pub.out"
#define PUB_ERR	"/tmp/pb-pub.err"

static char buf[1 << 20];

/* The contents of path into buf (NUL-terminated): its length, or -1. */
static ssize_t slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, len = 0;

	buf[0] = 0;
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len;
}

/* sh -c CMD: its exit status (128 + signal when killed). */
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st == -1)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Starts argv in the background, stdout and stderr into files. */
static pid_t spawn(char *const argv[], const char *out, const char *err)
{
	pid_t pid = fork();

	if (!pid) {
		int o = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (o < 0 || e < 0)
			_exit(126);
		dup2(o, 1);
		dup2(e, 2);
		/* a test that fails half-way leaves nothing behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Waits (30 s at most) until text is in file path: 0 or -ETIMEDOUT. */
static int wait_for(const char *path, const char *text)
{
	int i;

	for (i = 0; i < 3000; i++) {
		if (slurp(path) >= 0 && strstr(buf, text))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Each line of file path, as the test's log ("# " lines). */
#define log_file(what, path) do {					\
	char *l_, *s_;							\
									\
	slurp(path);							\
	for (l_ = strtok_r(buf, "\n", &s_); l_;				\
	     l_ = strtok_r(NULL, "\n", &s_))				\
		TH_LOG("%s: %s", what, l_);				\
} while (0)

static pid_t redis_pid;

static int redis_start(void)
{
	char *argv[] = { "redis-server", "--port", "0", "--unixsocket", SOCK,
			 "--dir", DIR_R, "--appendonly", "yes",
			 "--appendfsync", "always", "--save", "",
			 "--protected-mode", "no", NULL };
	int i;

	redis_pid = spawn(argv, "/tmp/pb-redis.log", "/tmp/pb-redis.log");
	if (redis_pid < 0)
		return -errno;
	/* until it answers (it loads its AOF first) */
	for (i = 0; i < 3000; i++) {
		if (!sh("redis-cli -s " SOCK " ping 2>/dev/null | grep -q PONG"))
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* SIGKILL: no shutdown, no last write. */
static void redis_kill(void)
{
	if (redis_pid > 0) {
		kill(redis_pid, SIGKILL);
		reap(redis_pid);
	}
	redis_pid = 0;
}

static pid_t daemon_pid;

static int setup(void)
{
	char *argv[] = { "vbjournald", "--fs", DIR_W, "--journal", JOURNAL,
			 "--interval", "3600000", NULL };
	int ret;

	if (sh("command -v redis-server >/dev/null && command -v redis-cli "
	       ">/dev/null && command -v vbjournal-publish >/dev/null"))
		return -EOPNOTSUPP;
	ret = mount_tmpfs(DIR_W);
	if (!ret)
		ret = mount_tmpfs(DIR_J);
	if (!ret)
		ret = mount_tmpfs(DIR_R);
	if (ret)
		return ret;
	unlink(PUB_OUT);
	unlink(PUB_ERR);
	unlink("/tmp/pb-d.out");
	daemon_pid = spawn(argv, "/tmp/pb-d.out", "/tmp/pb-d.err");
	if (daemon_pid < 0 || wait_for("/tmp/pb-d.out", "vbjournald: journal"))
		return -EIO;
	return redis_start();
}

static void teardown(void)
{
	redis_kill();
	if (daemon_pid > 0) {
		kill(daemon_pid, SIGTERM);
		reap(daemon_pid);
	}
	umount2(DIR_W, MNT_DETACH);
	umount2(DIR_J, MNT_DETACH);
	umount2(DIR_R, MNT_DETACH);
}

/* A new epoch with a change: mkdir DIR_W/e<n>, then a checkpoint. */
static int64_t epoch_with_change(int n)
{
	char path[64];

	snprintf(path, sizeof(path), DIR_W "/e%d", n);
	if (mkdir(path, 0755))
		return -1;
	if (sh("vbjournal --journal " JOURNAL " checkpoint > /tmp/pb-cur"))
		return -1;
	slurp("/tmp/pb-cur");
	return strchr(buf, ':') ? atoll(strchr(buf, ':') + 1) : -1;
}

/* The consumer's acknowledged epoch, -1 when not known. */
static int64_t acked(const char *name)
{
	char pat[64], *p;

	if (sh("vbjournal --journal " JOURNAL " consumers > /tmp/pb-cons"))
		return -1;
	slurp("/tmp/pb-cons");
	snprintf(pat, sizeof(pat), "%s epoch ", name);
	p = strstr(buf, pat);
	return p ? atoll(p + strlen(pat)) : -1;
}

/* The journal's id (16 hex digits) into id. */
static int journal_id(char id[17])
{
	if (sh("vbjournal --journal " JOURNAL " cursor > /tmp/pb-cur"))
		return -1;
	slurp("/tmp/pb-cur");
	snprintf(id, 17, "%.16s", buf);
	return strlen(id) == 16 ? 0 : -1;
}

/* Runs vbjournal-publish ARGS --once; its stdout, stderr into PUB_*. */
static int publish_once(const char *args)
{
	return sh("vbjournal-publish --journal " JOURNAL " --redis " SOCK
		  " --host guest --once %s >> " PUB_OUT " 2>> " PUB_ERR, args);
}

/*
 * The stream as redis-cli XRANGE prints it (--raw: one line per id,
 * field and value), checked: the entries of journal id carry exactly
 * the epochs (from, to], each once, in order, each "since" the one
 * before, and each epoch's answer names DIR_W (where its mkdir was)
 * with that epoch's cursor. 0, or -1 with why said.
 */
static int check_stream(const char *stream, const char *id, int64_t from,
			int64_t to, char *why, size_t sz)
{
	char *line, *save, key[64] = "";
	int64_t next = from + 1, since = -1, epoch = -1;
	bool have_key = false;
	const char *field = NULL;

	why[0] = 0;
	if (sh("redis-cli -s " SOCK " --raw XRANGE '%s' - + > /tmp/pb-xrange",
	       stream)) {
		snprintf(why, sz, "XRANGE failed");
		return -1;
	}
	slurp("/tmp/pb-xrange");
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (field) {
			if (!strcmp(field, "key")) {
				snprintf(key, sizeof(key), "%s", line);
				have_key = !strncmp(line, id, 16);
				epoch = atoll(line + 17);
			} else if (!strcmp(field, "since")) {
				since = atoll(line);
			} else if (!strcmp(field, "changes") && have_key) {
				char cur[80];

				/* the entry's fields come in order: key first */
				if (epoch != next) {
					snprintf(why, sz, "%s: expected epoch %"
						 PRId64 "%s", key, next,
						 epoch < next ? " (a duplicate)" :
						 " (an epoch is missing)");
					return -1;
				}
				if (since != epoch - 1) {
					snprintf(why, sz, "%s: since %" PRId64,
						 key, since);
					return -1;
				}
				snprintf(cur, sizeof(cur), "\"cursor\":\"%s\"", key);
				if (!strstr(line, cur) ||
				    !strstr(line, "\"path\":\"" DIR_W "\"")) {
					snprintf(why, sz, "%s: its answer lacks "
						 "its cursor or " DIR_W ": %.200s",
						 key, line);
					return -1;
				}
				next++;
			}
			field = NULL;
			continue;
		}
		if (!strcmp(line, "key") || !strcmp(line, "since") ||
		    !strcmp(line, "changes") || !strcmp(line, "v") ||
		    !strcmp(line, "host") || !strcmp(line, "journal_id") ||
		    !strcmp(line, "epoch") || !strcmp(line, "kind") ||
		    !strcmp(line, "filesystems"))
			field = line;
	}
	if (next != to + 1) {
		snprintf(why, sz, "the stream ends at epoch %" PRId64 ", not %"
			 PRId64, next - 1, to);
		return -1;
	}
	return 0;
}

/*
 * Killed after the engine confirmed an epoch and before the journal's
 * ack (--test-die-after: SIGKILL to itself there): the next run
 * publishes that epoch again, and the stream keeps it once.
 */
TEST(killed_between_confirm_and_ack_duplicates_nothing)
{
	char id[17], why[512];
	int64_t c0, e = 0;
	int i, ret;

	ret = setup();
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no redis-server, redis-cli or vbjournal-publish here");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, journal_id(id));
	ASSERT_EQ(0, sh("vbjournal --journal " JOURNAL " register publish >/dev/null"));
	c0 = acked("publish");
	ASSERT_LE(0, c0);
	for (i = 1; i <= 5; i++)
		ASSERT_LT(0, e = epoch_with_change(i));
	EXPECT_EQ(128 + SIGKILL, publish_once("--test-die-after 2"));
	/* two confirmed, one acknowledged */
	EXPECT_EQ(c0 + 1, acked("publish"));
	EXPECT_EQ(0, publish_once(""));
	log_file("publisher", PUB_OUT);
	slurp(PUB_OUT);
	EXPECT_NE(NULL, strstr(buf, "duplicate "));
	EXPECT_EQ(e, acked("publish"));
	EXPECT_EQ(0, check_stream(STREAM, id, c0, e, why, sizeof(why)))
		TH_LOG("%s", why);
	teardown();
}

/*
 * In follow mode: killed (SIGKILL) while epochs close, started again;
 * redis-server killed (SIGKILL) while the publisher runs, epochs closed
 * meanwhile, the journal's ack stays where the engine confirmed, and
 * redis-server started again on its AOF: every epoch arrives, once, in
 * order.
 */
TEST(publisher_and_redis_killed_lose_and_duplicate_nothing)
{
	char *argv[] = { "vbjournal-publish", "--journal", JOURNAL, "--redis",
			 SOCK, "--host", "guest", NULL };
	char id[17], why[512], key[64];
	int64_t c0, e = 0, before;
	pid_t pub;
	int i, ret;

	ret = setup();
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no redis-server, redis-cli or vbjournal-publish here");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, journal_id(id));
	ASSERT_EQ(0, sh("vbjournal --journal " JOURNAL " register publish >/dev/null"));
	c0 = acked("publish");
	pub = spawn(argv, PUB_OUT, PUB_ERR);
	ASSERT_LT(0, pub);
	/* killed at whatever point it has reached, three times */
	for (i = 1; i <= 9; i++) {
		ASSERT_LT(0, e = epoch_with_change(i));
		if (i % 3)
			continue;
		kill(pub, SIGKILL);
		EXPECT_EQ(128 + SIGKILL, reap(pub));
		pub = spawn(argv, PUB_OUT, PUB_ERR);
		ASSERT_LT(0, pub);
	}
	snprintf(key, sizeof(key), "%s:%" PRId64 " ", id, e);
	ASSERT_EQ(0, wait_for(PUB_OUT, key));

	/* the engine dies; epochs close meanwhile */
	before = acked("publish");
	EXPECT_EQ(e, before);
	redis_kill();
	for (i = 10; i <= 12; i++)
		ASSERT_LT(0, e = epoch_with_change(i));
	ASSERT_EQ(0, wait_for(PUB_ERR, "retrying"));
	/* nothing is acknowledged that the engine did not confirm */
	EXPECT_EQ(before, acked("publish"));
	ASSERT_EQ(0, redis_start());
	snprintf(key, sizeof(key), "%s:%" PRId64 " ", id, e);
	ASSERT_EQ(0, wait_for(PUB_OUT, key));
	EXPECT_EQ(0, wait_for(PUB_ERR, "the engine answers again"));
	kill(pub, SIGTERM);
	EXPECT_EQ(0, reap(pub));
	EXPECT_EQ(e, acked("publish"));
	log_file("publisher", PUB_OUT);
	log_file("publisher's stderr", PUB_ERR);
	EXPECT_EQ(0, check_stream(STREAM, id, c0, e, why, sizeof(why)))
		TH_LOG("%s", why);
	teardown();
}

/*
 * The negative control: acknowledging before the engine confirmed
 * (--test-ack-first) while redis-server is down loses the epoch, and
 * the stream's check says so. The right order keeps it.
 */
TEST(ack_before_confirm_loses_an_epoch)
{
	char id[17], why[512];
	int64_t c0, e = 0;
	int ret;

	ret = setup();
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no redis-server, redis-cli or vbjournal-publish here");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, journal_id(id));
	ASSERT_EQ(0, sh("vbjournal --journal " JOURNAL " register publish >/dev/null"));
	c0 = acked("publish");
	ASSERT_LT(0, epoch_with_change(1));
	EXPECT_EQ(0, publish_once(""));
	/* the engine is down while the next epoch is handled */
	redis_kill();
	ASSERT_LT(0, epoch_with_change(2));
	EXPECT_EQ(10, publish_once("--test-ack-first --retry-timeout 1s"));
	ASSERT_EQ(0, redis_start());
	ASSERT_LT(0, e = epoch_with_change(3));
	EXPECT_EQ(0, publish_once(""));
	EXPECT_EQ(e, acked("publish"));
	ret = check_stream(STREAM, id, c0, e, why, sizeof(why));
	TH_LOG("the check (ack first): %s", ret ? why : "passed");
	EXPECT_EQ(-1, ret);
	EXPECT_NE(NULL, strstr(why, "an epoch is missing"));

	/* the same with the acknowledgement after the confirmation */
	ASSERT_EQ(0, sh("redis-cli -s " SOCK " DEL '" STREAM "' '" STREAM
			":published' >/dev/null"));
	ASSERT_EQ(0, sh("vbjournal --journal " JOURNAL " unregister publish"));
	ASSERT_EQ(0, sh("vbjournal --journal " JOURNAL " register publish >/dev/null"));
	c0 = acked("publish");
	ASSERT_LT(0, epoch_with_change(4));
	EXPECT_EQ(0, publish_once(""));
	redis_kill();
	ASSERT_LT(0, epoch_with_change(5));
	EXPECT_EQ(10, publish_once("--retry-timeout 1s"));
	EXPECT_EQ(c0 + 1, acked("publish"));
	ASSERT_EQ(0, redis_start());
	ASSERT_LT(0, e = epoch_with_change(6));
	EXPECT_EQ(0, publish_once(""));
	EXPECT_EQ(0, check_stream(STREAM, id, c0, e, why, sizeof(why)))
		TH_LOG("%s", why);
	teardown();
}

TEST_HARNESS_MAIN
