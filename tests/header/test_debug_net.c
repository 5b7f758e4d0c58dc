/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The MLX4DV_DEBUG net: each misuse that a release build lets through
 * silently (a wrong wr_id, a lost WQE, a write past the ring, a fault) is
 * an assertion here. The header's assertion is routed to cmocka, so that
 * each case observes it; a case whose check is removed fails ("expected
 * assert"). Host memory plays the device (tests/reliability/host_rings).
 * The release cost of the checks is debug_net_cost.cmake's and the
 * callgrind table's (docs/performance.md).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#define MLX4DV_DEBUG 1
#define MLX4DV_ASSERT(cond) mock_assert(!!(cond), #cond, __FILE__, __LINE__)
#include <infiniband/mlx4dv.h>

#include "host_rings.h"
#include "test_exit.h"

static uint8_t payload[64];

static void rc_ring(struct host_sq *h)
{
	host_sq_init(h, 64, 6, IBV_QPT_RC, 0);
	mlx4dv_sq_fast_path_update(&h->sq);
}

static void template_write(struct mlx4dv_sq_wqe_template *t,
			   const struct mlx4dv_sq_ring *sq)
{
	assert_int_equal(mlx4dv_sq_wqe_template_set(t, sq, IBV_WR_RDMA_WRITE,
						    0x1111, 0x2222, 64,
						    IBV_SEND_SIGNALED, 0), 0);
}

/* A one-call write inside an open batch: in a release build it takes
 * the batch's first slot, which the batch then overwrites (its wr_id and
 * WQE lost). */
static void write_inside_batch_asserts(void **state)
{
	struct mlx4dv_sq_wqe_template t;
	struct mlx4dv_sq_batch b;
	struct ibv_sge sge = { (uintptr_t)payload, sizeof(payload), 0x2222 };
	struct host_sq h;

	(void)state;
	rc_ring(&h);
	template_write(&t, &h.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, 4), 0);
	expect_assert_failure(mlx4dv_sq_write_rdma_write(&h.sq, 7, 0x1111,
							 0x9000, &sge, 1, 0));
	host_sq_free(&h);
}

/* After the batch ends the same write is allowed again. */
static void write_after_batch_end_passes(void **state)
{
	struct mlx4dv_sq_wqe_template t;
	struct mlx4dv_sq_batch b;
	struct ibv_sge sge = { (uintptr_t)payload, sizeof(payload), 0x2222 };
	struct host_sq h;

	(void)state;
	rc_ring(&h);
	template_write(&t, &h.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, 4), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 1, 0x9000, (uintptr_t)payload), 0);
	assert_int_equal(mlx4dv_sq_batch_end(&h.sq, &b), 1);
	assert_false(h.sq.flags & MLX4DV_SQ_RING_BATCH_OPEN);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&h.sq, 7, 0x1111, 0x9000,
						    &sge, 1, 0), 0);
	assert_int_equal(h.sq.head, 2);
	host_sq_free(&h);
}

static void nested_batch_asserts(void **state)
{
	struct mlx4dv_sq_wqe_template t;
	struct mlx4dv_sq_batch b, b2;
	struct host_sq h;

	(void)state;
	rc_ring(&h);
	template_write(&t, &h.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, 4), 0);
	expect_assert_failure(mlx4dv_sq_batch_begin(&h.sq, &b2, &t, 4));
	host_sq_free(&h);
}

/* A head moved under an open batch (a WQE finished by hand with the flag
 * cleared behind the header's back) is caught at the end. */
static void batch_end_after_head_moved_asserts(void **state)
{
	struct mlx4dv_sq_wqe_template t;
	struct mlx4dv_sq_batch b;
	struct host_sq h;

	(void)state;
	rc_ring(&h);
	template_write(&t, &h.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, 4), 0);
	h.sq.head++;
	expect_assert_failure(mlx4dv_sq_batch_end(&h.sq, &b));
	host_sq_free(&h);
}

/* 16 gather entries and a control segment are 272 bytes: more than a
 * 128-byte ring, which a release build writes past (heap overflow). */
static void data_segs_past_ring_asserts(void **state)
{
	struct ibv_sge sg[16];
	struct host_sq h;
	uint32_t i;

	(void)state;
	for (i = 0; i < 16; i++) {
		sg[i].addr = (uintptr_t)payload;
		sg[i].length = 4;
		sg[i].lkey = 0x2222;
	}
	host_sq_init(&h, 2, 6, IBV_QPT_RC, 0);
	expect_assert_failure(mlx4dv_sq_set_data_segs(&h.sq, h.sq.buf + 16, sg, 16));
	/* 7 entries and the control segment fit in the 128 bytes */
	assert_int_equal(mlx4dv_sq_set_data_segs(&h.sq, h.sq.buf + 16, sg, 7), 7);
	host_sq_free(&h);
}

