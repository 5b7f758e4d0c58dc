// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Every handle of one QP in one call.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

static int qp_rings_cqs(struct mlx4dv_qp_rings *r, struct ibv_qp *qp)
{
	int ret;

	if (qp->send_cq) {
		ret = mlx4dv_cq_ring_init(&r->send_cq, qp->send_cq, 0);
		if (ret)
			return ret;
	}
	if (qp->recv_cq == qp->send_cq) {
		r->recv_cq = r->send_cq;
		if (qp->send_cq)
			r->flags |= MLX4DV_QP_RINGS_SHARED_CQ;
		return 0;
	}
	if (qp->recv_cq)
		return mlx4dv_cq_ring_init(&r->recv_cq, qp->recv_cq, 0);
	return 0;
}

/* A QP with a receive queue of its own marks its receive CQ's handle
 * (both copies when the CQ is shared), for the MLX4DV_DEBUG check that
 * mlx4dv_cq_poll_srq() never takes that QP's CQEs. */
static void qp_rings_mark_recv_cq(struct mlx4dv_qp_rings *r, struct ibv_qp *qp)
{
	uint32_t mark = MLX4DV_CQ_RECV_RQ | (qp->qp_num & MLX4DV_CQ_RECV_QPN_MASK);

	if (!qp->recv_cq || (r->flags & (MLX4DV_QP_RINGS_NO_RQ |
					 MLX4DV_QP_RINGS_RQ_ON_SRQ)))
		return;
	r->recv_cq.recv_from = mark;
	if (r->flags & MLX4DV_QP_RINGS_SHARED_CQ)
		r->send_cq.recv_from = mark;
}

int mlx4dv_qp_rings_init(struct mlx4dv_qp_rings *rings, struct ibv_qp *qp,
			 uint32_t flags)
{
	struct mlx4dv_qp_rings r;
	int ret;

	if (!rings || !qp ||
	    (flags & ~(uint32_t)(MLX4DV_RING_INIT_WRID |
				 MLX4DV_RING_INIT_BLUEFLAME)))
		return EINVAL;
	ret = mlx4dv_priv_context_check(qp->context);
	if (ret)
		return ret;

	memset(&r, 0, sizeof(r));
	ret = mlx4dv_sq_ring_init(&r.sq, qp, flags);
	if (ret == ENOENT)
		r.flags |= MLX4DV_QP_RINGS_NO_SQ;
	else if (ret)
		return ret;

	if (qp->srq) {
		r.flags |= MLX4DV_QP_RINGS_RQ_ON_SRQ;
	} else {
		ret = mlx4dv_rq_ring_init(&r.rq, qp,
					  flags & MLX4DV_RING_INIT_WRID);
		if (ret == ENOENT)
			r.flags |= MLX4DV_QP_RINGS_NO_RQ;
		else if (ret)
			goto err_sq;
	}
	if ((r.flags & MLX4DV_QP_RINGS_NO_SQ) &&
	    (r.flags & (MLX4DV_QP_RINGS_NO_RQ | MLX4DV_QP_RINGS_RQ_ON_SRQ))) {
		ret = ENOENT;
		goto err_sq;
	}

	/* Last, because converting a CQ marks it in libmlx4. */
	ret = qp_rings_cqs(&r, qp);
	if (ret)
		goto err_rq;
	qp_rings_mark_recv_cq(&r, qp);
	*rings = r;
	return 0;

err_rq:
	mlx4dv_rq_ring_release(&r.rq);
err_sq:
	mlx4dv_sq_ring_release(&r.sq);
	return ret;
}

void mlx4dv_qp_rings_release(struct mlx4dv_qp_rings *rings)
{
	if (!rings)
		return;
	mlx4dv_sq_ring_release(&rings->sq);
	mlx4dv_rq_ring_release(&rings->rq);
	mlx4dv_cq_ring_release(&rings->send_cq);
	mlx4dv_cq_ring_release(&rings->recv_cq);
}
