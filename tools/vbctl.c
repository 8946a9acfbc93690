// SPDX-License-Identifier: GPL-2.0
/*
 * vbctl: command-line front end of /dev/vfsbarrier.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/vfsbarrier.h>

static const char *prog = "vbctl";

static int open_device(void)
{
	int fd = open(VFSB_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		fprintf(stderr, "%s: %s not found: is the vfsbarrier module loaded? (modprobe vfsbarrier)\n",
			prog, VFSB_DEVICE_PATH);
	else if (errno == EACCES || errno == EPERM)
		fprintf(stderr, "%s: %s: permission denied: vbctl must run as root\n",
			prog, VFSB_DEVICE_PATH);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, VFSB_DEVICE_PATH,
			strerror(errno));
	exit(2);
}

static int cmd_version(int argc, char **argv)
{
	struct vfsb_version v;
	int fd = open_device();

	(void)argc;
	(void)argv;
	if (ioctl(fd, VFSB_IOC_GET_VERSION, &v)) {
		fprintf(stderr, "%s: version: %s\n", prog, strerror(errno));
		return 1;
	}
	printf("vfsbarrier module %s, ABI %u\n", v.module_version, v.abi_version);
	return 0;
}

static int open_path(const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(2);
	}
	return fd;
}

static void die_ioctl(const char *what, const char *path)
{
	int e = errno;

	if (e == ENOENT)
		fprintf(stderr, "%s: %s: %s: no one watches this filesystem (run 'vbctl watch %s' first)\n",
			prog, what, path, path);
	else if (e == EPERM)
		fprintf(stderr, "%s: %s: permission denied: vbctl must run as root\n",
			prog, what);
	else if (e == ETIMEDOUT)
		fprintf(stderr, "%s: %s: %s: timed out; writes are still in flight\n",
			prog, what, path);
	else
		fprintf(stderr, "%s: %s: %s: %s\n", prog, what, path, strerror(e));
	exit(1);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Watches lapse when the device is closed, so this stays until a signal. */
static int cmd_watch(int argc, char **argv)
{
	int dev = open_device();
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s watch PATH...\n", prog);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct vfsb_watch w = { .fd = open_path(argv[i]) };

		if (ioctl(dev, VFSB_IOC_WATCH, &w))
			die_ioctl("watch", argv[i]);
		printf("watching %s (dev %u:%u)\n", argv[i], major(w.dev),
		       minor(w.dev));
		close(w.fd);
	}
	fflush(stdout);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop)
		pause();
	return 0;
}

static int cmd_barrier(int argc, char **argv)
{
	struct vfsb_barrier b = { 0 };
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "expedited", no_argument, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	int dev, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "t:e", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			b.timeout_ms = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			b.flags |= VFSB_BARRIER_EXPEDITED;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s barrier PATH [--timeout MS] [--expedited]\n",
			prog);
		return 2;
	}
	dev = open_device();
	b.fd = open_path(argv[optind]);
	if (ioctl(dev, VFSB_IOC_BARRIER, &b))
		die_ioctl("barrier", argv[optind]);
	printf("barrier on %s complete after %.3f ms\n", argv[optind],
	       b.waited_ns / 1e6);
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	struct vfsb_sb_stats st[256];
	struct vfsb_stats req = {
		.capacity = 256,
		.entries_ptr = (unsigned long)st,
	};
	int json = argc > 1 && !strcmp(argv[1], "--json");
	int dev = open_device();
	unsigned int i;

	if (ioctl(dev, VFSB_IOC_STATS, &req)) {
		fprintf(stderr, "%s: stats: %s\n", prog, strerror(errno));
		return 1;
	}
	if (req.count > req.capacity)
		req.count = req.capacity;
	if (json)
		printf("[");
	else
		printf("%-9s %-8s %8s %12s %12s %9s %9s %12s %7s\n", "DEV", "FSTYPE",
		       "WATCHERS", "BEGUN", "ENDED", "INFLIGHT", "BARRIERS",
		       "AVG_WAIT_US", "MISSED");
	for (i = 0; i < req.count; i++) {
		const struct vfsb_sb_stats *s = &st[i];
		double avg = s->barriers ? s->barrier_wait_ns / 1e3 / s->barriers : 0;

		if (json) {
			printf("%s{\"dev\":\"%u:%u\",\"fstype\":\"%s\",\"watchers\":%u,"
			       "\"unmounted\":%s,\"sections_begun\":%llu,"
			       "\"sections_ended\":%llu,\"in_flight\":%llu,"
			       "\"barriers\":%llu,\"barrier_wait_ns\":%llu,"
			       "\"missed\":%llu}", i ? "," : "",
			       major(s->dev), minor(s->dev), s->fstype, s->watchers,
			       s->flags & VFSB_STATS_UNMOUNTED ? "true" : "false",
			       (unsigned long long)s->sections_begun,
			       (unsigned long long)s->sections_ended,
			       (unsigned long long)s->in_flight,
			       (unsigned long long)s->barriers,
			       (unsigned long long)s->barrier_wait_ns,
			       (unsigned long long)s->missed);
		} else {
			char devs[24];

			snprintf(devs, sizeof(devs), "%u:%u", major(s->dev),
				 minor(s->dev));
			printf("%-9s %-8s %8u %12llu %12llu %9llu %9llu %12.1f %7llu%s\n",
			       devs, s->fstype, s->watchers,
			       (unsigned long long)s->sections_begun,
			       (unsigned long long)s->sections_ended,
			       (unsigned long long)s->in_flight,
			       (unsigned long long)s->barriers, avg,
			       (unsigned long long)s->missed,
			       s->flags & VFSB_STATS_UNMOUNTED ? " (unmounted)" : "");
		}
	}
	if (json)
		printf("]\n");
	return 0;
}

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "version", cmd_version, "version                 module and ABI version" },
	{ "watch", cmd_watch, "watch PATH...           watch these filesystems until interrupted" },
	{ "barrier", cmd_barrier, "barrier PATH [--timeout MS] [--expedited]  wait for writes in flight" },
	{ "stats", cmd_stats, "stats [--json]          per-filesystem section and barrier counters" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND [ARGS]\ncommands:\n", prog);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s\n", commands[i].help);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
