/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/poll.h> - send completions and polls (mlx4dv_cq_poll_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_POLL_H_
#define _MLX4DV_POLL_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/poll.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/send.h>
#include <infiniband/mlx4dv/srq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 5.7 Send completions and ibv_wc-style polling ---------------------- */

/*
 * mlx4dv_sq_complete_cqe - account for a send CQE (good or error/flush) of
 * this SQ: checks that the CQE is a send completion of qpn, then moves
 * tail to its wqe_index, the 16-bit WQE counter (first WQEBB) of the last
 * WQE it completes (a 16-bit difference from tail, so right across the
 * wrap of wqe_index while fewer than 65536 WQEBBs are outstanding; libmlx4
 * cq.c mlx4_parse_cqe: wq->tail += (uint16_t)(wqe_index - wq->tail)). WQEs posted before it
 * without a completion request complete with it; tail passes the named
 * WQE by its size in WQEBBs, read from its ds in the ring (so sq->buf and
 * wqe_shift must describe the ring). *wr_id (when not NULL) gets the
 * wr_id recorded for that WQE, or 0 without a wrid table.
 * (rdma-core cq.c mlx4_parse_cqe; mlx4_ib cq.c mlx4_ib_poll_one.)
 * Errors: EINVAL when the CQE is a receive or its QPN is not qpn; ERANGE
 * when wqe_index does not name an outstanding WQE (tail .. head - 1, with
 * a ds that fits). The ring is unchanged on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_sq_complete_cqe(struct mlx4dv_sq_ring *sq, const struct mlx4_cqe *cqe,
		       uint64_t *wr_id)
{
	__MLX4DV_CHECK(sq && cqe, "mlx4dv_sq_complete_cqe",
		       "sq and cqe must not be NULL");
	uint64_t id = 0;

	if (!mlx4dv_cqe_is_send(cqe) || mlx4dv_cqe_qpn(cqe) != sq->qpn)
		return EINVAL;
	if (!__mlx4dv_sq_complete_sized(sq, mlx4dv_cqe_wqe_index(cqe), &id,
					sq->single_wqebb & 1))
		return ERANGE;
	if (wr_id)
		*wr_id = id;
	return 0;
}

/*
 * 1 when the CQE's QPN is the SQ's, compared in the byte order both carry
 * it in: the CQE word vlan_my_qpn is big-endian (QPN in its low 24 bits),
 * so its bytes 1..3 are the QPN's; doorbell_qpn is qpn << 8 big-endian,
 * bytes 0..2 the QPN's, byte 3 zero. Read as host words on a
 * little-endian CPU the first, shifted right by 8, is the second: no
 * byte swap, no mask. The portable form is the host-order compare of
 * mlx4dv_cqe_qpn() with qpn, which doorbell_qpn must agree with
 * (asserted under MLX4DV_DEBUG).
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_cqe_is_of_doorbell_qpn(const struct mlx4_cqe *cqe,
				const struct mlx4dv_sq_ring *sq)
{
	MLX4DV_ASSERT(sq->doorbell_qpn == mlx4dv_cpu_to_be32(sq->qpn << 8));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ((uint32_t)cqe->vlan_my_qpn >> 8) == (uint32_t)sq->doorbell_qpn;
#else
	return mlx4dv_cqe_qpn(cqe) == sq->qpn;
#endif
}

/*
 * mlx4dv_cq_poll_sq - take the next completion of a CQ that carries
 * the send completions of one SQ: the lean form of mlx4dv_cq_next() +
 * mlx4dv_cqe_is_error() + mlx4dv_sq_complete_cqe() for the common case.
 *
 * wr_id:   out, may be NULL: the wr_id recorded for the completed WQE
 *          (0 when sq->wrid is NULL).
 * cqe:     out, may be NULL: the CQE taken, for the fields this call does
 *          not decode (mlx4dv_cqe_wqe_index(), mlx4dv_cqe_timestamp(),
 *          ...); valid until the next mlx4dv_cq_update_ci(). The same
 *          outputs, in the same order, as mlx4dv_cq_poll_rq() without its
 *          byte count.
 * The outputs are written only when 0 is returned.
 * Returns 0 when a good send CQE of sq->qpn was taken: cq->cons_index
 * advanced by one and sq->tail moved past the WQE it names (as
 * mlx4dv_sq_complete_cqe()). The consumer-index record is NOT written: call
 * mlx4dv_cq_update_ci() after one or more takes (before the CQ can fill).
 * Returns EAGAIN when software does not own the next CQE (CQ empty).
 * Returns another errno and consumes nothing, changes nothing, when the
 * next CQE is software-owned but not a good completion of this SQ:
 *  EIO      an error CQE (flushes included). Take it with
 *           mlx4dv_cq_next(), read mlx4dv_cqe_syndrome() and account it
 *           with mlx4dv_sq_complete_cqe().
 *  EINVAL   a receive CQE, a send CQE of another QPN (compared with
 *           sq->doorbell_qpn, which must be qpn << 8 big-endian, as
 *           mlx4dv_sq_ring_init() sets it), or opcode 0x1f (no CQE
 *           opcode).
 *  ERANGE   its wqe_index names no outstanding WQE (a stale or foreign
 *           CQE; see mlx4dv_sq_complete_cqe()).
 * Ordering: the owner test comes first, then mlx4dv_barrier_from_device(),
 * then the other CQE fields are read. The opcode and send bits share the
 * owner's byte and are taken from the same one-byte load (a byte is
 * written by the device in one piece).
 * (rdma-core cq.c get_sw_cqe, mlx4_parse_cqe; PRM CQE owner_sr_opcode.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cq_poll_sq(struct mlx4dv_cq_ring *cq, struct mlx4dv_sq_ring *sq,
		  uint64_t *wr_id, const struct mlx4_cqe **cqe_out)
{
	__MLX4DV_CHECK(cq && sq, "mlx4dv_cq_poll_sq",
		       "cq and sq must not be NULL");
	uint32_t ci = cq->cons_index;
	size_t size = cq->cqe_size;
	const uint8_t *slot = cq->buf + (size_t)(ci & (cq->cqe_cnt - 1)) * size;
	/* The last byte, sign-extended: bit 31 (and 7..30) is the owner bit,
	 * bits 0..6 are the send bit and the opcode. */
	int32_t last = (int8_t)__atomic_load_n(slot + size - 1, __ATOMIC_RELAXED);
	const struct mlx4_cqe *cqe;
	uint32_t tail, start, kind;
	uint64_t id = 0;

	/* The owner test of mlx4dv_cq_peek() on the loaded byte. */
	if (((uint32_t)(last >> 7) ^ ci) & cq->cqe_cnt)
		return EAGAIN;
	mlx4dv_barrier_from_device();
	cqe = (const struct mlx4_cqe *)(slot + size - sizeof(struct mlx4_cqe));
	/* One range test for "a send CQE with an opcode below the error
	 * opcode": subtracting the send bit clears it in a send CQE and
	 * borrows into it in a receive, so after the mask a send is its
	 * opcode (an error 0x1e; 0x1f is not a CQE opcode) and a receive is
	 * 0x40 or more. The rare cases are told apart afterwards, from the
	 * CQE in memory, so that the loaded byte has no third use that
	 * would keep a copy of it in a register. */
	kind = ((uint32_t)last - MLX4_CQE_IS_SEND_MASK) &
	       (MLX4_CQE_IS_SEND_MASK | MLX4_CQE_OPCODE_MASK);
	if (__MLX4DV_UNLIKELY(kind >= MLX4_CQE_OPCODE_ERROR))
		return mlx4dv_cqe_opcode(cqe) == MLX4_CQE_OPCODE_ERROR ?
		       EIO : EINVAL;
	if (!__mlx4dv_cqe_is_of_doorbell_qpn(cqe, sq))
		return EINVAL;
	/* __mlx4dv_sq_complete_sized() with its one-WQEBB branch written out. start
	 * is the named WQEBB, tail + 0..65535. It is outstanding when
	 * start - head is negative as a signed 32-bit number: the same test
	 * as start - tail < head - tail, because head - tail <= wqe_cnt
	 * (far below 2^31) and start - tail < 2^16. */
	if (__MLX4DV_LIKELY(sq->single_wqebb & 1)) {
		tail = sq->tail;
		start = tail + (uint16_t)(mlx4dv_be16_to_cpu(cqe->wqe_index) -
					  (uint16_t)tail);
		if ((int32_t)(start - sq->head) >= 0)
			return ERANGE;
		if (sq->wrid)
			id = sq->wrid[start & (sq->wqe_cnt - 1)];
		sq->tail = start + 1;
	} else {
		__MLX4DV_RARE_PATH();
		if (!__mlx4dv_sq_complete_sized(sq, mlx4dv_cqe_wqe_index(cqe),
						&id, 0))
			return ERANGE;
	}
	cq->cons_index = ci + 1;
	if (wr_id)
		*wr_id = id;
	if (cqe_out)
		*cqe_out = cqe;
	return 0;
}

