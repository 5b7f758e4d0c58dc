/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Receive posting and completion accounting on host memory: golden bytes
 * of RQ and SRQ WQEs and doorbell records (literals laid out by hand from
 * the data-segment layout: byte_count, lkey, addr, all big-endian; SRQ
 * WQEs start with a 16-byte next segment whose bytes 2..3 are the next
 * free WQE), the terminating {0, 0x100, 0} entry, bad input, full rings,
 * 16-bit wraps, the SRQ free list, send completions across the 16-bit
 * wqe_index wrap, and CQEs that do not fit the ring they are applied to.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

#define POISON 0xcc

/* ---- fixtures ---- */

static const struct ibv_sge two_sges[2] = {
	{ .addr = 0x0102030405060708ULL, .length = 0x100, .lkey = 0x11223344 },
	{ .addr = 0x1122334455667788ULL, .length = 0x20, .lkey = 0x55667788 },
};

/* Data segments of the two SGEs above, then the terminator. */
static const uint8_t two_sges_bytes[48] = {
	0x00, 0x00, 0x01, 0x00, 0x11, 0x22, 0x33, 0x44,
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	0x00, 0x00, 0x00, 0x20, 0x55, 0x66, 0x77, 0x88,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void assert_poison(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		assert_int_equal(p[i], POISON);
}

/* A receive (or send) CQE for qpn with wqe_index. */
static struct mlx4_cqe cqe_for(uint32_t qpn, uint16_t wqe_index, uint8_t last)
{
	struct mlx4_cqe c;
	uint8_t *b = (uint8_t *)&c;

	memset(&c, 0, sizeof(c));
	b[1] = (uint8_t)(qpn >> 16);
	b[2] = (uint8_t)(qpn >> 8);
	b[3] = (uint8_t)qpn;
	b[24] = (uint8_t)(wqe_index >> 8);
	b[25] = (uint8_t)wqe_index;
	b[31] = last;
	return c;
}

/* ---- RQ ---- */

struct fake_rq {
	struct mlx4dv_rq_ring ring;
	uint8_t buf[8 * 64] __attribute__((aligned(64)));
	__be32 db;
	uint64_t wrid[8];
};

static void fake_rq_init(struct fake_rq *f, uint32_t wqe_cnt, uint32_t wqe_shift)
{
	memset(f, 0, sizeof(*f));
	memset(f->buf, POISON, sizeof(f->buf));
	f->ring.buf = f->buf;
	f->ring.wqe_cnt = wqe_cnt;
	f->ring.wqe_shift = wqe_shift;
	f->ring.max_scatter = (1u << wqe_shift) / 16;
	f->ring.qpn = 0x000321;
	f->ring.db = &f->db;
	f->ring.wrid = f->wrid;
}

static void test_rq_golden(void **state)
{
	struct fake_rq f;

	(void)state;
	fake_rq_init(&f, 4, 6);		/* 64-byte WQEs: 4 scatter entries */
	assert_int_equal(mlx4dv_rq_post(&f.ring, 0xabc, two_sges, 2), 0);
	assert_memory_equal(f.buf, two_sges_bytes, 48);
	assert_poison(f.buf + 48, 16);	/* beyond the terminator: untouched */
	assert_poison(f.buf + 64, sizeof(f.buf) - 64);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x01}), 4);
	assert_int_equal(f.wrid[0], 0xabc);
	assert_int_equal(f.ring.head, 1);

	/* Zero SGEs: just the terminator. */
	assert_int_equal(mlx4dv_rq_post(&f.ring, 0xdef, NULL, 0), 0);
	assert_memory_equal(f.buf + 64, two_sges_bytes + 32, 16);
	assert_poison(f.buf + 80, 48);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x02}), 4);
}

/* A full WQE (num_sge == max_scatter) has no terminator. */
static void test_rq_full_wqe_no_terminator(void **state)
{
	struct fake_rq f;

	(void)state;
	fake_rq_init(&f, 4, 5);		/* 32-byte WQEs: 2 scatter entries */
	assert_int_equal(mlx4dv_rq_post(&f.ring, 1, two_sges, 2), 0);
	assert_memory_equal(f.buf, two_sges_bytes, 32);
	assert_poison(f.buf + 32, sizeof(f.buf) - 32);
}

