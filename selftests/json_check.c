// SPDX-License-Identifier: GPL-2.0
/* A JSON validator; see json_check.h. Recursive descent, depth-bounded. */
#include <stdbool.h>
#include <string.h>

#include "json_check.h"

#define MAX_DEPTH 64

struct in {
	const unsigned char *s;
	size_t len, pos;
	int depth;
};

static bool value(struct in *in);

static void blanks(struct in *in)
{
	while (in->pos < in->len && strchr(" \t\r\n", in->s[in->pos]))
		in->pos++;
}

static bool eat(struct in *in, char c)
{
	if (in->pos < in->len && in->s[in->pos] == (unsigned char)c) {
		in->pos++;
		return true;
	}
	return false;
}

static bool word(struct in *in, const char *w)
{
	size_t n = strlen(w);

	if (in->len - in->pos < n || memcmp(in->s + in->pos, w, n))
		return false;
	in->pos += n;
	return true;
}

static bool digits(struct in *in)
{
	size_t start = in->pos;

	while (in->pos < in->len && in->s[in->pos] >= '0' && in->s[in->pos] <= '9')
		in->pos++;
	return in->pos > start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number(struct in *in)
{
	eat(in, '-');
	if (!eat(in, '0') && !(in->pos < in->len && in->s[in->pos] >= '1' &&
			       in->s[in->pos] <= '9' && digits(in)))
		return false;
	if (eat(in, '.') && !digits(in))
		return false;
	if (eat(in, 'e') || eat(in, 'E')) {
		if (!eat(in, '+'))
			eat(in, '-');
		if (!digits(in))
			return false;
	}
	return true;
}

/* One UTF-8 sequence at the position: no overlong forms, no surrogates,
   nothing above U+10FFFF. */
static bool utf8(struct in *in)
{
	const unsigned char *p = in->s + in->pos;
	size_t left = in->len - in->pos, n, i;
	unsigned int cp;

	if (p[0] < 0x80)
		n = 1, cp = p[0];
	else if ((p[0] & 0xe0) == 0xc0)
		n = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		n = 4, cp = p[0] & 0x07;
	else
		return false;
	if (left < n)
		return false;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return false;
	in->pos += n;
	return true;
}

static bool string(struct in *in)
{
	int i;

	if (!eat(in, '"'))
		return false;
	while (in->pos < in->len) {
		unsigned char c = in->s[in->pos];

		if (c == '"') {
			in->pos++;
			return true;
		}
		if (c < 0x20)
			return false;	/* control characters must be escaped */
		if (c != '\\') {
			if (!utf8(in))
				return false;
			continue;
		}
		in->pos++;
		if (in->pos >= in->len)
			return false;
		c = in->s[in->pos++];
		if (c == 'u') {
			for (i = 0; i < 4; i++, in->pos++)
				if (in->pos >= in->len ||
				    !strchr("0123456789abcdefABCDEF", in->s[in->pos]) ||
				    !in->s[in->pos])
					return false;
		} else if (!strchr("\"\\/bfnrt", c) || !c) {
			return false;
		}
	}
	return false;
}

/* open and close: '{' '}' or '[' ']'; members have keys in objects */
static bool container(struct in *in, char open, char close)
{
	if (!eat(in, open) || ++in->depth > MAX_DEPTH)
		return false;
	blanks(in);
	if (eat(in, close)) {
		in->depth--;
		return true;
	}
	do {
		blanks(in);
		if (open == '{') {
			if (!string(in))
				return false;
			blanks(in);
			if (!eat(in, ':'))
				return false;
		}
		if (!value(in))
			return false;
		blanks(in);
	} while (eat(in, ','));
	if (!eat(in, close))
		return false;
	in->depth--;
	return true;
}

static bool value(struct in *in)
{
	blanks(in);
	if (in->pos >= in->len)
		return false;
	switch (in->s[in->pos]) {
	case '{':
		return container(in, '{', '}');
	case '[':
		return container(in, '[', ']');
	case '"':
		return string(in);
	case 't':
		return word(in, "true");
	case 'f':
		return word(in, "false");
	case 'n':
		return word(in, "null");
	default:
		return number(in);
	}
}

int json_check(const char *s, size_t len, size_t *where)
{
	struct in in = { .s = (const unsigned char *)s, .len = len };
	bool ok = value(&in);

	blanks(&in);
	if (ok && in.pos == len)
		return 0;
	if (where)
		*where = in.pos;
	return -1;
}
