// SPDX-License-Identifier: GPL-2.0
/* Numbers, sizes, durations and booleans from the command line and
   config files; see cli.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* Decimal digits at s, then *end: 0, -EINVAL, -ERANGE (beyond max). */
static int digits(const char *s, char **end, unsigned long long max,
		  unsigned long long *out)
{
	unsigned long long v;

	/* strtoull() would take blanks, a sign, "0x" and octal */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* v * mul, when it stays within max. */
static int scale(unsigned long long v, unsigned long long mul,
		 unsigned long long max, unsigned long long *out)
{
	if (v && mul > max / v)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int cli_parse_uint(const char *s, unsigned long long min,
		   unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;
	int ret = digits(s, &end, max, &v);

	if (ret)
		return ret;
	if (*end)
		return -EINVAL;
	if (v < min)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_size(const char *s, unsigned long long min,
		   unsigned long long max, unsigned long long *out)
{
	static const char units[] = "KMGT";
	unsigned long long v, mul = 1;
	const char *u;
	char *end;
	int ret = digits(s, &end, ~0ULL, &v);

	if (ret)
		return ret;
	if (*end) {
		u = strchr(units, *end);
		if (!u)
			return -EINVAL;
		mul <<= 10 * (u - units + 1);
		end++;
		/* K, KiB; B alone after a unit is not binary-or-not: no */
		if (*end && strcmp(end, "iB"))
			return -EINVAL;
	}
	ret = scale(v, mul, max, &v);
	if (ret)
		return ret;
	if (v < min)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_ms(const char *s, unsigned long long min, unsigned long long max,
		 unsigned long long *out)
{
	static const struct {
		const char *name;
		unsigned long long ms;
	} units[] = {
		{ "", 1 }, { "ms", 1 }, { "s", 1000 }, { "m", 60000 },
		{ "min", 60000 }, { "h", 3600000 },
	};
	unsigned long long v;
	size_t i;
	char *end;
	int ret = digits(s, &end, ~0ULL, &v);

	if (ret)
		return ret;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		ret = scale(v, units[i].ms, max, &v);
		if (ret)
			return ret;
		if (v < min)
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}

int cli_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}
