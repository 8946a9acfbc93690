/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of hooked functions (hooks.c).
 */
#ifndef VFSB_HOOKS_H
#define VFSB_HOOKS_H

void vfsb_hooks_init(void);

#endif /* VFSB_HOOKS_H */
