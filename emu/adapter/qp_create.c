// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A QP created (qp.h).  The device learns the send queue geometry from
 * the driver data (log_sq_bb_count, log_sq_stride) and recomputes the
 * receive queue the way libmlx4 does (verbs.c create_qp_ex, qp.c
 * mlx4_alloc_qp_buf): rq.wqe_cnt = roundup_pow_of_two(max_recv_wr),
 * stride = the next power of two of max_recv_sge * 16 (at least 16), and
 * the queue with the larger stride first in the buffer.
 */
#include <string.h>

#include "adapter/cq.h"
#include "adapter/ind_tbl.h"
#include "adapter/pd.h"
#include "adapter/qp.h"
#include "adapter/qpn.h"
#include "adapter/srq.h"
#include "adapter/xrc.h"
#include "base/sizes.h"
#include "base/usermem.h"

/* A QP slot of the request's type for ctx (not live before
 * emu_qp_activate), or NULL. */
static struct emu_qp *qp_new(struct emu_ctx *ctx, const struct emu_qp_attrs *a)
{
	struct emu_qp *qp = emu_qpn_alloc_qp();

	if (qp) {
		qp->ctx = ctx;
		qp->user_handle = a->user_handle;
		qp->type = a->type;
	}
	return qp;
}

static int qp_setup_rss(struct emu_ctx *ctx, struct emu_qp *qp,
			const struct emu_qp_attrs *a)
{
	const struct mlx4_ib_create_qp_rss *drv = &a->rss;
	struct emu_ind_tbl *ind = emu_ind_tbl_lookup(ctx, a->ind_tbl);

	if (!ind || a->type != EMU_QPT_RAW || a->drv_short)
		return EINVAL;
	if ((drv->rx_hash_fields_mask & ~0xffULL) ||
	    (drv->rx_hash_fields_mask &&
	     drv->rx_hash_function != MLX4_IB_RX_HASH_FUNC_TOEPLITZ))
		return EOPNOTSUPP;
	qp->is_rss = true;
	qp->rss.ind = ind;
	qp->rss.hash_fields = drv->rx_hash_fields_mask;
	memcpy(qp->rss.key, drv->rx_hash_key, sizeof(qp->rss.key));
	return 0;
}

/* The receive queue's geometry: none on an SRQ or an XRC initiator. */
static void qp_setup_rq(struct emu_qp *qp, const struct emu_qp_attrs *a)
{
	uint32_t rq_bytes;

	if (a->is_srq || a->srq != ~0u || a->type == EMU_QPT_XRC_INI) {
		qp->rq.cnt = 0;
		qp->rq.shift = 4;
		return;
	}
	qp->rq.cnt = emu_pow2_roundup(a->max_recv_wr ? a->max_recv_wr : 1);
	rq_bytes = (a->max_recv_sge ? a->max_recv_sge : 1) * 16;
	if (a->rings.inl_recv_sz > rq_bytes)
		rq_bytes = a->rings.inl_recv_sz;
	qp->rq.shift = emu_log2_roundup(rq_bytes);
	if (qp->rq.shift < 4)
		qp->rq.shift = 4;
	qp->rq.max_gs = (1u << qp->rq.shift) / 16;
}

static int qp_setup_rings(struct emu_qp *qp, const struct emu_qp_attrs *a)
{
	const struct mlx4_ib_create_qp *drv = &a->rings;
	uint32_t sq_max, buf_size;

	if (a->drv_short)
		return EINVAL;
	sq_max = emu_pow2_roundup(emu_cfg.max_qp_wr + (2048 >> 6) + 1);
	if (drv->log_sq_stride < 6 || drv->log_sq_stride > 11 ||
	    drv->log_sq_bb_count > 16 || (1u << drv->log_sq_bb_count) > sq_max ||
	    (drv->buf_addr & 63) || (drv->db_addr & 3))
		return EINVAL;
	qp->sq.shift = drv->log_sq_stride;
	qp->sq.cnt = 1u << drv->log_sq_bb_count;
	qp->sq.spare = (2048u >> qp->sq.shift) + 1;
	if (qp->sq.cnt <= qp->sq.spare ||
	    qp->sq.cnt - qp->sq.spare < a->max_send_wr)
		return EINVAL;
	qp_setup_rq(qp, a);
	if (qp->rq.shift > qp->sq.shift) {
		qp->rq.off = 0;
		qp->sq.off = qp->rq.cnt << qp->rq.shift;
	} else {
		qp->sq.off = 0;
		qp->rq.off = qp->sq.cnt << qp->sq.shift;
	}
	buf_size = (qp->rq.cnt << qp->rq.shift) + (qp->sq.cnt << qp->sq.shift);
	if (emu_probe_rw(drv->buf_addr, buf_size))
		return EFAULT;
	if (qp->rq.cnt && emu_probe_rw(drv->db_addr, 4))
		return EFAULT;
	qp->buf = (uint8_t *)(uintptr_t)drv->buf_addr;
	qp->rq.db = qp->rq.cnt ? (volatile uint32_t *)(uintptr_t)drv->db_addr : NULL;
	return 0;
}

