// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Regression tests of the completion and receive path, each named after a
 * bug the field has hit. Host memory plays the device: CQEs are written as
 * the PRM says a device writes them (host_rings.c), expectations are
 * computed here from the PRM and rdma-core's cq.c rules.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#include "host_rings.h"
#include "../harness/wc_poll.h"
#include "test_exit.h"

#define QPN 0x4a

/* Device pushes n receive CQEs numbered from seq (in byte_cnt); software
 * takes them with mlx4dv_cq_next() and checks order, count and records. */
static void drain_and_check(struct host_cq *c, uint32_t *seq_expect)
{
	struct mlx4_cqe *e;

	while ((e = mlx4dv_cq_next(&c->cq)) != NULL) {
		assert_int_equal(rd_be32(&e->byte_cnt), *seq_expect);
		(*seq_expect)++;
	}
	mlx4dv_cq_update_ci(&c->cq);
	assert_int_equal(c->cq.cons_index, c->pi);
	assert_int_equal(rd_be32(c->cq.set_ci_db), c->pi & 0xffffff);
}

static void run_ci_across(uint32_t start)
{
	struct host_cq c;
	uint32_t seq_push = 0, seq_take = 0, round;

	host_cq_init(&c, 64, 32, start);
	for (round = 0; round < 200; round++) {
		uint32_t burst = 1 + (round * 7) % 64, i;

		for (i = 0; i < burst; i++) {
			struct mlx4_cqe e = cqe_recv(QPN, MLX4_RECV_OPCODE_SEND,
						     seq_push++, 0);

			host_cq_push(&c, &e);
		}
		drain_and_check(&c, &seq_take);
		/* empty now: the next slot holds last lap's CQE */
		assert_null(mlx4dv_cq_peek(&c.cq));
		/* arm record carries the 24-bit consumer index */
		mlx4dv_cq_arm(&c.cq, round & 1);
		assert_int_equal(rd_be32(c.cq.arm_db) & 0xffffff, c.pi & 0xffffff);
		assert_int_equal(rd_be32(c.uar + 0x20 + 4), c.pi & 0xffffff);
		assert_int_equal(rd_be32(c.uar + 0x20) & 0xffffff, c.cq.cqn);
	}
	assert_int_equal(seq_take, seq_push);
	assert_true(c.cq.cons_index - start > 6000);
	host_cq_free(&c);
}

/* The consumer index passes 2^31 (a signed counter overflows there). */
static void test_cq_ci_near_2_31(void **state)
{
	(void)state;
	run_ci_across(0x80000000u - 3000);
}

/* The consumer-index record holds 24 bits: it wraps at 2^24 while the
 * free-running index goes on; also across 2^32. */
static void test_cq_ci_near_2_24(void **state)
{
	(void)state;
	run_ci_across(0x01000000u - 3000);
	run_ci_across(0u - 3000);
}

/* 64-byte CQEs: the valid 32 bytes are the second half; the first half
 * (made to look like a good software-owned CQE) is never read. */
static void test_64byte_cqe(void **state)
{
	struct host_cq c;
	struct mlx4dv_rq_ring rq;
	uint8_t rqbuf[16 * 64];
	uint64_t wrid[16];
	__be32 rqdb;
	struct mlx4dv_poll_qp pq;
	struct ibv_sge sg = { 0x1000, 256, 7 };
	uint32_t i, n;

	(void)state;
	host_cq_init(&c, 16, 64, 0);
	for (i = 0; i < 16; i++)
		memset(c.mem + 64 * i, 0x7f, 32);
	assert_null(mlx4dv_cq_peek(&c.cq));

	memset(&rq, 0, sizeof(rq));
	rq.buf = rqbuf;
	rq.wqe_cnt = 16;
	rq.wqe_shift = 6;
	rq.max_scatter = 4;
	rq.qpn = QPN;
	rq.db = &rqdb;
	rq.wrid = wrid;
	memset(&pq, 0, sizeof(pq));
	pq.qpn = QPN;
	pq.rq = &rq;
	for (n = 0; n < 100; n++) {
		struct ibv_wc wc;
		struct mlx4_cqe e = cqe_recv(QPN, MLX4_RECV_OPCODE_SEND, 100 + n, 0);

		assert_int_equal(mlx4dv_rq_post(&rq, 5000 + n, &sg, 1), 0);
		host_cq_push(&c, &e);
		memset(&wc, 0, sizeof(wc));
		assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 4, &wc), 1);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.byte_len, 100 + n);
		assert_int_equal(wc.wr_id, 5000 + n);
		assert_int_equal(wc.qp_num, QPN);
		assert_int_equal(wc.opcode, IBV_WC_RECV);
		assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 4, &wc), 0);
	}
	host_cq_free(&c);
}

