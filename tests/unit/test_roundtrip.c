// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Data moved through the handles alone: a receive WQE written into the RQ
 * handle, a SEND WQE into the SQ handle with the send doorbell rung, and
 * both completions read from the CQ handles. The WQEs and CQEs are built
 * and parsed here by hand from the ConnectX-3 layouts, so the test checks
 * the handle fields (buffers, strides, counters, doorbell register and
 * records, CQE size) rather than the header's data path.
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

enum { MSG = 200, SPIN_LIMIT = 20000000 };

static void post_recv(struct mlx4dv_rq_ring *rq, uint32_t lkey, void *addr,
		      uint32_t len)
{
	struct mlx4_wqe_data_seg *seg = (struct mlx4_wqe_data_seg *)
		(rq->buf + ((size_t)(rq->head & (rq->wqe_cnt - 1)) << rq->wqe_shift));

	seg[0].lkey = mlx4dv_cpu_to_be32(lkey);
	seg[0].addr = mlx4dv_cpu_to_be64((uintptr_t)addr);
	seg[0].byte_count = mlx4dv_cpu_to_be32(len);
	if (rq->max_scatter > 1) {
		seg[1].byte_count = 0;
		seg[1].lkey = mlx4dv_cpu_to_be32(MLX4_INVALID_LKEY);
		seg[1].addr = 0;
	}
	rq->head++;
	mlx4dv_barrier_to_device();
	*rq->db = mlx4dv_cpu_to_be32(rq->head & 0xffff);
}

static void post_send(struct mlx4dv_sq_ring *sq, uint32_t lkey, void *addr,
		      uint32_t len)
{
	uint8_t *wqe = sq->buf +
		((size_t)(sq->head & (sq->wqe_cnt - 1)) << sq->wqe_shift);
	struct mlx4_wqe_ctrl_seg *ctrl = (struct mlx4_wqe_ctrl_seg *)wqe;
	struct mlx4_wqe_data_seg *data = (struct mlx4_wqe_data_seg *)(ctrl + 1);
	uint32_t owner = (sq->head & sq->wqe_cnt) ? 1u << 31 : 0;

	data->lkey = mlx4dv_cpu_to_be32(lkey);
	data->addr = mlx4dv_cpu_to_be64((uintptr_t)addr);
	data->byte_count = mlx4dv_cpu_to_be32(len);
	ctrl->srcrb_flags = mlx4dv_cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE);
	ctrl->imm = 0;
	ctrl->fence_size = 2;	/* control + one data segment, 16-byte units */
	mlx4dv_barrier_to_device();
	ctrl->owner_opcode = mlx4dv_cpu_to_be32(owner | MLX4_OPCODE_SEND);
	sq->head++;
	mlx4dv_barrier_to_device();
	*(volatile __be32 *)sq->doorbell = sq->doorbell_qpn;
}

/* The next software-owned CQE, waiting for it; NULL when none comes. */
static struct mlx4_cqe *wait_cqe(struct mlx4dv_cq_ring *cq)
{
	uint32_t i = cq->cons_index;
	uint8_t *slot = cq->buf + (size_t)(i & (cq->cqe_cnt - 1)) * cq->cqe_size;
	struct mlx4_cqe *cqe = (struct mlx4_cqe *)(slot + cq->cqe_size - 32);
	uint8_t want = (i & cq->cqe_cnt) ? MLX4_CQE_OWNER_MASK : 0;

	for (long n = 0; n < SPIN_LIMIT; n++) {
		if ((*(volatile uint8_t *)&cqe->owner_sr_opcode &
		     MLX4_CQE_OWNER_MASK) == want) {
			mlx4dv_barrier_from_device();
			return cqe;
		}
		sched_yield();
	}
	return NULL;
}

static void consume(struct mlx4dv_cq_ring *cq)
{
	cq->cons_index++;
	mlx4dv_barrier_to_device();
	*cq->set_ci_db = mlx4dv_cpu_to_be32(cq->cons_index & 0xffffff);
}

static void rc_send_through_handles(void **state)
{
	struct unit_dev *d = unit_dev_open();
	struct ibv_qp_cap cap = { .max_send_wr = 16, .max_recv_wr = 16,
				  .max_send_sge = 1, .max_recv_sge = 2 };
	struct mlx4dv_qp_rings a, b;
	struct ibv_cq *cq_a, *cq_b;
	struct ibv_qp *qa, *qb;
	struct ibv_mr *mr;
	struct mlx4_cqe *cqe;
	uint8_t *mem;

	(void)state;
	assert_non_null(d);
	mem = calloc(1, 2 * MSG);
	assert_non_null(mem);
	for (int i = 0; i < MSG; i++)
		mem[i] = (uint8_t)(i * 7 + 1);
	mr = ibv_reg_mr(d->pd, mem, 2 * MSG, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(mr);
	cq_a = ibv_create_cq(d->ctx, 31, NULL, NULL, 0);
	cq_b = ibv_create_cq(d->ctx, 31, NULL, NULL, 0);
	assert_non_null(cq_a);
	assert_non_null(cq_b);
	qa = unit_qp_create(d, IBV_QPT_RC, cq_a, cq_a, NULL, &cap);
	qb = unit_qp_create(d, IBV_QPT_RC, cq_b, cq_b, NULL, &cap);
	assert_non_null(qa);
	assert_non_null(qb);

	/* Convert before the first post, as the rules ask. */
	assert_int_equal(mlx4dv_qp_rings_init(&a, qa, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(mlx4dv_qp_rings_init(&b, qb, MLX4DV_RING_INIT_WRID), 0);
	assert_int_equal(unit_qp_connect(d, qa, qb->qp_num), 0);
	assert_int_equal(unit_qp_connect(d, qb, qa->qp_num), 0);

	for (int round = 0; round < 3; round++) {
		memset(mem + MSG, 0, MSG);
		post_recv(&b.rq, mr->lkey, mem + MSG, MSG);
		post_send(&a.sq, mr->lkey, mem, MSG);

		cqe = wait_cqe(&a.send_cq);
		assert_non_null(cqe);
		assert_int_equal(cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK,
				 MLX4_OPCODE_SEND);
		assert_true(cqe->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK);
		assert_int_equal(mlx4dv_be32_to_cpu(cqe->vlan_my_qpn) & MLX4_CQE_QPN_MASK,
				 qa->qp_num);
		assert_int_equal(mlx4dv_be16_to_cpu(cqe->wqe_index), a.sq.head - 1);
		consume(&a.send_cq);
		a.sq.tail = a.sq.head;

		cqe = wait_cqe(&b.recv_cq);
		assert_non_null(cqe);
		assert_int_equal(cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK,
				 MLX4_RECV_OPCODE_SEND);
		assert_false(cqe->owner_sr_opcode & MLX4_CQE_IS_SEND_MASK);
		assert_int_equal(mlx4dv_be32_to_cpu(cqe->vlan_my_qpn) & MLX4_CQE_QPN_MASK,
				 qb->qp_num);
		assert_int_equal(mlx4dv_be32_to_cpu(cqe->byte_cnt), MSG);
		consume(&b.recv_cq);
		b.rq.tail++;
		assert_memory_equal(mem, mem + MSG, MSG);
	}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rc_send_through_handles),
	};

	t_run_group_tests_name("unit_roundtrip", tests, NULL, NULL);
	return t_exit();
}