static void test_rq_bad_input(void **state)
{
	struct fake_rq f;
	struct ibv_sge three[3] = { two_sges[0], two_sges[1], two_sges[0] };

	(void)state;
	fake_rq_init(&f, 4, 5);		/* 2 scatter entries */
	assert_int_equal(mlx4dv_rq_post(&f.ring, 1, three, 3), EINVAL);
	assert_int_equal(mlx4dv_rq_post(&f.ring, 1, three, -1), EINVAL);
	assert_poison(f.buf, sizeof(f.buf));
	assert_int_equal(f.db, 0);
	assert_int_equal(f.ring.head, 0);
}

static void test_rq_full_ring(void **state)
{
	struct fake_rq f;
	uint8_t before[sizeof(f.buf)];
	int i;

	(void)state;
	fake_rq_init(&f, 4, 5);
	for (i = 0; i < 4; i++)
		assert_int_equal(mlx4dv_rq_write(&f.ring, (uint64_t)i, two_sges, 1), 0);
	memcpy(before, f.buf, sizeof(before));
	assert_int_equal(mlx4dv_rq_post(&f.ring, 9, two_sges, 1), ENOMEM);
	assert_memory_equal(f.buf, before, sizeof(before));
	assert_int_equal(f.db, 0);	/* write() rings no doorbell */
	mlx4dv_rq_ring_doorbell(&f.ring);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x04}), 4);
	/* One completion makes room for exactly one. */
	{
		struct mlx4_cqe c = cqe_for(0x321, 0, MLX4_RECV_OPCODE_SEND);
		uint64_t wr_id = 0;

		assert_int_equal(mlx4dv_rq_complete(&f.ring, &c, &wr_id), 0);
		assert_int_equal(wr_id, 0);
		assert_int_equal(mlx4dv_rq_post(&f.ring, 4, two_sges, 1), 0);
		assert_int_equal(mlx4dv_rq_post(&f.ring, 5, two_sges, 1), ENOMEM);
	}
}

/* mlx4dv_rq_write_burst(): the bytes of one-entry mlx4dv_rq_write()s. */
static void test_rq_write_burst_golden(void **state)
{
	struct fake_rq f;
	const uint64_t ids[3] = { 0x11, 0x22, 0x33 };
	const struct ibv_sge sg[3] = { two_sges[0], two_sges[1], two_sges[0] };

	(void)state;
	fake_rq_init(&f, 4, 6);		/* 64-byte WQEs: 4 scatter entries */
	f.ring.head = f.ring.tail = 2;	/* WQEs 2, 3, 0 (the ring wraps) */
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 3, ids, sg), 0);
	assert_int_equal(f.ring.head, 5);
	assert_int_equal(f.db, 0);	/* no doorbell */
	/* Each WQE: its entry, then the terminator. */
	assert_memory_equal(f.buf + 2 * 64, two_sges_bytes, 16);
	assert_memory_equal(f.buf + 2 * 64 + 16, two_sges_bytes + 32, 16);
	assert_memory_equal(f.buf + 3 * 64, two_sges_bytes + 16, 32);
	assert_memory_equal(f.buf + 0 * 64, two_sges_bytes, 16);
	assert_memory_equal(f.buf + 0 * 64 + 16, two_sges_bytes + 32, 16);
	assert_poison(f.buf + 0 * 64 + 32, 32);
	assert_poison(f.buf + 1 * 64, 64);
	assert_poison(f.buf + 2 * 64 + 32, 32);
	assert_poison(f.buf + 3 * 64 + 32, 32);
	assert_int_equal(f.wrid[2], 0x11);
	assert_int_equal(f.wrid[3], 0x22);
	assert_int_equal(f.wrid[0], 0x33);
	mlx4dv_rq_ring_doorbell(&f.ring);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x05}), 4);
}

/* One scatter entry per WQE: no terminator; count 0 writes nothing. */
static void test_rq_write_burst_one_entry(void **state)
{
	struct fake_rq f;
	const uint64_t ids[2] = { 7, 8 };

	(void)state;
	fake_rq_init(&f, 4, 4);		/* 16-byte WQEs: 1 scatter entry */
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 0, ids, NULL), 0);
	assert_poison(f.buf, sizeof(f.buf));
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 2, ids, two_sges), 0);
	assert_memory_equal(f.buf, two_sges_bytes, 32);
	assert_poison(f.buf + 32, sizeof(f.buf) - 32);
	assert_int_equal(f.wrid[0], 7);
	assert_int_equal(f.wrid[1], 8);
	assert_int_equal(f.ring.head, 2);
}