/* Syndrome -> ibv_wc_status, as rdma-core cq.c mlx4_handle_error_cqe maps
 * them (syndrome values from the PRM). */
static const struct {
	uint8_t syndrome;
	enum ibv_wc_status status;
} syndromes[] = {
	{ 0x01, IBV_WC_LOC_LEN_ERR },
	{ 0x02, IBV_WC_LOC_QP_OP_ERR },
	{ 0x04, IBV_WC_LOC_PROT_ERR },
	{ 0x05, IBV_WC_WR_FLUSH_ERR },
	{ 0x06, IBV_WC_MW_BIND_ERR },
	{ 0x10, IBV_WC_BAD_RESP_ERR },
	{ 0x11, IBV_WC_LOC_ACCESS_ERR },
	{ 0x12, IBV_WC_REM_INV_REQ_ERR },
	{ 0x13, IBV_WC_REM_ACCESS_ERR },
	{ 0x14, IBV_WC_REM_OP_ERR },
	{ 0x15, IBV_WC_RETRY_EXC_ERR },
	{ 0x16, IBV_WC_RNR_RETRY_EXC_ERR },
	{ 0x22, IBV_WC_REM_ABORT_ERR },
	{ 0x00, IBV_WC_GENERAL_ERR },
	{ 0x33, IBV_WC_GENERAL_ERR },
	{ 0xff, IBV_WC_GENERAL_ERR },
};

/* An error CQE is reported with its syndrome's status, the wr_id of the
 * WQE it names and the vendor syndrome, never as a success; the WQEs after
 * it come back flushed, each with its own wr_id. Send and receive side. */
