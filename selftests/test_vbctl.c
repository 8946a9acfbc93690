// SPDX-License-Identifier: GPL-2.0
/*
 * vbctl as its users see it: the binary (copied next to this test in
 * the guest) run with arguments and input, its exit codes (0 done, 1
 * the operation failed, 2 usage or environment), what it prints for bad
 * input, and that everything it prints as JSON is valid JSON (checked
 * by json_check.c, written apart from vbctl's writer) and complete: no
 * entry left out however many there are.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "vfsb.h"
#include "json_check.h"
#include "task.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define DIR_W		"/tmp/vbctl-w"		/* watched by the fixture */
#define DIR_U		"/tmp/vbctl-u"		/* watched by nobody */
#define DIR_MANY	"/tmp/vbctl-many"
#define DIR_F		"/tmp/vbctl-f"		/* followed across remounts */
#define NMANY		300	/* more than vbctl stats once showed (256) */
#define WAIT_MS		20000	/* bounds a broken run only */

/* ---- running vbctl ---- */

struct run {
	int status;		/* exit code; 128 + signal if killed */
	size_t out_len, err_len;
	char out[1 << 20];	/* stdout, NUL-terminated */
	char err[1 << 16];
};

static struct run res;

/* A vbctl started, and the pipes to it. */
struct proc {
	pid_t pid;
	int in, out, err;
};

static const char *vbctl_path(void)
{
	static char path[PATH_MAX];
	ssize_t n;
	char *slash;

	n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	if (n < 0)
		return "vbctl";
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "vbctl");
	return path;
}

/* Starts vbctl argv[1...] (argv[0] is "vbctl"), as nobody if asked. */
static int spawn(struct proc *p, bool nobody, char *const argv[])
{
	const char *exe = vbctl_path();
	int in[2], out[2], err[2], fd;

	/* nobody may not even look up the path (the guest's / is 0700):
	   the binary is opened first, then executed by descriptor */
	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (!p->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		if (!nobody)
			execv(exe, argv);
		else if (!drop_to_nobody())
			fexecve(fd, argv, environ);
		_exit(127);
	}
	close(fd);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	p->in = in[1];
	p->out = out[0];
	p->err = err[0];
	return 0;
}

/* Reads what is there from fd into buf (keeping a NUL); false at EOF. */
static bool drain(int fd, char *buf, size_t size, size_t *len)
{
	char scratch[4096];
	ssize_t n;

	if (*len + 1 < size)
		n = read(fd, buf + *len, size - 1 - *len);
	else
		n = read(fd, scratch, sizeof(scratch));	/* overflow: dropped */
	if (n <= 0)
		return false;
	if (*len + 1 < size)
		*len += n;
	buf[*len] = 0;
	return true;
}

/* Ends its input, reads all it prints, and waits for it, into r. */
static void finish(struct proc *p, struct run *r)
{
	struct pollfd pfd[2] = { { p->out, POLLIN, 0 }, { p->err, POLLIN, 0 } };
	int status, open = 2, i;

	if (p->in >= 0)
		close(p->in);
	p->in = -1;
	while (open) {
		if (poll(pfd, 2, -1) < 0)
			break;
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (!(i ? drain(p->err, r->err, sizeof(r->err), &r->err_len) :
			      drain(p->out, r->out, sizeof(r->out), &r->out_len))) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open--;
			}
		}
	}
	waitpid(p->pid, &status, 0);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) :
		    128 + WTERMSIG(status);
}

static void run_reset(struct run *r)
{
	r->status = -1;
	r->out_len = r->err_len = 0;
	r->out[0] = r->err[0] = 0;
}

/* Runs vbctl with these arguments (NULL-terminated) and input (may be
   NULL), as root or nobody, to completion; its exit code. */
