/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A CQ's life (cq.c), CQE writing, completion events and CQ arming. */
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

/* What a CQ is created with: libmlx4's CQE buffer and its doorbell
 * records (consumer index, then the arm record 4 bytes later). */
struct emu_cq_attrs {
	uint64_t user_handle;
	uint32_t cqe;		/* entries - 1 */
	int32_t channel_fd;	/* completion channel, or -1 */
	uint32_t comp_vector;
	uint64_t buf_addr, db_addr;
	bool timestamp;		/* CQEs carry the completion time */
};

/*
 * The CQ's life, called with emu_dev.lock held.  emu_cq_create checks the
 * attributes (EINVAL, EFAULT for memory that is not there, ENOMEM when the
 * table is full) and fills a table entry that is not in use until
 * emu_cq_activate, once its creator answered the program.
 */
int emu_cq_create(struct emu_ctx *ctx, const struct emu_cq_attrs *a,
		  struct emu_cq **cq);
void emu_cq_activate(struct emu_cq *cq);
/* The context's CQ number cqn, or NULL when it is not a live CQ of it. */
struct emu_cq *emu_cq_lookup(struct emu_ctx *ctx, uint32_t cqn);
/* EINVAL or EFAULT when the CQ cannot move to a buffer of cqe + 1 CQEs. */
int emu_cq_check_resize(const struct emu_cq *cq, uint32_t cqe, uint64_t buf_addr);
void emu_cq_resize(struct emu_cq *cq, uint32_t cqe, uint64_t buf_addr);
/* EBUSY while a QP or an XRC SRQ completes on the CQ; else 0, with its
 * pending events dropped so that the counts it reports are final. */
int emu_cq_prepare_destroy(struct emu_cq *cq);
void emu_cq_destroy(struct emu_cq *cq);
/* A completion channel closed: its CQs raise no more events. */
void emu_cq_channel_closed(int channel);
/* The CQs of a context whose device fd closes. */
void emu_cq_release_ctx(struct emu_ctx *ctx);

/* Looks at the arm record and the UAR arm doorbell; returns work done. */
int emu_cq_poll_arm(struct emu_cq *cq);
void emu_ctx_poll_cq_doorbell(struct emu_ctx *ctx);
/* A CQ arm doorbell of the context (64 bits, host order: sn << 60 |
 * cmd << 56 | cqn << 32 | consumer index). */
void emu_cq_doorbell(struct emu_ctx *ctx, uint64_t db);

#endif
