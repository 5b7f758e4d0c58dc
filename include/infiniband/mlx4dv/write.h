/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/write.h> - one-call WQE writes (mlx4dv_sq_write_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_WRITE_H_
#define _MLX4DV_WRITE_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/write.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/doorbell.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- One-call posts ---- */

/* 1 for the QP types whose send WQE has a remote address segment. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_is_connected(const struct mlx4dv_sq_ring *sq)
{
	return sq->qp_type == IBV_QPT_RC || sq->qp_type == IBV_QPT_UC ||
	       sq->qp_type == IBV_QPT_XRC_SEND;
}

/*
 * mlx4dv_sq_fast_path_update - derive sq->fast_path (enum
 * mlx4dv_sq_fast_path) from qp_type, max_gather, spare_wqes and wrid.
 * Call it after filling a handle by hand or changing one of those fields
 * (wrid set to NULL above all: a stale MLX4DV_SQ_FAST_WRID would have the
 * posts store through it); mlx4dv_sq_ring_init() and
 * mlx4dv_sq_ring_release() keep it in step. A handle whose fast_path is 0
 * makes every check on every post.
 */
static inline void
mlx4dv_sq_fast_path_update(struct mlx4dv_sq_ring *sq)
{
	sq->fast_path = 0;
	if (__mlx4dv_sq_is_connected(sq) && sq->max_gather >= 1 &&
	    sq->spare_wqes >= 1)
		sq->fast_path |= MLX4DV_SQ_FAST_CONNECTED;
	if (sq->wrid)
		sq->fast_path |= MLX4DV_SQ_FAST_WRID;
}

/*
 * mlx4dv_sq_fast_path_init - the 0.2 name of mlx4dv_sq_fast_path_update()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
static inline __MLX4DV_DEPRECATED("mlx4dv_sq_fast_path_update()") void
mlx4dv_sq_fast_path_init(struct mlx4dv_sq_ring *sq)
{
	mlx4dv_sq_fast_path_update(sq);
}

/* ring_stamped (low half) and fast_path (high half) as one 8-byte word. */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_sq_hot_word(const struct mlx4dv_sq_ring *sq)
{
	uint64_t both;

	memcpy(&both, &sq->ring_stamped, sizeof(both));
	return both;
}

/* The word of a ring in the state every small connected-QP post hopes
 * for, with a wr_id table: fast_path exactly MLX4DV_SQ_FAST_CONNECTED |
 * MLX4DV_SQ_FAST_WRID and ring_stamped 1 (the type, gather and headroom
 * checks, the stamping step and the table's NULL test all skipped). */
#define __MLX4DV_SQ_HOT_WRID \
	__mlx4dv_u32_pair(1, MLX4DV_SQ_FAST_CONNECTED | MLX4DV_SQ_FAST_WRID)

/*
 * 1 when the ring is in that state with or without a wr_id table. The
 * two fields are adjacent, so both are tested with one 8-byte load and
 * compare (after setting the WRID bit) instead of a test and a branch
 * each; any other value of either field takes the general path, which
 * tests them one by one.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_hot(const struct mlx4dv_sq_ring *sq)
{
	return (__mlx4dv_sq_hot_word(sq) |
		__mlx4dv_u32_pair(0, MLX4DV_SQ_FAST_WRID)) == __MLX4DV_SQ_HOT_WRID;
}

/*
 * mlx4dv_send_flags_to_srcrb - srcrb_flags (host order, for
 * mlx4dv_wqe_set_ctrl()) of send_flags: SIGNALED -> CQ_UPDATE, SOLICITED
 * -> SOLICIT, FENCE -> fence bit, MLX4DV_SEND_STRONG_ORDER,
 * MLX4DV_SEND_FORCE_LOOPBACK, and bits 8..31 (the XRC SRQN) unchanged.
 * IBV_SEND_IP_CSUM and tunnel bits are added by the posts that take them.
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_send_flags_to_srcrb(uint32_t send_flags)
{
	return ((send_flags & IBV_SEND_SIGNALED) ? MLX4_WQE_CTRL_CQ_UPDATE : 0) |
	       ((send_flags & IBV_SEND_SOLICITED) ? MLX4_WQE_CTRL_SOLICIT : 0) |
	       ((send_flags & IBV_SEND_FENCE) ? MLX4_WQE_CTRL_FENCE : 0) |
	       ((send_flags & MLX4DV_SEND_STRONG_ORDER) ?
		MLX4_WQE_CTRL_STRONG_ORDER : 0) |
	       ((send_flags & MLX4DV_SEND_FORCE_LOOPBACK) ?
		MLX4DV_WQE_CTRL_FORCE_LOOPBACK : 0) |
	       (send_flags & 0xffffff00U);
}

/*
 * mlx4dv_send_srcrb_flags - the 0.2 name of mlx4dv_send_flags_to_srcrb()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
static MLX4DV_ALWAYS_INLINE __MLX4DV_DEPRECATED("mlx4dv_send_flags_to_srcrb()") uint32_t
mlx4dv_send_srcrb_flags(uint32_t send_flags)
{
	return mlx4dv_send_flags_to_srcrb(send_flags);
}

/* What follows the fixed segments of a WQE: gather entries, or inline data
 * from gather entries, or inline data from one buffer (sg == NULL). */
struct __mlx4dv_sq_payload {
	const struct ibv_sge	*sg;
	uint32_t		num_sge;
	const void		*data;
	uint32_t		len;
	int			is_inline;
};

/*
 * 1 when a gather entry of the list is longer than
 * MLX4DV_DATA_SEG_MAX_LENGTH: bit 31 of any length, ORed over the list.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sge_length_over_max(const struct ibv_sge *sg, uint32_t num_sge)
{
	uint32_t all = 0, i;

	for (i = 0; i < num_sge; i++)
		all |= sg[i].length;
	return (all & ~MLX4DV_DATA_SEG_MAX_LENGTH) != 0;
}

/* Sum of the lengths of an inline gather list, or UINT64_MAX when an entry
 * with bytes has a NULL address (nothing to copy from). */
static MLX4DV_ALWAYS_INLINE uint64_t
__mlx4dv_inline_sge_total(const struct ibv_sge *sg, uint32_t num_sge)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < num_sge; i++) {
		if (sg[i].length && !sg[i].addr)
			return UINT64_MAX;
		total += sg[i].length;
	}
	return total;
}

