// SPDX-License-Identifier: GPL-2.0
/* vbjournald's settings; see config.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "log.h"

#define MAX_INTERVAL_MS	(24ULL * 3600 * 1000)
#define MAX_TIMEOUT_MS	(3600ULL * 1000)
#define MAX_CHANGES	(1ULL << 62)
#define MAX_BYTES	(1ULL << 50)

void vbjd_config_init(struct vbjd_config *c)
{
	memset(c, 0, sizeof(*c));
	c->interval_ms = 5000;
	c->timeout_ms = 10000;
	c->max_changes = 10000000;
}

/* "vbjournald: WHERE: KEY: " or "vbjournald: --KEY: ", then the text. */
static int bad(const char *where, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(const char *where, const char *key, const char *fmt, ...)
{
	char msg[4600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (where)
		vbjd_log(LOG_ERR, "%s: %s: %s", where, key, msg);
	else
		vbjd_log(LOG_ERR, "--%s: %s", key, msg);
	return -1;
}

static int duration(const char *where, const char *key, const char *val,
		    unsigned long long max, unsigned int *out)
{
	unsigned long long v;

	if (cli_parse_ms(val, 1, max, &v))
		return bad(where, key, "'%s' is not a time from 1 ms to %llu ms "
			   "(e.g. 500ms, 5s, 2m, 1h; no unit: ms)", val, max);
	*out = v;
	return 0;
}

static int boolean(const char *where, const char *key, const char *val,
		   bool *out)
{
	if (cli_parse_bool(val, out))
		return bad(where, key, "'%s' is not yes or no (also true/false, "
			   "on/off, 1/0)", val);
	return 0;
}

int vbjd_config_set(struct vbjd_config *c, const char *key, const char *val,
		    const char *where)
{
	unsigned long long v;
	char *copy;

	if (!strcmp(key, "interval"))
		return duration(where, key, val, MAX_INTERVAL_MS, &c->interval_ms);
	if (!strcmp(key, "timeout"))
		return duration(where, key, val, MAX_TIMEOUT_MS, &c->timeout_ms);
	if (!strcmp(key, "max-changes")) {
		if (cli_parse_uint(val, 1, MAX_CHANGES, &v))
			return bad(where, key, "'%s' is not a whole number from "
				   "1 to %llu", val, MAX_CHANGES);
		c->max_changes = v;
		return 0;
	}
	if (!strcmp(key, "max-size")) {
		if (cli_parse_size(val, 0, MAX_BYTES, &v))
			return bad(where, key, "'%s' is not a size from 0 (none) "
				   "to 1024T (e.g. 512M, 2G; no unit: bytes)", val);
		c->max_bytes = v;
		return 0;
	}
	if (!strcmp(key, "fail-closed"))
		return boolean(where, key, val, &c->fail_closed);
	if (!strcmp(key, "refuse-unwaited"))
		return boolean(where, key, val, &c->refuse_unwaited);
	if (!strcmp(key, "force"))
		return boolean(where, key, val, &c->force);
	if (!strcmp(key, "verbose"))
		return boolean(where, key, val, &c->verbose);
	if (strcmp(key, "fs") && strcmp(key, "journal")) {
		if (where)
			vbjd_log(LOG_ERR, "%s: unknown key '%s'", where, key);
		else
			vbjd_log(LOG_ERR, "unknown setting '%s'", key);
		return -1;
	}
	if (!val[0])
		return bad(where, key, "empty path");
	if (!strcmp(key, "fs") && c->nfs == VBJD_MAX_FS)
		return bad(where, key, "%s: at most %d filesystems", val,
			   VBJD_MAX_FS);
	copy = strdup(val);
	if (!copy)
		return bad(where, key, "%s", strerror(ENOMEM));
	if (!strcmp(key, "fs"))
		c->fs[c->nfs++] = copy;
	else
		c->journal = copy;
	return 0;
}

/*
 * line (no newline) into *key and *val, in place: 1 a setting, 0 blank
 * or comment, -1 after saying what is wrong.
 */
static int split(char *line, const char *where, char **key, char **val)
{
	char *p = line + strspn(line, " \t"), *e, *o;

	if (!*p || *p == '#')
		return 0;
	*key = p;
	p += strcspn(p, " \t");
	if (*p)
		*p++ = 0;
	p += strspn(p, " \t");
	if (!*p)
		return bad(where, *key, "no value");
	if (*p != '"') {
		/* the rest of the line, without trailing blanks */
		e = p + strlen(p);
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		*e = 0;
		*val = p;
		return 1;
	}
	/* "...": \" and \\ inside; nothing but blanks after it */
	*val = o = ++p;
	for (; *p && *p != '"'; p++) {
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
			p++;
		*o++ = *p;
	}
	if (*p != '"')
		return bad(where, *key, "unterminated quote");
	*o = 0;
	p++;
	if (p[strspn(p, " \t")])
		return bad(where, *key, "text after the closing quote");
	return 1;
}

int vbjd_config_file(struct vbjd_config *c, const char *file)
{
	char *line = NULL, where[4200];
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, ret = 0;
	FILE *f = fopen(file, "re");

	if (!f) {
		vbjd_log(LOG_ERR, "%s: %s", file, strerror(errno));
		return -1;
	}
	while (!ret && (n = getline(&line, &cap, f)) >= 0) {
		char *key = NULL, *val = NULL;

		lineno++;
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		if (strlen(line) != (size_t)n) {
			vbjd_log(LOG_ERR, "%s:%d: a NUL byte", file, lineno);
			ret = -1;
			break;
		}
		snprintf(where, sizeof(where), "%s:%d", file, lineno);
		switch (split(line, where, &key, &val)) {
		case 1:
			ret = vbjd_config_set(c, key, val, where);
			break;
		case -1:
			ret = -1;
			break;
		}
	}
	if (!ret && ferror(f)) {
		vbjd_log(LOG_ERR, "%s: %s", file, strerror(errno));
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

int vbjd_config_check(const struct vbjd_config *c)
{
	if (!c->nfs) {
		vbjd_log(LOG_ERR, "no filesystem to journal (--fs PATH, or fs "
			 "in the config file)");
		return -1;
	}
	if (!c->journal) {
		vbjd_log(LOG_ERR, "no journal directory (--journal DIR, or "
			 "journal in the config file)");
		return -1;
	}
	return 0;
}

void vbjd_config_print(const struct vbjd_config *c, FILE *f)
{
	int i;

	for (i = 0; i < c->nfs; i++) {
		fputs("fs ", f);
		cli_escape(f, c->fs[i], strlen(c->fs[i]));
		fputc('\n', f);
	}
	fputs("journal ", f);
	cli_escape(f, c->journal, strlen(c->journal));
	fprintf(f, "\ninterval %ums\ntimeout %ums\nmax-changes %" PRId64 "\n"
		"max-size %" PRId64 "\n"
		"fail-closed %s\nrefuse-unwaited %s\nforce %s\nverbose %s\n",
		c->interval_ms, c->timeout_ms, c->max_changes, c->max_bytes,
		c->fail_closed ? "yes" : "no", c->refuse_unwaited ? "yes" : "no",
		c->force ? "yes" : "no", c->verbose ? "yes" : "no");
}

int vbjd_config_src_add(struct vbjd_config_src *src, const char *file,
			const char *key, const char *val)
{
	if (src->n == VBJD_MAX_SRC) {
		vbjd_log(LOG_ERR, "more than %d options", VBJD_MAX_SRC);
		return -1;
	}
	src->item[src->n].file = file;
	src->item[src->n].key = key;
	src->item[src->n].val = val;
	src->n++;
	return 0;
}

int vbjd_config_load(struct vbjd_config *c, const struct vbjd_config_src *src)
{
	int i;

	vbjd_config_init(c);
	for (i = 0; i < src->n; i++) {
		const struct vbjd_config_item *it = &src->item[i];

		if (it->file ? vbjd_config_file(c, it->file) :
		    vbjd_config_set(c, it->key, it->val, NULL))
			return -1;
	}
	return vbjd_config_check(c);
}

void vbjd_config_free(struct vbjd_config *c)
{
	int i;

	for (i = 0; i < c->nfs; i++)
		free((char *)c->fs[i]);
	free((char *)c->journal);
	vbjd_config_init(c);
}

/* Whether a and b journal the same filesystems in the same journal. */
static bool same_places(const struct vbjd_config *a,
			const struct vbjd_config *b)
{
	int i;

	if (a->nfs != b->nfs || strcmp(a->journal, b->journal))
		return false;
	for (i = 0; i < a->nfs; i++)
		if (strcmp(a->fs[i], b->fs[i]))
			return false;
	return true;
}

int vbjd_config_apply(struct vbjd_config *cur, const struct vbjd_config *new)
{
	int kept = 0;

	if (!same_places(cur, new)) {
		vbjd_log(LOG_WARNING, "reload: fs and journal take effect at "
			 "the next start (systemctl restart vbjournald)");
		kept++;
	}
	if (cur->timeout_ms != new->timeout_ms ||
	    cur->fail_closed != new->fail_closed ||
	    cur->refuse_unwaited != new->refuse_unwaited) {
		vbjd_log(LOG_WARNING, "reload: timeout, fail-closed and "
			 "refuse-unwaited belong to the subscription: they take "
			 "effect at the next start (systemctl restart "
			 "vbjournald)");
		kept++;
	}
	if (cur->force != new->force) {
		vbjd_log(LOG_WARNING, "reload: force takes effect at the next "
			 "start");
		kept++;
	}
	cur->interval_ms = new->interval_ms;
	cur->max_changes = new->max_changes;
	cur->max_bytes = new->max_bytes;
	cur->verbose = new->verbose;
	return kept;
}
