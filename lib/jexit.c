// SPDX-License-Identifier: GPL-2.0
/* The exit status of a journal failure, as its tools give it (cli.h). */
#include <errno.h>

#include "cli.h"

int cli_journal_exit(int err)
{
	switch (err) {
	case -ENOENT:
		return 4;
	case -EACCES:
		return 5;
	case -EMEDIUMTYPE:
		return 6;
	case -ENODATA:
		return 7;
	case -EBADMSG:
		return 8;
	case -EUCLEAN:
		return 9;
	default:
		return 1;
	}
}
