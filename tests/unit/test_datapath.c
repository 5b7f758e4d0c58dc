// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Handles from libmlx4dv driven by the header's own data path: receive
 * posts, one-call SEND posts handed over by doorbell and by BlueFlame
 * through the handle's private register, completions polled and
 * accounted through the CQ, SQ and RQ handles, wr_ids returned from the
 * wrid tables the unit allocated.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

enum { MSG = 48, ROUNDS = 40, SPIN_LIMIT = 20000000 };

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

static void send_rounds(uint32_t flags)
{
	struct unit_dev *d = unit_dev_open();
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct mlx4dv_qp_rings a, b;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	uint8_t *mem;
	int used_bf = 0;

	assert_non_null(d);
	mem = calloc(1, 2 * MSG);
	assert_non_null(mem);
	mr = ibv_reg_mr(d->pd, mem, 2 * MSG, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	cq_a = ibv_create_cq(d->ctx, 15, NULL, NULL, 0);
	cq_b = ibv_create_cq(d->ctx, 15, NULL, NULL, 0);
	assert_non_null(cq_a);
	assert_non_null(cq_b);
	qa = unit_qp_create(d, IBV_QPT_RC, cq_a, cq_a, NULL, &cap);
	qb = unit_qp_create(d, IBV_QPT_RC, cq_b, cq_b, NULL, &cap);
	assert_non_null(qa);
	assert_non_null(qb);
	assert_int_equal(mlx4dv_qp_rings_init(&a, qa, flags), 0);
	assert_int_equal(mlx4dv_qp_rings_init(&b, qb, flags), 0);
	assert_int_equal(unit_qp_connect(d, qa, qb->qp_num), 0);
	assert_int_equal(unit_qp_connect(d, qb, qa->qp_num), 0);

	/* More rounds than either ring has slots: the counters wrap. */
	for (int r = 0; r < ROUNDS; r++) {
		struct ibv_sge src = { (uintptr_t)mem, MSG, mr->lkey };
		struct ibv_sge dst = { (uintptr_t)(mem + MSG), MSG, mr->lkey };
		uint32_t count = a.sq.head;
		struct mlx4_cqe *cqe;
		uint64_t wr_id = 0;

		for (int i = 0; i < MSG; i++)
			mem[i] = (uint8_t)(r * 31 + i);
		memset(mem + MSG, 0, MSG);
		assert_int_equal(mlx4dv_rq_post(&b.rq, 0x1000 + (uint64_t)r, &dst, 1), 0);
		assert_int_equal(mlx4dv_sq_write_send(&a.sq, 0x2000 + (uint64_t)r, &src, 1, IBV_SEND_SIGNALED), 0);
		used_bf += mlx4dv_sq_ring_bf(&a.sq, count);

		cqe = wait_next(&a.send_cq);
		assert_non_null(cqe);
		assert_false(mlx4dv_cqe_is_error(cqe));
		assert_true(mlx4dv_cqe_is_send(cqe));
		assert_int_equal(mlx4dv_cqe_qpn(cqe), qa->qp_num);
		assert_true(mlx4dv_sq_complete(&a.sq, mlx4dv_cqe_wqe_index(cqe), &wr_id) >= 1);
		assert_int_equal(wr_id, 0x2000 + (uint64_t)r);
		assert_int_equal(a.sq.tail, a.sq.head);
		mlx4dv_cq_update_ci(&a.send_cq);

		cqe = wait_next(&b.recv_cq);
		assert_non_null(cqe);
		assert_false(mlx4dv_cqe_is_error(cqe));
		assert_int_equal(mlx4dv_cqe_byte_len(cqe), MSG);
		assert_int_equal(mlx4dv_rq_complete(&b.rq, cqe, &wr_id), 0);
		assert_int_equal(wr_id, 0x1000 + (uint64_t)r);
		mlx4dv_cq_update_ci(&b.recv_cq);
		assert_memory_equal(mem, mem + MSG, MSG);
	}
	if (a.sq.flags & MLX4DV_SQ_RING_BLUEFLAME)
		assert_int_equal(used_bf, ROUNDS);
	else
		assert_int_equal(used_bf, 0);

	mlx4dv_qp_rings_release(&a);
	mlx4dv_qp_rings_release(&b);
	assert_int_equal(ibv_destroy_qp(qa), 0);
	assert_int_equal(ibv_destroy_qp(qb), 0);
	assert_int_equal(ibv_destroy_cq(cq_a), 0);
	assert_int_equal(ibv_destroy_cq(cq_b), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	free(mem);
	unit_dev_close(d);
}

static void doorbell_posts(void **state)
{
	(void)state;
	send_rounds(MLX4DV_RING_INIT_WRID);
}

static void blueflame_posts(void **state)
{
	(void)state;
	send_rounds(MLX4DV_RING_INIT_WRID | MLX4DV_RING_INIT_BLUEFLAME);
}

/* Receives through an SRQ handle: more rounds than the SRQ has WQEs, so
 * the free list is walked all the way round. */
static void srq_receives(void **state)
{
	struct unit_dev *d = unit_dev_open();
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_send_sge = 1 };
	struct ibv_srq_init_attr sa;
	struct mlx4dv_qp_rings a, b;
	struct mlx4dv_srq_ring srq_ring;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_srq *srq;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	uint8_t *mem;

	(void)state;
	assert_non_null(d);
	mem = calloc(1, 2 * MSG);
	assert_non_null(mem);
	mr = ibv_reg_mr(d->pd, mem, 2 * MSG, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	cq_a = ibv_create_cq(d->ctx, 15, NULL, NULL, 0);
	cq_b = ibv_create_cq(d->ctx, 15, NULL, NULL, 0);
	assert_non_null(cq_a);
	assert_non_null(cq_b);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 6;	/* 8 WQEs, 7 usable */
	sa.attr.max_sge = 1;
	srq = ibv_create_srq(d->pd, &sa);
	assert_non_null(srq);
	cap.max_recv_wr = 8;
	cap.max_recv_sge = 1;
	qa = unit_qp_create(d, IBV_QPT_RC, cq_a, cq_a, NULL, &cap);
	qb = unit_qp_create(d, IBV_QPT_RC, cq_b, cq_b, srq, &cap);
	assert_non_null(qa);
	assert_non_null(qb);
	assert_int_equal(mlx4dv_qp_rings_init(&a, qa, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_qp_rings_init(&b, qb, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(b.flags, MLX4DV_QP_RINGS_RQ_ON_SRQ | MLX4DV_QP_RINGS_SHARED_CQ);
	assert_int_equal(mlx4dv_srq_ring_init(&srq_ring, srq, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(srq_ring.wqe_cnt, 8);
	assert_int_equal(unit_qp_connect(d, qa, qb->qp_num), 0);
	assert_int_equal(unit_qp_connect(d, qb, qa->qp_num), 0);

	for (int r = 0; r < 3 * 8; r++) {
		struct ibv_sge src = { (uintptr_t)mem, MSG, mr->lkey };
		struct ibv_sge dst = { (uintptr_t)(mem + MSG), MSG, mr->lkey };
		struct mlx4_cqe *cqe;
		uint64_t wr_id = 0;

		for (int i = 0; i < MSG; i++)
			mem[i] = (uint8_t)(r * 13 + i);
		memset(mem + MSG, 0, MSG);
		assert_int_equal(mlx4dv_srq_post(&srq_ring, 0x3000 + (uint64_t)r, &dst, 1), 0);
		assert_int_equal(mlx4dv_sq_write_send(&a.sq, 0, &src, 1, IBV_SEND_SIGNALED), 0);
		mlx4dv_sq_ring_doorbell(&a.sq);

		cqe = wait_next(&a.send_cq);
		assert_non_null(cqe);
		assert_false(mlx4dv_cqe_is_error(cqe));
		assert_true(mlx4dv_sq_complete(&a.sq, mlx4dv_cqe_wqe_index(cqe), NULL) >= 1);
		mlx4dv_cq_update_ci(&a.send_cq);

		cqe = wait_next(&b.recv_cq);
		assert_non_null(cqe);
		assert_false(mlx4dv_cqe_is_error(cqe));
		assert_int_equal(mlx4dv_cqe_qpn(cqe), qb->qp_num);
		assert_int_equal(mlx4dv_srq_complete(&srq_ring, cqe, &wr_id), 0);
		assert_int_equal(wr_id, 0x3000 + (uint64_t)r);
		mlx4dv_cq_update_ci(&b.recv_cq);
		assert_memory_equal(mem, mem + MSG, MSG);
	}

	mlx4dv_srq_ring_release(&srq_ring);
	mlx4dv_qp_rings_release(&a);
	mlx4dv_qp_rings_release(&b);
	assert_int_equal(ibv_destroy_qp(qa), 0);
	assert_int_equal(ibv_destroy_qp(qb), 0);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_int_equal(ibv_destroy_cq(cq_a), 0);
	assert_int_equal(ibv_destroy_cq(cq_b), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	free(mem);
	unit_dev_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doorbell_posts),
		cmocka_unit_test(blueflame_posts),
		cmocka_unit_test(srq_receives),
	};

	t_run_group_tests_name("unit_datapath", tests, NULL, NULL);
	return t_exit();
}
