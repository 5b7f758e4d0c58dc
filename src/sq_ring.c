// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Send-queue handle from an ibv_qp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum {
	/* Strides libmlx4 picks: 64 bytes up to the 2 KB the device
	 * prefetches (mlx4_calc_sq_wqe_size starts at 6). */
	SQ_MIN_WQE_SHIFT = 6,
	SQ_MAX_WQE_SHIFT = 11,
};

/* ENOENT for QP types without a send queue, ENOTSUP for the ones the
 * header has no WQE layout for. */
static int sq_type_supported(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_RAW_PACKET:
	case IBV_QPT_XRC_SEND:
		return 0;
	case IBV_QPT_XRC_RECV:
		return ENOENT;
	default:
		return ENOTSUP;
	}
}

int mlx4dv_priv_sq_layout_check(const struct mlx4dv_qp *dv)
{
	uint64_t end;

	if (dv->sq.wqe_cnt == 0)
		return ENOENT;	/* RSS QP: no send queue at all */
	if (dv->sq.wqe_shift < SQ_MIN_WQE_SHIFT ||
	    dv->sq.wqe_shift > SQ_MAX_WQE_SHIFT ||
	    !mlx4dv_priv_is_pow2(dv->sq.wqe_cnt) || dv->sq.offset < 0 ||
	    !dv->buf.buf || !dv->sdb)
		return ENOTSUP;
	end = (uint64_t)dv->sq.offset +
	      ((uint64_t)dv->sq.wqe_cnt << dv->sq.wqe_shift);
	if (end > dv->buf.length)
		return ENOTSUP;
	if (dv->sq.wqe_cnt <= mlx4dv_priv_sq_spare_wqes((uint32_t)dv->sq.wqe_shift))
		return ENOENT;	/* only headroom, nothing postable */
	return 0;
}

/*
 * libmlx4 answers ibv_query_qp() with its own send limits; a difference
 * means its arithmetic is not the one this unit reproduces. A query the
 * device does not answer leaves the computed values standing, and *state
 * then stays -1 (unknown).
 */
static int sq_cross_check(struct ibv_qp *qp, const struct mlx4dv_sq_ring *sq,
			  int *state)
{
	uint32_t shift = sq->wqe_shift;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init_attr;

	*state = -1;
	memset(&attr, 0, sizeof(attr));
	memset(&init_attr, 0, sizeof(init_attr));
	if (ibv_query_qp(qp, &attr, IBV_QP_STATE | IBV_QP_CAP, &init_attr))
		return 0;
	if (init_attr.cap.max_send_wr != sq->max_post ||
	    init_attr.cap.max_send_sge !=
		mlx4dv_priv_sq_libmlx4_max_gather(shift, qp->qp_type) ||
	    init_attr.cap.max_inline_data !=
		mlx4dv_priv_sq_libmlx4_max_inline(shift, qp->qp_type))
		return ENOTSUP;
	*state = (int)attr.qp_state;
	return 0;
}

/* Every 64-byte chunk but the first of every WQEBB starts with the stamp. */
static bool sq_stamps_present(const struct mlx4dv_sq_ring *sq)
{
	size_t stride = (size_t)1 << sq->wqe_shift;

	for (uint32_t n = 0; n < sq->wqe_cnt; n++) {
		const uint8_t *wqe = sq->buf + n * stride;

		for (size_t off = 64; off < stride; off += 64) {
			uint32_t word;

			memcpy(&word, wqe + off, sizeof(word));
			if (word != 0xffffffffu)
				return false;
		}
	}
	return true;
}

/*
 * Whether the posts may skip stamping (struct mlx4dv_sq_ring.ring_stamped).
 * libmlx4 stamps the whole ring on RESET->INIT (qp.c
 * mlx4_qp_init_sq_ownership), so a QP still in RESET will be stamped
 * before its first post; past RESET the stamps are checked in the ring.
 * Unknown state: 0, which is always safe.
 */
static uint32_t sq_ring_stamped(const struct mlx4dv_sq_ring *sq, int state)
{
	if (state == IBV_QPS_RESET)
		return 1;
	if (state < 0)
		return 0;
	return sq_stamps_present(sq);
}

/* The wrid table and BlueFlame register the flags ask for, from the
 * queue's grant; its ticket goes to flags bits 8..31. */
