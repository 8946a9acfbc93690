// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin (QEMU 7.2, plugin API version 1) that counts the
 * guest's executed instructions by translation block: for each block's
 * first address, its instructions and how many times it ran. Each time
 * the guest executes "xchg %bx, %bx" (66 87 db: an instruction that does
 * nothing, which a program runs to say "now"), the counts so far go to
 * out=FILE.N (N = 0, 1, ...); the difference of two is what ran between
 * them.
 *
 * Only what this plugin uses of the API is declared here: the calls,
 * their types and the version are QEMU's interface, stable within API
 * version 1 (QEMU 4.2 to 8.1).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
	void (*cb)(unsigned int vcpu, void *udata),
	enum qemu_plugin_cb_flags flags, void *udata);

EXPORT int qemu_plugin_version = 1;

/* One block: its address and size, how often it ran (open hashing). */
struct blk {
	uint64_t addr;
	uint64_t insns;
	uint64_t runs;
	struct blk *next;
};

#define HBITS 20
static struct blk *table[1 << HBITS];
static const char *out = "tbcount";
static unsigned int snaps;

static struct blk *blk_of(uint64_t addr, uint64_t insns)
{
	uint64_t h = (addr * 0x9e3779b97f4a7c15ULL) >> (64 - HBITS);
	struct blk *b;

	/* a block translated again (same start, maybe another length) */
	for (b = table[h]; b; b = b->next)
		if (b->addr == addr && b->insns == insns)
			return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->addr = addr;
	b->insns = insns;
	b->next = table[h];
	table[h] = b;
	return b;
}

static void snapshot(unsigned int vcpu, void *udata)
{
	char path[4096];
	struct blk *b;
	FILE *f;
	size_t i;

	(void)vcpu;
	(void)udata;
	snprintf(path, sizeof(path), "%s.%u", out, snaps++);
	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i < (1u << HBITS); i++)
		for (b = table[i]; b; b = b->next)
			if (b->runs)
				fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
					b->addr, b->insns, b->runs);
	fclose(f);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static const unsigned char magic[] = { 0x66, 0x87, 0xdb };
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct blk *b = blk_of(qemu_plugin_tb_vaddr(tb), n);

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(magic) &&
		    !memcmp(qemu_plugin_insn_data(insn), magic, sizeof(magic)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, snapshot,
						QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb,
						 QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->runs, 1);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
		else
			return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	return 0;
}
