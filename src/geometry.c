// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Send-queue limits libmlx4 computes but does not export, recomputed with
 * its arithmetic (rdma-core 44.0 providers/mlx4/verbs.c create_qp_ex and
 * qp.c mlx4_set_sq_sizes). ibv_query_qp() reports the same numbers for a
 * live QP; the SQ handle cross-checks against it.
 */
#include <stdlib.h>

#include "internal.h"

/* The device prefetches up to 2 KB past the producer; libmlx4 keeps that
 * much plus one WQE unused. */
uint32_t mlx4dv_priv_sq_spare_wqes(uint32_t wqe_shift)
{
	return (2048u >> wqe_shift) + 1;
}

/* Bytes of a one-stride WQE left after the segments every WQE of the
 * type carries (control, and datagram or remote-address). */
static uint32_t sq_payload_bytes(uint32_t wqe_shift, enum ibv_qp_type type)
{
	uint32_t bytes = (1u << wqe_shift) - sizeof(struct mlx4_wqe_ctrl_seg);

	switch (type) {
	case IBV_QPT_UD:
		bytes -= sizeof(struct mlx4_wqe_datagram_seg);
		break;
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_XRC_SEND:
		bytes -= sizeof(struct mlx4_wqe_raddr_seg);
		break;
	default:
		break;
	}
	return bytes;
}

uint32_t mlx4dv_priv_sq_libmlx4_max_gather(uint32_t wqe_shift,
					   enum ibv_qp_type type)
{
	return sq_payload_bytes(wqe_shift, type) /
	       sizeof(struct mlx4_wqe_data_seg);
}

/* One 4-byte inline header per started 64-byte chunk, because an inline
 * segment may not cross a 64-byte boundary. */
uint32_t mlx4dv_priv_sq_libmlx4_max_inline(uint32_t wqe_shift,
					   enum ibv_qp_type type)
{
	uint32_t bytes = sq_payload_bytes(wqe_shift, type);
	uint32_t chunks = (bytes + MLX4_INLINE_ALIGN - 1) / MLX4_INLINE_ALIGN;

	return bytes - chunks * (uint32_t)sizeof(struct mlx4_wqe_inline_seg);
}

/* ds of the segments in front of the payload (what sq_payload_bytes()
 * takes off, in 16-byte units). */
static uint32_t sq_fixed_ds(enum ibv_qp_type type)
{
	uint32_t bytes = sizeof(struct mlx4_wqe_ctrl_seg);

	switch (type) {
	case IBV_QPT_UD:
		bytes += sizeof(struct mlx4_wqe_datagram_seg);
		break;
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_XRC_SEND:
		bytes += sizeof(struct mlx4_wqe_raddr_seg);
		break;
	default:
		break;
	}
	return bytes / 16;
}

/*
 * libmlx4's limits fill one stride, but a WQE is at most 63 ds (the 6-bit
 * size field): from the 1024-byte stride on, a stride holds more than a
 * WQE can. The handle reports what a post accepts.
 */
uint32_t mlx4dv_priv_sq_max_gather(uint32_t wqe_shift, enum ibv_qp_type type)
{
	uint32_t gather = mlx4dv_priv_sq_libmlx4_max_gather(wqe_shift, type);
	uint32_t fit = MLX4DV_WQE_MAX_DS - sq_fixed_ds(type);

	return gather < fit ? gather : fit;
}

uint32_t mlx4dv_priv_sq_max_inline(uint32_t wqe_shift, enum ibv_qp_type type)
{
	uint32_t fixed = sq_fixed_ds(type);
	uint32_t bytes = mlx4dv_priv_sq_libmlx4_max_inline(wqe_shift, type);

	/* The posts size inline data with mlx4dv_inline_ds(); at most a few
	 * hundred steps, once per handle. */
	while (bytes &&
	       fixed + mlx4dv_inline_ds((fixed & 3) << 4, bytes) > MLX4DV_WQE_MAX_DS)
		bytes--;
	return bytes;
}

uint64_t *mlx4dv_priv_wrid_alloc(uint32_t count)
{
	return calloc(count, sizeof(uint64_t));
}
