// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What the command channel says about the HCA core clock: its frequency
 * and the timestamp mask in QUERY_DEVICE_EX (mlx4_ib_query_device:
 * hca_core_clock = caps.hca_core_clock * 1000 kHz, timestamp_mask
 * 0xffffffffffff), and where the counter sits in the clock page (the
 * driver response's hca_core_clock_offset, valid with
 * MLX4_IB_QUERY_DEV_RESP_MASK_CORE_CLOCK_OFFSET; libmlx4 then maps the
 * page at offset 3 * page size of the device fd).
 */
#include "adapter/clock.h"
#include "cmd/cmd.h"

void emu_clock_caps(struct ib_uverbs_ex_query_device_resp *r,
		    struct mlx4_uverbs_ex_query_device_resp *drv)
{
	r->timestamp_mask = EMU_CQE_TIMESTAMP_MASK;
	r->hca_core_clock = EMU_HCA_CORE_CLOCK_KHZ;
	if (emu_clock_page_fd() < 0)
		return;
	drv->comp_mask |= MLX4_IB_QUERY_DEV_RESP_MASK_CORE_CLOCK_OFFSET;
	drv->hca_core_clock_offset = EMU_CLOCK_PAGE_OFFSET;
}
