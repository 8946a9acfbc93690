/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the command-line tools (vbctl, vbjournal, vbjournald) share
 * beyond the device: checked output at exit (closeout.c), names
 * escaped for text output (escape.c), numbers and the like parsed
 * strictly (parse.c), usage errors (usage.c), the exit statuses of a
 * journal's failures (jexit.c). One
 * implementation each, so that the tools agree.
 */
#ifndef VFSB_CLI_H
#define VFSB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The release (dkms.conf's PACKAGE_VERSION, from tools/Makefile). */
#ifndef VFSB_VERSION
#define VFSB_VERSION "unknown"
#endif

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

/*
 * Values from options and config files, in [min, max]: 0, -EINVAL when
 * s is not one (the caller says what it wanted), -ERANGE when it is
 * outside [min, max]. Decimal digits only: no sign, no blanks, no "0x",
 * no octal, no exponent.
 *   uint: a plain number;
 *   size: bytes, with K, M, G or T (or KiB... TiB): powers of 1024;
 *   ms:   milliseconds, with ms, s, m or min, h (none: milliseconds);
 *   bool: yes/no, true/false, on/off, 1/0 (any case).
 */
int cli_parse_uint(const char *s, unsigned long long min,
		   unsigned long long max, unsigned long long *out);
int cli_parse_size(const char *s, unsigned long long min,
		   unsigned long long max, unsigned long long *out);
int cli_parse_ms(const char *s, unsigned long long min, unsigned long long max,
		 unsigned long long *out);
int cli_parse_bool(const char *s, bool *out);

/*
 * The exit status of vbjournal, vbjournal mirror and vbjournal-publish
 * for a failure libvbjournal reports as -err (jexit.c, vbjournal(1)):
 * 4 no journal (-ENOENT), 5 permission denied (-EACCES), 6 not a
 * journal (-EMEDIUMTYPE), 7 empty (-ENODATA), 8 truncated (-EBADMSG),
 * 9 corrupt (-EUCLEAN), 1 anything else.
 */
int cli_journal_exit(int err);

/*
 * A usage error (usage.c): "PROG: what is wrong (PROG --help: usage)"
 * on stderr. Returns 2, the usage exit status of every tool.
 */
int cli_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* VFSB_CLI_H */
