/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/doorbell.h> - WQE finish, stamping, doorbell and BlueFlame.
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_DOORBELL_H_
#define _MLX4DV_DOORBELL_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/doorbell.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/wqe.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- WQE finish, stamping, doorbells ---- */

/* Chunks 1.. of the WQE at wqe (count), over its old ds, when it is
 * longer than one WQEBB (the rare case: left to the compiler). */
static inline void
__mlx4dv_sq_stamp_chunks(const struct mlx4dv_sq_ring *sq, uint8_t *wqe,
			 uint32_t count, uint32_t bytes)
{
	const uint32_t low31 = MLX4DV_WQE_STAMP & ~MLX4DV_WQE_CTRL_OWNER;
	struct __mlx4dv_sq_geom geom = __mlx4dv_sq_geom_load(sq);
	const struct __mlx4dv_sq_geom *g = &geom;
	uint32_t stride_mask = (1U << g->wqe_shift) - 1;
	uint32_t off;

	if ((mlx4dv_be32_to_cpu(((const struct mlx4_wqe_ctrl_seg *)wqe)->
				owner_opcode) & low31) == low31)
		return;
	for (off = MLX4DV_WQE_CHUNK; off < bytes; off += MLX4DV_WQE_CHUNK) {
		uint32_t stamp = MLX4DV_WQE_STAMP;

		if (!(off & stride_mask) &&
		    ((count + (off >> g->wqe_shift)) & g->wqe_cnt))
			stamp = low31;
		*(__be32 *)__mlx4dv_sq_geom_wrap(g, wqe + off) =
			mlx4dv_cpu_to_be32(stamp);
	}
}

/* Stamp the WQEBB at count; a WQE of at most 64 bytes (the common case,
 * tested first) has nothing to stamp. A continuation WQEBB has data in
 * byte 7: either it reads <= 4 or its stamped first word stops it. */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_stamp_wqe(const struct mlx4dv_sq_ring *sq,
			   const struct __mlx4dv_sq_geom *g, uint32_t count)
{
	uint8_t *wqe = __mlx4dv_sq_geom_wqebb(g, count);
	uint32_t bytes = (uint32_t)(wqe[7] & 0x3f) << 4;
	uint32_t off;

	if (bytes <= MLX4DV_WQE_CHUNK)
		return;
	if (bytes > (1U << g->wqe_shift)) {
		__mlx4dv_sq_stamp_chunks(sq, wqe, count, bytes);
		return;
	}
	/* Within this WQEBB (libmlx4's case). Were the WQEBB the tail of an
	 * older, longer WQE, its chunks are stamped already and these
	 * stores only repeat the stamp in a free WQEBB. */
	for (off = MLX4DV_WQE_CHUNK; off < bytes; off += MLX4DV_WQE_CHUNK)
		*(__be32 *)(wqe + off) = (__be32)MLX4DV_WQE_STAMP;
}

/*
 * mlx4dv_sq_stamp_wqe - stamp the WQE that starts at producer count
 * `count`: MLX4DV_WQE_STAMP in the first word of every 64-byte chunk but
 * the first, over the ds the WQE last held (libmlx4 qp.c stamp_send_wqe).
 * A chunk that starts a further WQEBB of a WQE longer than one stride is
 * the first word the device tests for ownership at that WQEBB's count, so
 * its stamp carries the owner bit of software for that count: bit 31
 * cleared when (count & wqe_cnt) != 0 (the kernel's mlx4_ib qp.c did the
 * same, 0x7fffffff / 0xffffffff, for WQEs of several WQEBBs). A WQEBB
 * whose first word already is a stamp (low 31 bits set) is the
 * continuation of a longer WQE stamped before it and is left alone.
 * Chunks past the ring end continue at its start.
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_sq_stamp_wqe(const struct mlx4dv_sq_ring *sq, uint32_t count)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	__mlx4dv_sq_geom_stamp_wqe(sq, &g, count);
}

/*
 * mlx4dv_sq_reset_ownership - prepare a hand-built ring for its first lap,
 * as libmlx4 does at QP creation and RESET->INIT
 * (mlx4_qp_init_sq_ownership): every WQEBB gets a control word that is the
 * software's for the lap the producer count is in (owner bit opposite to
 * the device-owned value) and ds = one stride (fence_size =
 * stride / 16, as libmlx4), then is stamped. Rings filled by
 * mlx4dv_sq_ring_init() were prepared by libmlx4 already.
 */
