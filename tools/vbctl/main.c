// SPDX-License-Identifier: GPL-2.0
/*
 * vbctl: the command-line front end of /dev/vfsbarrier, one subcommand
 * per ioctl of include/uapi/linux/vfsbarrier.h (through libvfsb).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "vbctl.h"

static const struct command {
	const char *name;
	vb_cmd_fn fn;
	const char *help;
} commands[] = {
	{ "version", cmd_version,
	  "version [--json]\n"
	  "      module version, ABI and features (GET_VERSION)" },
	{ "watch", cmd_watch,
	  "watch PATH... [--stdin | --follow]\n"
	  "      watch these filesystems (WATCH) for as long as vbctl runs: a watch\n"
	  "      belongs to the open device and ends with it; until SIGINT/SIGTERM, or\n"
	  "      with --stdin until the end of its input, running the commands it\n"
	  "      reads there (one per line: watch, unwatch, list, barrier, stats,\n"
	  "      version) on its own watches; --follow: each PATH is a mount point,\n"
	  "      and whatever is mounted there is watched, across unmounts and\n"
	  "      remounts (one line each: watching, unmounted)" },
	{ "unwatch", cmd_unwatch,
	  "unwatch PATH...\n"
	  "      stop watching (UNWATCH): only in a watch --stdin session, whose\n"
	  "      watches they are; a vbctl run alone has none to undo" },
	{ "list", cmd_list,
	  "list [--json]\n"
	  "      in a watch --stdin session: its watches (LIST); run alone: every\n"
	  "      filesystem the module tracks, whoever watches it (from STATS)" },
	{ "barrier", cmd_barrier,
	  "barrier PATH | --all [PATH...]  [--timeout MS] [--expedited | --async]\n"
	  "        [--fence]\n"
	  "      wait for every write in flight on PATH's filesystem (BARRIER);\n"
	  "      --all: on several (BARRIER_ALL): a session's watches, else the\n"
	  "      PATHs' filesystems or, with none, every watched filesystem;\n"
	  "      --async: start it (BARRIER_START) and poll its cookie (BARRIER_POLL);\n"
	  "      --timeout: give up after MS milliseconds (0: never);\n"
	  "      --fence: also every write begun before the watch (FENCE)" },
	{ "stats", cmd_stats,
	  "stats [--json]\n"
	  "      counters of every tracked filesystem (STATS), all of them" },
	{ "stream", cmd_stream,
	  "stream PATH... [--json] [--reasons LIST] [--coalesce] [--ring BYTES] [--count N]\n"
	  "      watch the PATHs' filesystems and print their pre-modify records\n"
	  "      (SUBSCRIBE, read) until interrupted or N records; LIST: reasons\n"
	  "      separated by commas (create,delete,...)" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: vbctl COMMAND [ARGS]   (vbctl COMMAND --help: its usage)\n"
		"       vbctl --help | --version\n"
		"Every command needs root: /dev/vfsbarrier is root-only.\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %s\n", commands[i].help);
	fprintf(f, "\nexit status:\n"
		"  0  done\n"
		"  1  the operation failed: the kernel refused it, a barrier timed out,\n"
		"     nobody watches the filesystem, a session command failed\n"
		"  2  usage or environment error: unknown command or option, a bad\n"
		"     number, no such PATH, the module not loaded, not root\n");
}

int main(int argc, char **argv)
{
	struct vbctl vb = { .dev = -1 };
	size_t i;
	int ret;

	atexit(cli_close_stdout);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? VB_USAGE : VB_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		/* the tool's; vbctl version asks the module for its own */
		printf("vbctl %s\n", VFSB_VERSION);
		return VB_OK;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		ret = commands[i].fn(&vb, argc - 1, argv + 1);
		if (vb.dev >= 0)
			close(vb.dev);
		return ret;
	}
	vb_err("unknown command '%s' (vbctl --help lists them)", argv[1]);
	return VB_USAGE;
}
