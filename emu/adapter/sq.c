// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Send queue execution.  The WQE at WQEBB counter n is the device's when
 * bit 31 of its first big-endian word equals (n & wqe_cnt) != 0 (libmlx4
 * qp.c).  A WQE is ds 16-byte units long and may span several WQEBBs,
 * wrapping at the ring end; the counter advances by the WQEBBs it uses.
 * Segments by QP type: RC/UC ctrl, [raddr], [atomic], data or inline;
 * UD ctrl, datagram (48 bytes), data; raw packet ctrl, [LSO], data.
 */
#include <string.h>

#include "adapter/cq.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/objects.h"
#include "adapter/send.h"
#include "adapter/doorbell.h"
#include "adapter/remote.h"
#include "base/guard.h"

void emu_qp_set_error(struct emu_qp *qp)
{
	if (qp->state == EMU_QPS_ERR)
		return;
	qp->state = EMU_QPS_ERR;
	qp->sq.rnr_tries = 0;
	EMU_TRACE("QPN 0x%x moved to the error state", qp->qpn);
	/* the flushes run on the next passes, where error QPs are polled */
	emu_dev.active_dirty = true;
	emu_qp_schedule(qp);
	if (qp->srq)
		emu_async_event(qp->ctx, qp->user_handle,
				IBV_EVENT_QP_LAST_WQE_REACHED, &qp->async_events);
}

/* Copies the WQE at counter n (which may span WQEBBs and wrap). */
static uint32_t copy_wqe(const struct emu_qp *qp, uint32_t n, uint8_t *dst,
			 uint32_t *nbb)
{
	uint32_t stride = 1u << qp->sq.shift;
	uint32_t ds = emu_sq_slot(qp, n)[7] & 0x3f;
	uint32_t size = ds * 16, done = 0;

	*nbb = size > stride ? (size + stride - 1) >> qp->sq.shift : 1;
	if (*nbb > qp->sq.cnt) {
		*nbb = 1;
		size = stride;
	}
	while (done < size) {
		uint32_t k = size - done < stride ? size - done : stride;

		memcpy(dst + done, emu_sq_slot(qp, n + done / stride), k);
		done += k;
	}
	if (!size)
		memcpy(dst, emu_sq_slot(qp, n), 16);
	return size;
}

static bool beyond_headroom(const struct emu_qp *qp, uint32_t n)
{
	uint32_t far;
	const uint8_t *s;
	uint32_t w0;

	if (qp->sq.cnt <= qp->sq.spare)
		return false;
	far = n + qp->sq.cnt - qp->sq.spare;
	s = emu_sq_slot(qp, far);
	w0 = ld_be32(s);
	return w0 != 0xffffffffu && (w0 >> 31) == ((far & qp->sq.cnt) ? 1u : 0u) &&
	       (s[7] & 0x3f) && emu_send_opcode_ok(qp->type, w0 & 0x1f);
}

static void send_cqe(struct emu_qp *qp, uint16_t index, uint8_t opcode,
		     uint32_t byte_cnt, bool signaled, uint8_t syndrome, uint8_t vendor)
{
	struct emu_cqe c;

	if (syndrome) {
		emu_cqe_write_error(qp->scq, qp->qpn, true, index, syndrome, vendor);
		emu_qp_set_error(qp);
		return;
	}
	if (!signaled)
		return;
	memset(&c, 0, sizeof(c));
	c.vlan_my_qpn = htobe32(qp->qpn);
	c.byte_cnt = htobe32(byte_cnt);
	c.wqe_index = htobe16(index);
	emu_cqe_write(qp->scq, &c, (uint8_t)(EMU_CQE_IS_SEND | opcode), false);
}

void emu_send_cqe(struct emu_qp *qp, uint16_t wqe_index, uint8_t opcode,
		  uint32_t byte_cnt, bool signaled, uint8_t syndrome)
{
	send_cqe(qp, wqe_index, opcode, byte_cnt, signaled, syndrome, 0);
}

/* Send CQEs come in WQE order: behind WQEs still waiting for their ACK, a
 * WQE that completed locally waits in the transport's queue. */
static void complete(struct send_op *op)
{
	struct emu_qp *qp = op->qp;
	bool signaled = (op->srcrb & EMU_CTRL_CQ_UPDATE) == EMU_CTRL_CQ_UPDATE;

	if (op->deferred)
		return;
	if (qp->conn && emu_remote &&
	    emu_remote->conn_queue_local(qp, op->index, op->opcode, (uint32_t)op->byte_cnt,
					 signaled, op->syndrome)) {
		if (op->syndrome)
			emu_qp_set_error(qp);
		return;
	}
	send_cqe(qp, op->index, op->opcode, (uint32_t)op->byte_cnt, signaled,
		 op->syndrome, op->vendor);
}

