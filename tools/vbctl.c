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
#include <sys/ioctl.h>
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

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "version", cmd_version, "version                 module and ABI version" },
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
