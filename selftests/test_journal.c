// SPDX-License-Identifier: GPL-2.0
/*
 * vbjournald and vbjournal as a user runs them: the daemon journals a
 * watched tmpfs into a journal on another tmpfs; changes are made by
 * this test (they wait for the daemon's acks); checkpoints close
 * epochs; vbjournal names the directories that changed since a cursor,
 * and no other; cursors it cannot answer are refused; a daemon killed
 * in the middle of an epoch loses nothing and leaves a gap.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <sqlite3.h>

#include "vfsb.h"
#include "hold_calls.h"
#include "modparam.h"
#include "svcmgr.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define DIR_W	"/tmp/jn-w"	/* watched */
#define DIR_J	"/tmp/jn-j"	/* the journal's filesystem */
#define JOURNAL	DIR_J "/journal"
#define DIR_X	"/tmp/jn-x"	/* watched ext4 */
#define DIR_R	"/tmp/jn-r"	/* the same ext4, mounted unwatched */
#define DIR_O	"/tmp/jn-o"	/* another watched tmpfs */
#define BOOT_ID	"/proc/sys/kernel/random/boot_id"

/* The filesystem the daemon watches. */
static const char *watched = DIR_W;

/* The service manager daemon_start() starts it under (NULL: none). */
static struct svcmgr *mgr;

/* A tool next to this test (the guest's bin directory). */
static const char *tool(const char *name)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	char *slash;

	if (n < 0)
		return name;
	path[n] = 0;
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, name);
	return path;
}

static char out[1 << 16];

/* The journal vbjournal() asks. */
static const char *journal = JOURNAL;

/* Runs vbjournal --journal journal args...; stdout in out; exit code. */
static int vbjournal(const char *arg, ...)
{
	char *argv[16] = { "vbjournal", "--journal", (char *)journal };
	int p[2], n = 3, status;
	size_t len = 0;
	ssize_t got;
	va_list ap;
	pid_t pid;

	va_start(ap, arg);
	for (; arg && n < 15; arg = va_arg(ap, const char *))
		argv[n++] = (char *)arg;
	va_end(ap);
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		execv(tool("vbjournal"), argv);
		_exit(127);
	}
	close(p[1]);
	while ((got = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += got;
	out[len] = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The daemon, its stdout (a pipe), and the line it printed last. */
struct daemon {
	pid_t pid;
	int out;
	char line[256];
};

/* Reads the daemon's next line (20 s at most): 0 or -ETIMEDOUT. */
static int daemon_line(struct daemon *d)
{
	struct pollfd p = { .fd = d->out, .events = POLLIN };
	size_t len = 0;
	char c;

	while (len + 1 < sizeof(d->line)) {
		if (poll(&p, 1, 20000) != 1 || read(d->out, &c, 1) != 1)
			return -ETIMEDOUT;
		if (c == '\n')
			break;
		d->line[len++] = c;
	}
	d->line[len] = 0;
	return 0;
}

/* Where the next daemon_start() sends the daemon's stderr (NULL: ours). */
static const char *daemon_err;

/* Whether daemon_start() waits for the daemon's first line (it is ready). */
static bool daemon_ready = true;

/* Starts vbjournald on watched (extra: one more argument, or NULL). */
static int daemon_start(struct daemon *d, const char *journal,
			const char *extra)
{
	char *argv[] = { "vbjournald", "--fs", (char *)watched, "--journal",
			 (char *)journal, "--interval", "3600000",
			 (char *)extra, NULL };
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	d->pid = fork();
	if (!d->pid) {
		int err = daemon_err ? open(daemon_err, O_WRONLY | O_CREAT |
					    O_APPEND, 0644) : -1;

		if (err >= 0)
			dup2(err, 2);
		dup2(p[1], 1);
		/* a test that fails half-way leaves no daemon behind */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (mgr)
			svcmgr_child(mgr, true);
		execv(tool("vbjournald"), argv);
		_exit(127);
	}
	close(p[1]);
	d->out = p[0];
	return daemon_ready ? daemon_line(d) : 0;
}

static int daemon_stop(struct daemon *d, int sig)
{
	int status;

	kill(d->pid, sig);
	waitpid(d->pid, &status, 0);
	close(d->out);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A checkpoint through vbjournal; the cursor it printed into cur. */
static int checkpoint(char *cur, size_t sz)
{
	int ret = vbjournal("checkpoint", NULL);

	snprintf(cur, sz, "%.63s", out);
	cur[strcspn(cur, "\n")] = 0;
	return ret;
}

/* How often text is in file path (the daemon's log). */
static int count_in(const char *path, const char *text)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0;
	ssize_t len;
	char *p;

	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[len > 0 ? len : 0] = 0;
	for (p = buf; (p = strstr(p, text)); p += strlen(text))
		n++;
	return n;
}

/*
 * Waits (20 s at most) until text is in the daemon's log at least n
 * times: 0, or -ETIMEDOUT. An event to wait for, not a race to win.
 */
static int wait_log(const char *path, const char *text, int n)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (count_in(path, text) >= n)
			return 0;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* Whether the daemon still runs (has not exited or been killed). */
static bool alive(struct daemon *d)
{
	int status;

	return waitpid(d->pid, &status, WNOHANG) == 0;
}

static bool listed(const char *dir)
{
	char line[PATH_MAX + 8];

	snprintf(line, sizeof(line), "dir %s\n", dir);
	return strstr(out, line);
}

static int setup(void)
{
	int ret = mount_tmpfs(DIR_W);

	if (!ret)
		ret = mount_tmpfs(DIR_J);
	if (ret)
		return ret;
	if (mkdir(DIR_W "/a", 0755) || mkdir(DIR_W "/a/b", 0755) ||
	    mkdir(DIR_W "/c", 0755) || mkdir(DIR_W "/c/d", 0755) ||
	    mkdir(DIR_W "/e", 0755) || put_file(DIR_W "/c/d/f", "x"))
		return -errno;
	return 0;
}

static void teardown(void)
{
	umount2(DIR_W, MNT_DETACH);
	umount2(DIR_J, MNT_DETACH);
}

TEST(changes_since_a_cursor_name_what_changed)
{
	struct daemon d;
	char c0[64], c1[64], line[128];
	int fd;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_NE(NULL, strstr(d.line, "vbjournald: journal "));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));

	/* changes in a/b, c/d (data) and e (mkdir), none in a or c */
	ASSERT_EQ(0, put_file(DIR_W "/a/b/new", "n"));
	fd = open(DIR_W "/c/d/f", O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "y", 1));
	close(fd);
	ASSERT_EQ(0, mkdir(DIR_W "/e/x", 0755));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	EXPECT_NE(0, strcmp(c0, c1));

	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/a/b"));
	EXPECT_TRUE(listed(DIR_W "/c/d"));
	EXPECT_TRUE(listed(DIR_W "/e"));
	EXPECT_FALSE(listed(DIR_W "/a"));
	EXPECT_FALSE(listed(DIR_W "/c"));
	EXPECT_FALSE(listed(DIR_W));
	snprintf(line, sizeof(line), "cursor %s\n", c1);
	EXPECT_NE(NULL, strstr(out, line));
	TH_LOG("changes since %s:\n%s", c0, out);

	/* a subtree: one range of the path index */
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--under",
			       DIR_W "/a", NULL));
	EXPECT_TRUE(listed(DIR_W "/a/b"));
	EXPECT_FALSE(listed(DIR_W "/c/d"));
	EXPECT_FALSE(listed(DIR_W "/e"));

	/* nothing since the last checkpoint */
	ASSERT_EQ(0, vbjournal("changes", "--since", c1, NULL));
	EXPECT_EQ(NULL, strstr(out, "dir "));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--json", NULL));
	EXPECT_NE(NULL, strstr(out, "\"path\":\"" DIR_W "/e\""));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/* Cursors of another journal, or ahead of this one: full rescan. */
