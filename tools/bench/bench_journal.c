// SPDX-License-Identifier: GPL-2.0
/*
 * The change journal (make bench, phase journal): what vbjournald costs
 * writers and what vbjournal saves its users, side by side in one boot.
 *
 *  - query: `vbjournal changes` after 100 changes in a tree of 100 000
 *    files, against a full rescan of that tree (an lstat() walk);
 *  - overhead: per-operation time with vbjournald running against the
 *    same filesystem unwatched, in alternating rounds: steady state (the
 *    directory already announced in the epoch: create + unlink) and worst
 *    case (each operation a file in a directory made before the epoch:
 *    the first change of its directory, which waits for its intent's
 *    ack; a directory the epoch made waits for nothing now);
 *  - acks: worst-case operations per second with 1 and 4 writers (each
 *    one an intent made durable and acked; group commit shares fsyncs).
 *
 * The data is on the tmpfs under test, the journal on the ext4 scratch
 * disk (a virtio disk, so commits pay for a real flush in the guest);
 * tmpfs when there is no ext4.
 *
 * bench_journal steady (phase steady, also in the -icount boot): the
 * steady state alone, split by what pays for it: unwatched, watched (no
 * subscriber), an intent subscriber that only reads and acks (another
 * process, as vbjournald: the module's records and the reader's
 * wake-ups, no store), the same subscribing with VFSB_SUB_COALESCE, and
 * vbjournald itself (its store on top). Under -icount a ns is an
 * instruction.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common.h"

#define ROUNDS		3

struct jb {
	char data[160];		/* the tree and the writers' directories */
	char journal[160];
	const char *journal_fs;
	pid_t daemon;
	long ndirs, nfiles, steady_iters, worst_iters, ack_secs;
	long worst_seq;		/* names new directories */
	long rename_iters, rename_seq;
};

static void run_cmd(char *const argv[], char *out, size_t sz)
{
	int p[2], status;
	ssize_t n = 0, got;
	pid_t pid;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while (out && (got = read(p[0], out + n, sz - 1 - n)) > 0)
		n += got;
	if (out)
		out[n] = 0;
	close(p[0]);
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die("%s %s: exit %d", argv[0], argv[1] ? argv[1] : "", status);
}

static void daemon_start(struct jb *b)
{
	char line[256];
	int p[2];
	ssize_t n;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	b->daemon = fork();
	if (!b->daemon) {
		dup2(p[1], 1);
		execlp("vbjournald", "vbjournald", "--fs", b->data, "--journal",
		       b->journal, "--interval", "3600000", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1);
	close(p[0]);
	if (n <= 0)
		die("vbjournald did not start");
}

static void daemon_stop(struct jb *b)
{
	kill(b->daemon, SIGTERM);
	waitpid(b->daemon, NULL, 0);
	b->daemon = 0;
}

/*
 * How much the daemon has done: the CPU time of all its threads (clock
 * ticks) and their voluntary context switches (each wait for a sync, a
 * lock or the device); 0 when it cannot be read.
 */
static unsigned long long daemon_mark(pid_t pid)
{
	unsigned long long mark = 0, a, b;
	char path[96], line[512], *p;
	struct dirent *de;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/stat",
			 (int)pid, de->d_name);
		f = fopen(path, "re");
		if (f && fgets(line, sizeof(line), f) &&
		    (p = strrchr(line, ')')) &&
		    /* after the name: state .. cmajflt, then utime stime */
		    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u"
			   " %*u %llu %llu", &a, &b) == 2)
			mark += a + b;
		if (f)
			fclose(f);
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/status",
			 (int)pid, de->d_name);
		f = fopen(path, "re");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "voluntary_ctxt_switches: %llu", &a) == 1)
				mark += a;
		if (f)
			fclose(f);
	}
	closedir(d);
	return mark;
}

/*
 * Until the daemon has stayed idle for 200 ms (10 s at most), as
 * tools/bench-realwork.sh's settle(): a daemon just started, or one that
 * has just stored an intent, goes on with work of its own (its namer,
 * the syncs of its first commits) that is not the cost of the changes
 * timed next.
 */
static void daemon_settle(struct jb *b)
{
	unsigned long long m;
	int i;

	for (i = 0; i < 50; i++) {
		m = daemon_mark(b->daemon);
		usleep(200000);
		if (daemon_mark(b->daemon) == m)
			return;
	}
	progress("the daemon did not settle in 10 s");
}

