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
#include <strings.h>
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
		printf("%-9s %-8s %8s %12s %12s %9s %9s %12s %7s %10s %8s\n",
		       "DEV", "FSTYPE", "WATCHERS", "BEGUN", "ENDED", "INFLIGHT",
		       "BARRIERS", "AVG_WAIT_US", "MISSED", "RECORDS", "LOST");
	for (i = 0; i < req.count; i++) {
		const struct vfsb_sb_stats *s = &st[i];
		double avg = s->barriers ? s->barrier_wait_ns / 1e3 / s->barriers : 0;

		if (json) {
			printf("%s{\"dev\":\"%u:%u\",\"fstype\":\"%s\",\"watchers\":%u,"
			       "\"unmounted\":%s,\"sections_begun\":%llu,"
			       "\"sections_ended\":%llu,\"in_flight\":%llu,"
			       "\"barriers\":%llu,\"barrier_wait_ns\":%llu,"
			       "\"missed\":%llu,\"records\":%llu,\"records_lost\":%llu}",
			       i ? "," : "",
			       major(s->dev), minor(s->dev), s->fstype, s->watchers,
			       s->flags & VFSB_STATS_UNMOUNTED ? "true" : "false",
			       (unsigned long long)s->sections_begun,
			       (unsigned long long)s->sections_ended,
			       (unsigned long long)s->in_flight,
			       (unsigned long long)s->barriers,
			       (unsigned long long)s->barrier_wait_ns,
			       (unsigned long long)s->missed,
			       (unsigned long long)s->records,
			       (unsigned long long)s->records_lost);
		} else {
			char devs[24];

			snprintf(devs, sizeof(devs), "%u:%u", major(s->dev),
				 minor(s->dev));
			printf("%-9s %-8s %8u %12llu %12llu %9llu %9llu %12.1f %7llu %10llu %8llu%s\n",
			       devs, s->fstype, s->watchers,
			       (unsigned long long)s->sections_begun,
			       (unsigned long long)s->sections_ended,
			       (unsigned long long)s->in_flight,
			       (unsigned long long)s->barriers, avg,
			       (unsigned long long)s->missed,
			       (unsigned long long)s->records,
			       (unsigned long long)s->records_lost,
			       s->flags & VFSB_STATS_UNMOUNTED ? " (unmounted)" : "");
		}
	}
	if (json)
		printf("]\n");
	return 0;
}

static const char *const reason_names[] = {
	"create", "delete", "rename_from", "rename_to", "hardlink",
	"attrib", "truncate", "xattr", "data_write", "mmap_write",
};
#define NR_REASONS (sizeof(reason_names) / sizeof(reason_names[0]))

static __u32 parse_reasons(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	__u32 mask = 0;
	size_t i;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_REASONS; i++)
			if (!strcasecmp(tok, reason_names[i]))
				break;
		if (i == NR_REASONS) {
			fprintf(stderr, "%s: unknown reason '%s' (one of:", prog, tok);
			for (i = 0; i < NR_REASONS; i++)
				fprintf(stderr, " %s", reason_names[i]);
			fprintf(stderr, ")\n");
			exit(2);
		}
		mask |= 1U << i;
	}
	free(copy);
	return mask;
}

static void print_reasons(__u32 r, char *out, size_t sz)
{
	size_t i, n = 0;

	out[0] = 0;
	for (i = 0; i < NR_REASONS; i++)
		if (r & (1U << i))
			n += snprintf(out + n, n < sz ? sz - n : 0, "%s%s",
				      n ? "|" : "", reason_names[i]);
}

/* Watched filesystems: a directory fd on each, for open_by_handle_at. */
struct stream_fs {
	__u32 dev;
	int fd;
};

static struct stream_fs stream_fs[64];
static int nr_stream_fs;

/* The path a handle item names now, or NULL. */
static const char *handle_path(const struct vfsb_record *r,
			       struct vfsb_rec_item *it, char *buf, size_t sz)
{
	char proc[64];
	ssize_t n;
	int i, fd;

