/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/send.h> - send WQE constants and SQ ring arithmetic.
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_SEND_H_
#define _MLX4DV_SEND_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/send.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/handle.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Send path (send.h, wqe.h, doorbell.h, write.h, send_wr.h, batch.h).
 * ====================================================================== */
/*
 * The send path builds WQEs in the SQ ring of a struct mlx4dv_sq_ring and
 * hands them to the device. Layers, each usable on its own:
 *  1. ring arithmetic: slot of a count, room, WQEBBs of a WQE, completion;
 *  2. segment builders: one per PRM segment, host-order arguments stored
 *     big-endian, never touching the owner/opcode word;
 *  3. WQE finish: owner/opcode word last behind a barrier, stamping of the
 *     WQEBBs entering the prefetch window, producer count advanced;
 *  4. doorbell (one per batch) or BlueFlame (one small WQE);
 *  5. one-call posts (validate everything, then build, then finish);
 *  6. template batches: constant words prepared once, room reserved once,
 *     then a few stores per WQE (mlx4dv_sq_batch_*).
 * A one-call post never rings the doorbell: post a batch, then ring once
 * with mlx4dv_sq_ring_doorbell(), or post one WQE and hand it over with
 * mlx4dv_sq_ring_one(). See docs/send-path.md.
 *
 * A WQE is ds 16-byte units long (ds <= 63) and occupies
 * ceil(ds * 16 / stride) consecutive WQEBBs; it may wrap past the ring
 * end, and every writer below treats the ring as circular. Segments that
 * follow the control segment at a fixed place (remote address, atomic,
 * bind, local invalidate, datagram) always lie in the first 64 bytes of
 * the WQE, which never wraps because WQEs start on a WQEBB.
 */

/* ---- Constants of the send WQE (host order) ---- */

/* Owner bit of owner_opcode: the WQE at producer count n is the device's
 * when this bit equals ((n & wqe_cnt) != 0). (libmlx4 qp.c, PRM.) */
#define MLX4DV_WQE_CTRL_OWNER		(1U << 31)
/* owner_opcode bit 29: no error completion (firmware >= 2.2.232; kernel
 * include/linux/mlx4/qp.h MLX4_WQE_CTRL_NEC). */
#define MLX4DV_WQE_CTRL_NEC		(1U << 29)
/* owner_opcode bits 28/27: checksum of the inner IP header and of the
 * inner TCP/UDP header of a tunnelled (VXLAN, GRE) frame (kernel
 * MLX4_WQE_CTRL_IIP/ILP, DPDK mlx4_prm.h MLX4_WQE_CTRL_IIP_HDR_CSUM /
 * IL4_HDR_CSUM). The outer IP checksum stays MLX4_WQE_CTRL_IP_HDR_CSUM. */
#define MLX4DV_WQE_CTRL_INNER_IP_CSUM	(1U << 28)
#define MLX4DV_WQE_CTRL_INNER_L4_CSUM	(1U << 27)
/* owner_opcode bit 6 of an LSO WQE: the LSO segment with its header is
 * longer than 64 bytes (kernel mlx4_ib qp.c build_lso_seg "blh"). */
#define MLX4DV_WQE_CTRL_LSO_BIG_HEADER	(1U << 6)
/* Stamp: first word of every 64-byte chunk but the first of a free WQE
 * (libmlx4 qp.c stamp_send_wqe). Same value in both byte orders. */
#define MLX4DV_WQE_STAMP		0xffffffffU
/* byte_count of a data segment of length 0 (libmlx4 qp.c set_data_seg:
 * a plain 0 would mean 2 GiB). */
#define MLX4DV_DATA_SEG_ZERO_LENGTH	0x80000000U
/* Largest length of one gather entry: 2^31 - 1 bytes. Bit 31 of a data
 * segment's byte_count is not part of the length: with the length bits 0
 * it is the zero-length marker above, otherwise the device reads the
 * segment as inline data (MLX4_INLINE_SEG). A length of 2^31 or more
 * would therefore move 0 bytes or a few bytes of inline garbage; the
 * posts refuse it with EINVAL (split such a buffer into two entries). */
