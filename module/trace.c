// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints of vfsb_trace.h, defined here and nowhere else.
 *
 * CREATE_TRACE_POINTS makes define_trace.h read the header several more
 * times with its macros redefined, emitting the tracepoints' code and
 * their tracefs descriptions. A file of its own keeps that away from
 * every other file's includes and macros (pr_fmt, compat.h's wrappers);
 * the users include the header as a plain declaration.
 */
#define CREATE_TRACE_POINTS
#include "vfsb_trace.h"