TEST(unanswerable_cursors_require_a_full_rescan)
{
	struct daemon d;
	char c0[64], bad[80];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	EXPECT_EQ(3, vbjournal("changes", "--since", "0123456789abcdef:1",
			       NULL));
	EXPECT_NE(NULL, strstr(out, "full rescan required: the cursor is of "
			       "another journal"));
	snprintf(bad, sizeof(bad), "%.16s:999999", c0);
	EXPECT_EQ(3, vbjournal("changes", "--since", bad, NULL));
	EXPECT_NE(NULL, strstr(out, "ahead"));
	/* malformed: a usage error, not a cursor it cannot answer */
	EXPECT_EQ(2, vbjournal("changes", "--since", "garbage", NULL));
	EXPECT_EQ(2, vbjournal("changes", NULL));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/* A journal on a filesystem it watches is refused, unless forced. */
TEST(journal_inside_a_watched_filesystem_is_refused)
{
	struct daemon d;

	ASSERT_EQ(0, setup());
	EXPECT_NE(0, daemon_start(&d, DIR_W "/journal", NULL));
	EXPECT_EQ(1, daemon_stop(&d, 0));
	ASSERT_EQ(0, daemon_start(&d, DIR_W "/journal", "--force"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * A daemon killed in the middle of an epoch: the intents it acked were
 * durable, so after a restart the changes are still named; the time it
 * was not running is a gap on the filesystem.
 */
TEST(killed_daemon_loses_nothing_and_reports_the_gap)
{
	struct daemon d;
	char c0[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	/* acked (the call returned), never checkpointed */
	ASSERT_EQ(0, mkdir(DIR_W "/a/b/k", 0755));
	EXPECT_EQ(128 + SIGKILL, daemon_stop(&d, SIGKILL));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/a/b"));
	EXPECT_NE(NULL, strstr(out, "rescan fs " DIR_W " (daemon_died)"));
	TH_LOG("after the restart:\n%s", out);
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * A change that went on without its ack (here: the daemon stopped, the
 * writer's wait timed out, fail-open) gets a VFSB_RESCAN_INTENT notice
 * from the module; but its record, which names the directory, came
 * before that notice and is committed with it: the journal names the
 * directory, and does not turn the notice into a rescan of the whole
 * filesystem.
 */
TEST(unacked_change_is_named_not_a_rescan)
{
	struct daemon d;
	char c0[64];
	int fd;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, "--timeout=1s"));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, kill(d.pid, SIGSTOP));
	fd = open(DIR_W "/c/d/f", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	/* waits its second, then goes on unacked */
	EXPECT_EQ(2, write(fd, "ok", 2));
	close(fd);
	ASSERT_EQ(0, kill(d.pid, SIGCONT));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/c/d"));
	EXPECT_EQ(NULL, strstr(out, "rescan fs"));
	TH_LOG("%s", out);
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * --refuse-unwaited refuses only what cannot wait: an io_uring write
 * waits for its ack in an io-wq worker and lands at once, with no
 * EAGAIN to retry, and the journal names its directory with no gap.
 */
TEST(io_uring_write_waits_with_refuse_unwaited)
{
	struct daemon d;
	char c0[64];
	int fd, ret;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, "--refuse-unwaited"));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	fd = open(DIR_W "/c/d/f", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ret = uring_write1(fd, "io", 2, 0);
	close(fd);
	if (ret == -ENOSYS)
		SKIP(return, "no io_uring");
	EXPECT_EQ(0, ret);
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/c/d"));
	EXPECT_EQ(NULL, strstr(out, "rescan"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * A group of write paths the module could not hook (simulated with the
 * fail_hook knob: the shared-mapping fault) announces nothing; every
 * epoch the daemon opens meanwhile says so as a gap on the filesystem.
 */
TEST(missing_hook_group_is_a_gap)
{
	struct daemon d;
	char c0[64];
	int dev = vfsb_open();

	ASSERT_LE(0, dev);
	ASSERT_EQ(0, wait_hooks_off(dev));
	ASSERT_EQ(0, param_set("fail_hook", "do_page_mkwrite"));
	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, mkdir(DIR_W "/e/m", 0755));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("%s", out);
	EXPECT_TRUE(listed(DIR_W "/e"));
	EXPECT_NE(NULL, strstr(out, "rescan fs " DIR_W
			       " (coverage_incomplete: mmap)"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
	/* the next test gets every hook again */
	param_set("fail_hook", "\n");
	EXPECT_EQ(0, wait_hooks_off(dev));
	param_set("hooks_linger_ms", "10000");
	close(dev);
}

/*
 * A directory moved after its changes were journaled: those changes are
 * stored under its old path, so "anything under its new path since C?"
 * must still answer yes. The move names the directory as a moved
 * subtree (to treat as changed), under --under of its new place and of
 * anything inside it.
 */
TEST(moved_directory_is_found_under_its_new_path)
{
	struct daemon d;
	char c0[64], c1[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, put_file(DIR_W "/a/b/new", "n"));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	/* journaled, with the path it had then */
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	ASSERT_TRUE(listed(DIR_W "/a/b"));

	ASSERT_EQ(0, rename(DIR_W "/a", DIR_W "/e/a2"));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--under",
			       DIR_W "/e/a2/b", NULL));
	TH_LOG("under e/a2/b since %s:\n%s", c0, out);
	EXPECT_NE(NULL, strstr(out, "moved " DIR_W "/e/a2\n"));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--under",
			       DIR_W "/e", NULL));
	EXPECT_NE(NULL, strstr(out, "moved " DIR_W "/e/a2\n"));
	EXPECT_TRUE(listed(DIR_W "/e"));
	/* elsewhere it is not named */
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--under",
			       DIR_W "/c", NULL));
	EXPECT_EQ(NULL, strstr(out, "moved "));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--json", NULL));
	EXPECT_NE(NULL, strstr(out, "\"moved\":[{\"path\":\"" DIR_W
			       "/e/a2\""));
	/* a move before the cursor is not named */
	ASSERT_EQ(0, vbjournal("changes", "--since", c1, NULL));
	EXPECT_EQ(NULL, strstr(out, "moved "));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * An ext4 mounted read-write while the daemon did not watch it (here:
 * unmounted, mounted elsewhere, written, mounted back) has a mount
 * count the journal did not see: a gap on it, said as such. A restart
 * with no mount in between does not say it.
 */
TEST(unsupervised_mount_is_a_gap)
{
	const char *dev = getenv("VFSB_SCRATCH_DEV");
	struct daemon d;
	char c0[64];

	if (!dev || mount_ext4(DIR_X))
		SKIP(return, "no ext4 scratch device");
	ASSERT_EQ(0, mount_tmpfs(DIR_J));
	watched = DIR_X;
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, put_file(DIR_X "/f", "1"));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));

	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_NE(NULL, strstr(out, "rescan fs " DIR_X " (daemon_stopped)"));
	EXPECT_EQ(NULL, strstr(out, "mounted_unsupervised"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));

	ASSERT_EQ(0, umount(DIR_X));
	mkdir(DIR_R, 0755);
	ASSERT_EQ(0, mount(dev, DIR_R, "ext4", 0, NULL));
	ASSERT_EQ(0, put_file(DIR_R "/g", "2"));
	ASSERT_EQ(0, umount(DIR_R));
	ASSERT_EQ(0, mount(dev, DIR_X, "ext4", 0, NULL));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("after a mount elsewhere:\n%s", out);
	EXPECT_NE(NULL, strstr(out, "rescan fs " DIR_X " (mounted_unsupervised"
			       ": mount count 3, expected 1)"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	watched = DIR_W;
	umount2(DIR_X, MNT_DETACH);
	umount2(DIR_J, MNT_DETACH);
}

/*
 * A directory made in an acked one (or an older one changed there: a
 * chmod) counts as acked (VFSB_SUB_NEW_DIRS): what is made inside it
 * waits for nothing, and only records name it, which a crash
 * before the daemon stores them loses. The recovery must name it to be
 * read whole: a consumer may have read it (empty) before the crash, and
 * its parent's entries alone would not lead that consumer back into
 * it. Here the daemon holds its commits back and is killed, then
 * started as in a new boot (its id bound over BOOT_ID, the ext4
 * mounted again: nothing was lost from the disk, a harder case). The
 * clock is set forward past the recovery's margin once the older
 * directories are made.
 */
TEST(new_directory_a_crash_left_unstored_is_read_whole)
{
	const char *dev = getenv("VFSB_SCRATCH_DEV");
	struct daemon d;
	char c0[64];

	if (!dev || mount_ext4(DIR_X))
		SKIP(return, "no ext4 scratch device");
	ASSERT_EQ(0, mount_tmpfs(DIR_J));
	ASSERT_EQ(0, mkdir(DIR_X "/p", 0755));
	ASSERT_EQ(0, mkdir(DIR_X "/p/c", 0755));
	ASSERT_EQ(0, mkdir(DIR_X "/p/s", 0755));
	/* those older than the recovery's margin (10 s) by the clock */
	ASSERT_EQ(0, clock_step(30));
	watched = DIR_X;
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, "--commit-delay=60s"));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	/* p's intent, stored and acked; the daemon then naps */
	ASSERT_EQ(0, put_file(DIR_X "/p/a", "1"));
	ASSERT_EQ(0, mkdir(DIR_X "/p/n", 0755));
	ASSERT_EQ(0, mkdir(DIR_X "/p/n/m", 0755));
	ASSERT_EQ(0, put_file(DIR_X "/p/n/m/f", "2"));
	/* older, chmod()ed in the epoch: what is made inside waits not */
	ASSERT_EQ(0, chmod(DIR_X "/p/c", 0700));
	ASSERT_EQ(0, put_file(DIR_X "/p/c/g", "3"));
	EXPECT_EQ(128 + SIGKILL, daemon_stop(&d, SIGKILL));

	/* the next boot: its id, and the ext4 mounted again by it */
	ASSERT_EQ(0, umount(DIR_X));
	ASSERT_EQ(0, put_file("/tmp/jn-boot-nd", "00000000-0000-4000-8000-"
			      "00000000000a\n"));
	ASSERT_EQ(0, mount("/tmp/jn-boot-nd", BOOT_ID, NULL, MS_BIND, NULL));
	ASSERT_EQ(0, mount(dev, DIR_X, "ext4", 0, NULL));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("after the crash:\n%s", out);
	EXPECT_TRUE(listed(DIR_X "/p"));
	EXPECT_NE(NULL, strstr(out, "moved " DIR_X "/p/n\n"));
	EXPECT_NE(NULL, strstr(out, "moved " DIR_X "/p/c\n"));
	/* made before the epoch, left alone: not named */
	EXPECT_EQ(NULL, strstr(out, DIR_X "/p/s"));
	EXPECT_EQ(NULL, strstr(out, "rescan"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	watched = DIR_W;
	umount2(BOOT_ID, MNT_DETACH);
	umount2(DIR_X, MNT_DETACH);
	umount2(DIR_J, MNT_DETACH);
}

/*
 * A change of a directory's own attributes names the directory itself,
 * besides its parent: the module keys it by the directory too (new
 * directories: its ctime moves), and lets what follows inside go on
 * once that is durable.
 */
TEST(a_directory_changed_itself_is_named)
{
	struct daemon d;
	char c0[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, chmod(DIR_W "/c", 0700));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("changes since %s:\n%s", c0, out);
	EXPECT_TRUE(listed(DIR_W "/c"));
	EXPECT_TRUE(listed(DIR_W));
	EXPECT_FALSE(listed(DIR_W "/c/d"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * follow prints each epoch as it closes, one JSON object per line;
 * status counts what the daemon did.
 */
TEST(follow_and_status)
{
	char *argv[] = { "vbjournal", "--journal", JOURNAL, "follow",
			 "--since", NULL, "--json", NULL };
	struct daemon d, f;
	char c0[64], c1[64], *p;
	unsigned long long intents = 0;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	argv[5] = c0;
	{
		int pp[2];

		ASSERT_EQ(0, pipe2(pp, O_CLOEXEC));
		f.pid = fork();
		if (!f.pid) {
			dup2(pp[1], 1);
			execv(tool("vbjournal"), argv);
			_exit(127);
		}
		close(pp[1]);
		f.out = pp[0];
	}
	ASSERT_EQ(0, mkdir(DIR_W "/e/f1", 0755));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, daemon_line(&f));
	EXPECT_NE(NULL, strstr(f.line, "\"path\":\"" DIR_W "/e\""));
	EXPECT_NE(NULL, strstr(f.line, c1));
	EXPECT_EQ(128 + SIGTERM, daemon_stop(&f, SIGTERM));

	ASSERT_EQ(0, vbjournal("status", "--json", NULL));
	EXPECT_NE(NULL, strstr(out, "\"daemon\":\"running\""));
	p = strstr(out, "\"intents\":");
	ASSERT_NE(NULL, p);
	intents = strtoull(p + 10, NULL, 10);
	EXPECT_LE(1, intents);
	ASSERT_EQ(0, vbjournal("status", NULL));
	EXPECT_NE(NULL, strstr(out, "ack latency avg"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	ASSERT_EQ(0, vbjournal("status", NULL));
	EXPECT_NE(NULL, strstr(out, "daemon stopped"));
	teardown();
}

/*
 * Named consumers: the journal keeps what a consumer has not acked; its
 * size cap drops the oldest epochs anyway, and a consumer left behind is
 * told "full rescan required", never given a short answer.
 */
TEST(consumers_and_the_size_cap)
{
	struct daemon d;
	char c0[64], c1[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, "--max-changes=3"));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, vbjournal("register", "app", NULL));
	EXPECT_NE(NULL, strstr(out, c0));
	EXPECT_EQ(1, vbjournal("register", "app", NULL));
	EXPECT_EQ(1, vbjournal("ack", "nobody", c0, NULL));

	/* three directories in one epoch: under the cap */
	ASSERT_EQ(0, put_file(DIR_W "/a/b/n1", "1"));
	ASSERT_EQ(0, put_file(DIR_W "/c/d/n1", "1"));
	ASSERT_EQ(0, mkdir(DIR_W "/e/n1", 0755));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("changes", "--consumer", "app", NULL));
	EXPECT_TRUE(listed(DIR_W "/a/b"));
	EXPECT_TRUE(listed(DIR_W "/c/d"));
	EXPECT_TRUE(listed(DIR_W "/e"));
	ASSERT_EQ(0, vbjournal("consumers", NULL));
	EXPECT_EQ(NULL, strstr(out, "RESCAN"));

	/* two more in the next: five rows, the cap drops the first epoch */
	ASSERT_EQ(0, mkdir(DIR_W "/a/n2", 0755));
	ASSERT_EQ(0, mkdir(DIR_W "/c/n2", 0755));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("consumers", NULL));
	EXPECT_NE(NULL, strstr(out, "app epoch"));
	EXPECT_NE(NULL, strstr(out, "FULL RESCAN REQUIRED"));
	EXPECT_EQ(3, vbjournal("changes", "--consumer", "app", NULL));
	EXPECT_NE(NULL, strstr(out, "full rescan required: the epochs after "
			       "the cursor were trimmed"));
	EXPECT_EQ(3, vbjournal("changes", "--since", c0, NULL));

	/* acked up to now, it is whole again */
	ASSERT_EQ(0, vbjournal("ack", "app", c1, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--consumer", "app", NULL));
	EXPECT_EQ(NULL, strstr(out, "dir "));
	ASSERT_EQ(0, vbjournal("consumers", "--json", NULL));
	EXPECT_NE(NULL, strstr(out, "\"rescan_required\":false"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * One daemon per journal: a second one, on another filesystem (the
 * module would refuse a second intent subscriber on the same one),
 * exits 1 at once (the lock in the journal's directory), the first goes
 * on; status names the one holding the lock, and says "stopped" once it
 * has stopped.
 */
TEST(second_daemon_on_a_journal_is_refused)
{
	struct daemon d, d2;
	char c0[64], want[64];
	int ret;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, mount_tmpfs(DIR_O));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	watched = DIR_O;
	ret = daemon_start(&d2, JOURNAL, NULL);
	watched = DIR_W;
	EXPECT_NE(0, ret);
	/* it has exited (its stdout closed), or must be stopped */
	EXPECT_EQ(1, daemon_stop(&d2, ret ? 0 : SIGTERM));
	ASSERT_EQ(0, vbjournal("status", NULL));
	snprintf(want, sizeof(want), "daemon running (pid %d)", (int)d.pid);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("status: %s", out);
	/* the first one still answers */
	EXPECT_EQ(0, checkpoint(c0, sizeof(c0)));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	ASSERT_EQ(0, vbjournal("status", NULL));
	EXPECT_NE(NULL, strstr(out, "daemon stopped")) TH_LOG("status: %s", out);
	EXPECT_EQ(1, vbjournal("checkpoint", NULL));
	umount2(DIR_O, MNT_DETACH);
	teardown();
}

/* A directory whose name holds a newline names itself, escaped, and
   forges no line of its own. */
TEST(a_name_with_a_newline_forges_no_line)
{
	struct daemon d;
	char c0[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, mkdir(DIR_W "/x\ndir \\etc", 0755));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, put_file(DIR_W "/x\ndir \\etc/f", "x"));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/x\\ndir \\\\etc")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "\ndir \\etc")) TH_LOG("%s", out);
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/* The line "file ino=INO nlink=NLINK PATH" is in out. */
static bool file_named(const char *path, const char *nlink)
{
	char line[PATH_MAX + 64];
	struct stat st;

	if (stat(path, &st))
		return false;
	snprintf(line, sizeof(line), "file ino=%llu nlink=%s %s\n",
		 (unsigned long long)st.st_ino, nlink, path);
	return strstr(out, line);
}

/*
 * Issue 24 (i): a file with the names a/f and e/f, written through
 * a/f. The answer must lead a consumer that follows e/f to it: a file
 * entry with both names (the link was made while the daemon ran: the
 * journal knows e holds a name of it). A link the journal never saw
 * is said: found 1 of 2 names, to be looked up in the consumer's own
 * inode map.
 */
TEST(file_with_two_links_is_named_by_both)
{
	struct daemon d;
	char c0[64], c1[64];
	int fd;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, put_file(DIR_W "/a/f", "1"));
	ASSERT_EQ(0, put_file(DIR_W "/a/old", "1"));
	ASSERT_EQ(0, link(DIR_W "/a/old", DIR_W "/c/old"));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, link(DIR_W "/a/f", DIR_W "/e/f"));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));

	fd = open(DIR_W "/a/f", O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "2", 1));
	close(fd);
	fd = open(DIR_W "/a/old", O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "2", 1));
	close(fd);
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("changes since %s:\n%s", c0, out);
	EXPECT_TRUE(file_named(DIR_W "/a/f", "2"));
	EXPECT_TRUE(file_named(DIR_W "/e/f", "2"));
	/* c/old's link predates the daemon: not found, and said */
	EXPECT_TRUE(file_named(DIR_W "/a/old", "2"));
	EXPECT_FALSE(file_named(DIR_W "/c/old", "2"));
	EXPECT_NE(NULL, strstr(out, "nlink=2 ? (found 1 of 2 names"));
	/* --under the other name's directory keeps it */
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--under",
			       DIR_W "/e", NULL));
	EXPECT_TRUE(file_named(DIR_W "/e/f", "2"));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--json", NULL));
	EXPECT_NE(NULL, strstr(out, "\"names\":[{\"path\":\"" DIR_W
			       "/a/f\"},{\"path\":\"" DIR_W "/e/f\"}],"
			       "\"names_complete\":true}")) TH_LOG("%s", out);
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * Issue 24 (ii): a file made with O_TMPFILE in c, linked as e/t, then
 * written through the descriptor it was made with. The answer leads to
 * e/t (c holds no name of it).
 */
TEST(tmpfile_linked_elsewhere_leads_to_its_name)
{
	struct daemon d;
	char c0[64], c1[64], proc[64];
	int fd;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	fd = open(DIR_W "/c", O_TMPFILE | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "1", 1));
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ASSERT_EQ(0, linkat(AT_FDCWD, proc, AT_FDCWD, DIR_W "/e/t",
			    AT_SYMLINK_FOLLOW));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(1, write(fd, "2", 1));
	close(fd);
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("changes since %s:\n%s", c0, out);
	EXPECT_TRUE(listed(DIR_W "/e") || file_named(DIR_W "/e/t", "1"));
	EXPECT_TRUE(file_named(DIR_W "/e/t", "1"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * Issue 24 (ii), the other way to it: a file opened as a/u, given the
 * name e/u, its name a/u removed, then written through the descriptor
 * opened on a/u (whose dentry is no name of it now). The answer leads
 * to e/u. (A file whose last name went cannot be linked again: only
 * an O_TMPFILE file can, above.)
 */
TEST(relinked_file_leads_to_its_name)
{
	struct daemon d;
	char c0[64], c1[64];
	int fd;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, put_file(DIR_W "/a/u", "1"));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	fd = open(DIR_W "/a/u", O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, link(DIR_W "/a/u", DIR_W "/e/u"));
	ASSERT_EQ(0, unlink(DIR_W "/a/u"));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(1, write(fd, "2", 1));
	close(fd);
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("changes since %s:\n%s", c0, out);
	EXPECT_TRUE(file_named(DIR_W "/e/u", "1"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * Issue 24 (iii): a directory renamed after its change was committed
 * is answered by its path now, and --under its new place finds it
 * (the rename itself is in the open epoch, not in the answer).
 */
TEST(directory_renamed_after_commit_is_at_its_path_now)
{
	struct daemon d;
	char c0[64], c1[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, put_file(DIR_W "/a/b/new", "n"));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, rename(DIR_W "/a/b", DIR_W "/e/b2"));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("changes since %s:\n%s", c0, out);
	EXPECT_TRUE(listed(DIR_W "/e/b2"));
	EXPECT_EQ(NULL, strstr(out, DIR_W "/a/b"));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--under",
			       DIR_W "/e/b2", NULL));
	EXPECT_TRUE(listed(DIR_W "/e/b2")) TH_LOG("%s", out);
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--under",
			       DIR_W "/a", NULL));
	EXPECT_EQ(NULL, strstr(out, "dir ")) TH_LOG("%s", out);
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, "--json", NULL));
	EXPECT_NE(NULL, strstr(out, "{\"path\":\"" DIR_W "/e/b2\","
			       "\"path_source\":\"handle\"")) TH_LOG("%s", out);
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * The byte cap (--max-size): beyond it each checkpoint drops the oldest
 * epochs, acked or not; the last closed one stays. With a cap of one
 * byte, only that one: a cursor before it needs a full rescan, the one
 * just before it is still answered.
 */
