/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mlx4dv_cq_poll_send() on plain host memory playing the device: a CQ of
 * 8 CQEs and an SQ of 8 WQEBBs of 64 bytes with a wrid table. Each CQE is
 * written byte by byte from the PRM layout (QPN in bytes 1..3, wqe_index
 * in bytes 24..25 big-endian, send bit 0x40 and opcode in byte 31, owner
 * bit 0x80 of byte 31 set on odd laps); every expected value below is
 * worked out by hand from the ring state the test sets up.
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
#define WQEBBS	8u
#define QPN	0x123456u
#define SEND_RDMA_WRITE	(0x40 | 0x08)	/* send bit | MLX4_OPCODE_RDMA_WRITE */

struct fake {
	struct mlx4dv_cq_ring cq;
	struct mlx4dv_sq_ring sq;
	uint8_t cqes[CQES * 64] __attribute__((aligned(64)));
	uint8_t wqes[WQEBBS * 64] __attribute__((aligned(64)));
	uint64_t wrid[WQEBBS];
	__be32 ci_record;
};

/* Every CQE slot device-owned for the lap of cons_index; the SQ holds
 * head - tail outstanding one-WQEBB WQEs, wrid[i] = 0xa0 + i. */
static void fake_init(struct fake *f, uint32_t cqe_size, uint32_t cons_index,
		      uint32_t tail, uint32_t head)
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
	f->ci_record = 0xdeadbeef;	/* the poll must not write it */
	f->sq.buf = f->wqes;
	f->sq.wqe_cnt = WQEBBS;
	f->sq.wqe_shift = 6;
	f->sq.tail = tail;
	f->sq.head = head;
	f->sq.qpn = QPN;
	/* qpn << 8, big-endian: bytes 12 34 56 00 (the poll compares the
	 * CQE's QPN with this word). */
	memcpy(&f->sq.doorbell_qpn, "\x12\x34\x56\x00", 4);
	f->sq.wrid = f->wrid;
	f->sq.single_wqebb = 1;
	for (uint32_t i = 0; i < WQEBBS; i++)
		f->wrid[i] = 0xa0 + i;
}

/* Device side: CQE n with QPN qpn, wqe_index, and last byte op (send bit
 * and opcode); the owner bit follows the lap of n. */
static void device_cqe(struct fake *f, uint32_t n, uint32_t qpn,
		       uint16_t wqe_index, uint8_t op)
{
	uint32_t size = f->cq.cqe_size;
	uint8_t *v = f->cqes + (n % CQES) * size + size - 32;

	memset(v, 0, 31);
	v[0] = 0x00;
	v[1] = (uint8_t)(qpn >> 16);
	v[2] = (uint8_t)(qpn >> 8);
	v[3] = (uint8_t)qpn;
	v[24] = (uint8_t)(wqe_index >> 8);
	v[25] = (uint8_t)wqe_index;
	v[31] = (uint8_t)((op & 0x7f) | ((n & CQES) ? 0x80 : 0));
}

/* Nothing moved: cons_index, tail, record and the caller's wr_id. */
static void assert_untouched(const struct fake *f, uint32_t ci, uint32_t tail,
			     uint64_t wr_id)
{
	assert_int_equal(f->cq.cons_index, ci);
	assert_int_equal(f->sq.tail, tail);
	assert_int_equal(f->ci_record, 0xdeadbeef);
	assert_int_equal(wr_id, 0x5555);
}

static void test_empty(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 0, 0, 3);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EAGAIN);
	assert_untouched(&f, 0, 0, wr_id);
}

