// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion-queue handle from an ibv_cq.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* The header polls 32- and 64-byte CQEs in a power-of-two ring and arms
 * through the UAR; anything else is refused. */
int mlx4dv_priv_cq_layout_check(const struct mlx4dv_cq *dv)
{
	if (!(dv->comp_mask & MLX4DV_CQ_MASK_UAR) || !dv->cq_uar ||
	    !dv->buf.buf || !dv->set_ci_db || !dv->arm_db)
		return ENOTSUP;
	if ((dv->cqe_size != 32 && dv->cqe_size != 64) ||
	    !mlx4dv_priv_is_pow2(dv->cqe_cnt) ||
	    (uint64_t)dv->cqe_cnt * (uint32_t)dv->cqe_size > dv->buf.length)
		return ENOTSUP;
	return 0;
}

int mlx4dv_cq_ring_init(struct mlx4dv_cq_ring *cq, struct ibv_cq *ibcq,
			uint32_t flags)
{
	struct mlx4dv_cq_ring ring;
	struct mlx4dv_cq dv;
	int ret;

	if (!cq || !ibcq || flags)
		return EINVAL;
	ret = mlx4dv_priv_context_check(ibcq->context);
	if (ret)
		return ret;

	ret = mlx4dv_priv_raw_cq(ibcq, &dv);
	if (ret)
		return ret;
	ret = mlx4dv_priv_cq_layout_check(&dv);
	if (ret)
		return ret;

	memset(&ring, 0, sizeof(ring));
	ring.buf = dv.buf.buf;
	ring.cqe_cnt = dv.cqe_cnt;
	ring.cqe_size = (uint32_t)dv.cqe_size;
	/* libmlx4 keeps the record equal to its consumer index modulo 2^24,
	 * enough for the index and the owner parity of any CQ size. */
	ring.cons_index = mlx4dv_be32_to_cpu(*dv.set_ci_db) & 0xffffff;
	ring.arm_sn = (uint32_t)dv.arm_sn;
	ring.cqn = dv.cqn;
	ring.set_ci_db = dv.set_ci_db;
	ring.arm_db = dv.arm_db;
	ring.uar = (uint8_t *)dv.cq_uar;
	*cq = ring;
	return 0;
}

void mlx4dv_cq_ring_release(struct mlx4dv_cq_ring *cq)
{
	(void)cq;
}