/* All or nothing: a burst that does not fit, a ring without scatter
 * entries, no wr_ids for a wrid table; without a table wr_ids may be NULL. */
static void test_rq_write_burst_refused(void **state)
{
	struct fake_rq f;
	const uint64_t ids[4] = { 1, 2, 3, 4 };
	const struct ibv_sge sg[4] = { two_sges[0], two_sges[0], two_sges[0],
				       two_sges[0] };

	(void)state;
	fake_rq_init(&f, 4, 5);
	f.ring.tail = 0x10;
	f.ring.head = 0x11;		/* 1 outstanding: room for 3 */
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 4, ids, sg), ENOMEM);
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 3, NULL, sg), EINVAL);
	f.ring.max_scatter = 0;
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 1, ids, sg), EINVAL);
	f.ring.max_scatter = 2;
	assert_poison(f.buf, sizeof(f.buf));
	assert_int_equal(f.ring.head, 0x11);
	assert_int_equal(f.wrid[1], 0);
	f.ring.wrid = NULL;
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 3, NULL, sg), 0);
	assert_int_equal(f.ring.head, 0x14);
	assert_memory_equal(f.buf + 1 * 32, two_sges_bytes, 16);
	assert_memory_equal(f.buf + 1 * 32 + 16, two_sges_bytes + 32, 16);
	assert_poison(f.buf + 0 * 32, 32);
	assert_int_equal(mlx4dv_rq_write_burst(&f.ring, 1, ids, sg), ENOMEM);
}

/* The doorbell record holds head modulo 2^16, across the 32-bit wrap. */
static void test_rq_doorbell_wrap(void **state)
{
	static const struct {
		uint32_t head;
		uint8_t db[4];
	} cases[] = {
		{ 0x0000fffe, {0x00, 0x00, 0xff, 0xff} },
		{ 0x0000ffff, {0x00, 0x00, 0x00, 0x00} },
		{ 0x0001ffff, {0x00, 0x00, 0x00, 0x00} },
		{ 0x12345678, {0x00, 0x00, 0x56, 0x79} },
		{ 0xffffffff, {0x00, 0x00, 0x00, 0x00} },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_rq f;

		fake_rq_init(&f, 4, 5);
		f.ring.head = cases[i].head;
		f.ring.tail = cases[i].head;
		assert_int_equal(mlx4dv_rq_post(&f.ring, 7, two_sges, 1), 0);
		assert_memory_equal(&f.db, cases[i].db, 4);
		assert_int_equal(f.wrid[cases[i].head & 3], 7);
	}
}

static void test_rq_post_list_all_or_nothing(void **state)
{
	struct fake_rq f;
	struct ibv_sge three[3] = { two_sges[0], two_sges[1], two_sges[0] };
	struct ibv_recv_wr wr[3];
	const struct ibv_recv_wr *bad = NULL;

	(void)state;
	fake_rq_init(&f, 4, 5);
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 10; wr[0].sg_list = (struct ibv_sge *)two_sges; wr[0].num_sge = 2;
	wr[0].next = &wr[1];
	wr[1].wr_id = 11; wr[1].sg_list = three; wr[1].num_sge = 3;	/* too many */
	wr[1].next = &wr[2];
	wr[2].wr_id = 12; wr[2].sg_list = (struct ibv_sge *)two_sges; wr[2].num_sge = 1;
	assert_int_equal(mlx4dv_rq_post_list(&f.ring, wr, &bad), EINVAL);
	assert_ptr_equal(bad, &wr[1]);
	assert_poison(f.buf, sizeof(f.buf));
	assert_int_equal(f.ring.head, 0);
	assert_int_equal(f.db, 0);

	wr[1].num_sge = 1;
	assert_int_equal(mlx4dv_rq_post_list(&f.ring, wr, &bad), 0);
	assert_int_equal(f.ring.head, 3);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x03}), 4);
	assert_memory_equal(f.buf, two_sges_bytes, 32);
	assert_int_equal(f.wrid[2], 12);

	/* Two more do not fit in the one slot left. */
	bad = NULL;
	wr[1].next = NULL;
	assert_int_equal(mlx4dv_rq_post_list(&f.ring, wr, &bad), ENOMEM);
	assert_ptr_equal(bad, &wr[1]);
	assert_int_equal(f.ring.head, 3);
	assert_int_equal(mlx4dv_rq_post_list(&f.ring, NULL, &bad), 0);
}