#define MLX4DV_DATA_SEG_MAX_LENGTH	0x7fffffffU

enum {
	/* srcrb_flags bit 0: deliver to the local port too (kernel
	 * MLX4_WQE_CTRL_FORCE_LOOPBACK). */
	MLX4DV_WQE_CTRL_FORCE_LOOPBACK	= 1 << 0,
	/* ins_vlan values (byte 6 of the control segment; kernel
	 * MLX4_WQE_CTRL_INS_CVLAN/SVLAN, mlx4_en en_tx.c). */
	MLX4DV_WQE_CTRL_INS_CVLAN	= 1 << 6,
	MLX4DV_WQE_CTRL_INS_SVLAN	= 1 << 7,
	/* Largest ds (6-bit field of fence_size). */
	MLX4DV_WQE_MAX_DS		= 63,
	/* Bytes per prefetch/stamp chunk and inline alignment unit. */
	MLX4DV_WQE_CHUNK		= 64,
	/* Sizes in 16-byte units of the fixed segments. */
	MLX4DV_WQE_CTRL_DS		= 1,
	MLX4DV_WQE_RADDR_DS		= 1,
	MLX4DV_WQE_ATOMIC_DS		= 1,
	MLX4DV_WQE_MASKED_ATOMIC_DS	= 2,
	MLX4DV_WQE_BIND_DS		= 2,
	MLX4DV_WQE_LOCAL_INVAL_DS	= 2,
	MLX4DV_WQE_DATAGRAM_DS		= 3,
	MLX4DV_WQE_DATA_DS		= 1,
};

/*
 * Extra flags of the send_flags argument of the one-call posts, next to
 * IBV_SEND_FENCE, IBV_SEND_SIGNALED, IBV_SEND_SOLICITED, IBV_SEND_INLINE
 * and IBV_SEND_IP_CSUM (bits 0..4). Bits 8..31 depend on the QP type:
 * XRC_SEND: the remote XRC SRQN (MLX4DV_SEND_XRC_SRQN()); RAW_PACKET:
 * MLX4DV_SEND_INS_CVLAN or MLX4DV_SEND_INS_SVLAN; any other: 0.
 */
enum mlx4dv_send_flags {
	/* Raw Ethernet: checksum the inner IP and TCP/UDP headers of a
	 * tunnelled frame; IBV_SEND_IP_CSUM then asks for the outer IP
	 * header checksum only (DPDK mlx4_rxtx.c). */
	MLX4DV_SEND_TUNNEL_CSUM		= 1 << 5,
	/* Also deliver the packet to the local port (srcrb bit 0). */
	MLX4DV_SEND_FORCE_LOOPBACK	= 1 << 6,
	/* Strong ordering (srcrb bit 7): start only after all earlier WQEs
	 * of this SQ completed locally; set by libmlx4 for local invalidate
	 * and bind. */
	MLX4DV_SEND_STRONG_ORDER	= 1 << 7,
	/* Raw Ethernet posts only: insert the VLAN tag passed as vlan_tci,
	 * as a customer (802.1Q) or service (802.1ad) tag. */
	MLX4DV_SEND_INS_CVLAN		= 1 << 8,
	MLX4DV_SEND_INS_SVLAN		= 1 << 9,
};

/* send_flags bits 8..31 of an XRC_SEND post: the remote XRC SRQ number
 * (host order, 24 bits), stored in srcrb_flags bits 8..31
 * (libmlx4 mlx4.h MLX4_REMOTE_SRQN_FLAGS). */
#define MLX4DV_SEND_XRC_SRQN(srqn)	((uint32_t)(srqn) << 8)

/* Masked atomic segment (32 bytes) of MLX4_OPCODE_MASKED_ATOMIC_CS,
 * after the remote-address segment (kernel mlx4_ib qp.c
 * set_masked_atomic_seg, include/linux/mlx4/qp.h). */
