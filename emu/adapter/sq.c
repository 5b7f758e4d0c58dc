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

void emu_qp_set_error(struct emu_qp *qp)
{
	if (qp->state == EMU_QPS_ERR)
		return;
	qp->state = EMU_QPS_ERR;
	qp->rnr_tries = 0;
	EMU_TRACE("QPN 0x%x moved to the error state", qp->qpn);
	if (qp->srq)
		emu_async_event(qp->ctx, qp->user_handle,
				IBV_EVENT_QP_LAST_WQE_REACHED, &qp->async_events);
}

/* Copies the WQE at counter n (which may span WQEBBs and wrap). */
static uint32_t copy_wqe(const struct emu_qp *qp, uint32_t n, uint8_t *dst,
			 uint32_t *nbb)
{
	uint32_t stride = 1u << qp->sq_shift;
	uint32_t ds = emu_sq_slot(qp, n)[7] & 0x3f;
	uint32_t size = ds * 16, done = 0;

	*nbb = size > stride ? (size + stride - 1) >> qp->sq_shift : 1;
	if (*nbb > qp->sq_cnt) {
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

	if (qp->sq_cnt <= qp->sq_spare)
		return false;
	far = n + qp->sq_cnt - qp->sq_spare;
	s = emu_sq_slot(qp, far);
	w0 = ld_be32(s);
	return w0 != 0xffffffffu && (w0 >> 31) == ((far & qp->sq_cnt) ? 1u : 0u) &&
	       (s[7] & 0x3f) && emu_send_opcode_ok(qp->type, w0 & 0x1f);
}

static void complete(struct send_op *op)
{
	struct emu_qp *qp = op->qp;
	struct emu_cqe c;

	if (op->syndrome) {
		emu_cqe_write_error(qp->scq, qp->qpn, true, op->index, op->syndrome,
				    op->vendor);
		emu_qp_set_error(qp);
		return;
	}
	if ((op->srcrb & EMU_CTRL_CQ_UPDATE) != EMU_CTRL_CQ_UPDATE)
		return;
	memset(&c, 0, sizeof(c));
	c.vlan_my_qpn = htobe32(qp->qpn);
	c.byte_cnt = htobe32((uint32_t)op->byte_cnt);
	c.wqe_index = htobe16(op->index);
	emu_cqe_write(qp->scq, &c, (uint8_t)(EMU_CQE_IS_SEND | op->opcode), false);
}

static int flush_rq(struct emu_qp *qp)
{
	struct emu_rwqe w;
	int n = 0;

	if (qp->srq || !qp->rq_cnt || !qp->rcq)
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

	while (n < budget && emu_sq_slot_valid(qp, qp->sq_pc)) {
		uint32_t ds = emu_sq_slot(qp, qp->sq_pc)[7] & 0x3f;
		uint32_t stride = 1u << qp->sq_shift;
		uint32_t nbb = ds * 16 > stride ? (ds * 16 + stride - 1) / stride : 1;

		emu_cqe_write_error(qp->scq, qp->qpn, true, (uint16_t)qp->sq_pc,
				    EMU_SYN_WR_FLUSH, 0);
		qp->sq_pc += nbb;
		n++;
	}
	return n;
}

int emu_qp_process(struct emu_qp *qp, int budget, uint64_t *now_ns, int *pending)
{
	uint8_t wbuf[WQE_MAX + 64] __attribute__((aligned(64)));
	int work = 0;

	if (qp->is_rss)
		return 0;
	if (qp->state == EMU_QPS_ERR)
		work += flush_rq(qp);
	if (qp->is_wq || !qp->scq)
		return work;
	if (qp->state == EMU_QPS_ERR || qp->state == EMU_QPS_SQE)
		return work + flush_sq(qp, budget);
	if (qp->state != EMU_QPS_RTS)
		return work;
	if (qp->rnr_tries) {
		if (!*now_ns)
			*now_ns = emu_now_ns();
		if (*now_ns < qp->rnr_due_ns) {
			(*pending)++;
			return work;
		}
	}
	while (work < budget) {
		struct send_op op = { .qp = qp, .w = wbuf, .index = (uint16_t)qp->sq_pc };
		uint32_t nbb = 1, w0;
		bool from_bf = false;

		if (!emu_sq_slot_valid(qp, qp->sq_pc)) {
			if (!qp->bf_pending || qp->bf_counter != (qp->sq_pc & 0xffff))
				break;
			from_bf = true;
		}
		op.from_bf = from_bf;
		if (from_bf) {
			op.size = (qp->bf_copy[7] & 0x3f) * 16;
			memcpy(wbuf, qp->bf_copy, sizeof(qp->bf_copy));
			qp->bf_pending = false;
			/* the WQE still owns the WQEBBs its size covers */
			nbb = (op.size + (1u << qp->sq_shift) - 1) >> qp->sq_shift;
			if (!nbb)
				nbb = 1;
		} else {
			op.size = copy_wqe(qp, qp->sq_pc, wbuf, &nbb);
		}
		w0 = ld_be32(wbuf);
		op.opcode = w0 & 0x1f;
		op.srcrb = ld_be32(wbuf + 8);
		memcpy(&op.imm_raw, wbuf + 12, 4);
		if (qp->fault_cqe_at && qp->wqes_done + 1 == qp->fault_cqe_at) {
			op.syndrome = qp->fault_syndrome;
			op.vendor = EMU_VSYN_FAULT;
			qp->fault_cqe_at = 0;
			EMU_TRACE("QPN 0x%x WQE 0x%04x: injected error CQE, syndrome 0x%02x",
				  qp->qpn, op.index, op.syndrome);
		} else if (!op.size) {
			emu_send_strict_fail(&op, EMU_VSYN_DS_ZERO, "WQE with ds 0");
		} else if (!from_bf && beyond_headroom(qp, qp->sq_pc)) {
			emu_send_strict_fail(&op, EMU_VSYN_BEYOND_HEADROOM,
				    "WQE posted beyond the free slots (SQ headroom used)");
		} else {
			emu_send_execute(&op, now_ns);
			if (op.stall) {
				(*pending)++;
				break;
			}
		}
		complete(&op);
		qp->sq_pc += nbb;
		qp->wqes_done++;
		work++;
		EMU_CTR_INC(wqes);
		if (qp->fault_err_after && qp->wqes_done >= qp->fault_err_after) {
			qp->fault_err_after = 0;
			EMU_TRACE("QPN 0x%x: injected move to the error state", qp->qpn);
			emu_qp_set_error(qp);
		}
		if (qp->state != EMU_QPS_RTS)
			break;
	}
	return work;
}