/*
 * __mlx4dv_sq_payload_ds - validate a payload placed at ds offset
 * fixed_ds of a WQE and give the WQE's total ds. Errors (nothing
 * written): EINVAL for more gather entries than sq->max_gather, a gather
 * entry longer than MLX4DV_DATA_SEG_MAX_LENGTH, more inline bytes than
 * sq->max_inline, a NULL list with entries (also with IBV_SEND_INLINE),
 * an inline entry with bytes at a NULL address, a WQE over 63 ds, or a
 * WQE of more WQEBBs than sq->spare_wqes (the stamping ahead of a WQE
 * must not reach into it; libmlx4's headroom, 2048 / stride + 1, always
 * covers the largest WQE); ENOMEM when the ring has fewer free WQEBBs
 * than the WQE needs.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_payload_ds_checked(const struct mlx4dv_sq_ring *sq,
			       uint32_t fixed_ds,
			       const struct __mlx4dv_sq_payload *pl,
			       uint32_t *ds_out, int fast)
{
	uint32_t ds, wqebbs;

	if (pl->is_inline) {
		uint64_t total = pl->len;

		if (pl->sg) {
			if (pl->num_sge > sq->max_gather)
				return EINVAL;
			total = __mlx4dv_inline_sge_total(pl->sg, pl->num_sge);
		} else if (pl->num_sge || (pl->len && !pl->data)) {
			return EINVAL;
		}
		if (total > sq->max_inline)
			return EINVAL;
		ds = fixed_ds + mlx4dv_inline_ds((fixed_ds & 3) << 4,
						 (uint32_t)total);
	} else {
		if ((pl->num_sge && !pl->sg) ||
		    (!(fast && pl->num_sge <= 1) && pl->num_sge > sq->max_gather) ||
		    __mlx4dv_sge_length_over_max(pl->sg, pl->num_sge))
			return EINVAL;
		ds = fixed_ds + pl->num_sge;
	}
	wqebbs = mlx4dv_sq_ds_to_wqebbs(sq, ds);
	if (ds > MLX4DV_WQE_MAX_DS ||
	    (!(fast && wqebbs == 1) && wqebbs > sq->spare_wqes))
		return EINVAL;
	if (wqebbs > mlx4dv_sq_room(sq))
		return ENOMEM;
	*ds_out = ds;
	return 0;
}

static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_payload_ds(const struct mlx4dv_sq_ring *sq, uint32_t fixed_ds,
		       const struct __mlx4dv_sq_payload *pl, uint32_t *ds_out)
{
	return __mlx4dv_sq_payload_ds_checked(sq, fixed_ds, pl, ds_out, 0);
}

/* Write a validated payload at ds offset fixed_ds of the WQE at wqe;
 * may_wrap 0 when the WQE takes one WQEBB (then nothing can wrap). */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_geom_set_payload(const struct __mlx4dv_sq_geom *g, uint8_t *wqe,
			     uint32_t fixed_ds,
			     const struct __mlx4dv_sq_payload *pl, int may_wrap)
{
	uint8_t *pos = wqe + (fixed_ds << 4);

	if (may_wrap)
		pos = __mlx4dv_sq_geom_wrap(g, pos);
	if (!pl->is_inline)
		__mlx4dv_sq_geom_set_data_segs(g, pos, pl->sg, pl->num_sge,
					       may_wrap, fixed_ds);
	else if (pl->sg)
		__mlx4dv_sq_geom_set_inline_sge(g, pos, pl->sg, pl->num_sge);
	else
		__mlx4dv_sq_geom_set_inline(g, pos, (fixed_ds & 3) << 4,
						pl->data, pl->len);
}

