/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* CQE writing, completion events and CQ arming (device side). */
#ifndef MLX4EMU_CQ_H
#define MLX4EMU_CQ_H

#include "adapter/adapter.h"

/* The 28 bytes before the owner byte of a CQE, in device (big-endian) form. */
struct emu_cqe {
	uint32_t vlan_my_qpn;
	uint32_t immed_rss_invalid;
	uint32_t g_mlpath_rqpn;
	uint16_t sl_vid;
	uint16_t rlid;
	uint32_t status;
	uint32_t byte_cnt;
	uint16_t wqe_index;
	uint16_t checksum;
	uint8_t reserved3;
	uint8_t ts_15_8;
	uint8_t badfcs_enc;
};

#define EMU_CQE_OWNER 0x80
#define EMU_CQE_IS_SEND 0x40
#define EMU_CQE_OPCODE_ERROR 0x1e
#define EMU_CQE_OPCODE_RESIZE 0x16

/*
 * Writes one CQE (body, store barrier, owner byte) and raises the
 * completion event when the CQ is armed for it.  `opcode_byte` carries the
 * is-send bit and opcode.  Returns 0, or -1 when the CQ overran (the CQE is
 * lost, the CQ goes to error and IBV_EVENT_CQ_ERR is raised).
 */
int emu_cqe_write(struct emu_cq *cq, const struct emu_cqe *body,
		  uint8_t opcode_byte, bool solicited);

/* Error CQE: syndrome, vendor syndrome, 16-bit WQE counter. */
int emu_cqe_write_error(struct emu_cq *cq, uint32_t qpn, bool is_send,
			uint16_t wqe_index, uint8_t syndrome, uint8_t vendor);

/* Receive error CQE of an XRC SRQ: the target QPN (bit 23 set) and the
 * SRQ number in the rqpn field, where libmlx4 looks for the SRQ. */
int emu_cqe_write_xrc_recv_error(struct emu_cq *cq, uint32_t qpn, uint32_t srqn,
				 uint16_t wqe_index, uint8_t syndrome);

/* Marks every CQE owned by the device for the lap of the producer index
 * `first` that will next use it (at creation: owner bit 1 everywhere). */
void emu_cq_init_owner(uint8_t *buf, uint32_t cnt, uint32_t cqe_size,
		       uint32_t first);

/* Looks at the arm record and the UAR arm doorbell; returns work done. */
int emu_cq_poll_arm(struct emu_cq *cq);
void emu_ctx_poll_cq_doorbell(struct emu_ctx *ctx);
/* A CQ arm doorbell of the context (64 bits, host order: sn << 60 |
 * cmd << 56 | cqn << 32 | consumer index). */
void emu_cq_doorbell(struct emu_ctx *ctx, uint64_t db);

#endif