static inline void
mlx4dv_sq_reset_ownership(struct mlx4dv_sq_ring *sq)
{
	uint32_t i;

	for (i = 0; i < sq->wqe_cnt; i++) {
		uint32_t count = sq->head + i;
		struct mlx4_wqe_ctrl_seg *ctrl =
			(struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(sq, count);

		ctrl->owner_opcode = mlx4dv_cpu_to_be32(
			(count & sq->wqe_cnt) ? 0 : MLX4DV_WQE_CTRL_OWNER);
		ctrl->fence_size = (uint8_t)(1U << (sq->wqe_shift - 4));
		mlx4dv_sq_stamp_wqe(sq, count);
	}
	sq->ring_stamped = 1;
	sq->single_wqebb = 1;
}

/*
 * mlx4dv_sq_init_ownership - the 0.2 name of mlx4dv_sq_reset_ownership()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
static inline __MLX4DV_DEPRECATED("mlx4dv_sq_reset_ownership()") void
mlx4dv_sq_init_ownership(struct mlx4dv_sq_ring *sq)
{
	mlx4dv_sq_reset_ownership(sq);
}

/* Stamp the n WQEBBs from producer count `count` on, each over the ds
 * it last held (WQEBBs 2.. of a WQE of several WQEBBs, or the WQEBBs a
 * batch brings into the prefetch window), apart from the hot path. */
static inline void
__mlx4dv_sq_stamp_more(const struct mlx4dv_sq_ring *sq, uint32_t count,
		       uint32_t n)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);
	uint32_t i;

	for (i = 0; i < n; i++)
		__mlx4dv_sq_geom_stamp_wqe(sq, &g, count + i);
}

/*
 * Hand over the WQE of ds units (wqebbs WQEBBs) at g->head, stamp, and
 * advance head. Stamping is skipped while sq->ring_stamped holds: every
 * WQEBB entering the window then carries the stamp in each chunk past its
 * first already (the WQEs posted so far wrote first chunks only), and
 * stamping would store the values that are there. A WQE longer than 64
 * bytes (ds > 4) ends that state for good: its chunks past the first are
 * stale WQE content once it completes. stamped: 1 when the caller read
 * sq->ring_stamped as 1 before building this WQE (__mlx4dv_sq_hot()), so
 * that it is not read again here; 0 reads it.
 */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_finish_stamped(struct mlx4dv_sq_ring *sq,
				const struct __mlx4dv_sq_geom *g,
				struct mlx4_wqe_ctrl_seg *ctrl,
				uint32_t owner_opcode, uint32_t ds,
				uint32_t wqebbs, int stamped)
{
	/* Both words are constants when the opcode is: a select, no
	 * arithmetic, on the hot path. */
	__be32 owned = mlx4dv_cpu_to_be32(owner_opcode | MLX4DV_WQE_CTRL_OWNER);
	__be32 not_owned = mlx4dv_cpu_to_be32(owner_opcode);

	__MLX4DV_CHECK(!(sq->flags & MLX4DV_SQ_RING_BATCH_OPEN),
		       "mlx4dv_sq_write_*/mlx4dv_sq_wqe_finish",
		       "a WQE finished between mlx4dv_sq_batch_begin() and "
		       "mlx4dv_sq_batch_end() on the same ring overwrites the "
		       "batch's first WQE: end the batch first");
	__MLX4DV_OPAQUE(owned);
	mlx4dv_barrier_to_device();
	ctrl->owner_opcode = (g->head & g->wqe_cnt) ? owned : not_owned;
	if (ds > MLX4DV_WQE_CHUNK / 16) {
		sq->ring_stamped = 0;
		stamped = 0;
		/* Only a WQE longer than 64 bytes can take several WQEBBs, so
		 * this test stays off the path of small WQEs. */
		if (wqebbs > 1)
			sq->single_wqebb = 0;
	}
	/* ring_stamped is 0 or 1; testing bit 0 is one instruction. */
	if (__MLX4DV_UNLIKELY(!stamped && !(sq->ring_stamped & 1))) {
		/* spare_wqes read here, not from g: the copy would cost a
		 * load on every post, stamping or not. */
		uint32_t ahead = g->head + sq->spare_wqes;

		__mlx4dv_sq_geom_stamp_wqe(sq, g, ahead);
		if (wqebbs > 1)
			__mlx4dv_sq_stamp_more(sq, ahead + 1, wqebbs - 1);
	}
	sq->head = g->head + wqebbs;
}

