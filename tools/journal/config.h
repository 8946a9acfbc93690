/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vbjournald's settings (config.c): from its options and from a config
 * file of "key value" lines, read strictly. Anything wrong is fatal and
 * said as "--option: ..." or "FILE:LINE: key: ...": a daemon that runs
 * with a setting other than the one written (fail-closed off, 5 ms for
 * "5s") is worse than one that does not start.
 */
#ifndef VBJ_CONFIG_H
#define VBJ_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VBJD_MAX_FS	16

struct vbjd_config {
	const char *fs[VBJD_MAX_FS];
	int nfs;
	const char *journal;
	unsigned int interval_ms;	/* between checkpoints */
	unsigned int timeout_ms;	/* a writer's wait for its ack */
	int64_t max_changes;		/* the journal's size cap, in rows */
	int64_t max_bytes;		/* and in bytes; 0: none */
	bool fail_closed;
	bool refuse_unwaited;
	bool force;
	bool verbose;			/* a line per checkpoint */
};

/*
 * Where the settings come from, in the order given: a config file
 * (file) or one option (key, val). A reload (SIGHUP) reads them again
 * in that order: the file anew, the options as they were.
 */
#define VBJD_MAX_SRC	64

struct vbjd_config_item {
	const char *file;
	const char *key, *val;
};

struct vbjd_config_src {
	int n;
	struct vbjd_config_item item[VBJD_MAX_SRC];
};

/* Appends one source (the strings are not copied). 0 or -1. */
int vbjd_config_src_add(struct vbjd_config_src *src, const char *file,
			const char *key, const char *val);

/*
 * The settings src gives, from the defaults, checked (as
 * vbjd_config_check()). 0, or -1 after saying what is wrong.
 */
int vbjd_config_load(struct vbjd_config *c, const struct vbjd_config_src *src);

/* Frees what a load copied; c is back to the defaults. */
void vbjd_config_free(struct vbjd_config *c);

/*
 * A reload: takes from new what can change while running (interval,
 * max-changes, max-size, verbose) into cur; says, at LOG_WARNING, each
 * other change, which waits for the next start. Returns how many it
 * kept.
 */
int vbjd_config_apply(struct vbjd_config *cur, const struct vbjd_config *new);

/* The defaults (vbjournald(8)). */
void vbjd_config_init(struct vbjd_config *c);

/*
 * One setting: key as in the file (fs, journal, interval, timeout,
 * max-changes, max-size, fail-closed, refuse-unwaited, force), val its text
 * (copied). verbose too. where: NULL for an option ("--key: ..."), else "FILE:LINE"
 * for the file. 0, or -1 after saying what is wrong on stderr.
 */
int vbjd_config_set(struct vbjd_config *c, const char *key, const char *val,
		    const char *where);

/*
 * The file's lines: "key value", the value the rest of the line (blanks
 * around it dropped) or in double quotes (\" and \\ inside); blank lines
 * and lines whose first non-blank is "#" are skipped. 0, or -1 after
 * saying what is wrong.
 */
int vbjd_config_file(struct vbjd_config *c, const char *file);

/* What must hold to run: a filesystem, a journal. 0, or -1 after
   saying what is missing. */
int vbjd_config_check(const struct vbjd_config *c);

/* The settings, as config file lines (--check-config). */
void vbjd_config_print(const struct vbjd_config *c, FILE *f);

#endif /* VBJ_CONFIG_H */