TEST(byte_cap_keeps_the_last_closed_epoch_only)
{
	struct daemon d;
	char c0[64], c1[64], c2[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, "--max-size=1"));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, put_file(DIR_W "/a/b/cap1", "1"));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, put_file(DIR_W "/c/d/cap2", "2"));
	ASSERT_EQ(0, checkpoint(c2, sizeof(c2)));
	EXPECT_EQ(3, vbjournal("changes", "--since", c0, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c1, NULL));
	EXPECT_TRUE(listed(DIR_W "/c/d"));
	EXPECT_FALSE(listed(DIR_W "/a/b"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/*
 * SIGHUP (systemctl reload) reads the config file again: it is no
 * checkpoint and never an exit; what can change live does (interval,
 * verbose), a bad file is logged with its line and changes nothing, a
 * setting of the subscription is said to wait for the next start. The
 * daemon is quiet by default: no line per checkpoint.
 */
#define CONF	DIR_J "/conf"
#define LOG	DIR_J "/log"

TEST(reload_reads_the_config_again)
{
	struct daemon d;
	char c0[64], line[128];
	int i;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, put_file(CONF, "interval 1h\n"));
	daemon_err = LOG;
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, "--config=" CONF));
	daemon_err = NULL;
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	snprintf(line, sizeof(line), "cursor %s\n", c0);

	/* not a checkpoint, not an exit */
	ASSERT_EQ(0, put_file(DIR_W "/a/b/r1", "1"));
	ASSERT_EQ(0, kill(d.pid, SIGHUP));
	ASSERT_EQ(0, wait_log(LOG, "reloaded: interval 3600000ms", 1));
	EXPECT_TRUE(alive(&d));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_NE(NULL, strstr(out, line));

	/* the interval changes live: epochs close on their own */
	ASSERT_EQ(0, put_file(CONF, "interval 100ms\n"));
	ASSERT_EQ(0, kill(d.pid, SIGHUP));
	ASSERT_EQ(0, wait_log(LOG, "reloaded: interval 100ms", 1));
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
		if (!strstr(out, line))
			break;
		usleep(100000);
	}
	EXPECT_EQ(NULL, strstr(out, line));
	EXPECT_TRUE(listed(DIR_W "/a/b"));
	/* quiet by default; verbose: a line per checkpoint */
	EXPECT_EQ(0, count_in(LOG, "durable"));
	ASSERT_EQ(0, put_file(CONF, "interval 100ms\nverbose yes\n"));
	ASSERT_EQ(0, kill(d.pid, SIGHUP));
	EXPECT_EQ(0, wait_log(LOG, "durable", 1));

	/* a bad file: said with its line, the settings in force kept */
	ASSERT_EQ(0, put_file(CONF, "interval 5 s\n"));
	ASSERT_EQ(0, kill(d.pid, SIGHUP));
	EXPECT_EQ(0, wait_log(LOG, CONF ":1: interval: '5 s'", 1));
	EXPECT_EQ(0, wait_log(LOG, "kept the ones in force", 1));
	EXPECT_TRUE(alive(&d));
	i = count_in(LOG, "durable");
	EXPECT_EQ(0, wait_log(LOG, "durable", i + 1));

	/* the subscription's settings wait for a restart */
	ASSERT_EQ(0, put_file(CONF, "interval 1h\ntimeout 1s\n"));
	ASSERT_EQ(0, kill(d.pid, SIGHUP));
	EXPECT_EQ(0, wait_log(LOG, "take effect at the next start", 1));
	EXPECT_EQ(0, wait_log(LOG, "reloaded: interval 3600000ms", 2));
	EXPECT_TRUE(alive(&d));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	unlink(LOG);
	unlink(CONF);
	teardown();
}