/* How __mlx4dv_cq_poll_sq_burst_run() fills wr_ids: a constant at each
 * call, so that the loop carries no per-CQE test of it. */
enum __mlx4dv_burst_ids {
	__MLX4DV_BURST_IDS_NONE,	/* wr_ids NULL */
	__MLX4DV_BURST_IDS_ZERO,	/* no wrid table: zeros */
	__MLX4DV_BURST_IDS_TABLE,	/* from sq->wrid */
};

/* The single-WQEBB loop of mlx4dv_cq_poll_sq_burst(). */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_cq_poll_sq_burst_run(struct mlx4dv_cq_ring *cq,
			      struct mlx4dv_sq_ring *sq, uint32_t max,
			      uint64_t *wr_ids, uint32_t *taken,
			      enum __mlx4dv_burst_ids ids)
{
	const uint8_t *buf = cq->buf;
	const size_t size = cq->cqe_size;
	const uint32_t cqe_cnt = cq->cqe_cnt;
	const uint32_t head = sq->head;
	const uint32_t wqe_mask = sq->wqe_cnt - 1;
	const uint64_t *wrid = sq->wrid;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint32_t doorbell_qpn = (uint32_t)sq->doorbell_qpn;
#else
	const uint32_t qpn = sq->qpn;
#endif
	uint32_t ci = cq->cons_index;
	uint32_t tail = sq->tail;
	uint32_t n = 0;
	int err = 0;