static void checkpoint(struct jb *b, char *cursor, size_t sz)
{
	char *argv[] = { "vbjournal", "--journal", b->journal, "checkpoint", NULL };

	run_cmd(argv, cursor, sz);
	cursor[strcspn(cursor, "\n")] = 0;
}

static void make_tree(struct jb *b)
{
	char path[256];
	long d, f;
	int fd;

	for (d = 0; d < b->ndirs; d++) {
		snprintf(path, sizeof(path), "%s/tree/d%03ld", b->data, d);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
		for (f = 0; f < b->nfiles; f++) {
			snprintf(path, sizeof(path), "%s/tree/d%03ld/f%04ld",
				 b->data, d, f);
			fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			if (fd < 0)
				die("create %s: %s", path, strerror(errno));
			close(fd);
		}
	}
}

/* A full rescan: lstat() of everything under dir; returns the count. */
static long walk(const char *dir)
{
	char path[512];
	struct dirent *de;
	struct stat st;
	long n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st))
			continue;
		n++;
		if (S_ISDIR(st.st_mode))
			n += walk(path);
	}
	closedir(d);
	return n;
}

static double steady_ns(struct jb *b)
{
	char path[256];
	uint64_t t0;
	long i;
	int fd;

	snprintf(path, sizeof(path), "%s/steady/x", b->data);
	/* the directory announced first (a no-op when unwatched) */
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	unlink(path);
	t0 = now_ns();
	for (i = 0; i < b->steady_iters; i++) {
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
	}
	return (double)(now_ns() - t0) / b->steady_iters;
}

/*
 * The worst case's directories, n from seq for writer who, made before
 * the epoch the operations run in (a checkpoint, when the daemon runs):
 * each operation is then the first change of its directory in the
 * epoch, and waits for an intent's ack. A directory made in the epoch
 * would not (VFSB_SUB_NEW_DIRS: what a mkdir makes in an acked
 * directory counts as acked), which is an untar's case now.
 */
static void worst_dirs(struct jb *b, const char *base, long seq, long n,
		       int who)
{
	char path[256], cursor[128];
	long i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/w%d_%ld", base, who, seq + i);
		if (mkdir(path, 0755))
			die("mkdir %s: %s", path, strerror(errno));
	}
	if (b->daemon)
		checkpoint(b, cursor, sizeof(cursor));
}

/* One worst-case operation: a file in a directory of worst_dirs(). */
#define ACK_DIRS	400	/* per writer and second: 2-4x what one gets through */

static void worst_op(const char *base, long seq, int who)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/w%d_%ld/f", base, who, seq);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * Renames of whole directories, each a different one (as a tree is
 * reorganised), in one parent that is announced already: in intent mode
 * each is its moved directory's first rename in the epoch and waits for
 * its own intent (the journal's moved entry is durable before it).
 */
static double rename_ns(struct jb *b)
{
	char base[200], from[256], to[256];
	uint64_t t0;
	long i, seq = b->rename_seq;

	snprintf(base, sizeof(base), "%s/renames", b->data);
	for (i = 0; i < b->rename_iters; i++) {
		snprintf(from, sizeof(from), "%s/r%ld", base, seq + i);
		if (mkdir(from, 0755))
			die("mkdir %s: %s", from, strerror(errno));
	}
	/* the parent announced first, as in the steady state */
	snprintf(to, sizeof(to), "%s/announce", base);
	if (!mkdir(to, 0755))
		rmdir(to);
	t0 = now_ns();
	for (i = 0; i < b->rename_iters; i++) {
		snprintf(from, sizeof(from), "%s/r%ld", base, seq + i);
		snprintf(to, sizeof(to), "%s/m%ld", base, seq + i);
		if (rename(from, to))
			die("rename %s: %s", from, strerror(errno));
	}
	t0 = now_ns() - t0;
	b->rename_seq += b->rename_iters;
	return (double)t0 / b->rename_iters;
}

static double worst_ns(struct jb *b)
{
	char base[200];
	uint64_t t0;
	long i;

	snprintf(base, sizeof(base), "%s/worst", b->data);
	worst_dirs(b, base, b->worst_seq, b->worst_iters, 0);
	t0 = now_ns();
	for (i = 0; i < b->worst_iters; i++)
		worst_op(base, b->worst_seq++, 0);
	return (double)(now_ns() - t0) / b->worst_iters;
}

/* Worst-case operations per second by n writer processes. */
static double ops_per_s(struct jb *b, int n)
{
	char base[200];
	pid_t pids[16];
	int p[2], i;
	long total = 0, got;
	uint64_t t0;

	snprintf(base, sizeof(base), "%s/acks", b->data);
	/* more than the writers get through: they wait for acks */
	for (i = 0; i < n && i < 16; i++)
		worst_dirs(b, base, b->worst_seq, ACK_DIRS * b->ack_secs,
			   100 + i);
	if (pipe(p))
		die("pipe: %s", strerror(errno));
	t0 = now_ns();
	for (i = 0; i < n && i < 16; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			uint64_t end = now_ns() + b->ack_secs * 1000000000ULL;
			long k = 0;

			close(p[0]);
			while (now_ns() < end && k < ACK_DIRS * b->ack_secs)
				worst_op(base, b->worst_seq + k++, 100 + i);
			_exit(write(p[1], &k, sizeof(k)) == sizeof(k) ? 0 : 1);
		}
	}
	close(p[1]);
	while (read(p[0], &got, sizeof(got)) == sizeof(got))
		total += got;
	close(p[0]);
	/* the writers only: the daemon is a child too */
	for (i = 0; i < n && i < 16; i++)
		waitpid(pids[i], NULL, 0);
	b->worst_seq += 1000000;
	return total / ((now_ns() - t0) / 1e9);
}

