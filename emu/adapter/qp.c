// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A QP gone live, looked up, queried, destroyed and released (qp.h). */
#include "adapter/doorbell.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/flow.h"
#include "adapter/inject.h"
#include "adapter/mcast.h"
#include "adapter/objects.h"
#include "adapter/qp.h"
#include "adapter/remote.h"
#include "adapter/xrc.h"

struct emu_qp *emu_qp_lookup(struct emu_ctx *ctx, uint32_t h)
{
	struct emu_qp *qp;

	/* an XRC target QP is reached only through one of its handles */
	if (h >= EMU_XRC_QP_HANDLE_BASE)
		return emu_xrc_qp_handle_get(ctx, h);
	qp = emu_qp_by_qpn(h);
	return qp && qp->ctx == ctx && !qp->is_wq && !emu_qp_is_xrc_tgt(qp) ? qp : NULL;
}

void emu_qp_activate(struct emu_qp *qp)
{
	emu_inject_attach_qp(qp);
	qp->used = true;
	if (!qp->is_wq)
		emu_db_set_qp_owner(qp->qpn, (int)(qp->ctx - emu_dev.ctx));
	emu_rebuild_active_qps();
	EMU_TRACE("create_qp qpn 0x%x type %u sq %u x %u at +%u, rq %u x %u at +%u%s",
		  qp->qpn, qp->type, qp->sq.cnt, 1u << qp->sq.shift, qp->sq.off,
		  qp->rq.cnt, 1u << qp->rq.shift, qp->rq.off,
		  qp->is_rss ? " (RSS)" : qp->srq ? " (SRQ)" : "");
}

void emu_qp_get_caps(const struct emu_qp *qp, struct emu_qp_caps *caps)
{
	*caps = (struct emu_qp_caps){
		.max_send_wr = qp->sq.max_wr, .max_recv_wr = qp->rq.max_wr,
		.max_send_sge = qp->sq.max_sge, .max_recv_sge = qp->rq.max_sge,
		.max_inline = qp->sq.max_inline, .sig_all = qp->sq.sig_all,
	};
}

int emu_qp_query(const struct emu_qp *qp, struct emu_qp_mod_attrs *out)
{
	if (qp->is_rss)
		return EOPNOTSUPP;
	*out = (struct emu_qp_mod_attrs){
		.qp_state = qp->state, .cur_qp_state = qp->state,
		.port_num = qp->attr.port, .path_mtu = qp->attr.mtu, .timeout = qp->attr.timeout,
		.retry_cnt = qp->attr.retry_cnt, .rnr_retry = qp->attr.rnr_retry,
		.min_rnr_timer = qp->attr.min_rnr_timer, .max_rd_atomic = qp->attr.max_rd_atomic,
		.max_dest_rd_atomic = qp->attr.max_dest_rd_atomic,
		.path_mig_state = qp->attr.path_mig_state, .pkey_index = qp->attr.pkey_index,
		.qkey = qp->attr.qkey, .rq_psn = qp->attr.rq_psn, .sq_psn = qp->attr.sq_psn,
		.dest_qp_num = qp->attr.dest_qpn, .qp_access_flags = qp->attr.access,
		.path = qp->attr.path,
	};
	return 0;
}

int emu_qp_prepare_destroy(struct emu_ctx *ctx, struct emu_qp *qp, uint32_t h,
			   bool *closed, uint32_t *reported)
{
	/* The kernel refuses to destroy a QP still in use: one attached to a
	 * multicast group (uverbs_free_qp: the uobject's mcast_list) or with
	 * flow rules steering to it (ib_destroy_qp_user: qp->usecnt, which
	 * every ib_set_flow took).  Closing the context takes them all. */
	if (emu_mcast_qp_attached(qp->qpn) || emu_flow_qp_has_rules(qp->qpn))
		return EBUSY;
	/* a shared XRC target QP goes with its last handle */
	*closed = emu_qp_is_xrc_tgt(qp) && qp->xrc.handles > 1;
	if (*closed) {
		emu_xrc_qp_handle_close(ctx, h, reported);
		return 0;
	}
	emu_events_forget(qp->ctx, &qp->async_events);
	*reported = qp->async_events;
	return 0;
}

void emu_qp_destroy(struct emu_ctx *ctx, struct emu_qp *qp, uint32_t h)
{
	uint32_t reported;

	if (emu_qp_is_xrc_tgt(qp))
		emu_xrc_qp_handle_close(ctx, h, &reported);
	emu_remote_qp_destroyed(qp);
	qp->used = false;
	emu_db_set_qp_owner(qp->qpn, -1);
	emu_rebuild_active_qps();
	EMU_TRACE("destroy_qp qpn 0x%x", qp->qpn);
}

void emu_qp_release_ctx(struct emu_ctx *ctx)
{
	for (uint32_t i = 0; i < emu_dev.qp_end; i++)
		if (emu_dev.qp_tab[i] && emu_dev.qp_tab[i]->used &&
		    emu_dev.qp_tab[i]->ctx == ctx) {
			emu_mcast_detach_all(i);
			emu_remote_qp_destroyed(emu_dev.qp_tab[i]);
			emu_dev.qp_tab[i]->used = false;
		}
}
