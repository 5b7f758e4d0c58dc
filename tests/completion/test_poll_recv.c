/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mlx4dv_cq_poll_recv() and mlx4dv_cq_poll_srq_recv() on plain host
 * memory playing the device: a CQ of 8 CQEs, an RQ of 4 WQEs and an SRQ
 * of 8 with wrid tables. Each CQE is written byte by byte from the PRM
 * layout (QPN in bytes 1..3, byte count in 20..23 and wqe_index in 24..25
 * big-endian, send bit 0x40 and opcode in byte 31, owner bit 0x80 of
 * byte 31 set on odd laps); every expected value is worked out by hand.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

#define CQES	8u
#define QPN	0x00abcdu

struct fake {
	struct mlx4dv_cq_ring cq;
	struct mlx4dv_rq_ring rq;
	struct mlx4dv_srq_ring srq;
	uint8_t cqes[CQES * 64] __attribute__((aligned(64)));
	uint8_t rq_buf[4 * 16];
	uint8_t srq_buf[8 * 32];
	uint64_t rq_wrid[4], srq_wrid[8];
	__be32 ci_record, rq_db, srq_db;
};

static void fake_init(struct fake *f, uint32_t cqe_size, uint32_t cons_index)
{
	memset(f, 0, sizeof(*f));
	f->cq.buf = f->cqes;
	f->cq.cqe_cnt = CQES;
	f->cq.cqe_size = cqe_size;
	f->cq.cons_index = cons_index;
	f->cq.set_ci_db = &f->ci_record;
	for (uint32_t n = cons_index; n < cons_index + CQES; n++)
		f->cqes[(n % CQES) * cqe_size + cqe_size - 1] =
			(n & CQES) ? 0x00 : 0x80;
	f->ci_record = 0xdeadbeef;
	f->rq.buf = f->rq_buf;
	f->rq.wqe_cnt = 4;
	f->rq.wqe_shift = 4;
	f->rq.max_scatter = 1;
	f->rq.qpn = QPN;
	f->rq.db = &f->rq_db;
	f->rq.wrid = f->rq_wrid;
	/* SRQ: WQE i links to i + 1, head 0, tail 7 (libmlx4's list) */
	f->srq.buf = f->srq_buf;
	f->srq.wqe_cnt = 8;
	f->srq.wqe_shift = 5;
	f->srq.tail = 7;
	f->srq.max_scatter = 1;
	f->srq.db = &f->srq_db;
	f->srq.wrid = f->srq_wrid;
	for (uint32_t i = 0; i < 8; i++) {
		f->srq_buf[i * 32 + 2] = (uint8_t)((i + 1) >> 8);
		f->srq_buf[i * 32 + 3] = (uint8_t)(i + 1);
	}
}

static void device_cqe(struct fake *f, uint32_t n, uint32_t qpn, uint32_t bytes,
		       uint16_t wqe_index, uint8_t op)
{
	uint32_t size = f->cq.cqe_size;
	uint8_t *v = f->cqes + (n % CQES) * size + size - 32;

	memset(v, 0, 31);
	v[1] = (uint8_t)(qpn >> 16);
	v[2] = (uint8_t)(qpn >> 8);
	v[3] = (uint8_t)qpn;
	v[20] = (uint8_t)(bytes >> 24);
	v[21] = (uint8_t)(bytes >> 16);
	v[22] = (uint8_t)(bytes >> 8);
	v[23] = (uint8_t)bytes;
	v[24] = (uint8_t)(wqe_index >> 8);
	v[25] = (uint8_t)wqe_index;
	v[31] = (uint8_t)((op & 0x7f) | ((n & CQES) ? 0x80 : 0));
}

static const struct ibv_sge sge = { 0x1000, 256, 5 };

/* Three receives of an RQ across the CQ's lap boundary (ci 6, 7, 8: the
 * owner bit flips at 8) and the RQ's slot wrap. */
static void test_rq_takes_in_order(void **state)
{
	for (uint32_t size = 32; size <= 64; size += 32) {
		struct fake f;
		const struct mlx4_cqe *cqe = NULL;
		uint64_t wr_id = 0;
		uint32_t len = 0;

		(void)state;
		fake_init(&f, size, 6);
		f.rq.head = f.rq.tail = 3;
		for (uint32_t i = 0; i < 3; i++)
			assert_int_equal(mlx4dv_rq_write(&f.rq, 0x500 + i, &sge, 1), 0);
		assert_int_equal(mlx4dv_cq_poll_recv(&f.cq, &f.rq, &wr_id, &len, &cqe), EAGAIN);
		device_cqe(&f, 6, QPN, 100, 0, MLX4_RECV_OPCODE_SEND);
		device_cqe(&f, 7, QPN, 0, 0, MLX4_RECV_OPCODE_RDMA_WRITE_IMM);
		device_cqe(&f, 8, QPN, 7, 0, MLX4_RECV_OPCODE_SEND_INVAL);
		assert_int_equal(mlx4dv_cq_poll_recv(&f.cq, &f.rq, &wr_id, &len, &cqe), 0);
		assert_int_equal(wr_id, 0x500);
		assert_int_equal(len, 100);
		assert_ptr_equal(cqe, f.cqes + 6 * size + size - 32);
		assert_int_equal(mlx4dv_cq_poll_recv(&f.cq, &f.rq, &wr_id, &len, NULL), 0);
		assert_int_equal(wr_id, 0x501);
		assert_int_equal(len, 0);
		assert_int_equal(mlx4dv_cq_poll_recv(&f.cq, &f.rq, NULL, NULL, NULL), 0);
		assert_int_equal(f.cq.cons_index, 9);
		assert_int_equal(f.rq.tail, 6);
		assert_int_equal(f.ci_record, 0xdeadbeef);	/* not written */
		assert_int_equal(mlx4dv_cq_poll_recv(&f.cq, &f.rq, &wr_id, &len, &cqe), EAGAIN);
	}
}