static int run_as(bool nobody, const char *input, const char *arg, ...)
{
	char *argv[32] = { "vbctl" };
	struct proc p;
	va_list ap;
	int n = 1;

	va_start(ap, arg);
	for (; arg && n < 31; arg = va_arg(ap, const char *))
		argv[n++] = (char *)arg;
	va_end(ap);
	argv[n] = NULL;
	run_reset(&res);
	if (spawn(&p, nobody, argv))
		return -1;
	if (input && write(p.in, input, strlen(input)) != (ssize_t)strlen(input))
		return -1;
	finish(&p, &res);
	return res.status;
}

#define vbctl(...) run_as(false, NULL, __VA_ARGS__, NULL)
#define vbctl_in(input, ...) run_as(false, input, __VA_ARGS__, NULL)

/* Waits until the started vbctl printed text on stderr (into r). */
static int wait_stderr(struct proc *p, struct run *r, const char *text)
{
	struct pollfd pfd = { p->err, POLLIN, 0 };

	while (!strstr(r->err, text)) {
		if (poll(&pfd, 1, WAIT_MS) != 1 ||
		    !drain(p->err, r->err, sizeof(r->err), &r->err_len))
			return -1;
	}
	return 0;
}

/* Waits until the started vbctl printed text n times on stdout (into r). */
static int wait_stdout(struct proc *p, struct run *r, const char *text, int n);

/* ---- checking what it printed ---- */

/* Every non-empty line that starts like JSON is valid JSON; how many. */
static int json_lines(const char *text, const char **bad)
{
	const char *line = text, *end;
	int n = 0;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (end == line || (*line != '{' && *line != '['))
			continue;
		if (json_check(line, end - line, NULL)) {
			*bad = line;
			return -1;
		}
		n++;
	}
	return n;
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)); text += strlen(what))
		n++;
	return n;
}

#define EXPECT_JSON_LINES(n) do { \
	const char *bad_ = ""; \
	EXPECT_EQ(n, json_lines(res.out, &bad_)) \
		TH_LOG("JSON lines: bad at: %.200s\nall: %.2000s", bad_, res.out); \
} while (0)

#define EXPECT_OUT(text) EXPECT_NE(NULL, strstr(res.out, text)) \
	TH_LOG("stdout lacks '%s':\n%.2000s", text, res.out)
#define EXPECT_ERR(text) EXPECT_NE(NULL, strstr(res.err, text)) \
	TH_LOG("stderr lacks '%s':\n%.2000s", text, res.err)

static int wait_stdout(struct proc *p, struct run *r, const char *text, int n)
{
	struct pollfd pfd = { p->out, POLLIN, 0 };

	while (count(r->out, text) < n) {
		if (poll(&pfd, 1, WAIT_MS) != 1 ||
		    !drain(p->out, r->out, sizeof(r->out), &r->out_len))
			return -1;
	}
	return 0;
}

/* "M:m" of path's filesystem. */
static const char *dev_of(const char *path, char *buf)
{
	struct stat st;

	if (stat(path, &st))
		return "?";
	snprintf(buf, 24, "%u:%u", major(st.st_dev), minor(st.st_dev));
	return buf;
}

/* ---- usage ---- */

TEST(help_lists_commands_and_exit_codes)
{
	EXPECT_EQ(0, vbctl("--help"));
	EXPECT_OUT("\n  version");
	EXPECT_OUT("\n  watch PATH");
	EXPECT_OUT("\n  unwatch PATH");
	EXPECT_OUT("\n  list");
	EXPECT_OUT("\n  barrier PATH");
	EXPECT_OUT("\n  stats");
	EXPECT_OUT("\n  stream PATH");
	EXPECT_OUT("exit status");
	EXPECT_OUT("--stdin");
	EXPECT_OUT("--async");
	EXPECT_EQ(2, vbctl_in(NULL, NULL));
	EXPECT_ERR("usage: vbctl COMMAND");
	EXPECT_EQ(0, vbctl("barrier", "--help"));
	EXPECT_OUT("usage: vbctl barrier");
}