static void test_rq_complete_checks(void **state)
{
	struct fake_rq f;
	struct mlx4_cqe good = cqe_for(0x321, 0, MLX4_RECV_OPCODE_SEND);
	struct mlx4_cqe other_qp = cqe_for(0x322, 0, MLX4_RECV_OPCODE_SEND);
	struct mlx4_cqe send = cqe_for(0x321, 0, 0x40 | MLX4_OPCODE_SEND);
	struct mlx4_cqe flush = cqe_for(0x321, 0, MLX4_CQE_OPCODE_ERROR);
	uint64_t wr_id = 0;

	(void)state;
	fake_rq_init(&f, 4, 5);
	/* Nothing outstanding. */
	assert_int_equal(mlx4dv_rq_complete(&f.ring, &good, &wr_id), ERANGE);
	assert_int_equal(mlx4dv_rq_post(&f.ring, 0x77, two_sges, 1), 0);
	assert_int_equal(mlx4dv_rq_post(&f.ring, 0x78, two_sges, 1), 0);
	assert_int_equal(mlx4dv_rq_complete(&f.ring, &other_qp, &wr_id), EINVAL);
	assert_int_equal(mlx4dv_rq_complete(&f.ring, &send, &wr_id), EINVAL);
	assert_int_equal(f.ring.tail, 0);
	assert_int_equal(mlx4dv_rq_complete(&f.ring, &good, &wr_id), 0);
	assert_int_equal(wr_id, 0x77);
	/* Flush errors complete receives in order too. */
	assert_int_equal(mlx4dv_rq_complete(&f.ring, &flush, &wr_id), 0);
	assert_int_equal(wr_id, 0x78);
	assert_int_equal(f.ring.tail, 2);
	/* Without a wrid table the wr_id is 0. */
	f.ring.wrid = NULL;
	assert_int_equal(mlx4dv_rq_post(&f.ring, 0x79, two_sges, 1), 0);
	wr_id = 5;
	assert_int_equal(mlx4dv_rq_complete(&f.ring, &good, &wr_id), 0);
	assert_int_equal(wr_id, 0);
}

/* ---- SRQ ---- */

struct fake_srq {
	struct mlx4dv_srq_ring ring;
	uint8_t buf[4 * 64] __attribute__((aligned(64)));
	__be32 db;
	uint64_t wrid[4];
};

/* The layout libmlx4's mlx4_alloc_srq_buf leaves: WQE i links to i + 1
 * (mod 4), scatter entries zero with lkey 0x100, head 0, tail 3. */
static const uint8_t srq_fresh_wqe[4][64] = {
#define FRESH(next) { \
	0x00, 0x00, 0x00, next, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
	0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, \
	0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, \
	0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0 }
	FRESH(1), FRESH(2), FRESH(3), FRESH(0),
#undef FRESH
};

static void fake_srq_init(struct fake_srq *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->buf, srq_fresh_wqe, sizeof(f->buf));
	f->ring.buf = f->buf;
	f->ring.wqe_cnt = 4;
	f->ring.wqe_shift = 6;
	f->ring.head = 0;
	f->ring.tail = 3;
	f->ring.max_scatter = 3;
	f->ring.db = &f->db;
	f->ring.wrid = f->wrid;
}

static void test_srq_golden(void **state)
{
	/* WQE 0 after posting two_sges[0] alone: next segment untouched,
	 * one data segment, the terminator, the last entry as it was. */
	static const uint8_t wqe0[64] = {
		0x00, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x01, 0x00, 0x11, 0x22, 0x33, 0x44,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct fake_srq f;

	(void)state;
	fake_srq_init(&f);
	/* Dirty the third entry so that the terminator write shows. */
	memset(f.buf + 48, POISON, 16);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 0x55, two_sges, 1), 0);
	assert_memory_equal(f.buf, wqe0, 48);
	assert_poison(f.buf + 48, 16);
	assert_memory_equal(f.buf + 64, srq_fresh_wqe[1], 3 * 64);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x01}), 4);
	assert_int_equal(f.ring.head, 1);
	assert_int_equal(f.ring.counter, 1);
	assert_int_equal(f.wrid[0], 0x55);
	/* Two SGEs into WQE 1. */
	assert_int_equal(mlx4dv_srq_post(&f.ring, 0x56, two_sges, 2), 0);
	assert_memory_equal(f.buf + 64 + 16, two_sges_bytes, 48);
	assert_memory_equal(f.buf + 64, srq_fresh_wqe[1], 16);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x02}), 4);
}