static void data_segs_outside_ring_asserts(void **state)
{
	struct ibv_sge sge = { (uintptr_t)payload, 4, 0x2222 };
	uint8_t scratch[64] __attribute__((aligned(16)));
	struct host_sq h;

	(void)state;
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
	expect_assert_failure(mlx4dv_sq_set_data_segs(&h.sq, scratch, &sge, 1));
	expect_assert_failure(mlx4dv_sq_set_data_segs(&h.sq, h.sq.buf + 8, &sge, 1));
	host_sq_free(&h);
}

/* NULL handles: a fault in a release build. */
static void null_handles_assert(void **state)
{
	struct host_cq c;
	struct host_sq h;
	struct mlx4_cqe cqe = cqe_send(0x4a, MLX4_OPCODE_SEND, 0);
	const struct mlx4_cqe *taken;
	uint64_t id;
	uint32_t len, polled;
	struct ibv_wc wc;

	(void)state;
	host_cq_init(&c, 8, 32, 0);
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
	expect_assert_failure(mlx4dv_cq_poll_sq(NULL, &h.sq, &id, &taken));
	expect_assert_failure(mlx4dv_cq_poll_sq(&c.cq, NULL, &id, &taken));
	expect_assert_failure(mlx4dv_cq_poll_sq_burst(NULL, &h.sq, 1, &id, &polled));
	expect_assert_failure(mlx4dv_cq_poll_sq_burst(&c.cq, NULL, 1, &id, &polled));
	expect_assert_failure(mlx4dv_cq_poll_sq_burst(&c.cq, &h.sq, 1, &id, NULL));
	expect_assert_failure(mlx4dv_cq_poll_rq(&c.cq, NULL, &id, &len, &taken));
	expect_assert_failure(mlx4dv_cq_poll_srq(&c.cq, NULL, &id, &len, &taken));
	expect_assert_failure(mlx4dv_cq_poll_wc(&c.cq, NULL, 1, 1, &wc, &polled));
	expect_assert_failure(mlx4dv_cq_poll_wc(&c.cq, NULL, 0, 1, &wc, NULL));
	expect_assert_failure(mlx4dv_cq_peek(NULL));
	expect_assert_failure(mlx4dv_cq_next(NULL));
	expect_assert_failure(mlx4dv_sq_complete_cqe(NULL, &cqe, &id));
	expect_assert_failure(mlx4dv_sq_complete_cqe(&h.sq, NULL, &id));
	/* the same calls with their handles pass the net */
	assert_int_equal(mlx4dv_cq_poll_sq(&c.cq, &h.sq, &id, &taken), EAGAIN);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&c.cq, &h.sq, 1, &id, &polled), EAGAIN);
	assert_int_equal(polled, 0);
	assert_int_equal(mlx4dv_cq_poll_wc(&c.cq, NULL, 0, 1, &wc, &polled), EAGAIN);
	host_sq_free(&h);
	host_cq_free(&c);
}

/* poll_sq's CQE output: the CQE taken, written only on success. */
static void poll_sq_hands_back_the_cqe(void **state)
{
	struct ibv_sge sge = { (uintptr_t)payload, sizeof(payload), 0x2222 };
	struct mlx4_cqe body;
	const struct mlx4_cqe *taken = NULL;
	struct host_cq c;
	struct host_sq h;
	uint64_t id = 0;

	(void)state;
	host_cq_init(&c, 8, 32, 0);
	rc_ring(&h);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&h.sq, 0x77, 0x1111, 0x9000,
						    &sge, 1, IBV_SEND_SIGNALED), 0);
	assert_int_equal(mlx4dv_cq_poll_sq(&c.cq, &h.sq, &id, &taken), EAGAIN);
	assert_null(taken);
	body = cqe_send(0x4a, MLX4_OPCODE_RDMA_WRITE, 0);
	host_cq_push(&c, &body);
	assert_int_equal(mlx4dv_cq_poll_sq(&c.cq, &h.sq, &id, &taken), 0);
	assert_int_equal(id, 0x77);
	assert_ptr_equal(taken, mlx4dv_cq_cqe(&c.cq, 0));
	assert_int_equal(mlx4dv_cqe_wqe_index(taken), 0);
	assert_int_equal(h.sq.tail, 1);
	host_sq_free(&h);
	host_cq_free(&c);
}

