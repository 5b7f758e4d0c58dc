/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/batch.h> - batches of WQEs built from a template (mlx4dv_sq_batch_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_BATCH_H_
#define _MLX4DV_BATCH_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/batch.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/write.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Batches of WQEs built from a template ---- */

/*
 * A run of WQEs of one shape (same operation, keys, length and flags; the
 * addresses and the wr_id change) is cheap once its constant words are
 * prepared:
 *  - mlx4dv_sq_wqe_template_set() validates the operation for the ring
 *    once and keeps every constant word big-endian, as it is stored;
 *  - mlx4dv_sq_batch_begin() checks the template against the ring and
 *    reserves room for up to n WQEs (one WQEBB each);
 *  - mlx4dv_sq_batch_write() writes one WQE: its only check is one pointer
 *    compare (end of the reservation or of the ring);
 *  - mlx4dv_sq_batch_end() publishes the new producer count; then ring the
 *    doorbell once (mlx4dv_sq_ring_doorbell()).
 * The WQEs are byte for byte those of the one-call posts (and of
 * libmlx4's ibv_post_send()) for the same request: control segment,
 * [remote address segment,] one gather entry, 2 or 3 units, so every
 * template WQE lies in the first 64-byte chunk of its WQEBB. The owner
 * word, written last behind a store barrier, guards that whole chunk, so
 * the other words of the chunk may be stored in any order (the
 * byte_count-last rule of mlx4dv_wqe_set_data_seg() is for a gather entry
 * that starts a chunk of its own).
 */

/*
 * struct mlx4dv_sq_wqe_template - the constant words of a template WQE,
 * each big-endian as stored in the ring (fill with
 * mlx4dv_sq_wqe_template_set()).
 *
 * owner_opcode: control word 0 without the owner bit (the batch adds it).
 * bf_qpn:       control bytes 4..7: 0, 0, 0, fence bit | ds.
 * srcrb_flags:  control word 2 (CQ update, solicited, ..., XRC SRQN).
 * imm:          control word 3: the immediate of *_WITH_IMM, else 0.
 * rkey:         remote key (remote address segment word 2); 0 for sends.
 * byte_count:   gather entry length (0 stored as 0x80000000).
 * lkey:         gather entry local key.
 * ds:           host order: 2 (SEND) or 3 (RDMA WRITE/READ) units.
 * qp_type:      the ring's QP type the template was made for.
 */
struct mlx4dv_sq_wqe_template {
	__be32			owner_opcode;
	__be32			bf_qpn;
	__be32			srcrb_flags;
	__be32			imm;
	__be32			rkey;
	__be32			byte_count;
	__be32			lkey;
	uint32_t		ds;
	uint32_t		qp_type;
};

/*
 * mlx4dv_sq_wqe_template_set - prepare t for WQEs of one operation on
 * the connected-QP ring sq.
 *
 * opcode:     IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
 *             IBV_WR_RDMA_WRITE_WITH_IMM or IBV_WR_RDMA_READ (not on UC).
 * rkey:       remote key, host order; ignored for sends.
 * lkey:       local key of every gather entry, host order.
 * length:     bytes of every gather entry, host order (0 allowed; at
 *             most MLX4DV_DATA_SEG_MAX_LENGTH).
 * send_flags: as for mlx4dv_sq_write_rdma_write() (IBV_SEND_SIGNALED, FENCE,
 *             SOLICITED, MLX4DV_SEND_STRONG_ORDER, _FORCE_LOOPBACK,
 *             MLX4DV_SEND_XRC_SRQN() on XRC_SEND); not IBV_SEND_INLINE.
 * imm:        big-endian as the receiver reads it (ibv_send_wr.imm_data),
 *             for the *_WITH_IMM opcodes; ignored otherwise.
 * Returns 0, or EINVAL for a QP type other than RC, UC or XRC_SEND, an
 * opcode outside the list or READ on UC, IBV_SEND_INLINE or an unknown
 * flag, a length over MLX4DV_DATA_SEG_MAX_LENGTH, or a ring without a
 * gather entry or headroom; t is then cleared
 * (ds 0), and mlx4dv_sq_batch_begin() refuses it.
 * (Encodings: libmlx4 qp.c mlx4_post_send, set_raddr_seg, set_data_seg.)
 */
static inline int
mlx4dv_sq_wqe_template_set(struct mlx4dv_sq_wqe_template *t,
			   const struct mlx4dv_sq_ring *sq,
			   enum ibv_wr_opcode opcode, uint32_t rkey,
			   uint32_t lkey, uint32_t length, uint32_t send_flags,
			   __be32 imm)
{
	struct mlx4_wqe_ctrl_seg ctrl;
	uint32_t op, ds = MLX4DV_WQE_CTRL_DS + MLX4DV_WQE_DATA_DS;

	/* ds 0 until the end: a refused template makes no batch. */
	memset(t, 0, sizeof(*t));
	switch (opcode) {
	case IBV_WR_SEND:
		op = MLX4_OPCODE_SEND;
		imm = 0;
		break;
	case IBV_WR_SEND_WITH_IMM:
		op = MLX4_OPCODE_SEND_IMM;
		break;
	case IBV_WR_RDMA_WRITE:
		op = MLX4_OPCODE_RDMA_WRITE;
		imm = 0;
		ds += MLX4DV_WQE_RADDR_DS;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		op = MLX4_OPCODE_RDMA_WRITE_IMM;
		ds += MLX4DV_WQE_RADDR_DS;
		break;
	case IBV_WR_RDMA_READ:
		if (sq->qp_type == IBV_QPT_UC)
			return EINVAL;
		op = MLX4_OPCODE_RDMA_READ;
		imm = 0;
		ds += MLX4DV_WQE_RADDR_DS;
		break;
	default:
		return EINVAL;
	}
	if (!__mlx4dv_sq_is_connected(sq) ||
	    !__mlx4dv_sq_connected_flags_ok(sq, send_flags) ||
	    (send_flags & IBV_SEND_INLINE) || sq->max_gather < 1 ||
	    sq->spare_wqes < 1 || length > MLX4DV_DATA_SEG_MAX_LENGTH)
		return EINVAL;
	memset(&ctrl, 0, sizeof(ctrl));
	mlx4dv_wqe_set_ctrl(&ctrl, ds, mlx4dv_send_flags_to_srcrb(send_flags), imm);
	t->owner_opcode = mlx4dv_cpu_to_be32(op);
	t->bf_qpn = ctrl.bf_qpn;
	t->srcrb_flags = ctrl.srcrb_flags;
	t->imm = ctrl.imm;
	t->rkey = ds > 2 ? mlx4dv_cpu_to_be32(rkey) : 0;
	t->byte_count = mlx4dv_cpu_to_be32(length ? length :
					   MLX4DV_DATA_SEG_ZERO_LENGTH);
	t->lkey = mlx4dv_cpu_to_be32(lkey);
	t->ds = ds;
	t->qp_type = sq->qp_type;
	return 0;
}

/*
 * mlx4dv_sq_wqe_template_init - the 0.2 name of mlx4dv_sq_wqe_template_set()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
static inline __MLX4DV_DEPRECATED("mlx4dv_sq_wqe_template_set()") int
mlx4dv_sq_wqe_template_init(struct mlx4dv_sq_wqe_template *t,
			    const struct mlx4dv_sq_ring *sq,
			    enum ibv_wr_opcode opcode, uint32_t rkey,
			    uint32_t lkey, uint32_t length, uint32_t send_flags,
			    __be32 imm)
{
	return mlx4dv_sq_wqe_template_set(t, sq, opcode, rkey, lkey, length, send_flags, imm);
}

/*
 * struct mlx4dv_sq_batch - a batch in progress (a local of the posting
 * function: kept whole in registers when everything is inlined). Opaque;
 * filled by mlx4dv_sq_batch_begin().
 */
struct mlx4dv_sq_batch {
	uint8_t			*wqe;		/* WQEBB of the next WQE */
	uint8_t			*stop;		/* next place to turn: limit or ring end */
	uint8_t			*limit;		/* end of the reservation */
	uint8_t			*buf;		/* ring start */
	uint8_t			*ring_end;	/* first byte past the ring */
	uint64_t		*wrid;		/* slot of the next WQE in sq->wrid, or NULL */
	uint64_t		*wrid_base;	/* sq->wrid */
	size_t			stride;		/* bytes of a WQEBB */
	size_t			data_offset;	/* 16 (send) or 32 (RDMA) */
	uint32_t		wqe_shift;
	uint32_t		start_head;	/* sq->head at begin */
	uint32_t		wrap_pending;	/* the reservation runs past the ring end */
	__be32			owner_opcode;	/* word 0 of the next WQE */
	__be32			owner_bit;	/* MLX4DV_WQE_CTRL_OWNER, big-endian */
	__be32			bf_qpn;		/* control bytes 4..7 */
	/* Pairs of big-endian words as 8 bytes in ring order, so that each
	 * pair is one store (memcpy, any host byte order). */
	uint64_t		srcrb_imm;	/* control bytes 8..15 */
	uint64_t		rkey_rsvd;	/* remote address segment bytes 8..15 */
	uint64_t		count_lkey;	/* gather entry bytes 0..7 */
};

/*
 * mlx4dv_sq_batch_begin - start a batch of at most n template WQEs at
 * sq->head.
 *
 * Checks, once: t was made for this ring's QP type; n WQEBBs are free
 * (n <= mlx4dv_sq_room(sq)). When sq->ring_stamped is 0 the n WQEBBs the
 * batch brings into the prefetch window are stamped here, before any WQE
 * is written (they are free: the room check puts them behind tail).
 * Returns 0, EINVAL (t not made for this QP type, or not by
 * mlx4dv_sq_wqe_template_set()), or ENOMEM (fewer than n free WQEBBs).
 * On error nothing is written and b is an empty batch: its posts return
 * ENOSPC, its end publishes nothing.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_batch_begin(struct mlx4dv_sq_ring *sq, struct mlx4dv_sq_batch *b,
		      const struct mlx4dv_sq_wqe_template *t, uint32_t n)
{
	uint32_t head = sq->head, slot = head & (sq->wqe_cnt - 1);
	int err = 0;

	__MLX4DV_CHECK(sq && b && t, "mlx4dv_sq_batch_begin",
		       "sq, b and t must not be NULL");
	__MLX4DV_CHECK(!(sq->flags & MLX4DV_SQ_RING_BATCH_OPEN),
		       "mlx4dv_sq_batch_begin",
		       "one batch at a time per ring: end the open one first");
	if (t->qp_type != sq->qp_type || t->ds < 2 || t->ds > 3)
		err = EINVAL;
	else if (n > mlx4dv_sq_room(sq))
		err = ENOMEM;
	/* On error the batch is still valid, with nothing reserved: its
	 * posts return ENOSPC and its end publishes nothing. */
	if (err)
		n = 0;
	if (__MLX4DV_UNLIKELY(!(sq->ring_stamped & 1)) && n)
		__mlx4dv_sq_stamp_more(sq, head + sq->spare_wqes, n);
	b->buf = sq->buf;
	b->ring_end = mlx4dv_sq_ring_end(sq);
	b->stride = (size_t)1 << sq->wqe_shift;
	b->wqe_shift = sq->wqe_shift;
	b->wqe = b->buf + ((size_t)slot << sq->wqe_shift);
	b->wrap_pending = slot + n > sq->wqe_cnt;
	b->limit = b->buf + ((size_t)((slot + n) & (b->wrap_pending ?
		sq->wqe_cnt - 1 : ~(uint32_t)0)) << sq->wqe_shift);
	b->stop = b->wrap_pending ? b->ring_end : b->limit;
	b->wrid_base = sq->wrid;
	b->wrid = sq->wrid ? sq->wrid + slot : NULL;
	b->data_offset = (size_t)t->ds == 3 ? 32 : 16;
	b->start_head = head;
	b->owner_bit = mlx4dv_cpu_to_be32(MLX4DV_WQE_CTRL_OWNER);
	b->owner_opcode = t->owner_opcode |
		((head & sq->wqe_cnt) ? b->owner_bit : 0);
	b->bf_qpn = t->bf_qpn;
	b->srcrb_imm = __mlx4dv_be32_pair(t->srcrb_flags, t->imm);
	b->rkey_rsvd = __mlx4dv_be32_pair(t->rkey, 0);
	b->count_lkey = __mlx4dv_be32_pair(t->byte_count, t->lkey);
#ifdef MLX4DV_DEBUG
	if (!err)
		sq->flags |= MLX4DV_SQ_RING_BATCH_OPEN;
#endif
	return err;
}