static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_finish(struct mlx4dv_sq_ring *sq, const struct __mlx4dv_sq_geom *g,
		      struct mlx4_wqe_ctrl_seg *ctrl, uint32_t owner_opcode,
		      uint32_t ds, uint32_t wqebbs)
{
	__mlx4dv_sq_geom_finish_stamped(sq, g, ctrl, owner_opcode, ds, wqebbs, 0);
}

/* The body of mlx4dv_sq_wqe_finish(), for the posts that record their
 * wr_id themselves. */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_wqe_finish(struct mlx4dv_sq_ring *sq,
		       struct mlx4_wqe_ctrl_seg *ctrl, uint32_t owner_opcode)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);
	uint32_t ds = mlx4dv_wqe_ds(ctrl);
	uint32_t wqebbs = mlx4dv_sq_ds_to_wqebbs(sq, ds);

	__mlx4dv_sq_geom_finish(sq, &g, ctrl, owner_opcode, ds, wqebbs);
	return wqebbs;
}

/*
 * mlx4dv_sq_wqe_finish - hand the WQE at producer count sq->head to the
 * device and advance head.
 *
 * wr_id:        recorded for the WQE in sq->wrid (when the handle has a
 *               table); a completion of the WQE hands it back.
 * ctrl:         its control segment (mlx4dv_sq_wqebb(sq, sq->head)), with
 *               words 1..3 written (mlx4dv_wqe_set_ctrl(): ds is read from
 *               there) and every other segment written.
 * owner_opcode: host order, opcode (MLX4_OPCODE_*) and the optional
 *               bits of word 0; the owner bit is added here from head:
 *               (head & wqe_cnt) != 0 gives MLX4DV_WQE_CTRL_OWNER.
 *
 * Order: store barrier, word 0; then the WQEBBs that enter the device's
 * prefetch window (spare_wqes ahead) are stamped, unless sq->ring_stamped
 * says they are already (a WQE over 64 bytes clears it first); then head
 * advances by the WQEBBs the WQE uses. Room must have been checked by the
 * caller. Returns the WQEBBs used. The doorbell is not rung. A WQE handed
 * over without this function must clear sq->ring_stamped itself when it
 * is longer than 64 bytes.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_wqe_finish(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
		     struct mlx4_wqe_ctrl_seg *ctrl, uint32_t owner_opcode)
{
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_wqe_finish(sq, ctrl, owner_opcode);
}

/*
 * mlx4dv_sq_ring_doorbell - tell the device that the SQ has new WQEs: a
 * store barrier (all WQEs before the doorbell), then one 32-bit write of
 * doorbell_qpn (qpn << 8, big-endian) to UAR + MLX4_SEND_DOORBELL. Once
 * per batch; ringing with nothing new is harmless. (libmlx4 qp.c
 * mlx4_post_send; PRM "Send doorbell".)
 */
static MLX4DV_ALWAYS_INLINE void
mlx4dv_sq_ring_doorbell(struct mlx4dv_sq_ring *sq)
{
	mlx4dv_barrier_to_device();
	mlx4dv_mmio_write32_be(sq->doorbell, sq->doorbell_qpn);
}

/*
 * mlx4dv_sq_bf_eligible - 1 when the WQE posted at producer count
 * wqe_count can go by BlueFlame: the ring has a BlueFlame register
 * (bf_reg), the WQE is the only one since the last doorbell (head ==
 * wqe_count + its WQEBBs), and its ds * 16 bytes (ds > 1) fit in one
 * BlueFlame buffer (bf_buf_size). libmlx4 (qp.c mlx4_post_send) uses BlueFlame
 * under the same size rule but only for a single work request that
 * carries inline data (more than 0 bytes), is an RDMA read, or is an RDMA
 * write without gather entries; see mlx4dv_send_wr_bf_candidate().
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_bf_eligible(const struct mlx4dv_sq_ring *sq, uint32_t wqe_count)
{
	const struct mlx4_wqe_ctrl_seg *ctrl =
		(const struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(sq, wqe_count);
	uint32_t ds = mlx4dv_wqe_ds(ctrl);

	return sq->bf_reg && ds > 1 && (ds << 4) <= sq->bf_buf_size &&
	       sq->head - wqe_count == mlx4dv_sq_ds_to_wqebbs(sq, ds);
}

/* How mlx4dv_sq_ring_one() handed a WQE to the device. */
enum mlx4dv_sq_handover {
	/* the doorbell register was rung */
	MLX4DV_SQ_HANDOVER_DOORBELL	= 0,
	/* the WQE was copied to the BlueFlame register */
	MLX4DV_SQ_HANDOVER_BLUEFLAME	= 1,
};

