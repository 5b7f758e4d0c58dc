/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A program written for mlx4dv 0.2: every name 0.3 deprecated, used as
 * 0.2 documented it. It must build against 0.3 with the project's
 * warnings as errors; with MLX4DV_WARN_DEPRECATED and
 * -Werror=deprecated-declarations every use must fail, naming the 0.3
 * replacement (tests/header/CMakeLists.txt checks each message).
 */
#include <infiniband/mlx4dv.h>

int program_0_2(struct mlx4dv_sq_ring *sq, struct mlx4dv_rq_ring *rq,
		struct mlx4dv_srq_ring *srq, struct mlx4dv_cq_ring *cq,
		struct ibv_context *ctx, struct ibv_pd *pd,
		const struct ibv_ah_attr *attr, const struct mlx4_cqe *cqe);

int program_0_2(struct mlx4dv_sq_ring *sq, struct mlx4dv_rq_ring *rq,
		struct mlx4dv_srq_ring *srq, struct mlx4dv_cq_ring *cq,
		struct ibv_context *ctx, struct ibv_pd *pd,
		const struct ibv_ah_attr *attr, const struct mlx4_cqe *cqe)
{
	struct mlx4dv_sq_wqe_template t;
	const struct mlx4_cqe *taken = NULL;
	struct mlx4dv_ud_av av;
	uint32_t pdn = 0, len = 0;
	uint64_t id = 0;
	int r = 0;

	mlx4dv_sq_init_ownership(sq);
	mlx4dv_sq_fast_path_init(sq);
	r |= mlx4dv_sq_wqe_template_init(&t, sq, IBV_WR_RDMA_WRITE, 1, 2, 64,
					 IBV_SEND_SIGNALED, 0);
	r |= mlx4dv_ud_av_init(&av, 5, attr, NULL);
	r |= (int)mlx4dv_send_srcrb_flags(IBV_SEND_SIGNALED);
	r |= mlx4dv_sq_ring_bf(sq, sq->head);
	r |= (int)mlx4dv_sq_complete(sq, mlx4dv_cqe_wqe_index(cqe), &id);
	r |= mlx4dv_cq_poll_send(cq, sq, &id);
	r |= mlx4dv_cq_poll_recv(cq, rq, &id, &len, &taken);
	r |= mlx4dv_cq_poll_srq_recv(cq, srq, &id, &len, &taken);
	r |= mlx4dv_set_blueflame_layout(ctx, 512, 8);
	r |= mlx4dv_pd_number(pd, &pdn);
	return r + (int)pdn + (int)len + (int)id;
}
