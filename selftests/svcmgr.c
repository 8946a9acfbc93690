// SPDX-License-Identifier: GPL-2.0
/* A minimal service manager's notify socket and fd store: svcmgr.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "svcmgr.h"

/* The value of key= on its own line of msg, copied to out; false: none. */
static bool field(const char *msg, const char *key, char *out, size_t sz)
{
	size_t klen = strlen(key);
	const char *p = msg;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t len = strcspn(p + klen + 1, "\n");

			snprintf(out, sz, "%.*s", (int)len, p + klen + 1);
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

static void *serve(void *arg)
{
	struct svcmgr *m = arg;
	char buf[4096], ctl[CMSG_SPACE(sizeof(int) * 16)], v[64];

	for (;;) {
		struct iovec iov = { buf, sizeof(buf) - 1 };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl, .msg_controllen = sizeof(ctl),
		};
		struct cmsghdr *c;
		int fds[16], nfds = 0, i;
		ssize_t n = recvmsg(m->sock, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return NULL;	/* shut down */
		}
		buf[n] = 0;
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_RIGHTS) {
				int k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

				for (i = 0; i < k && nfds < 16; i++)
					memcpy(&fds[nfds++],
					       CMSG_DATA(c) + i * sizeof(int),
					       sizeof(int));
			}
		if (!n && !nfds)
			return NULL;
		pthread_mutex_lock(&m->lock);
		if (field(buf, "FDSTORE", v, sizeof(v)) && !strcmp(v, "1") &&
		    m->keep_fds && nfds == 1) {
			/* one per name, as systemd keeps one descriptor once */
			if (m->stored >= 0)
				close(m->stored);
			m->stored = fds[0];
			nfds = 0;
			if (!field(buf, "FDNAME", m->name, sizeof(m->name)))
				snprintf(m->name, sizeof(m->name), "stored");
		}
		if (field(buf, "FDSTOREREMOVE", v, sizeof(v)) &&
		    !strcmp(v, "1") && field(buf, "FDNAME", v, sizeof(v)) &&
		    m->stored >= 0 && !strcmp(v, m->name)) {
			close(m->stored);
			m->stored = -1;
			m->removes++;
		}
		if (field(buf, "READY", v, sizeof(v)) && !strcmp(v, "1"))
			m->readies++;
		pthread_cond_broadcast(&m->cond);
		pthread_mutex_unlock(&m->lock);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
	}
}

int svcmgr_start(struct svcmgr *m, const char *path, bool keep_fds)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int one = 1;

	memset(m, 0, sizeof(*m));
	m->stored = -1;
	m->keep_fds = keep_fds;
	snprintf(m->path, sizeof(m->path), "%s", path);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	m->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (m->sock < 0)
		return -errno;
	if (setsockopt(m->sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) ||
	    bind(m->sock, (struct sockaddr *)&sa, sizeof(sa))) {
		close(m->sock);
		return -errno;
	}
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->cond, NULL);
	if (pthread_create(&m->thread, NULL, serve, m)) {
		close(m->sock);
		return -EAGAIN;
	}
	return 0;
}

void svcmgr_stop(struct svcmgr *m)
{
	shutdown(m->sock, SHUT_RDWR);
	pthread_cancel(m->thread);
	pthread_join(m->thread, NULL);
	close(m->sock);
	unlink(m->path);
	if (m->stored >= 0)
		close(m->stored);
	m->stored = -1;
}

int svcmgr_wait_ready(struct svcmgr *m, int n, int timeout_ms)
{
	struct timespec t;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += timeout_ms / 1000;
	t.tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&m->lock);
	while (m->readies <= n && !ret)
		ret = pthread_cond_timedwait(&m->cond, &m->lock, &t);
	pthread_mutex_unlock(&m->lock);
	return m->readies > n ? 0 : -ETIMEDOUT;
}

int svcmgr_stored(struct svcmgr *m)
{
	int fd;

	pthread_mutex_lock(&m->lock);
	fd = m->stored;
	pthread_mutex_unlock(&m->lock);
	return fd;
}

void svcmgr_child(struct svcmgr *m, bool pass_fds)
{
	char pid[24];
	int fd = m->stored;	/* read after fork: no other thread here */

	setenv("NOTIFY_SOCKET", m->path, 1);
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDNAMES");
	if (!pass_fds || fd < 0)
		return;
	if (fd == 3)
		fcntl(3, F_SETFD, 0);
	else if (dup2(fd, 3) != 3)
		return;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDNAMES", m->name, 1);
}
