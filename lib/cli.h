/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the command-line tools (vbctl, vbjournal, vbjournald) share
 * beyond the device: checked output at exit (closeout.c), names
 * escaped for text output (escape.c). One
 * implementation each, so that the tools agree.
 */
#ifndef VFSB_CLI_H
#define VFSB_CLI_H

#include <stddef.h>
#include <stdio.h>

/*
 * An atexit() handler: flushes and closes stdout, then stderr. When a
 * write to stdout failed (now or earlier: ferror) it says "PROG: write
 * error" (and why, when known) on stderr and the exit status becomes 1,
 * so that no tool exits 0 with its answer lost (a full disk, a closed
 * descriptor). A reader that went away (EPIPE, with SIGPIPE ignored)
 * is not an error, as in util-linux's close_stdout().
 */
void cli_close_stdout(void);
/* fflush(stdout) for output that goes on (follow, stream): 0, or -errno
   (remembered for cli_close_stdout()'s message). */
int cli_flush_stdout(void);

/*
 * len bytes of a name (a path: any byte but NUL) on f, so that it stays
 * on one line and reads back exactly (escape.c): \\ for a backslash;
 * \a \b \t \n \v \f \r for those control characters; \xNN for the
 * other control characters (below 0x20, and 0x7f) and for each byte
 * that is not part of valid UTF-8. Everything else as it is. The man
 * pages of vbjournal and vbctl say the same. 0, or EOF on error.
 */
int cli_escape(FILE *f, const char *s, size_t len);

#endif /* VFSB_CLI_H */
