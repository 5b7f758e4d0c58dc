// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Bad inputs to the header's posting, receive and completion functions:
 * each gets its documented errno (docs/errors.md lists them with the name
 * of the test here), and leaves the ring, its counters and the doorbell
 * record exactly as they were. Host memory plays the device.
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

/* A send ring whose bytes and state must not change across a refusal. */
struct frozen_sq {
	struct host_sq h;
	uint8_t *snap;
	struct mlx4dv_sq_ring before;
	uint64_t wrid0;
};

static void freeze(struct frozen_sq *f)
{
	f->snap = malloc(f->h.mem_len);
	assert_non_null(f->snap);
	memcpy(f->snap, f->h.mem, f->h.mem_len);
	f->before = f->h.sq;
	f->wrid0 = f->h.wrid[f->h.sq.head & (f->h.sq.wqe_cnt - 1)];
}

static void assert_untouched(struct frozen_sq *f)
{
	assert_memory_equal(f->snap, f->h.mem, f->h.mem_len);
	assert_int_equal(f->h.sq.head, f->before.head);
	assert_int_equal(f->h.sq.tail, f->before.tail);
	assert_int_equal(f->h.wrid[f->h.sq.head & (f->h.sq.wqe_cnt - 1)], f->wrid0);
}

static void open_sq(struct frozen_sq *f, uint32_t qp_type)
{
	memset(f, 0, sizeof(*f));
	host_sq_init(&f->h, 64, 6, qp_type, 0);
	f->h.sq.max_gather = 3;
	f->h.sq.max_inline = 100;
	freeze(f);
}

static void close_sq(struct frozen_sq *f)
{
	free(f->snap);
	host_sq_free(&f->h);
}

static struct ibv_sge sg4[4] = {
	{ 0x1000, 8, 1 }, { 0x2000, 8, 1 }, { 0x3000, 8, 1 }, { 0x4000, 8, 1 },
};

static void test_bad_post_too_many_sges(void **state)
{
	struct frozen_sq f;

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg4, 4, 0), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_inline_too_long(void **state)
{
	struct frozen_sq f;
	static uint8_t data[200];

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send_inline(&f.h.sq, 0, data, 101, 0), EINVAL);
	/* the same bytes gathered inline from entries */
	{
		struct ibv_sge s[2] = { { (uintptr_t)data, 60, 0 },
					{ (uintptr_t)data, 41, 0 } };

		assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, s, 2, IBV_SEND_INLINE),
				 EINVAL);
	}
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_null_buffers(void **state)
{
	struct frozen_sq f;

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send_inline(&f.h.sq, 0, NULL, 4, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, NULL, 1, 0), EINVAL);
	assert_untouched(&f);
	/* zero bytes from NULL is a valid empty send */
	assert_int_equal(mlx4dv_sq_write_send_inline(&f.h.sq, 0, NULL, 0, 0), 0);
	close_sq(&f);
}

