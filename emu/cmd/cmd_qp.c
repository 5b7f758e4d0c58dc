// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * QP commands.  The device learns the send queue geometry from the driver
 * data (log_sq_bb_count, log_sq_stride) and recomputes the receive queue
 * the way libmlx4 does (verbs.c create_qp_ex, qp.c mlx4_alloc_qp_buf):
 * rq.wqe_cnt = roundup_pow_of_two(max_recv_wr), stride = the next power of
 * two of max_recv_sge * 16 (at least 16), and the queue with the larger
 * stride first in the buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "adapter/pd.h"
#include "adapter/cq.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/mcast.h"
#include "adapter/objects.h"
#include "adapter/qpn.h"
#include "adapter/remote.h"
#include "adapter/srq.h"
#include "cmd/qp_state.h"
#include "base/sizes.h"
#include "adapter/doorbell.h"
#include "adapter/xrc.h"

struct emu_qp *emu_qp_get(struct emu_ctx *ctx, uint32_t h)
{
	struct emu_qp *qp;

	/* an XRC target QP is reached only through one of its handles */
	if (h >= EMU_XRC_QP_HANDLE_BASE)
		return emu_xrc_qp_handle_get(ctx, h);
	qp = emu_qp_by_qpn(h);
	return qp && qp->ctx == ctx && !qp->is_wq && !emu_qp_is_xrc_tgt(qp) ? qp : NULL;
}

static void qp_attach_faults(struct emu_qp *qp)
{
	if (emu_dev.fault_cqe.count &&
	    (!emu_dev.fault_cqe.qpn || emu_dev.fault_cqe.qpn == qp->qpn)) {
		qp->fault_cqe_at = emu_dev.fault_cqe.count;
		qp->fault_syndrome = emu_dev.fault_cqe.syndrome;
		emu_dev.fault_cqe.count = 0;
	}
	if (emu_dev.fault_err.count &&
	    (!emu_dev.fault_err.qpn || emu_dev.fault_err.qpn == qp->qpn)) {
		qp->fault_err_after = emu_dev.fault_err.count;
		emu_dev.fault_err.count = 0;
	}
}

struct qp_create_req {
	uint64_t user_handle;
	uint32_t pd, scq, rcq, srq;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline;
	uint8_t sig_all, type, is_srq;
	uint32_t ind_tbl;	/* ~0u = none */
	uint32_t create_flags;	/* IBV_QP_CREATE_* */
};

/* A QP slot of the request's type for the command's context (not live
 * before qp_activate), or NULL. */
static struct emu_qp *qp_new(struct emu_cmd *c, const struct qp_create_req *q)
{
	struct emu_qp *qp = emu_qpn_alloc_qp();

	if (qp) {
		qp->ctx = c->ctx;
		qp->user_handle = q->user_handle;
		qp->type = q->type;
	}
	return qp;
}

static int qp_setup_rss(struct emu_cmd *c, struct emu_qp *qp,
			const struct qp_create_req *q)
{
	struct mlx4_ib_create_qp_rss drv;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (q->ind_tbl >= EMU_MAX_IND_TBL || !emu_dev.ind[q->ind_tbl] ||
	    emu_dev.ind[q->ind_tbl]->ctx != c->ctx || q->type != EMU_QPT_RAW ||
	    c->drv_in_len < offsetof(struct mlx4_ib_create_qp_rss, comp_mask))
		return EINVAL;
	if ((drv.rx_hash_fields_mask & ~0xffULL) ||
	    (drv.rx_hash_fields_mask &&
	     drv.rx_hash_function != MLX4_IB_RX_HASH_FUNC_TOEPLITZ))
		return EOPNOTSUPP;
	qp->is_rss = true;
	qp->ind = emu_dev.ind[q->ind_tbl];
	qp->hash_fields = drv.rx_hash_fields_mask;
	memcpy(qp->hash_key, drv.rx_hash_key, sizeof(qp->hash_key));
	return 0;
}

