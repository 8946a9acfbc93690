// SPDX-License-Identifier: GPL-2.0
/*
 * Filesystems by number, and mount points: the kernel reports tracked
 * filesystems by dev only, and some commands need a path on them (to
 * watch one, to show where it is), or whether a path is a mount point
 * (watch --follow): both from /proc/self/mountinfo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "vbctl.h"

const char *vb_dev_str(__u32 dev, char *buf)
{
	snprintf(buf, 24, "%u:%u", major(dev), minor(dev));
	return buf;
}

/* mountinfo writes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = 0;
}

/*
 * One line of /proc/self/mountinfo, "id parent major:minor root
 * mount-point options ...": its dev, root and (unescaped) mount point.
 */
static bool parse_mountinfo(const char *line, unsigned int *maj,
			    unsigned int *min, char *root, char *mnt)
{
	if (sscanf(line, "%*u %*u %u:%u %4095s %4095s", maj, min, root,
		   mnt) != 4)
		return false;
	unescape(mnt);
	return true;
}

int vb_mount_point(__u32 dev, char *buf, size_t sz)
{
	char line[8192], root[4096], mnt[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	unsigned int maj, min;
	bool found = false;

	if (!f)
		return -errno;
	/* the whole filesystem's mount (root "/") if there is one, else a
	   bind mount of part of it */
	while (fgets(line, sizeof(line), f)) {
		if (!parse_mountinfo(line, &maj, &min, root, mnt) ||
		    maj != major(dev) || min != minor(dev))
			continue;
		if (found && strcmp(root, "/"))
			continue;
		snprintf(buf, sz, "%s", mnt);
		found = true;
		if (!strcmp(root, "/"))
			break;
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

bool vb_is_mount_point(const char *path)
{
	char line[8192], root[4096], mnt[4096];
	FILE *f = fopen("/proc/self/mountinfo", "r");
	unsigned int maj, min;
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = parse_mountinfo(line, &maj, &min, root, mnt) &&
			!strcmp(mnt, path);
	fclose(f);
	return found;
}