static void check_take(uint32_t cqe_size)
{
	struct fake f;
	uint64_t wr_id = 0x5555;
	const uint8_t record[4] = { 0x00, 0x00, 0x00, 0x01 };

	fake_init(&f, cqe_size, 0, 0, 5);
	/* WQEs 0..4 outstanding; the CQE names WQE 2: WQEs 0, 1 (unsignaled)
	 * and 2 complete, tail = 3, wr_id = wrid[2] = 0xa2. */
	device_cqe(&f, 0, QPN, 2, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0xa2);
	assert_int_equal(f.sq.tail, 3);
	assert_int_equal(f.cq.cons_index, 1);
	assert_int_equal(f.ci_record, 0xdeadbeef);
	/* The record is the caller's step: 1, big-endian. */
	mlx4dv_cq_update_ci(&f.cq);
	assert_memory_equal(&f.ci_record, record, 4);
	/* Nothing more in the CQ. */
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EAGAIN);
}

static void test_take_32(void **state)
{
	(void)state;
	check_take(32);
}

static void test_take_64(void **state)
{
	(void)state;
	check_take(64);
}

/* CQE 8 of an 8-entry CQ is on lap 1: owner bit 1 means software's. */
static void test_odd_lap(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 8, 4, 6);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EAGAIN);
	device_cqe(&f, 8, QPN, 4, SEND_RDMA_WRITE);
	assert_int_equal(f.cqes[31], 0xc8);	/* owner | send | RDMA write */
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0xa4);
	assert_int_equal(f.sq.tail, 5);
	assert_int_equal(f.cq.cons_index, 9);
}

static void test_error_cqe(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 0, 0, 3);
	/* A send error (flush) CQE: left for mlx4dv_cq_next(). */
	device_cqe(&f, 0, QPN, 0, 0x40 | 0x1e);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EIO);
	assert_untouched(&f, 0, 0, wr_id);
	/* A receive error CQE is an error first. */
	device_cqe(&f, 0, QPN, 0, 0x1e);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EIO);
	assert_untouched(&f, 0, 0, wr_id);
	/* Still there for the general path. */
	assert_non_null(mlx4dv_cq_peek(&f.cq));
}

static void test_not_this_sq(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 0, 0, 3);
	/* A receive (send bit clear, MLX4_RECV_OPCODE_SEND). */
	device_cqe(&f, 0, QPN, 0, 0x01);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EINVAL);
	assert_untouched(&f, 0, 0, wr_id);
	/* Another QP's send, differing in the top QPN byte only. */
	device_cqe(&f, 0, QPN ^ 0x800000, 0, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EINVAL);
	assert_untouched(&f, 0, 0, wr_id);
	/* Opcode 0x1f with the send bit: no CQE opcode. */
	device_cqe(&f, 0, QPN, 0, 0x5f);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), EINVAL);
	assert_untouched(&f, 0, 0, wr_id);
	/* Byte 0 (VLAN bits) is not part of the QPN. */
	device_cqe(&f, 0, QPN, 0, SEND_RDMA_WRITE);
	f.cqes[0] = 0xff;
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0xa0);
}

static void test_out_of_range(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	/* Outstanding: 10..12. */
	fake_init(&f, 32, 0, 10, 13);
	device_cqe(&f, 0, QPN, 13, SEND_RDMA_WRITE);	/* = head: not posted */
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), ERANGE);
	assert_untouched(&f, 0, 10, wr_id);
	device_cqe(&f, 0, QPN, 9, SEND_RDMA_WRITE);	/* already completed */
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), ERANGE);
	assert_untouched(&f, 0, 10, wr_id);
	device_cqe(&f, 0, QPN, 12, SEND_RDMA_WRITE);	/* the last one */
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0xa4);			/* 12 % 8 */
	assert_int_equal(f.sq.tail, 13);
	/* Empty SQ: every index is out of range. */
	device_cqe(&f, 1, QPN, 13, SEND_RDMA_WRITE);
	wr_id = 0x5555;
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), ERANGE);
	assert_untouched(&f, 1, 13, wr_id);
}

/* wqe_index is 16 bits: tail 0xfffe, head 0x10003; index 0x0001 names
 * WQEBB 0x10001 (slot 1). */