static int journal(const char *out_json)
{
	struct bench_fs fs[4];
	int nfs = bench_fs_list(fs, 4), i;
	struct jb b = { 0 };
	char c0[128], c1[128], listing[1 << 16], sub[200];
	double rescan_ms = 1e300, query_ms = 1e300;
	double base_s[ROUNDS], jour_s[ROUNDS], base_w[ROUNDS], jour_w[ROUNDS];
	double base_r[ROUNDS], jour_r[ROUNDS];
	struct summary rs, rw, rr;
	double acks1, acks4;
	long entries = 0, listed = 0;
	uint64_t t0 = now_ns();
	char *argv[] = { "vbjournal", "--journal", b.journal, "changes",
			 "--since", c0, NULL };
	struct jw j;
	char *p;

	b.ndirs = bench_env("VFSB_BENCH_JOURNAL_DIRS", 100, 10);
	b.nfiles = bench_env("VFSB_BENCH_JOURNAL_FILES", 1000, 100);
	b.steady_iters = bench_env("VFSB_BENCH_ITERS", 2000, 100);
	b.worst_iters = bench_env("VFSB_BENCH_JOURNAL_WORST", 300, 30);
	b.rename_iters = bench_env("VFSB_BENCH_JOURNAL_RENAMES", 300, 30);
	b.ack_secs = bench_env("VFSB_BENCH_JOURNAL_SECS", 3, 1);
	for (i = 0; i < nfs && strcmp(fs[i].name, "tmpfs"); i++)
		;
	if (i == nfs)
		die("no tmpfs under test");
	snprintf(b.data, sizeof(b.data), "%s/journal-data", fs[i].dir);
	b.journal_fs = "tmpfs";
	snprintf(b.journal, sizeof(b.journal), "%s/vbjournal",
		 getenv("VFSB_BENCH_OTHER") ? getenv("VFSB_BENCH_OTHER") : "/tmp");
	for (i = 0; i < nfs; i++) {
		if (!strcmp(fs[i].name, "ext4")) {
			snprintf(b.journal, sizeof(b.journal), "%s/vbjournal",
				 fs[i].dir);
			b.journal_fs = "ext4";
		}
	}
	mod_set(true);
	mkdir(b.data, 0755);
	for (i = 0; i < 5; i++) {
		static const char *const subs[] = { "tree", "steady", "worst",
						     "acks", "renames" };

		bench_subdir(sub, sizeof(sub), b.data, subs[i]);
	}
	progress("tree: %ld directories of %ld files", b.ndirs, b.nfiles);
	make_tree(&b);

	/* query against rescan */
	for (i = 0; i < 3; i++) {
		uint64_t t = now_ns();
		char tree[200];

		snprintf(tree, sizeof(tree), "%s/tree", b.data);
		entries = walk(tree);
		t = now_ns() - t;
		if (t / 1e6 < rescan_ms)
			rescan_ms = t / 1e6;
	}
	daemon_start(&b);
	checkpoint(&b, c0, sizeof(c0));
	for (i = 0; i < 100; i++) {
		char path[256];
		long k = (long)i * 7919 % (b.ndirs * b.nfiles);
		int fd;

		snprintf(path, sizeof(path), "%s/tree/d%03ld/f%04ld", b.data,
			 k / b.nfiles, k % b.nfiles);
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0 || write(fd, "x", 1) != 1)
			die("write %s: %s", path, strerror(errno));
		close(fd);
	}
	checkpoint(&b, c1, sizeof(c1));
	for (i = 0; i < 3; i++) {
		uint64_t t = now_ns();

		run_cmd(argv, listing, sizeof(listing));
		t = now_ns() - t;
		if (t / 1e6 < query_ms)
			query_ms = t / 1e6;
	}
	for (p = listing; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		listed += !strncmp(p, "dir ", 4);
	daemon_stop(&b);
	progress("query %.2f ms, rescan of %ld entries %.2f ms, %ld dirs named",
		 query_ms, entries, rescan_ms, listed);

	/* overhead, in alternating rounds */
	for (i = 0; i < ROUNDS; i++) {
		base_s[i] = steady_ns(&b);
		base_w[i] = worst_ns(&b);
		base_r[i] = rename_ns(&b);
		daemon_start(&b);
		jour_s[i] = steady_ns(&b);
		jour_w[i] = worst_ns(&b);
		jour_r[i] = rename_ns(&b);
		daemon_stop(&b);
		progress("round %d: steady %.0f -> %.0f ns, worst %.0f -> %.0f ns, rename %.0f -> %.0f ns",
			 i, base_s[i], jour_s[i], base_w[i], jour_w[i],
			 base_r[i], jour_r[i]);
	}
	rs = ratio_summary(jour_s, base_s, ROUNDS);
	rw = ratio_summary(jour_w, base_w, ROUNDS);
	rr = ratio_summary(jour_r, base_r, ROUNDS);

	daemon_start(&b);
	acks1 = ops_per_s(&b, 1);
	acks4 = ops_per_s(&b, 4);
	daemon_stop(&b);

	printf("journal: %ld files in %ld directories (tmpfs), journal on %s\n",
	       b.ndirs * b.nfiles, b.ndirs, b.journal_fs);
	printf("  vbjournal changes after 100 changes: %.2f ms (%ld directories);"
	       " full rescan (lstat walk of %ld entries): %.2f ms; rescan/query "
	       "%.1fx\n", query_ms, listed, entries, rescan_ms,
	       rescan_ms / query_ms);
	printf("  intent mode vs unwatched, median of %d rounds (ratio range):\n",
	       ROUNDS);
	printf("    steady state (directory announced), create+unlink: %.0f -> "
	       "%.0f ns/op, %.3f (%.3f-%.3f)\n", summarize(base_s, ROUNDS).med,
	       summarize(jour_s, ROUNDS).med, rs.med, rs.min, rs.max);
	printf("    worst case (old directory per op), create:         %.0f -> "
	       "%.0f ns/op, %.3f (%.3f-%.3f)\n", summarize(base_w, ROUNDS).med,
	       summarize(jour_w, ROUNDS).med, rw.med, rw.min, rw.max);
	printf("    directory renames (a different directory each):    %.0f -> "
	       "%.0f ns/op, %.3f (%.3f-%.3f)\n", summarize(base_r, ROUNDS).med,
	       summarize(jour_r, ROUNDS).med, rr.med, rr.min, rr.max);
	printf("  intents acked per second (worst-case writers): 1 writer %.0f/s,"
	       " 4 writers %.0f/s (group commit: %.2fx)\n", acks1, acks4,
	       acks4 / acks1);

	bench_json_begin(&j, out_json);
	jw_obj(&j, "journal");
	jw_int(&j, "files", b.ndirs * b.nfiles);
	jw_str(&j, "journal_fs", b.journal_fs);
	jw_num(&j, "query_ms", query_ms);
	jw_num(&j, "rescan_ms", rescan_ms);
	jw_num(&j, "rescan_over_query", rescan_ms / query_ms);
	jw_int(&j, "directories_named", listed);
	jw_num(&j, "steady_ratio", rs.med);
	jw_num(&j, "worst_ratio", rw.med);
	jw_num(&j, "rename_ratio", rr.med);
	jw_num(&j, "acks_per_s_1_writer", acks1);
	jw_num(&j, "acks_per_s_4_writers", acks4);
	return bench_json_end(&j, t0);
}