static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_set_payload(const struct mlx4dv_sq_ring *sq, uint8_t *wqe,
			uint32_t fixed_ds, const struct __mlx4dv_sq_payload *pl)
{
	struct __mlx4dv_sq_geom g = __mlx4dv_sq_geom_load(sq);

	__mlx4dv_sq_geom_set_payload(&g, wqe, fixed_ds, pl, 1);
}

/* send_flags every connected-QP post accepts; IBV_SEND_IP_CSUM is ignored
 * there, as libmlx4 does. */
#define __MLX4DV_SEND_FLAGS_CONNECTED \
	((uint32_t)(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | \
		    IBV_SEND_INLINE | IBV_SEND_IP_CSUM | \
		    MLX4DV_SEND_STRONG_ORDER | MLX4DV_SEND_FORCE_LOOPBACK))

/* Check send_flags for a connected QP: known bits only; SRQN bits on
 * XRC_SEND only. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_connected_flags_ok(const struct mlx4dv_sq_ring *sq,
			       uint32_t send_flags)
{
	uint32_t bad = send_flags & ~__MLX4DV_SEND_FLAGS_CONNECTED;

	if (sq->qp_type == IBV_QPT_XRC_SEND)
		bad &= ~0xffffff00U;
	return !bad;
}

/* The body of __mlx4dv_sq_write_connected(); fast and stamped as the
 * ring's fast_path bit and ring_stamped were read before it. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_connected_as(struct mlx4dv_sq_ring *sq, uint32_t opcode,
			       int with_raddr, __be64 raddr, __be64 rkey_rsvd,
			       __be32 imm, uint32_t send_flags,
			       const struct __mlx4dv_sq_payload *pl, int fast,
			       int stamped)
{
	uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS + (with_raddr ? 1 : 0);
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct __mlx4dv_sq_geom g;
	uint32_t ds, wqebbs;
	int err;

	/* The fast bit stands for the QP-type check, and for the gather
	 * and headroom limits of a one-entry, one-WQEBB payload. */
	if ((!fast && !__mlx4dv_sq_is_connected(sq)) ||
	    !__mlx4dv_sq_connected_flags_ok(sq, send_flags))
		return EINVAL;
	err = __mlx4dv_sq_payload_ds_checked(sq, fixed_ds, pl, &ds, fast);
	if (err)
		return err;
	g = __mlx4dv_sq_geom_load(sq);
	wqebbs = __mlx4dv_wqebbs_of_ds(g.wqe_shift, ds);
	ctrl = (struct mlx4_wqe_ctrl_seg *)__mlx4dv_sq_geom_wqebb(&g, g.head);
	if (with_raddr)
		__mlx4dv_wqe_set_raddr_words((struct mlx4_wqe_raddr_seg *)(ctrl + 1),
					     raddr, rkey_rsvd);
	__mlx4dv_sq_geom_set_payload(&g, (uint8_t *)ctrl, fixed_ds, pl,
				     wqebbs > 1);
	mlx4dv_wqe_set_ctrl(ctrl, ds, mlx4dv_send_flags_to_srcrb(send_flags), imm);
	__mlx4dv_sq_geom_finish_stamped(sq, &g, ctrl, opcode, ds, wqebbs,
					stamped);
	return 0;
}

/*
 * __mlx4dv_sq_write_connected - common body of the RC/UC/XRC posts.
 * opcode: MLX4_OPCODE_*; raddr/rkey used when with_raddr; imm stored as
 * given. Validates (QP type, flags, payload, room) before writing. A ring
 * in the common state (__mlx4dv_sq_hot()) gets its own copy of the body, in
 * which the fast-path and stamping tests are constants. wr_id is the
 * caller's to record.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_connected(struct mlx4dv_sq_ring *sq, uint32_t opcode,
			 int with_raddr, uint64_t raddr, uint32_t rkey,
			 __be32 imm, uint32_t send_flags,
			 const struct __mlx4dv_sq_payload *pl)
{
	/* Swapped here, ahead of the branch, so that a loop of posts to one
	 * rkey swaps it once. */
	__be64 ra = mlx4dv_cpu_to_be64(raddr);
	__be64 rk = __mlx4dv_raddr_rkey_rsvd(rkey);

	if (__MLX4DV_LIKELY(__mlx4dv_sq_hot(sq)))
		return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr,
						   ra, rk, imm, send_flags,
						   pl, 1, 1);
	return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr, ra, rk,
					   imm, send_flags, pl,
					   !!(sq->fast_path &
					      MLX4DV_SQ_FAST_CONNECTED), 0);
}

