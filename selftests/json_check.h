/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JSON validator for the tests of vbctl's output (json_check.c): RFC
 * 8259 syntax, and UTF-8 strings. Written apart from the writer it
 * checks (libvfsb's jw), so that the two do not share a mistake.
 */
#ifndef JSON_CHECK_H
#define JSON_CHECK_H

#include <stddef.h>

/* 0 when s[0..len) is exactly one JSON value (blanks around it allowed);
   else -1, with *where (may be NULL) the offset of the first error. */
int json_check(const char *s, size_t len, size_t *where);

#endif /* JSON_CHECK_H */
