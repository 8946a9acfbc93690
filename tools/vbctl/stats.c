// SPDX-License-Identifier: GPL-2.0
/* vbctl stats: VFSB_IOC_STATS, every tracked filesystem however many. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "vfsb.h"
#include "jw.h"
#include "vbctl.h"

#define USAGE "stats [--json]"

static void json_entry(struct jw *j, const struct vfsb_sb_stats *s)
{
	char devs[24];

	jw_obj(j, NULL);
	jw_str(j, "dev", vb_dev_str(s->dev, devs));
	jw_str(j, "fstype", s->fstype);
	jw_uint(j, "watchers", s->watchers);
	jw_bool(j, "unmounted", s->flags & VFSB_STATS_UNMOUNTED);
	jw_uint(j, "sections_begun", s->sections_begun);
	jw_uint(j, "sections_ended", s->sections_ended);
	jw_uint(j, "in_flight", s->in_flight);
	jw_uint(j, "barriers", s->barriers);
	jw_uint(j, "barrier_wait_ns", s->barrier_wait_ns);
	jw_uint(j, "missed", s->missed);
	jw_uint(j, "records", s->records);
	jw_uint(j, "records_lost", s->records_lost);
	jw_end(j);
}

static void text_entry(const struct vfsb_sb_stats *s)
{
	double avg = s->barriers ? s->barrier_wait_ns / 1e3 / s->barriers : 0;
	char devs[24];

	printf("%-9s %-8s %8u %12llu %12llu %9llu %9llu %12.1f %7llu %10llu %8llu%s\n",
	       vb_dev_str(s->dev, devs), s->fstype, s->watchers,
	       (unsigned long long)s->sections_begun,
	       (unsigned long long)s->sections_ended,
	       (unsigned long long)s->in_flight,
	       (unsigned long long)s->barriers, avg,
	       (unsigned long long)s->missed,
	       (unsigned long long)s->records,
	       (unsigned long long)s->records_lost,
	       s->flags & VFSB_STATS_UNMOUNTED ? " (unmounted)" : "");
}

int cmd_stats(struct vbctl *vb, int argc, char **argv)
{
	struct vfsb_sb_stats *st;
	unsigned int i, n;
	bool json;
	struct jw j;
	int ret;

	ret = vb_json_command(vb, argc, argv, USAGE, &json);
	if (ret)
		return ret == VB_HELP ? VB_OK : ret;
	ret = vfsb_stats(vb->dev, &st, &n);
	if (ret)
		return vb_fail("stats", NULL, ret);
	if (json) {
		jw_init(&j, stdout, true);
		jw_arr(&j, NULL);
		for (i = 0; i < n; i++)
			json_entry(&j, &st[i]);
		jw_end(&j);
		ret = jw_close(&j) ? VB_FAILED : VB_OK;
	} else {
		printf("%-9s %-8s %8s %12s %12s %9s %9s %12s %7s %10s %8s\n",
		       "DEV", "FSTYPE", "WATCHERS", "BEGUN", "ENDED", "INFLIGHT",
		       "BARRIERS", "AVG_WAIT_US", "MISSED", "RECORDS", "LOST");
		for (i = 0; i < n; i++)
			text_entry(&st[i]);
		fflush(stdout);
	}
	free(st);
	return ret;
}