/*
 * __mlx4dv_sq_write_connected() for the one-call writes, which record
 * wr_id too. A ring in the common state with a wr_id table
 * (__MLX4DV_SQ_HOT_WRID, one 8-byte compare) stores wr_id without testing
 * the table pointer. Any other ring records it as __mlx4dv_sq_set_wr_id()
 * does; then the common state without a table still gets the lean copy
 * of the body, everything else the general one.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_connected_wr_id(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				  uint32_t opcode, int with_raddr,
				  uint64_t raddr, uint32_t rkey, __be32 imm,
				  uint32_t send_flags,
				  const struct __mlx4dv_sq_payload *pl)
{
	/* Swapped here, ahead of the branch, so that a loop of posts to one
	 * rkey swaps it once. */
	__be64 ra = mlx4dv_cpu_to_be64(raddr);
	__be64 rk = __mlx4dv_raddr_rkey_rsvd(rkey);

	if (__MLX4DV_LIKELY(__mlx4dv_sq_hot_word(sq) == __MLX4DV_SQ_HOT_WRID)) {
		uint64_t *wrid = sq->wrid;

		/* The fast-path bit, not anything the compiler can see, says
		 * the table is there: where a handle built in view holds a
		 * NULL table, GCC -O3 would take this dead store for one
		 * through a null pointer (-Warray-bounds). */
		__MLX4DV_OPAQUE(wrid);
		MLX4DV_ASSERT(wrid != NULL);
		wrid[sq->head & (sq->wqe_cnt - 1)] = wr_id;
		return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr,
						   ra, rk, imm, send_flags,
						   pl, 1, 1);
	}
	/* The rare states read the handle afresh, so that the common one
	 * keeps nothing for them (docs/performance.md, "Changes of
	 * 2026-12-01, evening"). */
	__MLX4DV_RARE_PATH();
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	/* ring_stamped 1 and fast_path exactly MLX4DV_SQ_FAST_CONNECTED:
	 * the common state of a ring without a table, still the lean body
	 * (written out here: see docs/performance.md). */
	if (__mlx4dv_sq_hot_word(sq) ==
	    __mlx4dv_u32_pair(1, MLX4DV_SQ_FAST_CONNECTED))
		return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr,
						   ra, rk, imm, send_flags,
						   pl, 1, 1);
	return __mlx4dv_sq_write_connected_as(sq, opcode, with_raddr, ra, rk,
					   imm, send_flags, pl,
					   !!(sq->fast_path &
					      MLX4DV_SQ_FAST_CONNECTED), 0);
}

/*
 * The one-call writes below build one WQE at sq->head and finish it
 * (owner word last, stamping, head advanced); like every "write" they do
 * not ring the doorbell: call mlx4dv_sq_ring_doorbell() after a batch, or
 * mlx4dv_sq_ring_one(sq, head_before) for a single WQE.
 *
 * Argument order (the header's rule): sq, wr_id, the remote side as
 * libibverbs' ibv_wr_*() orders it (rkey, raddr; or dest, remote_qpn,
 * remote_qkey), the operands (compare, swap; add), the local buffer,
 * send_flags, then the word send_flags makes meaningful (imm,
 * invalidate_rkey, vlan_tci).
 *
 * Common arguments:
 *  wr_id:       recorded in sq->wrid for the WQE when the handle has a
 *               table (MLX4DV_RING_INIT_WRID); the send completion that
 *               covers it hands it back (mlx4dv_cq_poll_sq(),
 *               mlx4dv_sq_complete_cqe()). Ignored without a table.
 *  sg, num_sge: gather list (ibv_sge: addr, length in bytes, lkey; host
 *               order), 0..sq->max_gather entries of at most
 *               MLX4DV_DATA_SEG_MAX_LENGTH bytes each; a zero length is
 *               encoded as MLX4DV_DATA_SEG_ZERO_LENGTH. With
 *               IBV_SEND_INLINE in send_flags the listed bytes are copied
 *               into the WQE instead (total <= sq->max_inline; an entry
 *               with bytes needs a non-NULL addr).
 *  data, len:   the *_inline forms: len bytes (<= sq->max_inline) copied
 *               into the WQE; data may be NULL when len is 0.
 *  rkey, raddr: remote key and remote virtual address, host order.
 *  send_flags:  IBV_SEND_SIGNALED, IBV_SEND_SOLICITED, IBV_SEND_FENCE,
 *               IBV_SEND_INLINE, MLX4DV_SEND_STRONG_ORDER,
 *               MLX4DV_SEND_FORCE_LOOPBACK, and on XRC_SEND QPs
 *               MLX4DV_SEND_XRC_SRQN(srqn); IBV_SEND_IP_CSUM is ignored
 *               on connected QPs (as libmlx4).
 * Returns 0, or (nothing written to the ring, head unchanged):
 *  EINVAL  wrong QP type for the operation, unknown flag bits, more
 *          entries or inline bytes than the ring allows, a gather entry
 *          of 2^31 bytes or more, a WQE over 63 ds, NULL where a pointer
 *          is needed (sg with num_sge > 0, inline or not; an inline entry's
 *          addr; data with len > 0), misaligned atomic address;
 *  ENOMEM  the ring has fewer free WQEBBs than the WQE needs (complete
 *          some with mlx4dv_sq_complete_cqe()).
 * WQE layouts (PRM; libmlx4 qp.c mlx4_post_send): ctrl | raddr (writes,
 * reads, atomics) | atomic (atomics) | data or inline.
 */

