/* SPDX-License-Identifier: GPL-2.0 */
/* The test's own threads and privileges (task.c). */
#ifndef TASK_H
#define TASK_H

#include <sys/types.h>

/* Becomes "nobody" (uid and gid 65534, no groups, so no capabilities):
   0 or -errno. */
int drop_to_nobody(void);

/*
 * Waits until thread tid of this process sleeps (state S or D in
 * /proc), so that a signal sent next finds it blocked in the call under
 * test. Bounded: -1 after about 10 s.
 */
int wait_sleeping(pid_t tid);
/* The same for another process (its main thread). */
int wait_proc_sleeping(pid_t pid);
/*
 * Waits until process pid is in one of states (letters of /proc's stat,
 * e.g. "tT" for stopped), about ms milliseconds at most: 0 or -1.
 */
int wait_proc_state(pid_t pid, const char *states, int ms);

#endif /* TASK_H */
