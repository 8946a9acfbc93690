// SPDX-License-Identifier: GPL-2.0
/* File servers and their clients in the guest; see servers.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "servers.h"
#include "testfs.h"

#define SRV_SCRIPT	"vfsb-servers"

/* The client mount points, by enum srv_proto. */
static const char *const srv_mnts[] = {
	"/tmp/srv-nfs3", "/tmp/srv-nfs42", "/tmp/srv-smb",
};

const char *srv_mnt(enum srv_proto proto)
{
	return srv_mnts[proto];
}

/* Whether dir is a mount point (in /proc/self/mounts). */
static bool mounted(const char *dir)
{
	char line[1024], fmt[32];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return false;
	snprintf(fmt, sizeof(fmt), " %s ", dir);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, fmt) != NULL;
	fclose(f);
	return found;
}

/*
 * Runs "vfsb-servers ARGS", its stderr into why: 0, -EOPNOTSUPP (exit
 * 4: it cannot run here) or -EIO.
 */
static int srv_script(const char *args, char *why, size_t len)
{
	char cmd[512], out[] = "/tmp/srv-script.err";
	FILE *f;
	size_t n = 0;
	int st;

	snprintf(cmd, sizeof(cmd), SRV_SCRIPT " %s 2>%s", args, out);
	st = system(cmd);
	why[0] = '\0';
	f = fopen(out, "re");
	if (f) {
		n = fread(why, 1, len - 1, f);
		why[n] = '\0';
		fclose(f);
		while (n && why[n - 1] == '\n')
			why[--n] = '\0';
	}
	if (st == -1 || !WIFEXITED(st)) {
		snprintf(why, len, "cannot run " SRV_SCRIPT);
		return -EOPNOTSUPP;
	}
	switch (WEXITSTATUS(st)) {
	case 0:
		return 0;
	case 4:
		return -EOPNOTSUPP;
	case 127:
		snprintf(why, len, "no " SRV_SCRIPT " in this guest (scripts/initramfs.sh: VFSB_SERVERS)");
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

/*
 * mount(2) with the options text, retried while the server is not yet
 * listening (ECONNREFUSED, EHOSTDOWN...) for about 10 s.
 */
static int mount_retry(const char *src, const char *dir, const char *type,
		       const char *opts)
{
	int i, err = 0;

	for (i = 0; i < 100; i++) {
		if (!mount(src, dir, type, 0, opts))
			return 0;
		err = errno;
		if (err != ECONNREFUSED && err != EHOSTDOWN &&
		    err != EHOSTUNREACH && err != ETIMEDOUT && err != EAGAIN)
			break;
		poll(NULL, 0, 100);
	}
	return -err;
}

int srv_setup(enum srv_proto proto, char *why, size_t len)
{
	const char *mnt = srv_mnt(proto);
	const char *opts;
	char args[256];
	int ret;

	why[0] = '\0';
	if (!mounted(SRV_EXPORT)) {
		ret = mount_ext4(SRV_EXPORT);
		if (ret) {
			snprintf(why, len, "no ext4 export: %s", strerror(-ret));
			return ret == -ENODEV ? -ENODEV : ret;
		}
	}
	snprintf(args, sizeof(args), "%s " SRV_EXPORT,
		 proto == SRV_SMB ? "smb-start" : "nfs-start");
	ret = srv_script(args, why, len);
	if (ret)
		return ret;
	if (mounted(mnt))
		return 0;
	mkdir(mnt, 0755);
	switch (proto) {
	case SRV_NFS3:
		/*
		 * no lockd traffic: no rpc.statd here; the ports given: the
		 * guest's rpcbind refuses the kernel's questions over
		 * 127.0.0.1 (guest/servers.sh)
		 */
		opts = "vers=3,proto=tcp,port=2049,mountproto=tcp,mountport=20048,addr=127.0.0.1,nolock,noac,lookupcache=none,sync,hard";
		ret = mount_retry("127.0.0.1:" SRV_EXPORT, mnt, "nfs", opts);
		break;
	case SRV_NFS42:
		opts = "vers=4.2,proto=tcp,addr=127.0.0.1,clientaddr=127.0.0.1,noac,lookupcache=none,sync,hard";
		ret = mount_retry("127.0.0.1:" SRV_EXPORT, mnt, "nfs4", opts);
		break;
	default:
		opts = "ip=127.0.0.1,username=root,password=vfsb,vers=3.1.1,cache=none,actimeo=0,closetimeo=0";
		ret = mount_retry("//127.0.0.1/vfsb", mnt, "cifs", opts);
		break;
	}
	if (ret)
		snprintf(why, len, "mount %s -o %s: %s", mnt, opts, strerror(-ret));
	return ret;
}

void srv_stop_all(void)
{
	char why[256];
	size_t i;

	for (i = 0; i < sizeof(srv_mnts) / sizeof(srv_mnts[0]); i++)
		if (mounted(srv_mnts[i]))
			umount2(srv_mnts[i], MNT_FORCE);
	/* what the daemons said, for a failure's reader */
	if (system(SRV_SCRIPT " logs 2>&1 | sed 's/^/# /'"))
		fprintf(stderr, "# " SRV_SCRIPT " logs failed\n");
	srv_script("stop", why, sizeof(why));
	/* the scratch disk is the next program's */
	if (mounted(SRV_EXPORT) && umount2(SRV_EXPORT, 0)) {
		fprintf(stderr, "# umount " SRV_EXPORT ": %s; detaching it\n",
			strerror(errno));
		umount2(SRV_EXPORT, MNT_DETACH);
	}
}
