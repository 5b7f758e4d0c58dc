/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A receive work queue's life on the adapter (wq.c): an ibv_wq of type
 * RQ, which receives for the RSS QPs whose indirection table names it
 * (adapter/ind_tbl.h).  It is a QP number of its own, RAW, with
 * libmlx4's ring: its receive WQEs and a dummy one-WQEBB send queue of 64
 * bytes.  Called with the adapter lock held.
 */
#ifndef MLX4EMU_WQ_H
#define MLX4EMU_WQ_H

#include "adapter/adapter.h"

struct emu_wq_attrs {
	uint64_t user_handle;
	uint32_t pdn, cqn, max_wr, max_sge;
	uint64_t buf_addr, db_addr;	/* libmlx4's ring and doorbell record */
	uint32_t log_range_size;	/* WQNs to reserve after it, log2 */
	/* driver extensions asked for (comp_mask, reserved words), which
	 * mlx4_ib's create_qp_common takes none of for a WQ */
	bool driver_extensions;
};

/* The states of ibv_wq_state, in its numbering. */
enum emu_wq_state { EMU_WQS_RESET, EMU_WQS_RDY, EMU_WQS_ERR };

/*
 * Checks the attributes (EINVAL; EFAULT for memory that is not there;
 * EOPNOTSUPP for driver extensions or a WQN range over
 * EMU_LOG_MAX_WQN_RANGE) and reserves a
 * WQN (ENOMEM when none is free); the WQ goes live at emu_wq_activate,
 * once its creator answered the program, or is given back with
 * emu_wq_discard.  *max_wr is the capacity libmlx4 will see.
 */
int emu_wq_create(struct emu_ctx *ctx, const struct emu_wq_attrs *a, struct emu_qp **wq,
		  uint32_t *max_wr);
void emu_wq_activate(struct emu_qp *wq, struct emu_ctx *ctx, const struct emu_wq_attrs *a);
void emu_wq_discard(struct emu_qp *wq);
/* The context's WQ of that handle (its WQN), or NULL. */
struct emu_qp *emu_wq_lookup(struct emu_ctx *ctx, uint32_t handle);
enum emu_wq_state emu_wq_state(const struct emu_qp *wq);
/* To `next`: EINVAL for an unknown state or RDY from ERR; RESET empties
 * the ring (its consumer index and doorbell record back to 0). */
int emu_wq_modify(struct emu_qp *wq, uint32_t next);
/* EBUSY while an indirection table names it; else 0, with its pending
 * events dropped so that the count it reports is final. */
int emu_wq_prepare_destroy(struct emu_qp *wq);
void emu_wq_destroy(struct emu_qp *wq);

#endif
