// SPDX-License-Identifier: GPL-2.0
/* vbctl version: VFSB_IOC_GET_VERSION. */
#define _GNU_SOURCE
#include <stdio.h>

#include "vfsb.h"
#include "jw.h"
#include "vbctl.h"

#define USAGE "version [--json]"

/* The name of feature bit n, or "bitN" for one vbctl does not know. */
static const char *feature(unsigned int bit, char *buf, size_t sz)
{
	const char *name = vfsb_feature_name(bit);

	if (name)
		return name;
	snprintf(buf, sz, "bit%u", bit);
	return buf;
}

int cmd_version(struct vbctl *vb, int argc, char **argv)
{
	struct vfsb_version v;
	bool json;
	unsigned int bit;
	char other[16];
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
		printf("vfsbarrier module %s, ABI %u\nfeatures:", v.module_version,
		       v.abi_version);
		for (bit = 0; bit < 32; bit++)
			if (v.features & (1U << bit))
				printf(" %s", feature(bit, other, sizeof(other)));
		printf("\n");
		return VB_OK;
	}
	jw_init(&j, stdout, true);
	jw_obj(&j, NULL);
	jw_str(&j, "module_version", v.module_version);
	jw_uint(&j, "abi_version", v.abi_version);
	jw_uint(&j, "vbctl_abi_version", VFSB_ABI_VERSION);
	jw_arr(&j, "features");
	for (bit = 0; bit < 32; bit++)
		if (v.features & (1U << bit))
			jw_str(&j, NULL, feature(bit, other, sizeof(other)));
	jw_end(&j);
	jw_end(&j);
	return jw_close(&j) ? VB_FAILED : VB_OK;
}
