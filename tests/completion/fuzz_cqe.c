/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * libFuzzer target: arbitrary bytes as the CQ ring, the ring geometry and
 * counters, and the SRQ free list. Drives the peek/next/batch polls, every
 * decoder, mlx4dv_cqe_to_wc() and mlx4dv_cq_poll_wc() with send, receive
 * and SRQ rings attached. Every buffer is allocated to its exact size so
 * AddressSanitizer reports any index outside a ring; the ring invariants
 * are checked after each call and abort() when broken.
 *
 * Input layout (missing bytes read as zero):
 *  0      cqe_size (bit 0: 64 bytes), log2 cqe_cnt (bits 1..4, 0..15 -> 1..16)
 *  1..4   cons_index           5..8   sq head    9..12  sq tail
 *  13..16 rq head              17..20 rq tail    21     rq/srq/sq log2 sizes
 *  22..23 srq head, srq tail   24..26 QPN of the polled QP
 *  27     flags: rx_flags, which rings are attached, batch size
 *  28..   the CQ buffer, then the SRQ buffer (wrapped around the input)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx4dv.h>
#include "../harness/wc_poll.h"

struct input {
	const uint8_t *data;
	size_t size;
};

static uint8_t byte_at(const struct input *in, size_t i)
{
	return i < in->size ? in->data[i] : 0;
}

static uint32_t u32_at(const struct input *in, size_t i)
{
	return (uint32_t)byte_at(in, i) << 24 | (uint32_t)byte_at(in, i + 1) << 16 |
	       (uint32_t)byte_at(in, i + 2) << 8 | byte_at(in, i + 3);
}

static void fill(uint8_t *dst, size_t len, const struct input *in, size_t from)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = in->size > from ? in->data[from + (i % (in->size - from))] : 0;
}

static void check(int ok)
{
	if (!ok)
		abort();
}

static volatile uint64_t sink;