	while (n < max) {
		const uint8_t *slot = buf + (size_t)(ci & (cqe_cnt - 1)) * size;
		int32_t last = (int8_t)__atomic_load_n(slot + size - 1,
						       __ATOMIC_RELAXED);
		const struct mlx4_cqe *cqe;
		uint32_t kind, start;
		int of_sq;

		if (((uint32_t)(last >> 7) ^ ci) & cqe_cnt) {
			err = EAGAIN;
			break;
		}
		mlx4dv_barrier_from_device();
		cqe = (const struct mlx4_cqe *)(slot + size - sizeof(struct mlx4_cqe));
		/* The range test of mlx4dv_cq_poll_sq(). */
		kind = ((uint32_t)last - MLX4_CQE_IS_SEND_MASK) &
		       (MLX4_CQE_IS_SEND_MASK | MLX4_CQE_OPCODE_MASK);
		if (__MLX4DV_UNLIKELY(kind >= MLX4_CQE_OPCODE_ERROR)) {
			err = mlx4dv_cqe_opcode(cqe) == MLX4_CQE_OPCODE_ERROR ?
			      EIO : EINVAL;
			break;
		}
		/* __mlx4dv_cqe_is_of_doorbell_qpn() on the word loaded once. */
		MLX4DV_ASSERT(sq->doorbell_qpn ==
			      mlx4dv_cpu_to_be32(sq->qpn << 8));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		of_sq = ((uint32_t)cqe->vlan_my_qpn >> 8) == doorbell_qpn;
#else
		of_sq = mlx4dv_cqe_qpn(cqe) == qpn;
#endif
		if (!of_sq) {
			err = EINVAL;
			break;
		}
		start = tail + (uint16_t)(mlx4dv_be16_to_cpu(cqe->wqe_index) -
					  (uint16_t)tail);
		if ((int32_t)(start - head) >= 0) {
			err = ERANGE;
			break;
		}
		if (ids == __MLX4DV_BURST_IDS_TABLE)
			wr_ids[n] = wrid[start & wqe_mask];
		else if (ids == __MLX4DV_BURST_IDS_ZERO)
			wr_ids[n] = 0;
		tail = start + 1;
		ci++;
		n++;
	}
	sq->tail = tail;
	cq->cons_index = ci;
	*taken = n;
	return err;
}

