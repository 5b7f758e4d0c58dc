/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * CQ arming on a fake UAR page (plain host memory): the arm record and the
 * 64-bit doorbell at UAR + 0x20, byte by byte, for both commands, every
 * sequence number and consumer indexes past 2^24; event acknowledgement.
 * Expected bytes are literals from rdma-core 44.0 cq.c mlx4_arm_cq's
 * formula: record = sn << 28 | cmd | ci, doorbell = (sn << 28 | cmd | cqn)
 * << 32 | ci, big-endian; cmd 1 << 24 (solicited) or 2 << 24 (any).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

struct fake_arm {
	struct mlx4dv_cq_ring ring;
	uint8_t uar[4096] __attribute__((aligned(4096)));
	__be32 arm_record;
	__be32 ci_record;
};

static void fake_arm_init(struct fake_arm *f, uint32_t cqn, uint32_t arm_sn,
			  uint32_t cons_index)
{
	memset(f, 0, sizeof(*f));
	f->ring.cqn = cqn;
	f->ring.arm_sn = arm_sn;
	f->ring.cons_index = cons_index;
	f->ring.arm_db = &f->arm_record;
	f->ring.set_ci_db = &f->ci_record;
	f->ring.uar = f->uar;
}

/* Nothing but the 8 doorbell bytes at 0x20 may change in the UAR page. */
static void assert_uar_only_doorbell(const struct fake_arm *f)
{
	size_t i;

	for (i = 0; i < sizeof(f->uar); i++)
		if (i < 0x20 || i >= 0x28)
			assert_int_equal(f->uar[i], 0);
}

static void test_arm_solicited(void **state)
{
	struct fake_arm f;

	(void)state;
	/* arm_sn 5 -> sn 1; ci 0x01234567 -> 0x234567 (24 bits). */
	fake_arm_init(&f, 0x000abc, 5, 0x01234567);
	mlx4dv_cq_arm(&f.ring, 1);
	assert_memory_equal(&f.arm_record, ((const uint8_t[]){0x11, 0x23, 0x45, 0x67}), 4);
	assert_memory_equal(f.uar + 0x20,
		((const uint8_t[]){0x11, 0x00, 0x0a, 0xbc, 0x00, 0x23, 0x45, 0x67}), 8);
	assert_uar_only_doorbell(&f);
	/* Arming neither consumes nor acknowledges. */
	assert_int_equal(f.ring.arm_sn, 5);
	assert_int_equal(f.ring.cons_index, 0x01234567);
	assert_int_equal(f.ci_record, 0);
}

static void test_arm_any(void **state)
{
	struct fake_arm f;

	(void)state;
	fake_arm_init(&f, 0xfedcba, 3, 0xfffffffe);
	mlx4dv_cq_arm(&f.ring, 0);
	/* sn 3, cmd 2 << 24, ci 0xfffffe. */
	assert_memory_equal(&f.arm_record, ((const uint8_t[]){0x32, 0xff, 0xff, 0xfe}), 4);
	assert_memory_equal(f.uar + 0x20,
		((const uint8_t[]){0x32, 0xfe, 0xdc, 0xba, 0x00, 0xff, 0xff, 0xfe}), 8);
	assert_uar_only_doorbell(&f);
}

/* Any nonzero solicited_only selects the solicited command. */
static void test_arm_solicited_nonzero(void **state)
{
	struct fake_arm f;

	(void)state;
	fake_arm_init(&f, 0x40, 0, 0);
	mlx4dv_cq_arm(&f.ring, 0x100);
	assert_memory_equal(&f.arm_record, ((const uint8_t[]){0x01, 0x00, 0x00, 0x00}), 4);
	assert_memory_equal(f.uar + 0x20,
		((const uint8_t[]){0x01, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00}), 8);
}

/* Acknowledging events walks sn through 0, 1, 2, 3, 0 ... */
static void test_ack_event_sequence(void **state)
{
	static const uint8_t expect_high[6] = { 0x02, 0x12, 0x22, 0x32, 0x02, 0x12 };
	struct fake_arm f;
	int i;

	(void)state;
	fake_arm_init(&f, 0x000001, 0, 0x10);
	for (i = 0; i < 6; i++) {
		mlx4dv_cq_arm(&f.ring, 0);
		assert_int_equal(f.uar[0x20], expect_high[i]);
		assert_int_equal(((uint8_t *)&f.arm_record)[0], expect_high[i]);
		assert_int_equal(f.uar[0x27], 0x10);
		mlx4dv_cq_ack_event(&f.ring);
		assert_int_equal(f.ring.arm_sn, (uint32_t)i + 1);
	}
	/* The 32-bit arm_sn wraps without disturbing sn. */
	f.ring.arm_sn = 0xffffffff;
	mlx4dv_cq_arm(&f.ring, 1);
	assert_int_equal(f.uar[0x20], 0x31);
	mlx4dv_cq_ack_event(&f.ring);
	mlx4dv_cq_arm(&f.ring, 1);
	assert_int_equal(f.uar[0x20], 0x01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm_solicited),
		cmocka_unit_test(test_arm_any),
		cmocka_unit_test(test_arm_solicited_nonzero),
		cmocka_unit_test(test_ack_event_sequence),
	};

	t_run_group_tests_name("completion_arm", tests, NULL, NULL);
	return t_exit();
}
