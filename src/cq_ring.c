// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion-queue handle from an ibv_cq, and the resize of a CQ that a
 * handle drives.
 */
#include <errno.h>
#include <limits.h>
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

/* libmlx4's layout of ibcq, checked: first that ibcq is libmlx4's at all
 * (the raw read casts to its struct), then that the header can drive it. */
static int cq_layout(struct ibv_cq *ibcq, struct mlx4dv_cq *dv)
{
	int ret = mlx4dv_priv_context_check(ibcq->context);

	if (ret)
		return ret;
	ret = mlx4dv_priv_raw_cq(ibcq, dv);
	if (ret)
		return ret;
	return mlx4dv_priv_cq_layout_check(dv);
}

int mlx4dv_cq_ring_init(struct mlx4dv_cq_ring *cq, struct ibv_cq *ibcq,
			uint32_t flags)
{
	struct mlx4dv_cq_ring ring;
	struct mlx4dv_cq dv;
	int ret;

	if (!cq || !ibcq || flags)
		return EINVAL;
	ret = cq_layout(ibcq, &dv);
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

/*
 * Every slot of the ring device-owned for the index the handle reads there
 * next (from first on): owner bit != lap parity. Erases what libmlx4's
 * resize copied into the new buffer (cq.c mlx4_cq_resize_copy_cqes: the
 * CQEs from libmlx4's own consumer index, which a handle never advances,
 * to the resize CQE), all of them CQEs the handle had taken already.
 */
static void cq_disown_all(struct mlx4dv_cq_ring *cq, uint32_t first)
{
	uint32_t i;

	for (i = 0; i < cq->cqe_cnt; i++) {
		uint32_t n = first + i;

		mlx4dv_set_cqe_owner(mlx4dv_cq_cqe(cq, n),
				     (n & cq->cqe_cnt) ? 0 : MLX4_CQE_OWNER_MASK);
	}
}

int mlx4dv_cq_ring_resize(struct mlx4dv_cq_ring *cq, struct ibv_cq *ibcq,
			  uint32_t cqe)
{
	struct mlx4dv_cq_ring ring;
	struct mlx4dv_cq dv;
	uint32_t taken;
	int ret;

	if (!cq || !ibcq || cqe > INT_MAX)
		return EINVAL;
	ret = cq_layout(ibcq, &dv);
	if (ret)
		return ret;
	if (dv.buf.buf != cq->buf || dv.cqe_cnt != cq->cqe_cnt ||
	    dv.cqn != cq->cqn || dv.set_ci_db != cq->set_ci_db)
		return EINVAL;
	if (mlx4dv_cq_peek(cq))
		return EBUSY;
	/* The device and libmlx4 size the resize by the record's free room. */
	mlx4dv_cq_update_ci(cq);
	taken = cq->cons_index;
	ret = ibv_resize_cq(ibcq, (int)cqe);
	if (ret)
		return ret;
	ret = cq_layout(ibcq, &dv);
	if (ret)
		return ret;
	if (dv.buf.buf == cq->buf && dv.cqe_cnt == cq->cqe_cnt)
		return 0;	/* the same size once rounded: nothing moved */
	/* The device wrote the resize CQE at index taken (nothing was
	 * outstanding) and goes on at taken + 1 in the new buffer. */
	ring = *cq;
	ring.buf = dv.buf.buf;
	ring.cqe_cnt = dv.cqe_cnt;
	ring.cons_index = taken + 1;
	cq_disown_all(&ring, ring.cons_index);
	*cq = ring;
	mlx4dv_cq_update_ci(cq);
	return 0;
}