/* SEND (opcode MLX4_OPCODE_SEND) on RC, UC or XRC_SEND. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
		     const struct ibv_sge *sg, uint32_t num_sge,
		     uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND, 0, 0, 0, 0,
					send_flags, &pl);
}

/* SEND of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			    const void *data, uint32_t len, uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND, 0, 0, 0, 0,
					send_flags, &pl);
}

/* SEND_WITH_IMM (MLX4_OPCODE_SEND_IMM); imm big-endian as the receiver
 * will read it (ibv_send_wr.imm_data). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_imm(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			 const struct ibv_sge *sg, uint32_t num_sge,
			 uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_IMM, 0, 0, 0, imm,
					send_flags, &pl);
}

/* SEND_WITH_IMM of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_imm_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				const void *data, uint32_t len,
				uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_IMM, 0, 0, 0, imm,
					send_flags, &pl);
}

/* SEND_WITH_INV (MLX4_OPCODE_SEND_INVAL) on RC or XRC_SEND: the receiver
 * invalidates invalidate_rkey (host order, stored big-endian in imm). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_inv(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			 const struct ibv_sge *sg, uint32_t num_sge,
			 uint32_t send_flags, uint32_t invalidate_rkey)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	if (sq->qp_type == IBV_QPT_UC)
		return EINVAL;
	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_INVAL, 0, 0, 0,
					mlx4dv_cpu_to_be32(invalidate_rkey),
					send_flags, &pl);
}

/* SEND_WITH_INV of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_send_inv_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				const void *data, uint32_t len,
				uint32_t send_flags, uint32_t invalidate_rkey)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	if (sq->qp_type == IBV_QPT_UC)
		return EINVAL;
	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_SEND_INVAL, 0, 0, 0,
					mlx4dv_cpu_to_be32(invalidate_rkey),
					send_flags, &pl);
}

/* RDMA WRITE (MLX4_OPCODE_RDMA_WRITE) on RC, UC or XRC_SEND. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			   uint32_t rkey, uint64_t raddr,
			   const struct ibv_sge *sg, uint32_t num_sge,
			   uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE, 1, raddr,
					rkey, 0, send_flags, &pl);
}

/* RDMA WRITE of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				  uint32_t rkey, uint64_t raddr,
				  const void *data, uint32_t len,
				  uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE, 1, raddr,
					rkey, 0, send_flags, &pl);
}

/* RDMA WRITE_WITH_IMM (MLX4_OPCODE_RDMA_WRITE_IMM); imm big-endian as the
 * receiver will read it. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write_imm(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			       uint32_t rkey, uint64_t raddr,
			       const struct ibv_sge *sg, uint32_t num_sge,
			       uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE_IMM, 1,
					raddr, rkey, imm, send_flags, &pl);
}

/* RDMA WRITE_WITH_IMM of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_write_imm_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
				      uint32_t rkey, uint64_t raddr,
				      const void *data, uint32_t len,
				      uint32_t send_flags, __be32 imm)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_WRITE_IMM, 1,
					raddr, rkey, imm, send_flags, &pl);
}

/* RDMA READ (MLX4_OPCODE_RDMA_READ) on RC or XRC_SEND into the gather list
 * sg (scatter targets). IBV_SEND_INLINE: EINVAL. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_rdma_read(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			  uint32_t rkey, uint64_t raddr,
			  const struct ibv_sge *sg, uint32_t num_sge,
			  uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0, 0 };

	if (sq->qp_type == IBV_QPT_UC || (send_flags & IBV_SEND_INLINE))
		return EINVAL;
	return __mlx4dv_sq_write_connected_wr_id(sq, wr_id, MLX4_OPCODE_RDMA_READ, 1, raddr,
					rkey, 0, send_flags, &pl);
}

/* Common body of the atomics: ctrl | raddr | atomic | one data segment. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_atomic(struct mlx4dv_sq_ring *sq, uint32_t opcode,
			 const struct ibv_sge *result, uint64_t raddr,
			 uint32_t rkey, uint64_t swap_add, uint64_t compare,
			 uint32_t send_flags)
{
	const uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS + MLX4DV_WQE_RADDR_DS +
				  MLX4DV_WQE_ATOMIC_DS;
	struct __mlx4dv_sq_payload pl = { result, 1, NULL, 0, 0 };
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct mlx4_wqe_atomic_seg *aseg;
	struct __mlx4dv_sq_geom g;
	uint32_t ds, wqebbs;
	int err;

	if ((sq->qp_type != IBV_QPT_RC && sq->qp_type != IBV_QPT_XRC_SEND) ||
	    !__mlx4dv_sq_connected_flags_ok(sq, send_flags) ||
	    (send_flags & IBV_SEND_INLINE) || !result || (raddr & 7))
		return EINVAL;
	err = __mlx4dv_sq_payload_ds(sq, fixed_ds, &pl, &ds);
	if (err)
		return err;
	g = __mlx4dv_sq_geom_load(sq);
	wqebbs = __mlx4dv_wqebbs_of_ds(g.wqe_shift, ds);
	ctrl = (struct mlx4_wqe_ctrl_seg *)__mlx4dv_sq_geom_wqebb(&g, g.head);
	mlx4dv_wqe_set_raddr_seg((struct mlx4_wqe_raddr_seg *)(ctrl + 1),
				 raddr, rkey);
	aseg = (struct mlx4_wqe_atomic_seg *)((uint8_t *)ctrl + 32);
	aseg->swap_add = mlx4dv_cpu_to_be64(swap_add);
	aseg->compare = mlx4dv_cpu_to_be64(compare);
	__mlx4dv_sq_geom_set_payload(&g, (uint8_t *)ctrl, fixed_ds, &pl,
				     wqebbs > 1);
	mlx4dv_wqe_set_ctrl(ctrl, ds, mlx4dv_send_flags_to_srcrb(send_flags), 0);
	__mlx4dv_sq_geom_finish(sq, &g, ctrl, opcode, ds, wqebbs);
	return 0;
}

/* ATOMIC compare-and-swap (MLX4_OPCODE_ATOMIC_CS) of the 8 bytes at raddr
 * (8-byte aligned) on RC or XRC_SEND: if equal to compare, replace with
 * swap; the old value lands in result (one entry, 8 bytes). */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_cas(struct mlx4dv_sq_ring *sq, uint64_t wr_id, uint32_t rkey,
		    uint64_t raddr, uint64_t compare, uint64_t swap,
		    const struct ibv_sge *result, uint32_t send_flags)
{
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_atomic(sq, MLX4_OPCODE_ATOMIC_CS, result, raddr,
				     rkey, swap, compare, send_flags);
}