/* ---- steady: the split ---- */

struct reader {
	pid_t pid;
	int stop;		/* write end: closing it stops the reader */
	int report;		/* read end: records, reads, acks */
};

/*
 * An intent subscriber in a child process (its own process never
 * waits, so the writer must be another): reads what there is after each
 * wake-up and acks the last seq, storing nothing. Flags: VFSB_SUB_*.
 * Returns false when the module refuses the flags.
 */
static bool reader_start(struct reader *rd, const char *path, uint32_t flags)
{
	int stop[2], rep[2], ready[2];
	char c;

	if (pipe(stop) || pipe(rep) || pipe(ready))
		die("pipe: %s", strerror(errno));
	rd->pid = fork();
	if (!rd->pid) {
		static char buf[1 << 16] __attribute__((aligned(8)));
		uint64_t cnt[3] = { 0 };	/* records, reads, acks */
		struct pollfd pfd[2];
		int fd, ret;

		close(stop[1]);
		close(rep[0]);
		close(ready[0]);
		fd = vfsb_open_flags(O_NONBLOCK);
		ret = fd < 0 ? fd :
		      vfsb_subscribe_intent(fd, 4U << 20, flags, 0, NULL);
		if (!ret)
			ret = vfsb_watch_path(fd, path);
		c = ret ? 'n' : 'y';
		if (write(ready[1], &c, 1) != 1 || ret)
			_exit(ret ? 2 : 1);
		pfd[0] = (struct pollfd){ fd, POLLIN, 0 };
		pfd[1] = (struct pollfd){ stop[0], POLLIN, 0 };
		for (;;) {
			uint64_t ack = 0;
			const struct vfsb_record *r;
			ssize_t n;
			size_t off;

			if (poll(pfd, 2, -1) < 0 && errno != EINTR)
				_exit(1);
			n = read(fd, buf, sizeof(buf));
			if (n > 0) {
				cnt[1]++;
				for (off = 0; (r = vfsb_rec_at(buf, n, off));
				     off += r->size) {
					cnt[0] += r->type == VFSB_REC_CHANGE;
					if (r->seq > ack)
						ack = r->seq;
				}
				if (ack && !vfsb_ack(fd, ack))
					cnt[2]++;
				continue;
			}
			if (pfd[1].revents)
				break;
		}
		_exit(write(rep[1], cnt, sizeof(cnt)) == sizeof(cnt) ? 0 : 1);
	}
	close(stop[0]);
	close(rep[1]);
	close(ready[1]);
	rd->stop = stop[1];
	rd->report = rep[0];
	if (read(ready[0], &c, 1) != 1)
		c = 'n';
	close(ready[0]);
	if (c != 'y') {
		close(rd->stop);
		close(rd->report);
		waitpid(rd->pid, NULL, 0);
		return false;
	}
	return true;
}

