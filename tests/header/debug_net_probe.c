/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Every function of the header with a MLX4DV_DEBUG check, called once,
 * compiled at -O2 (debug_net_cost.cmake): without MLX4DV_DEBUG the object
 * must hold none of the checks' messages (the checks cost nothing), with
 * it every one.
 */
#include <infiniband/mlx4dv.h>

int debug_net_probe(struct mlx4dv_sq_ring *sq, struct mlx4dv_rq_ring *rq,
		    struct mlx4dv_srq_ring *srq, struct mlx4dv_cq_ring *cq,
		    const struct mlx4dv_sq_wqe_template *t,
		    const struct ibv_sge *sg, const struct mlx4dv_poll_qp *qps,
		    struct ibv_wc *wc, const struct mlx4dv_ud_av *dest);

int debug_net_probe(struct mlx4dv_sq_ring *sq, struct mlx4dv_rq_ring *rq,
		    struct mlx4dv_srq_ring *srq, struct mlx4dv_cq_ring *cq,
		    const struct mlx4dv_sq_wqe_template *t,
		    const struct ibv_sge *sg, const struct mlx4dv_poll_qp *qps,
		    struct ibv_wc *wc, const struct mlx4dv_ud_av *dest)
{
	struct mlx4dv_sq_batch b;
	const struct mlx4_cqe *cqe = NULL;
	uint64_t id = 0;
	uint32_t len = 0, polled = 0;
	int r = 0;

	r |= mlx4dv_sq_batch_begin(sq, &b, t, 4);
	r |= mlx4dv_sq_batch_write(&b, 1, 0x1000, 0x2000);
	r |= (int)mlx4dv_sq_batch_end(sq, &b);
	r |= mlx4dv_sq_write_rdma_write(sq, 2, 3, 0x1000, sg, 1, 0);
	r |= mlx4dv_sq_write_ud_send(sq, 4, dest, 5, 6, sg, 1, 0);
	r |= (int)mlx4dv_sq_set_data_segs(sq, sq->buf + 16, sg, 2);
	r |= mlx4dv_cq_poll_sq(cq, sq, &id, &cqe);
	r |= mlx4dv_cq_poll_sq_burst(cq, sq, 1, &id, &polled);
	r |= mlx4dv_cq_poll_rq(cq, rq, &id, &len, &cqe);
	r |= mlx4dv_cq_poll_srq(cq, srq, &id, &len, &cqe);
	r |= mlx4dv_cq_poll_wc(cq, qps, 1, 1, wc, &polled);
	if (mlx4dv_cq_next(cq))
		r |= mlx4dv_sq_complete_cqe(sq, cqe, &id);
	return r + (int)(id + len + polled);
}
