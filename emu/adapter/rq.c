// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Receive side: taking WQEs from RQs (doorbell record = 16-bit head), SRQs
 * (free list linked by next_wqe_index, doorbell record = post counter) and
 * WQs, and scattering a message into their data segments.
 */
#include "adapter/wqe.h"

#include <infiniband/verbs.h>

#include "adapter/events.h"
#include "adapter/objects.h"
#include "base/guard.h"

/*
 * Doorbell records are re-read only when the cached copy shows nothing
 * left: the poster keeps writing that cache line.
 */
static uint32_t srq_pending(struct emu_srq *srq)
{
	uint32_t n = (uint16_t)(srq->posted_cache - srq->consumed);

	if (!n) {
		srq->posted_cache = (uint16_t)ld_be32((const void *)srq->db);
		n = (uint16_t)(srq->posted_cache - srq->consumed);
	}
	return n;
}

/* Number of receive WQEs posted and not yet consumed. */
static uint32_t emu_rq_pending(struct emu_qp *qp)
{
	uint32_t n;

	if (qp->srq)
		return srq_pending(qp->srq);
	if (!qp->rq.cnt || !qp->rq.db)
		return 0;
	n = (uint16_t)(qp->rq.head_cache - qp->rq.ci);
	if (!n) {
		qp->rq.head_cache = (uint16_t)ld_be32((const void *)qp->rq.db);
		n = (uint16_t)(qp->rq.head_cache - qp->rq.ci);
	}
	return n;
}

static void srq_limit_check(struct emu_srq *srq)
{
	uint32_t left;

	if (!srq->limit)
		return;
	left = (ld_be32((const void *)srq->db) - srq->consumed) & 0xffff;
	if (left < srq->limit) {
		srq->limit = 0;	/* one event per arming */
		emu_async_event(srq->ctx, srq->user_handle,
				IBV_EVENT_SRQ_LIMIT_REACHED, &srq->async_events);
	}
}

static uint32_t count_sges(const uint8_t *seg, uint32_t max)
{
	uint32_t n = 0;

	/* a short list ends with the invalid lkey 0x100 */
	while (n < max && ld_be32(seg + n * 16 + 4) != EMU_INVALID_LKEY)
		n++;
	return n;
}

/* The last receive WQE taken since emu_rq_undo_arm() (emu_dev.lock held). */
static struct {
	struct emu_qp *qp;	/* NULL: nothing to give back */
	struct emu_srq *srq;
	uint16_t rq_ci, srq_next, srq_consumed;
} undo;

void emu_rq_undo_arm(void)
{
	undo.qp = NULL;
}

void emu_rq_undo_last(void)
{
	if (!undo.qp)
		return;
	if (undo.srq) {
		undo.srq->next = undo.srq_next;
		undo.srq->consumed = undo.srq_consumed;
	} else {
		undo.qp->rq.ci = undo.rq_ci;
	}
	undo.qp = NULL;
}

/* The receive ring, SRQ or doorbell record faulted: the program unmapped
 * it.  The queue is lost: error state and a fatal async event. */
static void rq_fault(struct emu_qp *qp, struct emu_srq *srq, void *addr)
{
	EMU_TRACE("QPN 0x%x: receive queue memory at %p is no longer mapped", qp->qpn,
		  addr);
	if (srq) {
		if (!srq->lost)
			emu_async_event(srq->ctx, srq->user_handle, IBV_EVENT_SRQ_ERR,
					&srq->async_events);
		srq->lost = true;
		return;
	}
	emu_qp_lost(qp);
}

static int srq_take(struct emu_srq *srq, struct emu_rwqe *w)
{
	const uint8_t *wqe;

	if (srq->ctx == NULL || !srq->used || !srq_pending(srq))
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	wqe = srq->buf + ((size_t)(srq->next & (srq->cnt - 1)) << srq->shift);
	w->wqe_index = srq->next & (srq->cnt - 1);
	w->sge = wqe + 16;
	w->nsge = count_sges(w->sge, srq->max_gs);
	w->pdn = srq->pdn;
	srq->next = ld_be16(wqe + 2);
	srq->consumed++;
	srq_limit_check(srq);
	return 1;
}

