// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mlx4dv_wqe_set_data_seg() as a function of its own, compiled for each
 * architecture the header supports; check_store_order.cmake reads the
 * machine code and checks the order of its stores (byte_count last, after
 * the store barrier). A device that prefetches the segment must never see
 * a byte count in front of a stale lkey or address.
 */
#include <infiniband/mlx4dv.h>

void store_order_data_seg(struct mlx4_wqe_data_seg *seg, uint32_t length,
			  uint32_t lkey, uint64_t addr);

void store_order_data_seg(struct mlx4_wqe_data_seg *seg, uint32_t length,
			  uint32_t lkey, uint64_t addr)
{
	mlx4dv_wqe_set_data_seg(seg, length, lkey, addr);
}
