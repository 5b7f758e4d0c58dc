// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Where libmlx4 puts the queues, worked out by hand from its rules
 * (rdma-core 44.0 providers/mlx4), against the handles libmlx4dv builds:
 *  - a QP buffer holds the queue with the larger stride first (qp.c
 *    mlx4_alloc_qp_buf: the RQ at 0 only when its stride is larger), so
 *    the SQ of a QP with wide receive WQEs starts past the RQ;
 *  - an SRQ has roundup_pow_of_two(max_wr + 1) WQEs (verbs.c
 *    mlx4_create_srq), one of which always stays free.
 * Each layout is then driven end to end through the handles on the
 * software device: a handle with the wrong offset writes WQEs where the
 * device does not look, and no completion comes.
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

enum { MSG = 40, ROUNDS = 12, SPIN_LIMIT = 20000000 };

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t r = 1;

	while (r < v)
		r <<= 1;
	return r;
}

/* log2 of libmlx4's RQ stride: 16 bytes per scatter entry, at least 16. */
static uint32_t rq_shift_by_hand(uint32_t max_recv_sge)
{
	uint32_t shift = 4;

	while ((1u << shift) < max_recv_sge * 16)
		shift++;
	return shift;
}

struct layout_case {
	uint32_t max_send_wr, max_recv_wr, max_recv_sge;
	/* hand-worked: RC with one gather entry has a 64-byte SQ stride */
	int sq_first;
};

static const struct layout_case cases[] = {
	/* RQ stride 128 > 64: RQ at 0, SQ at 8 * 128 */
	{ 8, 8, 8, 0 },
	/* RQ stride 256, 16 WQEs: SQ at 4096 */
	{ 4, 16, 16, 0 },
	/* RQ stride 16 < 64: SQ at 0, RQ after its 64 WQEBBs */
	{ 8, 8, 1, 1 },
	/* equal strides (64): not larger, so the SQ comes first */
	{ 8, 4, 4, 1 },
};

static struct mlx4_cqe *wait_next(struct mlx4dv_cq_ring *cq)
{
	for (long n = 0; n < SPIN_LIMIT; n++) {
		struct mlx4_cqe *cqe = mlx4dv_cq_next(cq);

		if (cqe)
			return cqe;
		sched_yield();
	}
	return NULL;
}

/* Offsets and counts of both queues against the hand-worked layout. */
static void check_layout(struct ibv_qp *qp, const struct layout_case *c,
			 const struct mlx4dv_qp_rings *r)
{
	uint32_t rq_shift = rq_shift_by_hand(c->max_recv_sge);
	uint32_t rq_cnt = pow2_at_least(c->max_recv_wr);
	/* SQ: 64-byte WQEBBs, max_send_wr plus 2048 / 64 + 1 of headroom */
	uint32_t sq_cnt = pow2_at_least(c->max_send_wr + 33);
	struct mlx4dv_qp raw;
	uint8_t *base;

	assert_int_equal(unit_raw_qp(qp, &raw), 0);
	base = raw.buf.buf;
	assert_int_equal(r->sq.wqe_shift, 6);
	assert_int_equal(r->sq.wqe_cnt, sq_cnt);
	assert_int_equal(r->rq.wqe_shift, rq_shift);
	assert_int_equal(r->rq.wqe_cnt, rq_cnt);
	if (c->sq_first) {
		assert_ptr_equal(r->sq.buf, base);
		assert_ptr_equal(r->rq.buf, base + ((size_t)sq_cnt << 6));
	} else {
		assert_ptr_equal(r->rq.buf, base);
		assert_ptr_equal(r->sq.buf, base + ((size_t)rq_cnt << rq_shift));
	}
}