static int flush_rq(struct emu_qp *qp)
{
	struct emu_rwqe w;
	int n = 0;

	if (qp->srq || !qp->rq.cnt || !qp->rcq)
		return 0;
	while (n < 64 && emu_rq_take(qp, &w)) {
		emu_cqe_write_error(w.cq, qp->qpn, false, w.wqe_index,
				    EMU_SYN_WR_FLUSH, 0);
		n++;
	}
	return n;
}

static int flush_sq(struct emu_qp *qp, int budget)
{
	int n = 0;

	while (n < budget && emu_sq_slot_valid(qp, qp->sq.pc)) {
		uint32_t ds = emu_sq_slot(qp, qp->sq.pc)[7] & 0x3f;
		uint32_t stride = 1u << qp->sq.shift;
		uint32_t nbb = ds * 16 > stride ? (ds * 16 + stride - 1) / stride : 1;

		emu_cqe_write_error(qp->scq, qp->qpn, true, (uint16_t)qp->sq.pc,
				    EMU_SYN_WR_FLUSH, 0);
		qp->sq.pc += nbb;
		n++;
	}
	return n;
}

/* The next WQE to execute: from the ring when its slot is valid, else a
 * BlueFlame post of the same counter (a post that only went by BlueFlame).
 * Returns 1 with op->size and *nbb set, 0 for nothing, -1 for a BlueFlame
 * post still being written (try again). */
static int next_wqe(struct emu_qp *qp, struct send_op *op, uint8_t *wbuf, uint32_t *nbb)
{
	uint32_t lap = (qp->sq.pc & qp->sq.cnt) ? 1u : 0u;
	int size;

	if (emu_sq_slot_valid(qp, qp->sq.pc)) {
		op->size = copy_wqe(qp, qp->sq.pc, wbuf, nbb);
		return 1;
	}
	if (emu_doorbells_trapped(qp->ctx)) {
		size = emu_db_bf_take(qp->ctx, qp->qpn, (uint16_t)qp->sq.pc, wbuf);
		if (size <= 0 || (ld_be32(wbuf) >> 31) != lap)
			return size < 0 ? -1 : 0;
		op->size = (uint32_t)size;
	} else {
		if (!qp->bf.pending || qp->bf.counter != (qp->sq.pc & 0xffff))
			return 0;
		op->size = (qp->bf.copy[7] & 0x3f) * 16;
		memcpy(wbuf, qp->bf.copy, sizeof(qp->bf.copy));
		qp->bf.pending = false;
	}
	op->from_bf = true;
	/* the WQE still owns the WQEBBs its size covers */
	*nbb = (op->size + (1u << qp->sq.shift) - 1) >> qp->sq.shift;
	if (!*nbb)
		*nbb = 1;
	return 1;
}

static const char *const state_name[] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

/* Send WQEs wait while the QP is not in RTS (IB spec 10.3.1: posted to a
 * QP in INIT, RTR or SQD they are queued, not processed); told once per
 * WQE with debug on. */
static void report_held(struct emu_qp *qp)
{
	if (!emu_cfg.debug || qp->debug.held_reported == qp->sq.pc + 1 ||
	    !emu_sq_slot_valid(qp, qp->sq.pc))
		return;
	qp->debug.held_reported = qp->sq.pc + 1;
	emu_trace("QPN 0x%x: send WQE 0x%04x held: the QP is in %s, sends run in RTS",
		  qp->qpn, qp->sq.pc & 0xffff, state_name[qp->state]);
}

static void check_wqe(struct emu_qp *qp, struct send_op *op)
{
	if (qp->debug.fault_cqe_at && qp->debug.wqes_done + 1 == qp->debug.fault_cqe_at) {
		op->syndrome = qp->debug.fault_syndrome;
		op->vendor = EMU_VSYN_FAULT;
		qp->debug.fault_cqe_at = 0;
		EMU_TRACE("QPN 0x%x WQE 0x%04x: injected error CQE, syndrome 0x%02x",
			  qp->qpn, op->index, op->syndrome);
	} else if (!op->size) {
		emu_send_strict_fail(op, EMU_VSYN_DS_ZERO, "WQE with ds 0");
	} else if (!op->from_bf && beyond_headroom(qp, qp->sq.pc)) {
		emu_send_strict_fail(op, EMU_VSYN_BEYOND_HEADROOM,
			    "WQE posted beyond the free slots (SQ headroom used)");
	} else {
		op->checked = true;
	}
}

static void wqe_done(struct emu_qp *qp, struct send_op *op, uint32_t nbb)
{
	complete(op);
	qp->sq.pc += nbb;
	qp->debug.wqes_done++;
	EMU_CTR_INC(wqes);
	if (qp->debug.fault_err_after && qp->debug.wqes_done >= qp->debug.fault_err_after) {
		qp->debug.fault_err_after = 0;
		EMU_TRACE("QPN 0x%x: injected move to the error state", qp->qpn);
		emu_qp_set_error(qp);
	}
}