static void test_error_cqe_not_treated_as_good(void **state)
{
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(syndromes) / sizeof(syndromes[0]); k++) {
		struct host_sq h;
		struct host_cq c;
		struct mlx4dv_rq_ring rq;
		uint8_t rqbuf[8 * 32];
		uint64_t rwrid[8];
		__be32 rqdb;
		struct mlx4dv_poll_qp pq;
		struct ibv_sge sg = { 0x2000, 64, 9 };
		uint32_t first = 0, i;
		struct ibv_wc wc;
		struct mlx4_cqe e;

		host_sq_init(&h, 64, 6, IBV_QPT_RC, 0xfffe);
		host_cq_init(&c, 32, 32, 0);
		memset(&rq, 0, sizeof(rq));
		rq.buf = rqbuf;
		rq.wqe_cnt = 8;
		rq.wqe_shift = 5;
		rq.max_scatter = 2;
		rq.qpn = h.sq.qpn;
		rq.db = &rqdb;
		rq.wrid = rwrid;
		memset(&pq, 0, sizeof(pq));
		pq.qpn = h.sq.qpn;
		pq.sq = &h.sq;
		pq.rq = &rq;
		/* four sends, all signaled, wr_id 10..13 */
		for (i = 0; i < 4; i++) {
			uint32_t head = h.sq.head;

			if (i == 1)
				first = head;
			assert_int_equal(mlx4dv_sq_write_send(&h.sq, 10 + i, &sg, 1,
							     IBV_SEND_SIGNALED), 0);
			(void)head;
		}
		for (i = 0; i < 3; i++)
			assert_int_equal(mlx4dv_rq_post(&rq, 20 + i, &sg, 1), 0);
		/* WQE 0 good; WQE 1 fails with the syndrome; 2 and 3 flushed */
		e = cqe_send(h.sq.qpn, MLX4_OPCODE_SEND, (uint16_t)(first - 1));
		host_cq_push(&c, &e);
		e = cqe_error(h.sq.qpn, 1, syndromes[k].syndrome, 0x5a, (uint16_t)first);
		host_cq_push(&c, &e);
		for (i = 2; i < 4; i++) {
			e = cqe_error(h.sq.qpn, 1, 0x05, 0, (uint16_t)(first - 1 + i));
			host_cq_push(&c, &e);
		}
		/* receive side: one error, then flushes */
		e = cqe_error(h.sq.qpn, 0, syndromes[k].syndrome, 0x33, 0);
		host_cq_push(&c, &e);
		for (i = 0; i < 2; i++) {
			e = cqe_error(h.sq.qpn, 0, 0x05, 0, 0);
			host_cq_push(&c, &e);
		}

		memset(&wc, 0xee, sizeof(wc));
		assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 1, &wc), 1);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, 10);

		memset(&wc, 0xee, sizeof(wc));
		assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 1, &wc), 1);
		assert_int_not_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.status, syndromes[k].status);
		assert_int_equal(wc.wr_id, 11);
		assert_int_equal(wc.vendor_err, 0x5a);
		assert_int_equal(wc.qp_num, h.sq.qpn);
		assert_int_equal(wc.byte_len, 0xeeeeeeeeu); /* not from the CQE */
		for (i = 2; i < 4; i++) {
			assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 1, &wc), 1);
			assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);
			assert_int_equal(wc.wr_id, 10 + i);
		}
		assert_int_equal(h.sq.tail - (first - 1), 4);
		for (i = 0; i < 3; i++) {
			assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 1, &wc), 1);
			assert_int_equal(wc.status, i ? IBV_WC_WR_FLUSH_ERR :
					 syndromes[k].status);
			assert_int_equal(wc.wr_id, 20 + i);
		}
		assert_int_equal(rq.tail, rq.head);
		assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 1, &wc), 0);
		/* the raw accessors agree */
		assert_true(mlx4dv_cqe_is_error((struct mlx4_cqe *)&e));
		assert_int_equal(mlx4dv_cqe_wc_status(&e), IBV_WC_WR_FLUSH_ERR);
		host_cq_free(&c);
		host_sq_free(&h);
	}
}

/* The SRQ holds wqe_cnt - 1 receives: the next post gets ENOMEM and writes
 * nothing; a completion frees exactly one; over many random cycles no WQE
 * is ever handed out twice and every wr_id comes back once. */
