// SPDX-License-Identifier: GPL-2.0
/*
 * A session: `vbctl watch PATH... --stdin` keeps its open file of
 * /dev/vfsbarrier, and so its watches, and runs the commands it reads
 * from stdin, one per line, on that open file: watch and unwatch change
 * its watches, list shows them (VFSB_IOC_LIST), barrier --all waits on
 * them. It ends at the end of its input or on SIGINT/SIGTERM, and its
 * watches with it. Arguments are separated by blanks (no quoting).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "vbctl.h"

#define MAX_ARGS 64

vb_cmd_fn session_command(const char *name)
{
	static const struct {
		const char *name;
		vb_cmd_fn fn;
	} cmds[] = {
		{ "watch", cmd_watch }, { "unwatch", cmd_unwatch },
		{ "list", cmd_list }, { "barrier", cmd_barrier },
		{ "stats", cmd_stats }, { "version", cmd_version },
		/* to say why not */
		{ "stream", cmd_stream },
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return cmds[i].fn;
	return NULL;
}

/* The words of line, in argv; how many (-1: too many). */
static int split(char *line, char **argv)
{
	char *save = NULL, *w;
	int argc = 0;

	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == MAX_ARGS)
			return -1;
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}

int session_run(struct vbctl *vb)
{
	char line[8192], *argv[MAX_ARGS + 1];
	int argc, ret, worst = VB_OK;
	size_t len;
	vb_cmd_fn fn;

	vb->session = true;
	while (fgets(line, sizeof(line), stdin)) {
		len = strlen(line);
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			vb_err("session: a command line longer than %zu bytes",
			       sizeof(line) - 2);
			return VB_USAGE;
		}
		argc = split(line, argv);
		if (!argc || argv[0][0] == '#')
			continue;
		fn = argc > 0 ? session_command(argv[0]) : NULL;
		if (argc < 0)
			vb_err("session: more than %d words on a line", MAX_ARGS);
		else if (!fn)
			vb_err("session: unknown command '%s' (watch, unwatch, list, barrier, stats, version)",
			       argv[0]);
		ret = fn ? fn(vb, argc, argv) : VB_USAGE;
		fflush(stdout);
		if (ret > worst)
			worst = ret;
	}
	return worst;
}
