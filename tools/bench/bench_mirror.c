// SPDX-License-Identifier: GPL-2.0
/*
 * vbjournal mirror against rsync (make bench, phase mirror): the time
 * to catch a copy of a tree of 100 000 files up after 100, 1 000 and
 * 10 000 changes, by `vbjournal mirror` (from the journal's answer)
 * and by `rsync -a --delete` of the whole tree (which must stat
 * everything on both sides), side by side in one boot.
 *
 * The tree: DIRS directories of FILES files each (default 10 000 x 10,
 * VFSB_BENCH_MIRROR_DIRS, _FILES), empty at first, on a tmpfs of its
 * own that vbjournald journals (the journal on the ext4 scratch disk,
 * tmpfs without one); the two copies on another tmpfs. A change
 * appends a byte to a file, spread over the tree (file i * 7919 mod
 * the files), then a checkpoint closes the epoch; then each copy is
 * caught up and timed: the mirror (its default: incremental, contents
 * compared in the directories named), the mirror with --full-above 25
 * (a second copy: a full run by size and mtime when the answer names a
 * quarter of the tree), then rsync.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common.h"

#define SRC_MNT		"/mnt/bench-msrc"
#define DST_MNT		"/mnt/bench-mdst"

static const long steps[] = { 100, 1000, 10000 };
#define NSTEPS	(int)(sizeof(steps) / sizeof(steps[0]))

struct mb {
	char journal[160];
	const char *journal_fs;
	pid_t daemon;
	long ndirs, nfiles;
};

/* Runs argv, stdout into out (when out), stderr into err_file; exit. */
static int run_cmd(char *const argv[], char *out, size_t sz,
		   const char *err_file)
{
	int p[2], status;
	ssize_t n = 0, got;
	pid_t pid;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		int fd = open(err_file ? err_file : "/dev/null",
			      O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(p[1], 1);
		if (fd >= 0)
			dup2(fd, 2);
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
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void daemon_start(struct mb *b)
{
	char line[256];
	int p[2];
	ssize_t n;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	b->daemon = fork();
	if (!b->daemon) {
		dup2(p[1], 1);
		execlp("vbjournald", "vbjournald", "--fs", SRC_MNT, "--journal",
		       b->journal, "--interval", "3600000", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], line, sizeof(line) - 1);
	close(p[0]);
	if (n <= 0)
		die("vbjournald did not start");
}

/*
 * A checkpoint; vbjournal checkpoint waits 30 s for it, which 6 000
 * directories' first changes (one durable intent each) can outlast
 * under TCG: then again, up to 10 times.
 */
static void checkpoint(struct mb *b)
{
	char *argv[] = { "vbjournal", "--journal", b->journal, "checkpoint",
			 NULL };
	char out[128], err[512] = "";
	int tries, rc = 0;
	FILE *f;

	for (tries = 0; tries < 10; tries++) {
		rc = run_cmd(argv, out, sizeof(out), "/tmp/bench-ckpt.err");
		if (!rc)
			return;
		f = fopen("/tmp/bench-ckpt.err", "r");
		if (f) {
			err[fread(err, 1, sizeof(err) - 1, f)] = 0;
			fclose(f);
		}
		progress("vbjournal checkpoint: exit %d: %s", rc, err);
	}
	die("vbjournal checkpoint failed (exit %d)", rc);
}

static void make_tree(struct mb *b)
{
	char path[256];
	long d, f;
	int fd;

	for (d = 0; d < b->ndirs; d++) {
		snprintf(path, sizeof(path), SRC_MNT "/tree/d%03ld", d / 100);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), SRC_MNT "/tree/d%03ld/s%02ld",
			 d / 100, d % 100);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
		for (f = 0; f < b->nfiles; f++) {
			snprintf(path, sizeof(path),
				 SRC_MNT "/tree/d%03ld/s%02ld/f%03ld", d / 100,
				 d % 100, f);
			fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			if (fd < 0)
				die("create %s: %s", path, strerror(errno));
			close(fd);
		}
	}
}