static void test_srq_full(void **state)
{
	struct host_srq s;
	struct ibv_sge sg = { 0x3000, 128, 11 };
	uint8_t *snap;
	uint32_t out_idx[16], nout = 0, i, cycle;
	uint64_t next_id = 1;
	struct ibv_recv_wr w2[2];
	const struct ibv_recv_wr *bad = NULL;
	uint8_t busy[16];

	(void)state;
	host_srq_init(&s, 16, 6);
	memset(busy, 0, sizeof(busy));
	for (i = 0; i < 15; i++) {
		uint32_t idx = s.srq.head;

		assert_int_equal(mlx4dv_srq_post(&s.srq, next_id++, &sg, 1), 0);
		assert_false(busy[idx]);
		busy[idx] = 1;
		out_idx[nout++] = idx;
	}
	snap = malloc(16 << 6);
	assert_non_null(snap);
	memcpy(snap, s.mem, 16 << 6);
	assert_int_equal(mlx4dv_srq_post(&s.srq, 99, &sg, 1), ENOMEM);
	assert_memory_equal(snap, s.mem, 16 << 6);
	assert_int_equal(s.srq.counter, 15);
	assert_int_equal(rd_be32(&s.db), 15);

	for (cycle = 0; cycle < 20000; cycle++) {
		if (nout && (nout == 15 || (cycle * 2654435761u) % 5 < 2)) {
			/* device completes a random outstanding WQE */
			uint32_t pick = (cycle * 40503u) % nout;
			uint32_t idx = out_idx[pick];
			struct mlx4_cqe e = cqe_recv(QPN, MLX4_RECV_OPCODE_SEND, 1,
						     (uint16_t)idx);
			uint64_t id = 0;

			assert_int_equal(mlx4dv_srq_complete(&s.srq, &e, &id), 0);
			assert_int_equal(id, s.wrid[idx]);
			busy[idx] = 0;
			out_idx[pick] = out_idx[--nout];
		} else {
			uint32_t idx = s.srq.head;
			int err = mlx4dv_srq_post(&s.srq, next_id, &sg, 1);

			if (nout == 15) {
				assert_int_equal(err, ENOMEM);
				continue;
			}
			assert_int_equal(err, 0);
			assert_false(busy[idx]);
			busy[idx] = 1;
			assert_int_equal(s.wrid[idx], next_id);
			next_id++;
			out_idx[nout++] = idx;
		}
	}
	/* bring it to one free WQE, then a list of two: nothing posted */
	while (nout > 14) {
		struct mlx4_cqe e = cqe_recv(QPN, MLX4_RECV_OPCODE_SEND, 1,
					     (uint16_t)out_idx[--nout]);

		assert_int_equal(mlx4dv_srq_complete(&s.srq, &e, NULL), 0);
	}
	while (nout < 14) {
		out_idx[nout++] = s.srq.head;
		assert_int_equal(mlx4dv_srq_post(&s.srq, next_id++, &sg, 1), 0);
	}
	memset(w2, 0, sizeof(w2));
	w2[0].next = &w2[1];
	w2[0].sg_list = w2[1].sg_list = &sg;
	w2[0].num_sge = w2[1].num_sge = 1;
	memcpy(snap, s.mem, 16 << 6);
	i = s.srq.counter;
	assert_int_equal(mlx4dv_srq_post_list(&s.srq, w2, &bad), ENOMEM);
	assert_ptr_equal(bad, &w2[1]);
	assert_memory_equal(snap, s.mem, 16 << 6);
	assert_int_equal(s.srq.counter, i);
	assert_int_equal(rd_be32(&s.db), i & 0xffff);
	free(snap);
	host_srq_free(&s);
}

/* An RQ takes wqe_cnt receives, not one more; a completion frees one. */
static void test_rq_full(void **state)
{
	struct mlx4dv_rq_ring rq;
	uint8_t buf[8 * 32], snap[8 * 32];
	uint64_t wrid[8];
	__be32 db = 0;
	struct ibv_sge sg = { 0x1000, 16, 3 };
	uint32_t i;
	uint64_t id;
	struct mlx4_cqe e = cqe_recv(QPN, MLX4_RECV_OPCODE_SEND, 16, 0);

	(void)state;
	memset(&rq, 0, sizeof(rq));
	rq.buf = buf;
	rq.wqe_cnt = 8;
	rq.wqe_shift = 5;
	rq.max_scatter = 2;
	rq.qpn = QPN;
	rq.db = &db;
	rq.wrid = wrid;
	rq.head = rq.tail = 0xfffc; /* the record wraps at 16 bits too */
	for (i = 0; i < 8; i++)
		assert_int_equal(mlx4dv_rq_post(&rq, i, &sg, 1), 0);
	memcpy(snap, buf, sizeof(buf));
	assert_int_equal(mlx4dv_rq_post(&rq, 8, &sg, 1), ENOMEM);
	assert_memory_equal(snap, buf, sizeof(buf));
	assert_int_equal(rd_be32(&db), (0xfffcu + 8) & 0xffff);
	assert_int_equal(mlx4dv_rq_complete(&rq, &e, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(mlx4dv_rq_post(&rq, 8, &sg, 1), 0);
	for (i = 1; i <= 8; i++) {
		assert_int_equal(mlx4dv_rq_complete(&rq, &e, &id), 0);
		assert_int_equal(id, i);
	}
	assert_int_equal(mlx4dv_rq_complete(&rq, &e, &id), ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cq_ci_near_2_31),
		cmocka_unit_test(test_cq_ci_near_2_24),
		cmocka_unit_test(test_64byte_cqe),
		cmocka_unit_test(test_error_cqe_not_treated_as_good),
		cmocka_unit_test(test_srq_full),
		cmocka_unit_test(test_rq_full),
	};

	t_run_group_tests_name("reliability_completion", tests, NULL, NULL);
	return t_exit();
}