static int qp_setup_rings(struct emu_cmd *c, struct emu_qp *qp,
			  const struct qp_create_req *q)
{
	struct mlx4_ib_create_qp drv;
	uint32_t rq_bytes, sq_max, buf_size;

	emu_get_drv_in(c, &drv, sizeof(drv));
	if (c->drv_in_len < offsetof(struct mlx4_ib_create_qp, inl_recv_sz))
		return EINVAL;
	sq_max = emu_pow2_roundup(emu_cfg.max_qp_wr + (2048 >> 6) + 1);
	if (drv.log_sq_stride < 6 || drv.log_sq_stride > 11 ||
	    drv.log_sq_bb_count > 16 || (1u << drv.log_sq_bb_count) > sq_max ||
	    (drv.buf_addr & 63) || (drv.db_addr & 3))
		return EINVAL;
	qp->sq_shift = drv.log_sq_stride;
	qp->sq_cnt = 1u << drv.log_sq_bb_count;
	qp->sq_spare = (2048u >> qp->sq_shift) + 1;
	if (qp->sq_cnt <= qp->sq_spare ||
	    qp->sq_cnt - qp->sq_spare < q->max_send_wr)
		return EINVAL;
	if (q->is_srq || q->srq != ~0u || q->type == EMU_QPT_XRC_INI) {
		qp->rq_cnt = 0;
		qp->rq_shift = 4;
	} else {
		qp->rq_cnt = emu_pow2_roundup(q->max_recv_wr ? q->max_recv_wr : 1);
		rq_bytes = (q->max_recv_sge ? q->max_recv_sge : 1) * 16;
		if (drv.inl_recv_sz > rq_bytes)
			rq_bytes = drv.inl_recv_sz;
		qp->rq_shift = emu_log2_roundup(rq_bytes);
		if (qp->rq_shift < 4)
			qp->rq_shift = 4;
		qp->rq_max_gs = (1u << qp->rq_shift) / 16;
	}
	if (qp->rq_shift > qp->sq_shift) {
		qp->rq_off = 0;
		qp->sq_off = qp->rq_cnt << qp->rq_shift;
	} else {
		qp->sq_off = 0;
		qp->rq_off = qp->sq_cnt << qp->sq_shift;
	}
	buf_size = (qp->rq_cnt << qp->rq_shift) + (qp->sq_cnt << qp->sq_shift);
	if (emu_probe_rw(drv.buf_addr, buf_size))
		return EFAULT;
	if (qp->rq_cnt && emu_probe_rw(drv.db_addr, 4))
		return EFAULT;
	qp->buf = (uint8_t *)(uintptr_t)drv.buf_addr;
	qp->rq_db = qp->rq_cnt ? (volatile uint32_t *)(uintptr_t)drv.db_addr : NULL;
	return 0;
}

/*
 * An XRC target QP (mlx4_ib: no rings of the program's, its CQs the
 * domain's): the request's pd_handle is the XRC domain handle.  It is
 * reached through handles (xrc.c); its QPN has bit 23 set.
 */
static int xrc_tgt_create(struct emu_cmd *c, const struct qp_create_req *q,
			  struct ib_uverbs_create_qp_resp *r)
{
	struct emu_xrcd_handle *via = emu_xrcd_handle_get(c->ctx, q->pd);
	struct emu_qp *qp;
	int err;

	if (!via)
		return EINVAL;
	qp = qp_new(c, q);
	if (!qp)
		return ENOMEM;
	qp->pdn = UINT32_MAX;
	qp->xrcd = via->xrcd;
	memset(r, 0, sizeof(*r));
	err = emu_xrc_qp_handle_add(c->ctx, qp, via, q->user_handle, &r->qp_handle);
	r->qpn = emu_qp_number(qp);
	return err;
}

/* A created QP whose response could not be written: its slot is not live
 * yet; an XRC target's handle is given back. */
static void qp_create_undo(struct emu_cmd *c, const struct ib_uverbs_create_qp_resp *r)
{
	uint32_t reported;

	if (r->qp_handle >= EMU_XRC_QP_HANDLE_BASE)
		emu_xrc_qp_handle_close(c->ctx, r->qp_handle, &reported);
}

static int qp_create(struct emu_cmd *c, const struct qp_create_req *q,
		     struct ib_uverbs_create_qp_resp *r)
{
	struct emu_qp *qp;
	int err;

