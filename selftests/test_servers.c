// SPDX-License-Identifier: GPL-2.0
/*
 * File servers' writes wait for their intent's ack (issue 27): an ext4
 * exported by nfsd (NFSv3, NFSv4.2) and by ksmbd, mounted by the
 * kernel's NFS and CIFS clients over 127.0.0.1 (servers.c), watched by
 * an intent subscriber the test opens. A child process makes one change
 * on the client's mount, in a directory not acked yet in the epoch; the
 * server's kernel thread makes it on the export. It must:
 *  (i)   announce it: an intent record comes;
 *  (ii)  wait for the ack: the client's call has not returned, and the
 *        export shows nothing of the change, when the record is read;
 *  (iii) finish once acked, with success at the client (no EAGAIN,
 *        EIO, NFS delay or jukebox error);
 *  (iv)  never go on unacked or unbracketed: no RESCAN record (any
 *        RESCAN is a gap in vbjournald's journal: a full rescan for
 *        every consumer).
 * Whether the change shows on the export while it waits is read with
 * fstat() of descriptors opened before (the directory's times, the
 * file's size, mode and times): no lookup, which a server that waits
 * with the directory's lock held would block.
 *
 * Each test skips, saying why, when its server cannot run in this guest
 * (no scratch disk, no server userland in the initramfs, a kernel
 * without nfsd or ksmbd).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#include "vfsb.h"
#include "rec_batch.h"
#include "servers.h"
#include "testfs.h"
#include "kselftest_harness.h"

#define LONG_MS	60000	/* an intent timeout no test reaches */

/* The client's call, in a process of its own: path is the test's
   directory on the client mount; 0 or -errno. */
typedef int (*client_fn)(const char *dir);

struct child {
	pid_t pid;
	int res;		/* read end: one int, 0 or -errno */
};