static void test_srq_full_and_release(void **state)
{
	struct fake_srq f;
	uint8_t before[sizeof(f.buf)];
	struct mlx4_cqe c1 = cqe_for(0x999, 1, MLX4_RECV_OPCODE_SEND);
	uint64_t wr_id = 0;

	(void)state;
	fake_srq_init(&f);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 100, two_sges, 1), 0);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 101, two_sges, 1), 0);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 102, two_sges, 1), 0);
	/* head == tail == 3: full; the last free WQE is never used. */
	assert_int_equal(f.ring.head, 3);
	memcpy(before, f.buf, sizeof(before));
	assert_int_equal(mlx4dv_srq_post(&f.ring, 103, two_sges, 1), ENOMEM);
	assert_memory_equal(f.buf, before, sizeof(before));
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x03}), 4);

	/* WQE 1 completes: linked after tail 3 (bytes 2..3 of WQE 3). */
	assert_int_equal(mlx4dv_srq_complete(&f.ring, &c1, &wr_id), 0);
	assert_int_equal(wr_id, 101);
	assert_int_equal(f.ring.tail, 1);
	assert_memory_equal(f.buf + 3 * 64, ((const uint8_t[]){0x00, 0x00, 0x00, 0x01}), 4);
	assert_memory_equal(f.buf + 3 * 64 + 4, srq_fresh_wqe[3] + 4, 60);

	/* Now WQE 3 is handed out, and head moves to 1 == tail: full. */
	assert_int_equal(mlx4dv_srq_post(&f.ring, 104, two_sges, 1), 0);
	assert_int_equal(f.ring.head, 1);
	assert_int_equal(f.wrid[3], 104);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 105, two_sges, 1), ENOMEM);
	assert_int_equal(f.ring.counter, 4);
}

static void test_srq_bad_input(void **state)
{
	struct fake_srq f;
	struct ibv_sge four[4] = { two_sges[0], two_sges[1], two_sges[0], two_sges[1] };
	struct mlx4_cqe big = cqe_for(0x1, 4, MLX4_RECV_OPCODE_SEND);
	struct mlx4_cqe huge = cqe_for(0x1, 0xffff, MLX4_RECV_OPCODE_SEND);
	struct mlx4_cqe at_tail = cqe_for(0x1, 3, MLX4_RECV_OPCODE_SEND);
	struct mlx4_cqe send = cqe_for(0x1, 0, 0x40 | MLX4_OPCODE_SEND);
	uint64_t wr_id = 42;

	(void)state;
	fake_srq_init(&f);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 1, four, 4), EINVAL);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 1, four, -2), EINVAL);
	assert_memory_equal(f.buf, srq_fresh_wqe, sizeof(f.buf));
	assert_int_equal(f.db, 0);
	assert_int_equal(f.ring.counter, 0);
	/* Completions naming a WQE outside the ring, or the free tail. */
	assert_int_equal(mlx4dv_srq_complete(&f.ring, &big, &wr_id), ERANGE);
	assert_int_equal(mlx4dv_srq_complete(&f.ring, &huge, &wr_id), ERANGE);
	assert_int_equal(mlx4dv_srq_complete(&f.ring, &at_tail, &wr_id), EINVAL);
	assert_int_equal(mlx4dv_srq_complete(&f.ring, &send, &wr_id), EINVAL);
	assert_int_equal(mlx4dv_srq_free_wqe(&f.ring, 4), ERANGE);
	assert_int_equal(wr_id, 42);
	assert_int_equal(f.ring.tail, 3);
	assert_memory_equal(f.buf, srq_fresh_wqe, sizeof(f.buf));
}

static void test_srq_counter_wrap(void **state)
{
	struct fake_srq f;

	(void)state;
	fake_srq_init(&f);
	f.ring.counter = 0xffff;
	assert_int_equal(mlx4dv_srq_post(&f.ring, 1, two_sges, 1), 0);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x00}), 4);
	assert_int_equal(mlx4dv_srq_post(&f.ring, 1, two_sges, 1), 0);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x01}), 4);
	f.ring.counter = 0x1234fffe;
	f.ring.head = 2;	/* WQE 2 is still free */
	assert_int_equal(mlx4dv_srq_post(&f.ring, 1, two_sges, 1), 0);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0xff, 0xff}), 4);
}