/* The CQs, the SRQ and the rings of a QP that is not an RSS QP. */
static int qp_setup_queues(struct emu_ctx *ctx, struct emu_qp *qp,
			   const struct emu_qp_attrs *a)
{
	qp->scq = emu_cq_lookup(ctx, a->scq);
	/* an XRC initiator receives nothing: mlx4_ib gives it its send CQ
	 * as receive CQ */
	qp->rcq = a->type == EMU_QPT_XRC_INI ? qp->scq : emu_cq_lookup(ctx, a->rcq);
	if (!qp->scq || !qp->rcq)
		return EINVAL;
	if ((a->is_srq || a->srq != ~0u) && a->type != EMU_QPT_XRC_INI) {
		/* an XRC SRQ takes messages of XRC target QPs only */
		qp->srq = emu_srq_lookup(ctx, a->srq);
		if (!qp->srq || qp->srq->xrcd)
			return EINVAL;
	}
	return qp_setup_rings(qp, a);
}

/*
 * An XRC target QP (mlx4_ib: no rings of the program's, its CQs the
 * domain's): the request's pd is the XRC domain handle.  It is reached
 * through handles (xrc.c); its QPN has bit 23 set.
 */
static int xrc_tgt_create(struct emu_ctx *ctx, const struct emu_qp_attrs *a,
			  struct emu_qp **qp, uint32_t *handle)
{
	struct emu_xrcd_handle *via = emu_xrcd_handle_get(ctx, a->pd);

	if (!via)
		return EINVAL;
	*qp = qp_new(ctx, a);
	if (!*qp)
		return ENOMEM;
	(*qp)->pdn = UINT32_MAX;
	(*qp)->xrc.xrcd = via->xrcd;
	return emu_xrc_qp_handle_add(ctx, *qp, via, a->user_handle, handle);
}

static bool qp_type_known(uint8_t type)
{
	return type == EMU_QPT_RC || type == EMU_QPT_UC || type == EMU_QPT_UD ||
	       type == EMU_QPT_RAW || type == EMU_QPT_XRC_INI || type == EMU_QPT_XRC_TGT;
}

static bool qp_caps_valid(const struct emu_qp_attrs *a)
{
	return a->max_send_wr <= emu_cfg.max_qp_wr && a->max_recv_wr <= emu_cfg.max_qp_wr &&
	       a->max_send_sge <= emu_cfg.max_sge && a->max_recv_sge <= emu_cfg.max_sge &&
	       a->max_inline <= emu_cfg.max_inline;
}

/* The capabilities the program is told, from the queues as laid out. */
static void qp_set_caps(struct emu_qp *qp, const struct emu_qp_attrs *a)
{
	qp->sq.max_wr = qp->is_rss ? 0 : qp->sq.cnt - qp->sq.spare;
	qp->rq.max_wr = qp->rq.cnt;
	qp->sq.max_sge = a->max_send_sge;
	qp->rq.max_sge = qp->rq.cnt ? qp->rq.max_gs : 0;
	if (qp->rq.max_sge > emu_cfg.max_sge)
		qp->rq.max_sge = emu_cfg.max_sge;
	qp->sq.max_inline = a->max_inline;
}

int emu_qp_create(struct emu_ctx *ctx, const struct emu_qp_attrs *a,
		  struct emu_qp **qp_out, uint32_t *handle)
{
	struct emu_qp *qp;
	int err;

	if (!qp_type_known(a->type))
		return EOPNOTSUPP;
	if (a->type == EMU_QPT_XRC_TGT)
		return xrc_tgt_create(ctx, a, qp_out, handle);
	if (!emu_pd_lookup(ctx, a->pd) || !qp_caps_valid(a))
		return EINVAL;
	qp = qp_new(ctx, a);
	if (!qp)
		return ENOMEM;
	qp->pdn = a->pd;
	qp->sq.sig_all = a->sig_all;
	qp->block_mcast_lb = a->create_flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	if (a->ind_tbl != ~0u)
		err = qp_setup_rss(ctx, qp, a);
	else
		err = qp_setup_queues(ctx, qp, a);
	if (err)
		return err;
	qp_set_caps(qp, a);
	*qp_out = qp;
	*handle = qp->qpn;
	return 0;
}

void emu_qp_create_undo(struct emu_ctx *ctx, uint32_t handle)
{
	uint32_t reported;

	if (handle >= EMU_XRC_QP_HANDLE_BASE)
		emu_xrc_qp_handle_close(ctx, handle, &reported);
}