static void decode_all(const struct mlx4_cqe *cqe, uint32_t rx_flags)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	mlx4dv_cqe_to_wc(cqe, rx_flags, &wc);
	check(wc.qp_num <= 0xffffff);
	check(wc.status <= IBV_WC_GENERAL_ERR);
	sink += mlx4dv_cqe_qpn(cqe) + mlx4dv_cqe_opcode(cqe) + (uint64_t)mlx4dv_cqe_wc_status(cqe) +
		(uint64_t)mlx4dv_cqe_wc_opcode(cqe) + mlx4dv_cqe_wc_flags(cqe, rx_flags) +
		mlx4dv_cqe_byte_len(cqe) + mlx4dv_cqe_invalidated_rkey(cqe) +
		mlx4dv_cqe_rss_hash(cqe) + mlx4dv_cqe_pkey_index(cqe) + mlx4dv_cqe_src_qp(cqe) +
		mlx4dv_cqe_dlid_path_bits(cqe) + (uint64_t)mlx4dv_cqe_has_grh(cqe) +
		mlx4dv_cqe_slid(cqe) + mlx4dv_cqe_sl(cqe, rx_flags & 1) +
		mlx4dv_cqe_vlan_id(cqe) + mlx4dv_cqe_status(cqe) +
		(uint64_t)mlx4dv_cqe_ip_csum_ok(cqe) + (uint64_t)mlx4dv_cqe_is_ipv6(cqe) +
		mlx4dv_cqe_checksum(cqe) + mlx4dv_cqe_timestamp(cqe) +
		mlx4dv_cqe_wqe_index(cqe) + mlx4dv_cqe_vendor_syndrome(cqe) +
		(uint64_t)mlx4dv_cqe_imm_data(cqe);
	check(mlx4dv_cqe_timestamp(cqe) < (1ULL << 48));
	check(mlx4dv_cqe_sl(cqe, 0) < 16 && mlx4dv_cqe_sl(cqe, 1) < 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	uint8_t geo = byte_at(&in, 0);
	uint32_t cqe_size = (geo & 1) ? 64 : 32;
	uint32_t cqe_cnt = 1u << ((geo >> 1) & 15);
	uint8_t sizes = byte_at(&in, 21);
	uint8_t flags = byte_at(&in, 27);
	struct mlx4dv_cq_ring cq;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_srq_ring srq;
	struct mlx4dv_poll_qp qp;
	struct ibv_wc wc[8];
	struct mlx4_cqe copies[8];
	struct ibv_sge sge[2] = { { 0x1000, 64, 0x42 }, { 0x2000, 0, 0x43 } };
	__be32 ci_record, arm_record, rq_db, srq_db;
	uint64_t uar[5];	/* a fake UAR page up to the arm doorbell */
	uint8_t *cq_buf, *rq_buf, *srq_buf, *sq_buf;
	uint64_t *sq_wrid, *rq_wrid, *srq_wrid;
	int round;

	memset(&cq, 0, sizeof(cq));
	memset(&sq, 0, sizeof(sq));
	memset(&rq, 0, sizeof(rq));
	memset(&srq, 0, sizeof(srq));
	memset(&qp, 0, sizeof(qp));

	cq_buf = (uint8_t *)malloc((size_t)cqe_cnt * cqe_size);
	fill(cq_buf, (size_t)cqe_cnt * cqe_size, &in, 28);
	cq.buf = cq_buf;
	cq.cqe_cnt = cqe_cnt;
	cq.cqe_size = cqe_size;
	cq.cons_index = u32_at(&in, 1);
	cq.set_ci_db = &ci_record;
	cq.arm_db = &arm_record;
	cq.uar = (uint8_t *)uar;
	cq.cqn = u32_at(&in, 22);

	sq.wqe_cnt = 1u << (sizes & 3);
	sq.wqe_shift = 6;
	sq.head = u32_at(&in, 5);
	sq.tail = u32_at(&in, 9);
	if (sq.head - sq.tail > sq.wqe_cnt)	/* a consistent ring */
		sq.tail = sq.head - sq.wqe_cnt;
	sq.qpn = u32_at(&in, 24) >> 8;
	sq_wrid = (uint64_t *)calloc(sq.wqe_cnt, sizeof(uint64_t));
	sq.wrid = sq_wrid;
	/* The SQ ring: send completions read the ds of the completed WQE. */
	sq_buf = (uint8_t *)malloc((size_t)sq.wqe_cnt << sq.wqe_shift);
	fill(sq_buf, (size_t)sq.wqe_cnt << sq.wqe_shift, &in, 28 + 7);
	sq.buf = sq_buf;

	rq.wqe_cnt = 1u << ((sizes >> 2) & 3);
	rq.wqe_shift = 5;
	rq.max_scatter = 2;
	rq.head = u32_at(&in, 13);
	rq.tail = u32_at(&in, 17);
	if (rq.head - rq.tail > rq.wqe_cnt)
		rq.tail = rq.head - rq.wqe_cnt;
	rq.qpn = sq.qpn;
	rq.db = &rq_db;
	rq_buf = (uint8_t *)malloc((size_t)rq.wqe_cnt << rq.wqe_shift);
	rq_wrid = (uint64_t *)calloc(rq.wqe_cnt, sizeof(uint64_t));
	rq.buf = rq_buf;
	rq.wrid = rq_wrid;

	srq.wqe_cnt = 1u << ((sizes >> 4) & 3);
	srq.wqe_shift = 5;
	srq.max_scatter = 1;
	srq.head = byte_at(&in, 22) & (srq.wqe_cnt - 1);
	srq.tail = byte_at(&in, 23) & (srq.wqe_cnt - 1);
	srq.db = &srq_db;
	srq_buf = (uint8_t *)malloc((size_t)srq.wqe_cnt << srq.wqe_shift);
	fill(srq_buf, (size_t)srq.wqe_cnt << srq.wqe_shift, &in,
	     28 + (size_t)cqe_cnt * cqe_size);
	srq_wrid = (uint64_t *)calloc(srq.wqe_cnt, sizeof(uint64_t));
	srq.buf = srq_buf;
	srq.wrid = srq_wrid;

	qp.qpn = sq.qpn;
	qp.rx_flags = flags & 3;
	qp.sq = (flags & 4) ? &sq : NULL;
	qp.rq = (flags & 8) ? &rq : NULL;
	qp.srq = (flags & 16) ? &srq : NULL;

	for (round = 0; round < 3; round++) {
		const struct mlx4_cqe *peeked = mlx4dv_cq_peek(&cq);
		uint32_t ci = cq.cons_index;
		int n, i;

		if (peeked) {
			check((const uint8_t *)peeked >= cq_buf &&
			      (const uint8_t *)peeked + 32 <= cq_buf + (size_t)cqe_cnt * cqe_size);
			decode_all(peeked, qp.rx_flags);
		}
		switch ((flags >> 5) & 3) {
		case 0:
			n = mlx4dv_cq_poll_batch(&cq, copies, 1 + round);
			check(n >= 0 && n <= 1 + round);
			check(cq.cons_index == ci + (uint32_t)n);
			for (i = 0; i < n; i++)
				decode_all(&copies[i], qp.rx_flags);
			break;
		default:
			n = wc_poll_count(&cq, &qp, 1, 8, wc);
			check(n >= -ERANGE && n <= 8);
			check(cq.cons_index - ci <= 8);
			for (i = 0; i < n; i++)
				check(wc[i].qp_num <= 0xffffff);
			break;
		}
		/* Ring invariants after whatever the CQEs said. */
		check(sq.head - sq.tail <= sq.wqe_cnt);
		check(rq.head - rq.tail <= rq.wqe_cnt);
		check(srq.head < srq.wqe_cnt && srq.tail < srq.wqe_cnt);
		/* Posting keeps working on whatever state is left. */
		(void)mlx4dv_rq_post(&rq, 1, sge, 1);
		(void)mlx4dv_srq_post(&srq, 2, sge, 1);
		(void)mlx4dv_srq_post(&srq, 3, sge, 2);	/* EINVAL */
		check(rq.head - rq.tail <= rq.wqe_cnt);
		check(srq.head < srq.wqe_cnt);
		mlx4dv_cq_arm(&cq, flags & 128);
		mlx4dv_cq_ack_event(&cq);
	}

	free(cq_buf);
	free(sq_wrid);
	free(sq_buf);
	free(rq_buf);
	free(rq_wrid);
	free(srq_buf);
	free(srq_wrid);
	return 0;
}
