// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion timestamps (Part 5.8): the 48-bit CQE stamp as bytes, its
 * wrap-aware difference, its extension to the 64-bit clock and the
 * conversions between ticks and nanoseconds. Every expected value is
 * worked out in the comment next to it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

/* The stamp is bytes 12..15 (bits 16..47, big-endian), 29 (bits 8..15)
 * and 30 (bits 0..7); sl_vid and rlid are the same bytes. */
static void test_stamp_bytes(void **state)
{
	struct mlx4_cqe c;
	uint8_t *b = (uint8_t *)&c;

	(void)state;
	memset(&c, 0, sizeof(c));
	/* 0x0000_00a5_0301 at 427 MHz: bits 16..47 = 0x000000a5, 8..15 = 0x03,
	 * 0..7 = 0x01 */
	b[15] = 0xa5;
	b[29] = 0x03;
	b[30] = 0x01;
	assert_int_equal(mlx4dv_cqe_timestamp(&c), 0xa50301ULL);
	/* the owner byte (31) and byte 28 are not part of it */
	b[28] = 0xff;
	b[31] = 0xff;
	assert_int_equal(mlx4dv_cqe_timestamp(&c), 0xa50301ULL);
}

static void test_delta(void **state)
{
	(void)state;
	assert_int_equal(MLX4DV_CQE_TIMESTAMP_MASK, 0xffffffffffffULL);
	assert_int_equal(mlx4dv_ts_delta(0x1000, 0x0fff), 1);
	/* across the 2^48 wrap: 0xfffffffffffe -> 0x5 is 2 + 5 = 7 ticks */
	assert_int_equal(mlx4dv_ts_delta(0x5, 0xfffffffffffeULL), 7);
	/* a full clock reading against a stamp: bits above 47 ignored */
	assert_int_equal(mlx4dv_ts_delta(0x1234000000000010ULL, 0x10), 0);
	assert_int_equal(mlx4dv_ts_delta(0x10, 0x10), 0);
	/* "later" before "earlier" reads as almost a whole lap */
	assert_int_equal(mlx4dv_ts_delta(0x10, 0x11), 0xffffffffffffULL);
}

static void test_extend(void **state)
{
	(void)state;
	/* clock 0x0001_0000_0000_0005, stamp 0xffff_ffff_fff0 of the lap
	 * before: delta (5 - 0xfffffffffff0) mod 2^48 = 0x15, so the stamp
	 * was 0x0001000000000005 - 0x15 = 0x0000fffffffffff0 */
	assert_int_equal(mlx4dv_ts_extend(0xfffffffffff0ULL, 0x0001000000000005ULL),
			 0x0000fffffffffff0ULL);
	/* same lap: 0x0002000000000010 - (0x10 - 0x3) = 0x0002000000000003 */
	assert_int_equal(mlx4dv_ts_extend(0x3, 0x0002000000000010ULL),
			 0x0002000000000003ULL);
	/* stamp equal to the reading */
	assert_int_equal(mlx4dv_ts_extend(0x42, 0x7700000000000042ULL),
			 0x7700000000000042ULL);
}

static void test_to_ns(void **state)
{
	(void)state;
	/* 427 ticks at 427000 kHz: 427 * 10^6 / 427000 = 1000 ns */
	assert_int_equal(mlx4dv_ts_to_ns(427, 427000), 1000);
	/* 427000 ticks: one millisecond */
	assert_int_equal(mlx4dv_ts_to_ns(427000, 427000), 1000000);
	/* 1 tick: 10^6 / 427000 = 2.34 -> 2 (rounded down) */
	assert_int_equal(mlx4dv_ts_to_ns(1, 427000), 2);
	/* 2^48 - 1 ticks: 281474976710655 * 10^6 / 427000 =
	 * 659191982928934.43 -> 659191982928934 ns (7.6 days); the plain
	 * product (2.8e20) would not fit in 64 bits */
	assert_int_equal(mlx4dv_ts_to_ns(0xffffffffffffULL, 427000),
			 659191982928934ULL);
	/* 1 GHz: a tick is a nanosecond, up to 2^64 - 1 */
	assert_int_equal(mlx4dv_ts_to_ns(UINT64_MAX, 1000000), UINT64_MAX);
	/* no clock */
	assert_int_equal(mlx4dv_ts_to_ns(12345, 0), 0);
}

static void test_to_ticks(void **state)
{
	(void)state;
	/* 1000 ns at 427000 kHz: 1000 * 427000 / 10^6 = 427 */
	assert_int_equal(mlx4dv_ns_to_ts(1000, 427000), 427);
	/* one second: 427 000 000 ticks */
	assert_int_equal(mlx4dv_ns_to_ts(1000000000, 427000), 427000000);
	/* 3 ns: 1.281 -> 1 */
	assert_int_equal(mlx4dv_ns_to_ts(3, 427000), 1);
	/* 2^64 - 1 ns at 1 GHz: the same number of ticks */
	assert_int_equal(mlx4dv_ns_to_ts(UINT64_MAX, 1000000), UINT64_MAX);
	/* round trip of whole microseconds at 427 MHz is exact */
	for (uint64_t us = 0; us < 5000; us += 7)
		assert_int_equal(mlx4dv_ts_to_ns(mlx4dv_ns_to_ts(us * 1000, 427000),
						 427000), us * 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stamp_bytes),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_extend),
		cmocka_unit_test(test_to_ns),
		cmocka_unit_test(test_to_ticks),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
