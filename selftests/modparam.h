/* SPDX-License-Identifier: GPL-2.0 */
/* The module's parameters (/sys/module/vfsbarrier/parameters/), for tests. */
#ifndef MODPARAM_H
#define MODPARAM_H

#include <stddef.h>

#define VFSB_PARAMS	"/sys/module/vfsbarrier/parameters/"

/* Writes value to the file at path (sysfs, tracefs, procfs): 0 or -errno. */
int sysfs_write(const char *path, const char *value);
/* Its contents, without the trailing newline: 0 or -errno. */
int sysfs_read(const char *path, char *buf, size_t sz);

/* Writes value to parameter name: 0 or -errno. */
int param_set(const char *name, const char *value);
/* Reads parameter name, without the trailing newline: 0 or -errno. */
int param_get(const char *name, char *buf, size_t sz);

/*
 * Waits until the hooks are out (nothing watched, the linger over:
 * hooks_linger_ms is set to 0 first), so that the next watch registers
 * them anew (with fail_hook, say). Bounded: about 30 s; 0 or -ETIMEDOUT.
 */
int wait_hooks_off(int dev);

#endif /* MODPARAM_H */