static int sq_take_grant(struct mlx4dv_sq_ring *sq, struct ibv_context *context,
			 uint32_t flags)
{
	struct mlx4dv_priv_grant_req req;
	struct mlx4dv_priv_grant grant;
	int ret;

	req.queue = sq->buf;
	req.context = context;
	req.wrid_cnt = (flags & MLX4DV_RING_INIT_WRID) ? sq->wqe_cnt : 0;
	req.bf = (flags & MLX4DV_RING_INIT_BLUEFLAME) != 0;
	ret = mlx4dv_priv_grant_take(&req, &grant);
	if (ret)
		return ret;
	sq->wrid = grant.wrid;
	sq->flags |= grant.ticket << MLX4DV_SQ_RING_GRANT_SHIFT;
	if (!req.bf)
		return 0;
	if (!grant.bf_reg) {
		sq->flags |= MLX4DV_SQ_RING_BLUEFLAME_FALLBACK;
		return 0;
	}
	sq->bf_reg = grant.bf_reg;
	sq->bf_buf_size = grant.bf_reg_size / 2;
	sq->bf_offset = 0;
	sq->flags |= MLX4DV_SQ_RING_BLUEFLAME;
	return 0;
}

/* A UD QP's PD number, for the MLX4DV_DEBUG check that a UD send's
 * address vector is of the same PD. Unread (flag clear, unchecked) when
 * the PD cannot be asked: never an error of the init. */
static void sq_take_pdn(struct mlx4dv_sq_ring *sq, struct ibv_qp *qp)
{
	uint32_t pdn;

	if (qp->qp_type != IBV_QPT_UD || !qp->pd ||
	    mlx4dv_pd_query_pdn(qp->pd, &pdn))
		return;
	sq->pdn = pdn;
	sq->flags |= MLX4DV_SQ_RING_PDN;
}

int mlx4dv_sq_ring_init(struct mlx4dv_sq_ring *sq, struct ibv_qp *qp,
			uint32_t flags)
{
	struct mlx4dv_sq_ring ring;
	struct mlx4dv_qp dv;
	int ret, state;

	if (!sq || !qp ||
	    (flags & ~(uint32_t)(MLX4DV_RING_INIT_WRID |
				 MLX4DV_RING_INIT_BLUEFLAME)))
		return EINVAL;
	ret = mlx4dv_priv_context_check(qp->context);
	if (ret)
		return ret;
	ret = sq_type_supported(qp->qp_type);
	if (ret)
		return ret;

	ret = mlx4dv_priv_raw_qp(qp, &dv);
	if (ret)
		return ret;
	ret = mlx4dv_priv_sq_layout_check(&dv);
	if (ret)
		return ret;

	memset(&ring, 0, sizeof(ring));
	ring.buf = (uint8_t *)dv.buf.buf + dv.sq.offset;
	ring.wqe_cnt = dv.sq.wqe_cnt;
	ring.wqe_shift = (uint32_t)dv.sq.wqe_shift;
	ring.spare_wqes = mlx4dv_priv_sq_spare_wqes(ring.wqe_shift);
	ring.max_post = ring.wqe_cnt - ring.spare_wqes;
	ring.max_gather = mlx4dv_priv_sq_max_gather(ring.wqe_shift, qp->qp_type);
	ring.max_inline = mlx4dv_priv_sq_max_inline(ring.wqe_shift, qp->qp_type);
	ring.qpn = qp->qp_num;
	ring.doorbell_qpn = dv.doorbell_qpn;
	ring.qp_type = (uint32_t)qp->qp_type;
	ring.doorbell = dv.sdb;

	ret = sq_cross_check(qp, &ring, &state);
	if (ret)
		return ret;
	ring.ring_stamped = sq_ring_stamped(&ring, state);
	ring.single_wqebb = 1;
	sq_take_pdn(&ring, qp);

	ret = sq_take_grant(&ring, qp->context, flags);
	if (ret)
		return ret;
	/* After the grant: MLX4DV_SQ_FAST_WRID follows the wrid table. */
	mlx4dv_sq_fast_path_update(&ring);
	*sq = ring;
	return 0;
}

void mlx4dv_sq_ring_release(struct mlx4dv_sq_ring *sq)
{
	uint32_t ticket;

	if (!sq)
		return;
	ticket = sq->flags >> MLX4DV_SQ_RING_GRANT_SHIFT;
	if (ticket)
		mlx4dv_priv_grant_give_back(sq->buf, ticket, NULL);
	sq->wrid = NULL;
	sq->fast_path &= ~(uint32_t)MLX4DV_SQ_FAST_WRID;
	sq->bf_reg = NULL;
	sq->bf_buf_size = 0;
	sq->bf_offset = 0;
	sq->flags &= ~(uint32_t)(MLX4DV_SQ_RING_BLUEFLAME |
				 MLX4DV_SQ_RING_BLUEFLAME_FALLBACK |
				 MLX4DV_SQ_RING_GRANT_MASK);
}
