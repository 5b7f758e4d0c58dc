/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One send WQE as the engine executes it, shared by the queue (sq.c), the
 * gather-list parser (send_gather.c), the opcode execution
 * (send_exec.c) and the BlueFlame capture (blueflame.c).
 */
#ifndef MLX4EMU_SEND_H
#define MLX4EMU_SEND_H

#include "adapter/wqe.h"

#define WQE_MAX 1024	/* 63 x 16 bytes, rounded */

struct send_op {
	struct emu_qp *qp;
	const uint8_t *w;	/* local copy of the WQE */
	uint32_t size;		/* ds * 16 */
	uint8_t opcode;
	uint32_t srcrb;
	uint32_t imm_raw;	/* word 3 as stored (big-endian) */
	uint16_t index;		/* WQEBB counter of the first WQEBB */
	uint32_t off;		/* first byte after the fixed segments */
	uint64_t byte_cnt;	/* reported in the send CQE */
	uint8_t syndrome, vendor;
	bool stall;		/* RNR: retry later */
	bool blocked;		/* the transport's window is full: wait to be scheduled */
	bool deferred;		/* the transport completes it when its ACK arrives */
	bool from_bf;		/* taken from the BlueFlame buffer */
	bool checked;		/* passed the queue-level checks: execute */
};

/* Marks the WQE as refused by a strict check (LOCAL_QP_OP_ERR with a
 * vendor syndrome) and traces the rule it broke. */
void emu_send_strict_fail(struct send_op *op, uint8_t vendor, const char *rule);

/* Builds the gather list of the data part (from op->off); 0, or -1 with
 * op->syndrome set. */
int emu_send_gather(struct send_op *op, struct emu_gather *g);

/* true if the opcode is one the QP type accepts. */
bool emu_send_opcode_ok(uint8_t qp_type, uint8_t opcode);

/* UD send of the gathered message (ud.c). */
void emu_send_ud(struct send_op *op, const struct emu_gather *g);

/* Executes the WQE; sets op->syndrome, op->byte_cnt or op->stall. */
void emu_send_execute(struct send_op *op, uint64_t *now_ns);

static inline uint8_t *emu_sq_slot(const struct emu_qp *qp, uint32_t n)
{
	return qp->buf + qp->sq.off + ((size_t)(n & (qp->sq.cnt - 1)) << qp->sq.shift);
}

/* The WQE at counter n is the device's (owner bit of its first word). */
static inline bool emu_sq_slot_valid(const struct emu_qp *qp, uint32_t n)
{
	uint32_t w0 = be32toh(__atomic_load_n((uint32_t *)emu_sq_slot(qp, n),
					      __ATOMIC_ACQUIRE));

	return (w0 >> 31) == ((n & qp->sq.cnt) ? 1u : 0u);
}

#endif