/* At b->stop: past the ring end when the reservation goes on there
 * (owner bit flips: a new lap), else the reservation is used up (0). */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_batch_turn(struct mlx4dv_sq_batch *b)
{
	if (b->stop != b->ring_end || !b->wrap_pending)
		return 0;
	b->wrap_pending = 0;
	b->wqe = b->buf;
	b->stop = b->limit;
	b->owner_opcode ^= b->owner_bit;
	b->wrid = b->wrid_base;
	return b->wqe != b->stop;
}

/* The body of the batch posts: control bytes 4..15 from bf_qpn and
 * srcrb_imm (the template's, or with a WQE's own flags added). */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_sq_batch_store(struct mlx4dv_sq_batch *b, uint64_t laddr,
			uint64_t raddr, uint64_t wr_id, __be32 bf_qpn,
			uint64_t srcrb_imm)
{
	__be64 la = mlx4dv_cpu_to_be64(laddr);
	__be64 ra = mlx4dv_cpu_to_be64(raddr);
	uint8_t *wqe;

	if (__MLX4DV_UNLIKELY(b->wqe == b->stop) && !__mlx4dv_sq_batch_turn(b))
		return ENOSPC;
	wqe = b->wqe;
	/* A send's gather entry (at 16) overwrites the remote address
	 * words stored first: one store sequence for both shapes. */
	memcpy(wqe + 4, &bf_qpn, 4);
	memcpy(wqe + 8, &srcrb_imm, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + 16, &ra, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + 24, &b->rkey_rsvd, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + b->data_offset, &b->count_lkey, 8);
	__MLX4DV_STORE_GROUP();
	memcpy(wqe + b->data_offset + 8, &la, 8);
	if (b->wrid)
		*b->wrid++ = wr_id;
	mlx4dv_barrier_to_device();
	((struct mlx4_wqe_ctrl_seg *)wqe)->owner_opcode = b->owner_opcode;
	b->wqe = wqe + b->stride;
	return 0;
}