TEST(bad_usage_is_exit_2_and_says_why)
{
	EXPECT_EQ(2, vbctl("frob"));
	EXPECT_ERR("unknown command 'frob'");
	EXPECT_EQ(2, vbctl("barrier", "--bogus", "/tmp"));
	EXPECT_ERR("unknown option '--bogus'");
	EXPECT_EQ(2, vbctl("barrier", "-z", "/tmp"));
	EXPECT_ERR("unknown option '-z'");
	EXPECT_EQ(2, vbctl("barrier", "/tmp", "--timeout", "abc"));
	EXPECT_ERR("'abc' is not a number");
	EXPECT_EQ(2, vbctl("barrier", "/tmp", "--timeout", "-5"));
	EXPECT_ERR("'-5' is not a number");
	EXPECT_EQ(2, vbctl("barrier", "/tmp", "--timeout"));
	EXPECT_ERR("--timeout needs a value");
	EXPECT_EQ(2, vbctl("barrier"));
	EXPECT_ERR("one PATH, or --all");
	EXPECT_EQ(2, vbctl("barrier", "/tmp", "/"));
	EXPECT_EQ(2, vbctl("barrier", "/tmp", "--async", "--expedited"));
	EXPECT_ERR("--expedited does not apply to --async");
	EXPECT_EQ(2, vbctl("barrier", "--all", "--fence"));
	EXPECT_ERR("--fence is for one PATH");
	EXPECT_EQ(2, vbctl("barrier", "/tmp", "--fence", "--async"));
	EXPECT_ERR("--fence is for one PATH");
	EXPECT_EQ(2, vbctl("stream", "/tmp", "--reasons", "create,bogus"));
	EXPECT_ERR("unknown reason 'bogus'");
	EXPECT_EQ(2, vbctl("stream", "/tmp", "--ring", "1e9"));
	EXPECT_EQ(2, vbctl("stream"));
	EXPECT_ERR("no PATH");
	EXPECT_EQ(2, vbctl("watch"));
	EXPECT_EQ(2, vbctl("unwatch"));
	EXPECT_EQ(2, vbctl("stats", "/tmp"));
	EXPECT_EQ(2, vbctl("list", "/tmp"));
	EXPECT_EQ(2, vbctl("version", "extra"));
}

TEST(version_text_and_json)
{
	char abi[32];

	EXPECT_EQ(0, vbctl("version"));
	snprintf(abi, sizeof(abi), "ABI %u", VFSB_ABI_VERSION);
	EXPECT_OUT("vfsbarrier module ");
	EXPECT_OUT(abi);
	EXPECT_OUT("features: barrier async_barrier records rescan watch_id intent refuse_unwaited checkpoint_kept journal_coalesce new_dirs");
	EXPECT_OUT("hooks: ");
	EXPECT_OUT("coverage: ");
	EXPECT_EQ(0, vbctl("version", "--json"));
	EXPECT_JSON_LINES(1);
	snprintf(abi, sizeof(abi), "\"abi_version\":%u", VFSB_ABI_VERSION);
	EXPECT_OUT(abi);
	EXPECT_OUT("\"features\":[\"barrier\",\"async_barrier\",\"records\",\"rescan\",\"watch_id\",\"intent\",\"refuse_unwaited\",\"checkpoint_kept\",\"journal_coalesce\",\"new_dirs\"]");
	EXPECT_OUT("\"hooks\":\"");
	EXPECT_OUT("\"coverage\":[");
}

TEST(bad_path_is_exit_2)
{
	EXPECT_EQ(2, vbctl("barrier", "/nonexistent"));
	EXPECT_ERR("/nonexistent: No such file or directory");
	EXPECT_EQ(2, vbctl("watch", "/nonexistent"));
	EXPECT_ERR("/nonexistent: No such file or directory");
	EXPECT_EQ(2, vbctl("barrier", "--all", "/nonexistent"));
	EXPECT_EQ(2, vbctl("stream", "/nonexistent", "--count", "1"));
}

