// SPDX-License-Identifier: GPL-2.0
/*
 * What vbctl says when something fails, and which exit code that is:
 * the environment (no module, not root, no such path) is a usage error,
 * 2; a refusal or a timeout of the operation itself is a failure, 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vfsb.h"
#include "vbctl.h"

void vb_err(const char *fmt, ...)
{
	va_list ap;

	fputs("vbctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int vb_open(struct vbctl *vb)
{
	int fd;

	if (vb->dev >= 0)
		return VB_OK;
	fd = vfsb_open();
	if (fd >= 0) {
		vb->dev = fd;
		return VB_OK;
	}
	if (fd == -ENOENT || fd == -ENXIO || fd == -ENODEV)
		vb_err("%s not found: is the vfsbarrier module loaded? (modprobe vfsbarrier)",
		       VFSB_DEVICE_PATH);
	else if (fd == -EACCES || fd == -EPERM)
		vb_err("%s: permission denied: vbctl must run as root",
		       VFSB_DEVICE_PATH);
	else
		vb_err("%s: %s", VFSB_DEVICE_PATH, strerror(-fd));
	return VB_USAGE;
}

int vb_open_path(const char *path, int *fd)
{
	*fd = open(path, O_PATH | O_CLOEXEC);
	if (*fd >= 0)
		return VB_OK;
	vb_err("%s: %s", path, strerror(errno));
	return VB_USAGE;
}

int vb_fail(const char *what, const char *path, int err)
{
	const char *p = path ? path : "";
	const char *sep = path ? ": " : "";

	/* what the barrier ioctls mean by it: no tracking */
	if (err == -ENOENT && !strcmp(what, "barrier")) {
		vb_err("%s: %s%sno one watches this filesystem (run 'vbctl watch %s' first)",
		       what, p, sep, path ? path : "PATH");
		return VB_FAILED;
	}
	switch (-err) {
	case EPERM:
	case EACCES:
		vb_err("%s: permission denied: vbctl must run as root", what);
		return VB_USAGE;
	case ETIMEDOUT:
		vb_err("%s: %s%stimed out; writes are still in flight", what, p, sep);
		return VB_FAILED;
	case EEXIST:
		vb_err("%s: %s%salready watched by this process", what, p, sep);
		return VB_FAILED;
	case ENOSPC:
		vb_err("%s: %s%stoo many watches for one process", what, p, sep);
		return VB_FAILED;
	default:
		vb_err("%s: %s%s%s", what, p, sep, strerror(-err));
		return VB_FAILED;
	}
}