/* Every refusal consumes nothing and writes no output. */
static void test_rq_refusals(void **state)
{
	static const struct { uint32_t qpn; uint8_t op; int ret; } bad[] = {
		{ QPN, 0x1e, EIO },		/* receive error CQE */
		{ QPN, 0x40 | 0x1e, EINVAL },	/* send error CQE */
		{ QPN, 0x40 | 0x0a, EINVAL },	/* good send CQE */
		{ QPN, 0x04, EINVAL },		/* no receive opcode */
		{ QPN, 0x16, EINVAL },		/* resize */
		{ QPN + 1, MLX4_RECV_OPCODE_SEND, EINVAL },
	};
	struct fake f;
	uint64_t wr_id = 77;
	uint32_t len = 88;
	const struct mlx4_cqe *cqe = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_init(&f, 32, 0);
		assert_int_equal(mlx4dv_rq_write(&f.rq, 1, &sge, 1), 0);
		device_cqe(&f, 0, bad[i].qpn, 5, 0, bad[i].op);
		assert_int_equal(mlx4dv_cq_poll_recv(&f.cq, &f.rq, &wr_id, &len, &cqe),
				 bad[i].ret);
		assert_int_equal(f.cq.cons_index, 0);
		assert_int_equal(f.rq.tail, 0);
	}
	/* nothing outstanding */
	fake_init(&f, 32, 0);
	device_cqe(&f, 0, QPN, 5, 0, MLX4_RECV_OPCODE_SEND);
	assert_int_equal(mlx4dv_cq_poll_recv(&f.cq, &f.rq, &wr_id, &len, &cqe), ERANGE);
	assert_int_equal(f.cq.cons_index, 0);
	assert_int_equal(wr_id, 77);
	assert_int_equal(len, 88);
	assert_null(cqe);
}

/* SRQ receives complete out of order: wqe_index names the WQE, which goes
 * back to the free list behind the tail. */
static void test_srq_takes_by_index(void **state)
{
	struct fake f;
	uint64_t wr_id = 0;
	uint32_t len = 0;

	(void)state;
	fake_init(&f, 64, 0);
	for (uint32_t i = 0; i < 3; i++)	/* WQEs 0, 1, 2 */
		assert_int_equal(mlx4dv_srq_write(&f.srq, 0x900 + i, &sge, 1), 0);
	device_cqe(&f, 0, 0x11, 64, 2, MLX4_RECV_OPCODE_SEND_IMM);
	device_cqe(&f, 1, 0x12, 32, 0, MLX4_RECV_OPCODE_SEND);
	assert_int_equal(mlx4dv_cq_poll_srq_recv(&f.cq, &f.srq, &wr_id, &len, NULL), 0);
	assert_int_equal(wr_id, 0x902);
	assert_int_equal(len, 64);
	assert_int_equal(f.srq.tail, 2);
	/* the old tail (7) now links to WQE 2, big-endian */
	assert_int_equal(f.srq_buf[7 * 32 + 2], 0);
	assert_int_equal(f.srq_buf[7 * 32 + 3], 2);
	assert_int_equal(mlx4dv_cq_poll_srq_recv(&f.cq, &f.srq, &wr_id, &len, NULL), 0);
	assert_int_equal(wr_id, 0x900);
	assert_int_equal(len, 32);
	assert_int_equal(f.srq.tail, 0);
	assert_int_equal(f.srq_buf[2 * 32 + 3], 0);
	assert_int_equal(f.cq.cons_index, 2);
	/* refusals: an index out of range, the tail, an error, a send */
	device_cqe(&f, 2, 0x11, 1, 8, MLX4_RECV_OPCODE_SEND);
	assert_int_equal(mlx4dv_cq_poll_srq_recv(&f.cq, &f.srq, &wr_id, &len, NULL),
			 ERANGE);
	device_cqe(&f, 2, 0x11, 1, 0, MLX4_RECV_OPCODE_SEND);
	assert_int_equal(mlx4dv_cq_poll_srq_recv(&f.cq, &f.srq, &wr_id, &len, NULL),
			 EINVAL);
	device_cqe(&f, 2, 0x11, 1, 1, 0x1e);
	assert_int_equal(mlx4dv_cq_poll_srq_recv(&f.cq, &f.srq, &wr_id, &len, NULL),
			 EIO);
	device_cqe(&f, 2, 0x11, 1, 1, 0x40 | 0x0a);
	assert_int_equal(mlx4dv_cq_poll_srq_recv(&f.cq, &f.srq, &wr_id, &len, NULL),
			 EINVAL);
	assert_int_equal(f.cq.cons_index, 2);
	assert_int_equal(f.srq.tail, 0);
	assert_int_equal(wr_id, 0x900);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rq_takes_in_order),
		cmocka_unit_test(test_rq_refusals),
		cmocka_unit_test(test_srq_takes_by_index),
	};

	t_run_group_tests_name("completion_poll_recv", tests, NULL, NULL);
	return t_exit();
}