/* The signals the daemon takes (vbjournald.c, on_signal()). */
static const int daemon_sigs[] = { SIGHUP, SIGINT, SIGUSR1, SIGTERM };

/* SigBlk of task id (a process, or a thread of one): 0 if unreadable. */
static unsigned long long sig_blocked(pid_t id)
{
	char path[64], line[256];
	unsigned long long blk = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &blk) == 1)
			break;
	fclose(f);
	return blk;
}

/*
 * The daemon's signals (SIGHUP reload, SIGUSR1 checkpoint, SIGTERM and
 * SIGINT stop) go to its main thread only: the kernel may deliver a
 * process signal to any thread that does not block it, and one taken
 * by another thread (the namer's) would set its flag without waking
 * the main loop's poll(), which then sleeps up to the interval. Each
 * other thread's SigBlk (/proc/PID/task/TID/status) must hold them.
 */
TEST(only_the_main_thread_takes_signals)
{
	char path[PATH_MAX];
	struct daemon d;
	struct dirent *e;
	int others = 0, unblocked = 0;
	DIR *dir;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	snprintf(path, sizeof(path), "/proc/%d/task", (int)d.pid);
	dir = opendir(path);
	ASSERT_NE(NULL, dir);
	while ((e = readdir(dir))) {
		unsigned long long blk;
		size_t i;

		if (e->d_name[0] == '.' || atoi(e->d_name) == d.pid)
			continue;
		others++;
		blk = sig_blocked(atoi(e->d_name));
		for (i = 0; i < ARRAY_SIZE(daemon_sigs); i++) {
			if (blk & (1ULL << (daemon_sigs[i] - 1)))
				continue;
			TH_LOG("thread %s does not block signal %d",
			       e->d_name, daemon_sigs[i]);
			unblocked++;
		}
	}
	closedir(dir);
	EXPECT_LT(0, others);
	EXPECT_EQ(0, unblocked);
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

/* Whether task pid is inside system call nr. */
static int in_syscall(pid_t pid, int nr)
{
	char path[64], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n > 0 && atoi(buf) == nr;
}

/*
 * A signal that comes while the daemon works (here: while its
 * checkpoint's barrier waits for a write held in flight) is not lost:
 * the kernel must deliver it only while the main loop sleeps, so that
 * the loop sees its flag before sleeping again. Taken during the work,
 * after the loop looked at its flags, it would set the flag and the
 * loop would sleep on (up to the interval: an hour here). So outside
 * its sleep the main thread blocks the signals (SigBlk), and the
 * reload asked during the checkpoint happens once the write goes on.
 */
TEST(a_signal_during_work_is_never_lost)
{
	unsigned long long blk;
	struct uffd_hold h;
	struct daemon d;
	size_t i;
	int fd;

	ASSERT_EQ(0, setup());
	daemon_err = LOG;
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	daemon_err = NULL;
	fd = open(DIR_W "/c/d/f", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, uffd_hold_start(&h, fd));
	/* the checkpoint's barrier waits for the held write */
	ASSERT_EQ(0, kill(d.pid, SIGUSR1));
	for (i = 0; i < 2000 && !in_syscall(d.pid, SYS_ioctl); i++)
		usleep(10000);
	ASSERT_TRUE(in_syscall(d.pid, SYS_ioctl));
	blk = sig_blocked(d.pid);
	for (i = 0; i < ARRAY_SIZE(daemon_sigs); i++)
		if (!(blk & (1ULL << (daemon_sigs[i] - 1))))
			TH_LOG("signal %d is not blocked in the checkpoint",
			       daemon_sigs[i]);
	ASSERT_EQ(0, kill(d.pid, SIGHUP));
	ASSERT_EQ(4096, uffd_hold_release(&h));
	close(fd);
	if (wait_log(LOG, "reloaded:", 1))
		TH_LOG("the SIGHUP sent during the checkpoint was lost");
	EXPECT_EQ(1, count_in(LOG, "reloaded:"));
	for (i = 0; i < ARRAY_SIZE(daemon_sigs); i++)
		EXPECT_TRUE(blk & (1ULL << (daemon_sigs[i] - 1)));
	EXPECT_TRUE(alive(&d));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	unlink(LOG);
	teardown();
}

/*
 * The journal's disk full: the daemon does not exit (no crash loop),
 * acks nothing (the writer waits), says so once, retries, and goes on
 * when there is space again, with nothing lost.
 */
#define DIR_S	"/tmp/jn-s"	/* a small filesystem for the journal */

/*
 * The daemon retries a full disk after 1 s, 2 s, 4 s...: on a loaded
 * host's emulated guest the retry that finds space again can come after
 * kselftest's default 30 s. A fixture for a longer limit.
 */
FIXTURE(slow) {
	int unused;
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

/* The CPU time pid used (user and system, clock ticks), or -1. */
static long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	/* after the command's name: state is field 3, utime 14, stime 15 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%lu %lu", &ut, &st) != 2)
		return -1;
	return ut + st;
}

TEST_F_TIMEOUT(slow, full_journal_disk_waits_and_resumes, 180)
{
	struct daemon d;
	static char chunk[65536];
	char c0[64], c1[64];
	long ticks;
	int fd, status;
	pid_t writer;

	ASSERT_EQ(0, setup());
	mkdir(DIR_S, 0755);
	ASSERT_EQ(0, mount("tmpfs", DIR_S, "tmpfs", 0, "size=4m"));
	daemon_err = LOG;
	ASSERT_EQ(0, daemon_start(&d, DIR_S "/journal", "--timeout=60s"));
	daemon_err = NULL;
	journal = DIR_S "/journal";
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));

	/* fill it */
	fd = open(DIR_S "/fill", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	while (write(fd, chunk, sizeof(chunk)) > 0)
		;
	EXPECT_EQ(ENOSPC, errno);
	close(fd);

	/* a change: its intent cannot be made durable, so it waits */
	writer = fork();
	ASSERT_LE(0, writer);
	if (!writer)
		_exit(mkdir(DIR_W "/e/full", 0755) ? errno : 0);
	ASSERT_EQ(0, wait_log(LOG, "the journal's filesystem is full", 1));
	EXPECT_TRUE(alive(&d));
	EXPECT_EQ(0, waitpid(writer, &status, WNOHANG));

	/*
	 * A checkpoint asked for meanwhile (vbjournal checkpoint) waits
	 * for the retry too, asleep: over a second, the daemon runs for
	 * a fraction of it (a loop that does not sleep: all of it).
	 */
	ASSERT_EQ(0, kill(d.pid, SIGUSR1));
	ticks = cpu_ticks(d.pid);
	ASSERT_LE(0, ticks);
	usleep(1000000);
	ticks = cpu_ticks(d.pid) - ticks;
	EXPECT_GT(sysconf(_SC_CLK_TCK) / 4, ticks);

	/* space again: the writer goes on, the change is in the journal */
	ASSERT_EQ(0, unlink(DIR_S "/fill"));
	ASSERT_EQ(0, wait_log(LOG, "space again", 1));
	ASSERT_EQ(writer, waitpid(writer, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_TRUE(alive(&d));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/e"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	journal = JOURNAL;
	unlink(LOG);
	umount2(DIR_S, MNT_DETACH);
	teardown();
}

/*
 * The journal's write lock held by another connection for longer than
 * SQLite waits for it (the namer thread's batches on a slow disk did,
 * under make bench's mirror phase): the daemon does not exit; it acks
 * nothing meanwhile, says so, and goes on once the lock is free.
 */
TEST_F_TIMEOUT(slow, locked_journal_waits_and_resumes, 180)
{
	struct daemon d;
	sqlite3 *db;
	char c0[64], c1[64];
	int status;
	pid_t writer;

	ASSERT_EQ(0, setup());
	daemon_err = LOG;
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, "--timeout=60s"));
	daemon_err = NULL;
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(SQLITE_OK, sqlite3_open_v2(JOURNAL "/journal.db", &db,
					     SQLITE_OPEN_READWRITE, NULL));
	ASSERT_EQ(SQLITE_OK, sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL,
					  NULL));
	/* a change: its intent cannot be stored while the lock is held */
	writer = fork();
	ASSERT_LE(0, writer);
	if (!writer)
		_exit(mkdir(DIR_W "/e/locked", 0755) ? errno : 0);
	ASSERT_EQ(0, wait_log(LOG, "stayed locked by another connection", 1));
	EXPECT_TRUE(alive(&d));
	EXPECT_EQ(0, waitpid(writer, &status, WNOHANG));
	/* the lock goes: the writer goes on, the change is in the journal */
	ASSERT_EQ(SQLITE_OK, sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL));
	sqlite3_close(db);
	ASSERT_EQ(0, wait_log(LOG, "unlocked again", 1));
	ASSERT_EQ(writer, waitpid(writer, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_TRUE(alive(&d));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/e"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	unlink(LOG);
	teardown();
}

/*
 * The journal's disk full when the daemon starts (a restart, a reboot):
 * it does not exit (systemd would restart it until its start limit and
 * give up), it says so, waits and retries, and starts when there is
 * space again.
 */
TEST_F_TIMEOUT(slow, full_journal_disk_at_start_waits, 180)
{
	struct daemon d;
	static char chunk[65536];
	char c0[64], c1[64], c2[64];
	int fd;

	ASSERT_EQ(0, setup());
	mkdir(DIR_S, 0755);
	ASSERT_EQ(0, mount("tmpfs", DIR_S, "tmpfs", 0, "size=4m"));
	ASSERT_EQ(0, daemon_start(&d, DIR_S "/journal", NULL));
	journal = DIR_S "/journal";
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));

	fd = open(DIR_S "/fill", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	while (write(fd, chunk, sizeof(chunk)) > 0)
		;
	EXPECT_EQ(ENOSPC, errno);
	close(fd);

	/* started on a full disk: it waits, alive, and says why */
	daemon_err = LOG;
	daemon_ready = false;
	ASSERT_EQ(0, daemon_start(&d, DIR_S "/journal", NULL));
	daemon_err = NULL;
	daemon_ready = true;
	ASSERT_EQ(0, wait_log(LOG, "the journal's filesystem is full", 1));
	EXPECT_TRUE(alive(&d));

	/* space again: it starts, and the journal answers */
	ASSERT_EQ(0, unlink(DIR_S "/fill"));
	ASSERT_EQ(0, daemon_line(&d));
	EXPECT_TRUE(alive(&d));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	EXPECT_EQ(0, mkdir(DIR_W "/e/later", 0755));
	ASSERT_EQ(0, checkpoint(c2, sizeof(c2)));
	EXPECT_EQ(0, vbjournal("changes", "--since", c1, NULL));
	EXPECT_TRUE(listed(DIR_W "/e"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	journal = JOURNAL;
	unlink(LOG);
	umount2(DIR_S, MNT_DETACH);
	teardown();
}

/*
 * The service manager's side (sd_notify(3)): READY=1 with a STATUS=
 * once every filesystem is watched, WATCHDOG=1 at half WATCHDOG_USEC,
 * RELOADING=1 then READY=1 around a reload, STOPPING=1 at the end.
 * NOTIFY_SOCKET is a datagram socket of this test.
 */
#define NOTIFY	DIR_J "/notify"

/* The next datagram with text in it (5 s at most): 0 or -ETIMEDOUT. */
static int notified(int sock, const char *text, char *msg, size_t sz)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	ssize_t n;

	while (poll(&p, 1, 5000) == 1) {
		n = recv(sock, msg, sz - 1, 0);
		if (n < 0)
			break;
		msg[n] = 0;
		if (strstr(msg, text))
			return 0;
	}
	return -ETIMEDOUT;
}

TEST(notify_ready_status_watchdog)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = NOTIFY };
	struct daemon d;
	char msg[512];
	int sock, i;

	ASSERT_EQ(0, setup());
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, sock);
	unlink(NOTIFY);
	ASSERT_EQ(0, bind(sock, (struct sockaddr *)&sa, sizeof(sa)));
	setenv("NOTIFY_SOCKET", NOTIFY, 1);
	setenv("WATCHDOG_USEC", "400000", 1);
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	ASSERT_EQ(0, notified(sock, "READY=1", msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "STATUS=journaling 1 filesystems"));
	/* pings go on while it is idle (interval: 1 h) */
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, notified(sock, "WATCHDOG=1", msg, sizeof(msg)));
	ASSERT_EQ(0, kill(d.pid, SIGHUP));
	EXPECT_EQ(0, notified(sock, "RELOADING=1", msg, sizeof(msg)));
	EXPECT_EQ(0, notified(sock, "READY=1", msg, sizeof(msg)));
	ASSERT_EQ(0, kill(d.pid, SIGUSR1));
	EXPECT_EQ(0, notified(sock, "durable", msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "STATUS=epoch "));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	EXPECT_EQ(0, notified(sock, "STOPPING=1", msg, sizeof(msg)));
	close(sock);
	unlink(NOTIFY);
	teardown();
}

