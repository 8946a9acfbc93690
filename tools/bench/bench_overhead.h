/* SPDX-License-Identifier: GPL-2.0 */
/* The commands of bench_overhead (overhead.c, scaling.c, hooks.c). */
#ifndef VFSB_BENCH_OVERHEAD_H
#define VFSB_BENCH_OVERHEAD_H

int cmd_overhead(const char *out);
int cmd_scaling(const char *out);
int cmd_hooks(const char *out);

#endif /* VFSB_BENCH_OVERHEAD_H */