TEST(unwatched_fs_is_exit_1)
{
	ASSERT_EQ(0, mount_tmpfs(DIR_U));
	EXPECT_EQ(1, vbctl("barrier", DIR_U));
	EXPECT_ERR("no one watches this filesystem");
	EXPECT_EQ(1, vbctl("barrier", DIR_U, "--async"));
	EXPECT_ERR("no one watches this filesystem");
	EXPECT_EQ(1, vbctl("barrier", "--all", DIR_U));
	EXPECT_ERR("no one watches this filesystem");
	/* a lone vbctl watches nothing: nothing to unwatch, and it says so */
	EXPECT_EQ(1, vbctl("unwatch", DIR_U));
	EXPECT_ERR("a watch belongs to the process that made it");
	umount2(DIR_U, MNT_DETACH);
}

TEST(non_root_is_exit_2)
{
	EXPECT_EQ(2, run_as(true, NULL, "version", NULL));
	EXPECT_ERR("permission denied: vbctl must run as root");
	EXPECT_EQ(2, run_as(true, NULL, "stats", "--json", NULL));
	EXPECT_ERR("permission denied");
	EXPECT_EQ(0, res.out_len) TH_LOG("printed: %s", res.out);
	EXPECT_EQ(2, run_as(true, NULL, "barrier", "/tmp", NULL));
	EXPECT_ERR("permission denied");
}

/* ---- on a watched filesystem ---- */

FIXTURE(watched) {
	int dev;		/* watches DIR_W */
	char sbdev[24];
};

FIXTURE_SETUP(watched)
{
	self->dev = -1;
	ASSERT_EQ(0, mount_tmpfs(DIR_W));
	self->dev = vfsb_open();
	ASSERT_LE(0, self->dev);
	ASSERT_EQ(0, vfsb_watch_path(self->dev, DIR_W));
	dev_of(DIR_W, self->sbdev);
}

FIXTURE_TEARDOWN(watched)
{
	if (self->dev >= 0)
		close(self->dev);
	umount2(DIR_W, MNT_DETACH);
}

TEST_F(watched, barrier_sync_async_all)
{
	EXPECT_EQ(0, vbctl("barrier", DIR_W));
	EXPECT_OUT("barrier on " DIR_W " complete after ");
	EXPECT_EQ(0, vbctl("barrier", DIR_W, "--timeout", "5000", "--expedited"));
	EXPECT_OUT("complete after ");
	/* a consumer's first full scan: every write in progress, too */
	EXPECT_EQ(0, vbctl("barrier", DIR_W, "--fence", "--timeout", "5000"));
	EXPECT_OUT("fenced barrier on " DIR_W " complete after ");
	EXPECT_EQ(0, vbctl("barrier", DIR_W, "--async"));
	EXPECT_OUT("started: cookie ");
	EXPECT_OUT(" ms (cookie ");
	EXPECT_EQ(0, vbctl("barrier", "--all", DIR_W, "--timeout", "5000"));
	EXPECT_OUT("barrier on " DIR_W " complete after ");
	/* without PATH: every filesystem someone watches, this one too */
	EXPECT_EQ(0, vbctl("barrier", "--all"));
	EXPECT_OUT("barrier on every watched filesystem (");
	EXPECT_EQ(NULL, strstr(res.out, "(0)")) TH_LOG("%s", res.out);
	EXPECT_EQ(0, vbctl("barrier", "--all", "--async"));
	EXPECT_OUT("(cookie ");
}

TEST_F(watched, barrier_times_out_while_a_write_is_held)
{
	struct uffd_hold h;
	int fd = open(DIR_W "/held", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uffd_hold_start(&h, fd));
	EXPECT_EQ(1, vbctl("barrier", DIR_W, "--timeout", "200"));
	EXPECT_ERR("timed out; writes are still in flight");
	EXPECT_EQ(1, vbctl("barrier", DIR_W, "--timeout", "200", "--async"));
	EXPECT_ERR("timed out");
	EXPECT_EQ(1, vbctl("barrier", "--all", "--timeout", "200"));
	EXPECT_ERR("timed out");
	EXPECT_EQ((ssize_t)h.u.page, uffd_hold_release(&h));
	EXPECT_EQ(0, vbctl("barrier", DIR_W));
	close(fd);
}