/* Stops the reader once it has read everything; its counts to cnt. */
static void reader_stop(struct reader *rd, uint64_t cnt[3])
{
	close(rd->stop);
	if (read(rd->report, cnt, 3 * sizeof(uint64_t)) !=
	    3 * sizeof(uint64_t))
		die("the intent reader did not report");
	close(rd->report);
	waitpid(rd->pid, NULL, 0);
}

enum { SC_UNWATCHED, SC_WATCHED, SC_INTENT, SC_COALESCE, SC_DAEMON, NSC };
enum { SO_CREATE, SO_MKDIR, NSO };

static int prof_n;
static const char *prof_cfg = "";

/*
 * scripts/profile.sh: the guest's symbols into slot N (16 MiB each) of
 * the third disk, then the instruction tools/prof/tbcount.c saves its
 * counts at ("xchg %bx, %bx"), once before the run (start) and once
 * after. Nothing without VFSB_BENCH_PROF.
 */
static void prof_mark(const struct jb *b, int op, bool start)
{
	char cmd[200];

	if (!getenv("VFSB_BENCH_PROF"))
		return;
	if (start) {
		snprintf(cmd, sizeof(cmd), "dd if=/proc/kallsyms of=/dev/vdc bs=16M seek=%d iflag=fullblock conv=sync,notrunc status=none",
			 prof_n);
		if (system(cmd))
			progress("prof: kallsyms not saved");
		progress("prof symbols %d: %s %s %s", prof_n++, b->data,
			 prof_cfg, op == SO_MKDIR ? "mkdir" : "create");
	}
	asm volatile("xchg %%bx, %%bx" ::: "memory");
}

