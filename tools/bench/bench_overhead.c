// SPDX-License-Identifier: GPL-2.0
/*
 * Per-operation cost of the write paths vfsbarrier hooks, in each
 * configuration side by side in one boot (issue items 1 and 5a).
 *
 *   bench_overhead overhead OUT.json   configurations x operations x fs
 *   bench_overhead scaling OUT.json    0, 1, 10, 100 watched superblocks
 *   bench_overhead hooks OUT.json      hook callbacks per operation
 *                                      (a VFSB_HOOK_STATS=y module)
 *
 * A run is one tight loop of an operation, sized at start so that it
 * takes about VFSB_BENCH_RUN_MS in the baseline. A round runs every
 * operation in every configuration; the configurations are interleaved
 * as finely as switching between them allows (see cmd_overhead()), in
 * alternating (ABBA) orders. A figure is the median over the rounds, a
 * ratio the median of the per-round ratios to that round's baseline,
 * with half the range as the spread; "best" ratios compare the fastest
 * runs, which a busy host disturbs least. A configuration that cannot
 * be measured yet (the record stream) has a reason instead of a setup
 * and shows up as null / "n/a (...)".
 */
#include "common.h"
#include "bench_overhead.h"

int main(int argc, char **argv)
{
	static const struct bench_cmd cmds[] = {
		{ "overhead", cmd_overhead },
		{ "scaling", cmd_scaling },
		{ "hooks", cmd_hooks },
	};

	return bench_main(argc, argv, "bench_overhead", cmds, ARRAY_SIZE(cmds));
}
