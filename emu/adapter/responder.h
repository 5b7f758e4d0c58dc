/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What the responder side of the adapter does for a message that reached
 * one of its QPs, shared by the in-process path (send_exec.c, ud.c) and
 * the transport from other adapters: receive CQEs, receive errors.
 */
#ifndef MLX4EMU_ADAPTER_RESPONDER_H
#define MLX4EMU_ADAPTER_RESPONDER_H

#include "adapter/wqe.h"

/* RTR, RTS, SQD or SQE: the QP accepts packets. */
static inline bool emu_qp_can_receive(const struct emu_qp *qp)
{
	return qp->state >= EMU_QPS_RTR && qp->state <= EMU_QPS_SQE;
}

/* Receive CQE for WQE w; imm_raw big-endian as stored, g_ml = the GRH bit
 * and path bits of the CQE word, sl_vid from emu_sl_field(). */
void emu_recv_cqe(const struct emu_rwqe *w, uint8_t opcode, uint32_t imm_raw,
		  uint64_t len, uint32_t src_qpn, uint32_t g_ml, uint16_t sl_vid,
		  uint16_t slid, uint32_t status, bool solicited);

/* Receive error CQE (LOCAL_LENGTH, LOCAL_PROT ...) and the QP to ERR. */
void emu_recv_error_cqe(const struct emu_rwqe *w, uint8_t syndrome);

/* The CQE's sl_vid field of receiver d: SL in bits 12..15 on IB, priority
 * in bits 13..15 on Ethernet. */
uint16_t emu_sl_field(const struct emu_qp *d, uint8_t sl);

/*
 * Host address of [va, va + len) under rkey at responder QP d: the key's
 * PD must be d's, its access include `need` (IBV_ACCESS_REMOTE_*), a type 2
 * window be bound to d.  NULL when refused (remote access error).
 */
uint8_t *emu_rkey_map(const struct emu_qp *d, uint32_t rkey, uint64_t va, uint64_t len,
		      uint32_t need);

/* SEND with invalidate: the type 2 window of d's PD with this rkey is
 * invalidated (anything else is left alone). */
void emu_invalidate_rkey(const struct emu_qp *d, uint32_t rkey);

/*
 * Executes atomic `opcode` (EMU_OP_ATOMIC_CS/FA, EMU_OP_MASKED_ATOMIC_CS/FA)
 * on the 8 bytes at p (host order) with the operands in host order: swap
 * or add, compare (masked FA: the field-boundary mask), swap mask, compare
 * mask.  Returns the original value.
 */
uint64_t emu_atomic_apply(uint8_t opcode, uint8_t *p, const uint64_t operand[4]);

#endif
