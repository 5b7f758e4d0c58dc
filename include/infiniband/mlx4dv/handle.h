/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/handle.h> - the queue handles: struct mlx4dv_sq_ring, _rq_ring, _srq_ring, _cq_ring.
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_HANDLE_H_
#define _MLX4DV_HANDLE_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/handle.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Queue handles.
 * ====================================================================== */
/*
 * A queue handle is a plain struct holding everything the inline data path
 * needs: the ring geometry, free-running counters, and the addresses of the
 * doorbell record and registers. libmlx4dv fills them from ibverbs objects
 * (mlx4dv_sq_ring_init() and friends, see <infiniband/mlx4dv/lib.h> and
 * libmlx4dv(7)); a program can also fill one by hand from mlx4dv_init_obj()'s
 * output. The data path never calls into a library.
 *
 * Counters are free-running 32-bit values; a slot index is
 * (count & (wqe_cnt - 1)) and the room left is a subtraction, which stays
 * right across the 32-bit wrap. A handle is not thread-safe: one thread
 * drives a queue at a time. The data path trusts the geometry of a handle:
 * use one only once it is filled, by its *_ring_init() call or completely
 * by hand. A zeroed handle is not an empty queue (polling one faults).
 */

/* Flags of struct mlx4dv_sq_ring.flags. */
enum mlx4dv_sq_ring_flags {
	/* bf_reg is mapped: mlx4dv_sq_ring_one() may be used. */
	MLX4DV_SQ_RING_BLUEFLAME	= 1 << 0,
	/* BlueFlame was requested but is unavailable (no register, or the
	 * mapping failed); plain doorbells are used. */
	MLX4DV_SQ_RING_BLUEFLAME_FALLBACK	= 1 << 1,
	/* Set and read by programs built with MLX4DV_DEBUG only: a
	 * template batch is open on the ring (mlx4dv_sq_batch_begin() to
	 * mlx4dv_sq_batch_end()), so a one-call write, which would
	 * overwrite the batch's first WQE, is an assertion. A release
	 * build never sets it; copying a handle keeps it. */
	MLX4DV_SQ_RING_BATCH_OPEN	= 1 << 2,
};
/*
 * Bits 8..31 of struct mlx4dv_sq_ring.flags: libmlx4dv's ticket for the
 * wrid table and BlueFlame register mlx4dv_sq_ring_init() handed out
 * (0: none). mlx4dv_sq_ring_release() gives them back only while the
 * ticket is the queue's live one, so releasing twice, or releasing a
 * stale copy after the queue was released (and its register perhaps
 * handed to another handle), gives back nothing. Keep the bits when
 * copying a handle; a hand-built handle leaves them 0. Macros: the mask
 * is above INT_MAX.
 */
#define MLX4DV_SQ_RING_GRANT_SHIFT	8
#define MLX4DV_SQ_RING_GRANT_MASK	0xffffff00U

/* Bits of struct mlx4dv_sq_ring.fast_path. */
enum mlx4dv_sq_fast_path {
	/* qp_type is RC, UC or XRC_SEND, max_gather >= 1 and
	 * spare_wqes >= 1: a connected-QP post of one gather entry or one
	 * inline buffer checks nothing but the room (and the inline
	 * length against max_inline). */
	MLX4DV_SQ_FAST_CONNECTED	= 1 << 0,
	/* wrid is not NULL: the one-call writes of a connected QP record
	 * wr_id without testing the table pointer. Clear it (call
	 * mlx4dv_sq_fast_path_update()) before setting wrid to NULL. */
	MLX4DV_SQ_FAST_WRID		= 1 << 1,
};