struct mlx4dv_wqe_masked_atomic_seg {
	__be64			swap_add;
	__be64			compare;
	__be64			swap_add_mask;
	__be64			compare_mask;
};

/* ---- Ring arithmetic ---- */

/* Bytes of one WQEBB (the stride), 64..2048. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_wqebb_size(const struct mlx4dv_sq_ring *sq)
{
	return 1U << sq->wqe_shift;
}

/* Address of the WQEBB at producer count `count` (any free-running value):
 * buf + (count & (wqe_cnt - 1)) * stride. */
static MLX4DV_ALWAYS_INLINE uint8_t *
mlx4dv_sq_wqebb(const struct mlx4dv_sq_ring *sq, uint32_t count)
{
	return sq->buf + ((size_t)(count & (sq->wqe_cnt - 1)) << sq->wqe_shift);
}

/* First byte past the ring (buf + wqe_cnt * stride). */
static MLX4DV_ALWAYS_INLINE uint8_t *
mlx4dv_sq_ring_end(const struct mlx4dv_sq_ring *sq)
{
	return sq->buf + ((size_t)sq->wqe_cnt << sq->wqe_shift);
}

/* Bring a pointer that ran past the ring end back to the ring start
 * (p must be below end + ring size): the ring is circular. */
static MLX4DV_ALWAYS_INLINE uint8_t *
mlx4dv_sq_wrap(const struct mlx4dv_sq_ring *sq, uint8_t *p)
{
	uint8_t *end = mlx4dv_sq_ring_end(sq);

	return p >= end ? p - ((size_t)sq->wqe_cnt << sq->wqe_shift) : p;
}

/* WQEBBs posted and not yet completed: head - tail (right across the
 * 32-bit wrap). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_outstanding(const struct mlx4dv_sq_ring *sq)
{
	return sq->head - sq->tail;
}

/* WQEBBs that may still be posted: max_post - (head - tail). The spare
 * WQEBBs beyond max_post are the device's prefetch headroom and are never
 * used (libmlx4 qp.c wq_overflow). */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_room(const struct mlx4dv_sq_ring *sq)
{
	return sq->max_post - (sq->head - sq->tail);
}

/* WQEBBs a WQE of ds 16-byte units occupies: ceil(ds * 16 / stride). */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_wqebbs_of_ds(uint32_t wqe_shift, uint32_t ds)
{
	/* 1..4 units fit in the smallest stride (64 bytes): one WQEBB, a
	 * constant when ds is (the fixed-size posts). */
	if (ds - 1 < MLX4DV_WQE_CHUNK / 16)
		return 1;
	return ((ds << 4) + (1U << wqe_shift) - 1) >> wqe_shift;
}

/* WQEBBs a WQE of ds 16-byte units occupies in this ring:
 * ceil(ds * 16 / stride), 1 for ds 1..4. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_sq_ds_to_wqebbs(const struct mlx4dv_sq_ring *sq, uint32_t ds)
{
	return __mlx4dv_wqebbs_of_ds(sq->wqe_shift, ds);
}

/* ds (16-byte units) of the WQE whose control segment is ctrl: the low
 * 6 bits of fence_size. */
static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_wqe_ds(const struct mlx4_wqe_ctrl_seg *ctrl)
{
	return ctrl->fence_size & 0x3f;
}

/*
 * Record wr_id for the WQE built at sq->head (sq->wrid at the slot of
 * head; nothing when sq->wrid is NULL), for the writes, which take wr_id
 * as an argument. The slot of head is never an outstanding WQE's (room
 * keeps head - tail <= max_post < wqe_cnt), so storing before a write
 * that then fails leaves nothing behind: the next write takes the slot.
 */
static MLX4DV_ALWAYS_INLINE void
__mlx4dv_sq_set_wr_id(struct mlx4dv_sq_ring *sq, uint64_t wr_id)
{
	size_t slot = sq->head & (sq->wqe_cnt - 1);

	if (sq->wrid)
		sq->wrid[slot] = wr_id;
}