static void test_srq_post_list(void **state)
{
	struct fake_srq f;
	struct ibv_recv_wr wr[4];
	const struct ibv_recv_wr *bad = NULL;
	int i;

	(void)state;
	fake_srq_init(&f);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 4; i++) {
		wr[i].wr_id = 200 + (uint64_t)i;
		wr[i].sg_list = (struct ibv_sge *)two_sges;
		wr[i].num_sge = 1;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	/* Four requests, three free WQEs: all or nothing. */
	assert_int_equal(mlx4dv_srq_post_list(&f.ring, wr, &bad), ENOMEM);
	assert_ptr_equal(bad, &wr[3]);
	assert_memory_equal(f.buf, srq_fresh_wqe, sizeof(f.buf));
	assert_int_equal(f.ring.head, 0);
	wr[2].next = NULL;
	assert_int_equal(mlx4dv_srq_post_list(&f.ring, wr, &bad), 0);
	assert_int_equal(f.ring.head, 3);
	assert_int_equal(f.ring.counter, 3);
	assert_memory_equal(&f.db, ((const uint8_t[]){0x00, 0x00, 0x00, 0x03}), 4);
	assert_int_equal(f.wrid[2], 202);
}

/* ---- SQ completions ---- */

struct fake_sq {
	struct mlx4dv_sq_ring ring;
	uint8_t buf[8 * 64] __attribute__((aligned(64)));
	uint64_t wrid[8];
};

/* Every WQEBB holds a one-WQEBB WQE: ds 4 (64 bytes) in byte 7. */
static void fake_sq_init(struct fake_sq *f, uint32_t head, uint32_t tail)
{
	uint32_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < 8; i++)
		f->buf[i * 64 + 7] = 4;
	f->ring.buf = f->buf;
	f->ring.wqe_cnt = 8;
	f->ring.wqe_shift = 6;
	f->ring.head = head;
	f->ring.tail = tail;
	f->ring.qpn = 0x00abcd;
	f->ring.wrid = f->wrid;
	for (i = 0; i < 8; i++)
		f->wrid[i] = 0x1000 + i;
}

static void test_sq_complete(void **state)
{
	struct fake_sq f;
	struct mlx4_cqe c = cqe_for(0xabcd, 2, 0x40 | MLX4_OPCODE_SEND);
	uint64_t wr_id = 0;

	(void)state;
	fake_sq_init(&f, 5, 0);
	/* WQE 2 completes WQEs 0..2 (unsignaled ones before it). */
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), 0);
	assert_int_equal(wr_id, 0x1002);
	assert_int_equal(f.ring.tail, 3);
	/* The same index again is behind tail now: out of range. */
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), ERANGE);
	/* Beyond head: out of range. */
	c = cqe_for(0xabcd, 5, 0x40 | MLX4_OPCODE_SEND);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), ERANGE);
	c = cqe_for(0xabcd, 4, 0x40 | MLX4_CQE_OPCODE_ERROR);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), 0);
	assert_int_equal(wr_id, 0x1004);
	assert_int_equal(f.ring.tail, 5);
	/* Wrong QP, or a receive. */
	fake_sq_init(&f, 5, 0);
	c = cqe_for(0xabce, 0, 0x40 | MLX4_OPCODE_SEND);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), EINVAL);
	c = cqe_for(0xabcd, 0, MLX4_RECV_OPCODE_SEND);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), EINVAL);
	assert_int_equal(f.ring.tail, 0);
}

/* A WQE of three WQEBBs (ds 9: 144 bytes) frees all three, and a CQE
 * naming its second WQEBB or a WQE whose ds runs past head is refused. */
static void test_sq_complete_multi_wqebb(void **state)
{
	struct fake_sq f;
	struct mlx4_cqe c;
	uint64_t wr_id = 0;

	(void)state;
	fake_sq_init(&f, 5, 0);
	f.buf[1 * 64 + 7] = 9;		/* WQE at 1 spans WQEBBs 1..3 */
	f.buf[4 * 64 + 7] = 0x40 | 9;	/* fence bit set; ds 9 runs past head */
	c = cqe_for(0xabcd, 1, 0x40 | MLX4_OPCODE_SEND);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), 0);
	assert_int_equal(wr_id, 0x1001);
	assert_int_equal(f.ring.tail, 4);
	c = cqe_for(0xabcd, 4, 0x40 | MLX4_OPCODE_SEND);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), ERANGE);
	assert_int_equal(f.ring.tail, 4);
	f.buf[4 * 64 + 7] = 4;
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), 0);
	assert_int_equal(wr_id, 0x1004);
	assert_int_equal(f.ring.tail, 5);
	/* Without a wrid table the wr_id is 0. */
	fake_sq_init(&f, 2, 0);
	f.ring.wrid = NULL;
	wr_id = 9;
	c = cqe_for(0xabcd, 0, 0x40 | MLX4_OPCODE_SEND);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), 0);
	assert_int_equal(wr_id, 0);
}