/*
 * mlx4dv_cq_poll_sq_burst - take up to max send completions of one SQ in
 * one call (0.3 addition): mlx4dv_cq_poll_sq() repeated, with the CQ's
 * and the SQ's fields read once per call instead of once per CQE.
 *
 * max:     the most CQEs to take, 0 or more.
 * wr_ids:  out, may be NULL: array of max entries (host order, 8 bytes
 *          each); wr_ids[i] is the wr_id recorded for the WQE the i-th
 *          CQE taken names (0 when sq->wrid is NULL). Entries from
 *          *taken on are not written.
 * taken:   out, never NULL: how many CQEs were taken (0..max), always
 *          written.
 * Each CQE taken has the effect of a mlx4dv_cq_poll_sq() that returned
 * 0: cq->cons_index advanced by *taken, sq->tail past the last WQE
 * named. The consumer-index record is NOT written: call
 * mlx4dv_cq_update_ci() after the call when *taken > 0.
 * Returns 0 when max CQEs were taken. Otherwise the call stopped at the
 * next CQE and returns what mlx4dv_cq_poll_sq() returns for it, having
 * consumed nothing of it: EAGAIN (device-owned: the CQ is empty), EIO (an
 * error CQE), EINVAL (a receive CQE, a send CQE of another QPN, opcode
 * 0x1f) or ERANGE (a wqe_index naming no outstanding WQE). *taken CQEs
 * before it are taken in every case.
 * Ordering: per CQE as mlx4dv_cq_poll_sq(): owner test, then
 * mlx4dv_barrier_from_device(), then the other fields. The handles must
 * not change under the call (the one-thread rule of the handles), which
 * is what lets it keep their fields in registers across the barriers.
 * An SQ whose WQEs may span several WQEBBs (sq->single_wqebb clear) is
 * polled by mlx4dv_cq_poll_sq() one CQE at a time, with the same results.
 * (rdma-core cq.c get_sw_cqe, mlx4_parse_cqe; PRM CQE owner_sr_opcode.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cq_poll_sq_burst(struct mlx4dv_cq_ring *cq, struct mlx4dv_sq_ring *sq,
			uint32_t max, uint64_t *wr_ids, uint32_t *taken)
{
	__MLX4DV_CHECK(cq && sq && taken, "mlx4dv_cq_poll_sq_burst",
		       "cq, sq and taken must not be NULL");
	uint32_t n = 0;
	int err = 0;

	if (__MLX4DV_UNLIKELY(!(sq->single_wqebb & 1))) {
		__MLX4DV_RARE_PATH();
		while (n < max && !(err = mlx4dv_cq_poll_sq(cq, sq,
				wr_ids ? &wr_ids[n] : NULL, NULL)))
			n++;
		*taken = n;
		return n == max ? 0 : err;
	}
	if (!wr_ids)
		return __mlx4dv_cq_poll_sq_burst_run(cq, sq, max, wr_ids, taken,
						     __MLX4DV_BURST_IDS_NONE);
	if (!sq->wrid)
		return __mlx4dv_cq_poll_sq_burst_run(cq, sq, max, wr_ids, taken,
						     __MLX4DV_BURST_IDS_ZERO);
	return __mlx4dv_cq_poll_sq_burst_run(cq, sq, max, wr_ids, taken,
					     __MLX4DV_BURST_IDS_TABLE);
}

/*
 * mlx4dv_cq_poll_send - the 0.2 form of mlx4dv_cq_poll_sq(), without the
 * CQE output (deprecated in 0.3, docs/migration-0.3.md): the same
 * results.
 */
static MLX4DV_ALWAYS_INLINE __MLX4DV_DEPRECATED("mlx4dv_cq_poll_sq()") int
mlx4dv_cq_poll_send(struct mlx4dv_cq_ring *cq, struct mlx4dv_sq_ring *sq,
		    uint64_t *wr_id)
{
	return mlx4dv_cq_poll_sq(cq, sq, wr_id, NULL);
}

/*
 * The software-owned CQE at cq->cons_index and the last byte it was
 * judged by (owner bit sign-extended over bits 7..31, send bit and opcode
 * in bits 0..6), or NULL when the device owns it. After a non-NULL
 * return mlx4dv_barrier_from_device() has been issued, so the other
 * fields may be read. The common head of the mlx4dv_cq_poll_* takes.
 */
static MLX4DV_ALWAYS_INLINE const struct mlx4_cqe *
__mlx4dv_cq_poll_head(const struct mlx4dv_cq_ring *cq, int32_t *last_out)
{
	const struct mlx4_cqe *cqe;
	uint32_t ci = cq->cons_index;
	size_t size = cq->cqe_size;
	const uint8_t *slot = cq->buf + (size_t)(ci & (cq->cqe_cnt - 1)) * size;
	int32_t last = (int8_t)__atomic_load_n(slot + size - 1, __ATOMIC_RELAXED);

	if (((uint32_t)(last >> 7) ^ ci) & cq->cqe_cnt)
		return NULL;
	mlx4dv_barrier_from_device();
	*last_out = last;
	cqe = (const struct mlx4_cqe *)(slot + size - sizeof(struct mlx4_cqe));
	__MLX4DV_ASSUME(cqe != NULL);
	return cqe;
}

