// SPDX-License-Identifier: GPL-2.0
/*
 * Names of the ABI's bits (VFSB_R_*, VFSB_RECF_*, VFSB_RESCAN_*): what
 * vbctl prints and parses, and tests log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vfsb.h"

/* In bit order: VFSB_R_CREATE is bit 0. */
static const char *const reason_names[] = {
	"create", "delete", "rename_from", "rename_to", "hardlink",
	"attrib", "truncate", "xattr", "data_write", "mmap_write", "acl",
};

/* VFSB_RECF_*, in bit order. */
static const char *const flag_names[] = {
	"dir", "no_handle", "exchange", "more_devs", "unfenced", "replaced",
	"to_eof", "append", "overwrite", "intent", "links",
};

/* VFSB_RESCAN_*, in bit order: why a RESCAN record came. */
static const char *const rescan_names[] = {
	"unfenced", "no_memory", "nesting", "no_return", "no_hook", "test",
	"intent",
};

#define NR_REASONS (sizeof(reason_names) / sizeof(reason_names[0]))

const char *vfsb_reason_name(unsigned int bit)
{
	return bit < NR_REASONS ? reason_names[bit] : NULL;
}

int vfsb_reasons_parse(const char *list, __u32 *mask, char *bad,
		       size_t badsz)
{
	const char *p = list, *end;
	size_t len, i;
	__u32 m = 0;

	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (i = 0; i < NR_REASONS; i++)
			if (len == strlen(reason_names[i]) &&
			    !strncasecmp(p, reason_names[i], len))
				break;
		if (i == NR_REASONS) {
			if (bad && badsz)
				snprintf(bad, badsz, "%.*s", (int)len, p);
			return -EINVAL;
		}
		m |= 1U << i;
		if (!end)
			break;
		p = end + 1;
	}
	*mask = m;
	return 0;
}

/* bits as "a|b", those without a name as "bitN", "" for none */
static const char *bits_format(__u32 bits, const char *const *names,
			       size_t nr, char *buf, size_t sz)
{
	size_t n = 0;
	unsigned int i;
	int w;

	if (!sz)
		return buf;
	buf[0] = 0;
	for (i = 0; i < 32 && n < sz; i++) {
		if (!(bits & (1U << i)))
			continue;
		if (i < nr)
			w = snprintf(buf + n, sz - n, "%s%s", n ? "|" : "",
				     names[i]);
		else
			w = snprintf(buf + n, sz - n, "%sbit%u", n ? "|" : "", i);
		n += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

const char *vfsb_reasons_format(__u32 reasons, char *buf, size_t sz)
{
	return bits_format(reasons, reason_names, NR_REASONS, buf, sz);
}

const char *vfsb_flags_format(__u32 flags, char *buf, size_t sz)
{
	return bits_format(flags, flag_names,
			   sizeof(flag_names) / sizeof(flag_names[0]), buf, sz);
}

const char *vfsb_rescan_format(__u32 why, char *buf, size_t sz)
{
	return bits_format(why, rescan_names,
			   sizeof(rescan_names) / sizeof(rescan_names[0]), buf,
			   sz);
}
