/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints: /sys/kernel/tracing/events/vfsbarrier/.
 *
 * Only where something rare or administrative happens: barriers, watches,
 * the hooks going in and out, records lost, writes that could not be
 * bracketed. None is on the path every write takes: the one that sits in
 * a write's hook (vfsb_unbracketed) is in its failure branch, and a
 * disabled tracepoint is a static branch that is never taken.
 *
 * Devices are kept as dev_t and printed major:minor, as /proc/self/mountinfo
 * and `vbctl list` name a filesystem. Only plain types cross into this
 * header, so that it needs none of the module's own.
 *
 * trace.c is the one file that defines them (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vfsbarrier

#if !defined(VFSB_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define VFSB_TRACE_H

#include <linux/kdev_t.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <uapi/linux/vfsbarrier.h>

#define vfsb_show_barrier_flags(flags)				\
	__print_flags(flags, "|",				\
		      { VFSB_BARRIER_ALL, "all" },		\
		      { VFSB_BARRIER_EXPEDITED, "expedited" },	\
		      { VFSB_BARRIER_FENCE, "fence" })

#define vfsb_show_rescan(why)					\
	__print_flags(why, "|",					\
		      { VFSB_RESCAN_UNFENCED, "unfenced" },	\
		      { VFSB_RESCAN_NO_MEMORY, "no_memory" },	\
		      { VFSB_RESCAN_NESTING, "nesting" },	\
		      { VFSB_RESCAN_NO_RETURN, "no_return" },	\
		      { VFSB_RESCAN_NO_HOOK, "no_hook" },	\
		      { VFSB_RESCAN_TEST, "test" },		\
		      { VFSB_RESCAN_INTENT, "intent" })

#define vfsb_show_hooks(state)					\
	__print_symbolic(state,					\
			 { VFSB_HOOKS_OFF, "off" },		\
			 { VFSB_HOOKS_LIVE, "live" },		\
			 { VFSB_HOOKS_LINGERING, "lingering" })

/*
 * A barrier (VFSB_IOC_BARRIER, or the barrier of VFSB_IOC_CHECKPOINT)
 * begins: dev is its filesystem, 0:0 with VFSB_BARRIER_ALL; nr_fs the
 * filesystems it waits on.
 */
TRACE_EVENT(vfsb_barrier_start,
	    TP_PROTO(dev_t dev, u32 flags, unsigned int nr_fs),
	    TP_ARGS(dev, flags, nr_fs),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u32, flags)
			     __field(unsigned int, nr_fs)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->flags = flags;
			   __entry->nr_fs = nr_fs;),
	    TP_printk("dev=%d:%d flags=%s nr_fs=%u",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      vfsb_show_barrier_flags(__entry->flags), __entry->nr_fs)
);

/* ... and ends: how long it waited, and what the caller is told. */
TRACE_EVENT(vfsb_barrier_done,
	    TP_PROTO(dev_t dev, u32 flags, u64 waited_ns, int result),
	    TP_ARGS(dev, flags, waited_ns, result),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u32, flags)
			     __field(u64, waited_ns)
			     __field(int, result)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->flags = flags;
			   __entry->waited_ns = waited_ns;
			   __entry->result = result;),
	    TP_printk("dev=%d:%d flags=%s waited_ns=%llu result=%d",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      vfsb_show_barrier_flags(__entry->flags),
		      __entry->waited_ns, __entry->result)
);

/*
 * An opener's watch of a filesystem begins or ends (unwatch or close).
 * fstype has a fixed size: __string()'s helpers differ across kernels.
 */
DECLARE_EVENT_CLASS(vfsb_watch_class,
		    TP_PROTO(dev_t dev, u32 id, const char *fstype),
		    TP_ARGS(dev, id, fstype),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __field(u32, id)
				     __array(char, fstype, 16)),
		    TP_fast_assign(__entry->dev = dev;
				   __entry->id = id;
				   strscpy(__entry->fstype, fstype,
					   sizeof(__entry->fstype));),
		    TP_printk("dev=%d:%d id=%u fstype=%s",
			      MAJOR(__entry->dev), MINOR(__entry->dev),
			      __entry->id, __entry->fstype)
);

DEFINE_EVENT(vfsb_watch_class, vfsb_watch,
	     TP_PROTO(dev_t dev, u32 id, const char *fstype),
	     TP_ARGS(dev, id, fstype)
);

DEFINE_EVENT(vfsb_watch_class, vfsb_unwatch,
	     TP_PROTO(dev_t dev, u32 id, const char *fstype),
	     TP_ARGS(dev, id, fstype)
);

/*
 * A subscriber's ring had no room: a record of dev is lost. lost: how
 * many that ring has lost since its last OVERFLOW record, this one
 * included (what the next OVERFLOW will report).
 */
TRACE_EVENT(vfsb_record_dropped,
	    TP_PROTO(dev_t dev, u64 lost),
	    TP_ARGS(dev, lost),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u64, lost)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->lost = lost;),
	    TP_printk("dev=%d:%d lost=%llu",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->lost)
);

/*
 * An OVERFLOW record goes into a ring: lost records, the last one's
 * sequence number, the first of the nr_devs filesystems it names.
 */
TRACE_EVENT(vfsb_overflow,
	    TP_PROTO(u64 lost, u64 seq, dev_t dev, u32 nr_devs, bool more_devs),
	    TP_ARGS(lost, seq, dev, nr_devs, more_devs),
	    TP_STRUCT__entry(__field(u64, lost)
			     __field(u64, seq)
			     __field(dev_t, dev)
			     __field(u32, nr_devs)
			     __field(bool, more_devs)),
	    TP_fast_assign(__entry->lost = lost;
			   __entry->seq = seq;
			   __entry->dev = dev;
			   __entry->nr_devs = nr_devs;
			   __entry->more_devs = more_devs;),
	    TP_printk("lost=%llu seq=%llu dev=%d:%d nr_devs=%u%s",
		      __entry->lost, __entry->seq,
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->nr_devs,
		      __entry->more_devs ? " more_devs" : "")
);

/*
 * A write on dev goes on outside any section (why: VFSB_RESCAN_*): a
 * barrier will not wait for it, and subscribers are told to rescan.
 */
TRACE_EVENT(vfsb_unbracketed,
	    TP_PROTO(dev_t dev, u32 why),
	    TP_ARGS(dev, why),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(u32, why)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->why = why;),
	    TP_printk("dev=%d:%d why=%s",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      vfsb_show_rescan(__entry->why))
);

/*
 * The hooks change state (VFSB_HOOKS_*): put in (live, or off with the
 * error that stopped them), live again, lingering after the last
 * tracking, taken out. coverage: the VFSB_COV_* groups live now.
 */
TRACE_EVENT(vfsb_hooks,
	    TP_PROTO(u32 state, u32 coverage, int error),
	    TP_ARGS(state, coverage, error),
	    TP_STRUCT__entry(__field(u32, state)
			     __field(u32, coverage)
			     __field(int, error)),
	    TP_fast_assign(__entry->state = state;
			   __entry->coverage = coverage;
			   __entry->error = error;),
	    TP_printk("state=%s coverage=0x%x error=%d",
		      vfsb_show_hooks(__entry->state), __entry->coverage,
		      __entry->error)
);

#endif /* VFSB_TRACE_H */

/*
 * Out of the kernel tree: define_trace.h includes this file again by
 * TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h, which it resolves from its
 * own directory and then the include path; Kbuild puts this directory
 * on that path (-I$(src)), so "." finds it wherever the tree is built.
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE vfsb_trace
#include <trace/define_trace.h>
