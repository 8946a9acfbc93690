/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vbjournald and its service manager (notify.c): sd_notify(3) messages
 * (READY=1, STATUS=..., WATCHDOG=1, STOPPING=1, RELOADING=1) when
 * NOTIFY_SOCKET is set, nothing otherwise; and the watchdog interval
 * systemd asks for (WatchdogSec=). Through libsystemd where the build
 * has it (HAVE_LIBSYSTEMD: the packages, a dynamic build); the static
 * build (the guest's busybox, for which Debian ships no static
 * libsystemd) speaks the same documented datagram protocol itself.
 */
#ifndef VBJ_NOTIFY_H
#define VBJ_NOTIFY_H

#include <stdint.h>

/* One message, "KEY=value" lines (printf format). */
void vbjd_notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The watchdog's interval in microseconds for this process; 0: none. */
uint64_t vbjd_watchdog_usec(void);

#endif /* VBJ_NOTIFY_H */