/*
 * One steady-state operation per iteration in b->data/steady: create +
 * unlink, or mkdir + rmdir (which no create deferral touches: intent.c
 * fails an open(O_CREAT) of a name the dcache does not know once, to be
 * restarted, and tmpfs keeps no negative dentries).
 */
static double steady_op_ns(struct jb *b, int op)
{
	char path[256];
	uint64_t t0, t1;
	long i;
	int fd;

	snprintf(path, sizeof(path), "%s/steady/x", b->data);
	/* the directory announced first (a no-op when unwatched) */
	if (!mkdir(path, 0755))
		rmdir(path);
	if (b->daemon)
		daemon_settle(b);
	prof_mark(b, op, true);
	t0 = now_ns();
	for (i = 0; i < b->steady_iters; i++) {
		if (op == SO_MKDIR) {
			if (mkdir(path, 0755) || rmdir(path))
				die("mkdir/rmdir %s: %s", path, strerror(errno));
			continue;
		}
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
	}
	t1 = now_ns();
	prof_mark(b, op, false);
	return (double)(t1 - t0) / b->steady_iters;
}

static const char *const sc_key[NSC] = {
	"unwatched", "watched", "intent_reader", "intent_coalesce",
	"vbjournald",
};
static const char *const so_key[NSO] = { "create_unlink", "mkdir_rmdir" };

struct steady_res {
	double ns[NSC][8], recs[NSC][8], reads[NSC][8];
	bool na[NSC];
};

/* Every configuration on one filesystem and op, rounds interleaved. */
static void steady_fs(struct jb *b, int op, int rounds, struct steady_res *sr)
{
	uint64_t cnt[3];
	struct reader rd;
	int i, c, dev;

	for (i = 0; i < rounds; i++) {
		for (c = 0; c < NSC; c++) {
			/* alternate the order round by round */
			int k = i & 1 ? NSC - 1 - c : c;

			sr->recs[k][i] = sr->reads[k][i] = NAN;
			sr->ns[k][i] = NAN;
			if (sr->na[k])
				continue;
			prof_cfg = sc_key[k];
			switch (k) {
			case SC_UNWATCHED:
				sr->ns[k][i] = steady_op_ns(b, op);
				break;
			case SC_WATCHED:
				dev = dev_open();
				if (vfsb_watch_path(dev, b->data))
					die("watch %s", b->data);
				sr->ns[k][i] = steady_op_ns(b, op);
				close(dev);
				break;
			case SC_INTENT:
			case SC_COALESCE:
				if (!reader_start(&rd, b->data, k == SC_COALESCE ?
						  VFSB_SUB_COALESCE : 0)) {
					progress("steady: %s refused by the module",
						 sc_key[k]);
					sr->na[k] = true;
					break;
				}
				sr->ns[k][i] = steady_op_ns(b, op);
				reader_stop(&rd, cnt);
				sr->recs[k][i] = (double)cnt[0] / b->steady_iters;
				sr->reads[k][i] = (double)cnt[1] / b->steady_iters;
				break;
			case SC_DAEMON:
				daemon_start(b);
				sr->ns[k][i] = steady_op_ns(b, op);
				daemon_stop(b);
				break;
			}
			mod_wait_refcnt(0);
		}
		progress("steady %s round %d: %.0f / %.0f / %.0f / %.0f / %.0f ns",
			 so_key[op], i, sr->ns[0][i], sr->ns[1][i], sr->ns[2][i],
			 sr->ns[3][i], sr->ns[4][i]);
	}
}