#define DIR_F	"/tmp/jn-f"	/* a watched btrfs or XFS */

/*
 * What a reboot is to the daemon, without one: another boot id (a file
 * bound over BOOT_ID) and the filesystem unmounted and mounted again.
 */
static int new_boot(const char *dev, const char *type, int n)
{
	char path[64], id[64];

	umount2(BOOT_ID, MNT_DETACH);
	if (umount(DIR_F))
		return -errno;
	snprintf(path, sizeof(path), "/tmp/jn-boot%d", n);
	snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d\n", n);
	if (put_file(path, id) || mount(path, BOOT_ID, NULL, MS_BIND, NULL))
		return -errno;
	return mount(dev, DIR_F, type, 0, NULL) ? -errno : 0;
}

/*
 * A boot with no daemon in it between two with one: on btrfs and XFS,
 * which count no mounts, the write it made is a gap, told by the
 * filesystem's counter (boots.c); a reboot with no such boot between is
 * none.
 */
static void unsupervised_boot(struct __test_metadata *_metadata,
			      const char *env, const char *type,
			      int (*mnt)(const char *), const char *counter)
{
	const char *dev = getenv(env);
	struct daemon d;
	char c0[64], c1[64], want[128];
	bool measured;

	if (!dev || mnt(DIR_F))
		SKIP(return, "no %s scratch device", type);
	ASSERT_EQ(0, mount_tmpfs(DIR_J));
	watched = DIR_F;
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, put_file(DIR_F "/f", "1"));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));

	/* a reboot, the daemon in both boots */
	ASSERT_EQ(0, new_boot(dev, type, 1));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("%s, after a reboot:\n%s", type, out);
	EXPECT_TRUE(listed(DIR_F));
	/* a kernel whose counter was not measured: a gap each boot */
	measured = !strstr(out, "not measured on");
	if (measured)
		EXPECT_EQ(NULL, strstr(out, "rescan fs"));
	ASSERT_EQ(0, checkpoint(c1, sizeof(c1)));
	ASSERT_EQ(0, put_file(DIR_F "/g", "2"));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));

	/* a boot without the daemon, which writes */
	ASSERT_EQ(0, new_boot(dev, type, 2));
	ASSERT_EQ(0, put_file(DIR_F "/h", "3"));
	ASSERT_EQ(0, new_boot(dev, type, 3));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c1, NULL));
	TH_LOG("%s, after a boot without the daemon:\n%s", type, out);
	if (measured)
		snprintf(want, sizeof(want), "rescan fs " DIR_F
			 " (mounted_unsupervised: %s %s ", type, counter);
	else
		snprintf(want, sizeof(want), "rescan fs " DIR_F
			 " (unsupervised_boot: %s's counter not measured",
			 type);
	EXPECT_NE(NULL, strstr(out, want));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	watched = DIR_W;
	umount2(BOOT_ID, MNT_DETACH);
	umount2(DIR_F, MNT_DETACH);
	umount2(DIR_J, MNT_DETACH);
}