struct sq_run {
	struct emu_qp *qp;
	int budget, work;
	uint64_t *now_ns;
	int *pending;
	struct send_op *op;	/* the WQE being executed, or NULL */
	uint32_t nbb;
	/* here, not in sq_run's frame: the fault path reads it after the jump */
	struct send_op cur;
	uint8_t wbuf[WQE_MAX + 64] __attribute__((aligned(64)));
};

static void sq_run(struct sq_run *r)
{
	struct emu_qp *qp = r->qp;
	struct send_op *op = &r->cur;

	if (qp->state == EMU_QPS_ERR)
		r->work += flush_rq(qp);
	if (qp->is_wq || !qp->scq)
		return;
	if (qp->state == EMU_QPS_ERR || qp->state == EMU_QPS_SQE) {
		/* WQEs the transport holds are older than those at sq.pc */
		if (qp->conn && emu_remote)
			r->work += emu_remote->sq_flush(qp);
		r->work += flush_sq(qp, r->budget);
		return;
	}
	if (qp->state != EMU_QPS_RTS) {
		/* rung (or polled) while not in RTS: served again on RTS */
		qp->sq.db_held = true;
		report_held(qp);
		return;
	}
	if (qp->sq.rnr_tries) {
		if (!*r->now_ns)
			*r->now_ns = emu_now_ns();
		if (*r->now_ns < qp->sq.rnr_due_ns) {
			(*r->pending)++;
			return;
		}
	}
	while (r->work < r->budget && qp->state == EMU_QPS_RTS) {
		int got;

		memset(op, 0, sizeof(*op));
		op->qp = qp;
		op->w = r->wbuf;
		op->index = (uint16_t)qp->sq.pc;
		r->nbb = 1;
		got = next_wqe(qp, op, r->wbuf, &r->nbb);
		if (got <= 0) {
			if (got < 0)
				(*r->pending)++;
			break;
		}
		op->opcode = ld_be32(r->wbuf) & 0x1f;
		op->srcrb = ld_be32(r->wbuf + 8);
		memcpy(&op->imm_raw, r->wbuf + 12, 4);
		check_wqe(qp, op);
		if (op->checked) {
			r->op = op;
			emu_rq_undo_arm();
			emu_send_execute(op, r->now_ns);
			r->op = NULL;
			if (op->stall) {
				(*r->pending)++;
				break;
			}
			if (op->blocked)
				break;
		}
		wqe_done(qp, op, r->nbb);
		r->work++;
	}
}

/* Which of the QP's own rings the address is in. */
static bool in_own_sq(const struct emu_qp *qp, const void *addr)
{
	const uint8_t *a = addr, *sq = qp->buf + qp->sq.off;

	return a >= sq && a < sq + ((size_t)qp->sq.cnt << qp->sq.shift);
}

/*
 * A device access faulted while the QP was served: the program unmapped
 * memory the adapter would hold pinned.  Its own send ring gone: the QP
 * is lost (error state, IBV_EVENT_QP_FATAL, the device touches it no
 * more).  Memory of a WQE (registered memory it gathers from or scatters
 * to): that WQE completes with LOCAL_PROT_ERR, the QP goes to error, and a
 * receive WQE the peer took for it is given back.
 */
static void sq_fault(struct sq_run *r, void *addr)
{
	struct emu_qp *qp = r->qp;

	emu_rq_undo_last();
	if (!r->op || in_own_sq(qp, addr)) {
		EMU_TRACE("QPN 0x%x: send queue memory at %p is no longer mapped: QP lost",
			  qp->qpn, addr);
		emu_qp_lost(qp);
		return;
	}
	EMU_TRACE("QPN 0x%x WQE 0x%04x: memory at %p is no longer mapped: local protection error",
		  qp->qpn, r->op->index, addr);
	r->op->syndrome = EMU_SYN_LOCAL_PROT;
	r->op->vendor = 0;
	r->op->stall = false;
	wqe_done(qp, r->op, r->nbb);
	r->op = NULL;
	r->work++;
}

int emu_qp_process(struct emu_qp *qp, int budget, uint64_t *now_ns, int *pending)
{
	struct sq_run run = { .qp = qp, .budget = budget, .now_ns = now_ns,
			      .pending = pending };
	struct sq_run *r = &run;
	struct emu_guard g;

	if (qp->is_rss || qp->lost)
		return 0;
	if (!EMU_GUARD_ENTER(&g)) {
		sq_fault(r, g.fault_addr);
		return r->work;
	}
	sq_run(r);
	emu_guard_leave(&g);
	return r->work;
}

void emu_qp_lost(struct emu_qp *qp)
{
	bool was_err = qp->state == EMU_QPS_ERR;

	qp->lost = true;
	qp->state = EMU_QPS_ERR;
	emu_dev.active_dirty = true;
	if (!was_err)
		emu_async_event(qp->ctx, qp->user_handle, IBV_EVENT_QP_FATAL,
				&qp->async_events);
}