static void test_bad_post_wqe_over_63_ds(void **state)
{
	struct frozen_sq f;
	static uint8_t data[1100];

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	f.h.sq.max_inline = 2000;	/* only the 6-bit ds field limits */
	assert_int_equal(mlx4dv_sq_write_send_inline(&f.h.sq, 0, data, 1000, 0), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_ring_full(void **state)
{
	struct frozen_sq f;

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	f.h.sq.tail = f.h.sq.head - f.h.sq.max_post;	/* all taken */
	f.before = f.h.sq;
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg4, 1, 0), ENOMEM);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_wrong_qp_type(void **state)
{
	struct frozen_sq f;
	struct mlx4dv_ud_av av;

	(void)state;
	memset(&av, 0, sizeof(av));
	open_sq(&f, IBV_QPT_UD);
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg4, 1, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&f.h.sq, 0, 0, 0, sg4, 1, 0), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
	open_sq(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_ud_send(&f.h.sq, 0, &av, 1, 1, sg4, 1, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_eth(&f.h.sq, 0, sg4, 1, 0, 0), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_unknown_flags(void **state)
{
	struct frozen_sq f;

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg4, 1, 1u << 12), EINVAL);
	/* an XRC SRQ number on a plain RC QP */
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg4, 1,
					     MLX4DV_SEND_XRC_SRQN(5)), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_read_inline_or_uc(void **state)
{
	struct frozen_sq f;

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_rdma_read(&f.h.sq, 0, 1, 0x10, sg4, 1,
					     IBV_SEND_INLINE), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
	open_sq(&f, IBV_QPT_UC);
	assert_int_equal(mlx4dv_sq_write_rdma_read(&f.h.sq, 0, 1, 0x10, sg4, 1, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_send_inv(&f.h.sq, 0, sg4, 1, 0, 5), EINVAL);
	assert_int_equal(mlx4dv_sq_write_faa(&f.h.sq, 0, 1, 0x10, 1, sg4, 0), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_atomic_args(void **state)
{
	struct frozen_sq f;

	(void)state;
	open_sq(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_cas(&f.h.sq, 0, 1, 0x1004, 0, 1, sg4, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_faa(&f.h.sq, 0, 1, 0x1000, 1, NULL, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_faa(&f.h.sq, 0, 1, 0x1000, 1, sg4,
					    IBV_SEND_INLINE), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_ud_without_dest(void **state)
{
	struct frozen_sq f;

	(void)state;
	open_sq(&f, IBV_QPT_UD);
	assert_int_equal(mlx4dv_sq_write_ud_send(&f.h.sq, 0, NULL, 1, 1, sg4, 1, 0), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_post_eth_frame(void **state)
{
	struct frozen_sq f;
	static uint8_t frame[64];
	struct mlx4dv_lso_attr lso = { frame, 54, 0 };

	(void)state;
	open_sq(&f, IBV_QPT_RAW_PACKET);
	assert_int_equal(mlx4dv_sq_write_eth_inline(&f.h.sq, 0, frame, 5, 0, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_eth_inline(&f.h.sq, 0, frame, 60,
		MLX4DV_SEND_INS_CVLAN | MLX4DV_SEND_INS_SVLAN, 1), EINVAL);
	assert_int_equal(mlx4dv_sq_write_eth_lso(&f.h.sq, 0, &lso, sg4, 1, 0, 0), EINVAL);
	lso.mss = 1460;
	lso.header_size = 5;
	assert_int_equal(mlx4dv_sq_write_eth_lso(&f.h.sq, 0, &lso, sg4, 1, 0, 0), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_send_wr(void **state)
{
	struct frozen_sq f;
	struct ibv_send_wr wr;

	(void)state;
	open_sq(&f, IBV_QPT_UD);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;	/* not on UD */
	wr.sg_list = sg4;
	wr.num_sge = 1;
	assert_int_equal(mlx4dv_sq_write_send_wr(&f.h.sq, &wr, NULL), EINVAL);
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = -1;
	assert_int_equal(mlx4dv_sq_write_send_wr(&f.h.sq, &wr, NULL), EINVAL);
	assert_int_equal(mlx4dv_sq_write_send_wr(&f.h.sq, NULL, NULL), EINVAL);
	assert_untouched(&f);	/* wr_id slot restored too */
	close_sq(&f);
	open_sq(&f, IBV_QPT_XRC_SEND);
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 1;
	wr.qp_type.xrc.remote_srqn = 0x1000000;	/* over 24 bits */
	assert_int_equal(mlx4dv_sq_write_send_wr(&f.h.sq, &wr, NULL), EINVAL);
	assert_untouched(&f);
	close_sq(&f);
}

static void test_bad_ud_av(void **state)
{
	struct mlx4dv_ud_av av;
	struct ibv_ah_attr ah;
	struct mlx4dv_ud_av_eth eth = { { 2, 0, 0, 0, 0, 1 }, 0xffff };

	(void)state;
	memset(&ah, 0, sizeof(ah));
	assert_int_equal(mlx4dv_ud_av_init(&av, 0x1000000, &ah, NULL), EINVAL);
	assert_int_equal(mlx4dv_ud_av_init(&av, 1, &ah, &eth), EINVAL); /* RoCE, no GRH */
	assert_int_equal(mlx4dv_ud_av_init(NULL, 1, &ah, NULL), EINVAL);
}

struct frozen_rq {
	struct mlx4dv_rq_ring rq;
	uint8_t buf[8 * 32], snap[8 * 32];
	uint64_t wrid[8];
	__be32 db;
};

static void open_rq(struct frozen_rq *r)
{
	memset(r, 0, sizeof(*r));
	r->rq.buf = r->buf;
	r->rq.wqe_cnt = 8;
	r->rq.wqe_shift = 5;
	r->rq.max_scatter = 2;
	r->rq.qpn = 0x4a;
	r->rq.db = &r->db;
	r->rq.wrid = r->wrid;
}

static void test_bad_recv_post(void **state)
{
	struct frozen_rq r;
	struct ibv_recv_wr w[2];
	const struct ibv_recv_wr *bad = NULL;
	uint32_t i;

	(void)state;
	open_rq(&r);
	memcpy(r.snap, r.buf, sizeof(r.buf));
	assert_int_equal(mlx4dv_rq_post(&r.rq, 1, sg4, 3), EINVAL);
	assert_int_equal(mlx4dv_rq_post(&r.rq, 1, sg4, -1), EINVAL);
	memset(w, 0, sizeof(w));
	w[0].next = &w[1];
	w[0].sg_list = w[1].sg_list = sg4;
	w[0].num_sge = 1;
	w[1].num_sge = 3;
	assert_int_equal(mlx4dv_rq_post_list(&r.rq, w, &bad), EINVAL);
	assert_ptr_equal(bad, &w[1]);
	assert_memory_equal(r.snap, r.buf, sizeof(r.buf));
	assert_int_equal(r.rq.head, 0);
	assert_int_equal(r.db, 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(mlx4dv_rq_post(&r.rq, i, sg4, 1), 0);
	memcpy(r.snap, r.buf, sizeof(r.buf));
	assert_int_equal(mlx4dv_rq_post(&r.rq, 9, sg4, 1), ENOMEM);
	assert_memory_equal(r.snap, r.buf, sizeof(r.buf));
}

static void test_bad_srq_release(void **state)
{
	struct host_srq s;

	(void)state;
	host_srq_init(&s, 16, 6);
	assert_int_equal(mlx4dv_srq_post(&s.srq, 1, sg4, 2), 0);
	assert_int_equal(mlx4dv_srq_free_wqe(&s.srq, 16), ERANGE);
	assert_int_equal(mlx4dv_srq_free_wqe(&s.srq, s.srq.tail), EINVAL);
	assert_int_equal(mlx4dv_srq_post(&s.srq, 1, sg4, 4), EINVAL);
	host_srq_free(&s);
}

static void test_bad_completion_for_ring(void **state)
{
	struct frozen_rq r;
	struct host_sq h;
	struct mlx4_cqe send = cqe_send(0x4a, MLX4_OPCODE_SEND, 0);
	struct mlx4_cqe recv = cqe_recv(0x4a, MLX4_RECV_OPCODE_SEND, 4, 0);
	struct mlx4_cqe foreign = cqe_recv(0x99, MLX4_RECV_OPCODE_SEND, 4, 0);
	uint64_t id = 5;

	(void)state;
	open_rq(&r);
	assert_int_equal(mlx4dv_rq_complete(&r.rq, &recv, &id), ERANGE);
	assert_int_equal(mlx4dv_rq_post(&r.rq, 1, sg4, 1), 0);
	assert_int_equal(mlx4dv_rq_complete(&r.rq, &send, &id), EINVAL);
	assert_int_equal(mlx4dv_rq_complete(&r.rq, &foreign, &id), EINVAL);
	assert_int_equal(id, 5);
	assert_int_equal(r.rq.tail, 0);

	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
	assert_int_equal(mlx4dv_sq_complete_cqe(&h.sq, &send, &id), ERANGE);
	assert_int_equal(mlx4dv_sq_write_send(&h.sq, 0, sg4, 1, 0), 0);
	assert_int_equal(mlx4dv_sq_complete_cqe(&h.sq, &recv, &id), EINVAL);
	send = cqe_send(0x4a, MLX4_OPCODE_SEND, 7);	/* not outstanding */
	assert_int_equal(mlx4dv_sq_complete_cqe(&h.sq, &send, &id), ERANGE);
	assert_int_equal(mlx4dv_sq_complete(&h.sq, 7, &id), 0);
	assert_int_equal(h.sq.tail, 0);
	assert_int_equal(id, 5);
	host_sq_free(&h);
}

static void test_bad_cqe_unknown_qpn(void **state)
{
	struct host_cq c;
	struct host_sq h;
	struct mlx4dv_poll_qp pq;
	struct ibv_wc wc;
	struct mlx4_cqe e;

	(void)state;
	host_cq_init(&c, 16, 32, 0);
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
	memset(&pq, 0, sizeof(pq));
	pq.qpn = h.sq.qpn;
	pq.sq = &h.sq;
	assert_int_equal(mlx4dv_sq_write_send(&h.sq, 0, sg4, 1, IBV_SEND_SIGNALED), 0);
	e = cqe_send(0x777, MLX4_OPCODE_SEND, 0);
	host_cq_push(&c, &e);
	e = cqe_send(h.sq.qpn, MLX4_OPCODE_SEND, 0);
	host_cq_push(&c, &e);
	/* reported once as -EINVAL and consumed; polling goes on */
	assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 4, &wc), -EINVAL);
	assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 4, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(rd_be32(&c.set_ci), 2);
	host_sq_free(&h);
	host_cq_free(&c);
}

static void test_bad_syndrome_unknown(void **state)
{
	struct mlx4_cqe e = cqe_error(0x4a, 1, 0x33, 0, 0);

	(void)state;
	assert_int_equal(mlx4dv_cqe_wc_status(&e), IBV_WC_GENERAL_ERR);
	assert_true(mlx4dv_cqe_is_error(&e));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_post_too_many_sges),
		cmocka_unit_test(test_bad_post_inline_too_long),
		cmocka_unit_test(test_bad_post_null_buffers),
		cmocka_unit_test(test_bad_post_wqe_over_63_ds),
		cmocka_unit_test(test_bad_post_ring_full),
		cmocka_unit_test(test_bad_post_wrong_qp_type),
		cmocka_unit_test(test_bad_post_unknown_flags),
		cmocka_unit_test(test_bad_post_read_inline_or_uc),
		cmocka_unit_test(test_bad_post_atomic_args),
		cmocka_unit_test(test_bad_post_ud_without_dest),
		cmocka_unit_test(test_bad_post_eth_frame),
		cmocka_unit_test(test_bad_send_wr),
		cmocka_unit_test(test_bad_ud_av),
		cmocka_unit_test(test_bad_recv_post),
		cmocka_unit_test(test_bad_srq_release),
		cmocka_unit_test(test_bad_completion_for_ring),
		cmocka_unit_test(test_bad_cqe_unknown_qpn),
		cmocka_unit_test(test_bad_syndrome_unknown),
	};

	t_run_group_tests_name("reliability_bad_inputs", tests, NULL, NULL);
	return t_exit();
}