/*
 * Send queue handle.
 *
 * buf:          first WQEBB of the SQ (mlx4dv_qp.buf.buf + sq.offset).
 * wqe_cnt:      WQEBBs in the ring, a power of two.
 * wqe_shift:    log2 of the stride in bytes (6..11: 64..2048 bytes).
 * head:         producer count in WQEBBs, free-running; the owner bit of
 *               WQEBB n handed to the device is ((n & wqe_cnt) != 0).
 * tail:         consumer count in WQEBBs (advanced by send completions).
 * spare_wqes:   headroom: WQEBBs kept free because the device prefetches up
 *               to 2 KB ahead; (2048 >> wqe_shift) + 1, as libmlx4 computes
 *               it (providers/mlx4/verbs.c, mlx4_calc_sq_wqe_size/qp.c).
 * max_post:     usable WQEBBs = wqe_cnt - spare_wqes.
 * max_inline:   inline bytes one WQE of one stride holds for this QP type,
 *               at most what a 63-ds WQE holds (the posts accept exactly
 *               up to this).
 * max_gather:   data segments one WQE of one stride holds for this QP type,
 *               at most what a 63-ds WQE holds.
 * qpn:          QP number, host order.
 * doorbell_qpn: qpn << 8, big-endian: the value for the send doorbell
 *               (mlx4dv_cq_poll_sq() also matches CQE QPNs against it).
 * doorbell:     UAR + MLX4_SEND_DOORBELL (device memory).
 * bf_reg:       BlueFlame register base, or NULL.
 * bf_buf_size:  bytes of one BlueFlame buffer (half of bf_reg_size).
 * bf_offset:    0 or bf_buf_size: the half to use next.
 * qp_type:      enum ibv_qp_type of the QP.
 * flags:        enum mlx4dv_sq_ring_flags; bits 8..31 the grant ticket
 *               (MLX4DV_SQ_RING_GRANT_MASK).
 * wrid:         optional, wqe_cnt entries indexed by the first WQEBB of a
 *               WQE, for wr_id bookkeeping; NULL when unused.
 * ring_stamped: 1 while every 64-byte chunk but the first of every WQEBB
 *               holds the stamp in its first word and no WQE longer than
 *               64 bytes has been posted: then no WQEBB entering the
 *               prefetch window needs a stamp, and the posts skip the
 *               stamping step (see doorbell.h, "Stamping"). Set by
 *               mlx4dv_sq_ring_init() (libmlx4 stamps the whole ring at
 *               RESET->INIT, qp.c mlx4_qp_init_sq_ownership) and by
 *               mlx4dv_sq_reset_ownership(); cleared by the first post of a
 *               longer WQE. 0 (stamp on every post) is always safe.
 * fast_path:    enum mlx4dv_sq_fast_path: checks made once for the ring
 *               that the posts then skip; 0 is always safe (every check
 *               made on every post). Set by mlx4dv_sq_ring_init(); call
 *               mlx4dv_sq_fast_path_update() after building or changing
 *               qp_type, max_gather, spare_wqes or wrid by hand.
 * single_wqebb: 1 while every WQE posted since the ring was initialised
 *               took one WQEBB: the send completions then move tail one
 *               WQEBB past the completed WQE without reading its ds back
 *               from the ring (as libmlx4, whose WQEs always take one
 *               WQEBB, does in cq.c). Set by mlx4dv_sq_ring_init() and
 *               mlx4dv_sq_reset_ownership(); cleared for good by the first
 *               post of a WQE of several WQEBBs. 0 (read every size from
 *               the ring) is always safe; a program that finishes WQEs of
 *               several WQEBBs without mlx4dv_sq_wqe_finish() clears it.
 */
struct mlx4dv_sq_ring {
	uint8_t			*buf;
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		tail;
	uint32_t		spare_wqes;
	uint32_t		max_post;
	uint32_t		max_inline;
	uint32_t		max_gather;
	uint32_t		qpn;
	__be32			doorbell_qpn;
	uint32_t		qp_type;
	void			*doorbell;
	uint8_t			*bf_reg;
	uint32_t		bf_buf_size;
	uint32_t		bf_offset;
	uint32_t		flags;
	uint64_t		*wrid;
	uint32_t		ring_stamped;
	uint32_t		fast_path;
	uint32_t		single_wqebb;
};