/*
 * mlx4dv_sq_ring_one - hand over the single WQE posted at producer count
 * wqe_count (sq->head before the post) by BlueFlame when
 * mlx4dv_sq_bf_eligible(), else ring the doorbell.
 *
 * BlueFlame: word 0 gets the WQE counter (wqe_count & 0xffff) << 8 and
 * word 1 (bf_qpn) doorbell_qpn, in the ring too (as libmlx4); a
 * write-combining flush orders the WQE before the copy; the WQE goes in
 * 64-byte chunks (mlx4dv_wc_copy64) to bf_reg + bf_offset; a flush pushes
 * the burst out; bf_offset toggles between the two buffers
 * (bf_offset ^= bf_buf_size). The WQE must not use VLAN insertion (bytes
 * 4..6 are the QPN then). Not thread-safe: one thread per register.
 * Cannot fail: returns how it rang, MLX4DV_SQ_HANDOVER_BLUEFLAME or
 * MLX4DV_SQ_HANDOVER_DOORBELL (its own type, not an errno).
 * (libmlx4 qp.c mlx4_post_send; kernel mlx4_en en_tx.c.)
 */
static inline enum mlx4dv_sq_handover
mlx4dv_sq_ring_one(struct mlx4dv_sq_ring *sq, uint32_t wqe_count)
{
	uint8_t *wqe = mlx4dv_sq_wqebb(sq, wqe_count);
	struct mlx4_wqe_ctrl_seg *ctrl = (struct mlx4_wqe_ctrl_seg *)wqe;
	uint8_t *dst;
	uint32_t bytes, off;

	if (!mlx4dv_sq_bf_eligible(sq, wqe_count)) {
		mlx4dv_sq_ring_doorbell(sq);
		return MLX4DV_SQ_HANDOVER_DOORBELL;
	}
	bytes = (mlx4dv_wqe_ds(ctrl) << 4);
	ctrl->owner_opcode |= mlx4dv_cpu_to_be32((wqe_count & 0xffff) << 8);
	ctrl->bf_qpn |= sq->doorbell_qpn;
	mlx4dv_wc_flush();
	dst = sq->bf_reg + sq->bf_offset;
	if (bytes <= (1U << sq->wqe_shift)) {
		/* one WQEBB (every libmlx4 geometry): nothing can wrap */
		for (off = 0; off < bytes; off += MLX4DV_WQE_CHUNK)
			mlx4dv_wc_copy64(dst + off, wqe + off);
	} else {
		for (off = 0; off < bytes; off += MLX4DV_WQE_CHUNK)
			mlx4dv_wc_copy64(dst + off,
					 mlx4dv_sq_wrap(sq, wqe + off));
	}
	mlx4dv_wc_flush();
	sq->bf_offset ^= sq->bf_buf_size;
	return MLX4DV_SQ_HANDOVER_BLUEFLAME;
}

/*
 * mlx4dv_sq_ring_bf - the 0.2 form of mlx4dv_sq_ring_one() (deprecated
 * in 0.3, docs/migration-0.3.md): returns 1 when BlueFlame was used, 0
 * when the doorbell was rung, where every other int function returns 0
 * or an errno.
 */
static inline __MLX4DV_DEPRECATED("mlx4dv_sq_ring_one()") int
mlx4dv_sq_ring_bf(struct mlx4dv_sq_ring *sq, uint32_t wqe_count)
{
	return mlx4dv_sq_ring_one(sq, wqe_count) == MLX4DV_SQ_HANDOVER_BLUEFLAME;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_DOORBELL_H_ */
