// SPDX-License-Identifier: GPL-2.0
/*
 * svcrun: runs a command as systemd runs a Type=notify service with a
 * file descriptor store (selftests/svcmgr.c), for the crash test's
 * restart mode: SIGUSR2 restarts the service (SIGTERM, wait, start
 * again with the stored descriptor), as `systemctl restart` does;
 * SIGTERM stops it and svcrun. A service that fails, or stops with a
 * failure, is started again 2 s later (Restart=on-failure, RestartSec=
 * 2s, as vbjournald.service has). The service's output goes where
 * svcrun's does.
 *
 * Usage: svcrun NOTIFY_SOCKET_PATH COMMAND [ARG...]
 * SVCRUN_NO_STORE=1: FileDescriptorStoreMax=0 (the negative control).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "svcmgr.h"

static volatile sig_atomic_t want_restart, want_stop;

static void on_signal(int sig)
{
	if (sig == SIGUSR2)
		want_restart = 1;
	else if (sig == SIGTERM)
		want_stop = 1;
	/* SIGCHLD: only to wake sigsuspend() */
}

static pid_t start(struct svcmgr *m, char **argv)
{
	pid_t pid = fork();

	if (!pid) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		svcmgr_child(m, true);
		execvp(argv[0], argv);
		fprintf(stderr, "svcrun: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct svcmgr m;
	sigset_t block, old;
	int restarts = 0, status, ret;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: svcrun NOTIFY_SOCKET_PATH COMMAND "
			"[ARG...]\n");
		return 2;
	}
	ret = svcmgr_start(&m, argv[1], !getenv("SVCRUN_NO_STORE"));
	if (ret) {
		fprintf(stderr, "svcrun: %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	pid = start(&m, argv + 2);
	while (!want_stop) {
		bool ended;

		/* a signal, or the service's end, wakes it */
		sigsuspend(&old);
		ended = waitpid(pid, &status, WNOHANG) == pid;
		if (!ended && !want_restart)
			continue;
		if (!ended) {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
		}
		if (ended || !WIFEXITED(status) || WEXITSTATUS(status)) {
			/* Restart=on-failure, RestartSec=2s, as the unit has */
			fprintf(stderr, "svcrun: the service %s with %#x\n",
				ended ? "ended" : "stopped", status);
			sync();
			if (ended && WIFEXITED(status) && !WEXITSTATUS(status))
				break;
			sleep(2);
		}
		want_restart = 0;
		pid = start(&m, argv + 2);
		fprintf(stderr, "svcrun: restart %d\n", ++restarts);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	svcmgr_stop(&m);
	return 0;
}