static void test_wqe_index_wrap(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 0, 0xfffe, 0x10003);
	device_cqe(&f, 0, QPN, 0x0001, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0xa1);
	assert_int_equal(f.sq.tail, 0x10002);
}

/* The producer count wraps at 2^32: tail 0xfffffffe, head 2; index 0x0000
 * names WQEBB 0 (slot 0); index 0x0002 (= head) names nothing. */
static void test_count_wrap(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 0, 0xfffffffe, 2);
	device_cqe(&f, 0, QPN, 0x0002, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), ERANGE);
	assert_untouched(&f, 0, 0xfffffffe, wr_id);
	device_cqe(&f, 0, QPN, 0x0000, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0xa0);
	assert_int_equal(f.sq.tail, 1);
}

/* single_wqebb 0: the size is read from the WQE's ds. WQE at WQEBB 1 with
 * ds 8 (128 bytes = 2 WQEBBs of 64): tail 0 -> 3. */
static void test_multi_wqebb(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 0, 0, 4);
	f.sq.single_wqebb = 0;
	f.wqes[0 * 64 + 7] = 1;		/* fence_size: ds 1 */
	f.wqes[1 * 64 + 7] = 8;		/* ds 8 */
	device_cqe(&f, 0, QPN, 1, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0xa1);
	assert_int_equal(f.sq.tail, 3);
	/* A WQE of 2 WQEBBs at WQEBB 3 with only one left before head. */
	f.wqes[3 * 64 + 7] = 8;
	device_cqe(&f, 1, QPN, 3, SEND_RDMA_WRITE);
	wr_id = 0x5555;
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), ERANGE);
	assert_untouched(&f, 1, 3, wr_id);
}

/* No wrid table: wr_id 0; a NULL wr_id pointer is allowed. */
static void test_no_wrid(void **state)
{
	struct fake f;
	uint64_t wr_id = 0x5555;

	(void)state;
	fake_init(&f, 32, 0, 0, 2);
	f.sq.wrid = NULL;
	device_cqe(&f, 0, QPN, 0, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, &wr_id), 0);
	assert_int_equal(wr_id, 0);
	device_cqe(&f, 1, QPN, 1, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_send(&f.cq, &f.sq, NULL), 0);
	assert_int_equal(f.sq.tail, 2);
	assert_int_equal(f.cq.cons_index, 2);
}

/* mlx4dv_cq_poll_sq_burst(): wr_ids past *taken keep this value. */
#define UNWRITTEN	0x5555u

static void fill_unwritten(uint64_t *ids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		ids[i] = UNWRITTEN;
}

/* Three CQEs then a device-owned slot: WQEs 0..5 outstanding, the CQEs
 * name 1, 2 and 5 (0, 3 and 4 unsignaled): ids a1 a2 a5, tail 6, ci 3. */
static void check_burst_until_empty(uint32_t cqe_size)
{
	struct fake f;
	uint64_t ids[8];
	uint32_t taken = 99;

	fake_init(&f, cqe_size, 0, 0, 6);
	device_cqe(&f, 0, QPN, 1, SEND_RDMA_WRITE);
	device_cqe(&f, 1, QPN, 2, SEND_RDMA_WRITE);
	device_cqe(&f, 2, QPN, 5, SEND_RDMA_WRITE);
	fill_unwritten(ids, 8);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 8, ids, &taken),
			 EAGAIN);
	assert_int_equal(taken, 3);
	assert_int_equal(ids[0], 0xa1);
	assert_int_equal(ids[1], 0xa2);
	assert_int_equal(ids[2], 0xa5);
	assert_int_equal(ids[3], UNWRITTEN);
	assert_int_equal(f.sq.tail, 6);
	assert_int_equal(f.cq.cons_index, 3);
	assert_int_equal(f.ci_record, 0xdeadbeef);
	/* Empty now: nothing taken, nothing written. */
	fill_unwritten(ids, 8);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 8, ids, &taken),
			 EAGAIN);
	assert_int_equal(taken, 0);
	assert_int_equal(ids[0], UNWRITTEN);
	assert_untouched(&f, 3, 6, UNWRITTEN);
}

