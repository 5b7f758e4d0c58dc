// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Receive work queues (adapter/wq.h). */
#include "adapter/wq.h"

#include <errno.h>

#include "adapter/cq.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/ind_tbl.h"
#include "adapter/objects.h"
#include "adapter/pd.h"
#include "adapter/qpn.h"
#include "base/config.h"
#include "base/sizes.h"
#include "base/trace.h"
#include "base/usermem.h"

/* libmlx4's dummy send queue: one 64-byte WQEBB */
#define WQ_SQ_BYTES 64

/* The receive WQE stride: 16 bytes per gather entry, at least 16. */
static uint32_t rq_shift(uint32_t max_sge)
{
	uint32_t shift = emu_log2_roundup(max_sge * 16);

	return shift < 4 ? 4 : shift;
}

int emu_wq_create(struct emu_ctx *ctx, const struct emu_wq_attrs *a, struct emu_qp **wq,
		  uint32_t *max_wr)
{
	uint32_t cnt, shift;
	int err;

	if (!emu_pd_lookup(ctx, a->pdn) || !emu_cq_lookup(ctx, a->cqn) || !a->max_wr ||
	    a->max_wr > emu_cfg.max_qp_wr || !a->max_sge || a->max_sge > emu_cfg.max_sge ||
	    (a->buf_addr & 63) || (a->db_addr & 3))
		return EINVAL;
	cnt = emu_pow2_roundup(a->max_wr);
	shift = rq_shift(a->max_sge);
	if (emu_probe_rw(a->buf_addr, ((uint64_t)cnt << shift) + WQ_SQ_BYTES) ||
	    emu_probe_rw(a->db_addr, 4))
		return EFAULT;
	if (a->driver_extensions || a->log_range_size > EMU_LOG_MAX_WQN_RANGE)
		return EOPNOTSUPP;
	*wq = emu_qpn_alloc_wq(ctx, a->log_range_size, &err);
	if (!*wq)
		return err;
	*max_wr = cnt;
	return 0;
}

void emu_wq_activate(struct emu_qp *wq, struct emu_ctx *ctx, const struct emu_wq_attrs *a)
{
	uint32_t cnt = emu_pow2_roundup(a->max_wr), shift = rq_shift(a->max_sge);

	wq->is_wq = true;
	wq->type = EMU_QPT_RAW;
	wq->ctx = ctx;
	wq->user_handle = a->user_handle;
	wq->pdn = a->pdn;
	wq->rcq = emu_cq_lookup(ctx, a->cqn);
	wq->scq = wq->rcq;
	wq->sq.shift = 6;
	wq->sq.cnt = 1;
	wq->rq.cnt = cnt;
	wq->rq.shift = shift;
	wq->rq.max_gs = (1u << shift) / 16;
	/* libmlx4 puts the larger stride first */
	if (shift > 6) {
		wq->rq.off = 0;
		wq->sq.off = cnt << shift;
	} else {
		wq->sq.off = 0;
		wq->rq.off = WQ_SQ_BYTES;
	}
	wq->buf = (uint8_t *)(uintptr_t)a->buf_addr;
	wq->rq.db = (volatile uint32_t *)(uintptr_t)a->db_addr;
	wq->state = EMU_QPS_RESET;
	wq->used = true;
	emu_rebuild_active_qps();
	EMU_TRACE("create_wq wqn 0x%x %u x %u bytes at +%u", wq->qpn, cnt, 1u << shift,
		  wq->rq.off);
}

void emu_wq_discard(struct emu_qp *wq)
{
	emu_qpn_release_wq(wq);
}

struct emu_qp *emu_wq_lookup(struct emu_ctx *ctx, uint32_t handle)
{
	struct emu_qp *wq = emu_qp_by_qpn(handle);

	return wq && wq->ctx == ctx && wq->is_wq ? wq : NULL;
}

enum emu_wq_state emu_wq_state(const struct emu_qp *wq)
{
	return wq->state == EMU_QPS_RESET ? EMU_WQS_RESET :
	       wq->state == EMU_QPS_ERR ? EMU_WQS_ERR : EMU_WQS_RDY;
}

int emu_wq_modify(struct emu_qp *wq, uint32_t next)
{
	if (next > EMU_WQS_ERR || (next == EMU_WQS_RDY && emu_wq_state(wq) == EMU_WQS_ERR))
		return EINVAL;
	if (next == EMU_WQS_RESET) {
		wq->state = EMU_QPS_RESET;
		wq->rq.ci = 0;
		wq->rq.head_cache = 0;
		*wq->rq.db = 0;
	} else {
		wq->state = next == EMU_WQS_RDY ? EMU_QPS_RTR : EMU_QPS_ERR;
	}
	return 0;
}

int emu_wq_prepare_destroy(struct emu_qp *wq)
{
	if (emu_ind_tbl_has_wq(wq->qpn))
		return EBUSY;
	emu_events_forget(wq->ctx, &wq->async_events);
	return 0;
}

void emu_wq_destroy(struct emu_qp *wq)
{
	wq->used = false;
	emu_qpn_release_wq(wq);
	emu_rebuild_active_qps();
}