static int child_start(struct child *ch, client_fn fn, const char *dir)
{
	int rp[2];

	if (pipe2(rp, O_CLOEXEC))
		return -errno;
	ch->pid = fork();
	if (ch->pid < 0)
		return -errno;
	if (!ch->pid) {
		int r, fd;

		/* not the subscriber's device: it never waits */
		for (fd = 3; fd < 1024; fd++)
			if (fd != rp[1])
				close(fd);
		r = fn(dir);
		_exit(write(rp[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(rp[1]);
	ch->res = rp[0];
	return 0;
}

/* The child's result within ms: 0 (*res: its 0 or -errno); 1: none yet. */
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
	close(ch->res);
	kill(ch->pid, SIGKILL);
	waitpid(ch->pid, NULL, 0);
}

/* ---- the client's calls ---- */

static int at(char *buf, size_t len, const char *dir, const char *name)
{
	return snprintf(buf, len, "%s/d/%s", dir, name) >= (int)len ? -ENAMETOOLONG : 0;
}

static int cl_create(const char *dir)
{
	char p[256];
	int fd;

	if (at(p, sizeof(p), dir, "new"))
		return -ENAMETOOLONG;
	fd = open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	return close(fd) ? -errno : 0;
}

/* "abc" into the existing, empty f, on the server before the call returns */
static int cl_write(const char *dir)
{
	char p[256];
	ssize_t n;
	int fd, ret = 0;

	if (at(p, sizeof(p), dir, "f"))
		return -ENAMETOOLONG;
	fd = open(p, O_WRONLY | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, "abc", 3);
	if (n != 3)
		ret = n < 0 ? -errno : -EIO;
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int cl_mkdir(const char *dir)
{
	char p[256];

	if (at(p, sizeof(p), dir, "x"))
		return -ENAMETOOLONG;
	return mkdir(p, 0755) ? -errno : 0;
}

static int cl_rename(const char *dir)
{
	char p[256], q[256];

	if (at(p, sizeof(p), dir, "f") || at(q, sizeof(q), dir, "g"))
		return -ENAMETOOLONG;
	return rename(p, q) ? -errno : 0;
}

static int cl_unlink(const char *dir)
{
	char p[256];

	if (at(p, sizeof(p), dir, "f"))
		return -ENAMETOOLONG;
	return unlink(p) ? -errno : 0;
}

/* SMB without POSIX extensions: the DOS read-only attribute */
static int cl_chmod(const char *dir)
{
	char p[256];

	if (at(p, sizeof(p), dir, "f"))
		return -ENAMETOOLONG;
	return chmod(p, 0444) ? -errno : 0;
}

/*
 * A POSIX access ACL on dir's d/f, as its xattr (testfs.h): the owner
 * rw-, user 1000 r--, the group r--, the mask r--, the others r--.
 */
static int cl_setacl(const char *dir)
{
	struct acl_xattr5 acl = { 2, {
		{ 0x01, 6, ~0U },	/* ACL_USER_OBJ */
		{ 0x02, 4, 1000 },	/* ACL_USER */
		{ 0x04, 4, ~0U },	/* ACL_GROUP_OBJ */
		{ 0x10, 4, ~0U },	/* ACL_MASK */
		{ 0x20, 4, ~0U },	/* ACL_OTHER */
	} };
	char p[256];

	if (at(p, sizeof(p), dir, "f"))
		return -ENAMETOOLONG;
	return setxattr(p, "system.posix_acl_access", &acl, sizeof(acl), 0) ?
	       -errno : 0;
}

static int cl_truncate(const char *dir)
{
	char p[256];

	if (at(p, sizeof(p), dir, "f"))
		return -ENAMETOOLONG;
	return truncate(p, 2) ? -errno : 0;
}

/*
 * A copy within dir's d/f, "hello" to 5: copy_file_range(2), which the
 * NFSv4.2 client makes a COPY and the SMB client a server-side copy
 * (nfsd's and ksmbd's vfs_copy_file_range(), in their kernel threads).
 */
static int cl_copy(const char *dir)
{
	loff_t in_pos = 0, out_pos = 5;
	int in, out, ret = 0;
	ssize_t n;
	char p[256];

	if (at(p, sizeof(p), dir, "f"))
		return -ENAMETOOLONG;
	in = open(p, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(p, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	n = copy_file_range(in, &in_pos, out, &out_pos, 5, 0);
	if (n != 5)
		ret = n < 0 ? -errno : -EIO;
	close(out);
	close(in);
	return ret;
}

/* ---- one change through a server ---- */

struct srv_op {
	const char *name;
	client_fn run;
	const char *prep;	/* d/f's text before the call; NULL: no d/f */
	bool on_file;		/* the change shows on d/f, else on d */
	const char *made;	/* name in d there after it, or NULL */
	const char *gone;	/* name in d gone after it, or NULL */
};

static const struct srv_op op_create = { "create", cl_create, NULL, false, "new", NULL };
static const struct srv_op op_write = { "write", cl_write, "", true, NULL, NULL };
static const struct srv_op op_mkdir = { "mkdir", cl_mkdir, NULL, false, "x", NULL };
static const struct srv_op op_rename = { "rename", cl_rename, "r", false, "g", "f" };
static const struct srv_op op_unlink = { "unlink", cl_unlink, "u", false, NULL, "f" };
static const struct srv_op op_chmod = { "chmod", cl_chmod, "c", true, NULL, NULL };
static const struct srv_op op_truncate = { "truncate", cl_truncate, "hello", true, NULL, NULL };
static const struct srv_op op_setacl = { "setacl", cl_setacl, "", true, NULL, NULL };
static const struct srv_op op_copy = { "copy", cl_copy, "hello", true, NULL, NULL };

/* Whether what fstat() says of fd differs from before. */
static bool changed(int fd, const struct stat *before)
{
	struct stat st;

	if (fstat(fd, &st))
		return true;
	return st.st_size != before->st_size || st.st_mode != before->st_mode ||
	       st.st_nlink != before->st_nlink ||
	       st.st_mtim.tv_sec != before->st_mtim.tv_sec ||
	       st.st_mtim.tv_nsec != before->st_mtim.tv_nsec ||
	       st.st_ctim.tv_sec != before->st_ctim.tv_sec ||
	       st.st_ctim.tv_nsec != before->st_ctim.tv_nsec;
}

/* A whole record, items included. */
union rec {
	struct vfsb_record r;
	char bytes[VFSB_RECORD_MAX];
};

/*
 * Reads the records there are (poll: up to ms): copies the first intent
 * record into *intent unless one was found already (*found), acks every
 * intent record after the first once ack is set, and counts RESCAN
 * records into *rescans (saying their reasons). 0 or -errno.
 */
static int read_records(int dev, int ms, bool ack, union rec *intent,
			bool *found, int *rescans)
{
	static struct rec_batch b;
	struct pollfd p = { .fd = dev, .events = POLLIN };
	int i;

	if (ms)
		poll(&p, 1, ms);
	if (rec_drain(dev, &b))
		return -EIO;
	for (i = 0; i < b.n; i++) {
		struct vfsb_record *r = b.rec[i];

		if (r->type == VFSB_REC_RESCAN) {
			/*
			 * VFSB_RESCAN_INTENT: a change went on unacked; the
			 * others: one went on unbracketed (unfenced, no
			 * return instance). vbjournald makes each of the
			 * latter a gap of the filesystem.
			 */
			fprintf(stderr, "# a RESCAN record, reasons 0x%x\n",
				r->reasons);
			++*rescans;
			continue;
		}
		if (r->type != VFSB_REC_CHANGE || !(r->flags & VFSB_RECF_INTENT))
			continue;
		if (!*found) {
			memcpy(intent, r, r->size);
			*found = true;
		} else if (ack) {
			vfsb_ack(dev, r->seq);
		}
	}
	return 0;
}

static const char *const proto_name[] = { "nfs3", "nfs42", "smb" };

/*
 * The test: op on proto's client mount, in a directory made for it on
 * the export, watched by a fresh intent subscriber; see the top.
 */
static void srv_op_waits(struct __test_metadata *_metadata,
			 enum srv_proto proto, const struct srv_op *op)
{
	char why[512], sdir[256], cdir[256], p[300];
	struct stat before;
	union rec u;
	struct child ch = { .pid = -1, .res = -1 };
	bool found = false;
	int ret, dev, fd, res = 0, rescans = 0, i, done;

	ret = srv_setup(proto, why, sizeof(why));
	if (ret == -ENODEV || ret == -EOPNOTSUPP)
		SKIP(return, "%s: %s", proto_name[proto], why);
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", proto_name[proto], why);

	/* made on the export itself, before anything watches it */
	snprintf(sdir, sizeof(sdir), SRV_EXPORT "/%s-%s", proto_name[proto], op->name);
	snprintf(cdir, sizeof(cdir), "%s/%s-%s", srv_mnt(proto), proto_name[proto], op->name);
	ASSERT_EQ(0, mkdir(sdir, 0755));
	snprintf(p, sizeof(p), "%s/d", sdir);
	ASSERT_EQ(0, mkdir(p, 0755));
	if (op->prep) {
		snprintf(p, sizeof(p), "%s/d/f", sdir);
		ASSERT_EQ(0, put_file(p, op->prep));
	}
	snprintf(p, sizeof(p), "%s/d%s", sdir, op->on_file ? "/f" : "");
	fd = open(p, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &before));
	/* and seen by the client (through the server) before it changes */
	snprintf(p, sizeof(p), "%s/d", cdir);
	ASSERT_EQ(0, access(p, F_OK)) TH_LOG("%s: %s", p, strerror(errno));

	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe_intent(dev, 0, 0, LONG_MS, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, SRV_EXPORT));

	ASSERT_EQ(0, child_start(&ch, op->run, cdir));
	/* (i) announced */
	for (i = 0; i < 100 && !found; i++)
		ASSERT_EQ(0, read_records(dev, 100, false, &u, &found, &rescans));
	if (!found) {
		ret = child_result(&ch, 0, &res);
		child_end(&ch);
		ASSERT_TRUE(found) TH_LOG("no intent record in 10 s (the call %s: %d)",
					  ret ? "has not returned" : "returned", res);
	}
	/* (ii) not made, not returned */
	done = child_result(&ch, 0, &res);
	EXPECT_EQ(1, done) TH_LOG("the client's call returned %d before the ack", res);
	EXPECT_FALSE(changed(fd, &before)) TH_LOG("the export shows the change before the ack");

	/* (iii) once acked: made, with success at the client */
	EXPECT_EQ(0, vfsb_ack(dev, u.r.seq));
	for (i = 0; i < 300 && done == 1; i++) {
		done = child_result(&ch, 100, &res);
		ASSERT_EQ(0, read_records(dev, 0, true, &u, &found, &rescans));
	}
	child_end(&ch);
	EXPECT_EQ(0, done) TH_LOG("the client's call did not return in 30 s after the ack");
	EXPECT_EQ(0, res) TH_LOG("the client's call: %s", strerror(-res));
	EXPECT_TRUE(changed(fd, &before));
	close(fd);
	if (op->made) {
		snprintf(p, sizeof(p), "%s/d/%s", sdir, op->made);
		EXPECT_EQ(0, access(p, F_OK));
	}
	if (op->gone) {
		snprintf(p, sizeof(p), "%s/d/%s", sdir, op->gone);
		EXPECT_NE(0, access(p, F_OK));
	}
	/* (iv) nothing went on unacked */
	ASSERT_EQ(0, read_records(dev, 0, true, &u, &found, &rescans));
	EXPECT_EQ(0, rescans) TH_LOG("a RESCAN record: a change went on unacked or unbracketed (the intent's reasons: 0x%x)",
				     u.r.reasons);
	close(dev);
}

FIXTURE(server) {
	int unused;
};

FIXTURE_VARIANT(server) {
	enum srv_proto proto;
};

FIXTURE_VARIANT_ADD(server, nfs3) {
	.proto = SRV_NFS3,
};

FIXTURE_VARIANT_ADD(server, nfs42) {
	.proto = SRV_NFS42,
};

FIXTURE_VARIANT_ADD(server, smb) {
	.proto = SRV_SMB,
};

FIXTURE_SETUP(server)
{
}

FIXTURE_TEARDOWN(server)
{
}

TEST_F_TIMEOUT(server, create_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_create);
}

TEST_F_TIMEOUT(server, write_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_write);
}

TEST_F_TIMEOUT(server, mkdir_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_mkdir);
}

TEST_F_TIMEOUT(server, rename_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_rename);
}

