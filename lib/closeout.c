// SPDX-License-Identifier: GPL-2.0
/* Checked output at exit; see cli.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int first_errno;	/* of a failed cli_flush_stdout() */

int cli_flush_stdout(void)
{
	if (fflush(stdout) == 0)
		return 0;
	if (!first_errno)
		first_errno = errno ? errno : EIO;
	return -first_errno;
}

/* 0, or -1 with errno (0 when only the stream's error flag said so). */
static int close_stream(FILE *f)
{
	bool failed_before = ferror(f);
	int ret;

	errno = 0;
	ret = fclose(f);
	if (ret == 0 && failed_before) {
		errno = 0;
		return -1;
	}
	return ret ? -1 : 0;
}

void cli_close_stdout(void)
{
	if (close_stream(stdout) && (errno ? errno : first_errno) != EPIPE) {
		if (!errno)
			errno = first_errno;
		if (errno)
			fprintf(stderr, "%s: write error: %s\n",
				program_invocation_short_name, strerror(errno));
		else
			fprintf(stderr, "%s: write error\n",
				program_invocation_short_name);
		_exit(1);
	}
	if (close_stream(stderr))
		_exit(1);
}
