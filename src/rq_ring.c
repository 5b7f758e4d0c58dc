// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Receive-queue handle from an ibv_qp or from a receive ibv_wq.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum {
	/* One 16-byte scatter entry at least (mlx4_alloc_qp_buf starts
	 * at 4); inline receive may grow a WQE to the largest scatter list
	 * the device takes, 32 entries (512 bytes) on ConnectX-3, and a bit
	 * of margin for firmware that reports more. */
	RQ_MIN_WQE_SHIFT = 4,
	RQ_MAX_WQE_SHIFT = 12,
};

/* The receive part of what mlx4dv_init_obj() reports for a QP or WQ. */
struct rq_layout {
	void		*buf;
	size_t		length;
	__be32		*db;
	uint32_t	wqe_cnt;
	int		wqe_shift;
	int		offset;
};

static int rq_fill(struct mlx4dv_rq_ring *rq, const struct rq_layout *l,
		   struct ibv_context *context, uint32_t qpn, uint32_t flags)
{
	struct mlx4dv_rq_ring ring;
	uint64_t end;

	if (flags & ~(uint32_t)MLX4DV_RING_INIT_WRID)
		return EINVAL;
	if (l->wqe_cnt == 0)
		return ENOENT;
	if (l->wqe_shift < RQ_MIN_WQE_SHIFT || l->wqe_shift > RQ_MAX_WQE_SHIFT ||
	    !mlx4dv_priv_is_pow2(l->wqe_cnt) || l->offset < 0 || !l->buf || !l->db)
		return ENOTSUP;
	end = (uint64_t)l->offset + ((uint64_t)l->wqe_cnt << l->wqe_shift);
	if (end > l->length)
		return ENOTSUP;

	memset(&ring, 0, sizeof(ring));
	ring.buf = (uint8_t *)l->buf + l->offset;
	ring.wqe_cnt = l->wqe_cnt;
	ring.wqe_shift = (uint32_t)l->wqe_shift;
	ring.max_scatter = (1u << ring.wqe_shift) /
			   (uint32_t)sizeof(struct mlx4_wqe_data_seg);
	ring.qpn = qpn;
	ring.db = l->db;
	if (flags & MLX4DV_RING_INIT_WRID) {
		int ret = mlx4dv_priv_wrid_take(ring.buf, context, ring.wqe_cnt,
						&ring.wrid);

		if (ret)
			return ret;
	}
	*rq = ring;
	return 0;
}

/* The receive part of a QP's or a WQ's raw layout: the two structs
 * name these fields alike. */
#define RQ_LAYOUT_OF(dv) ((struct rq_layout){ \
	.buf = (dv).buf.buf, .length = (dv).buf.length, .db = (dv).rdb, \
	.wqe_cnt = (dv).rq.wqe_cnt, .wqe_shift = (dv).rq.wqe_shift, \
	.offset = (dv).rq.offset })

int mlx4dv_rq_ring_init(struct mlx4dv_rq_ring *rq, struct ibv_qp *qp,
			uint32_t flags)
{
	struct mlx4dv_qp dv;
	int ret;

	if (!rq || !qp || (flags & ~(uint32_t)MLX4DV_RING_INIT_WRID))
		return EINVAL;
	ret = mlx4dv_priv_context_check(qp->context);
	if (ret)
		return ret;
	/* Receives of these QPs land elsewhere: on the SRQ, or (XRC) on
	 * the XRC SRQ the sender names. */
	if (qp->srq || qp->qp_type == IBV_QPT_XRC_SEND ||
	    qp->qp_type == IBV_QPT_XRC_RECV)
		return ENOENT;
	ret = mlx4dv_priv_raw_qp(qp, &dv);
	if (ret)
		return ret;
	return rq_fill(rq, &RQ_LAYOUT_OF(dv), qp->context, qp->qp_num, flags);
}

int mlx4dv_wq_ring_init(struct mlx4dv_rq_ring *rq, struct ibv_wq *wq,
			uint32_t flags)
{
	struct mlx4dv_rwq dv;
	int ret;

	if (!rq || !wq || (flags & ~(uint32_t)MLX4DV_RING_INIT_WRID))
		return EINVAL;
	ret = mlx4dv_priv_context_check(wq->context);
	if (ret)
		return ret;
	if (wq->wq_type != IBV_WQT_RQ)
		return ENOTSUP;
	ret = mlx4dv_priv_raw_rwq(wq, &dv);
	if (ret)
		return ret;
	return rq_fill(rq, &RQ_LAYOUT_OF(dv), wq->context, wq->wq_num, flags);
}

void mlx4dv_rq_ring_release(struct mlx4dv_rq_ring *rq)
{
	if (!rq)
		return;
	if (rq->wrid)
		mlx4dv_priv_grant_give_back(rq->buf, 0, rq->wrid);
	rq->wrid = NULL;
}