TEST_F_TIMEOUT(server, unlink_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_unlink);
}

TEST_F_TIMEOUT(server, chmod_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_chmod);
}

/* a server-side copy (NFSv3 has none: its client reads and writes) */
TEST_F_TIMEOUT(server, copy_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_copy);
}

TEST_F_TIMEOUT(server, truncate_waits, 90)
{
	srv_op_waits(_metadata, variant->proto, &op_truncate);
}

/* a POSIX ACL: nfsd's set_posix_acl() (compat.h), NFSv3's SETACL */
TEST_F_TIMEOUT(server, setacl_waits, 90)
{
	if (variant->proto != SRV_NFS3)
		SKIP(return, "POSIX ACLs pass through NFSv3's ACL protocol only");
	srv_op_waits(_metadata, variant->proto, &op_setacl);
}

/*
 * TEST_HARNESS_MAIN, and the servers stopped after the last test. The
 * harness ends the process with exit() (ksft_exit()): they stop at
 * exit, in this process only (a test's child leaves with _exit(), but
 * one that exit()s must not stop them).
 */
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

/*
 * nfsd sets a POSIX ACL (NFSv3's ACL side protocol, SETACL) with
 * set_posix_acl(), which has no security hook in it from 6.2 on (it
 * calls ->set_acl() itself), where the module's ACL hook was
 * security_inode_set_acl(), vfs_set_acl()'s: the change must still come
 * as a record of its file. A record subscriber: what it is told, not
 * whether it waits (a kernel thread's ACL change cannot wait: README).
 */
