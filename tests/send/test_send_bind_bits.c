/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The flag words of the bind segment, one bit at a time: each remote
 * access bit alone in flags1, and type 2 and zero-based each without the
 * other in flags2, so that no two bits can be swapped unseen. Layout
 * (libmlx4 qp.c set_bind_seg, rdma-core providers/mlx4/wqe.h):
 *   bytes 0..3 flags1  bit 31 atomic, 30 remote write, 29 remote read
 *   bytes 4..7 flags2  bit 31 type 2, 30 zero based
 * big-endian, so bit 31 is 0x80 of byte 0 (4), 30 is 0x40, 29 is 0x20.
 */
#include "send_test_util.h"
#include "test_exit.h"

static void bind_flags(uint32_t access, uint32_t mw_type, uint8_t want_flags1,
		       uint8_t want_flags2)
{
	struct mlx4dv_bind_mw_attr b = {
		.addr = 0x0102030405060708ull, .length = 0x1112131415161718ull,
		.new_rkey = 0x21222324, .mr_lkey = 0x31323334,
		.access = access, .mw_type = mw_type,
	};
	const uint8_t want[32] = {
		want_flags1, 0, 0, 0, want_flags2, 0, 0, 0,
		0x21, 0x22, 0x23, 0x24, 0x31, 0x32, 0x33, 0x34,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
	};
	struct mlx4_wqe_bind_seg s;

	memset(&s, 0xa5, sizeof(s));
	mlx4dv_wqe_set_bind_seg(&s, &b);
	expect_bytes(&s, want, 32);
}

static void test_access_bits_alone(void **state)
{
	(void)state;
	bind_flags(0, IBV_MW_TYPE_1, 0x00, 0x00);
	bind_flags(IBV_ACCESS_REMOTE_ATOMIC, IBV_MW_TYPE_1, 0x80, 0x00);
	bind_flags(IBV_ACCESS_REMOTE_WRITE, IBV_MW_TYPE_1, 0x40, 0x00);
	bind_flags(IBV_ACCESS_REMOTE_READ, IBV_MW_TYPE_1, 0x20, 0x00);
	/* local access bits have no place in the segment */
	bind_flags(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND, IBV_MW_TYPE_1,
		   0x00, 0x00);
}

static void test_type2_and_zero_based_apart(void **state)
{
	(void)state;
	bind_flags(0, IBV_MW_TYPE_2, 0x00, 0x80);
	bind_flags(IBV_ACCESS_ZERO_BASED, IBV_MW_TYPE_1, 0x00, 0x40);
	bind_flags(IBV_ACCESS_ZERO_BASED, IBV_MW_TYPE_2, 0x00, 0xc0);
	bind_flags(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED, IBV_MW_TYPE_1,
		   0x20, 0x40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_access_bits_alone),
		cmocka_unit_test(test_type2_and_zero_based_apart),
	};

	t_run_group_tests_name("send_bind_bits", tests, NULL, NULL);
	return t_exit();
}
