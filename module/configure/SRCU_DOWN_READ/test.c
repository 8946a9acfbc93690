// SPDX-License-Identifier: GPL-2.0
/* srcu_down_read()/srcu_up_read(): SRCU readers that may end elsewhere (6.2+). */
#include <linux/srcu.h>

int vfsb_probe(struct srcu_struct *ssp)
{
	int idx = srcu_down_read(ssp);

	srcu_up_read(ssp, idx);
	return idx;
}