/*
 * A tmpfs does not outlive a boot: the next boot's is empty, what the
 * last one held gone without a record. A gap, not a silent answer.
 */
TEST(tmpfs_after_a_boot_is_a_gap)
{
	struct daemon d;
	char c0[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	/* the reboot: another boot id, a new, empty tmpfs */
	ASSERT_EQ(0, put_file("/tmp/jn-boot9", "00000000-0000-4000-8000-000000000009\n"));
	ASSERT_EQ(0, mount("/tmp/jn-boot9", BOOT_ID, NULL, MS_BIND, NULL));
	ASSERT_EQ(0, umount2(DIR_W, MNT_DETACH));
	ASSERT_EQ(0, mount_tmpfs(DIR_W));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("a tmpfs after a boot:\n%s", out);
	EXPECT_NE(NULL, strstr(out, "rescan fs " DIR_W " (unsupervised_boot: "
			       "tmpfs does not outlive a boot)"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	umount2(BOOT_ID, MNT_DETACH);
	teardown();
}

TEST(unsupervised_boot_is_a_gap_on_btrfs)
{
	unsupervised_boot(_metadata, "VFSB_SCRATCH_DEV2", "btrfs",
			  mount_btrfs, "generation");
}

TEST(unsupervised_boot_is_a_gap_on_xfs)
{
	unsupervised_boot(_metadata, "VFSB_SCRATCH_DEV3", "xfs", mount_xfs,
			  "log head");
}

#define SVCMGR	"/tmp/jn-svcmgr"
#define NDIRS	64

/* Writes a file in each of dirs [from, to) of DIR_W/rN. */
static int write_dirs(int from, int to)
{
	char path[64];
	int i;

	for (i = from; i < to; i++) {
		snprintf(path, sizeof(path), DIR_W "/r%d/f", i);
		if (put_file(path, "x"))
			return -errno;
	}
	return 0;
}

/*
 * Stops the daemon (SIGTERM) while a writer is half-way through NDIRS
 * directories and starts it again: the writer's second half begins
 * while no daemon runs (its first intent waits), and ends under the
 * new one. c0 gets the cursor taken before.
 */
static void restart_under_writes(struct __test_metadata *_metadata,
				 struct svcmgr *m, char *c0, size_t sz)
{
	struct daemon d;
	int half[2], go[2], status, i;
	char path[64], c;
	pid_t w;

	for (i = 0; i < NDIRS; i++) {
		snprintf(path, sizeof(path), DIR_W "/r%d", i);
		ASSERT_EQ(0, mkdir(path, 0755));
	}
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, svcmgr_wait_ready(m, 0, 20000));
	ASSERT_EQ(0, checkpoint(c0, sz));
	ASSERT_EQ(0, pipe(half));
	ASSERT_EQ(0, pipe(go));
	w = fork();
	ASSERT_LE(0, w);
	if (!w) {
		if (write_dirs(0, NDIRS / 2) || write(half[1], "h", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(write_dirs(NDIRS / 2, NDIRS) ? 2 : 0);
	}
	ASSERT_EQ(1, read(half[0], &c, 1));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, svcmgr_wait_ready(m, 1, 20000));
	ASSERT_EQ(w, waitpid(w, &status, 0));
	EXPECT_EQ(0, status);
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	close(half[0]);
	close(half[1]);
	close(go[0]);
	close(go[1]);
}

/*
 * A restart through the service manager's fd store (vbjournald.service:
 * FileDescriptorStoreMax=1) keeps the subscription: the changes made
 * while no daemon ran waited for the new one's acks, each is named,
 * and there is no daemon_stopped gap.
 */
TEST(restart_through_the_fd_store_leaves_no_gap)
{
	struct svcmgr m;
	char c0[64], path[64];
	int i;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, svcmgr_start(&m, SVCMGR, true));
	mgr = &m;
	restart_under_writes(_metadata, &m, c0, sizeof(c0));
	EXPECT_LE(0, svcmgr_stored(&m));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	TH_LOG("after a restart through the fd store:\n%s", out);
	for (i = 0; i < NDIRS; i++) {
		snprintf(path, sizeof(path), DIR_W "/r%d", i);
		EXPECT_TRUE(listed(path));
	}
	EXPECT_EQ(NULL, strstr(out, "rescan fs"));
	mgr = NULL;
	svcmgr_stop(&m);
	teardown();
}

/* Without the fd store (FileDescriptorStoreMax=0) a restart is a gap. */
TEST(restart_without_the_fd_store_is_a_gap)
{
	struct svcmgr m;
	char c0[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, svcmgr_start(&m, SVCMGR, false));
	mgr = &m;
	restart_under_writes(_metadata, &m, c0, sizeof(c0));
	EXPECT_EQ(-1, svcmgr_stored(&m));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_NE(NULL, strstr(out, "rescan fs " DIR_W " (daemon_stopped)"));
	mgr = NULL;
	svcmgr_stop(&m);
	teardown();
}

/*
 * A daemon that died may have read records it never stored: the stored
 * subscription is not resumed but removed from the store, the new
 * daemon subscribes anew, and the time between is a gap.
 */
TEST(died_daemon_stored_subscription_is_dropped)
{
	struct svcmgr m;
	struct daemon d;
	char c0[64];

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, svcmgr_start(&m, SVCMGR, true));
	mgr = &m;
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, svcmgr_wait_ready(&m, 0, 20000));
	ASSERT_LE(0, svcmgr_stored(&m));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));
	ASSERT_EQ(0, mkdir(DIR_W "/a/b/k", 0755));
	EXPECT_EQ(128 + SIGKILL, daemon_stop(&d, SIGKILL));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, svcmgr_wait_ready(&m, 1, 20000));
	EXPECT_EQ(1, m.removes);
	/* the new subscription is in the store */
	EXPECT_LE(0, svcmgr_stored(&m));
	ASSERT_EQ(0, mkdir(DIR_W "/c/n", 0755));
	ASSERT_EQ(0, vbjournal("checkpoint", NULL));
	ASSERT_EQ(0, vbjournal("changes", "--since", c0, NULL));
	EXPECT_TRUE(listed(DIR_W "/a/b"));
	EXPECT_TRUE(listed(DIR_W "/c"));
	EXPECT_NE(NULL, strstr(out, "rescan fs " DIR_W " (daemon_died)"));
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	mgr = NULL;
	svcmgr_stop(&m);
	teardown();
}