static int rq_take(struct emu_qp *qp, struct emu_srq *srq, struct emu_rwqe *w)
{
	const uint8_t *wqe;

	undo.qp = qp;
	undo.srq = srq;
	undo.rq_ci = qp->rq.ci;
	if (srq) {
		undo.srq_next = srq->next;
		undo.srq_consumed = srq->consumed;
		if (!srq_take(srq, w))
			return 0;
	} else {
		if (!emu_rq_pending(qp))
			return 0;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		wqe = qp->buf + qp->rq.off +
		      ((size_t)(qp->rq.ci & (qp->rq.cnt - 1)) << qp->rq.shift);
		w->wqe_index = qp->rq.ci;
		w->sge = wqe;
		w->nsge = count_sges(wqe, qp->rq.max_gs);
		w->pdn = qp->pdn;
		qp->rq.ci++;
	}
	w->qp = qp;
	/* an XRC SRQ completes on its own CQ and names itself in the CQE */
	w->cq = srq && srq->xrcd ? srq->cq : qp->rcq;
	w->xrc_srqn = srq && srq->xrcd ? srq->srqn : 0;
	return 1;
}

static int rq_take_guarded(struct emu_qp *qp, struct emu_srq *srq,
			   struct emu_rwqe *w)
{
	struct emu_guard g;
	int got;

	if (qp->lost || (srq && srq->lost))
		return 0;
	if (!EMU_GUARD_ENTER(&g)) {
		undo.qp = NULL;
		rq_fault(qp, srq, g.fault_addr);
		return 0;
	}
	got = rq_take(qp, srq, w);
	emu_guard_leave(&g);
	if (!got)
		undo.qp = NULL;
	return got;
}

int emu_rq_take(struct emu_qp *qp, struct emu_rwqe *w)
{
	/* an XRC target receives on the SRQ its current request names */
	return rq_take_guarded(qp, qp->xrc.srq ? qp->xrc.srq : qp->srq, w);
}

int emu_scatter_segs(uint32_t pdn, const uint8_t *segs, uint32_t nsegs,
		     const struct emu_gather *g, uint64_t *capacity)
{
	uint32_t ci = 0, coff = 0;
	uint64_t cap = 0;

	for (uint32_t s = 0; s < nsegs; s++) {
		const uint8_t *seg = segs + s * 16;
		uint32_t len = ld_be32(seg) & 0x7fffffff;
		uint32_t lkey = ld_be32(seg + 4);
		uint64_t addr = ld_be64(seg + 8);
		uint8_t *dst = NULL;
		struct emu_key *k;

		if (ld_be32(seg) == 0)
			len = 0x80000000u;	/* 0 encodes 2 GB */
		cap += len;
		if (ci >= g->n || !len)
			continue;
		k = emu_key_lookup(lkey);
		if (!k || k->kind != EMU_KEY_MR || k->pdn != pdn ||
		    !(k->access & IBV_ACCESS_LOCAL_WRITE))
			return EMU_SYN_LOCAL_PROT;
		while (len && ci < g->n) {
			uint32_t n = g->c[ci].len - coff;

			if (n > len)
				n = len;
			if (!dst) {
				/* only the part the message fills must be valid */
				uint64_t need = len;
				uint64_t rest = 0;

				for (uint32_t j = ci; j < g->n; j++)
					rest += g->c[j].len;
				rest -= coff;
				if (rest < need)
					need = rest;
				dst = emu_key_map(k, addr, need);
				if (!dst)
					return EMU_SYN_LOCAL_PROT;
			}
			if (g->c[ci].p)
				memcpy(dst, g->c[ci].p + coff, n);
			dst += n;
			len -= n;
			coff += n;
			if (coff == g->c[ci].len) {
				ci++;
				coff = 0;
			}
		}
	}
	if (capacity)
		*capacity = cap;
	return ci < g->n ? EMU_SYN_LOCAL_LENGTH : 0;
}

int emu_scatter(const struct emu_rwqe *w, const struct emu_gather *g)
{
	return emu_scatter_segs(w->pdn, w->sge, w->nsge, g, NULL);
}
