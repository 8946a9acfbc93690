// SPDX-License-Identifier: GPL-2.0
/* Names escaped for text output; see cli.h. */
#include <string.h>

#include "cli.h"
#include "jw.h"

int cli_escape(FILE *f, const char *s, size_t len)
{
	static const char named[] = "\a\b\t\n\v\f\r";
	static const char letter[] = "abtnvfr";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] == '\\') {
			if (fputs("\\\\", f) == EOF)
				return EOF;
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			const char *c = p[i] ? strchr(named, p[i]) : NULL;
			int r = c ? fprintf(f, "\\%c", letter[c - named]) :
				    fprintf(f, "\\x%02x", p[i]);

			if (r < 0)
				return EOF;
			i++;
		} else if ((n = jw_utf8_len(p + i, len - i))) {
			if (fwrite(p + i, 1, n, f) != n)
				return EOF;
			i += n;
		} else {
			if (fprintf(f, "\\x%02x", p[i]) < 0)
				return EOF;
			i++;
		}
	}
	return 0;
}
