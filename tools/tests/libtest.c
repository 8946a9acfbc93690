// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vbj-libtest DIR CURSOR: what a vendor's program does with libvbjournal,
 * built from the installed header and library alone (the host tests
 * build it against the build's; make deb-check with pkg-config in the
 * Debian 12 chroot, against the packages). Prints each entry of the
 * changes since CURSOR, then registers, acks, moves back to CURSOR
 * (VBJOURNAL_1.1), lists and unregisters a consumer "libtest", and asks
 * from another journal's cursor, which must be refused (-ESTALE). Exit:
 * 0, or 1 after saying what failed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <vbjournal.h>

static int failed(struct vbjournal *j, const char *what, int ret)
{
	fprintf(stderr, "vbj-libtest: %s: %s (%d)\n", what,
		vbjournal_errmsg(j), ret);
	vbjournal_close(j);
	return 1;
}

int main(int argc, char **argv)
{
	const struct vbjournal_entry *e;
	struct vbjournal_consumer **list;
	struct vbjournal_changes *it;
	char cur[VBJOURNAL_CURSOR_MAX];
	struct vbjournal *j;
	int ret, i;
	size_t k;

	if (argc != 3) {
		fprintf(stderr, "usage: vbj-libtest DIR CURSOR\n");
		return 2;
	}
	ret = vbjournal_open(&j, argv[1], VBJOURNAL_OPEN_WRITE);
	if (ret)
		return failed(j, "open", ret);
	printf("library %s, journal %016" PRIx64 "\n", vbjournal_version(),
	       vbjournal_id(j));
	ret = vbjournal_changes(j, argv[2], NULL, 0, &it);
	if (ret)
		return failed(j, "changes", ret);
	while ((ret = vbjournal_changes_next(it, &e)) > 0) {
		switch (e->kind) {
		case VBJOURNAL_DIR:
		case VBJOURNAL_MOVED:
			printf("%s ", e->kind == VBJOURNAL_DIR ? "dir" : "moved");
			fwrite(e->path ? e->path : "?", 1, e->path ? e->path_len : 1,
			       stdout);
			printf(" fs=%" PRId64 " handle_len=%zu\n", e->fs,
			       e->handle_len);
			break;
		case VBJOURNAL_FILE:
			printf("file ino=%" PRIu64 " nlink=%" PRId64 " names=%zu%s%s\n",
			       e->ino, e->nlink, e->nnames, e->why ? " why=" : "",
			       e->why ? e->why : "");
			for (k = 0; k < e->nnames; k++)
				printf("  name %s\n", e->names[k]);
			break;
		case VBJOURNAL_RESCAN:
			printf("rescan %s %s (%s)\n", e->scope,
			       e->path ? e->path : "?", e->reason);
			break;
		}
	}
	if (ret < 0)
		return failed(j, "changes_next", ret);
	printf("cursor %s\n", vbjournal_changes_cursor(it));
	vbjournal_changes_free(it);

	ret = vbjournal_register(j, "libtest", cur, sizeof(cur));
	if (ret)
		return failed(j, "register", ret);
	printf("registered libtest at %s\n", cur);
	ret = vbjournal_ack(j, "libtest", cur);
	if (ret)
		return failed(j, "ack", ret);
	ret = vbjournal_register_at(j, "libtest", cur, 0, NULL, 0);
	printf("register at again: %s (%s)\n", ret == -EEXIST ? "-EEXIST" : "?",
	       vbjournal_errmsg(j));
	ret = vbjournal_register_at(j, "libtest", argv[2],
				    VBJOURNAL_REGISTER_MOVE, cur, sizeof(cur));
	if (ret)
		return failed(j, "register_at", ret);
	printf("moved libtest back to %s\n", cur);
	ret = vbjournal_register_at(j, "other", "ffffffffffffffff:1", 0, NULL,
				    0);
	printf("register at another journal's cursor: %s (%s)\n",
	       ret == -ESTALE ? "-ESTALE" : "?", vbjournal_errmsg(j));
	ret = vbjournal_consumers(j, &list);
	if (ret < 0)
		return failed(j, "consumers", ret);
	for (i = 0; list[i]; i++)
		printf("consumer %s %s lag %" PRId64 "\n", list[i]->name,
		       list[i]->cursor, list[i]->lag);
	vbjournal_consumers_free(list);
	ret = vbjournal_unregister(j, "libtest");
	if (ret)
		return failed(j, "unregister", ret);
	ret = vbjournal_unregister(j, "libtest");
	printf("unregister again: %s (%s)\n", ret == -ENOENT ? "-ENOENT" : "?",
	       vbjournal_errmsg(j));

	ret = vbjournal_changes(j, "ffffffffffffffff:1", NULL, 0, &it);
	printf("another journal's cursor: %s (%s)\n",
	       ret == -ESTALE ? "-ESTALE" : "?", vbjournal_errmsg(j));
	if (!ret)
		vbjournal_changes_free(it);
	vbjournal_close(j);
	return 0;
}
