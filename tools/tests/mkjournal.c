// SPDX-License-Identifier: GPL-2.0
/*
 * vbj-mkjournal DIR [MAX_CHANGES [MAX_BYTES]]: for the host tests, a
 * journal made as vbjournald makes it (store.c's vbj_open(), so its
 * schema), with journal id 00000000000000aa, then the SQL read on stdin
 * run on it; with MAX_CHANGES (and MAX_BYTES), then trimmed as the
 * daemon's checkpoint trims it (vbj_trim(), vbj_trim_bytes(), then
 * vbj_compact()). No module needed. Exit: 0, or 1 after saying what
 * failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

int main(int argc, char **argv)
{
	static char sql[1 << 20];
	struct vbj_store s;
	size_t n;
	int ret;

	if (argc < 2 || argc > 4) {
		fprintf(stderr, "usage: vbj-mkjournal DIR [MAX_CHANGES "
			"[MAX_BYTES]] < SQL\n");
		return 2;
	}
	ret = vbj_open(&s, argv[1], VBJ_CREATE);
	if (ret) {
		fprintf(stderr, "vbj-mkjournal: %s\n", s.why);
		return 1;
	}
	n = fread(sql, 1, sizeof(sql) - 1, stdin);
	if (ferror(stdin) || n == sizeof(sql) - 1) {
		fprintf(stderr, "vbj-mkjournal: reading the SQL failed\n");
		return 1;
	}
	sql[n] = 0;
	ret = vbj_exec(&s, "UPDATE meta SET value = '00000000000000aa' "
		       "WHERE key = 'journal_id'");
	if (!ret)
		ret = vbj_exec(&s, sql);
	if (!ret && argc >= 3)
		ret = vbj_trim(&s, strtoll(argv[2], NULL, 10)) < 0;
	if (!ret && argc == 4)
		ret = vbj_trim_bytes(&s, strtoll(argv[3], NULL, 10)) < 0;
	if (!ret && argc == 4)
		ret = vbj_compact(&s);
	vbj_close(&s);
	return ret ? 1 : 0;
}