static int steady(const char *out_json)
{
	static const char *const help[NSC] = {
		"module loaded, nothing watched",
		"the data's filesystem watched by an open device, no subscriber",
		"an intent subscriber (another process) that reads and acks, stores nothing",
		"the same subscribing with VFSB_SUB_COALESCE",
		"vbjournald --fs (its journal on another filesystem)",
	};
	static struct steady_res res[4][NSO];
	struct bench_fs fs[4];
	int nfs = bench_fs_list(fs, 4), f, i, c, op, rounds;
	const char *other = getenv("VFSB_BENCH_OTHER");
	struct jb b = { 0 };
	uint64_t t0 = now_ns();
	struct summary s;
	char sub[200];
	struct jw j;

	b.steady_iters = bench_env("VFSB_BENCH_ITERS", 2000, 100);
	rounds = bench_env_in("VFSB_BENCH_REPS", 3, 2, 1, 8);
	pin_cpu(0);
	mod_set(true);
	for (f = 0; f < nfs; f++) {
		snprintf(b.data, sizeof(b.data), "%s/journal-steady", fs[f].dir);
		/* the journal on another filesystem: ext4's, or the other tmpfs */
		b.journal_fs = "tmpfs";
		snprintf(b.journal, sizeof(b.journal), "%.100s/vbjournal-steady-%.16s",
			 other ? other : "/tmp", fs[f].name);
		for (i = 0; i < nfs; i++) {
			if (i != f && !strcmp(fs[i].name, "ext4")) {
				snprintf(b.journal, sizeof(b.journal),
					 "%.100s/vbjournal-steady", fs[i].dir);
				b.journal_fs = "ext4";
			}
		}
		mkdir(b.data, 0755);
		bench_subdir(sub, sizeof(sub), b.data, "steady");
		for (op = 0; op < NSO; op++)
			steady_fs(&b, op, rounds, &res[f][op]);
	}
	printf("journal steady state: one op in an announced directory, %ld "
	       "per run, median of %d rounds; ratio to unwatched (range)\n",
	       b.steady_iters, rounds);
	for (f = 0; f < nfs; f++) {
		for (op = 0; op < NSO; op++) {
			struct steady_res *sr = &res[f][op];

			printf("  %s %s:\n", fs[f].name, so_key[op]);
			for (c = 0; c < NSC; c++) {
				if (sr->na[c]) {
					printf("    %-16s not measurable (refused)\n",
					       sc_key[c]);
					continue;
				}
				s = ratio_summary(sr->ns[c], sr->ns[SC_UNWATCHED],
						  rounds);
				printf("    %-16s %8.0f ns/op  %.3fx (%.3f-%.3f)",
				       sc_key[c], summarize(sr->ns[c], rounds).med,
				       s.med, s.min, s.max);
				if (c == SC_INTENT || c == SC_COALESCE)
					printf("  records/op %.2f, reads/op %.2f",
					       summarize(sr->recs[c], rounds).med,
					       summarize(sr->reads[c], rounds).med);
				printf("\n");
			}
		}
	}
	for (c = 0; c < NSC; c++)
		printf("    %-16s %s\n", sc_key[c], help[c]);

	bench_json_begin(&j, out_json);
	jw_obj(&j, "journal_steady");
	jw_int(&j, "iterations", b.steady_iters);
	jw_int(&j, "rounds", rounds);
	for (f = 0; f < nfs; f++) {
		jw_obj(&j, fs[f].name);
		for (op = 0; op < NSO; op++) {
			struct steady_res *sr = &res[f][op];

			jw_obj(&j, so_key[op]);
			for (c = 0; c < NSC; c++) {
				jw_obj(&j, sc_key[c]);
				jw_num(&j, "ns", sr->na[c] ? NAN :
				       summarize(sr->ns[c], rounds).med);
				jw_num(&j, "ratio", sr->na[c] ? NAN :
				       ratio_summary(sr->ns[c], sr->ns[SC_UNWATCHED],
						     rounds).med);
				if (c == SC_INTENT || c == SC_COALESCE) {
					jw_num(&j, "records_per_op", sr->na[c] ? NAN :
					       summarize(sr->recs[c], rounds).med);
					jw_num(&j, "reads_per_op", sr->na[c] ? NAN :
					       summarize(sr->reads[c], rounds).med);
				}
				jw_end(&j);
			}
			jw_end(&j);
		}
		jw_end(&j);
	}
	return bench_json_end(&j, t0);
}

int main(int argc, char **argv)
{
	static const struct bench_cmd cmds[] = {
		{ "journal", journal },
		{ "steady", steady },
	};

	return bench_main(argc, argv, "bench_journal", cmds, ARRAY_SIZE(cmds));
}