/*
 * 0 when the last byte of a CQE (as __mlx4dv_cq_poll_head() gives it) is a
 * good receive completion: the send bit clear and a receive opcode
 * (RDMA_WRITE_IMM, SEND, SEND_IMM, SEND_INVAL: 0..3), one compare;
 * else the errno of the mlx4dv_cq_poll_rq*() takes.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_cq_recv_kind(int32_t last)
{
	uint32_t op = (uint32_t)last & (MLX4_CQE_IS_SEND_MASK | MLX4_CQE_OPCODE_MASK);

	if (__MLX4DV_LIKELY(op <= MLX4_RECV_OPCODE_SEND_INVAL))
		return 0;
	return op == MLX4_CQE_OPCODE_ERROR ? EIO : EINVAL;
}

/*
 * mlx4dv_cq_poll_rq - take the next completion of a CQ that carries the
 * receive completions of one RQ (the RQ of a QP, or a receive WQ of an
 * RSS QP): the receive twin of mlx4dv_cq_poll_sq(), the lean form of
 * mlx4dv_cq_next() + mlx4dv_cqe_is_error() + mlx4dv_rq_complete() +
 * mlx4dv_cqe_byte_len() for the common case.
 *
 * wr_id:    out, may be NULL: the wr_id posted with the WQE (0 when
 *           rq->wrid is NULL).
 * byte_len: out, may be NULL: bytes received, host order (a UD receive
 *           counts the 40-byte GRH room too, as ibv_wc.byte_len does).
 * cqe:      out, may be NULL: the CQE taken, for the fields this call does
 *           not decode (mlx4dv_cqe_opcode(), mlx4dv_cqe_imm_data(),
 *           mlx4dv_cqe_wc_flags(), mlx4dv_cqe_src_qp(), ...); valid until
 *           the next mlx4dv_cq_update_ci().
 * The outputs are written only when 0 is returned.
 *
 * Returns 0 when a good receive CQE of rq->qpn was taken: cq->cons_index
 * and rq->tail advanced by one (RQ completions come in posting order).
 * The consumer-index record is NOT written: call mlx4dv_cq_update_ci()
 * after one or more takes. Returns EAGAIN when the CQ is empty. Returns
 * another errno and consumes nothing, changes nothing, when the next
 * CQE is software-owned but not a good receive of this RQ:
 *  EIO      an error CQE (flushes included): take it with
 *           mlx4dv_cq_next() and account it with mlx4dv_rq_complete()
 *           (or mlx4dv_sq_complete_cqe() for a send's);
 *  EINVAL   a send CQE, a CQE of another QPN, an opcode no receive has;
 *  ERANGE   no WQE of the RQ is outstanding (head == tail).
 * Ordering as mlx4dv_cq_poll_sq(): owner test, then
 * mlx4dv_barrier_from_device(), then the other fields.
 * (rdma-core cq.c get_sw_cqe, mlx4_parse_cqe.)
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cq_poll_rq(struct mlx4dv_cq_ring *cq, struct mlx4dv_rq_ring *rq,
		  uint64_t *wr_id, uint32_t *byte_len,
		  const struct mlx4_cqe **cqe_out)
{
	__MLX4DV_CHECK(cq && rq, "mlx4dv_cq_poll_rq",
		       "cq and rq must not be NULL");
	int32_t last = 0;
	const struct mlx4_cqe *cqe = __mlx4dv_cq_poll_head(cq, &last);
	uint32_t tail;
	int err;

	if (!cqe)
		return EAGAIN;
	err = __mlx4dv_cq_recv_kind(last);
	if (__MLX4DV_UNLIKELY(err))
		return err;
	if (mlx4dv_cqe_qpn(cqe) != rq->qpn)
		return EINVAL;
	tail = rq->tail;
	if (__MLX4DV_UNLIKELY(tail == rq->head))
		return ERANGE;
	if (wr_id)
		*wr_id = rq->wrid ? rq->wrid[tail & (rq->wqe_cnt - 1)] : 0;
	if (byte_len)
		*byte_len = mlx4dv_be32_to_cpu(cqe->byte_cnt);
	if (cqe_out)
		*cqe_out = cqe;
	rq->tail = tail + 1;
	cq->cons_index++;
	return 0;
}

/*
 * mlx4dv_cq_poll_recv - the 0.2 name of mlx4dv_cq_poll_rq()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
static MLX4DV_ALWAYS_INLINE __MLX4DV_DEPRECATED("mlx4dv_cq_poll_rq()") int
mlx4dv_cq_poll_recv(struct mlx4dv_cq_ring *cq, struct mlx4dv_rq_ring *rq,
		    uint64_t *wr_id, uint32_t *byte_len,
		    const struct mlx4_cqe **cqe_out)
{
	return mlx4dv_cq_poll_rq(cq, rq, wr_id, byte_len, cqe_out);
}

/*
 * mlx4dv_cq_poll_srq - mlx4dv_cq_poll_rq() for a CQ whose receive
 * completions come from QPs that receive from one SRQ (XRC SRQs
 * included): the CQE's wqe_index names the SRQ WQE, whose wr_id is
 * returned and which goes back to the free list (mlx4dv_srq_free_wqe()).
 * The QPN is the receiving QP's and is not checked: the CQ must carry
 * only receives of QPs on this SRQ (and sends, which are refused). A
 * program built with MLX4DV_DEBUG asserts when the CQE is of the QP whose
 * own RQ cq->recv_from names (mlx4dv_qp_rings_init() sets it).
 * Returns 0, EAGAIN, or EIO / EINVAL (a send CQE, an opcode no receive
 * has, a wqe_index that is the SRQ's tail) / ERANGE (wqe_index >=
 * wqe_cnt) with nothing consumed, as mlx4dv_cq_poll_rq(). Same outputs.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cq_poll_srq(struct mlx4dv_cq_ring *cq, struct mlx4dv_srq_ring *srq,
		   uint64_t *wr_id, uint32_t *byte_len,
		   const struct mlx4_cqe **cqe_out)
{
	__MLX4DV_CHECK(cq && srq, "mlx4dv_cq_poll_srq",
		       "cq and srq must not be NULL");
	int32_t last = 0;
	const struct mlx4_cqe *cqe = __mlx4dv_cq_poll_head(cq, &last);
	uint32_t index;
	int err;

	if (!cqe)
		return EAGAIN;
	err = __mlx4dv_cq_recv_kind(last);
	if (__MLX4DV_UNLIKELY(err))
		return err;
	/* A receive of a QP with its own RQ names an RQ WQE: taken here it
	 * would free the SRQ WQE of that number, posted or not. */
	__MLX4DV_CHECK((cq->recv_from & ~(uint32_t)MLX4DV_CQ_RECV_QPN_MASK) !=
		       MLX4DV_CQ_RECV_RQ ||
		       (cq->recv_from & MLX4DV_CQ_RECV_QPN_MASK) !=
		       mlx4dv_cqe_qpn(cqe),
		       "mlx4dv_cq_poll_srq",
		       "the CQE is of a QP with its own RQ (cq->recv_from): "
		       "take it with mlx4dv_cq_poll_rq()");
	index = mlx4dv_cqe_wqe_index(cqe);
	err = mlx4dv_srq_free_wqe(srq, index);
	if (__MLX4DV_UNLIKELY(err))
		return err;
	if (wr_id)
		*wr_id = srq->wrid ? srq->wrid[index] : 0;
	if (byte_len)
		*byte_len = mlx4dv_be32_to_cpu(cqe->byte_cnt);
	if (cqe_out)
		*cqe_out = cqe;
	cq->cons_index++;
	return 0;
}