/* The 16-bit wqe_index wraps while the 32-bit counters do not. */
static void test_sq_wqe_index_wrap(void **state)
{
	struct fake_sq f;
	struct mlx4_cqe c = cqe_for(0xabcd, 0x0001, 0x40 | MLX4_OPCODE_RDMA_WRITE);
	uint64_t wr_id = 0;

	(void)state;
	fake_sq_init(&f, 0x00010003, 0x0000fffe);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), 0);
	assert_int_equal(f.ring.tail, 0x00010002);
	assert_int_equal(wr_id, 0x1001);	/* slot 0x10001 & 7 */
	/* And across the 32-bit wrap of the counters. */
	fake_sq_init(&f, 0x00000002, 0xfffffffd);
	c = cqe_for(0xabcd, 0x0000, 0x40 | MLX4_OPCODE_RDMA_WRITE);
	assert_int_equal(mlx4dv_sq_complete_cqe(&f.ring, &c, &wr_id), 0);
	assert_int_equal(f.ring.tail, 0x00000001);
	assert_int_equal(wr_id, 0x1000);
}

/* ---- ibv_poll_cq-style polling ---- */

struct fake_cq {
	struct mlx4dv_cq_ring ring;
	uint8_t buf[8 * 32] __attribute__((aligned(64)));
	__be32 ci_record;
};

static void fake_cq_init(struct fake_cq *f)
{
	memset(f, 0, sizeof(*f));
	f->ring.buf = f->buf;
	f->ring.cqe_cnt = 8;
	f->ring.cqe_size = 32;
	f->ring.set_ci_db = &f->ci_record;
	/* Lap 0 entries are software-owned with owner 0: mark all device-owned. */
	for (int i = 0; i < 8; i++)
		f->buf[i * 32 + 31] = 0x80;
}

static void cq_put(struct fake_cq *f, uint32_t n, struct mlx4_cqe c)
{
	memcpy(f->buf + (n % 8) * 32, &c, 32);
	f->buf[(n % 8) * 32 + 31] = (uint8_t)((((uint8_t *)&c)[31] & 0x7f) | ((n & 8) ? 0x80 : 0));
}

