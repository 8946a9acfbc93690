// SPDX-License-Identifier: GPL-2.0
/* vbjournald's messages; see log.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "log.h"

static bool journal_stream;
static int level = LOG_INFO;

void vbjd_log_init(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	/* "DEV:INO" of the stream systemd connected (systemd.exec(5)) */
	journal_stream = env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 &&
			 !fstat(2, &st) && st.st_dev == dev && st.st_ino == ino;
}

void vbjd_log_level(int max)
{
	level = max;
}

void vbjd_log(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio > level)
		return;
	if (journal_stream)
		fprintf(stderr, "<%d>", prio);
	else
		fputs("vbjournald: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