/* ATOMIC fetch-and-add (MLX4_OPCODE_ATOMIC_FA) of add to the 8 bytes at
 * raddr (8-byte aligned); the old value lands in result. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_faa(struct mlx4dv_sq_ring *sq, uint64_t wr_id, uint32_t rkey,
		    uint64_t raddr, uint64_t add, const struct ibv_sge *result,
		    uint32_t send_flags)
{
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_atomic(sq, MLX4_OPCODE_ATOMIC_FA, result, raddr,
				     rkey, add, 0, send_flags);
}

/* Common body of UD sends: ctrl | datagram | data or inline. */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_write_ud(struct mlx4dv_sq_ring *sq, uint32_t opcode,
		     const struct mlx4dv_ud_av *dest, uint32_t remote_qpn,
		     uint32_t remote_qkey, __be32 imm, uint32_t send_flags,
		     const struct __mlx4dv_sq_payload *pl)
{
	const uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS + MLX4DV_WQE_DATAGRAM_DS;
	const uint32_t allowed = IBV_SEND_FENCE | IBV_SEND_SIGNALED |
		IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_IP_CSUM |
		MLX4DV_SEND_STRONG_ORDER | MLX4DV_SEND_FORCE_LOOPBACK;
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct __mlx4dv_sq_geom g;
	uint32_t ds, srcrb, wqebbs;
	int err;

	if (sq->qp_type != IBV_QPT_UD || !dest || (send_flags & ~allowed))
		return EINVAL;
	/* The device sends with an address vector of another PD (another
	 * context's too) as if it were the QP's own: only the handle knows
	 * the QP's PD, and only a debug build spends the compare. */
	__MLX4DV_CHECK(!(sq->flags & MLX4DV_SQ_RING_PDN) ||
		       mlx4dv_ud_av_pdn(dest) == sq->pdn,
		       "mlx4dv_sq_write_ud_*",
		       "dest must be an address vector of the QP's PD (sq->pdn)");
	err = __mlx4dv_sq_payload_ds(sq, fixed_ds, pl, &ds);
	if (err)
		return err;
	srcrb = mlx4dv_send_flags_to_srcrb(send_flags);
	if (send_flags & IBV_SEND_IP_CSUM)
		srcrb |= MLX4_WQE_CTRL_IP_HDR_CSUM | MLX4_WQE_CTRL_TCP_UDP_CSUM;
	g = __mlx4dv_sq_geom_load(sq);
	wqebbs = __mlx4dv_wqebbs_of_ds(g.wqe_shift, ds);
	ctrl = (struct mlx4_wqe_ctrl_seg *)__mlx4dv_sq_geom_wqebb(&g, g.head);
	mlx4dv_wqe_set_datagram_seg((struct mlx4_wqe_datagram_seg *)(ctrl + 1),
				    dest, remote_qpn, remote_qkey);
	__mlx4dv_sq_geom_set_payload(&g, (uint8_t *)ctrl, fixed_ds, pl,
				     wqebbs > 1);
	mlx4dv_wqe_set_ctrl(ctrl, ds, srcrb, imm);
	__mlx4dv_sq_geom_finish(sq, &g, ctrl, opcode, ds, wqebbs);
	return 0;
}

