/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/rq.h> - receive queue: RQ of a QP, receive WQ (mlx4dv_rq_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_RQ_H_
#define _MLX4DV_RQ_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/rq.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/cqe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 5.5 Receive queue (QP RQ, receive WQ of an RSS QP) ----------------- */

/* Scatter entries of RQ WQE n (free-running; slot n & (wqe_cnt - 1)). */
static MLX4DV_ALWAYS_INLINE struct mlx4_wqe_data_seg *
mlx4dv_rq_wqe(const struct mlx4dv_rq_ring *rq, uint32_t n)
{
	return (struct mlx4_wqe_data_seg *)
		(rq->buf + ((size_t)(n & (rq->wqe_cnt - 1)) << rq->wqe_shift));
}

/*
 * mlx4dv_wqe_set_scatter - write num_sge scatter entries (length, lkey,
 * addr from sg, host order, stored big-endian) and, when num_sge <
 * max_scatter, the terminating entry {0, MLX4_INVALID_LKEY, 0} that tells
 * the device where the list ends. A zero length is stored as 0, as
 * ibv_post_recv() stores it. (rdma-core qp.c _mlx4_post_recv, srq.c
 * mlx4_post_srq_recv.) The caller checked num_sge <= max_scatter.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_wqe_set_scatter(struct mlx4_wqe_data_seg *scat, const struct ibv_sge *sg,
		       uint32_t num_sge, uint32_t max_scatter)
{
	uint32_t i;

	for (i = 0; i < num_sge; i++) {
		scat[i].byte_count = mlx4dv_cpu_to_be32(sg[i].length);
		scat[i].lkey = mlx4dv_cpu_to_be32(sg[i].lkey);
		scat[i].addr = mlx4dv_cpu_to_be64(sg[i].addr);
	}
	if (i < max_scatter) {
		scat[i].byte_count = 0;
		scat[i].lkey = mlx4dv_cpu_to_be32(MLX4_INVALID_LKEY);
		scat[i].addr = 0;
	}
}

/*
 * mlx4dv_rq_write - write one receive WQE at head and advance head; no
 * doorbell (call mlx4dv_rq_ring_doorbell() once per batch).
 *
 * sg: num_sge entries (host order). wr_id is stored in wrid[head] when the
 * ring has a wrid table.
 * Errors: EINVAL when num_sge > max_scatter; ENOMEM when the ring
 * is full (head - tail == wqe_cnt, libmlx4's limit: max_post = wqe_cnt).
 * Nothing is written on error. (libmlx4 returns ENOMEM for too many SGEs;
 * this keeps that errno for the full ring only.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_rq_write(struct mlx4dv_rq_ring *rq, uint64_t wr_id,
		const struct ibv_sge *sg, uint32_t num_sge)
{
	/* Every field read once, before the first store: the scatter
	 * entries are 32- and 64-bit stores the compiler must assume may
	 * land on the handle, so a field read after one is read again. */
	const uint32_t head = rq->head;
	const uint32_t wqe_cnt = rq->wqe_cnt;
	const uint32_t max_scatter = rq->max_scatter;
	const uint32_t slot = head & (wqe_cnt - 1);
	uint8_t *const buf = rq->buf;
	const uint32_t shift = rq->wqe_shift;
	uint64_t *const wrid = rq->wrid;

	if (num_sge > max_scatter)
		return EINVAL;
	if (head - rq->tail >= wqe_cnt)
		return ENOMEM;
	mlx4dv_wqe_set_scatter((struct mlx4_wqe_data_seg *)
			       (buf + ((size_t)slot << shift)),
			       sg, num_sge, max_scatter);
	if (wrid)
		wrid[slot] = wr_id;
	rq->head = head + 1;
	return 0;
}

