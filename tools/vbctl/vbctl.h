/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vbctl: the command-line front end of /dev/vfsbarrier, one subcommand
 * per ioctl. Shared by its files: the state of one run (or of one
 * watching session, see session.c), error reporting with the exit codes
 * vbctl documents, and option parsing.
 */
#ifndef VBCTL_H
#define VBCTL_H

#include <signal.h>
#include <stdbool.h>
#include <getopt.h>
#include <linux/types.h>

/* Exit codes (vbctl --help says the same). */
enum {
	VB_OK = 0,		/* done */
	VB_FAILED = 1,		/* the operation failed: refused, timed out */
	VB_USAGE = 2,		/* usage or environment: bad option or path,
				   no module, not root */
};

struct vbctl {
	int dev;		/* /dev/vfsbarrier, -1 until opened */
	bool session;		/* commands read by `watch --stdin`: they act
				   on the watcher's own open file */
};

/* Every command: parses its arguments, returns an exit code. */
typedef int (*vb_cmd_fn)(struct vbctl *vb, int argc, char **argv);

int cmd_version(struct vbctl *vb, int argc, char **argv);
int cmd_watch(struct vbctl *vb, int argc, char **argv);
int cmd_unwatch(struct vbctl *vb, int argc, char **argv);
int cmd_list(struct vbctl *vb, int argc, char **argv);
int cmd_barrier(struct vbctl *vb, int argc, char **argv);
int cmd_stats(struct vbctl *vb, int argc, char **argv);
int cmd_stream(struct vbctl *vb, int argc, char **argv);

/* Reads commands from stdin, one per line, and runs them on vb->dev. */
int session_run(struct vbctl *vb);
/* The commands a session accepts (NULL for another name). */
vb_cmd_fn session_command(const char *name);

/* "vbctl: " and the message, on stderr. */
void vb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens the device once (vb->dev): VB_OK, or VB_USAGE after saying
   why (no module, not root). */
int vb_open(struct vbctl *vb);
/* O_PATH fd of path in *fd: VB_OK, or VB_USAGE after saying why. */
int vb_open_path(const char *path, int *fd);
/* Says why the ioctl of command what on path (may be NULL) failed with
   err (-errno); returns the exit code for it. */
int vb_fail(const char *what, const char *path, int err);

/* Every command's option list has it. */
#define VB_OPT_HELP { "help", no_argument, NULL, 'h' }
#define VB_OPT_END { NULL, 0, NULL, 0 }

/* getopt_long() for a command: the arguments after its options (in any
   order: GNU permutation) start at optind. Handles --help (prints usage,
   returns 'h') and bad options (says so, returns '?'). */
int vb_getopt(int argc, char **argv, const struct option *opts,
	      const char *usage);
/* Starts option parsing of a new command line (the session parses many). */
void vb_getopt_reset(void);
/*
 * For a command whose only option is --json (and --help): parses them
 * into *json, refuses arguments, opens the device. VB_OK to go on;
 * VB_HELP when --help was answered; VB_USAGE after saying why not.
 */
#define VB_HELP (-1)
int vb_json_command(struct vbctl *vb, int argc, char **argv, const char *usage,
		    bool *json);
/* A number in [0, max] from an option's argument: VB_OK, or VB_USAGE
   after saying what is wrong with it. */
int vb_number(const char *opt, const char *arg, unsigned long long max,
	      unsigned long long *out);
/* The same for a size in bytes (K, M, G suffixes) and a time in
   milliseconds (ms, s, m, h suffixes; none: ms). */
int vb_size(const char *opt, const char *arg, unsigned long long max,
	    unsigned long long *out);
int vb_ms(const char *opt, const char *arg, unsigned long long max,
	  unsigned long long *out);

/* "M:m" of a dev in the ABI's encoding; buf holds 24 bytes. */
const char *vb_dev_str(__u32 dev, char *buf);
/* A mount point of the filesystem dev (the ABI's encoding), for the
   filesystems vbctl knows only by number: 0, or -ENOENT. */
int vb_mount_point(__u32 dev, char *buf, size_t sz);
/* Whether path (canonical) is the mount point of a mount. */
bool vb_is_mount_point(const char *path);

/* watch --follow PATH... (follow.c): until *stop, or a failure. */
int follow_run(struct vbctl *vb, int argc, char **argv,
	       volatile sig_atomic_t *stop);

#endif /* VBCTL_H */
