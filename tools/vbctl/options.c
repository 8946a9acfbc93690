// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing for the commands: getopt_long() with vbctl's messages
 * (not getopt's, which name the command as the program), a --help for
 * each command, and numbers that are numbers (strtoul() takes "abc" as
 * 0, which for --timeout would mean "no limit"): lib/parse.c, the
 * parser vbjournald uses too.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "vbctl.h"

void vb_getopt_reset(void)
{
	optind = 0;	/* GNU: start afresh, permutation state included */
	opterr = 0;
}

int vb_getopt(int argc, char **argv, const struct option *opts,
	      const char *usage)
{
	char shorts[64];
	size_t n = 0;
	int i, c;

	/* ':' first: a missing argument is ':', not '?' */
	shorts[n++] = ':';
	for (i = 0; opts[i].name && n + 3 < sizeof(shorts); i++) {
		if (!opts[i].flag && opts[i].val > 0 && opts[i].val < 128) {
			shorts[n++] = (char)opts[i].val;
			if (opts[i].has_arg == required_argument)
				shorts[n++] = ':';
		}
	}
	shorts[n] = 0;
	c = getopt_long(argc, argv, shorts, opts, NULL);
	if (c == 'h') {
		printf("usage: vbctl %s\n", usage);
		return 'h';
	}
	if (c == ':') {
		vb_err("%s: %s needs a value (usage: vbctl %s)", argv[0],
		       argv[optind - 1], usage);
		return '?';
	}
	if (c == '?') {
		if (optopt)
			vb_err("%s: unknown option '-%c' (usage: vbctl %s)",
			       argv[0], optopt, usage);
		else
			vb_err("%s: unknown option '%s' (usage: vbctl %s)",
			       argv[0], argv[optind - 1], usage);
	}
	return c;
}

int vb_json_command(struct vbctl *vb, int argc, char **argv, const char *usage,
		    bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		VB_OPT_HELP, VB_OPT_END,
	};
	int c;

	*json = false;
	vb_getopt_reset();
	while ((c = vb_getopt(argc, argv, opts, usage)) != -1) {
		if (c == 'h')
			return VB_HELP;
		if (c != 'j')
			return VB_USAGE;
		*json = true;
	}
	if (optind != argc) {
		vb_err("%s takes no arguments (usage: vbctl %s)", argv[0], usage);
		return VB_USAGE;
	}
	return vb_open(vb);
}

int vb_number(const char *opt, const char *arg, unsigned long long max,
	      unsigned long long *out)
{
	if (cli_parse_uint(arg, 0, max, out)) {
		vb_err("%s: '%s' is not a number from 0 to %llu", opt, arg, max);
		return VB_USAGE;
	}
	return VB_OK;
}

int vb_size(const char *opt, const char *arg, unsigned long long max,
	    unsigned long long *out)
{
	if (cli_parse_size(arg, 0, max, out)) {
		vb_err("%s: '%s' is not a number of bytes from 0 to %llu "
		       "(suffixes: K, M, G)", opt, arg, max);
		return VB_USAGE;
	}
	return VB_OK;
}

int vb_ms(const char *opt, const char *arg, unsigned long long max,
	  unsigned long long *out)
{
	if (cli_parse_ms(arg, 0, max, out)) {
		vb_err("%s: '%s' is not a number of milliseconds from 0 to "
		       "%llu (or with a unit: ms, s, m, h)", opt, arg, max);
		return VB_USAGE;
	}
	return VB_OK;
}
