// SPDX-License-Identifier: GPL-2.0
/*
 * vbctl watch, unwatch, list: VFSB_IOC_WATCH, _UNWATCH and _LIST.
 *
 * A watch belongs to an open file of /dev/vfsbarrier and ends when it is
 * closed, that is when the vbctl that made it exits: `vbctl watch` stays
 * until it is told to stop. So unwatch and list mean something only in
 * the process that watches: in a session of `vbctl watch --stdin`
 * (session.c) they act on its watches; run alone, unwatch has nothing
 * to undo and says so, and list shows what the module tracks, whoever
 * watches it (VFSB_IOC_STATS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vfsb.h"
#include "jw.h"
#include "vbctl.h"

#define WATCH_USAGE "watch PATH... [--stdin | --follow]"
#define UNWATCH_USAGE "unwatch PATH..."
#define LIST_USAGE "list [--json]"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* SIGINT and SIGTERM end a wait (pause(), read()): no SA_RESTART. */
static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Watches or unwatches each path; stops at the first failure. */
static int each_path(struct vbctl *vb, int argc, char **argv, bool watch)
{
	char devs[24];
	__u32 sbdev;
	int i, fd, ret;

	for (i = optind; i < argc; i++) {
		ret = vb_open_path(argv[i], &fd);
		if (ret)
			return ret;
		ret = watch ? vfsb_watch_fd(vb->dev, fd, &sbdev) :
			      vfsb_unwatch_fd(vb->dev, fd, &sbdev);
		close(fd);
		if (!watch && ret == -ENOENT) {
			if (vb->session)
				vb_err("unwatch: %s: this session does not watch it",
				       argv[i]);
			else
				vb_err("unwatch: %s: not watched by this vbctl: a watch belongs to the process that made it (stop that 'vbctl watch', or send 'unwatch PATH' to one started with --stdin)",
				       argv[i]);
			return VB_FAILED;
		}
		if (ret)
			return vb_fail(watch ? "watch" : "unwatch", argv[i], ret);
		printf("%s %s (dev %s)\n", watch ? "watching" : "unwatched",
		       argv[i], vb_dev_str(sbdev, devs));
	}
	fflush(stdout);
	return VB_OK;
}

int cmd_watch(struct vbctl *vb, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "stdin", no_argument, NULL, 's' },
		{ "follow", no_argument, NULL, 'f' },
		VB_OPT_HELP, VB_OPT_END,
	};
	bool commands = false, follow = false;
	const char *bad = NULL;
	int c, ret;

	vb_getopt_reset();
	while ((c = vb_getopt(argc, argv, opts, WATCH_USAGE)) != -1) {
		if (c == 'h')
			return VB_OK;
		if (c == 's')
			commands = true;
		else if (c == 'f')
			follow = true;
		else
			return VB_USAGE;
	}
	if (optind == argc)
		bad = "no PATH";
	else if ((commands || follow) && vb->session)
		bad = "--stdin, --follow: this is a session already";
	else if (commands && follow)
		bad = "--stdin and --follow do not go together";
	if (bad) {
		vb_err("watch: %s (usage: vbctl %s)", bad, WATCH_USAGE);
		return VB_USAGE;
	}
	/* before "watching": a script may signal as soon as it reads that */
	if (!vb->session)
		catch_stop_signals();
	ret = vb_open(vb);
	if (!ret && follow)
		return follow_run(vb, argc, argv, &stop);
	if (!ret)
		ret = each_path(vb, argc, argv, true);
	if (ret || vb->session)
		return ret;
	if (commands)
		return session_run(vb);
	/* the watches last as long as this process */
	while (!stop)
		pause();
	return VB_OK;
}

int cmd_unwatch(struct vbctl *vb, int argc, char **argv)
{
	static const struct option opts[] = { VB_OPT_HELP, VB_OPT_END };
	int c, ret;

	vb_getopt_reset();
	while ((c = vb_getopt(argc, argv, opts, UNWATCH_USAGE)) != -1)
		return c == 'h' ? VB_OK : VB_USAGE;
	if (optind == argc) {
		vb_err("unwatch: no PATH (usage: vbctl %s)", UNWATCH_USAGE);
		return VB_USAGE;
	}
	ret = vb_open(vb);
	return ret ? ret : each_path(vb, argc, argv, false);
}

/* The tracked filesystem with this dev, a mounted one if there is one. */
static const struct vfsb_sb_stats *find_stats(const struct vfsb_sb_stats *st,
					      unsigned int n, __u32 dev)
{
	const struct vfsb_sb_stats *found = NULL;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (st[i].dev != dev)
			continue;
		found = &st[i];
		if (!(st[i].flags & VFSB_STATS_UNMOUNTED))
			break;
	}
	return found;
}

static void list_row(struct jw *j, __u32 dev, const struct vfsb_sb_stats *s)
{
	bool unmounted = s && (s->flags & VFSB_STATS_UNMOUNTED);
	char devs[24], mnt[4096];
	bool mounted = !unmounted && !vb_mount_point(dev, mnt, sizeof(mnt));

	vb_dev_str(dev, devs);
	if (!j) {
		printf("%-9s %-8s %8u %s\n", devs, s ? s->fstype : "?",
		       s ? s->watchers : 0,
		       mounted ? mnt : unmounted ? "(unmounted)" : "?");
		return;
	}
	jw_obj(j, NULL);
	jw_str(j, "dev", devs);
	if (s) {
		jw_str(j, "fstype", s->fstype);
		jw_uint(j, "watchers", s->watchers);
	} else {
		jw_null(j, "fstype");
		jw_null(j, "watchers");
	}
	jw_bool(j, "unmounted", unmounted);
	if (mounted)
		jw_str(j, "mount", mnt);
	else
		jw_null(j, "mount");
	jw_end(j);
}

int cmd_list(struct vbctl *vb, int argc, char **argv)
{
	struct vfsb_sb_stats *st = NULL;
	unsigned int i, nst = 0, ndevs = 0;
	__u32 *devs = NULL;
	bool json;
	struct jw j;
	int ret;

	ret = vb_json_command(vb, argc, argv, LIST_USAGE, &json);
	if (ret)
		return ret == VB_HELP ? VB_OK : ret;
	ret = vfsb_stats(vb->dev, &st, &nst);
	/* a session lists its own watches, a lone vbctl what is tracked */
	if (!ret && vb->session)
		ret = vfsb_list(vb->dev, &devs, &ndevs);
	if (ret) {
		free(st);
		return vb_fail("list", NULL, ret);
	}
	if (json) {
		jw_init(&j, stdout, true);
		jw_arr(&j, NULL);
	} else {
		printf("%-9s %-8s %8s %s\n", "DEV", "FSTYPE", "WATCHERS", "MOUNT");
	}
	for (i = 0; i < (vb->session ? ndevs : nst); i++) {
		__u32 dev = vb->session ? devs[i] : st[i].dev;

		list_row(json ? &j : NULL, dev,
			 vb->session ? find_stats(st, nst, dev) : &st[i]);
	}
	free(st);
	free(devs);
	if (json) {
		jw_end(&j);
		return jw_close(&j) ? VB_FAILED : VB_OK;
	}
	fflush(stdout);
	return VB_OK;
}
