// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libmlx4's own view of one object: mlx4dv_init_obj() asked about a
 * single QP, receive WQ, SRQ or CQ. Every handle starts from it.
 */
#include <string.h>

#include "internal.h"

int mlx4dv_priv_raw_qp(struct ibv_qp *qp, struct mlx4dv_qp *dv)
{
	struct mlx4dv_obj obj;

	memset(dv, 0, sizeof(*dv));
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = dv;
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP);
}

int mlx4dv_priv_raw_rwq(struct ibv_wq *wq, struct mlx4dv_rwq *dv)
{
	struct mlx4dv_obj obj;

	memset(dv, 0, sizeof(*dv));
	memset(&obj, 0, sizeof(obj));
	obj.rwq.in = wq;
	obj.rwq.out = dv;
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_RWQ);
}

int mlx4dv_priv_raw_srq(struct ibv_srq *srq, struct mlx4dv_srq *dv)
{
	struct mlx4dv_obj obj;

	memset(dv, 0, sizeof(*dv));
	memset(&obj, 0, sizeof(obj));
	obj.srq.in = srq;
	obj.srq.out = dv;
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_SRQ);
}

int mlx4dv_priv_raw_cq(struct ibv_cq *cq, struct mlx4dv_cq *dv)
{
	struct mlx4dv_obj obj;

	memset(dv, 0, sizeof(*dv));
	memset(&obj, 0, sizeof(obj));
	dv->comp_mask = MLX4DV_CQ_MASK_UAR;	/* an input: ask for the UAR */
	obj.cq.in = cq;
	obj.cq.out = dv;
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ);
}
