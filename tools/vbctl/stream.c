// SPDX-License-Identifier: GPL-2.0
/*
 * vbctl stream: VFSB_IOC_SUBSCRIBE on a device of its own that watches
 * the PATHs' filesystems, then read() until interrupted (or --count
 * records), one line per record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "vfsb.h"
#include "vbctl.h"
#include "record_print.h"

#define USAGE "stream PATH... [--json] [--reasons LIST] [--coalesce] [--ring BYTES] [--count N]"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct stream_opts {
	bool json;
	__u32 reasons, flags, ring;
	long long count;	/* records to print; -1: until interrupted */
};

static int parse(int argc, char **argv, struct stream_opts *o)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "reasons", required_argument, NULL, 'r' },
		{ "coalesce", no_argument, NULL, 'c' },
		{ "ring", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'n' },
		VB_OPT_HELP, VB_OPT_END,
	};
	unsigned long long v;
	char bad[64], names[256];
	unsigned int bit;
	size_t n;
	int c;

	vb_getopt_reset();
	while ((c = vb_getopt(argc, argv, opts, USAGE)) != -1) {
		switch (c) {
		case 'h':
			return 'h';
		case 'j':
			o->json = true;
			break;
		case 'r':
			if (!vfsb_reasons_parse(optarg, &o->reasons, bad, sizeof(bad)))
				break;
			for (bit = 0, n = 0; vfsb_reason_name(bit); bit++)
				n += snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0,
					      " %s", vfsb_reason_name(bit));
			vb_err("stream: unknown reason '%s' (one of:%s)", bad, names);
			return VB_USAGE;
		case 'c':
			o->flags |= VFSB_SUB_COALESCE;
			break;
		case 'b':
			if (vb_size("--ring", optarg, VFSB_RING_MAX, &v))
				return VB_USAGE;
			o->ring = v;
			break;
		case 'n':
			if (vb_number("--count", optarg, 1ULL << 62, &v))
				return VB_USAGE;
			o->count = v;
			break;
		default:
			return VB_USAGE;
		}
	}
	if (optind == argc) {
		vb_err("stream: no PATH (usage: vbctl %s)", USAGE);
		return VB_USAGE;
	}
	return VB_OK;
}

/* Watches each PATH on dev, and keeps an fd on it for the handles. */
static int watch_all(int dev, int argc, char **argv, struct rec_fs *fs)
{
	int i, n, fd, ret;

	for (i = optind, n = 0; i < argc; i++, n++) {
		ret = vb_open_path(argv[i], &fd);
		if (ret)
			return ret;
		ret = vfsb_fd_sb_dev(fd, &fs[n].dev);
		if (!ret)
			ret = vfsb_watch_fd(dev, fd, NULL);
		/* two PATHs on one filesystem */
		if (ret && ret != -EEXIST) {
			close(fd);
			return vb_fail("watch", argv[i], ret);
		}
		close(fd);
		/* open_by_handle_at() takes no O_PATH fd: a plain one, if
		   it opens (paths print as "?" otherwise) */
		fs[n].fd = open(argv[i], O_RDONLY | O_CLOEXEC);
	}
	return VB_OK;
}

/* Prints the whole records in buf; counts them down. */
static int print_all(char *buf, size_t len, const struct stream_opts *o,
		     long long *left, const struct rec_fs *fs, int nfs)
{
	struct vfsb_record *r;
	size_t off;
	int err;

	for (off = 0; *left && (r = vfsb_rec_at(buf, len, off)); off += r->size) {
		err = print_record(r, o->json, fs, nfs);
		if (err) {
			vb_err("stream: writing: %s", strerror(-err));
			return VB_FAILED;
		}
		if (*left > 0)
			(*left)--;
	}
	if (*left && off != len) {
		vb_err("stream: read() returned a malformed record at %zu of %zu bytes",
		       off, len);
		return VB_FAILED;
	}
	return VB_OK;
}

int cmd_stream(struct vbctl *vb, int argc, char **argv)
{
	struct stream_opts o = { .count = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	static char buf[1 << 16] __attribute__((aligned(8)));
	struct rec_fs *fs;
	long long left;
	__u64 journal;
	ssize_t n;
	int ret, i, nfs;

	ret = parse(argc, argv, &o);
	if (ret)
		return ret == 'h' ? VB_OK : ret;
	if (vb->session) {
		/* a subscription would be the session's, and block it */
		vb_err("stream: not in a session (run it as a vbctl of its own)");
		return VB_USAGE;
	}
	ret = vb_open(vb);
	if (ret)
		return ret;
	nfs = argc - optind;
	fs = calloc(nfs, sizeof(*fs));
	if (!fs) {
		vb_err("stream: out of memory");
		return VB_FAILED;
	}
	for (i = 0; i < nfs; i++)
		fs[i].fd = -1;
	ret = watch_all(vb->dev, argc, argv, fs);
	if (ret)
		goto out;
	ret = vfsb_subscribe(vb->dev, o.ring, o.reasons, o.flags, &journal);
	if (ret) {
		ret = vb_fail("subscribe", NULL, ret);
		goto out;
	}
	/* no SA_RESTART: a signal ends the blocking read; in place before
	   the line below tells a script it may send one */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* on stderr, also with --json: the records stay alone on stdout, and
	   a script learns when the subscription is in place */
	fprintf(stderr, "streaming (journal id %016llx); Ctrl-C to stop\n",
		(unsigned long long)journal);
	for (left = o.count; left && !ret;) {
		/* once told to stop, print what is already there, then exit */
		if (stop)
			fcntl(vb->dev, F_SETFL, O_NONBLOCK);
		n = read(vb->dev, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && stop)
			break;
		if (n < 0) {
			ret = vb_fail("read", NULL, -errno);
			break;
		}
		ret = print_all(buf, n, &o, &left, fs, nfs);
	}
out:
	for (i = 0; i < nfs; i++)
		if (fs[i].fd >= 0)
			close(fs[i].fd);
	free(fs);
	return ret;
}
