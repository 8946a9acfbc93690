// SPDX-License-Identifier: GPL-2.0
/*
 * One record as vbctl stream prints it: a line of text, or a JSON
 * object on one line. Paths are resolved when printing (handle, then
 * open_by_handle_at, then /proc/self/fd), so they say where the object
 * is now, not where it was.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>

#include "cli.h"
#include "vfsb.h"
#include "jw.h"
#include "vbctl.h"
#include "record_print.h"

/* The path a handle item names now, or NULL. */
static const char *handle_path(const struct rec_fs *fs, int nfs,
			       struct vfsb_record *r, int type, char *buf,
			       size_t sz)
{
	char proc[64];
	ssize_t n;
	int i, fd;

	for (i = 0; i < nfs; i++)
		if (fs[i].dev == vfsb_dev_t(r->dev))
			break;
	if (i == nfs)
		return NULL;
	fd = vfsb_rec_open_handle(r, type, fs[i].fd, O_PATH);
	if (fd < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sz - 1);
	close(fd);
	if (n < 0)
		return NULL;
	buf[n] = 0;
	return buf;
}

/*
 * The "version" of stream --json's objects (vbctl(8)): fields may be
 * added within a version; a field changed or taken away makes the next.
 */
#define STREAM_JSON_VERSION 1

static void print_overflow(struct vfsb_record *r, struct jw *j)
{
	struct vfsb_rec_item *devs = vfsb_rec_item(r, VFSB_ITEM_DEVS);
	__u32 *d = devs ? vfsb_item_data(devs) : NULL;
	unsigned int i, n = devs ? devs->len / 4 : 0;
	bool more = r->flags & VFSB_RECF_MORE_DEVS;
	char ds[24];

	if (j) {
		jw_obj(j, NULL);
		jw_str(j, "type", "overflow");
		jw_int(j, "version", STREAM_JSON_VERSION);
		jw_uint(j, "seq", r->seq);
		jw_uint(j, "lost", r->lost);
		jw_arr(j, "devs");
		for (i = 0; i < n; i++)
			jw_str(j, NULL, vb_dev_str(d[i], ds));
		jw_end(j);
		jw_bool(j, "more_devs", more);
		jw_end(j);
		return;
	}
	printf("!!! OVERFLOW: %llu records lost on", (unsigned long long)r->lost);
	for (i = 0; i < n; i++)
		printf(" %s", vb_dev_str(d[i], ds));
	printf("%s: rescan these filesystems\n", more ? " and more" : "");
}

/* RESCAN: changes may have happened unannounced; UNMOUNT: the last one. */
static void print_notice(struct vfsb_record *r, struct jw *j)
{
	bool rescan = r->type == VFSB_REC_RESCAN;
	char why[128], ds[24];

	vfsb_rescan_format(rescan ? r->reasons : 0, why, sizeof(why));
	if (j) {
		jw_obj(j, NULL);
		jw_str(j, "type", rescan ? "rescan" : "unmount");
		jw_int(j, "version", STREAM_JSON_VERSION);
		jw_uint(j, "seq", r->seq);
		jw_str(j, "dev", vb_dev_str(r->dev, ds));
		if (rescan) {
			jw_str(j, "why", why);
			jw_uint(j, "events", r->lost);
		}
		jw_end(j);
		return;
	}
	if (rescan)
		printf("!!! RESCAN %s: %llu change(s) not announced inside a section (%s)\n",
		       vb_dev_str(r->dev, ds), (unsigned long long)r->lost, why);
	else
		printf("%6llu unmounted    %s: its last record\n",
		       (unsigned long long)r->seq, vb_dev_str(r->dev, ds));
}

/*
 * A handle item as "TYPE:HEX" (struct file_handle's handle_type, then
 * its f_handle bytes), which name_to_handle_at() users can rebuild.
 */