/*
 * UD SEND to dest (mlx4dv_ud_av_from_attr()), remote_qpn, remote_qkey (host
 * order). IBV_SEND_IP_CSUM asks for IPoIB checksum offload (IP and
 * TCP/UDP; libmlx4 rejects it when the device lacks
 * IBV_DEVICE_UD_IP_CSUM, which this header cannot see: check
 * ibv_query_device() first).
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_ud_send(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			const struct mlx4dv_ud_av *dest, uint32_t remote_qpn,
			uint32_t remote_qkey, const struct ibv_sge *sg,
			uint32_t num_sge, uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND, dest, remote_qpn,
				 remote_qkey, 0, send_flags, &pl);
}

/* UD SEND of one inline buffer. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_ud_send_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			       const struct mlx4dv_ud_av *dest,
			       uint32_t remote_qpn, uint32_t remote_qkey,
			       const void *data, uint32_t len,
			       uint32_t send_flags)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, data, len, 1 };

	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_ud(sq, MLX4_OPCODE_SEND, dest, remote_qpn,
				 remote_qkey, 0, send_flags, &pl);
}

/* Common body of raw Ethernet sends: ctrl | [lso] | data or inline. */
static inline int
__mlx4dv_sq_write_eth(struct mlx4dv_sq_ring *sq,
		      const struct __mlx4dv_sq_payload *pl, uint32_t send_flags,
		      uint16_t vlan_tci, uint16_t mss, const void *header,
		      uint16_t header_size)
{
	const uint32_t allowed = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
		IBV_SEND_FENCE | IBV_SEND_INLINE | IBV_SEND_IP_CSUM |
		MLX4DV_SEND_TUNNEL_CSUM | MLX4DV_SEND_FORCE_LOOPBACK |
		MLX4DV_SEND_STRONG_ORDER | MLX4DV_SEND_INS_CVLAN |
		MLX4DV_SEND_INS_SVLAN;
	uint32_t fixed_ds = MLX4DV_WQE_CTRL_DS;
	uint32_t opcode = MLX4_OPCODE_SEND, srcrb, ds;
	struct mlx4_wqe_ctrl_seg *ctrl;
	uint8_t dmac[6];
	int err;

	if (sq->qp_type != IBV_QPT_RAW_PACKET || (send_flags & ~allowed) ||
	    ((send_flags & MLX4DV_SEND_INS_CVLAN) &&
	     (send_flags & MLX4DV_SEND_INS_SVLAN)))
		return EINVAL;
	if (header) {
		if (!mss || header_size < 6)
			return EINVAL;
		fixed_ds += mlx4dv_wqe_lso_ds(header_size);
		opcode = MLX4_OPCODE_LSO;
		if (mlx4dv_wqe_lso_ds(header_size) > 4)
			opcode |= MLX4DV_WQE_CTRL_LSO_BIG_HEADER;
		memcpy(dmac, header, 6);
	} else if (pl->sg) {
		if (!pl->num_sge || pl->sg[0].length < 6 || !pl->sg[0].addr)
			return EINVAL;
		memcpy(dmac, (const void *)(uintptr_t)pl->sg[0].addr, 6);
	} else {
		if (pl->len < 6 || !pl->data)
			return EINVAL;
		memcpy(dmac, pl->data, 6);
	}
	err = __mlx4dv_sq_payload_ds(sq, fixed_ds, pl, &ds);
	if (err)
		return err;
	srcrb = mlx4dv_send_flags_to_srcrb(send_flags & 0xff) |
		MLX4_WQE_CTRL_SOLICIT;
	if (send_flags & MLX4DV_SEND_TUNNEL_CSUM) {
		opcode |= MLX4DV_WQE_CTRL_INNER_IP_CSUM |
			  MLX4DV_WQE_CTRL_INNER_L4_CSUM;
		if (send_flags & IBV_SEND_IP_CSUM)
			srcrb |= MLX4_WQE_CTRL_IP_HDR_CSUM;
	} else if (send_flags & IBV_SEND_IP_CSUM) {
		srcrb |= MLX4_WQE_CTRL_IP_HDR_CSUM | MLX4_WQE_CTRL_TCP_UDP_CSUM;
	}
	ctrl = (struct mlx4_wqe_ctrl_seg *)mlx4dv_sq_wqebb(sq, sq->head);
	__mlx4dv_sq_set_payload(sq, (uint8_t *)ctrl, fixed_ds, pl);
	if (header)
		mlx4dv_sq_set_lso_seg(sq, ctrl + 1, mss, header, header_size);
	mlx4dv_wqe_set_ctrl(ctrl, ds, srcrb, 0);
	mlx4dv_wqe_set_ctrl_dmac(ctrl, dmac);
	if (send_flags & (MLX4DV_SEND_INS_CVLAN | MLX4DV_SEND_INS_SVLAN))
		mlx4dv_wqe_set_ctrl_vlan(ctrl, vlan_tci,
			(send_flags & MLX4DV_SEND_INS_SVLAN) ?
			MLX4DV_WQE_CTRL_INS_SVLAN : MLX4DV_WQE_CTRL_INS_CVLAN);
	__mlx4dv_sq_wqe_finish(sq, ctrl, opcode);
	return 0;
}

