/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Golden bytes for the inline helpers rdma-core's header has always had
 * (mlx4dv_set_ctrl_seg, mlx4dv_set_dgram_seg, mlx4dv_set_data_seg and the
 * CQE owner/opcode accessors). The expected images are written out by hand
 * from the segment layouts (ConnectX-3 PRM, all fields big-endian); the
 * file is built against our header and against rdma-core's, and both must
 * produce the same bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

/* Untouched reserved bytes keep this filler, so a stray write shows. */
#define FILL 0xa5

static void test_ctrl_seg_bytes(void **state)
{
	static const uint8_t expect[16] = {
		0x80, 0x00, 0x00, 0x0a,	/* owner bit | opcode SEND */
		FILL, FILL, FILL, 0x43,	/* reserved, fence | ds 3 */
		0x12, 0x34, 0x56, 0x0c,	/* remote SRQN 0x123456 | CQ_UPDATE */
		0x01, 0x02, 0x03, 0x04,	/* imm stored exactly as given */
	};
	static const uint8_t imm_bytes[4] = { 0x01, 0x02, 0x03, 0x04 };
	struct mlx4_wqe_ctrl_seg seg;
	uint32_t imm;

	(void)state;
	memset(&seg, FILL, sizeof(seg));
	memcpy(&imm, imm_bytes, sizeof(imm));
	mlx4dv_set_ctrl_seg(&seg, 0x8000000a, 0x43, 0x1234560c, imm);
	assert_memory_equal(&seg, expect, sizeof(expect));
}

static void test_dgram_seg_bytes(void **state)
{
	static const uint8_t expect[48] = {
		0x01, 0x00, 0x00, 0x07,	/* port 1 << 24 | pd 7 */
		FILL, 0x80, 0x12, 0x34,	/* reserved, g_slid (GRH), dlid */
		FILL, 0x03, 0x00, 0x40,	/* reserved, gid_index, rate, hop limit */
		0x5a, 0x0b, 0xcd, 0xef,	/* sl 5, tclass 0xa0, flow 0xbcdef */
		0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,	/* dgid */
		0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
		0x00, 0x00, 0x0a, 0xbc,	/* dqpn */
		0x80, 0x01, 0x00, 0x02,	/* qkey */
		0x01, 0x23,		/* vlan */
		0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc,	/* mac */
	};
	uint8_t dgid[16], mac[6] = { 0x02, 0x00, 0x00, 0xaa, 0xbb, 0xcc };
	struct mlx4_wqe_datagram_seg seg;
	int i;

	(void)state;
	for (i = 0; i < 16; i++)
		dgid[i] = (uint8_t)(0xf0 + i);
	memset(&seg, FILL, sizeof(seg));
	mlx4dv_set_dgram_seg(&seg, 0x01000007, 0x80, 0x1234, 3, 0, 64,
			     0x5a0bcdef, dgid, 0xabc, 0x80010002, 0x0123, mac);
	assert_int_equal(sizeof(seg), sizeof(expect));
	assert_memory_equal(&seg, expect, sizeof(expect));
}

static void test_data_seg_bytes(void **state)
{
	static const uint8_t expect[16] = {
		0x00, 0x00, 0x01, 0x00,	/* byte_count 256 */
		0x00, 0xab, 0xcd, 0xef,	/* lkey */
		0x00, 0x00, 0x7f, 0x00, 0x12, 0x34, 0x56, 0x78,	/* addr */
	};
	struct mlx4_wqe_data_seg seg;

	(void)state;
	memset(&seg, FILL, sizeof(seg));
	mlx4dv_set_data_seg(&seg, 256, 0xabcdef, (uintptr_t)0x00007f0012345678ull);
	assert_memory_equal(&seg, expect, sizeof(expect));
}

static void test_cqe_owner_and_opcode(void **state)
{
	struct mlx4_cqe cqe;
	uint8_t *last = (uint8_t *)&cqe + sizeof(cqe) - 1;

	(void)state;
	assert_int_equal(sizeof(cqe), 32);
	memset(&cqe, 0, sizeof(cqe));
	*last = 0x40 | 0x0a;		/* is-send, SEND, owner clear */
	assert_int_equal(mlx4dv_get_cqe_owner(&cqe), 0);
	assert_int_equal(mlx4dv_get_cqe_opcode(&cqe), 0x0a);

	mlx4dv_set_cqe_owner(&cqe, 0xff);	/* only bit 7 is taken */
	assert_int_equal(*last, 0xca);
	assert_int_equal(mlx4dv_get_cqe_owner(&cqe), 0x80);

	*last = 0x80 | 0x1e;			/* owner | error opcode */
	assert_int_equal(mlx4dv_get_cqe_opcode(&cqe), MLX4_CQE_OPCODE_ERROR);
	mlx4dv_set_cqe_owner(&cqe, 0);
	assert_int_equal(*last, 0x1e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctrl_seg_bytes),
		cmocka_unit_test(test_dgram_seg_bytes),
		cmocka_unit_test(test_data_seg_bytes),
		cmocka_unit_test(test_cqe_owner_and_opcode),
	};

	t_run_group_tests_name(TEST_GROUP_NAME, tests, NULL, NULL);
	return t_exit();
}