/*
 * mlx4dv_rq_write_burst - write count receive WQEs of one scatter entry
 * each at head and advance head by count, all or nothing (0.3 addition);
 * no doorbell (call mlx4dv_rq_ring_doorbell() after). Each WQE is the
 * one mlx4dv_rq_write(rq, wr_ids[i], &sg[i], 1) writes, byte for byte;
 * the ring's fields are read once per call instead of once per WQE.
 *
 * sg:     count entries (host order): sg[i] is the buffer of WQE head + i.
 * wr_ids: count entries (host order), stored in the ring's wrid table;
 *         may be NULL when the ring has none (rq->wrid NULL).
 * Errors, nothing written: EINVAL when the ring has no scatter entry
 * (max_scatter 0) or wr_ids is NULL for a ring with a wrid table; ENOMEM
 * when count WQEs do not fit (head - tail + count > wqe_cnt).
 * (rdma-core qp.c _mlx4_post_recv.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_rq_write_burst(struct mlx4dv_rq_ring *rq, uint32_t count,
		      const uint64_t *wr_ids, const struct ibv_sge *sg)
{
	__MLX4DV_CHECK(rq && (sg || !count), "mlx4dv_rq_write_burst",
		       "rq must not be NULL, nor sg when count > 0");
	uint8_t *buf = rq->buf;
	const uint32_t mask = rq->wqe_cnt - 1;
	const uint32_t shift = rq->wqe_shift;
	const uint32_t max_scatter = rq->max_scatter;
	uint64_t *wrid = rq->wrid;
	uint32_t head = rq->head;

	if (max_scatter == 0 || (wrid && !wr_ids))
		return EINVAL;
	if (count > rq->wqe_cnt - (head - rq->tail))
		return ENOMEM;
	for (uint32_t i = 0; i < count; i++, head++) {
		struct mlx4_wqe_data_seg *scat = (struct mlx4_wqe_data_seg *)
			(buf + ((size_t)(head & mask) << shift));

		mlx4dv_wqe_set_scatter(scat, &sg[i], 1, max_scatter);
		if (wrid)
			wrid[head & mask] = wr_ids[i];
	}
	rq->head = head;
	return 0;
}

/*
 * mlx4dv_rq_ring_doorbell - tell the device how many WQEs were posted:
 * mlx4dv_barrier_to_device() (the WQEs first), then the doorbell record
 * <- big-endian 32-bit (head & 0xffff). (rdma-core qp.c _mlx4_post_recv.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_rq_ring_doorbell(struct mlx4dv_rq_ring *rq)
{
	mlx4dv_barrier_to_device();
	*(volatile __be32 *)rq->db = mlx4dv_cpu_to_be32(rq->head & 0xffff);
}

/* mlx4dv_rq_post - mlx4dv_rq_write() then, on success, mlx4dv_rq_ring_doorbell().
 * Same errors. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_rq_post(struct mlx4dv_rq_ring *rq, uint64_t wr_id,
	       const struct ibv_sge *sg, uint32_t num_sge)
{
	int err = mlx4dv_rq_write(rq, wr_id, sg, num_sge);

	if (!err)
		mlx4dv_rq_ring_doorbell(rq);
	return err;
}

/*
 * __mlx4dv_recv_wr_check - internal: the list posts' check of receive
 * request w on a ring of max_scatter entries per WQE, full when no WQE is
 * left for it: EINVAL (num_sge negative or above max_scatter), else
 * ENOMEM (full), else 0; on error *bad_wr (when not NULL) names w.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_recv_wr_check(const struct ibv_recv_wr *w, uint32_t max_scatter,
		       int full, const struct ibv_recv_wr **bad_wr)
{
	int err = 0;

	if (w->num_sge < 0 || (uint32_t)w->num_sge > max_scatter)
		err = EINVAL;
	else if (full)
		err = ENOMEM;
	if (err && bad_wr)
		*bad_wr = w;
	return err;
}

/*
 * mlx4dv_rq_post_list - post a list of receive work requests, with the
 * semantics of ibv_post_recv() except that it is all or nothing: the whole
 * list is checked first, and on error *bad_wr (when bad_wr is not NULL)
 * names the offending request and nothing is written. One doorbell record
 * write for the list. Errors: EINVAL (num_sge), ENOMEM (the list does not
 * fit: head - tail + requests > wqe_cnt).
 */
static inline int
mlx4dv_rq_post_list(struct mlx4dv_rq_ring *rq, const struct ibv_recv_wr *wr,
		    const struct ibv_recv_wr **bad_wr)
{
	const struct ibv_recv_wr *w;
	uint32_t room = rq->wqe_cnt - (rq->head - rq->tail);
	uint32_t n = 0;

	for (w = wr; w; w = w->next, n++) {
		int err = __mlx4dv_recv_wr_check(w, rq->max_scatter, n >= room,
						 bad_wr);

		if (err)
			return err;
	}
	for (w = wr; w; w = w->next)
		(void)mlx4dv_rq_write(rq, w->wr_id, w->sg_list,
				      (uint32_t)w->num_sge);
	if (n)
		mlx4dv_rq_ring_doorbell(rq);
	return 0;
}

/*
 * mlx4dv_rq_complete - account for a receive CQE (good or error/flush) of
 * this ring: RQ completions come in posting order, so the WQE is the one
 * at tail; *wr_id (when wr_id is not NULL) gets wrid[tail] (0 without a
 * wrid table) and tail advances by one. (rdma-core cq.c mlx4_parse_cqe.)
 * Errors: EINVAL when the CQE is a send completion or its QPN is not
 * qpn; ERANGE when no WQE is outstanding (head == tail). The ring is
 * unchanged on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_rq_complete(struct mlx4dv_rq_ring *rq, const struct mlx4_cqe *cqe,
		   uint64_t *wr_id)
{
	if (mlx4dv_cqe_is_send(cqe) || mlx4dv_cqe_qpn(cqe) != rq->qpn)
		return EINVAL;
	if (rq->head == rq->tail)
		return ERANGE;
	if (wr_id)
		*wr_id = rq->wrid ? rq->wrid[rq->tail & (rq->wqe_cnt - 1)] : 0;
	rq->tail++;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_RQ_H_ */