static void test_burst_until_empty_32(void **state)
{
	(void)state;
	check_burst_until_empty(32);
}

static void test_burst_until_empty_64(void **state)
{
	(void)state;
	check_burst_until_empty(64);
}

/* max reached first: 0, and the third CQE stays for the next call. */
static void test_burst_max(void **state)
{
	struct fake f;
	uint64_t ids[2];
	uint32_t taken = 99;

	(void)state;
	fake_init(&f, 32, 0, 0, 3);
	for (uint32_t n = 0; n < 3; n++)
		device_cqe(&f, n, QPN, (uint16_t)n, SEND_RDMA_WRITE);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 2, ids, &taken), 0);
	assert_int_equal(taken, 2);
	assert_int_equal(ids[0], 0xa0);
	assert_int_equal(ids[1], 0xa1);
	assert_int_equal(f.sq.tail, 2);
	assert_int_equal(f.cq.cons_index, 2);
	/* max 0 takes nothing and says so with 0. */
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 0, ids, &taken), 0);
	assert_int_equal(taken, 0);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 2, ids, &taken),
			 EAGAIN);
	assert_int_equal(taken, 1);
	assert_int_equal(ids[0], 0xa2);
	assert_int_equal(f.sq.tail, 3);
}

/* A CQE the lean poll refuses ends the burst with its errno; the CQEs
 * before it are taken, it is not. */
static void check_burst_stops(uint32_t qpn, uint16_t wqe_index, uint8_t op,
			      int expect)
{
	struct fake f;
	uint64_t ids[4];
	uint32_t taken = 99;

	fake_init(&f, 32, 0, 0, 3);
	device_cqe(&f, 0, QPN, 0, SEND_RDMA_WRITE);
	device_cqe(&f, 1, qpn, wqe_index, op);
	device_cqe(&f, 2, QPN, 2, SEND_RDMA_WRITE);
	fill_unwritten(ids, 4);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 4, ids, &taken),
			 expect);
	assert_int_equal(taken, 1);
	assert_int_equal(ids[0], 0xa0);
	assert_int_equal(ids[1], UNWRITTEN);
	assert_untouched(&f, 1, 1, UNWRITTEN);
	assert_ptr_equal(mlx4dv_cq_peek(&f.cq), (const void *)(f.cqes + 32));
}

static void test_burst_stops(void **state)
{
	(void)state;
	check_burst_stops(QPN, 1, 0x40 | 0x1e, EIO);		/* send error */
	check_burst_stops(QPN, 1, 0x1e, EIO);			/* receive error */
	check_burst_stops(QPN, 1, 0x01, EINVAL);		/* a receive */
	check_burst_stops(QPN ^ 0x800000, 1, SEND_RDMA_WRITE, EINVAL);
	check_burst_stops(QPN ^ 0x000001, 1, SEND_RDMA_WRITE, EINVAL);
	check_burst_stops(QPN, 1, 0x5f, EINVAL);		/* opcode 0x1f */
	check_burst_stops(QPN, 3, SEND_RDMA_WRITE, ERANGE);	/* = head */
	check_burst_stops(QPN, 0, SEND_RDMA_WRITE, ERANGE);	/* completed */
}

/* Across the 16-bit wqe_index, the 32-bit count and the CQ's lap: tail
 * 0xfffffffe, head 3, ci 6 (CQEs 6, 7, 8, 9: slots 6, 7, 0, 1, the owner
 * bit flips at 8); the indexes 0xffff, 0x0000, 0x0002 name WQEBBs
 * 0xffffffff, 0, 2 (slots 7, 0, 2). */
