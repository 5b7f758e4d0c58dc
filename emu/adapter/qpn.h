/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * QP numbers: one at a time for QPs, from ranges for receive WQs.
 *
 * A WQ created with a range hint (mlx4dv_set_context_attr
 * MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ, sent as mlx4_ib_create_wq's
 * log_range_size) opens a range of 2^log numbers aligned to its size;
 * the context's following WQs created without a hint take the next
 * numbers of that range until it is full.  This is mlx4_ib's
 * mlx4_ib_alloc_wqn: a range in which a WQ was destroyed is "dirty" and
 * never hands out another number; a range is freed with its last WQ.  An
 * RSS indirection table needs such numbers (consecutive, the first one
 * aligned to the table size: mlx4_ib_create_rwq_ind_table).
 */
#ifndef MLX4EMU_QPN_H
#define MLX4EMU_QPN_H

#include "adapter/adapter.h"

/* largest log_range_size: ilog2 of the RSS table size the device reports
 * (mlx4_ib create_qp_common refuses a larger one with EOPNOTSUPP) */
#define EMU_LOG_MAX_WQN_RANGE EMU_LOG_MAX_RSS_TBL

/* A zeroed QP with its number (qp->qpn), or NULL (ENOMEM). */
struct emu_qp *emu_qpn_alloc_qp(void);
/*
 * A zeroed WQ of ctx numbered as the range rules say; NULL with *err =
 * EINVAL (a new range asked for while the context's range is open),
 * ENOMEM (no free aligned block).
 */
struct emu_qp *emu_qpn_alloc_wq(struct emu_ctx *ctx, unsigned log_range, int *err);
/* The WQ's number goes back (its range freed with the last one). */
void emu_qpn_release_wq(struct emu_qp *wq);
/* Frees the ranges of a context that is closed. */
void emu_qpn_release_ctx(struct emu_ctx *ctx);

#endif
