// SPDX-License-Identifier: GPL-2.0
/*
 * Intent mode (VFSB_SUB_INTENT): the first change of a directory in an
 * epoch waits for the subscriber's ack, before it changes anything;
 * later ones do not; a checkpoint starts the next epoch and waits for
 * the closed one's changes; timeouts and a closing subscriber end the
 * waits by the subscriber's policy; a waiting writer holds nothing the
 * subscriber or a freeze needs.
 *
 * The writers are child processes (the subscriber's own process never
 * waits). A writer is known to be waiting, not merely slow, because
 * nothing but the ack the test has not given yet can let it go: the
 * test reads the intent record, sees the change not made, acks, and
 * only then sees it made.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "vfsb.h"
#include "vfsb_uring.h"
#include "aio.h"
#include "hold_calls.h"
#include "modparam.h"
#include "rec_batch.h"
#include "task.h"
#include "testfs.h"
#include "uffd_hold.h"
#include "kselftest_harness.h"

#define DIR_T	"/tmp/in-t"
#define DIR_E	"/tmp/in-e"
#define LONG_MS	60000	/* an intent timeout no test reaches */

/* A writer in a process of its own; its result comes back on a pipe. */
struct child {
	pid_t pid;
	int res;		/* read end: one int, 0 or -errno */
	int ctl;		/* write end: what the child waits for, if any */
};

/* fn(path, ctl, res): res lets it report before its result (once). */
typedef int (*child_fn)(const char *path, int ctl, int res);

