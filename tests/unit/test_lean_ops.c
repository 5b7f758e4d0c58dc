// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The lean operations on the software device. One-call takes: SENDs and
 * SEND_WITH_IMMs between RC QPs, received on an RQ through
 * mlx4dv_cq_poll_recv() and on an SRQ through mlx4dv_cq_poll_srq_recv(),
 * sends completed with mlx4dv_cq_poll_send(); wr_id, byte count, opcode
 * and immediate of every receive, and the payload, as sent. Template
 * batches: an unsignalled batch whose last WQE alone asks for a
 * completion (mlx4dv_sq_batch_write_flags()) completes as one.
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

enum { ROUNDS = 20, SPIN_LIMIT = 20000000 };

struct pair {
	struct unit_mem_dev md;
	struct ibv_cq *cq[4];
	struct ibv_srq *srq;
	struct ibv_qp *tx, *rx;
	struct mlx4dv_qp_rings t, r;
	struct mlx4dv_srq_ring srq_ring;
};

static void pair_open(struct pair *p, int on_srq)
{
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 7, .max_sge = 1 } };

	memset(p, 0, sizeof(*p));
	assert_int_equal(unit_mem_dev_open(&p->md), 0);
	for (int i = 0; i < 4; i++) {
		p->cq[i] = ibv_create_cq(p->md.d->ctx, 31, NULL, NULL, 0);
		assert_non_null(p->cq[i]);
	}
	if (on_srq) {
		p->srq = ibv_create_srq(p->md.d->pd, &sattr);
		assert_non_null(p->srq);
		assert_int_equal(mlx4dv_srq_ring_init(&p->srq_ring, p->srq,
						      MLX4DV_RING_INIT_WRID), 0);
	}
	p->tx = unit_qp_create(p->md.d, IBV_QPT_RC, p->cq[0], p->cq[1], NULL, &cap);
	p->rx = unit_qp_create(p->md.d, IBV_QPT_RC, p->cq[2], p->cq[3], p->srq, &cap);
	assert_non_null(p->tx);
	assert_non_null(p->rx);
	assert_int_equal(mlx4dv_qp_rings_init(&p->t, p->tx, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_qp_rings_init(&p->r, p->rx, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(unit_qp_connect(p->md.d, p->tx, p->rx->qp_num), 0);
	assert_int_equal(unit_qp_connect(p->md.d, p->rx, p->tx->qp_num), 0);
}

static void pair_close(struct pair *p)
{
	mlx4dv_qp_rings_release(&p->t);
	mlx4dv_qp_rings_release(&p->r);
	assert_int_equal(ibv_destroy_qp(p->tx), 0);
	assert_int_equal(ibv_destroy_qp(p->rx), 0);
	if (p->srq) {
		mlx4dv_srq_ring_release(&p->srq_ring);
		assert_int_equal(ibv_destroy_srq(p->srq), 0);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(ibv_destroy_cq(p->cq[i]), 0);
	assert_int_equal(unit_mem_dev_close(&p->md), 0);
}

/* One message of len bytes (odd rounds with an immediate) and its
 * receive, taken through the one-call functions. */
static void round_trip(struct pair *p, int r, int on_srq)
{
	uint32_t len = 8 + (uint32_t)r * 13;
	struct ibv_sge src = { (uintptr_t)p->md.mem, len, p->md.mr->lkey };
	struct ibv_sge dst = { (uintptr_t)(p->md.mem + 2048), 2048, p->md.mr->lkey };
	__be32 imm = mlx4dv_cpu_to_be32(0x10000u + (uint32_t)r);
	const struct mlx4_cqe *cqe = NULL;
	uint64_t wr_id = 0;
	uint32_t got = 0;
	int ret = EAGAIN;

	for (uint32_t i = 0; i < len; i++)
		p->md.mem[i] = (uint8_t)(r + i * 3);
	memset(p->md.mem + 2048, 0, 2048);
	if (on_srq)
		assert_int_equal(mlx4dv_srq_post(&p->srq_ring, 0x700 + (uint64_t)r,
						 &dst, 1), 0);
	else
		assert_int_equal(mlx4dv_rq_post(&p->r.rq, 0x700 + (uint64_t)r, &dst, 1), 0);
	if (r & 1)
		assert_int_equal(mlx4dv_sq_write_send_imm(&p->t.sq, 0x800 + (uint64_t)r, &src, 1,
						IBV_SEND_SIGNALED, imm), 0);
	else
		assert_int_equal(mlx4dv_sq_write_send(&p->t.sq, 0x800 + (uint64_t)r, &src, 1,
						     IBV_SEND_SIGNALED), 0);
	mlx4dv_sq_ring_doorbell(&p->t.sq);

	for (long n = 0; n < SPIN_LIMIT && ret == EAGAIN; n++) {
		ret = mlx4dv_cq_poll_send(&p->t.send_cq, &p->t.sq, &wr_id);
		if (ret == EAGAIN)
			sched_yield();
	}
	assert_int_equal(ret, 0);
	assert_int_equal(wr_id, 0x800 + (uint64_t)r);
	mlx4dv_cq_update_ci(&p->t.send_cq);

	ret = EAGAIN;
	for (long n = 0; n < SPIN_LIMIT && ret == EAGAIN; n++) {
		ret = on_srq ? mlx4dv_cq_poll_srq_recv(&p->r.recv_cq, &p->srq_ring,
						       &wr_id, &got, &cqe) :
			mlx4dv_cq_poll_recv(&p->r.recv_cq, &p->r.rq, &wr_id, &got, &cqe);
		if (ret == EAGAIN)
			sched_yield();
	}
	assert_int_equal(ret, 0);
	assert_int_equal(wr_id, 0x700 + (uint64_t)r);
	assert_int_equal(got, len);
	assert_int_equal(mlx4dv_cqe_qpn(cqe), p->rx->qp_num);
	if (r & 1) {
		assert_int_equal(mlx4dv_cqe_opcode(cqe), MLX4_RECV_OPCODE_SEND_IMM);
		assert_int_equal(mlx4dv_cqe_imm_data(cqe), imm);
	} else {
		assert_int_equal(mlx4dv_cqe_opcode(cqe), MLX4_RECV_OPCODE_SEND);
	}
	mlx4dv_cq_update_ci(&p->r.recv_cq);
	assert_memory_equal(p->md.mem, p->md.mem + 2048, len);
	/* nothing more: the next take finds the CQ empty */
	assert_int_equal(mlx4dv_cq_poll_recv(&p->r.recv_cq, &p->r.rq, &wr_id, &got,
					     &cqe), EAGAIN);
}

static void rq_takes(void **state)
{
	struct pair p;

	(void)state;
	pair_open(&p, 0);
	for (int r = 0; r < ROUNDS; r++)
		round_trip(&p, r, 0);
	assert_int_equal(p.r.rq.tail, p.r.rq.head);
	pair_close(&p);
}

static void srq_takes(void **state)
{
	struct pair p;

	(void)state;
	pair_open(&p, 1);
	for (int r = 0; r < ROUNDS; r++)
		round_trip(&p, r, 1);
	pair_close(&p);
}

/* A flushed receive is not a good one: -EIO, nothing consumed. */
static void rq_error_is_not_taken(void **state)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_sge dst;
	struct pair p;
	int ret = EAGAIN;

	(void)state;
	pair_open(&p, 0);
	dst.addr = (uintptr_t)p.md.mem;
	dst.length = 64;
	dst.lkey = p.md.mr->lkey;
	assert_int_equal(mlx4dv_rq_post(&p.r.rq, 5, &dst, 1), 0);
	assert_int_equal(ibv_modify_qp(p.rx, &attr, IBV_QP_STATE), 0);
	for (long n = 0; n < SPIN_LIMIT && ret == EAGAIN; n++) {
		ret = mlx4dv_cq_poll_recv(&p.r.recv_cq, &p.r.rq, NULL, NULL, NULL);
		if (ret == EAGAIN)
			sched_yield();
	}
	assert_int_equal(ret, EIO);
	assert_int_equal(p.r.rq.tail, 0);
	assert_non_null(mlx4dv_cq_peek(&p.r.recv_cq));
	pair_close(&p);
}

/* RDMA WRITEs from an unsignalled template, the last one signalled: one
 * send CQE completes the batch, naming the last WQE; every write landed. */
static void batch_signals_last_wqe(void **state)
{
	enum { N = 6, LEN = 64 };
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;
	struct ibv_mr *rmr;
	uint8_t *remote;
	uint64_t wr_id = 0;
	struct pair p;
	int ret = EAGAIN;

	(void)state;
	pair_open(&p, 0);
	remote = calloc(1, N * LEN);
	assert_non_null(remote);
	rmr = ibv_reg_mr(p.md.d->pd, remote, N * LEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(rmr);
	for (int i = 0; i < N * LEN; i++)
		p.md.mem[i] = (uint8_t)(i * 5 + 1);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &p.t.sq,
		IBV_WR_RDMA_WRITE, rmr->rkey, p.md.mr->lkey, LEN, 0, 0), 0);
	assert_int_equal(mlx4dv_sq_batch_begin(&p.t.sq, &b, &tp, N), 0);
	for (int i = 0; i < N; i++)
		assert_int_equal(mlx4dv_sq_batch_write_flags(&b,
			0x900 + (uint64_t)i, (uintptr_t)(remote + i * LEN),
			(uintptr_t)(p.md.mem + i * LEN), i == N - 1 ? IBV_SEND_SIGNALED : 0), 0);
	assert_int_equal(mlx4dv_sq_batch_end(&p.t.sq, &b), N);
	mlx4dv_sq_ring_doorbell(&p.t.sq);
	for (long n = 0; n < SPIN_LIMIT && ret == EAGAIN; n++) {
		ret = mlx4dv_cq_poll_send(&p.t.send_cq, &p.t.sq, &wr_id);
		if (ret == EAGAIN)
			sched_yield();
	}
	assert_int_equal(ret, 0);
	assert_int_equal(wr_id, 0x900 + N - 1);
	assert_int_equal(p.t.sq.tail, p.t.sq.head);
	mlx4dv_cq_update_ci(&p.t.send_cq);
	assert_memory_equal(remote, p.md.mem, N * LEN);
	/* one CQE only */
	assert_int_equal(mlx4dv_cq_poll_send(&p.t.send_cq, &p.t.sq, &wr_id), EAGAIN);
	assert_int_equal(ibv_dereg_mr(rmr), 0);
	free(remote);
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rq_takes),
		cmocka_unit_test(srq_takes),
		cmocka_unit_test(rq_error_is_not_taken),
		cmocka_unit_test(batch_signals_last_wqe),
	};

	t_run_group_tests_name("unit_lean_ops", tests, NULL, NULL);
	return t_exit();
}
