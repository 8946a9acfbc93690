// SPDX-License-Identifier: GPL-2.0
/* The test's own threads and privileges; see task.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "task.h"

int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return -errno;
	return 0;
}

/* Waits until the stat file at path says one of states (ms at most). */
static int wait_stat_state(const char *path, const char *states, int ms)
{
	char buf[256], *p;
	int i;

	for (i = 0; i < ms; i++) {
		FILE *f = fopen(path, "r");

		if (!f)
			return -1;
		/* the state follows the command name, which may hold ") " */
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && p[1] == ' ' && p[2] && strchr(states, p[2]))
			return 0;
		usleep(1000);
	}
	return -1;
}

static int wait_stat_sleeping(const char *path)
{
	return wait_stat_state(path, "SD", 10000);
}

int wait_proc_state(pid_t pid, const char *states, int ms)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return wait_stat_state(path, states, ms);
}

int wait_sleeping(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	return wait_stat_sleeping(path);
}

int wait_proc_sleeping(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return wait_stat_sleeping(path);
}