	if (q->type != EMU_QPT_RC && q->type != EMU_QPT_UC &&
	    q->type != EMU_QPT_UD && q->type != EMU_QPT_RAW &&
	    q->type != EMU_QPT_XRC_INI && q->type != EMU_QPT_XRC_TGT)
		return EOPNOTSUPP;
	if (q->type == EMU_QPT_XRC_TGT)
		return xrc_tgt_create(c, q, r);
	if (!emu_pd_lookup(c->ctx, q->pd))
		return EINVAL;
	if (q->max_send_wr > emu_cfg.max_qp_wr || q->max_recv_wr > emu_cfg.max_qp_wr ||
	    q->max_send_sge > emu_cfg.max_sge || q->max_recv_sge > emu_cfg.max_sge ||
	    q->max_inline > emu_cfg.max_inline)
		return EINVAL;
	qp = qp_new(c, q);
	if (!qp)
		return ENOMEM;
	qp->pdn = q->pd;
	qp->sig_all = q->sig_all;
	qp->block_mcast_lb = q->create_flags & IBV_QP_CREATE_BLOCK_SELF_MCAST_LB;
	if (q->ind_tbl != ~0u) {
		err = qp_setup_rss(c, qp, q);
	} else {
		qp->scq = emu_cq_lookup(c->ctx, q->scq);
		/* an XRC initiator receives nothing: mlx4_ib gives it its
		 * send CQ as receive CQ */
		qp->rcq = q->type == EMU_QPT_XRC_INI ? qp->scq : emu_cq_lookup(c->ctx, q->rcq);
		err = (!qp->scq || !qp->rcq) ? EINVAL : 0;
		if (!err && (q->is_srq || q->srq != ~0u) && q->type != EMU_QPT_XRC_INI) {
			/* an XRC SRQ takes messages of XRC target QPs only */
			qp->srq = emu_srq_lookup(c->ctx, q->srq);
			if (!qp->srq || qp->srq->xrcd)
				err = EINVAL;
		}
		if (!err)
			err = qp_setup_rings(c, qp, q);
	}
	if (err)
		return err;
	qp->max_send_wr = qp->is_rss ? 0 : qp->sq_cnt - qp->sq_spare;
	qp->max_recv_wr = qp->rq_cnt;
	qp->max_send_sge = q->max_send_sge;
	qp->max_recv_sge = qp->rq_cnt ? qp->rq_max_gs : 0;
	if (qp->max_recv_sge > emu_cfg.max_sge)
		qp->max_recv_sge = emu_cfg.max_sge;
	qp->max_inline = q->max_inline;
	memset(r, 0, sizeof(*r));
	r->qp_handle = qp->qpn;
	r->qpn = qp->qpn;
	r->max_send_wr = qp->max_send_wr;
	r->max_recv_wr = qp->max_recv_wr;
	r->max_send_sge = qp->max_send_sge;
	r->max_recv_sge = qp->max_recv_sge;
	r->max_inline_data = qp->max_inline;
	return 0;
}

static void qp_activate(struct emu_qp *qp)
{
	qp_attach_faults(qp);
	qp->used = true;
	if (!qp->is_wq)
		emu_db_set_qp_owner(qp->qpn, (int)(qp->ctx - emu_dev.ctx));
	emu_rebuild_active_qps();
	EMU_TRACE("create_qp qpn 0x%x type %u sq %u x %u at +%u, rq %u x %u at +%u%s",
		  qp->qpn, qp->type, qp->sq_cnt, 1u << qp->sq_shift, qp->sq_off,
		  qp->rq_cnt, 1u << qp->rq_shift, qp->rq_off,
		  qp->is_rss ? " (RSS)" : qp->srq ? " (SRQ)" : "");
}

int emu_cmd_create_qp(struct emu_cmd *c)
{
	const struct ib_uverbs_create_qp *q = c->in;
	struct ib_uverbs_create_qp_resp r;
	struct qp_create_req req = {
		.user_handle = q->user_handle, .pd = q->pd_handle,
		.scq = q->send_cq_handle, .rcq = q->recv_cq_handle,
		.srq = q->is_srq ? q->srq_handle : ~0u,
		.max_send_wr = q->max_send_wr, .max_recv_wr = q->max_recv_wr,
		.max_send_sge = q->max_send_sge, .max_recv_sge = q->max_recv_sge,
		.max_inline = q->max_inline_data, .sig_all = q->sq_sig_all,
		.type = q->qp_type, .is_srq = q->is_srq, .ind_tbl = ~0u,
	};
	int err = qp_create(c, &req, &r);

	if (!err) {
		err = emu_put_resp(c, &r, sizeof(r));
		if (err)
			qp_create_undo(c, &r);
	}
	/* a QP slot only becomes live in qp_activate */
	if (err)
		return err;
	qp_activate(emu_dev.qp_tab[r.qpn & ~EMU_XRC_QPN_BIT]);
	return 0;
}