/* A UD destination of PD pdn on port 1. */
static struct mlx4dv_ud_av ud_dest_of_pd(uint32_t pdn)
{
	struct ibv_ah_attr attr;
	struct mlx4dv_ud_av av;

	memset(&attr, 0, sizeof(attr));
	attr.dlid = 0x11;
	attr.port_num = 1;
	assert_int_equal(mlx4dv_ud_av_from_attr(&av, pdn, &attr, NULL), 0);
	return av;
}

/* A UD send with an address vector of another PD (another context's):
 * a release build hands it to the device, which delivers it. */
static void ud_send_of_another_pd_asserts(void **state)
{
	struct ibv_sge sge = { (uintptr_t)payload, sizeof(payload), 0x2222 };
	struct mlx4dv_ud_av mine = ud_dest_of_pd(0x35), other = ud_dest_of_pd(0x36);
	struct host_sq h;

	(void)state;
	host_sq_init(&h, 64, 7, IBV_QPT_UD, 0);
	h.sq.pdn = 0x35;
	h.sq.flags |= MLX4DV_SQ_RING_PDN;
	expect_assert_failure(mlx4dv_sq_write_ud_send(&h.sq, 1, &other, 0x99,
						      0x1111, &sge, 1, 0));
	expect_assert_failure(mlx4dv_sq_write_ud_send_inline(&h.sq, 1, &other,
							     0x99, 0x1111,
							     payload, 8, 0));
	assert_int_equal(h.sq.head, 0);
	/* the QP's own PD passes; so does any PD when the handle does not
	 * know its PD (a hand-built one) */
	assert_int_equal(mlx4dv_sq_write_ud_send(&h.sq, 2, &mine, 0x99, 0x1111,
						 &sge, 1, 0), 0);
	h.sq.flags &= ~(uint32_t)MLX4DV_SQ_RING_PDN;
	assert_int_equal(mlx4dv_sq_write_ud_send(&h.sq, 3, &other, 0x99, 0x1111,
						 &sge, 1, 0), 0);
	assert_int_equal(h.sq.head, 2);
	host_sq_free(&h);
}

/* mlx4dv_cq_poll_srq() on a CQ that carries the receives of a QP with its
 * own RQ: the CQE's wqe_index names RQ WQE 1, and a release build hands
 * back the wr_id of SRQ WQE 1 and frees it while it is still posted. */
static void poll_srq_of_an_rq_cqe_asserts(void **state)
{
	struct ibv_sge sge = { (uintptr_t)payload, sizeof(payload), 0x2222 };
	struct mlx4_cqe body;
	struct host_srq s;
	struct host_cq c;
	static uint64_t id;	/* read after the longjmp of the assertion */
	uint32_t len = 0, i;

	(void)state;
	id = 0;
	host_cq_init(&c, 8, 32, 0);
	host_srq_init(&s, 8, 5);
	for (i = 0; i < 3; i++)		/* SRQ WQEs 0, 1, 2 posted */
		assert_int_equal(mlx4dv_srq_write(&s.srq, 0x900 + i, &sge, 1), 0);
	c.cq.recv_from = MLX4DV_CQ_RECV_RQ | 0x4a;
	body = cqe_recv(0x4a, MLX4_RECV_OPCODE_SEND, 64, 1);
	host_cq_push(&c, &body);
	expect_assert_failure(mlx4dv_cq_poll_srq(&c.cq, &s.srq, &id, &len, NULL));
	/* a receive of another QP (one on the SRQ) on the same CQ passes */
	c.cq.recv_from = MLX4DV_CQ_RECV_RQ | 0x4b;
	assert_int_equal(mlx4dv_cq_poll_srq(&c.cq, &s.srq, &id, &len, NULL), 0);
	assert_int_equal(id, 0x901);
	host_srq_free(&s);
	host_cq_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(write_inside_batch_asserts),
		cmocka_unit_test(write_after_batch_end_passes),
		cmocka_unit_test(nested_batch_asserts),
		cmocka_unit_test(batch_end_after_head_moved_asserts),
		cmocka_unit_test(data_segs_past_ring_asserts),
		cmocka_unit_test(data_segs_outside_ring_asserts),
		cmocka_unit_test(null_handles_assert),
		cmocka_unit_test(poll_sq_hands_back_the_cqe),
		cmocka_unit_test(ud_send_of_another_pd_asserts),
		cmocka_unit_test(poll_srq_of_an_rq_cqe_asserts),
	};

	t_run_group_tests_name("header_debug_net", tests, NULL, NULL);
	return t_exit();
}