/*
 * mlx4dv_cq_poll_srq_recv - the 0.2 name of mlx4dv_cq_poll_srq()
 * (deprecated in 0.3, docs/migration-0.3.md): the same arguments and
 * results.
 */
static MLX4DV_ALWAYS_INLINE __MLX4DV_DEPRECATED("mlx4dv_cq_poll_srq()") int
mlx4dv_cq_poll_srq_recv(struct mlx4dv_cq_ring *cq, struct mlx4dv_srq_ring *srq,
			uint64_t *wr_id, uint32_t *byte_len,
			const struct mlx4_cqe **cqe_out)
{
	return mlx4dv_cq_poll_srq(cq, srq, wr_id, byte_len, cqe_out);
}

/*
 * One QP (or receive WQ, or XRC SRQ) whose completions a CQ carries, for
 * mlx4dv_cq_poll_wc().
 *
 * qpn:      the number the CQEs carry: QPN, WQ number, or for an XRC SRQ
 *           its SRQ number (XRC receive CQEs are matched by SRQ number,
 *           as libmlx4 does).
 * rx_flags: enum mlx4dv_cqe_rx_flags of the QP.
 * sq:       its send queue, or NULL.
 * rq:       its receive queue, or NULL.
 * srq:      the SRQ its receives use, or NULL (then rq is used).
 */
struct mlx4dv_poll_qp {
	uint32_t		qpn;
	uint32_t		rx_flags;
	struct mlx4dv_sq_ring	*sq;
	struct mlx4dv_rq_ring	*rq;
	struct mlx4dv_srq_ring	*srq;
};

/*
 * mlx4dv_cqe_complete_wc - apply one CQE to the rings of its QP and fill
 * *wc as libmlx4's ibv_poll_cq would (mlx4dv_cqe_to_wc() plus wr_id).
 * qps: nqps entries, searched for the CQE's QPN (for an XRC receive: its
 * SRQ number).
 * Errors: EINVAL when no entry matches, or the entry lacks the queue the
 * CQE completes on, or the ring refuses it; ERANGE when its index is out
 * of range (see the *_complete functions). Nothing changes on error.
 */
static MLX4DV_ALWAYS_INLINE int
mlx4dv_cqe_complete_wc(const struct mlx4_cqe *cqe,
		       const struct mlx4dv_poll_qp *qps, uint32_t nqps,
		       struct ibv_wc *wc)
{
	const struct mlx4dv_poll_qp *e = NULL;
	uint32_t key = mlx4dv_cqe_qpn(cqe);
	int send = mlx4dv_cqe_is_send(cqe);
	uint32_t i;
	int err;

