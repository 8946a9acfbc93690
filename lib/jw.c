// SPDX-License-Identifier: GPL-2.0
/* The JSON writer; see jw.h. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "jw.h"

void jw_init(struct jw *j, FILE *f, bool compact)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->compact = compact;
	j->first[0] = true;
}

int jw_open(struct jw *j, const char *path, bool compact)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	jw_init(j, f, compact);
	j->own = true;
	return 0;
}

int jw_close(struct jw *j)
{
	if (j->depth && !j->err)
		j->err = -EINVAL;
	fputc('\n', j->f);
	if (fflush(j->f) && !j->err)
		j->err = -errno;
	if (j->own && fclose(j->f) && !j->err)
		j->err = -errno;
	return j->err;
}

size_t jw_utf8_len(const unsigned char *s, size_t len)
{
	size_t n, i;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* A JSON string of len bytes; false when some bytes were not UTF-8. */
static bool put_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	bool exact = true;
	size_t i = 0, n;

	fputc('"', f);
	while (i < len) {
		if (p[i] == '"' || p[i] == '\\') {
			fprintf(f, "\\%c", p[i]);
			i++;
		} else if (p[i] < 0x20) {
			fprintf(f, "\\u%04x", p[i]);
			i++;
		} else if ((n = jw_utf8_len(p + i, len - i))) {
			fwrite(p + i, 1, n, f);
			i += n;
		} else {
			fputs("\\ufffd", f);
			exact = false;
			i++;
		}
	}
	fputc('"', f);
	return exact;
}

static void sep(struct jw *j, const char *key)
{
	if (!j->first[j->depth])
		fputs(j->compact ? "," : ", ", j->f);
	j->first[j->depth] = false;
	if (key) {
		put_string(j->f, key, strlen(key));
		fputs(j->compact ? ":" : ": ", j->f);
	}
}

static void push(struct jw *j, const char *key, char open, char close)
{
	if (j->depth + 1 >= JW_MAX_DEPTH) {
		j->err = -EINVAL;
		return;
	}
	sep(j, key);
	fputc(open, j->f);
	j->first[++j->depth] = true;
	j->close[j->depth] = close;
}

void jw_obj(struct jw *j, const char *key)
{
	push(j, key, '{', '}');
}

void jw_arr(struct jw *j, const char *key)
{
	push(j, key, '[', ']');
}

void jw_end(struct jw *j)
{
	if (!j->depth) {
		j->err = -EINVAL;
		return;
	}
	fputc(j->close[j->depth--], j->f);
}

void jw_num(struct jw *j, const char *key, double v)
{
	sep(j, key);
	if (isnan(v) || isinf(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.6g", v);
}

void jw_int(struct jw *j, const char *key, long long v)
{
	sep(j, key);
	fprintf(j->f, "%lld", v);
}

void jw_uint(struct jw *j, const char *key, unsigned long long v)
{
	sep(j, key);
	fprintf(j->f, "%llu", v);
}

void jw_str(struct jw *j, const char *key, const char *s)
{
	jw_strn(j, key, s, strlen(s));
}

bool jw_strn(struct jw *j, const char *key, const char *s, size_t len)
{
	sep(j, key);
	return put_string(j->f, s, len);
}

void jw_bytes(struct jw *j, const char *key, const char *s, size_t len)
{
	char hkey[64];
	size_t i;

	if (jw_strn(j, key, s, len) || !key)
		return;
	snprintf(hkey, sizeof(hkey), "%s_hex", key);
	sep(j, hkey);
	fputc('"', j->f);
	for (i = 0; i < len; i++)
		fprintf(j->f, "%02x", (unsigned char)s[i]);
	fputc('"', j->f);
}

void jw_null(struct jw *j, const char *key)
{
	sep(j, key);
	fputs("null", j->f);
}

void jw_bool(struct jw *j, const char *key, bool v)
{
	sep(j, key);
	fputs(v ? "true" : "false", j->f);
}
