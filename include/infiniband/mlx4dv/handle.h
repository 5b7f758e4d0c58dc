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
 *
 * Sizes: every handle has a fixed size, the same with 4- and 8-byte
 * pointers (struct mlx4dv_sq_ring 192 bytes; _rq_ring, _srq_ring and
 * _cq_ring 128; struct mlx4dv_qp_rings of lib.h 640), its fields at the
 * offsets 0.2 gave them, and a trailing reserved array that later versions
 * take their new fields from, so that a field added later moves nothing.
 * The *_init() functions zero the reserved bytes; a program never reads or
 * writes them (a hand-built handle zeroes them, as memset or "= {0}" do).
 * The handles of 0.2 ended at their last field: a program built against
 * that header reaches libmlx4dv through the functions' MLX4DV_0.1 and
 * MLX4DV_0.2 symbol versions, which write only the fields it knows
 * (docs/migration-0.3.md).
 */

/* x with 4-byte pointers, y with 8-byte ones: the field offsets and the
 * reserved sizes below, which the 0.2 layouts fix per pointer size. */
#define __MLX4DV_BY_POINTER(x, y)	(sizeof(void *) == 8 ? (y) : (x))

/* Pins the layout of a handle where the compiler can check it. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define __MLX4DV_LAYOUT_ASSERT(cond, msg)	static_assert(cond, msg)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define __MLX4DV_LAYOUT_ASSERT(cond, msg)	_Static_assert(cond, msg)
#else
#define __MLX4DV_LAYOUT_ASSERT(cond, msg) \
	extern int __mlx4dv_layout_unchecked
#endif

/* Field f of struct mlx4dv_<s> at offset x (4-byte pointers) or y. */
#define __MLX4DV_FIELD_AT(s, f, x, y) \
	__MLX4DV_LAYOUT_ASSERT(offsetof(struct mlx4dv_##s, f) == \
			       __MLX4DV_BY_POINTER(x, y), \
			       "struct mlx4dv_" #s "." #f " moved")
/* struct mlx4dv_<s> is n bytes with any pointer size. */
#define __MLX4DV_SIZE_IS(s, n) \
	__MLX4DV_LAYOUT_ASSERT(sizeof(struct mlx4dv_##s) == (n), \
			       "struct mlx4dv_" #s " is not " #n " bytes")

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
	/* pdn holds the QP's PD number (0.3, set by mlx4dv_sq_ring_init()
	 * for a UD QP): a program built with MLX4DV_DEBUG asserts that a
	 * UD send's address vector carries the same PD. Clear: unknown,
	 * unchecked (a hand-built handle). */
	MLX4DV_SQ_RING_PDN		= 1 << 3,
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
 * pdn:          (0.3) the QP's PD number, host order, 24 bits, valid
 *               while flags has MLX4DV_SQ_RING_PDN; read only by the
 *               MLX4DV_DEBUG check of the UD sends (an address vector of
 *               another PD, another context's included, is refused by
 *               that check and delivered by a release build).
 * reserved:     192 bytes in all (see "Sizes" above): zeroed by
 *               mlx4dv_sq_ring_init(), never touched by a program.
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
	uint32_t		pdn;
	uint8_t			reserved[192 - __MLX4DV_BY_POINTER(88, 112)];
};

/* The 0.2 layout, pinned; the 0.3 fields start where 0.2's last field
 * ended. */
__MLX4DV_SIZE_IS(sq_ring, 192);
__MLX4DV_FIELD_AT(sq_ring, buf, 0, 0);
__MLX4DV_FIELD_AT(sq_ring, wqe_cnt, 4, 8);
__MLX4DV_FIELD_AT(sq_ring, wqe_shift, 8, 12);
__MLX4DV_FIELD_AT(sq_ring, head, 12, 16);
__MLX4DV_FIELD_AT(sq_ring, tail, 16, 20);
__MLX4DV_FIELD_AT(sq_ring, spare_wqes, 20, 24);
__MLX4DV_FIELD_AT(sq_ring, max_post, 24, 28);
__MLX4DV_FIELD_AT(sq_ring, max_inline, 28, 32);
__MLX4DV_FIELD_AT(sq_ring, max_gather, 32, 36);
__MLX4DV_FIELD_AT(sq_ring, qpn, 36, 40);
__MLX4DV_FIELD_AT(sq_ring, doorbell_qpn, 40, 44);
__MLX4DV_FIELD_AT(sq_ring, qp_type, 44, 48);
__MLX4DV_FIELD_AT(sq_ring, doorbell, 48, 56);
__MLX4DV_FIELD_AT(sq_ring, bf_reg, 52, 64);
__MLX4DV_FIELD_AT(sq_ring, bf_buf_size, 56, 72);
__MLX4DV_FIELD_AT(sq_ring, bf_offset, 60, 76);
__MLX4DV_FIELD_AT(sq_ring, flags, 64, 80);
__MLX4DV_FIELD_AT(sq_ring, wrid, 68, 88);
__MLX4DV_FIELD_AT(sq_ring, ring_stamped, 72, 96);
/* __mlx4dv_sq_hot() reads ring_stamped and fast_path as one 8-byte word. */
__MLX4DV_FIELD_AT(sq_ring, fast_path, 76, 100);
__MLX4DV_FIELD_AT(sq_ring, single_wqebb, 80, 104);
__MLX4DV_FIELD_AT(sq_ring, pdn, 84, 108);
__MLX4DV_FIELD_AT(sq_ring, reserved, 88, 112);

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
 * reserved:   128 bytes in all (see "Sizes" above): zeroed by
 *             mlx4dv_rq_ring_init() and mlx4dv_wq_ring_init(), never
 *             touched by a program.
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
	uint8_t			reserved[128 - __MLX4DV_BY_POINTER(36, 48)];
};

__MLX4DV_SIZE_IS(rq_ring, 128);
__MLX4DV_FIELD_AT(rq_ring, buf, 0, 0);
__MLX4DV_FIELD_AT(rq_ring, wqe_cnt, 4, 8);
__MLX4DV_FIELD_AT(rq_ring, wqe_shift, 8, 12);
__MLX4DV_FIELD_AT(rq_ring, head, 12, 16);
__MLX4DV_FIELD_AT(rq_ring, tail, 16, 20);
__MLX4DV_FIELD_AT(rq_ring, max_scatter, 20, 24);
__MLX4DV_FIELD_AT(rq_ring, qpn, 24, 28);
__MLX4DV_FIELD_AT(rq_ring, db, 28, 32);
__MLX4DV_FIELD_AT(rq_ring, wrid, 32, 40);
__MLX4DV_FIELD_AT(rq_ring, reserved, 36, 48);

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
 * reserved:    128 bytes in all (see "Sizes" above): zeroed by
 *              mlx4dv_srq_ring_init(), never touched by a program.
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
	uint8_t			reserved[128 - __MLX4DV_BY_POINTER(40, 56)];
};

__MLX4DV_SIZE_IS(srq_ring, 128);
__MLX4DV_FIELD_AT(srq_ring, buf, 0, 0);
__MLX4DV_FIELD_AT(srq_ring, wqe_cnt, 4, 8);
__MLX4DV_FIELD_AT(srq_ring, wqe_shift, 8, 12);
__MLX4DV_FIELD_AT(srq_ring, head, 12, 16);
__MLX4DV_FIELD_AT(srq_ring, tail, 16, 20);
__MLX4DV_FIELD_AT(srq_ring, counter, 20, 24);
__MLX4DV_FIELD_AT(srq_ring, max_scatter, 24, 28);
__MLX4DV_FIELD_AT(srq_ring, srqn, 28, 32);
__MLX4DV_FIELD_AT(srq_ring, db, 32, 40);
__MLX4DV_FIELD_AT(srq_ring, wrid, 36, 48);
__MLX4DV_FIELD_AT(srq_ring, reserved, 40, 56);

/* struct mlx4dv_cq_ring.recv_from: MLX4DV_CQ_RECV_RQ in bits 24..31, the
 * QPN in bits 0..23. */
enum mlx4dv_cq_recv_from {
	MLX4DV_CQ_RECV_QPN_MASK		= 0xffffff,
	MLX4DV_CQ_RECV_RQ		= 1 << 24,
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
 * recv_from:  (0.3) MLX4DV_CQ_RECV_RQ | QPN when libmlx4dv knows that
 *             the CQ carries the receive completions of that QP's own
 *             receive queue (not an SRQ); 0 unknown. Set in recv_cq by
 *             mlx4dv_qp_rings_init(); read only by the MLX4DV_DEBUG check
 *             of mlx4dv_cq_poll_srq(), which asserts on a receive CQE of
 *             that QPN (its wqe_index names an RQ WQE, not an SRQ one).
 * reserved:   128 bytes in all (see "Sizes" above): zeroed by
 *             mlx4dv_cq_ring_init(), kept by mlx4dv_cq_ring_resize(),
 *             never touched by a program.
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
	uint32_t		recv_from;
	uint8_t			reserved[128 - __MLX4DV_BY_POINTER(40, 60)];
};

__MLX4DV_SIZE_IS(cq_ring, 128);
__MLX4DV_FIELD_AT(cq_ring, buf, 0, 0);
__MLX4DV_FIELD_AT(cq_ring, cqe_cnt, 4, 8);
__MLX4DV_FIELD_AT(cq_ring, cqe_size, 8, 12);
__MLX4DV_FIELD_AT(cq_ring, cons_index, 12, 16);
__MLX4DV_FIELD_AT(cq_ring, arm_sn, 16, 20);
__MLX4DV_FIELD_AT(cq_ring, cqn, 20, 24);
__MLX4DV_FIELD_AT(cq_ring, set_ci_db, 24, 32);
__MLX4DV_FIELD_AT(cq_ring, arm_db, 28, 40);
__MLX4DV_FIELD_AT(cq_ring, uar, 32, 48);
__MLX4DV_FIELD_AT(cq_ring, recv_from, 36, 56);
__MLX4DV_FIELD_AT(cq_ring, reserved, 40, 60);

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_HANDLE_H_ */