TEST_F(watched, stats_and_list_text_and_json)
{
	char want[128];

	EXPECT_EQ(0, vbctl("stats"));
	EXPECT_OUT("DEV       FSTYPE   WATCHERS");
	EXPECT_OUT(self->sbdev);
	EXPECT_EQ(0, vbctl("stats", "--json"));
	EXPECT_JSON_LINES(1);
	snprintf(want, sizeof(want), "{\"dev\":\"%s\",\"fstype\":\"tmpfs\"", self->sbdev);
	EXPECT_OUT(want);
	EXPECT_OUT("\"unmounted\":false");
	EXPECT_OUT("\"records_lost\":");
	/* run alone, list shows what the module tracks, with mount points */
	EXPECT_EQ(0, vbctl("list"));
	EXPECT_OUT(DIR_W);
	EXPECT_EQ(0, vbctl("list", "--json"));
	EXPECT_JSON_LINES(1);
	EXPECT_OUT(want);
	EXPECT_OUT("\"mount\":\"" DIR_W "\"");
}

/* More filesystems than vbctl once showed: all of them, in every form. */
TEST_F_TIMEOUT(watched, stats_shows_every_filesystem, 300)
{
	char path[64];
	int i, n;

	mkdir(DIR_MANY, 0755);
	for (i = 0; i < NMANY; i++) {
		snprintf(path, sizeof(path), DIR_MANY "/%d", i);
		ASSERT_EQ(0, mount_tmpfs(path)) TH_LOG("%s", path);
		ASSERT_EQ(0, vfsb_watch_path(self->dev, path)) TH_LOG("%s", path);
	}
	EXPECT_EQ(0, vbctl("stats", "--json"));
	EXPECT_JSON_LINES(1);
	n = count(res.out, "\"dev\":");
	EXPECT_LE(NMANY + 1, n);
	EXPECT_EQ(0, vbctl("stats"));
	EXPECT_LE(NMANY + 2, count(res.out, "\n"));
	EXPECT_EQ(0, vbctl("list", "--json"));
	EXPECT_JSON_LINES(1);
	EXPECT_EQ(n, count(res.out, "\"dev\":"));
	EXPECT_LE(NMANY, count(res.out, "\"mount\":\"" DIR_MANY "/"));
	/* all of them, whatever else is tracked (and being freed) */
	EXPECT_EQ(0, vbctl("barrier", "--all"));
	ASSERT_NE(NULL, strstr(res.out, "every watched filesystem ("));
	EXPECT_LE(NMANY + 1, atoi(strstr(res.out, "filesystem (") + strlen("filesystem (")));
	for (i = 0; i < NMANY; i++) {
		snprintf(path, sizeof(path), DIR_MANY "/%d", i);
		umount2(path, MNT_DETACH);
	}
}