int emu_cmd_create_qp_ex(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_create_qp *q = c->in;
	struct ib_uverbs_ex_create_qp_resp r = { 0 };
	struct qp_create_req req = {
		.user_handle = q->user_handle, .pd = q->pd_handle,
		.scq = q->send_cq_handle, .rcq = q->recv_cq_handle,
		.srq = q->is_srq ? q->srq_handle : ~0u,
		.max_send_wr = q->max_send_wr, .max_recv_wr = q->max_recv_wr,
		.max_send_sge = q->max_send_sge, .max_recv_sge = q->max_recv_sge,
		.max_inline = q->max_inline_data, .sig_all = q->sq_sig_all,
		.type = q->qp_type, .is_srq = q->is_srq, .ind_tbl = ~0u,
	};
	int err;

	if (q->comp_mask & ~(uint32_t)IB_UVERBS_CREATE_QP_MASK_IND_TABLE)
		return EINVAL;
	if (q->comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE) {
		/* RSS QPs take no creation flags */
		if (q->create_flags)
			return EOPNOTSUPP;
		req.ind_tbl = q->rwq_ind_tbl_handle;
	}
	/* mlx4_ib takes one creation flag from user space, on any QP type
	 * (drivers/infiniband/hw/mlx4/qp.c sup_u_create_flags); the rest,
	 * scatter FCS, CVLAN stripping, source QPN..., is EINVAL */
	if (q->create_flags & ~(uint32_t)IBV_QP_CREATE_BLOCK_SELF_MCAST_LB)
		return EINVAL;
	req.create_flags = q->create_flags;
	err = qp_create(c, &req, &r.base);
	if (!err) {
		r.response_length = sizeof(r);
		err = emu_put_resp(c, &r, sizeof(r));
		if (err)
			qp_create_undo(c, &r.base);
	}
	if (err)
		return err;
	qp_activate(emu_dev.qp_tab[r.base.qpn & ~EMU_XRC_QPN_BIT]);
	return 0;
}

static void path_from_dest(struct emu_path *p, const struct ib_uverbs_qp_dest *d)
{
	memcpy(p->dgid, d->dgid, 16);
	p->flow_label = d->flow_label;
	p->dlid = d->dlid;
	p->sgid_index = d->sgid_index;
	p->hop_limit = d->hop_limit;
	p->traffic_class = d->traffic_class;
	p->sl = d->sl;
	p->src_path_bits = d->src_path_bits;
	p->static_rate = d->static_rate;
	p->is_global = d->is_global;
	p->port_num = d->port_num;
}

static void dest_from_path(struct ib_uverbs_qp_dest *d, const struct emu_path *p)
{
	memcpy(d->dgid, p->dgid, 16);
	d->flow_label = p->flow_label;
	d->dlid = p->dlid;
	d->sgid_index = p->sgid_index;
	d->hop_limit = p->hop_limit;
	d->traffic_class = p->traffic_class;
	d->sl = p->sl;
	d->src_path_bits = p->src_path_bits;
	d->static_rate = p->static_rate;
	d->is_global = p->is_global;
	d->port_num = p->port_num;
}

/* Attribute values a ConnectX-3 rejects (mlx4_ib_modify_qp). */
static int check_values(const struct emu_qp *qp, const struct ib_uverbs_modify_qp *m)
{
	uint32_t mask = m->attr_mask;
	uint8_t port = (mask & IBV_QP_PORT) ? m->port_num : qp->port;
	const struct emu_port_attr *tables =
		emu_port_attr(port >= 1 && port <= emu_cfg.ports ? port : 1);

	if ((mask & IBV_QP_PORT) && (m->port_num < 1 || m->port_num > emu_cfg.ports))
		return EINVAL;
	if (qp->type == EMU_QPT_RAW && (mask & IBV_QP_PORT) &&
	    emu_cfg.link_layer[m->port_num - 1] != EMU_LL_ETH)
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) && m->pkey_index >= tables->pkey_tbl_len)
		return EINVAL;
	if ((mask & IBV_QP_PATH_MTU) && (m->path_mtu < IBV_MTU_256 ||
					 m->path_mtu > IBV_MTU_4096))
		return EINVAL;
	if ((mask & IBV_QP_AV)) {
		if (m->dest.sgid_index >= tables->gid_tbl_len)
			return EINVAL;
		/* RoCE addresses by GID: an AV without GRH is unusable */
		if (port >= 1 && port <= emu_cfg.ports &&
		    emu_cfg.link_layer[port - 1] == EMU_LL_ETH && !m->dest.is_global)
			return EINVAL;
	}
	if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && m->max_rd_atomic > 128)
		return EINVAL;
	if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && m->max_dest_rd_atomic > 16)
		return EINVAL;
	if ((mask & IBV_QP_TIMEOUT) && m->timeout > 31)
		return EINVAL;
	if ((mask & IBV_QP_RETRY_CNT) && m->retry_cnt > 7)
		return EINVAL;
	if ((mask & IBV_QP_RNR_RETRY) && m->rnr_retry > 7)
		return EINVAL;
	if ((mask & IBV_QP_MIN_RNR_TIMER) && m->min_rnr_timer > 31)
		return EINVAL;
	if ((mask & IBV_QP_DEST_QPN) && m->dest_qp_num > 0xffffff)
		return EINVAL;
	if ((mask & IBV_QP_ACCESS_FLAGS) &&
	    (m->qp_access_flags & ~(uint32_t)(IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		IBV_ACCESS_REMOTE_ATOMIC)))
		return EINVAL;
	if ((mask & IBV_QP_CAP) || (mask & IBV_QP_ALT_PATH && qp->type == EMU_QPT_UD))
		return EINVAL;
	return 0;
}