/* vbj-treecmp a b (not rsync): 0 the same, 1 different; output in out. */
static int treecmp(const char *a, const char *b)
{
	char *argv[] = { "vbj-treecmp", (char *)a, (char *)b, NULL };
	int p[2], status;
	size_t len = 0;
	ssize_t got;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(tool("vbj-treecmp"), argv);
		_exit(127);
	}
	close(p[1]);
	while ((got = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += got;
	out[len] = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * vbjournal mirror: the first run copies the tree from a cursor taken
 * first; after changes of every kind (names with a newline and bytes
 * not UTF-8, a file replaced by a directory and back, a subtree moved,
 * a write through a second hard link at the same size, chmod, an
 * xattr) and a checkpoint, the next run makes the copy equal to the
 * tree again (vbj-treecmp). A mirror that leaves out dir and file
 * entries (VBJOURNAL_MIRROR_SKIP) must leave a difference.
 */
TEST(mirror_equals_the_tree_after_each_run)
{
	static const char *const copy = DIR_J "/copy", *const ctl = DIR_J "/ctl";
	struct daemon d;
	char c0[64];
	int fd;

	ASSERT_EQ(0, setup());
	ASSERT_EQ(0, mkdir(DIR_W "/h1", 0755));
	ASSERT_EQ(0, mkdir(DIR_W "/h2", 0755));
	ASSERT_EQ(0, put_file(DIR_W "/h1/f", "link"));
	ASSERT_EQ(0, link(DIR_W "/h1/f", DIR_W "/h2/g"));
	ASSERT_EQ(0, put_file(DIR_W "/e/was-file", "f"));
	ASSERT_EQ(0, mkdir(DIR_W "/e/was-dir", 0755));
	ASSERT_EQ(0, put_file(DIR_W "/e/was-dir/in", "in"));
	ASSERT_EQ(0, daemon_start(&d, JOURNAL, NULL));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));

	ASSERT_EQ(0, vbjournal("mirror", DIR_W, copy, NULL));
	TH_LOG("first run: %s", out);
	ASSERT_EQ(0, treecmp(DIR_W, copy)) TH_LOG("%s", out);
	ASSERT_EQ(0, vbjournal("mirror", DIR_W, ctl, "--consumer", "ctl",
			       NULL));

	ASSERT_EQ(0, put_file(DIR_W "/a/new\nline", "n"));
	ASSERT_EQ(0, put_file(DIR_W "/a/bad\xff\xfe", "u"));
	ASSERT_EQ(0, unlink(DIR_W "/e/was-file"));
	ASSERT_EQ(0, mkdir(DIR_W "/e/was-file", 0700));
	ASSERT_EQ(0, put_file(DIR_W "/e/was-file/now", "d"));
	ASSERT_EQ(0, unlink(DIR_W "/e/was-dir/in"));
	ASSERT_EQ(0, rmdir(DIR_W "/e/was-dir"));
	ASSERT_EQ(0, put_file(DIR_W "/e/was-dir", "now a file"));
	ASSERT_EQ(0, rename(DIR_W "/c/d", DIR_W "/a/b/d2"));
	fd = open(DIR_W "/h1/f", O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, write(fd, "LINK", 4));	/* the same size */
	close(fd);
	ASSERT_EQ(0, chmod(DIR_W "/a/b", 0711));
	ASSERT_EQ(0, setxattr(DIR_W "/c", "trusted.t", "v", 1, 0));
	ASSERT_EQ(0, checkpoint(c0, sizeof(c0)));

	ASSERT_EQ(0, vbjournal("mirror", DIR_W, copy, "--verbose", NULL));
	EXPECT_NE(NULL, strstr(out, c0)) TH_LOG("mirror printed %s", out);
	ASSERT_EQ(0, treecmp(DIR_W, copy)) TH_LOG("%s", out);
	TH_LOG("%s", out);

	/* the negative control: without dir and file entries */
	setenv("VBJOURNAL_MIRROR_SKIP", "dir,file", 1);
	EXPECT_EQ(0, vbjournal("mirror", DIR_W, ctl, "--consumer", "ctl",
			       NULL));
	unsetenv("VBJOURNAL_MIRROR_SKIP");
	EXPECT_EQ(1, treecmp(DIR_W, ctl));
	TH_LOG("control: %s", out);
	EXPECT_EQ(0, daemon_stop(&d, SIGTERM));
	teardown();
}

TEST_HARNESS_MAIN