static void test_burst_wraps(void **state)
{
	struct fake f;
	uint64_t ids[4];
	uint32_t taken = 99;

	(void)state;
	fake_init(&f, 64, 6, 0xfffffffe, 3);
	device_cqe(&f, 6, QPN, 0xffff, SEND_RDMA_WRITE);
	device_cqe(&f, 7, QPN, 0x0000, SEND_RDMA_WRITE);
	device_cqe(&f, 8, QPN, 0x0002, SEND_RDMA_WRITE);
	fill_unwritten(ids, 4);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 4, ids, &taken),
			 EAGAIN);
	assert_int_equal(taken, 3);
	assert_int_equal(ids[0], 0xa7);
	assert_int_equal(ids[1], 0xa0);
	assert_int_equal(ids[2], 0xa2);
	assert_int_equal(f.sq.tail, 3);
	assert_int_equal(f.cq.cons_index, 9);
}

/* single_wqebb 0: each CQE by mlx4dv_cq_poll_sq(), WQE sizes from the
 * ds: WQEBB 1 holds 2 WQEBBs (ds 8), WQEBB 3 one (ds 1): tail 0 -> 3 -> 4. */
static void test_burst_multi_wqebb(void **state)
{
	struct fake f;
	uint64_t ids[4];
	uint32_t taken = 99;

	(void)state;
	fake_init(&f, 32, 0, 0, 4);
	f.sq.single_wqebb = 0;
	f.wqes[0 * 64 + 7] = 1;
	f.wqes[1 * 64 + 7] = 8;
	f.wqes[3 * 64 + 7] = 1;
	device_cqe(&f, 0, QPN, 1, SEND_RDMA_WRITE);
	device_cqe(&f, 1, QPN, 3, SEND_RDMA_WRITE);
	fill_unwritten(ids, 4);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 4, ids, &taken),
			 EAGAIN);
	assert_int_equal(taken, 2);
	assert_int_equal(ids[0], 0xa1);
	assert_int_equal(ids[1], 0xa3);
	assert_int_equal(ids[2], UNWRITTEN);
	assert_int_equal(f.sq.tail, 4);
	assert_int_equal(f.cq.cons_index, 2);
}

/* No wrid table: ids 0; no wr_ids array: only the counts move. */
static void test_burst_no_wrid(void **state)
{
	struct fake f;
	uint64_t ids[2];
	uint32_t taken = 99;

	(void)state;
	fake_init(&f, 32, 0, 0, 4);
	f.sq.wrid = NULL;
	for (uint32_t n = 0; n < 4; n++)
		device_cqe(&f, n, QPN, (uint16_t)n, SEND_RDMA_WRITE);
	fill_unwritten(ids, 2);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 2, ids, &taken), 0);
	assert_int_equal(taken, 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 0);
	assert_int_equal(mlx4dv_cq_poll_sq_burst(&f.cq, &f.sq, 2, NULL, &taken), 0);
	assert_int_equal(taken, 2);
	assert_int_equal(f.sq.tail, 4);
	assert_int_equal(f.cq.cons_index, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_take_32),
		cmocka_unit_test(test_take_64),
		cmocka_unit_test(test_odd_lap),
		cmocka_unit_test(test_error_cqe),
		cmocka_unit_test(test_not_this_sq),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_wqe_index_wrap),
		cmocka_unit_test(test_count_wrap),
		cmocka_unit_test(test_multi_wqebb),
		cmocka_unit_test(test_no_wrid),
		cmocka_unit_test(test_burst_until_empty_32),
		cmocka_unit_test(test_burst_until_empty_64),
		cmocka_unit_test(test_burst_max),
		cmocka_unit_test(test_burst_stops),
		cmocka_unit_test(test_burst_wraps),
		cmocka_unit_test(test_burst_multi_wqebb),
		cmocka_unit_test(test_burst_no_wrid),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