/* __mlx4dv_sq_hot() reads ring_stamped and fast_path as one 8-byte word. */
#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(offsetof(struct mlx4dv_sq_ring, fast_path) ==
	      offsetof(struct mlx4dv_sq_ring, ring_stamped) + 4,
	      "fast_path must follow ring_stamped");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(offsetof(struct mlx4dv_sq_ring, fast_path) ==
	       offsetof(struct mlx4dv_sq_ring, ring_stamped) + 4,
	       "fast_path must follow ring_stamped");
#endif

/*
 * Receive queue handle, for the RQ of a QP and for a receive WQ (RSS).
 *
 * buf:        first WQE of the RQ.
 * wqe_cnt:    WQEs in the ring, a power of two.
 * wqe_shift:  log2 of the WQE size in bytes (16 bytes per scatter entry).
 * head:       producer count (WQEs posted), free-running; the doorbell
 *             record holds its low 16 bits, big-endian.
 * tail:       consumer count (receive completions).
 * max_scatter: scatter entries per WQE = (1 << wqe_shift) / 16.
 * db:         doorbell record (host memory the device reads).
 * wrid:       optional, wqe_cnt entries, for wr_id bookkeeping; or NULL.
 * qpn:        QPN (or WQ number) the CQEs of this ring carry.
 */
struct mlx4dv_rq_ring {
	uint8_t			*buf;
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		tail;
	uint32_t		max_scatter;
	uint32_t		qpn;
	__be32			*db;
	uint64_t		*wrid;
};

/*
 * Shared receive queue handle.
 *
 * buf:         first WQE; each WQE is a 16-byte next segment then scatter
 *              entries.
 * wqe_cnt:     WQEs in the buffer (libmlx4 allocates max_wr + 1, rounded to
 *              a power of two; one stays unused so that head != tail).
 * wqe_shift:   log2 of the WQE size in bytes.
 * head, tail:  indices of the first and last free WQE (the free list runs
 *              through next_wqe_index).
 * counter:     WQEs posted, free-running; its low 16 bits, big-endian, are
 *              the doorbell record.
 * max_scatter: scatter entries per WQE = ((1 << wqe_shift) - 16) / 16.
 * db:          doorbell record.
 * srqn:        SRQ number.
 * wrid:        optional, wqe_cnt entries indexed by WQE index; or NULL.
 */
struct mlx4dv_srq_ring {
	uint8_t			*buf;
	uint32_t		wqe_cnt;
	uint32_t		wqe_shift;
	uint32_t		head;
	uint32_t		tail;
	uint32_t		counter;
	uint32_t		max_scatter;
	uint32_t		srqn;
	__be32			*db;
	uint64_t		*wrid;
};

/*
 * Completion queue handle.
 *
 * buf:        first CQE.
 * cqe_cnt:    CQEs in the ring, a power of two.
 * cqe_size:   32 or 64 bytes; with 64 the valid 32 bytes are the second half.
 * cons_index: consumer index, free-running; CQE i lives at
 *             (i & (cqe_cnt - 1)) and is software-owned when its owner bit
 *             equals ((i & cqe_cnt) != 0).
 * set_ci_db:  consumer-index record: big-endian (cons_index & 0xffffff).
 * arm_db:     arm record.
 * arm_sn:     arm sequence number (2 bits used); +1 per event acknowledged.
 * cqn:        CQ number.
 * uar:        UAR page; the arm doorbell is at uar + MLX4_CQ_DOORBELL.
 */
struct mlx4dv_cq_ring {
	uint8_t			*buf;
	uint32_t		cqe_cnt;
	uint32_t		cqe_size;
	uint32_t		cons_index;
	uint32_t		arm_sn;
	uint32_t		cqn;
	__be32			*set_ci_db;
	__be32			*arm_db;
	uint8_t			*uar;
};

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_HANDLE_H_ */
