// SPDX-License-Identifier: GPL-2.0
/* vbctl version: VFSB_IOC_GET_VERSION. */
#define _GNU_SOURCE
#include <stdio.h>

#include "vfsb.h"
#include "jw.h"
#include "vbctl.h"

#define USAGE "version [--json]"

/* The name of bit n by name(), or "bitN" for one vbctl does not know. */
static const char *bit_name(const char *(*name)(unsigned int), unsigned int bit,
			    char *buf, size_t sz)
{
	const char *n = name(bit);

	if (n)
		return n;
	snprintf(buf, sz, "bit%u", bit);
	return buf;
}

static void print_bits(const char *what, __u32 bits,
		       const char *(*name)(unsigned int))
{
	unsigned int bit;
	char other[16];

	printf("%s:", what);
	for (bit = 0; bit < 32; bit++)
		if (bits & (1U << bit))
			printf(" %s", bit_name(name, bit, other, sizeof(other)));
	printf("%s\n", bits ? "" : " none");
}

static void json_bits(struct jw *j, const char *key, __u32 bits,
		      const char *(*name)(unsigned int))
{
	unsigned int bit;
	char other[16];

	jw_arr(j, key);
	for (bit = 0; bit < 32; bit++)
		if (bits & (1U << bit))
			jw_str(j, NULL, bit_name(name, bit, other, sizeof(other)));
	jw_end(j);
}

/*
 * Coverage: the write paths the hooks bracket right now. The hooks are
 * in only while some filesystem is watched (and a few seconds after): a
 * consumer reads this after watching.
 */
int cmd_version(struct vbctl *vb, int argc, char **argv)
{
	struct vfsb_version v;
	bool json;
	struct jw j;
	int ret;

	ret = vb_json_command(vb, argc, argv, USAGE, &json);
	if (ret)
		return ret == VB_HELP ? VB_OK : ret;
	ret = vfsb_get_version(vb->dev, &v);
	if (ret)
		return vb_fail("version", NULL, ret);
	if (v.abi_version != VFSB_ABI_VERSION)
		vb_err("warning: the module speaks ABI %u, vbctl ABI %u",
		       v.abi_version, VFSB_ABI_VERSION);
	if (!json) {
		printf("vfsbarrier module %s, ABI %u\n", v.module_version,
		       v.abi_version);
		print_bits("features", v.features, vfsb_feature_name);
		printf("hooks: %s\n", vfsb_hooks_state_name(v.hooks));
		print_bits("coverage", v.coverage, vfsb_coverage_name);
		print_bits("uncovered", v.coverage_known & ~v.coverage,
			   vfsb_coverage_name);
		print_bits("intent unwaited", v.intent_unwaited,
			   vfsb_coverage_name);
		return VB_OK;
	}
	jw_init(&j, stdout, true);
	jw_obj(&j, NULL);
	jw_str(&j, "module_version", v.module_version);
	jw_uint(&j, "abi_version", v.abi_version);
	jw_uint(&j, "vbctl_abi_version", VFSB_ABI_VERSION);
	json_bits(&j, "features", v.features, vfsb_feature_name);
	jw_str(&j, "hooks", vfsb_hooks_state_name(v.hooks));
	json_bits(&j, "coverage", v.coverage, vfsb_coverage_name);
	json_bits(&j, "uncovered", v.coverage_known & ~v.coverage,
		  vfsb_coverage_name);
	json_bits(&j, "intent_unwaited", v.intent_unwaited,
		  vfsb_coverage_name);
	jw_end(&j);
	return jw_close(&j) ? VB_FAILED : VB_OK;
}
