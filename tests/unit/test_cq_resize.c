// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mlx4dv_cq_ring_resize() on the software device. A 16-entry receive CQ
 * takes 58 receives through its handle (more than three laps, while
 * libmlx4's own consumer index stays at 0), is resized to 32 entries, and
 * then takes more receives: each one exactly once, with its wr_id and
 * length, and nothing in between. libmlx4's resize copies the CQEs from
 * its stale index into the new buffer: left there, the copies of 49..57
 * would show again as receives 65..73. A CQ with a CQE waiting is refused.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
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

enum { BEFORE = 58, AFTER = 40, SPIN_LIMIT = 20000000 };

struct pair {
	struct unit_mem_dev md;
	struct ibv_cq *tx_cq, *rx_cq;
	struct ibv_qp *tx, *rx;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_cq_ring scq, rcq;
};

static void pair_open(struct pair *p)
{
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1 };

	memset(p, 0, sizeof(*p));
	assert_int_equal(unit_mem_dev_open(&p->md), 0);
	p->tx_cq = ibv_create_cq(p->md.d->ctx, 15, NULL, NULL, 0);
	p->rx_cq = ibv_create_cq(p->md.d->ctx, 15, NULL, NULL, 0);
	assert_non_null(p->tx_cq);
	assert_non_null(p->rx_cq);
	p->tx = unit_qp_create(p->md.d, IBV_QPT_RC, p->tx_cq, p->tx_cq, NULL, &cap);
	p->rx = unit_qp_create(p->md.d, IBV_QPT_RC, p->rx_cq, p->rx_cq, NULL, &cap);
	assert_non_null(p->tx);
	assert_non_null(p->rx);
	assert_int_equal(mlx4dv_sq_ring_init(&p->sq, p->tx, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_rq_ring_init(&p->rq, p->rx, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_cq_ring_init(&p->scq, p->tx_cq, 0), 0);
	assert_int_equal(mlx4dv_cq_ring_init(&p->rcq, p->rx_cq, 0), 0);
	assert_int_equal(p->rcq.cqe_cnt, 16);
	assert_int_equal(unit_qp_connect(p->md.d, p->tx, p->rx->qp_num), 0);
	assert_int_equal(unit_qp_connect(p->md.d, p->rx, p->tx->qp_num), 0);
}

static void pair_close(struct pair *p)
{
	mlx4dv_sq_ring_release(&p->sq);
	mlx4dv_rq_ring_release(&p->rq);
	mlx4dv_cq_ring_release(&p->scq);
	mlx4dv_cq_ring_release(&p->rcq);
	assert_int_equal(ibv_destroy_qp(p->tx), 0);
	assert_int_equal(ibv_destroy_qp(p->rx), 0);
	assert_int_equal(ibv_destroy_cq(p->tx_cq), 0);
	assert_int_equal(ibv_destroy_cq(p->rx_cq), 0);
	assert_int_equal(unit_mem_dev_close(&p->md), 0);
}

/* Polls until the poll stops saying EAGAIN (bounded). */
static int spin_recv(struct pair *p, uint64_t *wr_id, uint32_t *len)
{
	int ret = EAGAIN;

	for (long n = 0; n < SPIN_LIMIT && ret == EAGAIN; n++) {
		ret = mlx4dv_cq_poll_recv(&p->rcq, &p->rq, wr_id, len, NULL);
		if (ret == EAGAIN)
			sched_yield();
	}
	return ret;
}

static int spin_send(struct pair *p, uint64_t *wr_id)
{
	int ret = EAGAIN;

	for (long n = 0; n < SPIN_LIMIT && ret == EAGAIN; n++) {
		ret = mlx4dv_cq_poll_send(&p->scq, &p->sq, wr_id);
		if (ret == EAGAIN)
			sched_yield();
	}
	return ret;
}

/* Message i: a receive posted, an 8 + i % 32 byte send, both taken. Before
 * the send the receive CQ must show nothing. */
static void message(struct pair *p, uint32_t i)
{
	uint32_t len = 8 + i % 32;
	struct ibv_sge src = { (uintptr_t)p->md.mem, len, p->md.mr->lkey };
	struct ibv_sge dst = { (uintptr_t)(p->md.mem + 2048), 2048, p->md.mr->lkey };
	uint64_t wr_id = 0;
	uint32_t got = 0;

	assert_int_equal(mlx4dv_rq_post(&p->rq, 1000 + i, &dst, 1), 0);
	assert_int_equal(mlx4dv_cq_poll_recv(&p->rcq, &p->rq, &wr_id, &got, NULL),
			 EAGAIN);
	assert_int_equal(mlx4dv_sq_write_send(&p->sq, i, &src, 1,
					      IBV_SEND_SIGNALED), 0);
	mlx4dv_sq_ring_doorbell(&p->sq);
	assert_int_equal(spin_send(p, &wr_id), 0);
	assert_int_equal(wr_id, i);
	mlx4dv_cq_update_ci(&p->scq);
	assert_int_equal(spin_recv(p, &wr_id, &got), 0);
	assert_int_equal(wr_id, 1000 + i);
	assert_int_equal(got, len);
	mlx4dv_cq_update_ci(&p->rcq);
}

static void resize_takes_each_receive_once(void **state)
{
	struct pair p;
	uint32_t i;

	(void)state;
	pair_open(&p);
	for (i = 0; i < BEFORE; i++)
		message(&p, i);
	assert_int_equal(mlx4dv_cq_ring_resize(&p.rcq, p.rx_cq, 31), 0);
	assert_int_equal(p.rcq.cqe_cnt, 32);
	assert_int_equal(p.rcq.cons_index, BEFORE + 1);
	for (; i < BEFORE + AFTER; i++)
		message(&p, i);
	/* the handle and libmlx4 agree on the layout after the resize */
	{
		struct mlx4dv_cq_ring again;

		assert_int_equal(mlx4dv_cq_ring_init(&again, p.rx_cq, 0), 0);
		assert_ptr_equal(again.buf, p.rcq.buf);
		assert_int_equal(again.cqe_cnt, 32);
		assert_int_equal(again.cons_index, p.rcq.cons_index & 0xffffff);
	}
	pair_close(&p);
}

/* A CQE waiting: EBUSY, the handle and the CQ as they were; once it is
 * taken the resize goes through. The same size once rounded moves
 * nothing. */
static void resize_refusals(void **state)
{
	struct ibv_sge src, dst;
	struct mlx4dv_cq_ring before;
	struct pair p;
	uint64_t wr_id = 0;
	uint32_t got = 0;

	(void)state;
	pair_open(&p);
	src = (struct ibv_sge){ (uintptr_t)p.md.mem, 16, p.md.mr->lkey };
	dst = (struct ibv_sge){ (uintptr_t)(p.md.mem + 2048), 2048, p.md.mr->lkey };
	assert_int_equal(mlx4dv_rq_post(&p.rq, 7, &dst, 1), 0);
	assert_int_equal(mlx4dv_sq_write_send(&p.sq, 3, &src, 1, IBV_SEND_SIGNALED), 0);
	mlx4dv_sq_ring_doorbell(&p.sq);
	assert_int_equal(spin_send(&p, &wr_id), 0);
	mlx4dv_cq_update_ci(&p.scq);
	for (long n = 0; n < SPIN_LIMIT && !mlx4dv_cq_peek(&p.rcq); n++)
		sched_yield();
	before = p.rcq;
	assert_int_equal(mlx4dv_cq_ring_resize(&p.rcq, p.rx_cq, 63), EBUSY);
	assert_memory_equal(&before, &p.rcq, sizeof(before));
	assert_int_equal(p.rx_cq->cqe, 15);
	assert_int_equal(mlx4dv_cq_ring_resize(NULL, p.rx_cq, 63), EINVAL);
	assert_int_equal(mlx4dv_cq_ring_resize(&p.scq, p.rx_cq, 63), EINVAL);
	assert_int_equal(spin_recv(&p, &wr_id, &got), 0);
	assert_int_equal(wr_id, 7);
	mlx4dv_cq_update_ci(&p.rcq);
	before = p.rcq;
	assert_int_equal(mlx4dv_cq_ring_resize(&p.rcq, p.rx_cq, 10), 0);
	assert_memory_equal(&before, &p.rcq, sizeof(before));
	assert_int_equal(mlx4dv_cq_ring_resize(&p.rcq, p.rx_cq, 63), 0);
	assert_int_equal(p.rcq.cqe_cnt, 64);
	assert_int_equal(p.rx_cq->cqe, 63);
	message(&p, 1);
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resize_takes_each_receive_once),
		cmocka_unit_test(resize_refusals),
	};

	t_run_group_tests_name("unit_cq_resize", tests, NULL, NULL);
	return t_exit();
}
