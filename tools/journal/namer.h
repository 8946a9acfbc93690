/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vbjournald's namer (namer.c): the paths stored beside the journal's
 * handles (the answer's fallback when a handle cannot be opened at query
 * time), found in a thread of its own with a database connection of its
 * own. Opening a directory's handle may look names up in its ancestors,
 * which takes their locks; a kernel thread waiting for an ack holds its
 * directory's lock while it waits (nfsd, ksmbd, io_uring's workers). So
 * the thread that reads, commits and acks never opens a handle: it only
 * asks the namer to look, and nothing it waits for waits on a lookup.
 */
#ifndef VBJ_NAMER_H
#define VBJ_NAMER_H

#include <stdint.h>

struct vbj_namer;

/*
 * Starts the namer on the journal database db_path, for the nfs
 * filesystems whose journal ids and mount point descriptors are ids and
 * fds (the namer dups the descriptors). 0, or -errno.
 */
int vbj_namer_start(struct vbj_namer **n, const char *db_path,
		    const int64_t *ids, const int *fds, int nfs);

/*
 * Asks for the paths not stored yet: of every changed directory and,
 * when moves_upto is not 0, of every moved one in an epoch up to
 * moves_upto (the epochs closed: a rename's new path exists once it has
 * completed). Never blocks on a lookup.
 */
void vbj_namer_kick(struct vbj_namer *n, int64_t moves_upto);

/* Finishes the round under way, stops the thread and frees n. */
void vbj_namer_stop(struct vbj_namer *n);

#endif /* VBJ_NAMER_H */