TEST_F_TIMEOUT(server, acl_change_is_announced, 90)
{
	static struct rec_batch b;
	char why[512], sdir[256], cdir[256], p[300];
	struct pollfd pfd;
	struct stat st;
	bool found = false;
	int ret, dev, i, j;

	if (variant->proto != SRV_NFS3)
		SKIP(return, "POSIX ACLs pass through NFSv3's ACL protocol only");
	ret = srv_setup(variant->proto, why, sizeof(why));
	if (ret == -ENODEV || ret == -EOPNOTSUPP)
		SKIP(return, "%s: %s", proto_name[variant->proto], why);
	ASSERT_EQ(0, ret) TH_LOG("%s: %s", proto_name[variant->proto], why);
	snprintf(sdir, sizeof(sdir), SRV_EXPORT "/%s-acl",
		 proto_name[variant->proto]);
	snprintf(cdir, sizeof(cdir), "%s/%s-acl", srv_mnt(variant->proto),
		 proto_name[variant->proto]);
	ASSERT_EQ(0, mkdir(sdir, 0755));
	snprintf(p, sizeof(p), "%s/d", sdir);
	ASSERT_EQ(0, mkdir(p, 0755));
	snprintf(p, sizeof(p), "%s/d/f", sdir);
	ASSERT_EQ(0, put_file(p, ""));
	ASSERT_EQ(0, stat(p, &st));
	snprintf(p, sizeof(p), "%s/d", cdir);
	ASSERT_EQ(0, access(p, F_OK)) TH_LOG("%s: %s", p, strerror(errno));

	dev = vfsb_open_flags(O_NONBLOCK);
	ASSERT_LE(0, dev);
	ASSERT_EQ(0, vfsb_subscribe(dev, 0, 0, 0, NULL));
	ASSERT_EQ(0, vfsb_watch_path(dev, SRV_EXPORT));
	ASSERT_EQ(0, rec_drain(dev, &b));
	ASSERT_EQ(0, cl_setacl(cdir)) TH_LOG("the client's setxattr of the ACL");
	/* the record comes before the call returned: read what is there */
	pfd = (struct pollfd){ .fd = dev, .events = POLLIN };
	for (i = 0; i < 10 && !found; i++) {
		ASSERT_LE(0, poll(&pfd, 1, 1000));
		ASSERT_EQ(0, rec_drain(dev, &b));
		for (j = 0; j < b.n && !found; j++)
			found = b.rec[j]->type == VFSB_REC_CHANGE &&
				(b.rec[j]->reasons & VFSB_R_ACL) &&
				b.rec[j]->ino == (__u64)st.st_ino;
	}
	EXPECT_TRUE(found) TH_LOG("no ACL record of d/f");
	close(dev);
}

static pid_t main_pid;

static void stop_servers(void)
{
	if (getpid() == main_pid)
		srv_stop_all();
}

int main(int argc, char **argv)
{
	main_pid = getpid();
	if (atexit(stop_servers))
		return KSFT_FAIL;
	return test_harness_run(argc, argv);
}
