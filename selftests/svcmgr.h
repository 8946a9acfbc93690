/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for systemd's side of a Type=notify service with a file
 * descriptor store (FileDescriptorStoreMax=1), enough for vbjournald:
 * a datagram NOTIFY_SOCKET served by a thread (READY=1, FDSTORE=1 with
 * FDNAME=, FDSTOREREMOVE=1), and, for a service it starts, the stored
 * descriptor passed back as fd 3 with LISTEN_FDS, LISTEN_PID and
 * LISTEN_FDNAMES (sd_listen_fds(3)).
 */
#ifndef VFSB_SVCMGR_H
#define VFSB_SVCMGR_H

#include <pthread.h>
#include <stdbool.h>

struct svcmgr {
	int sock;
	char path[108];
	bool keep_fds;		/* FileDescriptorStoreMax=1; false: 0 */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stored;		/* the store (one descriptor), -1: empty */
	char name[64];		/* its FDNAME */
	int readies;		/* READY=1 messages received */
	int removes;		/* FDSTOREREMOVE=1 messages received */
};

/* Binds path (removed first) and starts serving it. 0 or -errno. */
int svcmgr_start(struct svcmgr *m, const char *path, bool keep_fds);
/* Stops serving; closes the store. */
void svcmgr_stop(struct svcmgr *m);
/* Waits (timeout_ms) until readies > n: 0 or -ETIMEDOUT. */
int svcmgr_wait_ready(struct svcmgr *m, int n, int timeout_ms);
/* The stored descriptor (-1: none); the store keeps it. */
int svcmgr_stored(struct svcmgr *m);
/*
 * In a child about to exec the service: NOTIFY_SOCKET, and the store
 * passed as systemd passes it (with pass_fds).
 */
void svcmgr_child(struct svcmgr *m, bool pass_fds);

#endif