/*
 * Raw Ethernet send (RAW_PACKET QP) of the frame in sg (gather, or copied
 * inline with IBV_SEND_INLINE); the first entry must hold the destination
 * MAC (>= 6 bytes), which is copied into the control segment for loopback
 * (libmlx4 qp.c). SOLICIT (no ICRC) is always set. send_flags also take
 * IBV_SEND_IP_CSUM (IP and TCP/UDP checksum; libmlx4 rejects it without
 * IBV_DEVICE_RAW_IP_CSUM), MLX4DV_SEND_TUNNEL_CSUM and
 * MLX4DV_SEND_INS_CVLAN or MLX4DV_SEND_INS_SVLAN with vlan_tci (host
 * order) inserted by the device; vlan_tci is ignored without them.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_eth(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
		    const struct ibv_sge *sg, uint32_t num_sge,
		    uint32_t send_flags, uint16_t vlan_tci)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0,
					!!(send_flags & IBV_SEND_INLINE) };

	if (!sg)
		return EINVAL;
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_eth(sq, &pl, send_flags, vlan_tci, 0,
					 NULL, 0);
}

/* Raw Ethernet send of one frame of len bytes (>= 6) copied inline. */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_eth_inline(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			   const void *frame, uint32_t len, uint32_t send_flags,
			   uint16_t vlan_tci)
{
	struct __mlx4dv_sq_payload pl = { NULL, 0, frame, len, 1 };

	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_eth(sq, &pl, send_flags, vlan_tci, 0,
					 NULL, 0);
}

/* What an LSO (TSO) send repeats in every segment. */
struct mlx4dv_lso_attr {
	const void		*header;	/* L2..L4 headers of the frame */
	uint16_t		header_size;	/* bytes, >= 6 */
	uint16_t		mss;		/* payload bytes per segment, > 0 */
};

/*
 * Raw Ethernet LSO send (MLX4_OPCODE_LSO): ctrl | LSO segment (mss,
 * header inline, padded to 16 bytes; MLX4DV_WQE_CTRL_LSO_BIG_HEADER when
 * it exceeds 64 bytes) | gather entries with the payload. The destination
 * MAC comes from the header. Set IBV_SEND_IP_CSUM (the device rewrites
 * IP and TCP checksums per segment). (kernel mlx4_en en_tx.c, mlx4_ib
 * qp.c build_lso_seg.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_write_eth_lso(struct mlx4dv_sq_ring *sq, uint64_t wr_id,
			const struct mlx4dv_lso_attr *lso,
			const struct ibv_sge *sg, uint32_t num_sge,
			uint32_t send_flags, uint16_t vlan_tci)
{
	struct __mlx4dv_sq_payload pl = { sg, num_sge, NULL, 0, 0 };

	if (!lso || !lso->header || (send_flags & IBV_SEND_INLINE))
		return EINVAL;
	__mlx4dv_sq_set_wr_id(sq, wr_id);
	return __mlx4dv_sq_write_eth(sq, &pl, send_flags, vlan_tci,
					 lso->mss, lso->header,
					 lso->header_size);
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_WRITE_H_ */
