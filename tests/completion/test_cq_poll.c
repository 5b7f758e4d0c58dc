/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * CQ polling on plain host memory playing the device: ownership across
 * laps, 32- and 64-byte CQEs, peek without consuming, batches, and the
 * consumer-index record near 2^24, 2^31 and 2^32.
 *
 * The "device" below writes a CQE the way the PRM lays it out: slot
 * n % cqe_cnt, the valid 32 bytes at the end of the slot, owner bit 0x80
 * of the last byte set on odd laps. Expected record bytes are literals.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

#define MAX_CQES 16

struct fake_cq {
	struct mlx4dv_cq_ring ring;
	uint8_t buf[MAX_CQES * 64] __attribute__((aligned(64)));
	__be32 ci_record;
	__be32 arm_record;
};

static void fake_cq_init(struct fake_cq *f, uint32_t cqe_cnt, uint32_t cqe_size,
			 uint32_t cons_index)
{
	uint32_t n;

	memset(f, 0, sizeof(*f));
	f->ring.buf = f->buf;
	f->ring.cqe_cnt = cqe_cnt;
	f->ring.cqe_size = cqe_size;
	f->ring.cons_index = cons_index;
	f->ring.set_ci_db = &f->ci_record;
	f->ring.arm_db = &f->arm_record;
	/* Before the first lap the device leaves every slot device-owned for
	 * lap 0: owner bit set (libmlx4 initialises CQEs this way). For a
	 * start index on an odd lap, the stale entries carry owner 0. */
	for (n = 0; n < cqe_cnt; n++) {
		uint32_t idx = cons_index + n;
		uint8_t stale_owner = (idx & cqe_cnt) ? 0x00 : 0x80;

		f->buf[(idx % cqe_cnt) * cqe_size + cqe_size - 1] = stale_owner | 0x1f;
	}
}

/* Device side: write the 32 valid bytes of CQE n, then its owner byte. */
static void device_write_cqe(struct fake_cq *f, uint32_t n, const uint8_t body[32])
{
	uint32_t size = f->ring.cqe_size;
	uint8_t *slot = f->buf + (n % f->ring.cqe_cnt) * size;
	uint8_t *valid = slot + size - 32;

	if (size == 64)
		memset(slot, 0xee, 32);	/* the unused first half */
	memcpy(valid, body, 31);
	valid[31] = (uint8_t)((body[31] & 0x7f) | ((n & f->ring.cqe_cnt) ? 0x80 : 0));
}

/* A receive SEND CQE whose byte count tags it with n. */
static void body_tagged(uint8_t body[32], uint32_t tag)
{
	memset(body, 0, 32);
	body[2] = 0x01;			/* QPN 0x000100 */
	body[20] = (uint8_t)(tag >> 24);
	body[21] = (uint8_t)(tag >> 16);
	body[22] = (uint8_t)(tag >> 8);
	body[23] = (uint8_t)tag;
	body[31] = MLX4_RECV_OPCODE_SEND;
}

static void test_empty_ring(void **state)
{
	struct fake_cq f;

	(void)state;
	fake_cq_init(&f, 8, 32, 0);
	assert_null(mlx4dv_cq_peek(&f.ring));
	assert_null(mlx4dv_cq_next(&f.ring));
	assert_int_equal(f.ring.cons_index, 0);
}

static void check_laps(uint32_t cqe_size)
{
	struct fake_cq f;
	uint8_t body[32];
	uint32_t n;

	fake_cq_init(&f, 4, cqe_size, 0);
	/* Three laps of a 4-entry ring: every CQE appears exactly when the
	 * device has written it, whatever the lap parity. */
	for (n = 0; n < 12; n++) {
		struct mlx4_cqe *cqe;

		assert_null(mlx4dv_cq_peek(&f.ring));
		body_tagged(body, 0x1000 + n);
		device_write_cqe(&f, n, body);
		cqe = mlx4dv_cq_next(&f.ring);
		assert_non_null(cqe);
		/* The pointer is the valid half of the slot. */
		assert_ptr_equal((uint8_t *)cqe,
				 f.buf + (n % 4) * cqe_size + cqe_size - 32);
		assert_int_equal(mlx4dv_cqe_byte_len(cqe), 0x1000 + n);
		assert_int_equal(f.ring.cons_index, n + 1);
	}
	assert_null(mlx4dv_cq_peek(&f.ring));
}

static void test_laps_32(void **state)
{
	(void)state;
	check_laps(32);
}

static void test_laps_64(void **state)
{
	(void)state;
	check_laps(64);
}

/* A 64-byte CQE whose FIRST half looks software-owned must not count:
 * only the owner bit of the second half does. */
static void test_64_uses_second_half(void **state)
{
	struct fake_cq f;

	(void)state;
	fake_cq_init(&f, 4, 64, 0);
	f.buf[31] = 0x00;		/* first half: owner 0 = lap 0 sw */
	f.buf[63] = 0x80;		/* second half: device-owned */
	assert_null(mlx4dv_cq_peek(&f.ring));
	f.buf[63] = 0x00;
	assert_ptr_equal(mlx4dv_cq_peek(&f.ring), f.buf + 32);
}

