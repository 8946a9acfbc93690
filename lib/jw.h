/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jw: a streaming JSON writer with the comma bookkeeping done for the
 * caller, so that what vbctl and the benchmarks print is valid JSON by
 * construction. Keys are NULL inside arrays. Numbers that are NAN or
 * infinite are written as null (a figure not measured). Strings are
 * escaped, and bytes that are not UTF-8 are written as U+FFFD: JSON
 * text must be UTF-8, file names need not be.
 */
#ifndef VFSB_JW_H
#define VFSB_JW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JW_MAX_DEPTH 32

struct jw {
	FILE *f;
	bool compact;		/* "a":1,"b":2 rather than "a": 1, "b": 2 */
	bool own;		/* jw_open() opened f: jw_close() closes it */
	int depth;
	bool first[JW_MAX_DEPTH];
	char close[JW_MAX_DEPTH];	/* '}' or ']' for each open level */
	int err;		/* -errno; nesting errors are -EINVAL */
};

void jw_init(struct jw *j, FILE *f, bool compact);
/* jw_init() on a new file at path: 0 or -errno. */
int jw_open(struct jw *j, const char *path, bool compact);
/* Ends the text with a newline; closes what jw_open() opened. 0, or
   the first error of the whole writing (-errno, -EINVAL: unbalanced). */
int jw_close(struct jw *j);

void jw_obj(struct jw *j, const char *key);
void jw_arr(struct jw *j, const char *key);
/* Closes the innermost object or array. */
void jw_end(struct jw *j);

void jw_num(struct jw *j, const char *key, double v);
void jw_int(struct jw *j, const char *key, long long v);
void jw_uint(struct jw *j, const char *key, unsigned long long v);
void jw_str(struct jw *j, const char *key, const char *s);
/* len bytes of s, which may hold any byte; returns false when some were
   not UTF-8 (and were written as U+FFFD). */
bool jw_strn(struct jw *j, const char *key, const char *s, size_t len);
/*
 * A name that may hold any byte (a path): key, the string (lossy when
 * it is not UTF-8), and then key_hex, every byte in hex, only when it
 * is not: a consumer takes key_hex when present, key otherwise. In an
 * array (key NULL) only the lossy string.
 */
void jw_bytes(struct jw *j, const char *key, const char *s, size_t len);
void jw_null(struct jw *j, const char *key);
void jw_bool(struct jw *j, const char *key, bool v);

/* Length of the valid UTF-8 sequence at s (at most len bytes left), or
   0 when s does not start one. */
size_t jw_utf8_len(const unsigned char *s, size_t len);

#endif /* VFSB_JW_H */