static void apply_attrs(struct emu_qp *qp, const struct ib_uverbs_modify_qp *m)
{
	uint32_t mask = m->attr_mask;

	if (mask & IBV_QP_PORT)
		qp->port = m->port_num;
	if (mask & IBV_QP_PKEY_INDEX)
		qp->pkey_index = m->pkey_index;
	if (mask & IBV_QP_QKEY)
		qp->qkey = m->qkey;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->access = m->qp_access_flags;
	if (mask & IBV_QP_AV)
		path_from_dest(&qp->path, &m->dest);
	if (mask & IBV_QP_PATH_MTU)
		qp->mtu = m->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		qp->timeout = m->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		qp->retry_cnt = m->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->rnr_retry = m->rnr_retry;
	if (mask & IBV_QP_RQ_PSN)
		qp->rq_psn = m->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		qp->sq_psn = m->sq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = m->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = m->max_dest_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = m->min_rnr_timer;
	if (mask & IBV_QP_DEST_QPN)
		qp->dest_qpn = m->dest_qp_num;
	if (mask & IBV_QP_PATH_MIG_STATE)
		qp->path_mig_state = m->path_mig_state;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->en_sqd = m->en_sqd_async_notify;
}

static int modify_qp(struct emu_cmd *c, const struct ib_uverbs_modify_qp *m)
{
	struct emu_qp *qp = emu_qp_get(c->ctx, m->qp_handle);
	uint32_t mask = m->attr_mask;
	int cur, next, err;

	if (!qp)
		return EINVAL;
	cur = qp->state;
	if ((mask & IBV_QP_CUR_STATE) && m->cur_qp_state != cur)
		return EINVAL;
	next = (mask & IBV_QP_STATE) ? m->qp_state : cur;
	if (qp->is_rss && ((mask & ~(uint32_t)(IBV_QP_STATE | IBV_QP_PORT)) ||
			   next == EMU_QPS_RTS || next == EMU_QPS_SQD))
		return EINVAL;
	err = emu_qp_transition_ok(qp->type, cur, next, mask);
	if (!err)
		err = check_values(qp, m);
	if (err) {
		EMU_TRACE("modify_qp qpn 0x%x %d->%d mask 0x%x rejected", qp->qpn, cur,
			  next, mask);
		return err;
	}
	apply_attrs(qp, m);
	qp->state = (uint8_t)next;
	if (next == EMU_QPS_RESET) {
		qp->sq_pc = 0;
		qp->rq_ci = 0;
		qp->rq_head_cache = 0;
		qp->rnr_tries = 0;
		qp->bf_pending = false;
		if (qp->srq == NULL && qp->rq_db)
			*qp->rq_db = 0;
	}
	if (next == EMU_QPS_ERR && cur != EMU_QPS_ERR && qp->srq)
		emu_async_event(qp->ctx, qp->user_handle,
				IBV_EVENT_QP_LAST_WQE_REACHED, &qp->async_events);
	if (next == EMU_QPS_SQD && cur == EMU_QPS_RTS && qp->en_sqd)
		emu_async_event(qp->ctx, qp->user_handle, IBV_EVENT_SQ_DRAINED,
				&qp->async_events);
	/* WQEs whose doorbell came while the QP was not in RTS run now (IB
	 * spec 10.3.1: queued in INIT/RTR/SQD, processed from RTS); error
	 * states are polled (flushes) from here on */
	emu_remote_qp_modified(qp, cur, next);
	if (next != cur)
		emu_rebuild_active_qps();
	if (next == EMU_QPS_RESET)
		qp->db_held = false;
	if (next == EMU_QPS_RTS && qp->db_held) {
		qp->db_held = false;
		emu_qp_schedule(qp);
	}
	EMU_TRACE("modify_qp qpn 0x%x %d->%d mask 0x%x", qp->qpn, cur, next, mask);
	return 0;
}