/* A session: the watches of `watch --stdin` are what its commands see. */
TEST_F(watched, session_watch_unwatch_list)
{
	char want[128], *line;

	EXPECT_EQ(0, vbctl_in("list --json\n"
			      "unwatch " DIR_W "\n"
			      "list --json\n"
			      "# a comment, and an empty line\n\n"
			      "watch " DIR_W "\n"
			      "barrier --all\n"
			      "barrier --all --async\n"
			      "list\n"
			      "stats --json\n",
			      "watch", DIR_W, "--stdin"));
	EXPECT_EQ(0, res.err_len) TH_LOG("stderr: %s", res.err);
	EXPECT_JSON_LINES(3);
	snprintf(want, sizeof(want), "watching " DIR_W " (dev %s)\n[{\"dev\":\"%s\"",
		 self->sbdev, self->sbdev);
	EXPECT_OUT(want);
	snprintf(want, sizeof(want), "unwatched " DIR_W " (dev %s)\n[]\n", self->sbdev);
	EXPECT_OUT(want);
	EXPECT_OUT("barrier on this session's watches complete after ");
	EXPECT_OUT("barrier on this session's watches started: cookie ");
	/* two watchers: the fixture's and the session's */
	line = strstr(res.out, "DEV       FSTYPE   WATCHERS MOUNT\n");
	ASSERT_NE(NULL, line) TH_LOG("%s", res.out);
	snprintf(want, sizeof(want), "%-9s %-8s %8u %s\n", self->sbdev, "tmpfs", 2, DIR_W);
	EXPECT_EQ(0, strncmp(line + strlen("DEV       FSTYPE   WATCHERS MOUNT\n"),
			     want, strlen(want))) TH_LOG("%s", line);
}

TEST_F(watched, session_errors_set_the_exit_code)
{
	EXPECT_EQ(1, vbctl_in("unwatch " DIR_W "\nunwatch " DIR_W "\nlist\n",
			      "watch", DIR_W, "--stdin"));
	EXPECT_ERR("this session does not watch it");
	EXPECT_OUT("unwatched " DIR_W);
	EXPECT_EQ(2, vbctl_in("frob\nbarrier --all " DIR_W "\nstream " DIR_W "\n",
			      "watch", DIR_W, "--stdin"));
	EXPECT_ERR("unknown command 'frob'");
	EXPECT_ERR("--all in a session is its watches: no PATH");
	EXPECT_ERR("stream: not in a session");
	EXPECT_EQ(2, vbctl_in("watch " DIR_W " --stdin\n", "watch", DIR_W, "--stdin"));
	EXPECT_ERR("this is a session already");
	EXPECT_EQ(1, vbctl_in("watch " DIR_W "\n", "watch", DIR_W, "--stdin"));
	EXPECT_ERR("already watched by this process");
}

/*
 * watch --follow: the filesystem mounted at PATH is watched, the watch
 * of one that is unmounted is dropped (no dead watch left), and the next
 * one mounted there is watched.
 */
TEST(watch_follow_rewatches_after_remount)
{
	char *argv[] = { "vbctl", "watch", "--follow", DIR_F, NULL };
	char want[160], dev1[24], dev2[24];
	struct vfsb_sb_stats st, *all = NULL;
	unsigned int i, n = 0;
	struct proc p;
	int dev;

	mkdir("/tmp/vbctl-plain", 0755);
	EXPECT_EQ(2, vbctl("watch", "--follow", "/tmp/vbctl-plain"));
	EXPECT_ERR("is not a mount point");
	EXPECT_EQ(2, vbctl("watch", "--follow", "--stdin", "/tmp/vbctl-plain"));
	EXPECT_ERR("do not go together");

	ASSERT_EQ(0, mount_tmpfs(DIR_F));
	dev_of(DIR_F, dev1);
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	run_reset(&res);
	ASSERT_EQ(0, spawn(&p, false, argv));
	snprintf(want, sizeof(want), "watching " DIR_F " (dev %s)\n", dev1);
	ASSERT_EQ(0, wait_stdout(&p, &res, want, 1)) TH_LOG("%s%s", res.out, res.err);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_F, &st));
	EXPECT_EQ(1, st.watchers);

	ASSERT_EQ(0, umount(DIR_F));
	snprintf(want, sizeof(want), "unmounted " DIR_F " (dev %s): watch dropped\n",
		 dev1);
	ASSERT_EQ(0, wait_stdout(&p, &res, want, 1)) TH_LOG("%s%s", res.out, res.err);
	ASSERT_EQ(0, mount_tmpfs(DIR_F));
	dev_of(DIR_F, dev2);
	ASSERT_EQ(0, wait_stdout(&p, &res, "watching " DIR_F " (dev ", 2))
		TH_LOG("%s%s", res.out, res.err);
	snprintf(want, sizeof(want), "watching " DIR_F " (dev %s)\n", dev2);
	EXPECT_OUT(want);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_F, &st));
	EXPECT_EQ(1, st.watchers);
	/* the unmounted one's watch was dropped: nothing tracks it */
	ASSERT_EQ(0, vfsb_stats(dev, &all, &n));
	for (i = 0; i < n; i++)
		EXPECT_FALSE(all[i].flags & VFSB_STATS_UNMOUNTED);
	free(all);

	kill(p.pid, SIGTERM);
	finish(&p, &res);
	EXPECT_EQ(0, res.status) TH_LOG("stderr: %s", res.err);
	close(dev);
	umount(DIR_F);
}

