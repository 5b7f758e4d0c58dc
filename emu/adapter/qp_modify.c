// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A QP moved between states with its attributes (qp.h). */
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/attributes.h"
#include "adapter/qp.h"
#include "adapter/qp_state.h"
#include "adapter/remote.h"

/* Attribute values a ConnectX-3 rejects (mlx4_ib_modify_qp). */
static int check_values(const struct emu_qp *qp, const struct emu_qp_mod_attrs *m)
{
	uint32_t mask = m->mask;
	uint8_t port = (mask & IBV_QP_PORT) ? m->port_num : qp->attr.port;
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
		if (m->path.sgid_index >= tables->gid_tbl_len)
			return EINVAL;
		/* RoCE addresses by GID: an AV without GRH is unusable */
		if (port >= 1 && port <= emu_cfg.ports &&
		    emu_cfg.link_layer[port - 1] == EMU_LL_ETH && !m->path.is_global)
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

static void apply_attrs(struct emu_qp *qp, const struct emu_qp_mod_attrs *m)
{
	uint32_t mask = m->mask;

	if (mask & IBV_QP_PORT)
		qp->attr.port = m->port_num;
	if (mask & IBV_QP_PKEY_INDEX)
		qp->attr.pkey_index = m->pkey_index;
	if (mask & IBV_QP_QKEY)
		qp->attr.qkey = m->qkey;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->attr.access = m->qp_access_flags;
	if (mask & IBV_QP_AV)
		qp->attr.path = m->path;
	if (mask & IBV_QP_PATH_MTU)
		qp->attr.mtu = m->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		qp->attr.timeout = m->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		qp->attr.retry_cnt = m->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		qp->attr.rnr_retry = m->rnr_retry;
	if (mask & IBV_QP_RQ_PSN)
		qp->attr.rq_psn = m->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		qp->attr.sq_psn = m->sq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = m->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = m->max_dest_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = m->min_rnr_timer;
	if (mask & IBV_QP_DEST_QPN)
		qp->attr.dest_qpn = m->dest_qp_num;
	if (mask & IBV_QP_PATH_MIG_STATE)
		qp->attr.path_mig_state = m->path_mig_state;
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd = m->en_sqd_async_notify;
}

/* Back to RESET: the device's indices restart, as the program's do. */
static void qp_reset(struct emu_qp *qp)
{
	qp->sq.pc = 0;
	qp->rq.ci = 0;
	qp->rq.head_cache = 0;
	qp->sq.rnr_tries = 0;
	qp->bf.pending = false;
	if (qp->srq == NULL && qp->rq.db)
		*qp->rq.db = 0;
}

/* The asynchronous events a transition raises. */
static void qp_transition_events(struct emu_qp *qp, int cur, int next)
{
	if (next == EMU_QPS_ERR && cur != EMU_QPS_ERR && qp->srq)
		emu_async_event(qp->ctx, qp->user_handle,
				IBV_EVENT_QP_LAST_WQE_REACHED, &qp->async_events);
	if (next == EMU_QPS_SQD && cur == EMU_QPS_RTS && qp->attr.en_sqd)
		emu_async_event(qp->ctx, qp->user_handle, IBV_EVENT_SQ_DRAINED,
				&qp->async_events);
}

int emu_qp_modify(struct emu_qp *qp, const struct emu_qp_mod_attrs *m)
{
	uint32_t mask = m->mask;
	int cur, next, err;

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
	if (next == EMU_QPS_RESET)
		qp_reset(qp);
	qp_transition_events(qp, cur, next);
	/* WQEs whose doorbell came while the QP was not in RTS run now (IB
	 * spec 10.3.1: queued in INIT/RTR/SQD, processed from RTS); error
	 * states are polled (flushes) from here on */
	emu_remote_qp_modified(qp, cur, next);
	if (next != cur)
		emu_rebuild_active_qps();
	if (next == EMU_QPS_RESET)
		qp->sq.db_held = false;
	if (next == EMU_QPS_RTS && qp->sq.db_held) {
		qp->sq.db_held = false;
		emu_qp_schedule(qp);
	}
	EMU_TRACE("modify_qp qpn 0x%x %d->%d mask 0x%x", qp->qpn, cur, next, mask);
	return 0;
}
