/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vbjournal mirror SRC DST (mirror.c): an incremental one-way mirror
 * driven by the journal's answers, rsync doing every transfer.
 */
#ifndef VBJ_MIRROR_H
#define VBJ_MIRROR_H

/*
 * The whole command line of vbjournal, whose command is "mirror".
 * Returns the exit status (vbjournal(1), mirror).
 */
int vbj_mirror_main(int argc, char **argv);

#endif /* VBJ_MIRROR_H */