	if (!send && (key & MLX4DV_CQE_XRC_QPN_BIT))
		key = mlx4dv_cqe_src_qp(cqe);
	for (i = 0; i < nqps; i++) {
		if (qps[i].qpn == key) {
			e = &qps[i];
			break;
		}
	}
	if (!e)
		return EINVAL;
	if (send)
		err = e->sq ? mlx4dv_sq_complete_cqe(e->sq, cqe, &wc->wr_id) : EINVAL;
	else if (e->srq)
		err = mlx4dv_srq_complete(e->srq, cqe, &wc->wr_id);
	else
		err = e->rq ? mlx4dv_rq_complete(e->rq, cqe, &wc->wr_id) : EINVAL;
	if (err)
		return err;
	mlx4dv_cqe_to_wc(cqe, e->rx_flags, wc);
	return 0;
}

/*
 * The ibv_wc fields of a good send CQE by its opcode, as mlx4dv_cqe_to_wc()
 * writes them: bits 0..7 the ibv_wc_opcode (mlx4dv_cqe_wc_opcode()), bits
 * 8..15 wc_flags (mlx4dv_cqe_wc_flags()), bit 16 "byte_len is the CQE's
 * byte count" (RDMA READ), bit 17 "byte_len is 8" (the atomics). Made
 * from the same rules at compile time, one entry per 5-bit opcode.
 */
#define __MLX4DV_SEND_WC_BYTES		(1u << 16)
#define __MLX4DV_SEND_WC_BYTES_8	(1u << 17)
#define __MLX4DV_SEND_WC(op) \
	((uint32_t)((op) == MLX4_OPCODE_RDMA_WRITE || \
		    (op) == MLX4_OPCODE_RDMA_WRITE_IMM ? IBV_WC_RDMA_WRITE : \
		    (op) == MLX4_OPCODE_RDMA_READ ? IBV_WC_RDMA_READ : \
		    (op) == MLX4_OPCODE_ATOMIC_CS ? IBV_WC_COMP_SWAP : \
		    (op) == MLX4_OPCODE_ATOMIC_FA ? IBV_WC_FETCH_ADD : \
		    (op) == MLX4_OPCODE_LOCAL_INVAL ? IBV_WC_LOCAL_INV : \
		    (op) == MLX4_OPCODE_BIND_MW ? IBV_WC_BIND_MW : IBV_WC_SEND) | \
	 ((op) == MLX4_OPCODE_RDMA_WRITE_IMM || (op) == MLX4_OPCODE_SEND_IMM ? \
	  (uint32_t)IBV_WC_WITH_IMM << 8 : 0u) | \
	 ((op) == MLX4_OPCODE_RDMA_READ ? __MLX4DV_SEND_WC_BYTES : \
	  (op) == MLX4_OPCODE_ATOMIC_CS || (op) == MLX4_OPCODE_ATOMIC_FA ? \
	  __MLX4DV_SEND_WC_BYTES | __MLX4DV_SEND_WC_BYTES_8 : 0u))
#define __MLX4DV_SEND_WC4(op) \
	__MLX4DV_SEND_WC(op), __MLX4DV_SEND_WC((op) + 1), \
	__MLX4DV_SEND_WC((op) + 2), __MLX4DV_SEND_WC((op) + 3)

static MLX4DV_ALWAYS_INLINE uint32_t
__mlx4dv_send_wc_fields(uint32_t op)
{
	static const uint32_t fields[32] = {
		__MLX4DV_SEND_WC4(0), __MLX4DV_SEND_WC4(4),
		__MLX4DV_SEND_WC4(8), __MLX4DV_SEND_WC4(12),
		__MLX4DV_SEND_WC4(16), __MLX4DV_SEND_WC4(20),
		__MLX4DV_SEND_WC4(24), __MLX4DV_SEND_WC4(28),
	};

	return fields[op & MLX4_CQE_OPCODE_MASK];
}

/*
 * mlx4dv_cqe_complete_wc() for a good send CQE (opcode op, below the error
 * opcode) of an SQ whose WQEs take one WQEBB each: the accounting of
 * mlx4dv_cq_poll_sq() and the ibv_wc fields from one table. 1 when the
 * CQE was applied and *wc filled, exactly as mlx4dv_cqe_complete_wc()
 * would have; 0, with nothing changed, when the CQE needs that general
 * path (no entry or no SQ for its QPN, another qpn in the SQ handle,
 * WQEs of several WQEBBs, a wqe_index naming no outstanding WQE), which
 * then gives the same result it always gave.
 */
static MLX4DV_ALWAYS_INLINE int
__mlx4dv_cqe_complete_wc_send(const struct mlx4_cqe *cqe, uint32_t op,
			      const struct mlx4dv_poll_qp *qps, uint32_t nqps,
			      struct ibv_wc *wc)
{
	uint32_t key = mlx4dv_cqe_qpn(cqe);
	struct mlx4dv_sq_ring *sq = NULL;
	uint32_t i, tail, start, fields;

