/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vbjournald's messages (log.c), with syslog priorities. On standard
 * error; when that is systemd's journal stream (JOURNAL_STREAM names its
 * device and inode, as systemd sets it for a service) each line starts
 * with the sd-daemon prefix "<N>" (N: the priority, sd-daemon(3)) and
 * the journal names the program; elsewhere (a terminal, a file) each
 * line starts with "vbjournald: ". Messages above the threshold
 * (LOG_INFO by default, LOG_DEBUG with --verbose) are not printed.
 */
#ifndef VBJ_LOG_H
#define VBJ_LOG_H

#include <stdbool.h>
#include <syslog.h>

/* Looks at JOURNAL_STREAM once; before any message. */
void vbjd_log_init(void);

/* Prints what is at priority max and below (LOG_ERR < LOG_DEBUG). */
void vbjd_log_level(int max);

void vbjd_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* VBJ_LOG_H */