static void json_handle(struct jw *j, const char *key, struct vfsb_record *r,
			unsigned int type)
{
	struct vfsb_rec_item *it = vfsb_rec_item(r, type);
	const unsigned char *d;
	char buf[16 + 2 * 128 + 1];
	__u32 bytes;
	__s32 htype;
	int n;
	__u32 i;

	if (!it || it->len < 8)
		return;
	d = (const unsigned char *)vfsb_item_data(it);
	memcpy(&bytes, d, 4);
	memcpy(&htype, d + 4, 4);
	if (bytes + 8 > (__u32)it->len || bytes > 128)
		return;
	n = snprintf(buf, sizeof(buf), "%d:", htype);
	for (i = 0; i < bytes; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%02x", d[8 + i]);
	jw_str(j, key, buf);
}

static void json_uuid(struct jw *j, const __u8 *uuid)
{
	char buf[33];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(buf + 2 * i, 3, "%02x", uuid[i]);
	jw_str(j, "fs_uuid", buf);
}

static void print_change(struct vfsb_record *r, struct jw *j,
			 const char *pp, const char *op)
{
	struct vfsb_rec_item *name = vfsb_rec_item(r, VFSB_ITEM_NAME);
	bool data = r->reasons & (VFSB_R_DATA_WRITE | VFSB_R_MMAP_WRITE);
	char reasons[160], flags[160], ds[24];

	vfsb_reasons_format(r->reasons, reasons, sizeof(reasons));
	/* DIR and NO_HANDLE have their own fields; the rest are listed */
	vfsb_flags_format(r->flags & ~(VFSB_RECF_DIR | VFSB_RECF_NO_HANDLE),
			  flags, sizeof(flags));
	if (j) {
		jw_obj(j, NULL);
		jw_str(j, "type", "change");
		jw_int(j, "version", STREAM_JSON_VERSION);
		jw_uint(j, "seq", r->seq);
		jw_uint(j, "time_ns", r->time_ns);
		jw_str(j, "dev", vb_dev_str(r->dev, ds));
		jw_str(j, "reasons", reasons);
		jw_bool(j, "dir", r->flags & VFSB_RECF_DIR);
		if (flags[0])
			jw_str(j, "flags", flags);
		json_uuid(j, r->fs_uuid);
		if (r->epoch)
			jw_uint(j, "epoch", r->epoch);
		jw_uint(j, "parent_ino", r->parent_ino);
		jw_uint(j, "parent_generation", r->parent_generation);
		json_handle(j, "parent_handle", r, VFSB_ITEM_PARENT_FH);
		jw_uint(j, "ino", r->ino);
		jw_uint(j, "generation", r->generation);
		json_handle(j, "handle", r, VFSB_ITEM_OBJECT_FH);
		jw_uint(j, "pid", r->pid);
		jw_uint(j, "tid", r->tid);
		jw_uint(j, "uid", r->uid);
		if (name)
			jw_bytes(j, "name", vfsb_item_data(name), name->len);
		if (pp)
			jw_bytes(j, "parent_path", pp, strlen(pp));
		if (op)
			jw_bytes(j, "path", op, strlen(op));
		if (r->cookie)
			jw_uint(j, "cookie", r->cookie);
		if (data) {
			jw_uint(j, "offset", r->offset);
			jw_uint(j, "length", r->length);
		}
		jw_end(j);
		return;
	}
	/* names escaped: a newline in one must not forge a record */
	printf("%6llu %-12s%s ", (unsigned long long)r->seq, reasons,
	       r->flags & VFSB_RECF_DIR ? " dir" : "");
	if (pp)
		cli_escape(stdout, pp, strlen(pp));
	else
		putchar('?');
	if (name) {
		fputs(" name=", stdout);
		cli_escape(stdout, vfsb_item_data(name), name->len);
	}
	if (op && !name) {
		fputs(" path=", stdout);
		cli_escape(stdout, op, strlen(op));
	}
	if (r->cookie)
		printf(" cookie=%llu", (unsigned long long)r->cookie);
	if (data)
		printf(" range=%llu+%llu", (unsigned long long)r->offset,
		       (unsigned long long)r->length);
	if (r->flags & VFSB_RECF_NO_HANDLE)
		printf(" (no handle: parent ino %llu)",
		       (unsigned long long)r->parent_ino);
	if (flags[0])
		printf(" [%s]", flags);
	printf(" pid=%u\n", r->pid);
}

int print_record(struct vfsb_record *r, bool json, const struct rec_fs *fs,
		 int nfs)
{
	char parent[4096], object[4096];
	struct jw j;
	int ret = 0;

	if (json)
		jw_init(&j, stdout, true);
	if (r->type == VFSB_REC_OVERFLOW) {
		print_overflow(r, json ? &j : NULL);
	} else if (r->type == VFSB_REC_RESCAN || r->type == VFSB_REC_UNMOUNT) {
		print_notice(r, json ? &j : NULL);
	} else {
		print_change(r, json ? &j : NULL,
			     handle_path(fs, nfs, r, VFSB_ITEM_PARENT_FH,
					 parent, sizeof(parent)),
			     handle_path(fs, nfs, r, VFSB_ITEM_OBJECT_FH,
					 object, sizeof(object)));
	}
	if (json)
		ret = jw_close(&j);
	else
		ret = cli_flush_stdout();
	return ret;
}