static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_complete_sized(struct mlx4dv_sq_ring *sq, uint16_t wqe_index,
			 uint64_t *wr_id, int single_wqebb);

/*
 * mlx4dv_sq_complete - account a send completion by its host-order WQE
 * index (deprecated in 0.3, docs/migration-0.3.md: every completion call
 * takes the CQE; use mlx4dv_sq_complete_cqe(), which also checks that the
 * CQE is a send of this SQ and returns 0 or an errno). Passing the raw
 * big-endian cqe->wqe_index here frees nothing, silently; the CQE form
 * cannot be called that way.
 *
 * wqe_index: host order (mlx4dv_be16_to_cpu(cqe->wqe_index)) of a send CQE
 *            or an error CQE of this SQ: the low 16 bits of the producer
 *            count of the first WQEBB of the last WQE that completed. Every
 *            earlier WQE, signaled or not, completed with it.
 * wr_id:     out, may be NULL: the wr_id the WQE was written with (when
 *            sq->wrid is not NULL; else untouched).
 *
 * tail moves to the named WQE (a 16-bit difference, so right across the
 * 16-bit wrap of wqe_index while fewer than 65536 WQEBBs are outstanding)
 * and then past it by its size in WQEBBs: one while sq->single_wqebb
 * holds, else read from its ds in the ring (the control segment of a
 * completed WQE stays intact: stamping never touches the first 64 bytes,
 * and the slot is reused only after tail has passed it). (libmlx4 cq.c mlx4_parse_cqe: wq->tail += (uint16_t)
 * (wqe_index - (uint16_t)wq->tail).)
 *
 * Returns the WQEBBs freed (>= 1), or 0 and changes nothing when
 * wqe_index does not name an outstanding WQEBB (a stale or foreign CQE).
 */
static MLX4DV_ALWAYS_INLINE __MLX4DV_DEPRECATED("mlx4dv_sq_complete_cqe()") uint32_t
mlx4dv_sq_complete(struct mlx4dv_sq_ring *sq, uint16_t wqe_index,
		   uint64_t *wr_id)
{
	return __mlx4dv_sq_complete_sized(sq, wqe_index, wr_id,
					sq->single_wqebb & 1);
}

/* The body of the send completions (mlx4dv_sq_complete_cqe(), the polls,
 * the deprecated mlx4dv_sq_complete()): tail moves as described there;
 * single_wqebb as sq->single_wqebb & 1
 * was read (a caller that has tested it already passes the result, so
 * that the field is not read again). */
static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_sq_complete_sized(struct mlx4dv_sq_ring *sq, uint16_t wqe_index,
			 uint64_t *wr_id, int single_wqebb)
{
	uint32_t tail = sq->tail, head = sq->head;
	uint32_t skip = (uint16_t)(wqe_index - (uint16_t)tail);
	uint32_t start = tail + skip;
	size_t slot = start & (sq->wqe_cnt - 1);
	const struct mlx4_wqe_ctrl_seg *ctrl;
	uint32_t ds, wqebbs;

	if (skip >= head - tail)
		return 0;
	if (__MLX4DV_LIKELY(single_wqebb)) {
		if (wr_id && sq->wrid)
			*wr_id = sq->wrid[slot];
		sq->tail = start + 1;
		return skip + 1;
	}
	ctrl = (const struct mlx4_wqe_ctrl_seg *)
		(sq->buf + (slot << sq->wqe_shift));
	ds = mlx4dv_wqe_ds(ctrl);
	if (__MLX4DV_LIKELY(ds - 1 < MLX4DV_WQE_CHUNK / 16)) {
		/* One WQEBB, and start < head by the test above. */
		wqebbs = 1;
	} else {
		wqebbs = __mlx4dv_wqebbs_of_ds(sq->wqe_shift, ds);
		if (wqebbs == 0 || wqebbs > head - start)
			return 0;
	}
	if (wr_id && sq->wrid)
		*wr_id = sq->wrid[slot];
	sq->tail = start + wqebbs;
	return skip + wqebbs;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_SEND_H_ */