static void test_poll_wc(void **state)
{
	struct fake_cq cq;
	struct fake_sq sq;
	struct fake_rq rq;
	struct fake_srq srq;
	struct mlx4dv_poll_qp qps[2];
	struct ibv_wc wc[4];
	struct mlx4_cqe c;
	uint32_t polled = 0;

	(void)state;
	fake_cq_init(&cq);
	fake_sq_init(&sq, 3, 0);
	fake_rq_init(&rq, 4, 5);
	fake_srq_init(&srq);
	memset(qps, 0, sizeof(qps));
	qps[0].qpn = 0xabcd;
	qps[0].sq = &sq.ring;
	qps[0].rq = &rq.ring;
	qps[0].rx_flags = MLX4DV_CQE_RX_ETHERNET;
	rq.ring.qpn = 0xabcd;
	qps[1].qpn = 0x0777;
	qps[1].srq = &srq.ring;
	assert_int_equal(mlx4dv_rq_post(&rq.ring, 0x5000, two_sges, 1), 0);
	assert_int_equal(mlx4dv_srq_post(&srq.ring, 0x6000, two_sges, 1), 0);

	c = cqe_for(0xabcd, 1, 0x40 | MLX4_OPCODE_SEND_IMM);
	cq_put(&cq, 0, c);
	c = cqe_for(0xabcd, 0, MLX4_RECV_OPCODE_SEND);
	((uint8_t *)&c)[12] = 0xe0;	/* sl_vid: SL 7 on Ethernet */
	cq_put(&cq, 1, c);
	c = cqe_for(0x0777, 0, MLX4_RECV_OPCODE_RDMA_WRITE_IMM);
	cq_put(&cq, 2, c);

	memset(wc, 0, sizeof(wc));
	assert_int_equal(mlx4dv_cq_poll_wc(&cq.ring, qps, 2, 4, wc, &polled), 0);
	assert_int_equal(polled, 3);
	assert_int_equal(wc[0].wr_id, 0x1001);
	assert_int_equal(wc[0].opcode, IBV_WC_SEND);
	assert_int_equal(wc[0].wc_flags, IBV_WC_WITH_IMM);
	assert_int_equal(wc[1].wr_id, 0x5000);
	assert_int_equal(wc[1].opcode, IBV_WC_RECV);
	assert_int_equal(wc[1].sl, 7);
	assert_int_equal(wc[2].wr_id, 0x6000);
	assert_int_equal(wc[2].opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(wc[2].qp_num, 0x777);
	assert_int_equal(srq.ring.tail, 0);
	assert_memory_equal(&cq.ci_record, ((const uint8_t[]){0x00, 0x00, 0x00, 0x03}), 4);
	assert_int_equal(mlx4dv_cq_poll_wc(&cq.ring, qps, 2, 4, wc, &polled), EAGAIN);
	assert_int_equal(polled, 0);

	/* A CQE of an unknown QP after a good one: the good one is returned,
	 * then the bad one is reported and skipped. */
	c = cqe_for(0xabcd, 2, 0x40 | MLX4_OPCODE_RDMA_READ);
	cq_put(&cq, 3, c);
	c = cqe_for(0x0888, 0, MLX4_RECV_OPCODE_SEND);
	cq_put(&cq, 4, c);
	c = cqe_for(0x0777, 7, MLX4_RECV_OPCODE_SEND);	/* index out of range */
	cq_put(&cq, 5, c);
	assert_int_equal(mlx4dv_cq_poll_wc(&cq.ring, qps, 2, 4, wc, &polled), 0);
	assert_int_equal(polled, 1);
	assert_int_equal(wc[0].wr_id, 0x1002);
	assert_int_equal(mlx4dv_cq_poll_wc(&cq.ring, qps, 2, 4, wc, &polled), EINVAL);
	assert_int_equal(polled, 0);
	assert_memory_equal(&cq.ci_record, ((const uint8_t[]){0x00, 0x00, 0x00, 0x05}), 4);
	assert_int_equal(mlx4dv_cq_poll_wc(&cq.ring, qps, 2, 4, wc, &polled), ERANGE);
	assert_int_equal(polled, 0);
	assert_int_equal(mlx4dv_cq_poll_wc(&cq.ring, qps, 2, 4, wc, &polled), EAGAIN);
	assert_int_equal(polled, 0);
	assert_int_equal(cq.ring.cons_index, 6);
	/* A receive for a QP whose entry has neither rq nor srq. */
	qps[0].rq = NULL;
	c = cqe_for(0xabcd, 0, MLX4_RECV_OPCODE_SEND);
	cq_put(&cq, 6, c);
	assert_int_equal(mlx4dv_cq_poll_wc(&cq.ring, qps, 2, 4, wc, &polled), EINVAL);
	assert_int_equal(polled, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rq_golden),
		cmocka_unit_test(test_rq_full_wqe_no_terminator),
		cmocka_unit_test(test_rq_bad_input),
		cmocka_unit_test(test_rq_full_ring),
		cmocka_unit_test(test_rq_write_burst_golden),
		cmocka_unit_test(test_rq_write_burst_one_entry),
		cmocka_unit_test(test_rq_write_burst_refused),
		cmocka_unit_test(test_rq_doorbell_wrap),
		cmocka_unit_test(test_rq_post_list_all_or_nothing),
		cmocka_unit_test(test_rq_complete_checks),
		cmocka_unit_test(test_srq_golden),
		cmocka_unit_test(test_srq_full_and_release),
		cmocka_unit_test(test_srq_bad_input),
		cmocka_unit_test(test_srq_counter_wrap),
		cmocka_unit_test(test_srq_post_list),
		cmocka_unit_test(test_sq_complete),
		cmocka_unit_test(test_sq_complete_multi_wqebb),
		cmocka_unit_test(test_sq_wqe_index_wrap),
		cmocka_unit_test(test_poll_wc),
	};

	t_run_group_tests_name("completion_recv_rings", tests, NULL, NULL);
	return t_exit();
}