static void run_case(struct unit_dev *d, const struct layout_case *c)
{
	struct ibv_qp_cap cap = { .max_send_wr = c->max_send_wr,
				  .max_recv_wr = c->max_recv_wr,
				  .max_send_sge = 1,
				  .max_recv_sge = c->max_recv_sge };
	struct mlx4dv_qp_rings a, b;
	struct ibv_cq *cq[4];
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	uint8_t *mem = calloc(1, 2 * MSG);

	assert_non_null(mem);
	mr = ibv_reg_mr(d->pd, mem, 2 * MSG, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	/* A CQ per queue: the two handles of a shared CQ would each keep
	 * their own consumer index. */
	for (int i = 0; i < 4; i++) {
		cq[i] = ibv_create_cq(d->ctx, 31, NULL, NULL, 0);
		assert_non_null(cq[i]);
	}
	qa = unit_qp_create(d, IBV_QPT_RC, cq[0], cq[1], NULL, &cap);
	qb = unit_qp_create(d, IBV_QPT_RC, cq[2], cq[3], NULL, &cap);
	assert_non_null(qa);
	assert_non_null(qb);
	assert_int_equal(mlx4dv_qp_rings_init(&a, qa, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_qp_rings_init(&b, qb, MLX4DV_RING_INIT_WRID), 0);
	check_layout(qa, c, &a);
	check_layout(qb, c, &b);
	assert_int_equal(unit_qp_connect(d, qa, qb->qp_num), 0);
	assert_int_equal(unit_qp_connect(d, qb, qa->qp_num), 0);

	/* Both directions, past every ring's end. */
	for (int r = 0; r < ROUNDS; r++) {
		struct mlx4dv_qp_rings *tx = (r & 1) ? &b : &a;
		struct mlx4dv_qp_rings *rx = (r & 1) ? &a : &b;
		struct ibv_sge src = { (uintptr_t)mem, MSG, mr->lkey };
		struct ibv_sge dst = { (uintptr_t)(mem + MSG), MSG, mr->lkey };
		struct mlx4_cqe *cqe;
		uint64_t wr_id = 0;

		for (int i = 0; i < MSG; i++)
			mem[i] = (uint8_t)(r * 7 + i);
		memset(mem + MSG, 0, MSG);
		assert_int_equal(mlx4dv_rq_post(&rx->rq, 100 + (uint64_t)r, &dst, 1), 0);
		assert_int_equal(mlx4dv_sq_write_send(&tx->sq, 200 + (uint64_t)r, &src, 1,
						     IBV_SEND_SIGNALED), 0);
		mlx4dv_sq_ring_doorbell(&tx->sq);

		cqe = wait_next(&tx->send_cq);
		assert_non_null(cqe);
		assert_false(mlx4dv_cqe_is_error(cqe));
		assert_int_equal(mlx4dv_sq_complete_cqe(&tx->sq, cqe, &wr_id), 0);
		assert_int_equal(wr_id, 200 + (uint64_t)r);
		mlx4dv_cq_update_ci(&tx->send_cq);
		cqe = wait_next(&rx->recv_cq);
		assert_non_null(cqe);
		assert_false(mlx4dv_cqe_is_error(cqe));
		assert_int_equal(mlx4dv_rq_complete(&rx->rq, cqe, &wr_id), 0);
		assert_int_equal(wr_id, 100 + (uint64_t)r);
		mlx4dv_cq_update_ci(&rx->recv_cq);
		assert_memory_equal(mem, mem + MSG, MSG);
	}

	mlx4dv_qp_rings_release(&a);
	mlx4dv_qp_rings_release(&b);
	assert_int_equal(ibv_destroy_qp(qa), 0);
	assert_int_equal(ibv_destroy_qp(qb), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ibv_destroy_cq(cq[i]), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	free(mem);
}

static void queue_order_in_the_qp_buffer(void **state)
{
	struct unit_dev *d = unit_dev_open();

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fprintf(stderr, "  case %zu: recv sge %u wr %u\n", i,
			cases[i].max_recv_sge, cases[i].max_recv_wr);
		run_case(d, &cases[i]);
	}
	unit_dev_close(d);
}

/* roundup_pow_of_two(max_wr + 1) WQEs; wqe_cnt - 1 receives fit. */
static void srq_wqe_count_is_libmlx4s(void **state)
{
	static const uint32_t max_wrs[] = { 1, 15, 16, 100 };
	struct unit_dev *d = unit_dev_open();
	struct ibv_sge sge = { 0x1000, 64, 1 };

	(void)state;
	assert_non_null(d);
	for (size_t i = 0; i < sizeof(max_wrs) / sizeof(max_wrs[0]); i++) {
		struct ibv_srq_init_attr attr = {
			.attr = { .max_wr = max_wrs[i], .max_sge = 1 } };
		struct mlx4dv_srq_ring srq;
		struct ibv_srq *ibsrq = ibv_create_srq(d->pd, &attr);
		uint32_t expect = pow2_at_least(max_wrs[i] + 1);

		assert_non_null(ibsrq);
		assert_int_equal(mlx4dv_srq_ring_init(&srq, ibsrq, 0), 0);
		assert_int_equal(srq.wqe_cnt, expect);
		assert_int_equal(srq.head, 0);
		assert_int_equal(srq.tail, expect - 1);
		for (uint32_t n = 0; n < expect - 1; n++)
			assert_int_equal(mlx4dv_srq_write(&srq, n, &sge, 1), 0);
		assert_int_equal(mlx4dv_srq_write(&srq, 0, &sge, 1), ENOMEM);
		mlx4dv_srq_ring_release(&srq);
		assert_int_equal(ibv_destroy_srq(ibsrq), 0);
	}
	unit_dev_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(queue_order_in_the_qp_buffer),
		cmocka_unit_test(srq_wqe_count_is_libmlx4s),
	};

	t_run_group_tests_name("unit_geometry", tests, NULL, NULL);
	return t_exit();
}