int emu_cmd_modify_qp(struct emu_cmd *c)
{
	return modify_qp(c, c->in);
}

int emu_cmd_modify_qp_ex(struct emu_cmd *c)
{
	const struct ib_uverbs_ex_modify_qp *m = c->in;

	if (m->base.attr_mask & IBV_QP_RATE_LIMIT)
		return EOPNOTSUPP;
	return modify_qp(c, &m->base);
}

int emu_cmd_query_qp(struct emu_cmd *c)
{
	const struct ib_uverbs_query_qp *q = c->in;
	struct ib_uverbs_query_qp_resp r;
	struct emu_qp *qp = emu_qp_get(c->ctx, q->qp_handle);

	if (!qp || qp->is_rss)
		return qp ? EOPNOTSUPP : EINVAL;
	memset(&r, 0, sizeof(r));
	dest_from_path(&r.dest, &qp->path);
	r.max_send_wr = qp->max_send_wr;
	r.max_recv_wr = qp->max_recv_wr;
	r.max_send_sge = qp->max_send_sge;
	r.max_recv_sge = qp->max_recv_sge;
	r.max_inline_data = qp->max_inline;
	r.qkey = qp->qkey;
	r.rq_psn = qp->rq_psn;
	r.sq_psn = qp->sq_psn;
	r.dest_qp_num = qp->dest_qpn;
	r.qp_access_flags = qp->access;
	r.pkey_index = qp->pkey_index;
	r.qp_state = qp->state;
	r.cur_qp_state = qp->state;
	r.path_mtu = qp->mtu;
	r.path_mig_state = qp->path_mig_state;
	r.max_rd_atomic = qp->max_rd_atomic;
	r.max_dest_rd_atomic = qp->max_dest_rd_atomic;
	r.min_rnr_timer = qp->min_rnr_timer;
	r.port_num = qp->port;
	r.timeout = qp->timeout;
	r.retry_cnt = qp->retry_cnt;
	r.rnr_retry = qp->rnr_retry;
	r.sq_sig_all = qp->sig_all;
	return emu_put_resp(c, &r, sizeof(r));
}

int emu_cmd_destroy_qp(struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_qp *q = c->in;
	struct ib_uverbs_destroy_qp_resp r = { 0 };
	struct emu_qp *qp = emu_qp_get(c->ctx, q->qp_handle);
	int err;

	if (!qp || q->reserved)
		return EINVAL;
	/* The kernel refuses to destroy a QP still in use: one attached to a
	 * multicast group (uverbs_free_qp: the uobject's mcast_list) or with
	 * flow rules steering to it (ib_destroy_qp_user: qp->usecnt, which
	 * every ib_set_flow took).  Closing the context takes them all. */
	if (emu_mcast_qp_attached(qp->qpn) || emu_flow_qp_has_rules(qp->qpn))
		return EBUSY;
	/* a shared XRC target QP goes with its last handle */
	if (emu_qp_is_xrc_tgt(qp) && qp->xrc_handles > 1) {
		emu_xrc_qp_handle_close(c->ctx, q->qp_handle, &r.events_reported);
		return emu_put_resp(c, &r, sizeof(r));
	}
	emu_events_forget(qp->ctx, &qp->async_events);
	r.events_reported = qp->async_events;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		return err;
	if (emu_qp_is_xrc_tgt(qp))
		emu_xrc_qp_handle_close(c->ctx, q->qp_handle, &r.events_reported);
	emu_remote_qp_destroyed(qp);
	qp->used = false;
	emu_db_set_qp_owner(qp->qpn, -1);
	emu_rebuild_active_qps();
	EMU_TRACE("destroy_qp qpn 0x%x", qp->qpn);
	return 0;
}
