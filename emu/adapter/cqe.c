// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion queue, device side.  A CQE is written body first, then a
 * store barrier, then the byte that holds the owner bit (set to the lap
 * parity of the producer index: entry n is software-owned when its owner
 * bit equals (n & cqe_cnt) != 0).  With 64-byte CQEs the valid 32 bytes
 * are the second half.  Arming: libmlx4 writes the arm record
 * (sn << 28 | cmd << 24 | ci) and rings UAR + 0x20; an armed CQ raises one
 * completion event (struct ib_uverbs_comp_event_desc on the channel's queue)
 * for the next CQE that matches (any, or solicited/error for cmd 1) and a
 * CQ is not re-armed by an arm carrying the sequence number of the arm
 * that already fired.
 */
#include "adapter/cq.h"

#include <endian.h>
#include <string.h>

#include "adapter/clock.h"
#include "adapter/events.h"
#include "base/libc.h"
#include "adapter/objects.h"
#include "base/guard.h"

#define ARM_SOLICITED 1
#define ARM_ANY 2

void emu_cq_init_owner(uint8_t *buf, uint32_t cnt, uint32_t cqe_size,
		       uint32_t first)
{
	/* entry of index j belongs to the device while its owner bit differs
	 * from the lap parity (j & cnt) != 0 */
	for (uint32_t k = 0; k < cnt; k++) {
		uint32_t j = first + k;

		buf[(size_t)(j & (cnt - 1)) * cqe_size + cqe_size - 1] =
			(j & cnt) ? 0 : EMU_CQE_OWNER;
	}
}

static void deliver_event(struct emu_cq *cq)
{
	struct ib_uverbs_comp_event_desc ev = { .cq_handle = cq->user_handle };
	struct emu_channel *ch;

	cq->armed = 0;
	if (cq->channel < 0)
		return;
	ch = &emu_dev.channels[cq->channel];
	if (!ch->used || emu_evq_push(&ch->q, &ev, &cq->comp_events))
		return;
	EMU_CTR_INC(comp_events);
	EMU_TRACE("completion event cqn 0x%x", cq->cqn);
}

static void cq_overrun(struct emu_cq *cq)
{
	cq->in_error = true;
	EMU_TRACE("CQ overrun: cqn 0x%x (pi %u, ci record %u, %u entries)",
		  cq->cqn, cq->pi, be32toh(*cq->ci_db) & 0xffffff, cq->cnt);
	emu_async_event(cq->ctx, cq->user_handle, IBV_EVENT_CQ_ERR, &cq->async_events);
}

/*
 * A CQ created with IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION carries bits
 * 0..47 of the HCA core clock where other CQs carry sl_vid and rlid:
 * bits 16..47 big-endian in bytes 12..15, bits 8..15 in byte 29, bits 0..7
 * in byte 30 (rdma-core mlx4dv.h struct mlx4_cqe ts_47_16, ts_15_8,
 * ts_7_0; libmlx4 cq.c mlx4_cq_read_wc_completion_ts).  The clock is
 * sampled (and the clock page updated) before the CQE becomes valid.
 */
static void stamp_completion_time(uint8_t *e)
{
	uint64_t t = emu_clock_sample() & EMU_CQE_TIMESTAMP_MASK;
	uint32_t hi = htobe32((uint32_t)(t >> 16));

	memcpy(e + 12, &hi, 4);
	e[29] = (uint8_t)(t >> 8);
	e[30] = (uint8_t)t;
}

/* The CQ's buffer or a record faulted: the program unmapped it while the
 * CQ exists.  The CQ goes to error (no more CQEs) with IBV_EVENT_CQ_ERR. */
static void cq_fault(struct emu_cq *cq, void *addr)
{
	EMU_TRACE("CQN 0x%x: CQ memory at %p is no longer mapped: CQ in error",
		  cq->cqn, addr);
	if (cq->in_error)
		return;
	cq->in_error = true;
	emu_async_event(cq->ctx, cq->user_handle, IBV_EVENT_CQ_ERR, &cq->async_events);
}

static int cqe_write(struct emu_cq *cq, const struct emu_cqe *body,
		     uint8_t opcode_byte, bool solicited)
{
	uint32_t ci;
	uint8_t *e;

	/* the consumer index only grows: read the record (a cache line the
	 * poller keeps writing) only when the cached value says "full" */
	ci = cq->ci_cache;
	if (((cq->pi - ci) & 0xffffff) >= cq->cnt)
		ci = cq->ci_cache = be32toh(*cq->ci_db) & 0xffffff;
	if (((cq->pi - ci) & 0xffffff) >= cq->cnt ||
	    (cq->overrun_after && cq->cqes_total + 1 >= cq->overrun_after)) {
		cq_overrun(cq);
		return -1;
	}
	e = cq->buf + (size_t)(cq->pi & (cq->cnt - 1)) * cq->cqe_size +
	    (cq->cqe_size == 64 ? 32 : 0);
	memcpy(e, body, 31);
	if (cq->timestamp)
		stamp_completion_time(e);
	__atomic_store_n(&e[31],
			 (uint8_t)(((cq->pi & cq->cnt) ? EMU_CQE_OWNER : 0) | opcode_byte),
			 __ATOMIC_RELEASE);
	cq->pi++;
	cq->cqes_total++;
	EMU_CTR_INC(cqes);
	if (cq->armed && (opcode_byte & 0x1f) != EMU_CQE_OPCODE_RESIZE &&
	    (cq->armed == ARM_ANY || solicited ||
	     (opcode_byte & 0x1f) == EMU_CQE_OPCODE_ERROR))
		deliver_event(cq);
	return 0;
}

int emu_cqe_write(struct emu_cq *cq, const struct emu_cqe *body,
		  uint8_t opcode_byte, bool solicited)
{
	struct emu_guard g;
	int ret;

	if (cq->in_error)
		return -1;
	if (!EMU_GUARD_ENTER(&g)) {
		cq_fault(cq, g.fault_addr);
		return -1;
	}
	ret = cqe_write(cq, body, opcode_byte, solicited);
	emu_guard_leave(&g);
	return ret;
}

static int write_error(struct emu_cq *cq, uint32_t qpn, uint32_t rqpn, bool is_send,
		       uint16_t wqe_index, uint8_t syndrome, uint8_t vendor)
{
	struct emu_cqe body;
	uint8_t *raw = (uint8_t *)&body;

	memset(&body, 0, sizeof(body));
	body.vlan_my_qpn = htobe32(qpn);
	body.g_mlpath_rqpn = htobe32(rqpn);
	body.wqe_index = htobe16(wqe_index);
	/* error CQE: vendor syndrome at byte 26, syndrome at byte 27 */
	raw[26] = vendor;
	raw[27] = syndrome;
	EMU_CTR_INC(error_cqes);
	return emu_cqe_write(cq, &body,
			     (uint8_t)((is_send ? EMU_CQE_IS_SEND : 0) |
				       EMU_CQE_OPCODE_ERROR), true);
}

int emu_cqe_write_error(struct emu_cq *cq, uint32_t qpn, bool is_send,
			uint16_t wqe_index, uint8_t syndrome, uint8_t vendor)
{
	return write_error(cq, qpn, 0, is_send, wqe_index, syndrome, vendor);
}

int emu_cqe_write_xrc_recv_error(struct emu_cq *cq, uint32_t qpn, uint32_t srqn,
				 uint16_t wqe_index, uint8_t syndrome)
{
	return write_error(cq, qpn, srqn, false, wqe_index, syndrome, 0);
}

static void apply_arm(struct emu_cq *cq, uint32_t word)
{
	uint32_t sn = (word >> 28) & 3;
	uint32_t cmd = (word >> 24) & 3;
	uint32_t ci = word & 0xffffff;

	if (cmd != ARM_SOLICITED && cmd != ARM_ANY)
		return;
	/* the arm that produced the last event is spent */
	if (cq->last_arm_rec == (sn | 0x100u))
		return;
	if (cq->armed)
		return;
	cq->armed = (int)cmd;
	cq->last_arm_rec = sn | 0x100u;
	/* CQEs already written past the arming consumer index fire at once */
	if (cmd == ARM_ANY && ((cq->pi - ci) & 0xffffff))
		deliver_event(cq);
}

int emu_cq_poll_arm(struct emu_cq *cq)
{
	struct emu_guard g;
	uint32_t rec, sn;

	if (cq->in_error)
		return 0;
	if (!EMU_GUARD_ENTER(&g)) {
		cq_fault(cq, g.fault_addr);
		return 0;
	}
	rec = be32toh(*cq->arm_db);
	emu_guard_leave(&g);
	sn = (rec >> 28) & 3;

	/* a new arm carries a sequence number not yet used */
	if (!cq->armed && ((rec >> 24) & 3) && cq->last_arm_rec != (sn | 0x100u)) {
		apply_arm(cq, rec);
		return 1;
	}
	return 0;
}

void emu_ctx_poll_cq_doorbell(struct emu_ctx *ctx)
{
	uint64_t db;

	if (!ctx->uar)
		return;
	db = __atomic_load_n((uint64_t *)(ctx->uar + 0x20), __ATOMIC_ACQUIRE);
	if (db == ctx->last_cq_db)
		return;
	ctx->last_cq_db = db;
	emu_cq_doorbell(ctx, be64toh(db));
}

void emu_cq_doorbell(struct emu_ctx *ctx, uint64_t db)
{
	uint32_t hi, cqn;
	struct emu_cq *cq;

	hi = (uint32_t)(db >> 32);
	cqn = hi & 0xffffff;
	if (cqn >= EMU_MAX_CQ || !emu_dev.cq[cqn].used || emu_dev.cq[cqn].ctx != ctx)
		return;
	cq = &emu_dev.cq[cqn];
	apply_arm(cq, (hi & 0xff000000u) | ((uint32_t)db & 0xffffff));
}
