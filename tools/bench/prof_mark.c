// SPDX-License-Identifier: GPL-2.0
/*
 * prof_mark: runs the instruction tools/prof/tbcount.c takes as a mark
 * ("xchg %bx, %bx", which does nothing), so that the QEMU plugin saves
 * its counts so far. scripts/profile.sh's boots only.
 */
int main(void)
{
	asm volatile("xchg %%bx, %%bx" ::: "memory");
	return 0;
}
