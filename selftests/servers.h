/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File servers in the guest (servers.c): an ext4 export served by nfsd
 * (NFSv3, NFSv4.2) or ksmbd, mounted by the kernel's own NFS or CIFS
 * client over 127.0.0.1. The servers are started by the guest's
 * vfsb-servers script (guest/servers.sh) with Debian's userland, and
 * stay up across the tests of one program: srv_stop_all() ends them.
 */
#ifndef SERVERS_H
#define SERVERS_H

#include <stddef.h>

enum srv_proto { SRV_NFS3, SRV_NFS42, SRV_SMB };

/* Where the export (ext4 on the scratch disk) is mounted. */
#define SRV_EXPORT	"/tmp/srv-export"

/* Where proto's client is mounted. */
const char *srv_mnt(enum srv_proto proto);

/*
 * Makes the export (once: mkfs and mount, unless mounted already),
 * starts the server of proto and mounts its client at srv_mnt(proto)
 * (once). The
 * client caches nothing it could answer itself: attributes, lookups and
 * data go to the server when the caller makes the call (NFS: noac,
 * lookupcache=none, sync; CIFS: cache=none, actimeo=0, closetimeo=0).
 * 0; -ENODEV or -EOPNOTSUPP: this guest cannot (why says why: skip);
 * another -errno: it failed (why says how).
 */
int srv_setup(enum srv_proto proto, char *why, size_t len);

/* Unmounts every client, stops the servers, unmounts the export. */
void srv_stop_all(void);

#endif /* SERVERS_H */