/* ---- the record stream ---- */

/* Starts vbctl stream with these arguments; returns once it subscribed. */
static int stream_start(struct proc *p, char *const argv[])
{
	run_reset(&res);
	if (spawn(p, false, argv))
		return -1;
	return wait_stderr(p, &res, "streaming (journal id ");
}

TEST_F(watched, stream_json_lines)
{
	char *argv[] = { "vbctl", "stream", DIR_W, "--json", "--count", "4", NULL };
	char want[128];
	struct proc p;

	ASSERT_EQ(0, stream_start(&p, argv)) TH_LOG("stderr: %s", res.err);
	EXPECT_EQ(0, mkdir(DIR_W "/s", 0755));
	EXPECT_EQ(0, touch(DIR_W "/s/f"));
	EXPECT_EQ(0, unlink(DIR_W "/s/f"));
	/* a name that is not UTF-8: still valid JSON, every byte kept */
	EXPECT_EQ(0, touch(DIR_W "/s/\xff\xfe"));
	finish(&p, &res);
	EXPECT_EQ(0, res.status) TH_LOG("stderr: %s", res.err);
	EXPECT_JSON_LINES(4);
	snprintf(want, sizeof(want), "\"dev\":\"%s\",\"reasons\":\"create\",\"dir\":true",
		 self->sbdev);
	EXPECT_OUT(want);
	EXPECT_OUT("\"name\":\"s\"");
	EXPECT_OUT("\"reasons\":\"delete\"");
	EXPECT_OUT("\"name\":\"f\"");
	EXPECT_OUT("\"name\":\"\\ufffd\\ufffd\",\"name_hex\":\"fffe\"");
	EXPECT_OUT("\"parent_path\":\"" DIR_W "/s\"");
	/* every object names its shape's version (vbctl(8)) */
	EXPECT_EQ(4, count(res.out, "{\"type\":\"change\",\"version\":1,\"seq\":"));
	/* what a consumer keys on: the filesystem and the objects' handles */
	EXPECT_EQ(4, count(res.out, "\"fs_uuid\":\""));
	EXPECT_EQ(4, count(res.out, "\"parent_generation\":"));
	EXPECT_EQ(4, count(res.out, "\"parent_handle\":\""));
	EXPECT_LE(1, count(res.out, "\"handle\":\""));
}

TEST_F(watched, stream_text_and_reasons)
{
	char *text[] = { "vbctl", "stream", DIR_W, "--count", "1", NULL };
	char *deletes[] = { "vbctl", "stream", DIR_W, "--json", "--reasons",
			    "DELETE", "--count", "1", NULL };
	struct proc p;

	ASSERT_EQ(0, stream_start(&p, text)) TH_LOG("stderr: %s", res.err);
	EXPECT_EQ(0, touch(DIR_W "/t1"));
	finish(&p, &res);
	EXPECT_EQ(0, res.status);
	EXPECT_OUT("create");
	EXPECT_OUT(DIR_W " name=t1 pid=");
	/* the filter passes the delete only */
	ASSERT_EQ(0, stream_start(&p, deletes)) TH_LOG("stderr: %s", res.err);
	EXPECT_EQ(0, touch(DIR_W "/t2"));
	EXPECT_EQ(0, unlink(DIR_W "/t2"));
	finish(&p, &res);
	EXPECT_EQ(0, res.status);
	EXPECT_JSON_LINES(1);
	EXPECT_OUT("\"reasons\":\"delete\"");
	EXPECT_OUT("\"name\":\"t2\"");
}

