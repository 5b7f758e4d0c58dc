// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Shared-receive-queue handle from an ibv_srq.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum {
	/* Next segment plus one scatter entry at least (srq.c starts the
	 * stride search at 5). */
	SRQ_MIN_WQE_SHIFT = 5,
	SRQ_MAX_WQE_SHIFT = 12,
};

/*
 * libmlx4 allocates roundup_pow_of_two(max_wr + 1) WQEs (verbs.c
 * mlx4_create_srq) but mlx4dv_init_obj() does not say how many. The kernel
 * makes the same choice and reports it back as max_wr = WQEs - 1
 * (mlx4_ib_query_srq). Without a query answer, an SRQ never posted to
 * still has libmlx4's initial free list, head 0 and tail WQEs - 1.
 */
static uint32_t srq_wqe_count(struct ibv_srq *ibsrq, const struct mlx4dv_srq *dv,
			      uint32_t counter)
{
	struct ibv_srq_attr attr;

	memset(&attr, 0, sizeof(attr));
	if (!ibv_query_srq(ibsrq, &attr) && attr.max_wr)
		return mlx4dv_priv_roundup_pow2(attr.max_wr + 1);
	if (dv->head == 0 && counter == 0 && dv->tail > 0)
		return (uint32_t)dv->tail + 1;
	return 0;
}

int mlx4dv_srq_ring_init(struct mlx4dv_srq_ring *srq, struct ibv_srq *ibsrq,
			 uint32_t flags)
{
	struct mlx4dv_srq_ring ring;
	struct mlx4dv_srq dv;
	uint32_t srqn = 0, counter, wqe_cnt;
	int ret;

	if (!srq || !ibsrq ||
	    (flags & ~(uint32_t)(MLX4DV_RING_INIT_WRID |
				 MLX4DV_RING_INIT_XRC_SRQ)))
		return EINVAL;
	ret = mlx4dv_priv_context_check(ibsrq->context);
	if (ret)
		return ret;

	ret = mlx4dv_priv_raw_srq(ibsrq, &dv);
	if (ret)
		return ret;
	if (!dv.buf.buf || !dv.db || dv.wqe_shift < SRQ_MIN_WQE_SHIFT ||
	    dv.wqe_shift > SRQ_MAX_WQE_SHIFT || dv.head < 0 || dv.tail < 0)
		return ENOTSUP;

	/* libmlx4 writes its 16-bit post counter to the record. */
	counter = mlx4dv_be32_to_cpu(*dv.db) & 0xffff;
	wqe_cnt = srq_wqe_count(ibsrq, &dv, counter);
	if (!mlx4dv_priv_is_pow2(wqe_cnt) ||
	    ((uint64_t)wqe_cnt << dv.wqe_shift) > dv.buf.length ||
	    (uint32_t)dv.head >= wqe_cnt || (uint32_t)dv.tail >= wqe_cnt)
		return ENOTSUP;

	/* Only XRC SRQs have a number software must know; libmlx4 reads
	 * uninitialised fields when asked about any other SRQ. */
	if (flags & MLX4DV_RING_INIT_XRC_SRQ) {
		ret = ibv_get_srq_num(ibsrq, &srqn);
		if (ret)
			return ret;
	}

	memset(&ring, 0, sizeof(ring));
	ring.buf = dv.buf.buf;
	ring.wqe_cnt = wqe_cnt;
	ring.wqe_shift = (uint32_t)dv.wqe_shift;
	ring.head = (uint32_t)dv.head;
	ring.tail = (uint32_t)dv.tail;
	ring.counter = counter;
	ring.max_scatter = ((1u << ring.wqe_shift) -
			    (uint32_t)sizeof(struct mlx4_wqe_srq_next_seg)) /
			   (uint32_t)sizeof(struct mlx4_wqe_data_seg);
	ring.srqn = srqn;
	ring.db = dv.db;
	if (flags & MLX4DV_RING_INIT_WRID) {
		ret = mlx4dv_priv_wrid_take(ring.buf, ibsrq->context,
					    ring.wqe_cnt, &ring.wrid);
		if (ret)
			return ret;
	}
	*srq = ring;
	return 0;
}

void mlx4dv_srq_ring_release(struct mlx4dv_srq_ring *srq)
{
	if (!srq)
		return;
	if (srq->wrid)
		mlx4dv_priv_grant_give_back(srq->buf, 0, srq->wrid);
	srq->wrid = NULL;
}
