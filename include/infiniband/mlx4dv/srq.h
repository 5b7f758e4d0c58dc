/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/srq.h> - shared receive queue (mlx4dv_srq_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_SRQ_H_
#define _MLX4DV_SRQ_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/srq.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/rq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 5.6 Shared receive queue ----------------------------------------- */

/* SRQ WQE number index (0 .. wqe_cnt - 1): the 16-byte next segment, then
 * the scatter entries. */
static MLX4DV_ALWAYS_INLINE struct mlx4_wqe_srq_next_seg *
mlx4dv_srq_wqe(const struct mlx4dv_srq_ring *srq, uint32_t index)
{
	return (struct mlx4_wqe_srq_next_seg *)
		(srq->buf + ((size_t)(index & (srq->wqe_cnt - 1)) << srq->wqe_shift));
}

/*
 * mlx4dv_srq_write - take the free WQE at head, write its scatter entries,
 * and count it; no doorbell (mlx4dv_srq_ring_doorbell() once per batch).
 *
 * The free WQEs form a list through next_wqe_index (big-endian 16 bits);
 * head moves to the next free WQE. wr_id goes to wrid[index] when the ring
 * has a wrid table. (rdma-core srq.c mlx4_post_srq_recv.)
 * Errors: EINVAL when num_sge > max_scatter; ENOMEM when the SRQ is
 * full (head == tail: the last free WQE is never handed out). Nothing is
 * written on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_write(struct mlx4dv_srq_ring *srq, uint64_t wr_id,
		 const struct ibv_sge *sg, uint32_t num_sge)
{
	struct mlx4_wqe_srq_next_seg *next;
	uint32_t index = srq->head;

	if (num_sge > srq->max_scatter)
		return EINVAL;
	if (index == srq->tail)
		return ENOMEM;
	next = mlx4dv_srq_wqe(srq, index);
	/* Masked: a corrupted link cannot send head out of the buffer. */
	srq->head = mlx4dv_be16_to_cpu(next->next_wqe_index) & (srq->wqe_cnt - 1);
	mlx4dv_wqe_set_scatter((struct mlx4_wqe_data_seg *)(next + 1), sg,
				  num_sge, srq->max_scatter);
	if (srq->wrid)
		srq->wrid[index & (srq->wqe_cnt - 1)] = wr_id;
	srq->counter++;
	return 0;
}

/*
 * mlx4dv_srq_ring_doorbell - mlx4dv_barrier_to_device() (the WQEs first), then
 * the doorbell record <- big-endian 32-bit (counter & 0xffff), the number
 * of WQEs ever posted modulo 2^16. (rdma-core srq.c mlx4_post_srq_recv;
 * libmlx4's counter is a uint16_t.)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_srq_ring_doorbell(struct mlx4dv_srq_ring *srq)
{
	mlx4dv_barrier_to_device();
	*(volatile __be32 *)srq->db = mlx4dv_cpu_to_be32(srq->counter & 0xffff);
}

/* mlx4dv_srq_post - mlx4dv_srq_write() then, on success,
 * mlx4dv_srq_ring_doorbell(). Same errors. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_post(struct mlx4dv_srq_ring *srq, uint64_t wr_id,
		const struct ibv_sge *sg, uint32_t num_sge)
{
	int err = mlx4dv_srq_write(srq, wr_id, sg, num_sge);

	if (!err)
		mlx4dv_srq_ring_doorbell(srq);
	return err;
}

/*
 * mlx4dv_srq_post_list - ibv_post_srq_recv() semantics, all or nothing:
 * the list is checked first (SGE counts, and the free list walked to see
 * that every request gets a WQE before head reaches tail); on error
 * *bad_wr (when not NULL) names the offending request and nothing is
 * written. One doorbell record write. Errors: EINVAL, ENOMEM.
 */