/* A name with a newline, a backslash and a byte that is not UTF-8: one
   line, escaped; in JSON, name_hex beside it. */
TEST_F(watched, stream_escapes_names)
{
	char *text[] = { "vbctl", "stream", DIR_W, "--count", "1", NULL };
	char *json[] = { "vbctl", "stream", DIR_W, "--json", "--count", "1",
			 NULL };
	struct proc p;

	ASSERT_EQ(0, stream_start(&p, text)) TH_LOG("stderr: %s", res.err);
	EXPECT_EQ(0, touch(DIR_W "/n\nx\\y\xff"));
	finish(&p, &res);
	EXPECT_EQ(0, res.status);
	EXPECT_OUT(" name=n\\nx\\\\y\\xff pid=");
	EXPECT_EQ(1, count(res.out, "\n"));
	ASSERT_EQ(0, stream_start(&p, json)) TH_LOG("stderr: %s", res.err);
	EXPECT_EQ(0, touch(DIR_W "/m\xff"));
	finish(&p, &res);
	EXPECT_EQ(0, res.status);
	EXPECT_JSON_LINES(1);
	EXPECT_OUT("\"name_hex\":\"6dff\"");
}

/* A small ring that the stopped reader lets fill: the overflow is told,
   in valid JSON, and SIGINT ends the stream after what is left. */
TEST_F(watched, stream_overflow_json)
{
	char *argv[] = { "vbctl", "stream", DIR_W, "--json", "--ring", "16384", NULL };
	char path[64], want[128];
	struct proc p;
	int i, n;

	ASSERT_EQ(0, stream_start(&p, argv)) TH_LOG("stderr: %s", res.err);
	ASSERT_EQ(0, kill(p.pid, SIGSTOP));
	for (i = 0; i < 400; i++) {
		snprintf(path, sizeof(path), DIR_W "/o%d", i);
		ASSERT_EQ(0, touch(path));
	}
	ASSERT_EQ(0, kill(p.pid, SIGCONT));
	ASSERT_EQ(0, kill(p.pid, SIGINT));
	finish(&p, &res);
	EXPECT_EQ(0, res.status) TH_LOG("stderr: %s", res.err);
	n = count(res.out, "\n");
	EXPECT_LT(1, n);
	EXPECT_JSON_LINES(n);
	snprintf(want, sizeof(want), "\"devs\":[\"%s\"],\"more_devs\":false}", self->sbdev);
	EXPECT_OUT("{\"type\":\"overflow\",\"version\":1,\"seq\":");
	EXPECT_OUT(want);
}

/* an empty fixture, for TEST_F_TIMEOUT: the module's teardown after
   the tests above takes seconds under TCG */
FIXTURE(module) {
	int unused;
};

FIXTURE_SETUP(module)
{
}

FIXTURE_TEARDOWN(module)
{
}

/* Last: the module goes, and comes back for the programs after this. */
TEST_F_TIMEOUT(module, no_module_is_exit_2, 120)
{
	ASSERT_EQ(0, vfsb_module_wait_refcnt(0, 30000));
	ASSERT_EQ(0, vfsb_module_unload());
	EXPECT_EQ(2, vbctl("version"));
	EXPECT_ERR("is the vfsbarrier module loaded?");
	EXPECT_EQ(2, vbctl("stats", "--json"));
	EXPECT_ERR("is the vfsbarrier module loaded?");
	EXPECT_EQ(0, res.out_len);
	ASSERT_EQ(0, vfsb_module_load());
	EXPECT_EQ(0, vfsb_wait_device(5000));
	EXPECT_EQ(0, vbctl("version"));
}

TEST_HARNESS_MAIN
