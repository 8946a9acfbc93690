// SPDX-License-Identifier: GPL-2.0
/*
 * vbctl barrier: VFSB_IOC_BARRIER, or with --async VFSB_IOC_BARRIER_START
 * and then VFSB_IOC_BARRIER_POLL on the cookie until it is done.
 *
 * --all is VFSB_BARRIER_ALL: every filesystem the open file watches. In
 * a session (watch --stdin) those are the session's watches. A vbctl run
 * alone watches nothing, so it first watches, for the length of the
 * call, the filesystems of the PATHs given, or, without any, every
 * filesystem someone watches: a barrier waits for the sections on a
 * filesystem whoever began them, and this watch adds nothing to wait
 * for (sections begin only after a watch).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "vfsb.h"
#include "vbctl.h"

#define USAGE "barrier PATH | --all [PATH...]  [--timeout MS] [--expedited | --async] [--fence]"

struct barrier_req {
	__u32 flags;
	__u32 timeout_ms;	/* 0: no limit */
	bool async;
	char what[256];		/* what it waits for, for messages */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Runs the barrier on fd (ignored with VFSB_BARRIER_ALL) and reports it. */
static int run_barrier(struct vbctl *vb, int fd, const struct barrier_req *r)
{
	double t0 = now_ms();
	__u64 waited_ns, cookie;
	int ret;

	if (!r->async) {
		ret = vfsb_barrier_fd(vb->dev, fd, r->flags, r->timeout_ms,
				      &waited_ns);
		if (ret)
			return vb_fail("barrier", r->what, ret);
		printf("%sbarrier on %s complete after %.3f ms\n",
		       r->flags & VFSB_BARRIER_FENCE ? "fenced " : "", r->what,
		       waited_ns / 1e6);
		return VB_OK;
	}
	ret = vfsb_barrier_start_fd(vb->dev, fd, r->flags, &cookie);
	if (ret)
		return vb_fail("barrier", r->what, ret);
	printf("barrier on %s started: cookie %llu\n", r->what,
	       (unsigned long long)cookie);
	fflush(stdout);
	ret = vfsb_barrier_wait(vb->dev, cookie, !r->timeout_ms ? -1 :
				r->timeout_ms > INT_MAX ? INT_MAX : (int)r->timeout_ms);
	if (ret)
		return vb_fail("barrier", r->what, ret);
	printf("barrier on %s complete after %.3f ms (cookie %llu)\n", r->what,
	       now_ms() - t0, (unsigned long long)cookie);
	return VB_OK;
}

/*
 * Adds the filesystem of fd to what a lone vbctl's --all barrier covers,
 * when someone watches it (as a barrier on one PATH requires): 0 or
 * -errno (-ENOENT: nobody watches it).
 */
static int watch_for_all(struct vbctl *vb, int fd)
{
	struct vfsb_sb_stats st;
	dev_t sb_dev;
	int ret;

	ret = vfsb_fd_sb_dev(fd, &sb_dev);
	if (!ret)
		ret = vfsb_stats_dev(vb->dev, sb_dev, &st);
	if (!ret)
		ret = vfsb_watch_fd(vb->dev, fd, NULL);
	/* two PATHs on one filesystem */
	return ret == -EEXIST ? 0 : ret;
}

static int watch_paths(struct vbctl *vb, int argc, char **argv,
		       struct barrier_req *r)
{
	size_t n = 0;
	int i, fd, ret;

	for (i = optind; i < argc; i++) {
		ret = vb_open_path(argv[i], &fd);
		if (ret)
			return ret;
		ret = watch_for_all(vb, fd);
		close(fd);
		if (ret)
			return vb_fail("barrier", argv[i], ret);
		n += snprintf(r->what + n, n < sizeof(r->what) ? sizeof(r->what) - n : 0,
			      "%s%s", i > optind ? ", " : "", argv[i]);
	}
	return VB_OK;
}

