/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Doorbells as the device receives them, when the program's UAR and
 * BlueFlame mappings trap writes (os/fault.c decodes each store and hands
 * it here).  Everything on the store side is lock-free and
 * async-signal-safe: it runs in the SIGSEGV handler of whatever thread
 * wrote, concurrently with other writers and with the engine.
 *
 * - A send doorbell (UAR + 0x14, the doorbell QPN qpn << 8 big-endian) or
 *   a complete BlueFlame post marks its QP rung in a two-level bitmap
 *   (one bit per QPN, one summary bit per 64 QPNs): setting a bit that is
 *   already set is the whole cost of a second doorbell, so nothing is
 *   ever lost or queued twice, and the engine's work per pass follows the
 *   QPs that were rung.
 * - A CQ doorbell (UAR + 0x20, 64 bits: sn << 28 | cmd << 24 | cqn, then
 *   the consumer index) keeps the latest arm of each CQ and marks the CQ.
 * - BlueFlame stores are assembled per register half (8-byte granules, in
 *   ascending order from offset 0 as libmlx4, the kernel and
 *   <infiniband/mlx4dv.h> write them); once ds * 16 bytes are covered the
 *   post is published (a sequence-counted copy the engine may execute when
 *   the ring slot is not valid) and rings its QP.
 */
#ifndef MLX4EMU_DOORBELL_H
#define MLX4EMU_DOORBELL_H

#include "adapter/adapter.h"

/* true when the context's doorbells arrive as trapped stores. */
static inline bool emu_doorbells_trapped(struct emu_ctx *ctx)
{
	return emu_cfg.doorbell_trap &&
	       !atomic_load_explicit(&ctx->db_poll, memory_order_relaxed);
}

/* ---- store side (signal handler) ---- */

/* A store of len bytes (value in memory order) at offset off of the
 * context's UAR page or BlueFlame page. */
void emu_db_uar_store(struct emu_ctx *ctx, uint32_t off, const uint8_t *value,
		      uint32_t len);
void emu_db_bf_store(struct emu_ctx *ctx, uint32_t off, const uint8_t *value,
		     uint32_t len);

/* Marks the QP rung (also the engine's and the transports' way of
 * scheduling a QP); QPNs beyond EMU_DB_MAX_QPN are ignored. */
void emu_db_ring_qpn(uint32_t qpn);

#define EMU_DB_MAX_QPN (1u << 18)

/* Records which context's UAR may ring the QPN (-1: none); doorbells
 * naming a QP of another context are ignored, as the adapter binds each
 * QP to its UAR.  Called at QP creation and destruction. */
void emu_db_set_qp_owner(uint32_t qpn, int ctx_index);

/* ---- engine side (emu_dev.lock held) ---- */

/* Calls fn for every QPN rung since the last call, clearing each bit
 * first (a doorbell during fn rings again); returns the count. */
unsigned emu_db_take_qps(void (*fn)(uint32_t qpn, void *arg), void *arg);

/* Calls fn with the latest arm doorbell of every CQ rung since the last
 * call: ctx_index, and the 64-bit doorbell in host order. */
unsigned emu_db_take_cqs(void (*fn)(uint32_t ctx_index, uint64_t db, void *arg),
			 void *arg);

/*
 * The BlueFlame post of the context for this QPN whose WQE counter is
 * `counter`, not taken before: copies it to dst (at least 512 bytes) and
 * returns its size; 0 when there is none; -1 when one is being written
 * (look again later).
 */
int emu_db_bf_take(struct emu_ctx *ctx, uint32_t qpn, uint16_t counter, uint8_t *dst);

#endif
