// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifetime: repeated load/unload leaks nothing visible in
 * /proc/slabinfo and leaves no reference behind; an open device pins
 * the module.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <grp.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>

#include "vfsb.h"
#include "kselftest_harness.h"

#define CYCLES 300
#define MAX_CACHES 512
#define SETTLE_ROUNDS 100

struct slab_snap {
	int n;
	char name[MAX_CACHES][64];
	long active[MAX_CACHES];
	long per_slab[MAX_CACHES];
};

/*
 * SLUB counts the free objects of per-CPU slabs and per-CPU partial
 * lists as active: several slabs per CPU of noise in a cache that the
 * loop churns (pool_workqueue on 6.12: +176 objects that never drained).
 * Shrinking every cache first flushes those, so the counts are real.
 */
static int shrink_slabs(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	int fd, shrunk = 0;
	struct dirent *e;
	char path[320];

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		shrunk += write(fd, "1", 1) == 1;
		close(fd);
	}
	closedir(d);
	return shrunk;
}

static int snap_slabs(struct slab_snap *s)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512];

	if (!f)
		return -errno;
	s->n = 0;
	while (fgets(line, sizeof(line), f) && s->n < MAX_CACHES) {
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		long total, size;

		if (sscanf(line, "%63s %ld %ld %ld %ld", s->name[s->n],
			   &s->active[s->n], &total, &size,
			   &s->per_slab[s->n]) == 5)
			s->n++;
	}
	fclose(f);
	return 0;
}

/*
 * Growth of each cache beyond what slab granularity explains. SLUB counts
 * the free objects of per-CPU slabs as active, so one fresh slab of noise
 * is normal; a leak of one object per cycle grows a cache by CYCLES.
 * Returns the largest excess over CYCLES / 2 + one slab (<= 0: no leak).
 */
static long worst_excess(const struct slab_snap *a, const struct slab_snap *b,
			 const char **which, long *growth)
{
	long worst = -CYCLES;
	int i, j;

	for (j = 0; j < b->n; j++) {
		long before = 0, excess;

		for (i = 0; i < a->n; i++)
			if (!strcmp(a->name[i], b->name[j]))
				before = a->active[i];
		excess = b->active[j] - before - CYCLES / 2 - b->per_slab[j];
		if (excess > worst) {
			worst = excess;
			*which = b->name[j];
			*growth = b->active[j] - before;
		}
	}
	return worst;
}

static int cycle(void)
{
	int ret, fd;

	ret = vfsb_module_load();
	if (ret)
		return ret;
	/* exercise open/ioctl/close as every user does */
	fd = vfsb_open();
	if (fd < 0)
		return fd;
	{
		struct vfsb_version v;

		ret = vfsb_ioctl(fd, VFSB_IOC_GET_VERSION, &v);
	}
	close(fd);
	if (ret)
		return ret;
	return vfsb_module_unload();
}

/* an empty fixture, for TEST_F_TIMEOUT: unloading after earlier tests
 * takes the lingering hooks out, which takes seconds under TCG */
FIXTURE(mod) {
	int unused;
};

FIXTURE_SETUP(mod)
{
}

FIXTURE_TEARDOWN(mod)
{
}

TEST_F_TIMEOUT(mod, load_unload_loop_leaks_nothing, 600)
{
	static struct slab_snap before, after;
	const char *which = "none";
	long growth = 0, excess;
	int i, shrunk;

	/* earlier tests' tracking may still be tearing down */
	if (vfsb_module_loaded()) {
		ASSERT_EQ(0, vfsb_module_wait_refcnt(0, 30000));
		ASSERT_EQ(0, vfsb_module_unload());
	}
	/* one warm-up cycle so that first-use allocations do not count */
	ASSERT_EQ(0, cycle());
	shrunk = shrink_slabs();
	ASSERT_EQ(0, snap_slabs(&before));
	for (i = 0; i < CYCLES; i++)
		ASSERT_EQ(0, cycle()) TH_LOG("cycle %d", i);
	/*
	 * The debug kernel (KASAN, kmemleak) keeps freed objects in KASAN's
	 * quarantine, where slabinfo counts them as active; there kmemleak,
	 * run by the guest after the tests, is the leak check instead.
	 */
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (!access("/sys/kernel/debug/kmemleak", F_OK)) {
		ASSERT_EQ(0, vfsb_module_load());
		SKIP(return, "kmemleak kernel: the guest's kmemleak scan checks leaks");
	}
	/*
	 * Some frees the unload starts finish later, after an RCU grace
	 * period (kernfs nodes, a destroyed workqueue's parts). Let them
	 * drain: a grace period per round, up to SETTLE_ROUNDS; a leak
	 * does not drain.
	 */
	for (i = 0; i < SETTLE_ROUNDS; i++) {
		shrink_slabs();
		ASSERT_EQ(0, snap_slabs(&after));
		excess = worst_excess(&before, &after, &which, &growth);
		if (excess <= 0)
			break;
		syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
		usleep(100 * 1000);
	}
	if (i < SETTLE_ROUNDS)
		TH_LOG("slab counts settled after %d round(s)", i + 1);
	TH_LOG("after %d cycles the closest cache to a leak is %s: +%ld objects (%d caches shrunk before counting)",
	       CYCLES, which, growth, shrunk);
	EXPECT_GE(0, excess);
	EXPECT_FALSE(vfsb_module_loaded());
	ASSERT_EQ(0, vfsb_module_load());
}

TEST_F_TIMEOUT(mod, open_device_pins_module, 120)
{
	int fd;

	if (!vfsb_module_loaded())
		ASSERT_EQ(0, vfsb_module_load());
	ASSERT_EQ(0, vfsb_module_wait_refcnt(0, 30000));
	fd = vfsb_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(1, vfsb_module_refcnt());
	EXPECT_EQ(-EWOULDBLOCK, vfsb_module_unload());
	close(fd);
	EXPECT_EQ(0, vfsb_module_refcnt());
	/* and it unloads once the device is closed */
	EXPECT_EQ(0, vfsb_module_unload());
	EXPECT_EQ(0, vfsb_module_load());
}

TEST_HARNESS_MAIN