static inline int
mlx4dv_srq_post_list(struct mlx4dv_srq_ring *srq, const struct ibv_recv_wr *wr,
		     const struct ibv_recv_wr **bad_wr)
{
	const struct ibv_recv_wr *w;
	uint32_t index = srq->head;
	uint32_t n = 0;

	for (w = wr; w; w = w->next, n++) {
		int err = __mlx4dv_recv_wr_check(w, srq->max_scatter,
						 index == srq->tail || n >= srq->wqe_cnt,
						 bad_wr);

		if (err)
			return err;
		index = mlx4dv_be16_to_cpu(mlx4dv_srq_wqe(srq, index)->next_wqe_index) &
			(srq->wqe_cnt - 1);
	}
	for (w = wr; w; w = w->next)
		(void)mlx4dv_srq_write(srq, w->wr_id, w->sg_list,
				       (uint32_t)w->num_sge);
	if (n)
		mlx4dv_srq_ring_doorbell(srq);
	return 0;
}

/*
 * mlx4dv_srq_wqe_is_free - 1 when SRQ WQE index is on the free list
 * (head .. tail), that is, not posted; a walk of up to wqe_cnt links.
 *
 * mlx4dv_srq_free_wqe - give SRQ WQE index back to the free list: it is
 * linked after tail (the tail WQE's next_wqe_index <- big-endian index)
 * and becomes the new tail, as libmlx4 does for each receive completion
 * (rdma-core srq.c mlx4_free_srq_wqe). No barrier is needed: the device
 * does not read the free list.
 * Precondition: index is a WQE handed out by mlx4dv_srq_write() and not
 * released since (one release per receive completion). Releasing a WQE
 * that is on the free list already links it twice and cuts the list;
 * telling that apart costs a walk of the list, so only a build with
 * MLX4DV_DEBUG checks it (mlx4dv_srq_wqe_is_free(), asserted).
 * Errors: ERANGE when index >= wqe_cnt; EINVAL when index is the tail (it
 * is free already). Nothing is written on error.
 */
static inline int
mlx4dv_srq_wqe_is_free(const struct mlx4dv_srq_ring *srq, uint32_t index)
{
	uint32_t at = srq->head, n;

	/* head .. tail through next_wqe_index: at most wqe_cnt links. */
	for (n = 0; n < srq->wqe_cnt; n++) {
		if (at == index)
			return 1;
		if (at == srq->tail)
			return 0;
		at = mlx4dv_be16_to_cpu(mlx4dv_srq_wqe(srq, at)->next_wqe_index) &
		     (srq->wqe_cnt - 1);
	}
	return 0;
}

static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_free_wqe(struct mlx4dv_srq_ring *srq, uint32_t index)
{
	if (index >= srq->wqe_cnt)
		return ERANGE;
	if (index == srq->tail)
		return EINVAL;
	MLX4DV_ASSERT(!mlx4dv_srq_wqe_is_free(srq, index));
	mlx4dv_srq_wqe(srq, srq->tail)->next_wqe_index =
		mlx4dv_cpu_to_be16((uint16_t)index);
	srq->tail = index;
	return 0;
}

/*
 * mlx4dv_srq_complete - account for a receive CQE (good or error/flush)
 * whose QP receives from this SRQ: the CQE's wqe_index names the WQE;
 * *wr_id (when not NULL) gets wrid[wqe_index] (0 without a wrid table) and
 * the WQE is released (mlx4dv_srq_free_wqe()). The QPN is the receiving
 * QP's, so the caller chose the SRQ. (rdma-core cq.c mlx4_parse_cqe.)
 * Errors: EINVAL for a send CQE or a WQE that is the tail; ERANGE when
 * wqe_index >= wqe_cnt. Nothing changes on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_srq_complete(struct mlx4dv_srq_ring *srq, const struct mlx4_cqe *cqe,
		    uint64_t *wr_id)
{
	uint32_t index = mlx4dv_cqe_wqe_index(cqe);
	int err;

	if (mlx4dv_cqe_is_send(cqe))
		return EINVAL;
	err = mlx4dv_srq_free_wqe(srq, index);
	if (err)
		return err;
	if (wr_id)
		*wr_id = srq->wrid ? srq->wrid[index] : 0;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_SRQ_H_ */