static int child_start(struct child *ch, child_fn fn, const char *path)
{
	int rp[2], cp[2];

	if (pipe2(rp, O_CLOEXEC) || pipe2(cp, O_CLOEXEC))
		return -errno;
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (!ch->pid) {
		int r, fd;

		/* not the subscriber's device: its close must release it */
		for (fd = 3; fd < 1024; fd++)
			if (fd != rp[1] && fd != cp[0])
				close(fd);
		r = fn(path, cp[0], rp[1]);
		_exit(write(rp[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(rp[1]);
	close(cp[0]);
	ch->res = rp[0];
	ch->ctl = cp[1];
	return 0;
}

/* The child's result within ms: 0 or -errno it reported; 1: none yet. */
static int child_result(struct child *ch, int ms, int *res)
{
	struct pollfd p = { .fd = ch->res, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return 1;
	if (read(ch->res, res, sizeof(*res)) != sizeof(*res))
		return -EIO;
	return 0;
}

static void child_end(struct child *ch)
{
	close(ch->ctl);
	close(ch->res);
	kill(ch->pid, SIGKILL);
	waitpid(ch->pid, NULL, 0);
}

static int op_mkdir(const char *path, int ctl, int res)
{
	return mkdir(path, 0755) ? -errno : 0;
}

static int op_create(const char *path, int ctl, int res)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Appends "abc": a restarted write must still write it once. */
static int op_append(const char *path, int ctl, int res)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, "abc", 3);
	close(fd);
	return n == 3 ? 0 : n < 0 ? -errno : -EIO;
}

static int op_rename_to_d2(const char *path, int ctl, int res)
{
	return rename(path, DIR_T "/d2/moved") ? -errno : 0;
}

/* 8192 bytes allocated: vfs_fallocate() waits in its wrapper. */
static int op_fallocate(const char *path, int ctl, int res)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = fallocate(fd, 0, 0, 8192) ? -errno : 0;
	close(fd);
	return ret;
}

/* "WORLD" at 5 by Linux AIO: io_submit() restarts like any call. */
static int op_aio_write(const char *path, int ctl, int res)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = aio_write1(fd, "WORLD", 5, 5);
	close(fd);
	return ret;
}

/* A shared writable mapping of path's first page, or NULL (errno). */
static char *map_first_page(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	char *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* A store through a shared mapping of the file's first page. */
static int op_mmap_store(const char *path, int ctl, int res)
{
	char *p = map_first_page(path);

	if (!p)
		return -errno;
	p[0] = 'M';
	return munmap(p, 4096) ? -errno : 0;
}

/*
 * write(2) from a userfaultfd-missing page: held inside the write, after
 * its intent was acked, until the test writes a byte to ctl. Reports
 * "held" first (result 1), then the write's.
 */
static int op_held_write(const char *path, int ctl, int res)
{
	static struct uffd_hold h;
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int held = 1;
	char go;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (uffd_hold_start(&h, fd))
		return -EIO;
	if (write(res, &held, sizeof(held)) != sizeof(held) ||
	    read(ctl, &go, 1) != 1)
		return -EIO;
	n = uffd_hold_release(&h);
	return n > 0 ? 0 : n < 0 ? (int)n : -EIO;
}

/* A whole record, items included. */
union rec {
	struct vfsb_record r;
	char bytes[VFSB_RECORD_MAX];
};

/*
 * Waits (10 s at most) for a record of want_type with all of want_flags
 * and copies it whole: 0 or -ETIMEDOUT.
 */
/* RESCAN records wait_record() read past: counted, not lost. */
static int rescans_passed;

static int wait_record(int dev, int want_type, __u32 want_flags,
		       union rec *out)
{
	static struct rec_batch b;
	struct pollfd p = { .fd = dev, .events = POLLIN };
	int tries, i, found;

	for (tries = 0; tries < 100; tries++) {
		if (rec_drain(dev, &b))
			return -EIO;
		found = -1;
		/* the whole batch: its RESCAN records may follow the match */
		for (i = 0; i < b.n; i++) {
			struct vfsb_record *r = b.rec[i];

			if (r->type == VFSB_REC_RESCAN &&
			    want_type != VFSB_REC_RESCAN)
				rescans_passed++;
			if (found < 0 && r->type == want_type &&
			    (r->flags & want_flags) == want_flags)
				found = i;
		}
		if (found >= 0) {
			memcpy(out, b.rec[found], b.rec[found]->size);
			return 0;
		}
		poll(&p, 1, 100);
	}
	return -ETIMEDOUT;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* An intent subscriber of a fresh tmpfs with directory d in it. */
static int setup(int *dev, __u32 flags, __u32 timeout_ms)
{
	int ret = mount_tmpfs(DIR_T);

	if (ret)
		return ret;
	if (mkdir(DIR_T "/d", 0755) || put_file(DIR_T "/d/f", ""))
		return -errno;
	*dev = vfsb_open_flags(O_NONBLOCK);
	if (*dev < 0)
		return *dev;
	ret = vfsb_subscribe_intent(*dev, 0, flags, timeout_ms, NULL);
	return ret ? ret : vfsb_watch_path(*dev, DIR_T);
}

/*
 * The first change of d waits for the ack of its intent record; while
 * it waits, the subscriber can stat, list and open d by its handle;
 * later changes of d in the epoch do not wait.
 */
TEST(first_change_of_a_directory_waits_for_its_ack)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch, ch2;
	struct dirent *de;
	struct stat st;
	int dev, res, fd, mfd, entries = 0;
	DIR *dir;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(1, r->epoch);
	EXPECT_EQ(VFSB_R_CREATE, r->reasons);
	EXPECT_EQ(ino_of(DIR_T "/d"), (long long)r->parent_ino);
	EXPECT_LT(0, r->seq);

	/* not acked: not made, and the writer has not returned */
	EXPECT_FALSE(exists(DIR_T "/d/x"));
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	/* what the journal daemon may need meanwhile */
	EXPECT_TRUE(exists(DIR_T "/d"));
	dir = opendir(DIR_T "/d");
	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir)))
		entries++;
	closedir(dir);
	EXPECT_EQ(3, entries);	/* ., .., f */
	/* the directory's handle in the record, opened while it waits */
	mfd = open(DIR_T, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mfd);
	fd = vfsb_rec_open_handle(r, VFSB_ITEM_PARENT_FH, mfd,
				  O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(ino_of(DIR_T "/d"), (long long)st.st_ino);
	close(fd);
	close(mfd);
	EXPECT_EQ(1, child_result(&ch, 0, &res));

	EXPECT_EQ(-EINVAL, vfsb_ack(dev, r->seq + 1000000));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/x"));
	child_end(&ch);

	/* the same directory, the same epoch: no wait, no intent */
	ASSERT_EQ(0, child_start(&ch2, op_create, DIR_T "/d/y"));
	ASSERT_EQ(0, child_result(&ch2, 20000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch2);
	EXPECT_TRUE(exists(DIR_T "/d/y"));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A checkpoint closes the epoch: the next change of the same directory
 * waits again, announced in the next epoch.
 */
TEST(checkpoint_starts_the_next_epoch)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	__u64 closed;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_create, DIR_T "/d/a"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(1, r->epoch);
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	child_end(&ch);

	ASSERT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	EXPECT_EQ(1, closed);
	ASSERT_EQ(0, child_start(&ch, op_create, DIR_T "/d/b"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(2, r->epoch);
	EXPECT_FALSE(exists(DIR_T "/d/b"));
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/b"));
	child_end(&ch);
	ASSERT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	EXPECT_EQ(2, closed);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* Data: a write(2) waits the same way, and writes its bytes once. */
TEST(data_write_waits_and_writes_once)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	char buf[16] = { 0 };
	int dev, res, fd;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_append, DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(VFSB_R_DATA_WRITE, r->reasons);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	fd = open(DIR_T "/d/f", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(3, read(fd, buf, sizeof(buf)));
	close(fd);
	EXPECT_STREQ("abc", buf);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A store through a shared mapping: its write fault (ext4 has one;
 * tmpfs does not) waits, and the store lands once acked.
 */
TEST(mmap_write_fault_waits)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	char buf[16] = { 0 };
	int dev, res, fd, ret;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	ASSERT_EQ(0, put_file(DIR_E "/d/f", "abc"));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	ASSERT_EQ(0, child_start(&ch, op_mmap_store, DIR_E "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(VFSB_R_MMAP_WRITE, r->reasons);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	fd = open(DIR_E "/d/f", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(3, read(fd, buf, sizeof(buf)));
	close(fd);
	EXPECT_STREQ("Mbc", buf);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * While one writer waits, writers to directories already acked in the
 * epoch, and to filesystems nobody watches, go on.
 */
TEST(other_directories_go_on_while_one_waits)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child a, b, c;
	__u64 seq_a;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/d2", 0755));
	ASSERT_EQ(0, mount_tmpfs("/tmp/in-o"));
	/* d2 announced and acked in epoch 1 */
	ASSERT_EQ(0, child_start(&c, op_create, DIR_T "/d2/pre"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&c, 10000, &res));
	child_end(&c);

	ASSERT_EQ(0, child_start(&a, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	seq_a = r->seq;
	EXPECT_EQ(ino_of(DIR_T "/d"), (long long)r->parent_ino);
	ASSERT_EQ(0, child_start(&b, op_create, DIR_T "/d2/y"));
	ASSERT_EQ(0, child_result(&b, 20000, &res));
	EXPECT_EQ(0, res);
	child_end(&b);
	ASSERT_EQ(0, child_start(&b, op_create, "/tmp/in-o/z"));
	ASSERT_EQ(0, child_result(&b, 20000, &res));
	EXPECT_EQ(0, res);
	child_end(&b);
	/* and the first still waits */
	EXPECT_EQ(1, child_result(&a, 0, &res));
	EXPECT_FALSE(exists(DIR_T "/d/x"));
	ASSERT_EQ(0, vfsb_ack(dev, seq_a));
	ASSERT_EQ(0, child_result(&a, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&a);
	close(dev);
	umount2("/tmp/in-o", MNT_DETACH);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A rename between two directories new in the epoch: an intent for
 * each; it waits until both are acked, and then happens once.
 */
TEST(rename_waits_for_both_directories)
{
	static struct rec_batch b;
	struct pollfd p;
	struct child ch;
	__u64 seq[2];
	int dev, res, i, n = 0, tries;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/d2", 0755));
	ASSERT_EQ(0, child_start(&ch, op_rename_to_d2, DIR_T "/d/f"));
	p.fd = dev;
	p.events = POLLIN;
	for (tries = 0; n < 2 && tries < 100; tries++) {
		ASSERT_EQ(0, rec_drain(dev, &b));
		for (i = 0; i < b.n && n < 2; i++)
			if (b.rec[i]->flags & VFSB_RECF_INTENT)
				seq[n++] = b.rec[i]->seq;
		if (n < 2)
			poll(&p, 1, 100);
	}
	ASSERT_EQ(2, n);
	ASSERT_LT(seq[0], seq[1]);
	ASSERT_EQ(0, vfsb_ack(dev, seq[0]));
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	EXPECT_TRUE(exists(DIR_T "/d/f"));
	ASSERT_EQ(0, vfsb_ack(dev, seq[1]));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_FALSE(exists(DIR_T "/d/f"));
	EXPECT_TRUE(exists(DIR_T "/d2/moved"));
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * Checkpoints that always come between an intent and its ack (the most
 * a subscriber checkpointing in a tight loop can do): each ack then
 * arrives in a later epoch, where the restarted call finds its
 * directories unacked and waits again. A cross-directory rename (two
 * directories, one hook) must still end within a bounded number of
 * such rounds, moved once, with a RESCAN (VFSB_RESCAN_INTENT) for the
 * change that went on unacked: never restarted for ever. One round:
 * the writer's intents read (it has not moved anything, but in the last
 * round, which goes on unacked), a checkpoint, then the ack of the
 * highest intent.
 */
#define STARVE_ROUNDS	40	/* far more than the module's bound */

TEST(checkpoints_between_intent_and_ack_do_not_starve_a_rename)
{
	static struct rec_batch b;
	struct child ch;
	__u64 closed, seq;
	int dev, res, i, round, tries, rescans = 0, first_gone = -1;
	bool done = false;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/d2", 0755));
	ASSERT_EQ(0, child_start(&ch, op_rename_to_d2, DIR_T "/d/f"));
	for (round = 0; round < STARVE_ROUNDS && !done; round++) {
		struct pollfd p[2] = {
			{ .fd = dev, .events = POLLIN },
			{ .fd = ch.res, .events = POLLIN },
		};

		seq = 0;
		for (tries = 0; !seq && !done && tries < 100; tries++) {
			ASSERT_LE(0, poll(p, 2, 100));
			ASSERT_EQ(0, rec_drain(dev, &b));
			for (i = 0; i < b.n; i++) {
				struct vfsb_record *r = b.rec[i];

				if (r->flags & VFSB_RECF_INTENT)
					seq = r->seq > seq ? r->seq : seq;
				if (r->type == VFSB_REC_RESCAN &&
				    (r->reasons & VFSB_RESCAN_INTENT))
					rescans++;
			}
			done = !seq && p[1].revents;
		}
		if (done)
			break;
		ASSERT_NE(0, seq);
		/* the round it goes on unacked may have moved it already */
		if (first_gone < 0 && !exists(DIR_T "/d/f"))
			first_gone = round;
		ASSERT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
		ASSERT_EQ(0, vfsb_ack(dev, seq));
	}
	fprintf(stderr, "# %d rounds of checkpoint-then-ack, %s\n", round,
		done ? "then it moved" : "still restarting");
	ASSERT_TRUE(done);
	EXPECT_GT(12, round);
	/* every round before the last waited: nothing moved before it */
	EXPECT_TRUE(first_gone < 0 || first_gone == round - 1);
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_FALSE(exists(DIR_T "/d/f"));
	EXPECT_TRUE(exists(DIR_T "/d2/moved"));
	child_end(&ch);
	if (!rescans) {
		ASSERT_EQ(0, rec_drain(dev, &b));
		for (i = 0; i < b.n; i++)
			rescans += b.rec[i]->type == VFSB_REC_RESCAN &&
				   (b.rec[i]->reasons & VFSB_RESCAN_INTENT);
	}
	EXPECT_LT(0, rescans);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A change by a child that waits for its intent, acked as soon as it is
 * read: its directory is then acked in the epoch. 0 when the change was
 * made, else -errno or 1 (no result in time).
 */
static int acked_change(int dev, child_fn fn, const char *path)
{
	union rec u;
	struct child ch;
	int ret, res;

	ret = child_start(&ch, fn, path);
	if (ret)
		return ret;
	ret = wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u);
	if (!ret)
		ret = vfsb_ack(dev, u.r.seq);
	if (!ret)
		ret = child_result(&ch, 10000, &res);
	child_end(&ch);
	return ret ? ret : res;
}

static int op_rename_sub(const char *path, int ctl, int res)
{
	return rename(DIR_T "/d/sub", DIR_T "/d/sub2") ? -errno : 0;
}

/*
 * A directory's rename waits for its ack even when both parents were
 * acked earlier in the epoch: the journal names the moved subtree by the
 * rename's own record, which a crash before the daemon's next commit
 * would lose while the rename is on disk (issue 24, scenario 3).
 */
TEST(directory_rename_waits_in_an_acked_directory)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/d/sub", 0755));	/* ours: no wait */
	/* d's first change of the epoch, acked */
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/x"));

	ASSERT_EQ(0, child_start(&ch, op_rename_sub, NULL));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_TRUE(r->reasons & VFSB_R_RENAME_TO);
	EXPECT_TRUE(r->flags & VFSB_RECF_DIR);
	EXPECT_EQ(ino_of(DIR_T "/d/sub"), (long long)r->ino);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	EXPECT_TRUE(exists(DIR_T "/d/sub"));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/sub2"));
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* mkdir with a SIGUSR1 handler installed: signals end its waits. */
static int op_mkdir_signalled(const char *path, int ctl, int res)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	if (sigaction(SIGUSR1, &sa, NULL))
		return -errno;
	return mkdir(path, 0755) ? -errno : 0;
}

/*
 * A writer that keeps getting signals while its ack never comes: each
 * signal ends the wait and restarts the call, which waits again, but
 * the timeout counts from the intent, not from each restart, so the
 * policy (fail-open: go on) applies within the timeout.
 */
TEST(signals_do_not_extend_the_timeout)
{
	union rec u;
	struct child ch;
	int dev, res = 1, ret = 1, i;

	ASSERT_EQ(0, setup(&dev, 0, 1000));
	ASSERT_EQ(0, child_start(&ch, op_mkdir_signalled, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	/* a signal every 200 ms, for 8 s at most: never acked */
	for (i = 0; i < 40 && ret == 1; i++) {
		kill(ch.pid, SIGUSR1);
		ret = child_result(&ch, 200, &res);
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/x"));
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

static int op_rename_sub_to_e(const char *path, int ctl, int res)
{
	return rename(DIR_T "/d/sub", DIR_T "/e/sub") ? -errno : 0;
}

/*
 * A directory whose own entries changed in the epoch (acked), then moved
 * between two acked parents: the move is still an intent of its own. A
 * key for "the directory's entries" must not pass for "the subtree was
 * moved" (issue 24, scenario 3, found at review).
 */
TEST(directory_rename_waits_after_a_change_inside_it)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/e", 0755));
	ASSERT_EQ(0, mkdir(DIR_T "/d/sub", 0755));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/x"));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/e/x"));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/sub/x"));

	ASSERT_EQ(0, child_start(&ch, op_rename_sub_to_e, NULL));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_TRUE(r->reasons & VFSB_R_RENAME_TO);
	EXPECT_TRUE(r->flags & VFSB_RECF_DIR);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/e/sub/x"));
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* Writes "L" at 0 through path. */
static int op_write_l(const char *path, int ctl, int res)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = pwrite(fd, "L", 1, 0);
	close(fd);
	return n == 1 ? 0 : n < 0 ? -errno : -EIO;
}

/*
 * A file with two links, d/f and d2/g, is written through d/f in an
 * epoch where both directories are acked already: a consumer that
 * follows d2 must still be led to it. The record says the object has
 * other names (VFSB_RECF_LINKS), and the change waits for its own
 * intent, keyed by the object (issue 24, scenario 1).
 */
TEST(write_to_a_linked_file_waits_for_its_object)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/d2", 0755));
	ASSERT_EQ(0, link(DIR_T "/d/f", DIR_T "/d2/g"));
	/* both directories' first changes of the epoch, acked */
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/x"));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d2/x"));

	ASSERT_EQ(0, child_start(&ch, op_write_l, DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(VFSB_R_DATA_WRITE, r->reasons);
	EXPECT_TRUE(r->flags & VFSB_RECF_LINKS);
	EXPECT_EQ(ino_of(DIR_T "/d2/g"), (long long)r->ino);
	EXPECT_NE(NULL, vfsb_rec_item(r, VFSB_ITEM_OBJECT_FH));
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * O_TMPFILE in d, linked as d2/t, then written through the descriptor
 * it was made with: the record names d2, where its name is, not d
 * (issue 24, scenario 2).
 */
TEST(tmpfile_linked_elsewhere_is_named_by_its_name)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	char proc[64];
	int dev, fd;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/d2", 0755));
	fd = open(DIR_T "/d", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	ASSERT_LE(0, fd);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ASSERT_EQ(0, linkat(AT_FDCWD, proc, AT_FDCWD, DIR_T "/d2/t",
			    AT_SYMLINK_FOLLOW));
	/* drain what the subscriber's own changes announced */
	while (!wait_record(dev, VFSB_REC_CHANGE, 0, &u) &&
	       !(r->reasons & VFSB_R_HARDLINK))
		;
	EXPECT_EQ(1, write(fd, "T", 1));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, 0, &u));
	EXPECT_EQ(VFSB_R_DATA_WRITE, r->reasons);
	EXPECT_EQ(ino_of(DIR_T "/d2"), (long long)r->parent_ino);
	EXPECT_TRUE(r->flags & VFSB_RECF_LINKS);
	close(fd);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * An ext4 scratch disk on DIR_E, with DIR_E/d/existing, DIR_E/d/link (a
 * symbolic link to "new", which does not exist) and DIR_E/n, watched by
 * an intent subscriber (*dev), the dentry cache then dropped: 0, -ENODEV
 * (no scratch disk) or -errno.
 */
static int setup_uncached(int *dev)
{
	int ret = mount_ext4(DIR_E);

	if (ret)
		return ret;
	if (mkdir(DIR_E "/d", 0755) || mkdir(DIR_E "/n", 0755))
		return -errno;
	ret = put_file(DIR_E "/d/existing", "x");
	if (ret)
		return ret;
	if (symlink("new", DIR_E "/d/link"))
		return -errno;
	*dev = vfsb_open_flags(O_NONBLOCK);
	if (*dev < 0)
		return *dev;
	ret = vfsb_subscribe_intent(*dev, 0, 0, LONG_MS, NULL);
	if (!ret)
		ret = vfsb_watch_path(*dev, DIR_E);
	if (ret)
		return ret;
	sync();
	return put_file("/proc/sys/vm/drop_caches", "2");
}

/*
 * open(O_CREAT) of a name that exists but is not in the dcache (caches
 * dropped) asks the create check before it looks the name up: it must
 * neither announce a CREATE nor wait; a new name still does both.
 */
TEST(open_creat_of_an_uncached_existing_name_does_not_wait)
{
	static struct rec_batch b;
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res, ret, i, creates = 0;

	ret = setup_uncached(&dev);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);

	ASSERT_EQ(0, child_start(&ch, op_create, DIR_E "/d/existing"));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	ASSERT_EQ(0, rec_drain(dev, &b));
	for (i = 0; i < b.n; i++)
		if (b.rec[i]->type == VFSB_REC_CHANGE &&
		    (b.rec[i]->reasons & VFSB_R_CREATE))
			creates++;
	EXPECT_EQ(0, creates);

	/* a new name: announced and waiting, once, then made */
	ASSERT_EQ(0, child_start(&ch, op_create, DIR_E "/d/new"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(VFSB_R_CREATE, r->reasons);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	EXPECT_FALSE(exists(DIR_E "/d/new"));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_E "/d/new"));
	child_end(&ch);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * A child's change that must not wait: 0 when it was made without an
 * ack. One that waits is acked (so that nothing is left hanging) and
 * counts as 1.
 */
static int unwaited_change(int dev, child_fn fn, const char *path)
{
	union rec u;
	struct child ch;
	int ret, res;

	ret = child_start(&ch, fn, path);
	if (ret)
		return ret;
	ret = child_result(&ch, 10000, &res);
	if (ret == 1) {
		if (!wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u))
			vfsb_ack(dev, u.r.seq);
		child_result(&ch, 10000, &res);
	}
	child_end(&ch);
	return ret ? ret : res;
}

static int op_open_creat_two(const char *path, int ctl, int res)
{
	int ret = op_create(DIR_E "/d/e1", ctl, res);

	return ret ? ret : op_create(DIR_E "/d/e2", ctl, res);
}

/*
 * A task that opens two existing names the dcache does not know, with
 * O_CREAT, one after the other: the first is deferred (its restart finds
 * the name and opens it, and never comes back to the create check), and
 * the second must be deferred too, not announced and kept waiting for
 * an ack because the first one's slot looks like another task's.
 */
TEST(open_creat_of_two_uncached_existing_names_does_not_wait)
{
	static struct rec_batch b;
	int dev, ret, i, creates = 0;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	ASSERT_EQ(0, put_file(DIR_E "/d/e1", "1"));
	ASSERT_EQ(0, put_file(DIR_E "/d/e2", "2"));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	sync();
	ASSERT_EQ(0, put_file("/proc/sys/vm/drop_caches", "2"));
	EXPECT_EQ(0, unwaited_change(dev, op_open_creat_two, NULL));
	ASSERT_EQ(0, rec_drain(dev, &b));
	for (i = 0; i < b.n; i++)
		creates += b.rec[i]->type == VFSB_REC_CHANGE &&
			   (b.rec[i]->reasons & VFSB_R_CREATE);
	EXPECT_EQ(0, creates);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

static int op_open_creat_and_hold(const char *path, int ctl, int res)
{
	char c;
	int ret = op_create(path, ctl, res);

	/* reported, then alive (its task keeps its address) until told */
	if (write(res, &ret, sizeof(ret)) != sizeof(ret))
		return -EIO;
	return read(ctl, &c, 1) < 0 ? -errno : 0;
}

#define MANY_OPENERS	200

/*
 * A deferred open(O_CREAT) whose restart found its name existing leaves
 * its task's slot set; that task, still alive, must not hold off the
 * others whose slot it is (one in 64): after it, MANY_OPENERS tasks
 * each open an existing uncached name with O_CREAT, and none waits.
 */
TEST(a_deferral_that_went_on_holds_off_no_other_task)
{
	static struct rec_batch b;
	struct child holder;
	char path[64];
	int dev, ret, i, res, waited = 0;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	for (i = 0; i <= MANY_OPENERS; i++) {
		snprintf(path, sizeof(path), DIR_E "/d/e%d", i);
		ASSERT_EQ(0, put_file(path, "x"));
	}
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	sync();
	ASSERT_EQ(0, put_file("/proc/sys/vm/drop_caches", "2"));
	snprintf(path, sizeof(path), DIR_E "/d/e%d", MANY_OPENERS);
	ASSERT_EQ(0, child_start(&holder, op_open_creat_and_hold, path));
	ASSERT_EQ(0, child_result(&holder, 10000, &res));
	ASSERT_EQ(0, res);
	for (i = 0; i < MANY_OPENERS && !waited; i++) {
		snprintf(path, sizeof(path), DIR_E "/d/e%d", i);
		waited = unwaited_change(dev, op_create, path);
	}
	EXPECT_EQ(0, waited) TH_LOG("opener %d waited", i - 1);
	ASSERT_EQ(1, write(holder.ctl, "g", 1));
	ASSERT_EQ(0, child_result(&holder, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&holder);
	ASSERT_EQ(0, rec_drain(dev, &b));
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * With a journal as the only subscriber, open(O_CREAT) of a name the
 * dcache does not know is not deferred in a directory acked in the
 * epoch (emit.c, vfsb_create_may_defer()): an existing name opens and a
 * new one is made, neither waits, and the existing one's CREATE record
 * names a directory the journal holds in the epoch already (the new
 * name's merged into it). Deferred, the existing name would announce
 * nothing.
 */
TEST(journal_open_creat_in_an_acked_directory_is_not_deferred)
{
	static struct rec_batch b;
	int dev, ret, i, creates = 0;
	char nb[64];

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	ASSERT_EQ(0, put_file(DIR_E "/d/existing", "x"));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, VFSB_SUB_COALESCE, LONG_MS,
					   NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_E "/d/x"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	sync();
	ASSERT_EQ(0, put_file("/proc/sys/vm/drop_caches", "2"));

	EXPECT_EQ(0, unwaited_change(dev, op_create, DIR_E "/d/existing"));
	EXPECT_EQ(0, unwaited_change(dev, op_create, DIR_E "/d/new"));
	EXPECT_TRUE(exists(DIR_E "/d/new"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	for (i = 0; i < b.n; i++) {
		EXPECT_FALSE(b.rec[i]->flags & VFSB_RECF_INTENT);
		creates += b.rec[i]->type == VFSB_REC_CHANGE &&
			   (b.rec[i]->reasons & VFSB_R_CREATE) &&
			   !strcmp(vfsb_rec_name(b.rec[i], nb, sizeof(nb)),
				   "existing");
	}
	EXPECT_EQ(1, creates);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * One O_DIRECT write of 4096 bytes of 'P' at 0 through an IOPOLL ring:
 * 0 when it wrote them all, else -errno.
 */
static int op_uring_iopoll_write(const char *path, int ctl, int res)
{
	struct vfsb_uring r;
	struct io_uring_sqe sqe;
	void *buf;
	int fd, ret, cres;

	if (posix_memalign(&buf, 4096, 4096))
		return -ENOMEM;
	memset(buf, 'P', 4096);
	fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = vfsb_uring_init_flags(&r, 4, IORING_SETUP_IOPOLL);
	if (!ret) {
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = IORING_OP_WRITE;
		sqe.fd = fd;
		sqe.addr = (unsigned long)buf;
		sqe.len = 4096;
		ret = vfsb_uring_run(&r, &sqe, &cres);
		if (!ret)
			ret = cres == 4096 ? 0 : cres < 0 ? cres : -EIO;
	}
	vfsb_uring_exit(&r);
	close(fd);
	return ret;
}

/*
 * An IOPOLL ring's write, with VFSB_SUB_REFUSE_UNWAITED, to a
 * subscriber that never acks (stopped, say): io-wq retries an IOPOLL
 * write's EAGAIN at once, so a refusal would spin a worker; the write
 * waits in its worker instead, and like any wait it is bound by the
 * subscriber's timeout. After it the write goes on (fail-open), with a
 * RESCAN record.
 */
TEST(refused_iopoll_write_is_bound_by_the_timeout)
{
	union rec u;
	struct child ch;
	int dev, res, ret;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	ASSERT_EQ(0, put_file(DIR_E "/d/f", ""));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, VFSB_SUB_REFUSE_UNWAITED,
					   1000, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	ASSERT_EQ(0, child_start(&ch, op_uring_iopoll_write, DIR_E "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	/* never acked */
	ret = child_result(&ch, 15000, &res);
	EXPECT_EQ(0, ret);
	if (!ret)
		EXPECT_EQ(0, res);
	child_end(&ch);
	EXPECT_EQ(0, wait_record(dev, VFSB_REC_RESCAN, 0, &u));
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * A file written through a descriptor from open_by_handle_at() after
 * the caches were dropped: its dentry is disconnected (its own parent),
 * so the record must not name the file as its directory; it names the
 * object (VFSB_RECF_LINKS, its handle), as nfsd's writes often come.
 */
TEST(write_through_a_disconnected_dentry_names_no_false_directory)
{
	struct {
		struct file_handle fh;
		unsigned char buf[MAX_HANDLE_SZ];
	} h;
	union rec u;
	struct vfsb_record *r = &u.r;
	int dev, ret, mid, mfd, fd;
	long long ino;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	ASSERT_EQ(0, put_file(DIR_E "/d/f", "abc"));
	ino = ino_of(DIR_E "/d/f");
	h.fh.handle_bytes = MAX_HANDLE_SZ;
	ASSERT_EQ(0, name_to_handle_at(AT_FDCWD, DIR_E "/d/f", &h.fh, &mid, 0));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	sync();
	ASSERT_EQ(0, put_file("/proc/sys/vm/drop_caches", "2"));
	mfd = open(DIR_E, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, mfd);
	fd = open_by_handle_at(mfd, &h.fh, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, pwrite(fd, "X", 1, 0));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, 0, &u));
	EXPECT_EQ(VFSB_R_DATA_WRITE, r->reasons);
	EXPECT_EQ(ino, (long long)r->ino);
	EXPECT_NE(ino, (long long)r->parent_ino);
	/*
	 * Disconnected (6.1: the caches let go of the file's dentry): the
	 * object alone. A kernel that kept or rebuilt a connected dentry
	 * (7.3 here) names the file's real directory, as for any write.
	 */
	if (r->flags & VFSB_RECF_LINKS)
		TH_LOG("disconnected: parent_ino %llu, the object by its handle",
		       (unsigned long long)r->parent_ino);
	else
		EXPECT_EQ(ino_of(DIR_E "/d"), (long long)r->parent_ino);
	EXPECT_NE(NULL, vfsb_rec_item(r, VFSB_ITEM_OBJECT_FH));
	close(fd);
	close(mfd);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * The subscriber's own changes never wait for itself (fail-closed: a
 * wait would fail the call), and are not intents.
 */
TEST(subscriber_own_writes_do_not_wait)
{
	static struct rec_batch b;
	int dev, i, n = 0;

	ASSERT_EQ(0, setup(&dev, VFSB_SUB_FAIL_CLOSED, LONG_MS));
	ASSERT_EQ(0, rec_drain(dev, &b));
	ASSERT_EQ(0, mkdir(DIR_T "/d/own", 0755));
	ASSERT_EQ(0, put_file(DIR_T "/d/own/f", "x"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	for (i = 0; i < b.n; i++) {
		if (b.rec[i]->type != VFSB_REC_CHANGE)
			continue;
		n++;
		EXPECT_FALSE(b.rec[i]->flags & VFSB_RECF_INTENT);
		EXPECT_EQ(1, b.rec[i]->epoch);
	}
	EXPECT_LT(2, n);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * fallocate() goes through a wrapper that may sleep: it waits there,
 * with its section ended, and announces again once acked. The return
 * probe on vfs_fallocate() also saw the call the wrapper stands in for:
 * its section is the wrapper's to end (a barrier passes the wait), and
 * once the call is done no section is left or ended twice.
 */
TEST(fallocate_waits_in_its_wrapper)
{
	struct vfsb_sb_stats sst;
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	struct stat st;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_fallocate, DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(VFSB_R_DATA_WRITE, r->reasons);
	EXPECT_EQ(8192, r->length);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, stat(DIR_T "/d/f", &st));
	EXPECT_EQ(0, st.st_size);
	/* the waiting wrapper holds no section: a barrier returns */
	EXPECT_EQ(0, vfsb_barrier_path(dev, DIR_T, 0, 10000));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	ASSERT_EQ(0, stat(DIR_T "/d/f", &st));
	EXPECT_EQ(8192, st.st_size);
	ASSERT_EQ(0, vfsb_stats_path(dev, DIR_T, &sst));
	EXPECT_EQ(0, sst.in_flight);
	EXPECT_EQ(0, sst.missed);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * An AIO write waits like a system call (io_submit() is restarted, or
 * returns how many it queued) and lands once.
 */
TEST(aio_write_waits_and_lands_once)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	char buf[16] = { 0 };
	int dev, res, fd;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, put_file(DIR_T "/d/f", "hello"));
	ASSERT_EQ(0, child_start(&ch, op_aio_write, DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(VFSB_R_DATA_WRITE, r->reasons);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	fd = open(DIR_T "/d/f", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(10, read(fd, buf, sizeof(buf)));
	close(fd);
	EXPECT_STREQ("helloWORLD", buf);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A child that dumps core into DIR_T/d/core: its wait status, or
 * -errno; 1: no core_pattern knob (CONFIG_COREDUMP).
 */
static int dump_core(int *status)
{
	const char *knob = "/proc/sys/kernel/core_pattern";
	char was[256] = "";
	int fd, ret = 0;
	ssize_t n;
	pid_t pid;

	fd = open(knob, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, was, sizeof(was) - 1);
	was[n > 0 ? n : 0] = 0;
	if (pwrite(fd, DIR_T "/d/core", strlen(DIR_T "/d/core"), 0) < 0) {
		close(fd);
		return -errno;
	}
	pid = fork();
	if (!pid) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_CORE, &rl);
		signal(SIGQUIT, SIG_DFL);
		pause();
		_exit(1);
	}
	/* in pause(): the dump runs on the way out of a system call */
	ret = wait_proc_sleeping(pid);
	kill(pid, SIGQUIT);
	if (waitpid(pid, status, 0) != pid && !ret)
		ret = -errno;
	if (was[0] && pwrite(fd, was, strlen(was), 0) < 0)
		ret = ret ?: -errno;
	close(fd);
	return ret;
}

/*
 * A task killed inside a system call dumps core from get_signal(),
 * which restarts nothing: the dump's file in a directory not yet acked
 * is created all the same (unacked, with a RESCAN), not lost.
 */
TEST(core_dump_is_written_unacked)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	int dev, ret, status;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ret = dump_core(&status);
	if (ret == 1)
		SKIP(return, "no core_pattern (CONFIG_COREDUMP)");
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_TRUE(WCOREDUMP(status));
	EXPECT_TRUE(exists(DIR_T "/d/core"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_RESCAN, 0, &u));
	EXPECT_TRUE(r->reasons & VFSB_RESCAN_INTENT);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * VFSB_SUB_REFUSE_UNWAITED: the same dump is refused before its file is
 * created (a core dump is never retried: it is lost, not unjournaled).
 */
TEST(refuse_unwaited_refuses_a_core_dump)
{
	union rec u;
	int dev, ret, status;

	ASSERT_EQ(0, setup(&dev, VFSB_SUB_REFUSE_UNWAITED, LONG_MS));
	ret = dump_core(&status);
	if (ret == 1)
		SKIP(return, "no core_pattern (CONFIG_COREDUMP)");
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_FALSE(WCOREDUMP(status));
	EXPECT_FALSE(exists(DIR_T "/d/core"));
	/* announced, for a journal to name: nothing went unacked */
	EXPECT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* 4096 bytes of 'U' at 0 by io_uring; how: the kind of write. */
enum uring_how { U_BUFFERED, U_DIRECT, U_DIRECT_FIXED_FILE };

static int uring_write_4k(const char *path, enum uring_how how)
{
	struct vfsb_uring r = { };
	struct io_uring_sqe sqe;
	void *buf;
	int fd, ret, cres;

	if (posix_memalign(&buf, 4096, 4096))
		return -ENOMEM;
	memset(buf, 'U', 4096);
	fd = open(path, O_WRONLY | O_CLOEXEC |
		  (how == U_DIRECT || how == U_DIRECT_FIXED_FILE ? O_DIRECT : 0));
	if (fd < 0)
		return -errno;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_WRITE;
	sqe.fd = fd;
	sqe.addr = (unsigned long)buf;
	sqe.len = 4096;
	ret = vfsb_uring_init(&r, 4);
	if (!ret && how == U_DIRECT_FIXED_FILE) {
		if (syscall(__NR_io_uring_register, r.fd, IORING_REGISTER_FILES,
			    &fd, 1) < 0)
			ret = -errno;
		sqe.fd = 0;
		sqe.flags = IOSQE_FIXED_FILE;
	}
	if (!ret)
		ret = vfsb_uring_run(&r, &sqe, &cres);
	if (!ret)
		ret = cres == 4096 ? 0 : cres < 0 ? cres : -EIO;
	/*
	 * Now, not when the ring is freed (later, in a kworker): the next
	 * test formats the disk this file is on.
	 */
	if (how == U_DIRECT_FIXED_FILE && r.up)
		syscall(__NR_io_uring_register, r.fd, IORING_UNREGISTER_FILES,
			NULL, 0);
	vfsb_uring_exit(&r);
	close(fd);
	free(buf);
	return ret;
}

/*
 * 4096 bytes of 'U' at 0 with O_DIRECT by IORING_OP_WRITEV, two iovecs
 * of 2048. Once io_uring_enter() has returned, the iovec array is the
 * caller's again (IORING_FEAT_SUBMIT_STABLE): it is pointed at 'X's
 * before the completion is reaped, which a write that read it again
 * later would write instead. 0 once all 4096 are in, or -errno.
 */
static int op_uring_direct_writev(const char *path, int ctl, int res)
{
	struct vfsb_uring r = { };
	struct io_uring_sqe sqe;
	struct iovec iov[2];
	char *buf, *other;
	int fd, ret, cres;

	if (posix_memalign((void **)&buf, 4096, 8192))
		return -ENOMEM;
	other = buf + 4096;
	memset(buf, 'U', 4096);
	memset(other, 'X', 4096);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_DIRECT);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	iov[0] = (struct iovec){ .iov_base = buf, .iov_len = 2048 };
	iov[1] = (struct iovec){ .iov_base = buf + 2048, .iov_len = 2048 };
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_WRITEV;
	sqe.fd = fd;
	sqe.addr = (unsigned long)iov;
	sqe.len = 2;
	ret = vfsb_uring_init(&r, 4);
	if (!ret)
		ret = vfsb_uring_submit(&r, &sqe);
	if (!ret) {
		iov[0] = (struct iovec){ .iov_base = other, .iov_len = 512 };
		iov[1] = iov[0];
		ret = vfsb_uring_reap(&r, &cres);
	}
	if (!ret)
		ret = cres == 4096 ? 0 : cres < 0 ? cres : -EIO;
	vfsb_uring_exit(&r);
	close(fd);
	free(buf);
	return ret;
}

/* A file op_uring_direct_writev() writes: 0 empty, 1 its 'U's. */
static int wrote_4k_u(const char *path)
{
	char buf[4096];
	int fd, n, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (!n)
		return 0;
	if (n != (int)sizeof(buf))
		return 2;
	for (i = 0; i < n; i++)
		if (buf[i] != 'U')
			return 3;
	return 1;
}

static int op_uring_buffered(const char *path, int ctl, int res)
{
	return uring_write_4k(path, U_BUFFERED);
}

static int op_uring_direct(const char *path, int ctl, int res)
{
	return uring_write_4k(path, U_DIRECT);
}

static int op_uring_direct_fixed(const char *path, int ctl, int res)
{
	return uring_write_4k(path, U_DIRECT_FIXED_FILE);
}

/*
 * fn's change of path (in a directory not acked in the epoch) waits for
 * its ack: its intent comes; until the ack, state(path) is still 0 (as
 * before) and the caller has no completion; then it completes with 0,
 * state(path) is 1 (made as it should be), and nothing went on unacked
 * (no RESCAN record). With barrier_in_wait, a barrier of path's
 * filesystem also returns while it waits (it holds no section). 0, or
 * what went wrong, said on stderr; -ENOSYS/-EINVAL: this io_uring lacks
 * the operation.
 */
static bool barrier_in_wait;

static int change_waits(int dev, child_fn fn, const char *path,
			int (*state)(const char *path))
{
	static struct rec_batch b;
	union rec u;
	struct child ch;
	int ret, res = 0, i, st;

	rescans_passed = 0;
	ret = child_start(&ch, fn, path);
	if (ret)
		return ret;
	if (wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u)) {
		if (child_result(&ch, 0, &res))
			fprintf(stderr, "# no intent record, no result\n");
		else if (res != -ENOSYS && res != -EINVAL)
			fprintf(stderr, "# no intent record; result %d\n", res);
		child_end(&ch);
		return res == -ENOSYS || res == -EINVAL ? res : -EIO;
	}
	ret = -EIO;
	if (child_result(&ch, 0, &res) != 1)
		fprintf(stderr, "# completed (%d) before its ack\n", res);
	else if ((st = state(path)) != 0)
		fprintf(stderr, "# changed before its ack (state %d)\n", st);
	else if (barrier_in_wait &&
		 (st = vfsb_barrier_path(dev, path, 0, 10000)) != 0)
		fprintf(stderr, "# a barrier during the wait: %s\n",
			strerror(-st));
	else if (vfsb_ack(dev, u.r.seq))
		fprintf(stderr, "# ack: %s\n", strerror(errno));
	else if (child_result(&ch, 20000, &res) || res)
		fprintf(stderr, "# no completion after the ack (%d)\n", res);
	else if ((st = state(path)) != 1)
		fprintf(stderr, "# not made after the ack (state %d)\n", st);
	else
		ret = 0;
	child_end(&ch);
	if (!ret && rec_drain(dev, &b)) {
		fprintf(stderr, "# reading records: %s\n", strerror(errno));
		ret = -EIO;
	}
	for (i = 0; !ret && i < b.n; i++)
		rescans_passed += b.rec[i]->type == VFSB_REC_RESCAN;
	if (!ret && rescans_passed) {
		fprintf(stderr, "# a RESCAN record: it went on unacked\n");
		ret = -EIO;
	}
	return ret;
}

/*
 * After a write that completed: no section of path's filesystem is
 * left open (one left would hold every barrier) and none was ended
 * twice, and no write there went unbracketed. 0, or -EIO said on stderr.
 */
static int sections_settled(int dev, const char *path)
{
	struct vfsb_sb_stats st;

	if (vfsb_stats_path(dev, path, &st)) {
		fprintf(stderr, "# stats: %s\n", strerror(errno));
		return -EIO;
	}
	if (!st.in_flight && !st.missed)
		return 0;
	fprintf(stderr, "# in flight %lld, missed %lld\n",
		(long long)st.in_flight, (long long)st.missed);
	return -EIO;
}

/* A file written by uring_write_4k(): 0 empty, 1 its 4096 bytes. */
static int wrote_4k(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return !st.st_size ? 0 : st.st_size == 4096 ? 1 : 2;
}

/*
 * io_uring writes wait for their ack in an io-wq worker, which may
 * sleep: a buffered write (tmpfs: io_uring hands it to a worker at
 * once), and O_DIRECT writes on ext4, by descriptor and as a registered
 * file, whose first attempt in io_uring_enter() cannot wait and is sent
 * to a worker with -EAGAIN. Default mode and --refuse-unwaited alike.
 */
TEST(io_uring_buffered_write_waits_for_its_ack)
{
	int dev, ret;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ret = change_waits(dev, op_uring_buffered, DIR_T "/d/f", wrote_4k);
	if (ret == -ENOSYS)
		SKIP(return, "no io_uring");
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, sections_settled(dev, DIR_T));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * change_waits() on a fresh ext4 at DIR_E, watched by an intent
 * subscriber with dev_flags, for fn's change of DIR_E/d/f, which holds
 * text; DIR_E/src holds 4096 'K's. barrier: a barrier must pass while
 * the change waits.
 */
static int ext4_change_waits(int dev_flags, child_fn fn,
			     int (*state)(const char *path), const char *text,
			     bool barrier)
{
	char ks[4097];
	int dev, ret;

	ret = mount_ext4(DIR_E);
	if (ret)
		return ret;
	memset(ks, 'K', 4096);
	ks[4096] = 0;
	if (put_file(DIR_E "/src", ks) || mkdir(DIR_E "/d", 0755) ||
	    put_file(DIR_E "/d/f", text))
		ret = -errno;
	dev = ret ? -1 : vfsb_open_flags(O_NONBLOCK);
	if (!ret && dev < 0)
		ret = dev;
	if (!ret)
		ret = vfsb_subscribe_intent(dev, 0, dev_flags, LONG_MS, NULL);
	if (!ret)
		ret = vfsb_watch_path(dev, DIR_E);
	barrier_in_wait = barrier;
	if (!ret)
		ret = change_waits(dev, fn, DIR_E "/d/f", state);
	barrier_in_wait = false;
	if (!ret)
		ret = sections_settled(dev, DIR_E);
	if (dev >= 0)
		close(dev);
	umount2(DIR_E, MNT_DETACH);
	return ret;
}

static int uring_direct_waits_as(int dev_flags, child_fn fn,
				 int (*state)(const char *path))
{
	return ext4_change_waits(dev_flags, fn, state, "", false);
}

static int uring_direct_waits(int dev_flags, child_fn fn)
{
	return uring_direct_waits_as(dev_flags, fn, wrote_4k);
}

TEST(io_uring_direct_write_waits_for_its_ack)
{
	int ret = uring_direct_waits(0, op_uring_direct);

	if (ret == -ENODEV || ret == -ENOSYS)
		SKIP(return, "no scratch disk or no io_uring");
	EXPECT_EQ(0, ret);
}

TEST(io_uring_write_to_a_registered_file_waits_for_its_ack)
{
	int ret = uring_direct_waits(0, op_uring_direct_fixed);

	if (ret == -ENODEV || ret == -ENOSYS)
		SKIP(return, "no scratch disk or no io_uring");
	EXPECT_EQ(0, ret);
}

/*
 * A writev whose first attempt, in io_uring_enter(), reaches the write's
 * checks (O_DIRECT): 6.1 has no copy of its iovec array then (6.10 on
 * always makes one at prep). It waits in an io-wq worker all the same,
 * and writes what the array said at submission.
 */
TEST(io_uring_direct_writev_waits_for_its_ack)
{
	int ret = uring_direct_waits_as(0, op_uring_direct_writev, wrote_4k_u);

	if (ret == -ENODEV || ret == -ENOSYS)
		SKIP(return, "no scratch disk or no io_uring");
	EXPECT_EQ(0, ret);
}

TEST(io_uring_direct_writev_waits_with_refuse_unwaited)
{
	int ret = uring_direct_waits_as(VFSB_SUB_REFUSE_UNWAITED,
					op_uring_direct_writev, wrote_4k_u);

	if (ret == -ENODEV || ret == -ENOSYS)
		SKIP(return, "no scratch disk or no io_uring");
	EXPECT_EQ(0, ret);
}

/*
 * A kernel where io_uring's copy of an iovec array cannot be made by the
 * module (io_req_prep_async() missing or sealed, simulated by loading
 * it with fail_hook naming the function): a plain write, which needs no
 * copy, still waits for its ack in a worker. The module is reloaded
 * without the parameter after.
 */
TEST(io_uring_write_waits_without_the_copy_function)
{
	int ret;

	ASSERT_EQ(0, vfsb_module_wait_refcnt(0, 20000));
	ASSERT_EQ(0, vfsb_module_unload());
	ASSERT_EQ(0, vfsb_module_load_params("fail_hook=io_req_prep_async"));
	ret = uring_direct_waits(0, op_uring_direct);
	EXPECT_EQ(0, vfsb_module_wait_refcnt(0, 20000));
	EXPECT_EQ(0, vfsb_module_unload());
	EXPECT_EQ(0, vfsb_module_load());
	if (ret == -ENODEV || ret == -ENOSYS)
		SKIP(return, "no scratch disk or no io_uring");
	EXPECT_EQ(0, ret);
}

TEST(io_uring_write_waits_with_refuse_unwaited)
{
	int ret = uring_direct_waits(VFSB_SUB_REFUSE_UNWAITED,
				     op_uring_direct);

	if (ret == -ENODEV || ret == -ENOSYS)
		SKIP(return, "no scratch disk or no io_uring");
	EXPECT_EQ(0, ret);
}

/*
 * A write fault the kernel takes itself, on a shared mapping of path's
 * first page: read(2) copies the 4096 'K's of DIR_E/src into it
 * (copy_to_user()), or with O_DIRECT in src_flags pins it first
 * (get_user_pages(), under src's inode lock, shared). src is on the
 * same filesystem: reading it changes nothing. 0 once all are in.
 */
static int read_into_mapping(const char *path, int src_flags)
{
	char *p = map_first_page(path);
	int src, ret;
	ssize_t n;

	if (!p)
		return -errno;
	src = open(DIR_E "/src", O_RDONLY | O_CLOEXEC | src_flags);
	if (src < 0) {
		ret = -errno;
		munmap(p, 4096);
		return ret;
	}
	n = read(src, p, 4096);
	ret = n == 4096 ? 0 : n < 0 ? -errno : -EIO;
	close(src);
	if (munmap(p, 4096) && !ret)
		ret = -errno;
	return ret;
}

static int op_read_into_mapping(const char *path, int ctl, int res)
{
	return read_into_mapping(path, 0);
}

static int op_direct_read_into_mapping(const char *path, int ctl, int res)
{
	return read_into_mapping(path, O_DIRECT);
}

/* 0: path holds its 4096 '.' still; 1: 4096 'K'; else 2. */
static int filled_k(const char *path)
{
	char buf[4096];
	int fd, n, i, dots = 0, ks = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (i = 0; i < n; i++) {
		dots += buf[i] == '.';
		ks += buf[i] == 'K';
	}
	return n != (int)sizeof(buf) ? 2 : dots == n ? 0 : ks == n ? 1 : 2;
}

static int kernel_fault_waits(int dev_flags, child_fn fn)
{
	char dots[4097];

	memset(dots, '.', 4096);
	dots[4096] = 0;
	return ext4_change_waits(dev_flags, fn, filled_k, dots, true);
}

/*
 * A write fault the kernel takes on a shared mapping cannot wait at the
 * return to user space (the access is retried at once, in the kernel):
 * it waits in place, holding no section (a barrier passes), and lands
 * once acked. Default mode and --refuse-unwaited alike: it can wait, so
 * nothing refuses it.
 */
TEST(kernel_write_fault_waits_for_its_ack)
{
	int ret = kernel_fault_waits(0, op_read_into_mapping);

	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	EXPECT_EQ(0, ret);
}

TEST(kernel_write_fault_waits_with_refuse_unwaited)
{
	int ret = kernel_fault_waits(VFSB_SUB_REFUSE_UNWAITED,
				     op_read_into_mapping);

	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	EXPECT_EQ(0, ret);
}

TEST(pinning_write_fault_waits_for_its_ack)
{
	int ret = kernel_fault_waits(0, op_direct_read_into_mapping);

	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	EXPECT_EQ(0, ret);
}

/* Whether the running kernel (or a module of it) has function name. */
static bool kallsyms_has(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 &&
			!strcmp(sym, name);
	fclose(f);
	return found;
}

/*
 * A loop device over path (buffered: its worker, a kernel thread,
 * writes the file with vfs_iter_write() in 6.1 and 6.12): its number,
 * or -errno. loop_del() detaches it.
 */
static int loop_add(const char *path)
{
	struct loop_config cfg;
	char dev[32];
	int ctl, fd, lfd, n;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (n < 0)
		return -errno;
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	lfd = open(dev, O_RDWR | O_CLOEXEC);
	if (lfd < 0 && errno == ENOENT && !mknod(dev, S_IFBLK | 0600,
						 makedev(7, n)))
		lfd = open(dev, O_RDWR | O_CLOEXEC);
	if (lfd < 0)
		return -errno;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		close(lfd);
		return -errno;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = fd;
	n = ioctl(lfd, LOOP_CONFIGURE, &cfg) ? -errno : n;
	/*
	 * Buffered: newer kernels (6.12 here) turn direct I/O on by
	 * themselves where the backing file allows it, and the loop driver
	 * then writes it with ->write_iter(), which no hook sees.
	 */
	if (n >= 0 && ioctl(lfd, LOOP_SET_DIRECT_IO, 0))
		n = -errno;
	close(fd);
	close(lfd);
	return n;
}

static void loop_del(int n)
{
	char dev[32];
	int fd;

	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		ioctl(fd, LOOP_CLR_FD, 0);
		close(fd);
	}
}

/* 4096 bytes of 'L' at 0 of the loop device path, O_DIRECT */
static int op_loop_write(const char *path, int ctl, int res)
{
	void *buf;
	int fd, ret;

	if (posix_memalign(&buf, 4096, 4096))
		return -ENOMEM;
	memset(buf, 'L', 4096);
	fd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = pwrite(fd, buf, 4096, 0);
	ret = ret == 4096 ? 0 : ret < 0 ? -errno : -EIO;
	close(fd);
	free(buf);
	return ret;
}

/*
 * A kernel thread's data write waits for its ack in the exported helper
 * it writes through (nfsd, ksmbd and the loop driver alike): a write to
 * a loop device whose backing file is in a directory not acked in the
 * epoch is made by the loop worker, which has no system call to
 * restart. Its intent comes; until the ack the backing file is not
 * written and the writer of the device not answered; then it is, once,
 * with no RESCAN record (nothing went on unacked).
 */
TEST(kernel_thread_write_waits_in_its_wrapper)
{
	static struct rec_batch b;
	union rec u;
	struct child ch;
	char dev[32], got[4096];
	int vfd, fd, n, ret, res, i;

	/*
	 * From 6.15, and in 6.12.95, the loop driver writes its file with
	 * ->write_iter() in every mode ("loop: stop using
	 * vfs_iter_{read,write} for buffered I/O"): no hook sees it, and
	 * vfsbarrier(4) says so. Its buffered writer is then gone.
	 */
	ret = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ret >= 0)
		close(ret);
	if (!kallsyms_has("lo_write_simple"))
		SKIP(return, "this loop driver has no vfs_iter_write() path");
	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	fd = open(DIR_E "/d/img", O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 1 << 20));
	n = loop_add(DIR_E "/d/img");
	if (n < 0) {
		close(fd);
		umount2(DIR_E, MNT_DETACH);
		SKIP(return, "no loop device: %s", strerror(-n));
	}
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	vfd = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, vfd);
	ASSERT_EQ(0, vfsb_subscribe_intent(vfd, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(vfd, DIR_E));

	/* no ASSERT from here: the loop device and the mount must go */
	rescans_passed = 0;
	EXPECT_EQ(0, child_start(&ch, op_loop_write, dev));
	ret = wait_record(vfd, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(ino_of(DIR_E "/d/img"), (long long)u.r.ino);
	ret = child_result(&ch, 0, &res);
	EXPECT_EQ(1, ret);
	EXPECT_EQ(4096, pread(fd, got, sizeof(got), 0));
	EXPECT_NE('L', got[0]);
	EXPECT_EQ(0, vfsb_ack(vfd, u.r.seq));
	if (ret == 1)
		EXPECT_EQ(0, child_result(&ch, 20000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	EXPECT_EQ(4096, pread(fd, got, sizeof(got), 0));
	EXPECT_EQ('L', got[0]);
	EXPECT_EQ('L', got[4095]);
	EXPECT_EQ(0, rec_drain(vfd, &b));
	for (i = 0; i < b.n; i++)
		rescans_passed += b.rec[i]->type == VFSB_REC_RESCAN;
	EXPECT_EQ(0, rescans_passed);
	close(vfd);
	loop_del(n);
	close(fd);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * A namespace change by io_uring (IORING_OP_MKDIRAT and the like run in
 * an io-wq worker, under the directory's lock): op on path, and on path2
 * for a rename. The completion's result, or -errno.
 */
/* One request on a ring of its own: its completion's result, or -errno. */
static int uring_one(const struct io_uring_sqe *sqe)
{
	struct vfsb_uring r = { };
	int ret, cres;

	ret = vfsb_uring_init(&r, 4);
	if (!ret)
		ret = vfsb_uring_run(&r, sqe, &cres);
	vfsb_uring_exit(&r);
	return ret ? ret : cres;
}

static int uring_ns(__u8 op, const char *path, const char *path2)
{
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = op;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)path;
	if (op == IORING_OP_MKDIRAT) {
		sqe.len = 0755;
	} else if (op == IORING_OP_SETXATTR) {
		/* path2: the attribute's name; its value "v" */
		sqe.addr = (unsigned long)path2;
		sqe.addr2 = (unsigned long)"v";
		sqe.addr3 = (unsigned long)path;
		sqe.len = 1;
	} else if (op == IORING_OP_RENAMEAT) {
		sqe.len = AT_FDCWD;
		sqe.addr2 = (unsigned long)path2;
	}
	return uring_one(&sqe);
}

static int op_uring_mkdir(const char *path, int ctl, int res)
{
	return uring_ns(IORING_OP_MKDIRAT, path, NULL);
}

static int op_uring_unlink(const char *path, int ctl, int res)
{
	return uring_ns(IORING_OP_UNLINKAT, path, NULL);
}

static int op_uring_setxattr(const char *path, int ctl, int res)
{
	return uring_ns(IORING_OP_SETXATTR, path, "trusted.vfsb");
}

/*
 * IORING_OP_OPENAT with O_CREAT: io_uring always makes it in an io-wq
 * worker (REQ_F_FORCE_ASYNC), which opens through do_filp_open() and
 * creates with the directory locked, past any helper a kernel thread
 * has. 0 once the file is open (and closed again), or -errno.
 */
static int op_uring_create(const char *path, int ctl, int res)
{
	struct vfsb_uring r = { };
	int ret;

	ret = vfsb_uring_init(&r, 4);
	if (!ret)
		ret = vfsb_uring_openat(&r, path, O_CREAT | O_WRONLY |
					O_CLOEXEC, 0644);
	vfsb_uring_exit(&r);
	if (ret < 0)
		return ret;
	close(ret);
	return 0;
}

/* path to path + "2" */
static int op_uring_rename(const char *path, int ctl, int res)
{
	char to[256];

	snprintf(to, sizeof(to), "%s2", path);
	return uring_ns(IORING_OP_RENAMEAT, path, to);
}


static int made_dir(const char *path)
{
	return exists(path);
}

static int made_gone(const char *path)
{
	return !exists(path);
}

static int made_xattr(const char *path)
{
	char v[8];

	return getxattr(path, "trusted.vfsb", v, sizeof(v)) == 1;
}

/*
 * io_uring's namespace operations wait for their ack in the io-wq
 * worker that makes them, in vfs_mkdir()'s, vfs_unlink()'s and
 * vfs_rename()'s wrappers (nfsd's and ksmbd's namespace changes go
 * through the same helpers), default mode and --refuse-unwaited alike:
 * each in a directory of its own, not acked in the epoch.
 */
static void uring_ns_waits(struct __test_metadata *_metadata, __u32 flags)
{
	int dev, ret;

	ASSERT_EQ(0, setup(&dev, flags, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/m", 0755));
	ASSERT_EQ(0, mkdir(DIR_T "/u", 0755));
	ASSERT_EQ(0, mkdir(DIR_T "/r", 0755));
	ASSERT_EQ(0, put_file(DIR_T "/u/f", ""));
	ASSERT_EQ(0, put_file(DIR_T "/r/f", ""));
	ASSERT_EQ(0, mkdir(DIR_T "/x", 0755));
	ASSERT_EQ(0, put_file(DIR_T "/x/f", ""));
	ASSERT_EQ(0, mkdir(DIR_T "/o", 0755));
	ret = change_waits(dev, op_uring_mkdir, DIR_T "/m/x", made_dir);
	if (ret == -ENOSYS || ret == -EINVAL) {
		close(dev);
		umount2(DIR_T, MNT_DETACH);
		SKIP(return, "no io_uring mkdirat");
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, change_waits(dev, op_uring_unlink, DIR_T "/u/f",
				  made_gone));
	EXPECT_EQ(0, change_waits(dev, op_uring_rename, DIR_T "/r/f",
				  made_gone));
	EXPECT_TRUE(exists(DIR_T "/r/f2"));
	/* an extended attribute, as ksmbd keeps DOS attributes */
	EXPECT_EQ(0, change_waits(dev, op_uring_setxattr, DIR_T "/x/f",
				  made_xattr));
	/* a file made by a creating open */
	EXPECT_EQ(0, change_waits(dev, op_uring_create, DIR_T "/o/f",
				  made_dir));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

TEST(io_uring_namespace_changes_wait_for_their_ack)
{
	uring_ns_waits(_metadata, 0);
}

TEST(io_uring_namespace_changes_wait_with_refuse_unwaited)
{
	uring_ns_waits(_metadata, VFSB_SUB_REFUSE_UNWAITED);
}

/* Whether the running kernel is older than major.minor. */
static bool kernel_before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/* 6.9 on; Debian 12's <linux/io_uring.h> predates it */
#define VFSB_IORING_OP_FTRUNCATE	55

/* sqe on the open file path (O_WRONLY): its result, or -errno. */
static int uring_on_file(const char *path, struct io_uring_sqe *sqe)
{
	int fd, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	sqe->fd = fd;
	ret = uring_one(sqe);
	close(fd);
	return ret;
}

/* path made 4096 bytes long by IORING_OP_FALLOCATE */
static int op_uring_fallocate(const char *path, int ctl, int res)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_FALLOCATE, .addr = 4096,
	};

	return uring_on_file(path, &sqe);
}

/* ... by IORING_OP_FTRUNCATE (notify_change() in an io-wq worker) */
static int op_uring_ftruncate(const char *path, int ctl, int res)
{
	struct io_uring_sqe sqe = {
		.opcode = VFSB_IORING_OP_FTRUNCATE, .off = 4096,
	};

	return uring_on_file(path, &sqe);
}

/* trusted.vfsb set to "v" on the open file by IORING_OP_FSETXATTR */
static int op_uring_fsetxattr(const char *path, int ctl, int res)
{
	struct io_uring_sqe sqe = {
		.opcode = IORING_OP_FSETXATTR, .len = 1,
		.addr = (unsigned long)"trusted.vfsb",
		.addr2 = (unsigned long)"v",
	};

	return uring_on_file(path, &sqe);
}

/* path made a hard link of DIR_T "/d/f" (IORING_OP_LINKAT) */
static int op_uring_link(const char *path, int ctl, int res)
{
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_LINKAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)DIR_T "/d/f";
	sqe.len = AT_FDCWD;
	sqe.addr2 = (unsigned long)path;
	return uring_one(&sqe);
}

/* path made a symbolic link to "." (IORING_OP_SYMLINKAT) */
static int op_uring_symlink(const char *path, int ctl, int res)
{
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SYMLINKAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)".";
	sqe.addr2 = (unsigned long)path;
	return uring_one(&sqe);
}

/* path, 3 bytes long, emptied by an IORING_OP_OPENAT with O_TRUNC */
static int op_uring_open_trunc(const char *path, int ctl, int res)
{
	struct vfsb_uring r = { };
	int ret;

	ret = vfsb_uring_init(&r, 4);
	if (!ret)
		ret = vfsb_uring_openat(&r, path, O_WRONLY | O_TRUNC |
					O_CLOEXEC, 0);
	vfsb_uring_exit(&r);
	if (ret < 0)
		return ret;
	close(ret);
	return 0;
}

/* A file op_uring_open_trunc() empties: 0 its 3 bytes, 1 empty. */
static int emptied(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return st.st_size == 3 ? 0 : !st.st_size ? 1 : 2;
}

/*
 * The rest of io_uring's operations that change a file (besides writes,
 * splices, creating opens, mkdirat, unlinkat, renameat and setxattr,
 * above) wait for their ack in the io-wq worker that makes them, each in
 * a directory of its own, default mode and --refuse-unwaited alike:
 * fallocate (vfs_fallocate()'s wrapper), ftruncate and an open with
 * O_TRUNC (notify_change()'s), fsetxattr (vfs_setxattr()'s), linkat and
 * symlinkat (vfs_link()'s and vfs_symlink()'s). ftruncate is skipped
 * where io_uring lacks it (before 6.9).
 */
static void uring_more_waits(struct __test_metadata *_metadata, __u32 flags)
{
	static const char *const dirs[] = { "fa", "ft", "fx", "l", "s", "t" };
	char path[64];
	unsigned int i;
	int dev, ret;

	ASSERT_EQ(0, setup(&dev, flags, LONG_MS));
	ASSERT_EQ(0, put_file(DIR_T "/d/f", ""));
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), DIR_T "/%s", dirs[i]);
		ASSERT_EQ(0, mkdir(path, 0755));
		strcat(path, "/f");
		if (strcmp(dirs[i], "l") && strcmp(dirs[i], "s"))
			ASSERT_EQ(0, put_file(path, dirs[i][0] == 't' ?
					      "abc" : ""));
	}
	ret = change_waits(dev, op_uring_fallocate, DIR_T "/fa/f", wrote_4k);
	if (ret == -ENOSYS) {
		close(dev);
		umount2(DIR_T, MNT_DETACH);
		SKIP(return, "no io_uring");
	}
	EXPECT_EQ(0, ret);
	ret = change_waits(dev, op_uring_ftruncate, DIR_T "/ft/f", wrote_4k);
	if (ret == -EINVAL && kernel_before(6, 9))
		fprintf(stderr, "# no IORING_OP_FTRUNCATE before 6.9\n");
	else
		EXPECT_EQ(0, ret);
	EXPECT_EQ(0, change_waits(dev, op_uring_fsetxattr, DIR_T "/fx/f",
				  made_xattr));
	EXPECT_EQ(0, change_waits(dev, op_uring_link, DIR_T "/l/f",
				  made_dir));
	EXPECT_EQ(0, change_waits(dev, op_uring_symlink, DIR_T "/s/f",
				  made_dir));
	EXPECT_EQ(0, change_waits(dev, op_uring_open_trunc, DIR_T "/t/f",
				  emptied));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

TEST(io_uring_other_changes_wait_for_their_ack)
{
	uring_more_waits(_metadata, 0);
}

TEST(io_uring_other_changes_wait_with_refuse_unwaited)
{
	uring_more_waits(_metadata, VFSB_SUB_REFUSE_UNWAITED);
}

/*
 * IORING_OP_SPLICE of "abc" from a pipe into path at offset 0 (an io-wq
 * worker's do_splice()): 0 once all 3 bytes are in, or -errno.
 */
static int op_uring_splice(const char *path, int ctl, int res)
{
	struct vfsb_uring r = { };
	int p[2], fd, ret;

	if (pipe(p))
		return -errno;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ret = fd < 0 || write(p[1], "abc", 3) != 3 ? -errno :
	      vfsb_uring_init(&r, 4);
	if (!ret)
		ret = vfsb_uring_splice(&r, p[0], fd, 0, 3);
	vfsb_uring_exit(&r);
	if (ret >= 0)
		ret = ret == 3 ? 0 : -EIO;
	if (fd >= 0)
		close(fd);
	close(p[0]);
	close(p[1]);
	return ret;
}

/* A file op_uring_splice() writes: 0 empty, 1 its 3 bytes. */
static int spliced_3(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	return !st.st_size ? 0 : st.st_size == 3 ? 1 : 2;
}

/*
 * io_uring's splice into a file waits for its ack in the io-wq worker
 * that makes it, default mode and --refuse-unwaited alike, and writes
 * once.
 */
static void uring_splice_waits(struct __test_metadata *_metadata,
			       __u32 flags)
{
	int dev, ret;

	ASSERT_EQ(0, setup(&dev, flags, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/s", 0755));
	ASSERT_EQ(0, put_file(DIR_T "/s/f", ""));
	ret = change_waits(dev, op_uring_splice, DIR_T "/s/f", spliced_3);
	if (ret == -ENOSYS || ret == -EINVAL) {
		close(dev);
		umount2(DIR_T, MNT_DETACH);
		SKIP(return, "no io_uring splice");
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, sections_settled(dev, DIR_T));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

TEST(io_uring_splice_into_a_file_waits_for_its_ack)
{
	uring_splice_waits(_metadata, 0);
}

TEST(io_uring_splice_into_a_file_waits_with_refuse_unwaited)
{
	uring_splice_waits(_metadata, VFSB_SUB_REFUSE_UNWAITED);
}

/*
 * An io_uring open with O_CREAT of a name that exists but that the
 * dcache does not know asks whether it may create it before it finds
 * the name (the create check comes first: lookup_open()): that open
 * must go on at once, with no ack, and nothing may go on unacked; the
 * same open of a new name in another directory still waits, once.
 */
TEST(io_uring_open_creat_of_an_uncached_existing_name_does_not_wait)
{
	static struct rec_batch b;
	struct child ch;
	int dev, res, ret, i, rescans = 0;

	ret = setup_uncached(&dev);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);

	ASSERT_EQ(0, child_start(&ch, op_uring_create, DIR_E "/d/existing"));
	ret = child_result(&ch, 10000, &res);
	child_end(&ch);
	if (!ret && (res == -ENOSYS || res == -EINVAL)) {
		close(dev);
		umount2(DIR_E, MNT_DETACH);
		SKIP(return, "no io_uring openat");
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, res);
	ASSERT_EQ(0, rec_drain(dev, &b));
	for (i = 0; i < b.n; i++)
		rescans += b.rec[i]->type == VFSB_REC_RESCAN;
	EXPECT_EQ(0, rescans);

	EXPECT_EQ(0, change_waits(dev, op_uring_create, DIR_E "/n/new",
				  made_dir));
	EXPECT_EQ(0, sections_settled(dev, DIR_E));
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/* Whether path, a symbolic link followed, leads to a file: 0 or 1. */
static int made_through(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/*
 * An io_uring creating open through a symbolic link the dcache does not
 * know, to a new name in the same directory: the create check runs
 * twice in one open, for the link's name (not looked up yet) and for
 * the name it leads to. The second must wait for the ack as the first
 * does, not go on unacked with a RESCAN.
 */
TEST(io_uring_open_creat_through_an_uncached_symlink_waits)
{
	int dev, ret;

	ret = setup_uncached(&dev);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ret = change_waits(dev, op_uring_create, DIR_E "/d/link",
			   made_through);
	if (ret == -ENOSYS || ret == -EINVAL) {
		close(dev);
		umount2(DIR_E, MNT_DETACH);
		SKIP(return, "no io_uring openat");
	}
	EXPECT_EQ(0, ret);
	EXPECT_TRUE(exists(DIR_E "/d/new"));
	EXPECT_EQ(0, sections_settled(dev, DIR_E));
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * A kernel where the open of a path cannot be hooked (simulated with the
 * fail_hook knob): the namespace group stays covered, GET_VERSION says
 * its waits fall back to none, and an io_uring creating open goes on
 * unacked with a RESCAN (VFSB_RESCAN_INTENT), never silently.
 */
TEST(io_uring_open_creat_without_its_wrapper_says_it_went_unacked)
{
	struct vfsb_version v;
	struct utsname u;
	union rec r;
	struct child ch;
	int dev, res, ret;

	ASSERT_EQ(0, uname(&u));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, wait_hooks_off(dev));
	close(dev);
	/* renamed in 7.0 (module/compat.h) */
	ASSERT_EQ(0, param_set("fail_hook", atoi(u.release) >= 7 ?
			       "do_file_open" : "do_filp_open"));
	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/o", 0755));
	ASSERT_EQ(0, vfsb_get_version(dev, &v));
	EXPECT_TRUE(v.coverage & VFSB_COV_NAMESPACE);
	EXPECT_TRUE(v.intent_unwaited & VFSB_COV_NAMESPACE);

	ASSERT_EQ(0, child_start(&ch, op_uring_create, DIR_T "/o/f"));
	ret = child_result(&ch, 20000, &res);
	child_end(&ch);
	EXPECT_EQ(0, ret);
	if (!ret && (res == -ENOSYS || res == -EINVAL))
		SKIP(goto out, "no io_uring openat");
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/o/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_RESCAN, 0, &r));
	EXPECT_TRUE(r.r.reasons & VFSB_RESCAN_INTENT);
out:
	close(dev);
	umount2(DIR_T, MNT_DETACH);
	/* sysfs drops an empty write: a newline is what clears it */
	param_set("fail_hook", "\n");
	dev = vfsb_open();
	if (dev >= 0) {
		wait_hooks_off(dev);
		close(dev);
	}
	param_set("hooks_linger_ms", "10000");
}

/*
 * A POSIX ACL as its xattr (testfs.h): the owner rwx, user 1000 r-x,
 * the group r-x, the mask r-x, the others ---. Not one a mode can say,
 * so the filesystem keeps it.
 */
static const struct acl_xattr5 acl_blob = { 2, {
	{ 0x01, 7, ~0U },	/* ACL_USER_OBJ */
	{ 0x02, 5, 1000 },	/* ACL_USER */
	{ 0x04, 5, ~0U },	/* ACL_GROUP_OBJ */
	{ 0x10, 5, ~0U },	/* ACL_MASK */
	{ 0x20, 0, ~0U },	/* ACL_OTHER */
} };

static int op_access_acl(const char *path, int ctl, int res)
{
	return setxattr(path, "system.posix_acl_access", &acl_blob,
			sizeof(acl_blob), 0) ? -errno : 0;
}

static int op_default_acl(const char *path, int ctl, int res)
{
	return setxattr(path, "system.posix_acl_default", &acl_blob,
			sizeof(acl_blob), 0) ? -errno : 0;
}

static int has_acl(const char *path, const char *name)
{
	char v[256];

	return getxattr(path, name, v, sizeof(v)) == sizeof(acl_blob);
}

/*
 * Whether this kernel's tmpfs takes POSIX ACLs (the debug kernel's is
 * built without CONFIG_TMPFS_POSIX_ACL): tried on a file of /tmp, which
 * no subscriber watches.
 */
static bool tmpfs_has_acls(void)
{
	const char *probe = "/tmp/vfsb-acl-probe";
	bool ret;

	if (put_file(probe, ""))
		return false;
	ret = !setxattr(probe, "system.posix_acl_access", &acl_blob,
			sizeof(acl_blob), 0);
	unlink(probe);
	return ret;
}

static int made_access_acl(const char *path)
{
	return has_acl(path, "system.posix_acl_access");
}

static int made_default_acl(const char *path)
{
	return has_acl(path, "system.posix_acl_default");
}

/*
 * setxattr(2) of a POSIX ACL waits for its ack once: 6.1 sets it
 * through the ACL's xattr handler, which calls set_posix_acl() inside
 * vfs_setxattr() (its wrapper: hooks.c), after the check that waited;
 * later kernels through vfs_set_acl(), which calls it the same way. An
 * access ACL on a file, a default ACL on a directory, each in a
 * directory of its own.
 */
TEST(acl_changes_wait_once)
{
	int dev;

	if (!tmpfs_has_acls())
		SKIP(return, "no POSIX ACLs on tmpfs");
	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/a", 0755));
	ASSERT_EQ(0, put_file(DIR_T "/a/f", ""));
	ASSERT_EQ(0, mkdir(DIR_T "/b", 0755));
	ASSERT_EQ(0, mkdir(DIR_T "/b/d", 0755));
	EXPECT_EQ(0, change_waits(dev, op_access_acl, DIR_T "/a/f",
				  made_access_acl));
	EXPECT_EQ(0, change_waits(dev, op_default_acl, DIR_T "/b/d",
				  made_default_acl));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* IORING_OP_SETXATTR of the ACL above as name on path: as uring_ns(). */
static int uring_setacl(const char *path, const char *name)
{
	struct io_uring_sqe sqe;

	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_SETXATTR;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)name;
	sqe.addr2 = (unsigned long)&acl_blob;
	sqe.addr3 = (unsigned long)path;
	sqe.len = sizeof(acl_blob);
	return uring_one(&sqe);
}

static int op_uring_access_acl(const char *path, int ctl, int res)
{
	return uring_setacl(path, "system.posix_acl_access");
}

static int op_uring_default_acl(const char *path, int ctl, int res)
{
	return uring_setacl(path, "system.posix_acl_default");
}

/*
 * io_uring's IORING_OP_SETXATTR of a POSIX ACL: from 6.2 the io-wq
 * worker sets it through vfs_set_acl(), not vfs_setxattr(), and waits
 * for its ack in vfs_set_acl()'s wrapper (6.1: vfs_setxattr()'s). An
 * access ACL on a file, a default ACL on a directory, each in a
 * directory of its own; default mode and --refuse-unwaited alike.
 */
static void uring_acl_waits(struct __test_metadata *_metadata, __u32 flags)
{
	int dev, ret;

	if (!tmpfs_has_acls())
		SKIP(return, "no POSIX ACLs on tmpfs");
	ASSERT_EQ(0, setup(&dev, flags, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/a", 0755));
	ASSERT_EQ(0, put_file(DIR_T "/a/f", ""));
	ASSERT_EQ(0, mkdir(DIR_T "/b", 0755));
	ASSERT_EQ(0, mkdir(DIR_T "/b/d", 0755));
	ret = change_waits(dev, op_uring_access_acl, DIR_T "/a/f",
			   made_access_acl);
	if (ret == -ENOSYS || ret == -EINVAL) {
		close(dev);
		umount2(DIR_T, MNT_DETACH);
		SKIP(return, "no io_uring setxattr");
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, change_waits(dev, op_uring_default_acl, DIR_T "/b/d",
				  made_default_acl));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

TEST(io_uring_acl_changes_wait_for_their_ack)
{
	uring_acl_waits(_metadata, 0);
}

TEST(io_uring_acl_changes_wait_with_refuse_unwaited)
{
	uring_acl_waits(_metadata, VFSB_SUB_REFUSE_UNWAITED);
}

#define DIR_I	"/tmp/in-i"

/*
 * A user namespace whose ids 0 to 9 are the host's 1000 to 1009, as a
 * descriptor (its process is gone), or -errno.
 */
static int userns_fd(void)
{
	static const char *const maps[] = { "uid_map", "setgroups",
					    "gid_map" };
	static const char *const vals[] = { "0 1000 10\n", "deny",
					    "0 1000 10\n" };
	char p[64], c;
	int ready[2], fd, i, ret = 0;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		c = !unshare(CLONE_NEWUSER);
		if (write(ready[1], &c, 1) == 1)
			pause();
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1 || !c)
		ret = -EPERM;
	for (i = 0; !ret && i < 3; i++) {
		snprintf(p, sizeof(p), "/proc/%d/%s", pid, maps[i]);
		fd = open(p, O_WRONLY);
		if (fd < 0 || write(fd, vals[i], strlen(vals[i])) < 0)
			ret = -errno;
		if (fd >= 0)
			close(fd);
	}
	if (!ret) {
		snprintf(p, sizeof(p), "/proc/%d/ns/user", pid);
		ret = open(p, O_RDONLY | O_CLOEXEC);
		if (ret < 0)
			ret = -errno;
	}
	close(ready[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ret;
}

/* src mounted again on dst through userns_fd()'s ids: 0, or -errno. */
static int idmapped_mount(const char *src, const char *dst)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
	int fd, ns, ret = 0;

	ns = userns_fd();
	if (ns < 0)
		return ns;
	fd = open_tree(AT_FDCWD, src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		close(ns);
		return ret;
	}
	attr.userns_fd = ns;
	if (mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) ||
	    (mkdir(dst, 0755) && errno != EEXIST) ||
	    move_mount(fd, "", AT_FDCWD, dst, MOVE_MOUNT_F_EMPTY_PATH))
		ret = -errno;
	close(fd);
	close(ns);
	return ret;
}

/*
 * Through an idmapped mount, vfs_set_acl() translates the ACL's ids in
 * place before its check: the io-wq worker's call that waited and is
 * made again must not translate them twice (hooks.c, vfs_set_acl()'s
 * wrapper). The mount's user 1000 is the filesystem's 0; translated
 * twice it would be no user at all.
 */
TEST(io_uring_acl_through_an_idmapped_mount_lands_once)
{
	struct acl_xattr5 got;
	int dev, ret;

	if (!tmpfs_has_acls())
		SKIP(return, "no POSIX ACLs on tmpfs");
	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/i", 0755));
	ASSERT_EQ(0, put_file(DIR_T "/i/f", ""));
	ret = idmapped_mount(DIR_T, DIR_I);
	if (ret) {
		close(dev);
		umount2(DIR_T, MNT_DETACH);
		SKIP(return, "no idmapped tmpfs mount: %s", strerror(-ret));
	}
	ret = change_waits(dev, op_uring_access_acl, DIR_I "/i/f",
			   made_access_acl);
	if (ret == -ENOSYS || ret == -EINVAL) {
		close(dev);
		umount2(DIR_I, MNT_DETACH);
		umount2(DIR_T, MNT_DETACH);
		SKIP(return, "no io_uring setxattr");
	}
	EXPECT_EQ(0, ret);
	ASSERT_EQ(sizeof(got), getxattr(DIR_T "/i/f", "system.posix_acl_access",
					&got, sizeof(got)));
	EXPECT_EQ(0x02, got.e[1].tag);
	EXPECT_EQ(0, got.e[1].id) TH_LOG("user %u on the filesystem",
					 got.e[1].id);
	close(dev);
	umount2(DIR_I, MNT_DETACH);
	umount2(DIR_T, MNT_DETACH);
}

/* The CHANGE record of a plain change in dir (no intent): 0, or -errno. */
static int plain_change_in(int dev, const char *dir)
{
	static struct rec_batch b;
	long long ino = ino_of(dir);
	int i;

	if (rec_drain(dev, &b))
		return -EIO;
	for (i = 0; i < b.n; i++)
		if (b.rec[i]->type == VFSB_REC_CHANGE &&
		    (long long)b.rec[i]->parent_ino == ino)
			return b.rec[i]->flags & VFSB_RECF_INTENT ? -EEXIST : 0;
	return -ENOENT;
}

/* path renamed to path with "2" after it */
static int op_rename_to_2(const char *path, int ctl, int res)
{
	char to[PATH_MAX];

	snprintf(to, sizeof(to), "%s2", path);
	return rename(path, to) ? -errno : 0;
}

static int op_chmod(const char *path, int ctl, int res)
{
	return chmod(path, 0700) ? -errno : 0;
}

static void new_dirs_wait_for_nothing(struct __test_metadata *_metadata,
				      const char *root)
{
	char p[PATH_MAX];
	__u64 closed;
	int dev;

/* root's rel, in p: one at a time */
#define AT(rel) (snprintf(p, sizeof(p), "%s/%s", root, rel), p)
	/* made before the epoch: to be renamed, chmod()ed, left alone */
	ASSERT_EQ(0, mkdir(AT("d/o"), 0755));
	ASSERT_EQ(0, mkdir(AT("d/c"), 0755));
	ASSERT_EQ(0, mkdir(AT("d/s"), 0755));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, VFSB_SUB_NEW_DIRS |
					   VFSB_SUB_COALESCE, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, root));
	ASSERT_EQ(0, acked_change(dev, op_create, AT("d/a")));
	EXPECT_EQ(0, unwaited_change(dev, op_mkdir, AT("d/n")));
	EXPECT_EQ(0, unwaited_change(dev, op_create, AT("d/n/f")));
	EXPECT_EQ(0, plain_change_in(dev, AT("d/n")));
	EXPECT_EQ(0, unwaited_change(dev, op_mkdir, AT("d/n/m")));
	EXPECT_EQ(0, unwaited_change(dev, op_create, AT("d/n/m/g")));
	EXPECT_EQ(0, plain_change_in(dev, AT("d/n/m")));
	EXPECT_EQ(0, unwaited_change(dev, op_uring_mkdir, AT("d/u")));
	EXPECT_EQ(0, unwaited_change(dev, op_create, AT("d/u/f")));
	EXPECT_EQ(0, plain_change_in(dev, AT("d/u")));
	/* a new directory whose first change is a mkdir (an untar's) */
	EXPECT_EQ(0, unwaited_change(dev, op_mkdir, AT("d/k")));
	EXPECT_EQ(0, unwaited_change(dev, op_mkdir, AT("d/k/l")));
	EXPECT_EQ(0, plain_change_in(dev, AT("d/k")));
	/*
	 * older directories changed in the epoch under d: a rename (an
	 * intent of its own, keyed by the moved directory), a chmod (keyed
	 * by the directory too: its new ctime need not be on disk before
	 * what is written inside it); not d/s, left alone
	 */
	EXPECT_EQ(0, acked_change(dev, op_rename_to_2, AT("d/o")));
	EXPECT_EQ(0, unwaited_change(dev, op_create, AT("d/o2/f")));
	EXPECT_EQ(0, plain_change_in(dev, AT("d/o2")));
	EXPECT_EQ(0, acked_change(dev, op_chmod, AT("d/c")));
	EXPECT_EQ(0, unwaited_change(dev, op_create, AT("d/c/f")));
	EXPECT_EQ(0, acked_change(dev, op_create, AT("d/s/f")));
	/* a new directory's chmod (an untar's, at its end) waits not */
	EXPECT_EQ(0, unwaited_change(dev, op_chmod, AT("d/k/l")));

	ASSERT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	EXPECT_EQ(0, acked_change(dev, op_create, AT("d/n/h")));
	EXPECT_EQ(0, acked_change(dev, op_create, AT("d/o2/h")));
	close(dev);
#undef AT
}

/*
 * VFSB_SUB_NEW_DIRS: a directory made in an acked directory, by
 * mkdir(2) or by io_uring's io-wq worker (the vfs_mkdir() wrapper of
 * kernel threads), counts as acked in its epoch: what is made inside it,
 * down a chain of new directories, waits for nothing, and still comes
 * as a record naming it. So does an older one renamed or chmod()ed in
 * the epoch under an acked directory (its ctime is the epoch's), not
 * one left alone. In the next epoch each waits as any directory. Each
 * step in a process of its own. Without the flag the first change
 * inside a new one waits.
 */
TEST(changes_inside_a_new_directory_wait_for_nothing)
{
	int dev, ret;

	ASSERT_EQ(0, mount_tmpfs(DIR_T));
	ASSERT_EQ(0, mkdir(DIR_T "/d", 0755));
	new_dirs_wait_for_nothing(_metadata, DIR_T);
	umount2(DIR_T, MNT_DETACH);

	ret = mount_ext4(DIR_E);
	if (ret != -ENODEV) {
		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
		new_dirs_wait_for_nothing(_metadata, DIR_E);
		umount2(DIR_E, MNT_DETACH);
	}

	/* the same without the flag: the new directory waits */
	ASSERT_EQ(0, setup(&dev, VFSB_SUB_COALESCE, LONG_MS));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/a"));
	EXPECT_EQ(0, unwaited_change(dev, op_mkdir, DIR_T "/d/n"));
	EXPECT_EQ(0, acked_change(dev, op_create, DIR_T "/d/n/f"));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A filesystem with a new directory of the epoch, unmounted (lazily,
 * the only mount) while the journal is open, shuts down with nothing of
 * it held: no "Dentry still in use", no use after free at the next
 * epoch or the close (the guest's console check fails the run). An
 * earlier design held the directory's dentry until the next epoch.
 */
TEST(a_new_directory_holds_nothing_of_its_filesystem)
{
	__u64 closed;
	int dev;

	ASSERT_EQ(0, setup(&dev, VFSB_SUB_NEW_DIRS | VFSB_SUB_COALESCE,
			   LONG_MS));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/a"));
	ASSERT_EQ(0, unwaited_change(dev, op_mkdir, DIR_T "/d/n"));
	ASSERT_EQ(0, umount2(DIR_T, MNT_DETACH));
	EXPECT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	close(dev);
	/* the same again: its put work after the close */
	ASSERT_EQ(0, setup(&dev, VFSB_SUB_NEW_DIRS | VFSB_SUB_COALESCE,
			   LONG_MS));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/a"));
	ASSERT_EQ(0, unwaited_change(dev, op_mkdir, DIR_T "/d/n"));
	ASSERT_EQ(0, umount2(DIR_T, MNT_DETACH));
	close(dev);
}

/*
 * A new directory's ctime is what a journal's recovery finds it by:
 * with the realtime clock set back more than a second since the epoch
 * began, a directory made then is not taken as acked (its ctime could
 * come before the epoch's start), and the first change inside it
 * waits. Set forward again, the epoch is as before. One taken as acked
 * before the clock went back waits again for its next change, once.
 */
TEST(new_directories_wait_after_the_clock_went_back)
{
	__u64 closed;
	int dev;

	ASSERT_EQ(0, setup(&dev, VFSB_SUB_NEW_DIRS | VFSB_SUB_COALESCE,
			   LONG_MS));
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/a"));
	ASSERT_EQ(0, clock_step(-5));
	EXPECT_EQ(0, unwaited_change(dev, op_mkdir, DIR_T "/d/n"));
	EXPECT_EQ(0, acked_change(dev, op_create, DIR_T "/d/n/f"));
	ASSERT_EQ(0, clock_step(5));

	/* back where it was: the epoch's start holds again */
	EXPECT_EQ(0, unwaited_change(dev, op_mkdir, DIR_T "/d/p"));
	EXPECT_EQ(0, unwaited_change(dev, op_create, DIR_T "/d/p/f"));

	/*
	 * taken as new, then the clock goes back: a change in it now
	 * would stamp its ctime before the epoch's start, where the
	 * journal's recovery does not look, so it sends its intent
	 */
	ASSERT_EQ(0, clock_step(-5));
	EXPECT_EQ(0, acked_change(dev, op_create, DIR_T "/d/p/g"));
	EXPECT_EQ(0, unwaited_change(dev, op_create, DIR_T "/d/p/h"));
	ASSERT_EQ(0, clock_step(5));
	ASSERT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * MANY_DIRS directories, more than the intent set first holds (8192
 * entries), each changed in PASSES passes of one epoch by a child: a
 * file p<pass>_<i> created in d<i>.
 */
#define MANY_DIRS	9000
#define PASSES		3

static int op_many_dirs(const char *path, int ctl, int res)
{
	char name[128];
	int pass, i, fd;

	for (pass = 0; pass < PASSES; pass++) {
		for (i = 0; i < MANY_DIRS; i++) {
			snprintf(name, sizeof(name), "%s/d%d/p%d_%d", path, i,
				 pass, i);
			fd = open(name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			if (fd < 0)
				return -errno;
			close(fd);
		}
	}
	return 0;
}

FIXTURE(many) {
	int dev;
};

FIXTURE_SETUP(many)
{
	char name[64];
	int i;

	ASSERT_EQ(0, setup(&self->dev, 0, LONG_MS));
	ASSERT_EQ(0, mkdir(DIR_T "/m", 0755));
	for (i = 0; i < MANY_DIRS; i++) {
		snprintf(name, sizeof(name), DIR_T "/m/d%d", i);
		ASSERT_EQ(0, mkdir(name, 0755));	/* ours: no intent */
	}
}

FIXTURE_TEARDOWN(many)
{
	close(self->dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A workload that changes many distinct directories in one epoch must
 * not make one directory wait more than twice (issue 25): the set of
 * the epoch's acked directories is a cache, and a directory it forgot
 * waits again. Each intent is acked as it comes; counted per directory.
 */
TEST_F_TIMEOUT(many, many_directories_wait_once_each, 600)
{
	static struct rec_batch b;
	static unsigned char waits[MANY_DIRS];
	struct pollfd p = { .fd = self->dev, .events = POLLIN };
	struct child ch;
	int res, i, pass, idx, most = 0, total = 0;
	bool done = false;
	char nb[256];

	ASSERT_EQ(0, child_start(&ch, op_many_dirs, DIR_T "/m"));
	while (!done) {
		__u64 last = 0;

		poll(&p, 1, 50);
		ASSERT_EQ(0, rec_drain(self->dev, &b));
		for (i = 0; i < b.n; i++) {
			struct vfsb_record *r = b.rec[i];

			if (r->type != VFSB_REC_CHANGE ||
			    !(r->flags & VFSB_RECF_INTENT))
				continue;
			last = r->seq;
			if (sscanf(vfsb_rec_name(r, nb, sizeof(nb)), "p%d_%d",
				   &pass, &idx) != 2 || idx < 0 ||
			    idx >= MANY_DIRS)
				continue;
			waits[idx]++;
			total++;
		}
		if (last)
			ASSERT_EQ(0, vfsb_ack(self->dev, last));
		done = !b.n && !child_result(&ch, 0, &res);
	}
	child_end(&ch);
	EXPECT_EQ(0, res);
	for (i = 0; i < MANY_DIRS; i++)
		if (waits[i] > most)
			most = waits[i];
	TH_LOG("%d intents for %d directories, at most %d for one", total,
	       MANY_DIRS, most);
	EXPECT_LE(most, 2);
	EXPECT_LE(total, MANY_DIRS + MANY_DIRS / 10);
}

/* Fail-open: no ack in time, the write goes on, and a RESCAN says so. */
TEST(timeout_fail_open_rescans)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, 300));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	ASSERT_EQ(0, child_result(&ch, 20000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/x"));
	child_end(&ch);
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_RESCAN, 0, &u));
	EXPECT_TRUE(r->reasons & VFSB_RESCAN_INTENT);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* Fail-closed: no ack in time, the call fails and changes nothing. */
TEST(timeout_fail_closed_fails_the_call)
{
	union rec u;
	struct child ch;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, VFSB_SUB_FAIL_CLOSED, 300));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	ASSERT_EQ(0, child_result(&ch, 20000, &res));
	EXPECT_EQ(-ETIMEDOUT, res);
	EXPECT_FALSE(exists(DIR_T "/d/x"));
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* A subscriber that closes lets its waiting writers go at once. */
TEST(closing_subscriber_releases_writers)
{
	union rec u;
	struct child ch;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	close(dev);
	ASSERT_EQ(0, child_result(&ch, 20000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/x"));
	child_end(&ch);

	/* fail-closed: the waiting call fails */
	umount2(DIR_T, MNT_DETACH);
	ASSERT_EQ(0, setup(&dev, VFSB_SUB_FAIL_CLOSED, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	close(dev);
	ASSERT_EQ(0, child_result(&ch, 20000, &res));
	EXPECT_EQ(-ENOTCONN, res);
	EXPECT_FALSE(exists(DIR_T "/d/x"));
	child_end(&ch);
	umount2(DIR_T, MNT_DETACH);
}

/* Bad input: no ack or checkpoint without intent mode; policy alone. */
TEST(intent_ioctls_check_their_input)
{
	struct vfsb_subscribe s = { .flags = VFSB_SUB_FAIL_CLOSED };
	struct vfsb_checkpoint cp = { .flags = 1 };
	int dev = vfsb_open(), dev2 = vfsb_open();

	ASSERT_LE(0, dev);
	ASSERT_LE(0, dev2);
	EXPECT_EQ(-EINVAL, vfsb_ack(dev, 1));
	EXPECT_EQ(-EINVAL, vfsb_checkpoint(dev, 0, NULL));
	EXPECT_EQ(-1, ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	EXPECT_EQ(EINVAL, errno);
	s.flags = VFSB_SUB_REFUSE_UNWAITED;
	EXPECT_EQ(-1, ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	EXPECT_EQ(EINVAL, errno);
	s.flags = 0;
	s.intent_timeout_ms = 5;
	EXPECT_EQ(-1, ioctl(dev, VFSB_IOC_SUBSCRIBE, &s));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, vfsb_ack(dev, 0));
	EXPECT_EQ(-1, ioctl(dev, VFSB_IOC_CHECKPOINT, &cp));
	EXPECT_EQ(EINVAL, errno);

	/* one intent subscriber per filesystem */
	ASSERT_EQ(0, mount_tmpfs(DIR_T));
	ASSERT_EQ(0, vfsb_subscribe_intent(dev2, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_T));
	EXPECT_EQ(-EBUSY, vfsb_watch_path(dev2, DIR_T));
	close(dev);
	EXPECT_EQ(0, vfsb_watch_path(dev2, DIR_T));
	close(dev2);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A waiting writer holds no write access: FIFREEZE of its filesystem
 * completes while it waits.
 */
TEST(freeze_completes_while_a_writer_waits)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res, fd, ret;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_E "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	fd = open(DIR_E, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, FIFREEZE, 0));
	EXPECT_EQ(0, ioctl(fd, FITHAW, 0));
	close(fd);
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	close(dev);
	umount2(DIR_E, MNT_DETACH);
}

/*
 * A change announced in epoch 1 and held in flight: the checkpoint that
 * closes epoch 1 cannot return until it completes, and calls after one
 * that timed out close no other epoch.
 */
TEST(checkpoint_waits_for_a_change_in_flight)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	__u64 closed;
	int dev, res;
	char go = 'G';

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_held_write, DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(1, r->epoch);
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	/* "held": the write is inside its section, blocked on its page */
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	ASSERT_EQ(1, res);
	EXPECT_EQ(-ETIMEDOUT, vfsb_checkpoint(dev, 300, &closed));
	EXPECT_EQ(1, closed);
	/*
	 * Called again, it waits for the same epoch and closes none: a
	 * kernel thread acked in between retries its change in epoch 2,
	 * already acked, instead of a new epoch's empty set (ioctl.c)
	 */
	EXPECT_EQ(-ETIMEDOUT, vfsb_checkpoint(dev, 300, &closed));
	EXPECT_EQ(1, closed);
	ASSERT_EQ(1, write(ch.ctl, &go, 1));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	EXPECT_EQ(1, closed);
	EXPECT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	EXPECT_EQ(2, closed);
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * A checkpoint called again after a timeout waits for the sections of
 * the epoch it closes, not for one begun since: here a second write,
 * in epoch 2, stays held after the first one ends, and the checkpoint
 * must complete without it (a new barrier at each call waited for it
 * as well, and would for every writer that keeps a section open while
 * it waits for its ack).
 */
TEST(checkpoint_called_again_waits_for_its_epoch_only)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch, ch2;
	__u64 closed;
	int dev, res;
	char go = 'G';

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_held_write, DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(1, r->epoch);
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	/* d is acked in epoch 1: no wait */
	ASSERT_EQ(0, put_file(DIR_T "/d/g", ""));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	ASSERT_EQ(1, res);
	EXPECT_EQ(-ETIMEDOUT, vfsb_checkpoint(dev, 300, &closed));
	EXPECT_EQ(1, closed);
	/* epoch 2: d waits for its ack again, then the write stays held */
	ASSERT_EQ(0, child_start(&ch2, op_held_write, DIR_T "/d/g"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	EXPECT_EQ(2, r->epoch);
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch2, 10000, &res));
	ASSERT_EQ(1, res);
	/* the first write ends: epoch 1 has nothing in flight */
	ASSERT_EQ(1, write(ch.ctl, &go, 1));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	EXPECT_EQ(1, closed);
	/* epoch 2's own checkpoint waits for the second one */
	EXPECT_EQ(-ETIMEDOUT, vfsb_checkpoint(dev, 300, &closed));
	EXPECT_EQ(2, closed);
	ASSERT_EQ(1, write(ch2.ctl, &go, 1));
	ASSERT_EQ(0, child_result(&ch2, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_EQ(0, vfsb_checkpoint(dev, 10000, &closed));
	EXPECT_EQ(2, closed);
	child_end(&ch);
	child_end(&ch2);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/*
 * Whether a cgroup v2 freezer can be had: the hierarchy at /sys/fs/cgroup
 * (mounted here if nothing is) with a fresh group; 0, or -errno.
 */
static int freezer_group(const char *grp)
{
	struct stat st;

	if (stat("/sys/fs/cgroup/cgroup.procs", &st)) {
		mkdir("/sys/fs/cgroup", 0755);
		if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL))
			return -errno;
	}
	if (mkdir(grp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static int put_int(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return put_file(path, buf);
}

/* Whether cgroup.events of grp says "frozen 1", within about ms. */
static bool group_frozen(const char *grp, int ms)
{
	char path[256], buf[256];
	int i;

	snprintf(path, sizeof(path), "%s/cgroup.events", grp);
	for (i = 0; i < ms / 10; i++) {
		FILE *f = fopen(path, "r");
		bool frozen = false;

		if (!f)
			return false;
		while (fgets(buf, sizeof(buf), f))
			if (!strcmp(buf, "frozen 1\n"))
				frozen = true;
		fclose(f);
		if (frozen)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * A writer waiting for its ack still stops on SIGSTOP at once (its wait
 * is interrupted; the call is restarted after SIGCONT and waits again),
 * and lands once acked. The intent timeout is a minute: only an
 * interruptible wait stops within the 5 s allowed.
 */
TEST(waiting_writer_stops_on_sigstop)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	ASSERT_EQ(0, kill(ch.pid, SIGSTOP));
	EXPECT_EQ(0, wait_proc_state(ch.pid, "tT", 5000));
	ASSERT_EQ(0, kill(ch.pid, SIGCONT));
	EXPECT_FALSE(exists(DIR_T "/d/x"));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/x"));
	child_end(&ch);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* The same for a wait in place, in a wrapper (fallocate). */
TEST(wrapper_wait_stops_on_sigstop)
{
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	struct stat st;
	int dev, res;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_fallocate, DIR_T "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	ASSERT_EQ(0, kill(ch.pid, SIGSTOP));
	EXPECT_EQ(0, wait_proc_state(ch.pid, "tT", 5000));
	ASSERT_EQ(0, kill(ch.pid, SIGCONT));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	ASSERT_EQ(0, stat(DIR_T "/d/f", &st));
	EXPECT_EQ(8192, st.st_size);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* The cgroup v2 freezer freezes a waiting writer at once too. */
TEST(waiting_writer_freezes)
{
	const char *grp = "/sys/fs/cgroup/vfsb-freeze";
	char path[256];
	union rec u;
	struct vfsb_record *r = &u.r;
	struct child ch;
	int dev, res, ret;

	ret = freezer_group(grp);
	if (ret)
		SKIP(return, "no cgroup v2 freezer: %s", strerror(-ret));
	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_T "/d/x"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	snprintf(path, sizeof(path), "%s/cgroup.procs", grp);
	ASSERT_EQ(0, put_int(path, ch.pid));
	snprintf(path, sizeof(path), "%s/cgroup.freeze", grp);
	ASSERT_EQ(0, put_int(path, 1));
	EXPECT_TRUE(group_frozen(grp, 5000));
	ASSERT_EQ(0, put_int(path, 0));
	ASSERT_EQ(0, vfsb_ack(dev, r->seq));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_T "/d/x"));
	child_end(&ch);
	rmdir(grp);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

/* An intent timeout above VFSB_INTENT_TIMEOUT_MAX is refused. */
TEST(intent_timeout_is_capped)
{
	int dev = vfsb_open(), dev2 = vfsb_open();

	ASSERT_LE(0, dev);
	ASSERT_LE(0, dev2);
	EXPECT_EQ(-EINVAL, vfsb_subscribe_intent(dev, 0, 0,
						 VFSB_INTENT_TIMEOUT_MAX + 1,
						 NULL));
	EXPECT_EQ(0, vfsb_subscribe_intent(dev2, 0, 0,
					   VFSB_INTENT_TIMEOUT_MAX, NULL));
	close(dev2);
	close(dev);
}

#define DIR_LO	"/tmp/in-lo"
#define DIR_UP	"/tmp/in-up"
#define DIR_OV	"/tmp/in-ov"

/* A file op_aio_write() writes after "hello": 0 before, 1 after. */
static int wrote_world(const char *path)
{
	char buf[16] = { 0 };
	int fd, n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return !strcmp(buf, "hello") ? 0 : !strcmp(buf, "helloWORLD") ? 1 :
	       n < 0 ? -EIO : 2;
}

/*
 * An AIO write through overlayfs, whose upper layer is watched: the
 * upper file's write is nested in the overlay's (ovl_write_iter() ->
 * vfs_iocb_iter_write()), so failing it cannot restart io_submit(): AIO
 * completes a restart error as -EINTR, and the data is never written.
 * It waits for its ack in vfs_iocb_iter_write()'s wrapper instead, and
 * lands once, with nothing gone on unacked; so does an io_uring write
 * to the overlay file, nested the same way in an io-wq worker.
 */
TEST(nested_aio_write_through_overlayfs_waits_for_its_ack)
{
	int dev;

	ASSERT_EQ(0, mount_tmpfs(DIR_LO));
	ASSERT_EQ(0, mount_tmpfs(DIR_UP));
	ASSERT_EQ(0, mkdir(DIR_UP "/upper", 0755));
	ASSERT_EQ(0, mkdir(DIR_UP "/work", 0755));
	mkdir(DIR_OV, 0755);
	ASSERT_EQ(0, mount("overlay", DIR_OV, "overlay", 0,
			   "lowerdir=" DIR_LO ",upperdir=" DIR_UP
			   "/upper,workdir=" DIR_UP "/work"));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_UP));
	/* the subscriber's own changes: no wait */
	ASSERT_EQ(0, mkdir(DIR_OV "/nd", 0755));
	ASSERT_EQ(0, put_file(DIR_OV "/nd/f", "hello"));

	EXPECT_EQ(0, change_waits(dev, op_aio_write, DIR_OV "/nd/f",
				  wrote_world));
	/* io_uring's write to the overlay file: in an io-wq worker */
	ASSERT_EQ(0, mkdir(DIR_OV "/nu", 0755));
	ASSERT_EQ(0, put_file(DIR_OV "/nu/g", ""));
	EXPECT_EQ(0, change_waits(dev, op_uring_buffered, DIR_OV "/nu/g",
				  wrote_4k));
	EXPECT_EQ(0, sections_settled(dev, DIR_UP));
	close(dev);
	umount2(DIR_OV, MNT_DETACH);
	umount2(DIR_UP, MNT_DETACH);
	umount2(DIR_LO, MNT_DETACH);
}

/* path opened for writing by io_uring (IORING_OP_OPENAT): 0, or -errno */
static int op_uring_open_write(const char *path, int ctl, int res)
{
	struct vfsb_uring r = { };
	int ret;

	ret = vfsb_uring_init(&r, 4);
	if (!ret)
		ret = vfsb_uring_openat(&r, path, O_WRONLY | O_CLOEXEC, 0);
	vfsb_uring_exit(&r);
	if (ret < 0)
		return ret;
	close(ret);
	return 0;
}

/*
 * Acks every intent as it comes until ch completes (*res its result):
 * 0, or -ETIMEDOUT after 20 s. *intents: how many intent records came;
 * *rescans: RESCAN records, until a last read after the completion.
 */
static int ack_until_done(int dev, struct child *ch, int *res, int *intents,
			  int *rescans)
{
	static struct rec_batch b;
	int i, j, done = 0;

	*intents = *rescans = 0;
	for (i = 0; i < 200; i++) {
		__u64 seq = 0;

		if (rec_drain(dev, &b))
			return -EIO;
		for (j = 0; j < b.n; j++) {
			struct vfsb_record *r = b.rec[j];

			*rescans += r->type == VFSB_REC_RESCAN;
			if (r->type == VFSB_REC_CHANGE &&
			    (r->flags & VFSB_RECF_INTENT)) {
				(*intents)++;
				seq = r->seq;
			}
		}
		if (seq && vfsb_ack(dev, seq))
			return -errno;
		if (done)
			return 0;
		done = !child_result(ch, 100, res);
	}
	return -ETIMEDOUT;
}

/*
 * overlayfs copies a file up in the task that opens it for writing (here
 * io_uring's, which cannot restart), and copies the lower file's flags
 * to the upper copy (ovl_copy_up_metadata() -> ovl_copy_fileattr() ->
 * vfs_fileattr_set()). Every change the copy-up makes in the watched
 * upper layer waits for its ack (each intent is acked as it comes), and
 * none goes on unacked: no RESCAN, the copy has the lower file's +A.
 * The lower file holds text: with data, the copy's data write comes
 * before the flags; empty, the flags are the first change in the work
 * directory.
 */
static void copy_up_waits(struct __test_metadata *_metadata,
			  const char *text)
{
	int dev, fd, res, ret, intents, rescans, flags = 0;
	struct child ch;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/lo", 0755));
	ASSERT_EQ(0, mkdir(DIR_E "/up", 0755));
	ASSERT_EQ(0, mkdir(DIR_E "/up/upper", 0755));
	ASSERT_EQ(0, mkdir(DIR_E "/up/work", 0755));
	ASSERT_EQ(0, put_file(DIR_E "/lo/f", text));
	fd = open(DIR_E "/lo/f", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FS_IOC_GETFLAGS, &flags));
	flags |= FS_NOATIME_FL;
	ASSERT_EQ(0, ioctl(fd, FS_IOC_SETFLAGS, &flags));
	close(fd);
	mkdir(DIR_OV, 0755);
	ASSERT_EQ(0, mount("overlay", DIR_OV, "overlay", 0,
			   "lowerdir=" DIR_E "/lo,upperdir=" DIR_E
			   "/up/upper,workdir=" DIR_E "/up/work"));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	ASSERT_EQ(0, child_start(&ch, op_uring_open_write, DIR_OV "/f"));
	ret = ack_until_done(dev, &ch, &res, &intents, &rescans);
	child_end(&ch);
	EXPECT_EQ(0, ret);
	EXPECT_EQ(0, res);
	EXPECT_LE(1, intents);
	EXPECT_EQ(0, rescans);
	fd = open(DIR_E "/up/upper/f", O_RDONLY | O_CLOEXEC);
	EXPECT_LE(0, fd);
	flags = 0;
	if (fd >= 0) {
		EXPECT_EQ(0, ioctl(fd, FS_IOC_GETFLAGS, &flags));
		close(fd);
	}
	EXPECT_TRUE(flags & FS_NOATIME_FL);
	EXPECT_EQ(0, sections_settled(dev, DIR_E));
	close(dev);
	umount2(DIR_OV, MNT_DETACH);
	umount2(DIR_E, MNT_DETACH);
}

TEST(io_uring_copy_up_of_a_file_with_flags_waits_for_its_acks)
{
	copy_up_waits(_metadata, "abc");
}

TEST(io_uring_copy_up_of_an_empty_file_with_flags_waits_for_its_acks)
{
	copy_up_waits(_metadata, "");
}

/*
 * No task is inside the module's text, asleep or running, once unload
 * returns. A fallocate waits for its ack in place, in its wrapper; the
 * filesystem is unwatched and frozen; the wait times out (fail-open),
 * and the wrapper goes on into vfs_fallocate(), which sleeps on the
 * freeze. The subscriber closes: no tracking, no section is left, and
 * yet the wrapper will return into its own code after the thaw. So the
 * module must refuse to unload until it has. Last: it unloads the
 * module, and loads it again.
 */
TEST(unload_waits_for_a_writer_asleep_in_a_wrapper)
{
	union rec u;
	struct child ch;
	int dev, res, fd, ret;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, mkdir(DIR_E "/d", 0755));
	ASSERT_EQ(0, put_file(DIR_E "/d/f", ""));
	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, 2000, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	ASSERT_EQ(0, child_start(&ch, op_fallocate, DIR_E "/d/f"));
	ASSERT_EQ(0, wait_record(dev, VFSB_REC_CHANGE, VFSB_RECF_INTENT, &u));
	ASSERT_EQ(0, vfsb_unwatch_path(dev, DIR_E));
	fd = open(DIR_E, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FIFREEZE, 0));
	/* timed out (2 s), now in sb_start_write(): uninterruptible */
	EXPECT_EQ(0, wait_proc_state(ch.pid, "D", 20000));
	close(dev);

	EXPECT_EQ(-EAGAIN, vfsb_module_unload());
	EXPECT_TRUE(vfsb_module_loaded());
	ASSERT_EQ(0, ioctl(fd, FITHAW, 0));
	close(fd);
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	/* once the writer is out, nothing holds the module */
	EXPECT_EQ(0, vfsb_module_wait_refcnt(0, 10000));
	if (vfsb_module_loaded())
		EXPECT_EQ(0, vfsb_module_unload());
	EXPECT_EQ(0, vfsb_module_load());
	umount2(DIR_E, MNT_DETACH);
}

/*
 * An io_uring open with O_CREAT of an existing FIFO runs inside the
 * open's wrapper (hooks.c, do_filp_open()) and sleeps in fifo_open()
 * until a reader comes, for as long as that takes: the wrapper holds
 * the module meanwhile, so unload is refused at once, rather than
 * waiting in the module's exit for the open to return (or freeing the
 * text it would return into). Once a reader has come, the module
 * unloads, and is loaded again.
 */
TEST(unload_is_refused_while_an_io_uring_open_waits_for_a_fifo)
{
	struct child ch;
	int dev, res, fd, r0, i;

	ASSERT_EQ(0, setup(&dev, 0, LONG_MS));
	ASSERT_EQ(0, mkfifo(DIR_T "/d/p", 0644));
	r0 = vfsb_module_refcnt();
	ASSERT_LE(0, r0);
	ASSERT_EQ(0, child_start(&ch, op_uring_create, DIR_T "/d/p"));
	/* the wrapper's reference: the worker is inside it */
	for (i = 0; i < 2000 && vfsb_module_refcnt() <= r0; i++)
		usleep(10000);
	EXPECT_LT(r0, vfsb_module_refcnt());
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	close(dev);

	EXPECT_EQ(-EAGAIN, vfsb_module_unload());
	EXPECT_TRUE(vfsb_module_loaded());
	fd = open(DIR_T "/d/p", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	close(fd);
	EXPECT_EQ(0, vfsb_module_wait_refcnt(0, 10000));
	if (vfsb_module_loaded())
		EXPECT_EQ(0, vfsb_module_unload());
	EXPECT_EQ(0, vfsb_module_load());
	umount2(DIR_T, MNT_DETACH);
}

static int op_unload(const char *path, int ctl, int res)
{
	return vfsb_module_unload();
}

/*
 * The same without intent mode: a mkdir asleep on a frozen filesystem
 * in mnt_want_write() is inside no code of the module (write access is
 * seen by entry callbacks, not a wrapper), and holds no section. Once
 * the watch and the device are gone the module unloads at once, and
 * the mkdir, woken by the thaw, returns through the kernel alone.
 */
TEST(unload_does_not_wait_for_a_mkdir_asleep_in_write_access)
{
	struct child ch, un;
	int dev, res, fd, ret;

	ret = mount_ext4(DIR_E);
	if (ret == -ENODEV)
		SKIP(return, "no scratch disk");
	ASSERT_EQ(0, ret);
	dev = vfsb_open();
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_watch_path(dev, DIR_E));
	fd = open(DIR_E, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, FIFREEZE, 0));
	ASSERT_EQ(0, child_start(&ch, op_mkdir, DIR_E "/x"));
	/* asleep in sb_start_write(), in mnt_want_write() */
	ASSERT_EQ(0, wait_proc_state(ch.pid, "D", 10000));
	ASSERT_EQ(0, vfsb_unwatch_path(dev, DIR_E));
	ASSERT_EQ(0, wait_hooks_off(dev));
	close(dev);
	EXPECT_EQ(0, vfsb_module_wait_refcnt(0, 10000));

	ASSERT_EQ(0, child_start(&un, op_unload, NULL));
	ASSERT_EQ(0, child_result(&un, 20000, &res));
	EXPECT_EQ(0, res);
	EXPECT_FALSE(vfsb_module_loaded());
	EXPECT_EQ(1, child_result(&ch, 0, &res));
	ASSERT_EQ(0, ioctl(fd, FITHAW, 0));
	close(fd);
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	EXPECT_TRUE(exists(DIR_E "/x"));
	child_end(&un);
	child_end(&ch);
	EXPECT_EQ(0, vfsb_module_load());
	umount2(DIR_E, MNT_DETACH);
}

/* Plain changes of d, then two hard links made in d. */
static int op_plain_then_links(const char *path, int ctl, int res)
{
	if (put_file(DIR_T "/d/p1", "") || put_file(DIR_T "/d/p2", "") ||
	    unlink(DIR_T "/d/p1"))
		return -errno;
	if (link(DIR_T "/d/f", DIR_T "/d/l1") ||
	    link(DIR_T "/d/g", DIR_T "/d/l2"))
		return -errno;
	return 0;
}

/*
 * VFSB_SUB_COALESCE on an intent subscriber coalesces as a journal: in
 * a directory acked in the epoch, changes that name only the directory
 * merge into the unread record before them, but every record the
 * journal stores more from is delivered (here two hard links made in
 * the same directory: each tells where a name of its file is), and a
 * change after the reader took the directory's record gets a record of
 * its own.
 */
TEST(journal_coalescing_keeps_what_the_journal_stores)
{
	static struct rec_batch b;
	long long d_ino, f_ino, g_ino;
	int dev, res, i, plain = 0, links = 0, p3 = 0;
	struct child ch;
	char nb[64];

	ASSERT_EQ(0, setup(&dev, VFSB_SUB_COALESCE, LONG_MS));
	ASSERT_EQ(0, put_file(DIR_T "/d/g", ""));
	d_ino = ino_of(DIR_T "/d");
	f_ino = ino_of(DIR_T "/d/f");
	g_ino = ino_of(DIR_T "/d/g");
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/x"));
	ASSERT_EQ(0, rec_drain(dev, &b));	/* all read */

	ASSERT_EQ(0, child_start(&ch, op_plain_then_links, NULL));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	ASSERT_EQ(0, rec_drain(dev, &b));
	for (i = 0; i < b.n; i++) {
		struct vfsb_record *r = b.rec[i];

		if (r->type != VFSB_REC_CHANGE ||
		    (long long)r->parent_ino != d_ino)
			continue;
		EXPECT_FALSE(r->flags & VFSB_RECF_INTENT);
		if (r->reasons & VFSB_R_HARDLINK) {
			EXPECT_TRUE((long long)r->ino == f_ino ||
				    (long long)r->ino == g_ino);
			links++;
		} else {
			plain++;
		}
	}
	EXPECT_EQ(1, plain) TH_LOG("%d records of d's plain changes", plain);
	EXPECT_EQ(2, links) TH_LOG("%d of the two hard links", links);

	/* its record read: d's next change is not merged into it */
	ASSERT_EQ(0, child_start(&ch, op_create, DIR_T "/d/p3"));
	ASSERT_EQ(0, child_result(&ch, 10000, &res));
	EXPECT_EQ(0, res);
	child_end(&ch);
	ASSERT_EQ(0, rec_drain(dev, &b));
	for (i = 0; i < b.n; i++)
		p3 += b.rec[i]->type == VFSB_REC_CHANGE &&
		      !strcmp(vfsb_rec_name(b.rec[i], nb, sizeof(nb)), "p3");
	EXPECT_EQ(1, p3);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

#define SPREAD_WRITES	40

/* SPREAD_WRITES one-byte writes to path, none touching another. */
static int op_spread_writes(const char *path, int ctl, int res)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), i;

	if (fd < 0)
		return -errno;
	for (i = 0; i < SPREAD_WRITES; i++) {
		if (pwrite(fd, "x", 1, i * 8192) != 1) {
			i = -errno;
			close(fd);
			return i;
		}
	}
	close(fd);
	return 0;
}

static int op_write_one(const char *path, int ctl, int res)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (pwrite(fd, "y", 1, 1 << 20) != 1) {
		res = -errno;
		close(fd);
		return res;
	}
	close(fd);
	return 0;
}

static int run_op(child_fn fn, const char *path)
{
	struct child ch;
	int ret, res;

	ret = child_start(&ch, fn, path);
	if (!ret)
		ret = child_result(&ch, 10000, &res);
	child_end(&ch);
	return ret ? ret : res;
}

/* The data write records of ino in b, and how many flag LINKS. */
static int data_writes(const struct rec_batch *b, long long ino, int *links)
{
	int i, n = 0;

	*links = 0;
	for (i = 0; i < b->n; i++) {
		const struct vfsb_record *r = b->rec[i];

		if (r->type != VFSB_REC_CHANGE || (long long)r->ino != ino ||
		    r->reasons != VFSB_R_DATA_WRITE)
			continue;
		n++;
		*links += !!(r->flags & VFSB_RECF_LINKS);
	}
	return n;
}

/*
 * The data writes a journal's ring merges are not built at all
 * (emit.c, vfsb_announce_merged()): what the reader sees must be what
 * the full path gives. In a directory acked in the epoch, a file's
 * writes after the reader drained the ring make one record, whose
 * ranges do not touch (the journal's merge, not the range merge); a
 * write after the next read makes its own; a file with two links gets
 * a record per write, each flagged LINKS (the journal stores where its
 * names are); and a second subscriber on the filesystem, a stream,
 * gets every write while the journal's ring still merges them.
 */
TEST(journal_merged_data_writes_are_what_the_full_path_gives)
{
	static struct rec_batch b;
	long long f_ino, h_ino;
	int dev, dev2, links;

	ASSERT_EQ(0, setup(&dev, VFSB_SUB_COALESCE, LONG_MS));
	ASSERT_EQ(0, put_file(DIR_T "/d/h", ""));
	ASSERT_EQ(0, mkdir(DIR_T "/e", 0755));
	ASSERT_EQ(0, link(DIR_T "/d/h", DIR_T "/e/h2"));
	f_ino = ino_of(DIR_T "/d/f");
	h_ino = ino_of(DIR_T "/d/h");
	ASSERT_EQ(0, acked_change(dev, op_create, DIR_T "/d/x"));
	/* h's own key (it has two links): its first write is an intent */
	ASSERT_EQ(0, acked_change(dev, op_write_one, DIR_T "/d/h"));
	ASSERT_EQ(0, rec_drain(dev, &b));

	ASSERT_EQ(0, run_op(op_spread_writes, DIR_T "/d/f"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	EXPECT_EQ(1, data_writes(&b, f_ino, &links));
	EXPECT_EQ(0, links);
	ASSERT_EQ(0, run_op(op_write_one, DIR_T "/d/f"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	EXPECT_EQ(1, data_writes(&b, f_ino, &links));

	ASSERT_EQ(0, run_op(op_spread_writes, DIR_T "/d/h"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	EXPECT_EQ(SPREAD_WRITES, data_writes(&b, h_ino, &links));
	EXPECT_EQ(SPREAD_WRITES, links);

	dev2 = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev2);
	ASSERT_EQ(0, vfsb_subscribe(dev2, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev2, DIR_T));
	ASSERT_EQ(0, run_op(op_write_one, DIR_T "/d/f"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	ASSERT_EQ(0, rec_drain(dev2, &b));
	ASSERT_EQ(0, run_op(op_spread_writes, DIR_T "/d/f"));
	ASSERT_EQ(0, rec_drain(dev, &b));
	EXPECT_EQ(1, data_writes(&b, f_ino, &links));
	ASSERT_EQ(0, rec_drain(dev2, &b));
	EXPECT_EQ(SPREAD_WRITES, data_writes(&b, f_ino, &links));
	close(dev2);
	close(dev);
	umount2(DIR_T, MNT_DETACH);
}

TEST_HARNESS_MAIN