/* Owner bit against lap parity: lap 0 needs 0, lap 1 needs 0x80. */
static void test_owner_parity(void **state)
{
	uint8_t cqe[32];

	(void)state;
	memset(cqe, 0, sizeof(cqe));
	cqe[31] = 0x00;
	assert_true(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 3, 8));
	assert_false(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 11, 8));
	assert_true(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 19, 8));
	cqe[31] = 0x80 | 0x7f;	/* other bits must not matter */
	assert_false(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 3, 8));
	assert_true(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 11, 8));
	cqe[31] = 0x7f;
	assert_true(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 3, 8));
	/* 32-bit wrap of the free-running index: 0xffffffff is on an odd lap
	 * for any power-of-two count. */
	cqe[31] = 0x80;
	assert_true(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 0xffffffffu, 4096));
	assert_false(mlx4dv_cqe_sw_owned((struct mlx4_cqe *)cqe, 0, 4096));
}

static void test_peek_does_not_consume(void **state)
{
	struct fake_cq f;
	uint8_t body[32];

	(void)state;
	fake_cq_init(&f, 8, 32, 0);
	body_tagged(body, 7);
	device_write_cqe(&f, 0, body);
	assert_non_null(mlx4dv_cq_peek(&f.ring));
	assert_non_null(mlx4dv_cq_peek(&f.ring));
	assert_int_equal(f.ring.cons_index, 0);
	assert_int_equal(f.ci_record, 0);	/* no record write */
	assert_non_null(mlx4dv_cq_next(&f.ring));
	assert_int_equal(f.ring.cons_index, 1);
	assert_int_equal(f.ci_record, 0);	/* still none: once per batch */
	mlx4dv_cq_update_ci(&f.ring);
	assert_memory_equal(&f.ci_record, ((const uint8_t[]){0x00, 0x00, 0x00, 0x01}), 4);
}

static void test_batch(void **state)
{
	struct fake_cq f;
	struct mlx4_cqe out[8];
	uint8_t body[32];
	uint32_t n;

	(void)state;
	fake_cq_init(&f, 8, 64, 0);
	for (n = 0; n < 5; n++) {
		body_tagged(body, 100 + n);
		device_write_cqe(&f, n, body);
	}
	assert_int_equal(mlx4dv_cq_poll_batch(&f.ring, out, 3), 3);
	assert_int_equal(mlx4dv_cqe_byte_len(&out[0]), 100);
	assert_int_equal(mlx4dv_cqe_byte_len(&out[2]), 102);
	assert_memory_equal(&f.ci_record, ((const uint8_t[]){0x00, 0x00, 0x00, 0x03}), 4);
	assert_int_equal(mlx4dv_cq_poll_batch(&f.ring, out, 8), 2);
	assert_int_equal(mlx4dv_cqe_byte_len(&out[1]), 104);
	assert_memory_equal(&f.ci_record, ((const uint8_t[]){0x00, 0x00, 0x00, 0x05}), 4);
	/* Empty: nothing copied, the record is not rewritten. */
	f.ci_record = 0xdeadbeef;
	assert_int_equal(mlx4dv_cq_poll_batch(&f.ring, out, 8), 0);
	assert_int_equal(f.ci_record, 0xdeadbeef);
	assert_int_equal(mlx4dv_cq_poll_batch(&f.ring, out, 0), 0);
}

/* Polls three CQEs starting at start and checks the record bytes. */
static void check_ci_near(uint32_t start, const uint8_t record[4])
{
	struct fake_cq f;
	struct mlx4_cqe out[4];
	uint8_t body[32];
	uint32_t n;

	fake_cq_init(&f, 8, 32, start);
	for (n = 0; n < 3; n++) {
		body_tagged(body, n);
		device_write_cqe(&f, start + n, body);
	}
	assert_int_equal(mlx4dv_cq_poll_batch(&f.ring, out, 4), 3);
	assert_int_equal(f.ring.cons_index, start + 3);
	assert_memory_equal(&f.ci_record, record, 4);
	assert_null(mlx4dv_cq_peek(&f.ring));
}

static void test_ci_near_2_24(void **state)
{
	(void)state;
	/* 0xfffffe + 3 = 0x1000001: the record keeps the low 24 bits. */
	check_ci_near(0xfffffe, (const uint8_t[]){0x00, 0x00, 0x00, 0x01});
	check_ci_near(0xfffff0, (const uint8_t[]){0x00, 0xff, 0xff, 0xf3});
}

static void test_ci_near_2_31(void **state)
{
	(void)state;
	check_ci_near(0x7ffffffe, (const uint8_t[]){0x00, 0x00, 0x00, 0x01});
	check_ci_near(0x7fabcdef, (const uint8_t[]){0x00, 0xab, 0xcd, 0xf2});
}

static void test_ci_near_2_32(void **state)
{
	(void)state;
	check_ci_near(0xfffffffe, (const uint8_t[]){0x00, 0x00, 0x00, 0x01});
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_ring),
		cmocka_unit_test(test_laps_32),
		cmocka_unit_test(test_laps_64),
		cmocka_unit_test(test_64_uses_second_half),
		cmocka_unit_test(test_owner_parity),
		cmocka_unit_test(test_peek_does_not_consume),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_ci_near_2_24),
		cmocka_unit_test(test_ci_near_2_31),
		cmocka_unit_test(test_ci_near_2_32),
	};

	t_run_group_tests_name("completion_cq_poll", tests, NULL, NULL);
	return t_exit();
}