/* n changes: a byte appended to files spread over the tree. */
static void change(struct mb *b, long n, long *seq)
{
	long total = b->ndirs * b->nfiles, i;
	char path[256];
	int fd;

	for (i = 0; i < n; i++) {
		long k = (*seq)++ * 7919 % total, d = k / b->nfiles;

		snprintf(path, sizeof(path), SRC_MNT "/tree/d%03ld/s%02ld/f%03ld",
			 d / 100, d % 100, k % b->nfiles);
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0 || write(fd, "x", 1) != 1)
			die("write %s: %s", path, strerror(errno));
		close(fd);
	}
}

static double mirror_ms(struct mb *b, bool *full, bool share)
{
	char *argv[] = { "vbjournal", "--journal", b->journal, "mirror",
			 SRC_MNT "/tree", DST_MNT "/mirror", "--verbose", NULL,
			 NULL, NULL, NULL, NULL };

	if (share) {
		argv[5] = DST_MNT "/mirror25";
		argv[7] = "--full-above";
		argv[8] = "25";
		argv[9] = "--consumer";
		argv[10] = "mirror25";
	}
	char out[128], err[4096] = "";
	uint64_t t;
	int rc;

	t = now_ns();
	rc = run_cmd(argv, out, sizeof(out), "/tmp/bench-mirror.err");
	FILE *f;
	size_t n;
	char *p;

	t = now_ns() - t;
	f = fopen("/tmp/bench-mirror.err", "r");
	if (f) {
		n = fread(err, 1, sizeof(err) - 1, f);
		err[n] = 0;
		fclose(f);
	}
	if (rc)
		die("vbjournal mirror: exit %d: %s", rc, err);
	*full = strstr(err, "full copy") != NULL;
	/* where its time went (--verbose) */
	p = strstr(err, "times: ");
	if (p && strchr(p, '\n')) {
		*strchr(p, '\n') = 0;
		progress("%s: %s", share ? "--full-above 25" : "mirror", p);
	}
	return t / 1e6;
}

static double rsync_ms(void)
{
	char *argv[] = { "rsync", "-a", "--delete", SRC_MNT "/tree/",
			 DST_MNT "/rsync/", NULL };
	uint64_t t = now_ns();

	if (run_cmd(argv, NULL, 0, NULL))
		die("rsync -a --delete failed");
	return (now_ns() - t) / 1e6;
}