/* Every mounted filesystem someone watches, by one of its mount points. */
static int watch_tracked(struct vbctl *vb, struct barrier_req *r)
{
	struct vfsb_sb_stats *st;
	unsigned int i, n, count = 0;
	char devs[24], mnt[4096];
	int fd, ret = vfsb_stats(vb->dev, &st, &n), status = VB_OK;

	if (ret)
		return vb_fail("barrier", NULL, ret);
	for (i = 0; i < n; i++) {
		/* nothing runs on a filesystem shut down; a tracking without
		   watchers is being freed */
		if ((st[i].flags & VFSB_STATS_UNMOUNTED) || !st[i].watchers)
			continue;
		vb_dev_str(st[i].dev, devs);
		if (vb_mount_point(st[i].dev, mnt, sizeof(mnt))) {
			vb_err("barrier: %s (%s) is mounted nowhere this process sees: not waited for",
			       devs, st[i].fstype);
			status = VB_FAILED;
			continue;
		}
		if (vb_open_path(mnt, &fd)) {
			status = VB_USAGE;
			break;
		}
		ret = watch_for_all(vb, fd);
		close(fd);
		/* its last watcher may have gone meanwhile: nothing to wait for */
		if (ret && ret != -ENOENT) {
			status = vb_fail("barrier", mnt, ret);
			break;
		}
		count += !ret;
	}
	free(st);
	snprintf(r->what, sizeof(r->what), "every watched filesystem (%u)", count);
	return status;
}

int cmd_barrier(struct vbctl *vb, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "expedited", no_argument, NULL, 'e' },
		{ "all", no_argument, NULL, 'a' },
		{ "async", no_argument, NULL, 's' },
		{ "fence", no_argument, NULL, 'f' },
		VB_OPT_HELP, VB_OPT_END,
	};
	struct barrier_req r = { 0 };
	unsigned long long ms;
	int c, fd, ret, partial = VB_OK;

	vb_getopt_reset();
	while ((c = vb_getopt(argc, argv, opts, USAGE)) != -1) {
		switch (c) {
		case 'h':
			return VB_OK;
		case 't':
			if (vb_ms("--timeout", optarg, 0xffffffffULL, &ms))
				return VB_USAGE;
			r.timeout_ms = ms;
			break;
		case 'e':
			r.flags |= VFSB_BARRIER_EXPEDITED;
			break;
		case 'a':
			r.flags |= VFSB_BARRIER_ALL;
			break;
		case 's':
			r.async = true;
			break;
		case 'f':
			r.flags |= VFSB_BARRIER_FENCE;
			break;
		default:
			return VB_USAGE;
		}
	}
	if (r.async && (r.flags & VFSB_BARRIER_EXPEDITED)) {
		vb_err("barrier: --expedited does not apply to --async (usage: vbctl %s)",
		       USAGE);
		return VB_USAGE;
	}
	/* the kernel fences one filesystem, and only synchronously */
	if ((r.flags & VFSB_BARRIER_FENCE) &&
	    (r.async || (r.flags & VFSB_BARRIER_ALL))) {
		vb_err("barrier: --fence is for one PATH, without --async (usage: vbctl %s)",
		       USAGE);
		return VB_USAGE;
	}
	if (!(r.flags & VFSB_BARRIER_ALL) && optind != argc - 1) {
		vb_err("barrier: one PATH, or --all (usage: vbctl %s)", USAGE);
		return VB_USAGE;
	}
	if ((r.flags & VFSB_BARRIER_ALL) && vb->session && optind != argc) {
		vb_err("barrier: --all in a session is its watches: no PATH (usage: vbctl %s)",
		       USAGE);
		return VB_USAGE;
	}
	ret = vb_open(vb);
	if (ret)
		return ret;
	if (!(r.flags & VFSB_BARRIER_ALL)) {
		snprintf(r.what, sizeof(r.what), "%s", argv[optind]);
		ret = vb_open_path(argv[optind], &fd);
		if (ret)
			return ret;
		ret = run_barrier(vb, fd, &r);
		close(fd);
		return ret;
	}
	if (vb->session)
		snprintf(r.what, sizeof(r.what), "this session's watches");
	else if (optind < argc)
		partial = watch_paths(vb, argc, argv, &r);
	else
		partial = watch_tracked(vb, &r);
	/* a filesystem that could not be covered stops PATHs, not the rest */
	if (partial == VB_USAGE || (partial && optind < argc))
		return partial;
	ret = run_barrier(vb, -1, &r);
	return ret ? ret : partial;
}
