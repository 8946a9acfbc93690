// SPDX-License-Identifier: GPL-2.0
/* A usage error as every command-line tool says it; see cli.h. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

int cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (%s --help: usage)\n", prog);
	return 2;
}