	for (i = 0; i < nqps; i++) {
		if (qps[i].qpn == key) {
			sq = qps[i].sq;
			break;
		}
	}
	if (!sq || sq->qpn != key || !(sq->single_wqebb & 1))
		return 0;
	/* The one-WQEBB accounting of mlx4dv_cq_poll_sq(). */
	tail = sq->tail;
	start = tail + (uint16_t)(mlx4dv_be16_to_cpu(cqe->wqe_index) -
				  (uint16_t)tail);
	if ((int32_t)(start - sq->head) >= 0)
		return 0;
	wc->wr_id = sq->wrid ? sq->wrid[start & (sq->wqe_cnt - 1)] : 0;
	sq->tail = start + 1;
	fields = __mlx4dv_send_wc_fields(op);
	wc->qp_num = key;
	wc->status = IBV_WC_SUCCESS;
	wc->opcode = (enum ibv_wc_opcode)(fields & 0xff);
	wc->wc_flags = (fields >> 8) & 0xff;
	if (__MLX4DV_UNLIKELY(fields & __MLX4DV_SEND_WC_BYTES))
		wc->byte_len = (fields & __MLX4DV_SEND_WC_BYTES_8) ? 8 :
			       mlx4dv_cqe_byte_len(cqe);
	return 1;
}

/* mlx4dv_cqe_complete_wc() out of line, for the CQEs
 * __mlx4dv_cqe_complete_wc_send() leaves to it (receives, errors, WQEs of
 * several WQEBBs, refusals): inlined, its body made mlx4dv_cq_poll_wc()
 * too large for GCC to inline, and every poll paid a call. A receive
 * taken here pays the call instead (mlx4dv_cq_poll_rq() and
 * mlx4dv_cq_poll_srq() are the receive polls that inline). */
static inline __MLX4DV_COLD int
__mlx4dv_cqe_complete_wc_cold(const struct mlx4_cqe *cqe,
			      const struct mlx4dv_poll_qp *qps, uint32_t nqps,
			      struct ibv_wc *wc)
{
	return mlx4dv_cqe_complete_wc(cqe, qps, nqps, wc);
}

/*
 * mlx4dv_cq_poll_wc - ibv_poll_cq() on a CQ handle: up to ne completions
 * into wc[0 .. ne-1], wr_id from the rings' wrid tables, ring tails
 * advanced, SRQ WQEs released, and the consumer-index record written once
 * behind mlx4dv_barrier_release_to_device().
 *
 * polled: out, the number of completions written to wc (0 unless 0 is
 *         returned).
 * Returns 0 when at least one completion was taken; EAGAIN when the CQ is
 * empty (or ne is 0); or the errno of mlx4dv_cqe_complete_wc() when the
 * FIRST pending CQE cannot be applied: that CQE is then consumed so that
 * polling goes on (mlx4dv_cq_peek() shows it beforehand). A bad CQE after
 * good ones ends the batch; the next call reports it. (libmlx4 drops the
 * whole batch there.)
 */
static inline int
mlx4dv_cq_poll_wc(struct mlx4dv_cq_ring *cq, const struct mlx4dv_poll_qp *qps,
		  uint32_t nqps, uint32_t ne, struct ibv_wc *wc,
		  uint32_t *polled)
{
	__MLX4DV_CHECK(cq && polled &&
		       (qps || !nqps) && (wc || !ne), "mlx4dv_cq_poll_wc",
		       "cq and polled (and qps and wc, for counts above 0) "
		       "must not be NULL");
	uint32_t n = 0;
	int err = 0;

	while (n < ne) {
		int32_t last = 0;
		const struct mlx4_cqe *cqe = __mlx4dv_cq_poll_head(cq, &last);
		/* The range test of mlx4dv_cq_poll_sq(): below the error
		 * opcode for a good send CQE only, and then its opcode. */
		uint32_t kind = ((uint32_t)last - MLX4_CQE_IS_SEND_MASK) &
				(MLX4_CQE_IS_SEND_MASK | MLX4_CQE_OPCODE_MASK);

		if (!cqe)
			break;
		if (kind >= MLX4_CQE_OPCODE_ERROR ||
		    !__mlx4dv_cqe_complete_wc_send(cqe, kind, qps, nqps, &wc[n])) {
			err = __mlx4dv_cqe_complete_wc_cold(cqe, qps, nqps,
							    &wc[n]);
			if (err) {
				if (n == 0)
					cq->cons_index++;
				break;
			}
		}
		cq->cons_index++;
		n++;
	}
	if (n || err)
		mlx4dv_cq_update_ci(cq);
	*polled = n;
	if (n)
		return 0;
	return err ? err : EAGAIN;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_POLL_H_ */