	if (!it)
		return NULL;
	for (i = 0; i < nr_stream_fs; i++)
		if (stream_fs[i].dev == r->dev)
			break;
	if (i == nr_stream_fs)
		return NULL;
	fd = open_by_handle_at(stream_fs[i].fd, vfsb_item_data(it), O_PATH);
	if (fd < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sz - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

static struct vfsb_rec_item *find_item(struct vfsb_record *r, int type)
{
	struct vfsb_rec_item *it = vfsb_rec_first_item(r);
	__u32 i;

	for (i = 0; i < r->nr_items; i++, it = vfsb_rec_next_item(it))
		if (it->type == type)
			return it;
	return NULL;
}

static void json_string(const char *s, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void print_record(struct vfsb_record *r, int json)
{
	struct vfsb_rec_item *name = find_item(r, VFSB_ITEM_NAME);
	char reasons[160], parent[4096], object[4096];
	const char *pp, *op;

	if (r->type == VFSB_REC_OVERFLOW) {
		struct vfsb_rec_item *devs = find_item(r, VFSB_ITEM_DEVS);
		__u32 *d = devs ? vfsb_item_data(devs) : NULL;
		unsigned int i, n = devs ? devs->len / 4 : 0;

		if (json) {
			printf("{\"type\":\"overflow\",\"seq\":%llu,\"lost\":%llu,\"devs\":[",
			       (unsigned long long)r->seq, (unsigned long long)r->lost);
			for (i = 0; i < n; i++)
				printf("%s\"%u:%u\"", i ? "," : "", major(d[i]), minor(d[i]));
			printf("],\"more_devs\":%s}\n",
			       r->flags & VFSB_RECF_MORE_DEVS ? "true" : "false");
		} else {
			printf("!!! OVERFLOW: %llu records lost on", (unsigned long long)r->lost);
			for (i = 0; i < n; i++)
				printf(" %u:%u", major(d[i]), minor(d[i]));
			printf("%s: rescan these filesystems\n",
			       r->flags & VFSB_RECF_MORE_DEVS ? " and more" : "");
		}
		fflush(stdout);
		return;
	}
	print_reasons(r->reasons, reasons, sizeof(reasons));
	pp = handle_path(r, find_item(r, VFSB_ITEM_PARENT_FH), parent, sizeof(parent));
	op = handle_path(r, find_item(r, VFSB_ITEM_OBJECT_FH), object, sizeof(object));
	if (json) {
		printf("{\"type\":\"change\",\"seq\":%llu,\"time_ns\":%llu,\"dev\":\"%u:%u\","
		       "\"reasons\":\"%s\",\"dir\":%s,\"parent_ino\":%llu,\"ino\":%llu,"
		       "\"pid\":%u,\"tid\":%u,\"uid\":%u",
		       (unsigned long long)r->seq, (unsigned long long)r->time_ns,
		       major(r->dev), minor(r->dev), reasons,
		       r->flags & VFSB_RECF_DIR ? "true" : "false",
		       (unsigned long long)r->parent_ino, (unsigned long long)r->ino,
		       r->pid, r->tid, r->uid);
		if (name) {
			printf(",\"name\":");
			json_string(vfsb_item_data(name), name->len);
		}
		if (pp) {
			printf(",\"parent_path\":");
			json_string(pp, strlen(pp));
		}
		if (op) {
			printf(",\"path\":");
			json_string(op, strlen(op));
		}
		if (r->cookie)
			printf(",\"cookie\":%llu", (unsigned long long)r->cookie);
		if (r->reasons & (VFSB_R_DATA_WRITE | VFSB_R_MMAP_WRITE))
			printf(",\"offset\":%llu,\"length\":%llu",
			       (unsigned long long)r->offset, (unsigned long long)r->length);
		printf("}\n");
	} else {
		printf("%6llu %-12s%s %s", (unsigned long long)r->seq, reasons,
		       r->flags & VFSB_RECF_DIR ? " dir" : "",
		       pp ? pp : "?");
		if (name)
			printf(" name=%.*s", name->len, (char *)vfsb_item_data(name));
		if (op && !name)
			printf(" path=%s", op);
		if (r->cookie)
			printf(" cookie=%llu", (unsigned long long)r->cookie);
		if (r->reasons & (VFSB_R_DATA_WRITE | VFSB_R_MMAP_WRITE))
			printf(" range=%llu+%llu", (unsigned long long)r->offset,
			       (unsigned long long)r->length);
		if (r->flags & VFSB_RECF_NO_HANDLE)
			printf(" (no handle: parent ino %llu)",
			       (unsigned long long)r->parent_ino);
		printf(" pid=%u\n", r->pid);
	}
	fflush(stdout);
}

static int cmd_stream(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "reasons", required_argument, NULL, 'r' },
		{ "coalesce", no_argument, NULL, 'c' },
		{ "ring", required_argument, NULL, 'b' },
		{ "count", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	struct vfsb_subscribe sub = { 0 };
	static char buf[1 << 16];
	long count = -1;
	int dev, c, json = 0, i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jr:cb:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'r':
			sub.reasons = parse_reasons(optarg);
			break;
		case 'c':
			sub.flags |= VFSB_SUB_COALESCE;
			break;
		case 'b':
			sub.ring_bytes = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			count = strtol(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: %s stream PATH... [--json] [--reasons LIST] [--coalesce] [--ring BYTES] [--count N]\n",
			prog);
		return 2;
	}
	dev = open_device();
	for (i = optind; i < argc && nr_stream_fs < 64; i++) {
		struct vfsb_watch w = { .fd = open_path(argv[i]) };

		if (ioctl(dev, VFSB_IOC_WATCH, &w) && errno != EEXIST)
			die_ioctl("watch", argv[i]);
		close(w.fd);
		stream_fs[nr_stream_fs].dev = w.dev;
		stream_fs[nr_stream_fs].fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		nr_stream_fs++;
	}
	if (ioctl(dev, VFSB_IOC_SUBSCRIBE, &sub)) {
		fprintf(stderr, "%s: subscribe: %s\n", prog, strerror(errno));
		return 1;
	}
	if (!json)
		fprintf(stderr, "streaming (journal id %016llx); Ctrl-C to stop\n",
			(unsigned long long)sub.journal_id);
	/* no SA_RESTART: a signal ends the blocking read */
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = on_signal }, NULL);
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_signal }, NULL);
	while (count != 0) {
		ssize_t n, off = 0;

		/* once told to stop, print what is already there, then exit */
		if (stop)
			fcntl(dev, F_SETFL, O_NONBLOCK);
		n = read(dev, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN && stop)
				break;
			fprintf(stderr, "%s: read: %s\n", prog, strerror(errno));
			return 1;
		}
		while (off < n && count != 0) {
			struct vfsb_record *r = (void *)(buf + off);

			print_record(r, json);
			off += r->size;
			if (count > 0)
				count--;
		}
	}
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
	{ "stream", cmd_stream, "stream PATH... [--json] [--reasons LIST] [--coalesce] [--ring BYTES] [--count N]  pre-modify records" },
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
