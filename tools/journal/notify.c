// SPDX-License-Identifier: GPL-2.0
/* vbjournald and its service manager; see notify.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notify.h"

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>

static void send_state(const char *msg)
{
	sd_notify(0, msg);
}

uint64_t vbjd_watchdog_usec(void)
{
	uint64_t usec = 0;

	return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
}
#else
#include <sys/socket.h>
#include <sys/un.h>

/* sd_notify(3)'s protocol: one datagram to $NOTIFY_SOCKET. */
static void send_state(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    strlen(path) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, path);
	if (path[0] == '@')
		sa.sun_path[0] = 0;	/* abstract namespace */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
	       sizeof(sa));
	close(fd);
}

/* sd_watchdog_enabled(3): WATCHDOG_USEC, for WATCHDOG_PID if set. */
uint64_t vbjd_watchdog_usec(void)
{
	const char *usec = getenv("WATCHDOG_USEC");
	const char *pid = getenv("WATCHDOG_PID");
	unsigned long long v;
	char *end;

	if (!usec)
		return 0;
	if (pid && strtol(pid, NULL, 10) != getpid())
		return 0;
	v = strtoull(usec, &end, 10);
	return *end ? 0 : v;
}
#endif

void vbjd_notify(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	send_state(msg);
}