/*
 * mlx4dv_sq_batch_write - write the next template WQE of the batch.
 *
 * wr_id:  stored in sq->wrid for the WQE when the ring has a table.
 * raddr:  remote address, host order (RDMA templates; ignored for sends).
 * laddr:  gather entry address, host order.
 *
 * Stores the fixed words from the template, the two addresses, then a
 * store barrier and word 0 (owner bit of the WQE's lap | opcode). No
 * stamping is needed per WQE (see mlx4dv_sq_batch_begin()).
 * Returns 0, or ENOSPC (nothing written) when the n WQEs reserved by
 * mlx4dv_sq_batch_begin() are all posted.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_batch_write(struct mlx4dv_sq_batch *b, uint64_t wr_id, uint64_t raddr,
		      uint64_t laddr)
{
	return __mlx4dv_sq_batch_store(b, laddr, raddr, wr_id, b->bf_qpn,
				     b->srcrb_imm);
}

/* send_flags one WQE of a batch may add to its template's. */
#define MLX4DV_SQ_BATCH_WQE_FLAGS \
	((uint32_t)(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE))

/*
 * mlx4dv_sq_batch_write_flags - mlx4dv_sq_batch_write() for a WQE that also
 * asks for a completion, a solicited event or a fence, without a second
 * template: send_flags is IBV_SEND_SIGNALED, IBV_SEND_SOLICITED and/or
 * IBV_SEND_FENCE, added to the template's flags for this WQE only
 * (control word 2 gets MLX4_WQE_CTRL_CQ_UPDATE / MLX4_WQE_CTRL_SOLICIT,
 * control byte 7 the fence bit 0x40, exactly as the one-call posts store
 * them; libmlx4 qp.c mlx4_post_send). Flags the template has already
 * stay; none can be taken away. Typical use: an unsignalled template
 * and IBV_SEND_SIGNALED on the last WQE of the batch, so one send CQE
 * completes the whole batch (mlx4dv_cq_poll_sq()).
 * Returns 0; EINVAL (nothing written) for any other flag bit; ENOSPC as
 * mlx4dv_sq_batch_write(). With constant send_flags the extra words are
 * constants and the WQE costs what mlx4dv_sq_batch_write() costs.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_batch_write_flags(struct mlx4dv_sq_batch *b, uint64_t wr_id,
			    uint64_t raddr, uint64_t laddr, uint32_t send_flags)
{
	uint32_t srcrb = mlx4dv_send_flags_to_srcrb(send_flags &
		(uint32_t)(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED));
	__be32 fence = mlx4dv_cpu_to_be32((send_flags & IBV_SEND_FENCE) ?
					  (uint32_t)MLX4_WQE_CTRL_FENCE : 0);

	if (__MLX4DV_UNLIKELY(send_flags & ~MLX4DV_SQ_BATCH_WQE_FLAGS))
		return EINVAL;
	return __mlx4dv_sq_batch_store(b, laddr, raddr, wr_id, b->bf_qpn | fence,
		b->srcrb_imm | __mlx4dv_be32_pair(mlx4dv_cpu_to_be32(srcrb), 0));
}

/*
 * mlx4dv_sq_batch_end - publish the WQEs posted in the batch: sq->head
 * advances by their number, which is returned (0..n). Ring the doorbell
 * afterwards, once. (A batch may also be ended early; the rest of the
 * reservation is simply not used.)
 */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_batch_end(struct mlx4dv_sq_ring *sq, const struct mlx4dv_sq_batch *b)
{
	size_t size = (size_t)(b->ring_end - b->buf);
	size_t first = (size_t)b->start_head << b->wqe_shift;
	uint32_t posted = (uint32_t)((((size_t)(b->wqe - b->buf) - first) &
				      (size - 1)) >> b->wqe_shift);

	__MLX4DV_CHECK(b->buf == sq->buf, "mlx4dv_sq_batch_end",
		       "b was begun on another ring");
	__MLX4DV_CHECK(sq->head == b->start_head, "mlx4dv_sq_batch_end",
		       "sq->head moved since mlx4dv_sq_batch_begin(): a WQE "
		       "written in between was overwritten by the batch");
#ifdef MLX4DV_DEBUG
	sq->flags &= ~(uint32_t)MLX4DV_SQ_RING_BATCH_OPEN;
#endif
	sq->head = b->start_head + posted;
	return posted;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_BATCH_H_ */