static int mirror(const char *out_json)
{
	struct bench_fs fs[8];
	int nfs = bench_fs_list(fs, 8), i;
	double m_ms[NSTEPS], a_ms[NSTEPS], r_ms[NSTEPS], first_ms, r0_ms;
	bool full[NSTEPS], afull[NSTEPS], f0;
	uint64_t t0 = now_ns();
	long seq = 0;
	struct mb b = { .journal_fs = "tmpfs" };
	struct jw j;

	b.ndirs = bench_env("VFSB_BENCH_MIRROR_DIRS", 10000, 100);
	b.nfiles = bench_env("VFSB_BENCH_MIRROR_FILES", 10, 10);
	snprintf(b.journal, sizeof(b.journal), "%s/vbjournal-mirror",
		 getenv("VFSB_BENCH_OTHER") ? getenv("VFSB_BENCH_OTHER") : "/tmp");
	for (i = 0; i < nfs; i++) {
		if (!strcmp(fs[i].name, "ext4")) {
			snprintf(b.journal, sizeof(b.journal),
				 "%s/vbjournal-mirror", fs[i].dir);
			b.journal_fs = "ext4";
		}
	}
	mkdir(SRC_MNT, 0755);
	mkdir(DST_MNT, 0755);
	/* tmpfs's default inode cap is too few for three trees */
	if (mount("tmpfs", SRC_MNT, "tmpfs", 0, "size=256m,nr_inodes=0") ||
	    mount("tmpfs", DST_MNT, "tmpfs", 0, "size=640m,nr_inodes=0"))
		die("mount tmpfs: %s", strerror(errno));
	mkdir(SRC_MNT "/tree", 0755);
	mkdir(DST_MNT "/rsync", 0755);
	/* three copies: the default mirror, --full-above 25, rsync */
	progress("tree: %ld directories of %ld files", b.ndirs, b.nfiles);
	make_tree(&b);
	mod_set(true);
	daemon_start(&b);
	checkpoint(&b);
	first_ms = mirror_ms(&b, &f0, false);
	mirror_ms(&b, &f0, true);
	r0_ms = rsync_ms();
	progress("first copy: mirror %.0f ms (full: %d), rsync %.0f ms",
		 first_ms, f0, r0_ms);
	for (i = 0; i < NSTEPS; i++) {
		change(&b, steps[i], &seq);
		checkpoint(&b);
		/*
		 * rsync first: after a checkpoint the daemon's namer
		 * looks the new directories' paths up in the background,
		 * and the journal's writes it makes would count in the
		 * mirror's time (seen: 3.7 s of 4.0 s in its finish:
		 * syncfs, its state, the consumer's ack in the journal)
		 */
		r_ms[i] = rsync_ms();
		m_ms[i] = mirror_ms(&b, &full[i], false);
		a_ms[i] = mirror_ms(&b, &afull[i], true);
		progress("%ld changes: mirror %.1f ms (%s), --full-above 25 "
			 "%.1f ms (%s), rsync -a --delete %.1f ms, %.1fx",
			 steps[i], m_ms[i], full[i] ? "full run" : "incremental",
			 a_ms[i], afull[i] ? "full run" : "incremental", r_ms[i],
			 r_ms[i] / m_ms[i]);
	}
	kill(b.daemon, SIGTERM);
	waitpid(b.daemon, NULL, 0);
	mod_set(false);
	umount(SRC_MNT);
	umount(DST_MNT);

	printf("mirror: %ld files in %ld directories (tmpfs), journal on %s\n",
	       b.ndirs * b.nfiles, b.ndirs, b.journal_fs);
	printf("  first copy: vbjournal mirror %.0f ms, rsync -a %.0f ms\n",
	       first_ms, r0_ms);
	for (i = 0; i < NSTEPS; i++)
		printf("  after %5ld changes: vbjournal mirror %8.1f ms (%s), "
		       "--full-above 25 %8.1f ms (%s), rsync -a --delete "
		       "%8.1f ms: %.1fx, %.1fx\n", steps[i], m_ms[i],
		       full[i] ? "full run" : "incremental", a_ms[i],
		       afull[i] ? "full run" : "incremental", r_ms[i],
		       r_ms[i] / m_ms[i], r_ms[i] / a_ms[i]);

	bench_json_begin(&j, out_json);
	jw_obj(&j, "mirror");
	jw_int(&j, "files", b.ndirs * b.nfiles);
	jw_int(&j, "directories", b.ndirs);
	jw_str(&j, "journal_fs", b.journal_fs);
	jw_num(&j, "first_copy_ms", first_ms);
	jw_num(&j, "rsync_first_copy_ms", r0_ms);
	jw_arr(&j, "catchup");
	for (i = 0; i < NSTEPS; i++) {
		jw_obj(&j, NULL);
		jw_int(&j, "changes", steps[i]);
		jw_num(&j, "mirror_ms", m_ms[i]);
		jw_str(&j, "mirror_run", full[i] ? "full" : "incremental");
		jw_num(&j, "mirror_full_above_25_ms", a_ms[i]);
		jw_str(&j, "mirror_full_above_25_run",
		       afull[i] ? "full" : "incremental");
		jw_num(&j, "rsync_ms", r_ms[i]);
		jw_num(&j, "rsync_over_mirror", r_ms[i] / m_ms[i]);
		jw_num(&j, "rsync_over_mirror_full_above_25",
		       r_ms[i] / a_ms[i]);
		jw_end(&j);
	}
	jw_end(&j);
	return bench_json_end(&j, t0);
}

int main(int argc, char **argv)
{
	static const struct bench_cmd cmds[] = { { "mirror", mirror } };

	return bench_main(argc, argv, "bench_mirror", cmds, ARRAY_SIZE(cmds));
}
