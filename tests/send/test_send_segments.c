/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Golden bytes of every send segment builder of <infiniband/mlx4dv.h>
 * Part 4. Every expected image is written out by hand from the segment
 * layout (ConnectX-3 PRM; rdma-core providers/mlx4/mlx4dv.h and the
 * kernel's include/linux/mlx4/qp.h name the fields), all fields
 * big-endian. Reserved bytes start as FILL so a missing or stray write
 * shows.
 */
#include "send_test_util.h"
#include "test_exit.h"

#define FILL 0xa5

static __be32 be32_bytes(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	const uint8_t v[4] = { a, b, c, d };
	__be32 r;

	memcpy(&r, v, 4);
	return r;
}

static void test_ctrl_words(void **state)
{
	static const uint8_t want[16] = {
		0x80, 0x00, 0x00, 0x0a,	/* owner | SEND */
		0x00, 0x00, 0x00, 0x45,	/* vlan 0, fence | ds 5 */
		0x12, 0x34, 0x56, 0x8e,	/* SRQN 0x123456 | SO | CQ | SE */
		0xde, 0xad, 0xbe, 0xef,	/* imm as given */
	};
	struct mlx4_wqe_ctrl_seg c;

	(void)state;
	memset(&c, FILL, sizeof(c));
	mlx4dv_wqe_set_ctrl(&c, 5, (0x123456u << 8) | MLX4_WQE_CTRL_STRONG_ORDER |
			    MLX4_WQE_CTRL_CQ_UPDATE | MLX4_WQE_CTRL_SOLICIT |
			    MLX4_WQE_CTRL_FENCE,
			    be32_bytes(0xde, 0xad, 0xbe, 0xef));
	/* word 0 untouched until the owner write */
	assert_int_equal(((uint8_t *)&c)[0], FILL);
	mlx4dv_wqe_set_owner_opcode(&c, MLX4DV_WQE_CTRL_OWNER | MLX4_OPCODE_SEND);
	expect_bytes(&c, want, 16);
}

static void test_ctrl_flags_checksum_loopback(void **state)
{
	static const uint8_t want[16] = {
		0x18, 0x00, 0x00, 0x0a,	/* inner IP | inner L4 | SEND */
		0x00, 0x00, 0x00, 0x02,	/* ds 2 */
		0x00, 0x00, 0x00, 0x31,	/* TCP/UDP | IP | loopback */
		0x00, 0x00, 0x00, 0x00,
	};
	struct mlx4_wqe_ctrl_seg c;

	(void)state;
	memset(&c, FILL, sizeof(c));
	mlx4dv_wqe_set_ctrl(&c, 2, MLX4_WQE_CTRL_TCP_UDP_CSUM |
			    MLX4_WQE_CTRL_IP_HDR_CSUM |
			    MLX4DV_WQE_CTRL_FORCE_LOOPBACK, 0);
	mlx4dv_wqe_set_owner_opcode(&c, MLX4DV_WQE_CTRL_INNER_IP_CSUM |
				    MLX4DV_WQE_CTRL_INNER_L4_CSUM |
				    MLX4_OPCODE_SEND);
	expect_bytes(&c, want, 16);
}

static void test_ctrl_vlan_and_dmac(void **state)
{
	static const uint8_t want[16] = {
		0x00, 0x00, 0x00, 0x0a,
		0xa1, 0x23, 0x40, 0x03,	/* tag 0xa123, insert C-VLAN, ds 3 */
		0x02, 0x11, 0x00, 0x0e,	/* dmac[0..1], CQ_UPDATE | SOLICIT */
		0x22, 0x33, 0x44, 0x55,	/* dmac[2..5] in imm */
	};
	static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct mlx4_wqe_ctrl_seg c;

	(void)state;
	memset(&c, FILL, sizeof(c));
	mlx4dv_wqe_set_ctrl(&c, 3, MLX4_WQE_CTRL_CQ_UPDATE | MLX4_WQE_CTRL_SOLICIT,
			    0);
	mlx4dv_wqe_set_ctrl_vlan(&c, 0xa123, MLX4DV_WQE_CTRL_INS_CVLAN);
	mlx4dv_wqe_set_ctrl_dmac(&c, mac);
	mlx4dv_wqe_set_owner_opcode(&c, MLX4_OPCODE_SEND);
	expect_bytes(&c, want, 16);

	/* service VLAN tag */
	mlx4dv_wqe_set_ctrl_vlan(&c, 0x0005, MLX4DV_WQE_CTRL_INS_SVLAN);
	assert_int_equal(((uint8_t *)&c)[4], 0x00);
	assert_int_equal(((uint8_t *)&c)[5], 0x05);
	assert_int_equal(((uint8_t *)&c)[6], 0x80);
	assert_int_equal(((uint8_t *)&c)[7], 0x03);
}

static void test_ctrl_lso_big_header_and_nec(void **state)
{
	static const uint8_t want[4] = { 0xa0, 0x00, 0x00, 0x4e };
	struct mlx4_wqe_ctrl_seg c;

	(void)state;
	memset(&c, FILL, sizeof(c));
	mlx4dv_wqe_set_owner_opcode(&c, MLX4DV_WQE_CTRL_OWNER |
				    MLX4DV_WQE_CTRL_NEC |
				    MLX4DV_WQE_CTRL_LSO_BIG_HEADER |
				    MLX4_OPCODE_LSO);
	expect_bytes(&c, want, 4);
}

static void test_raddr_seg(void **state)
{
	static const uint8_t want[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0xa1, 0xb2, 0xc3, 0xd4, 0x00, 0x00, 0x00, 0x00,
	};
	struct mlx4_wqe_raddr_seg s;

	(void)state;
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_raddr_seg(&s, 0x0102030405060708ull, 0xa1b2c3d4);
	expect_bytes(&s, want, 16);
}

static void test_atomic_segs(void **state)
{
	static const uint8_t cas[16] = {
		0x22, 0x22, 0x22, 0x22, 0x00, 0x00, 0x00, 0x02,	/* swap */
		0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x01,	/* compare */
	};
	static const uint8_t faa[16] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,	/* add */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t mfaa[16] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,	/* add */
		0x80, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00,	/* boundaries */
	};
	static const uint8_t mcas[32] = {
		0xaa, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xbb,	/* swap */
		0xcc, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xdd,	/* compare */
		0xff, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff,	/* swap mask */
		0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f, 0x0f,	/* cmp mask */
	};
	struct mlx4_wqe_atomic_seg a;
	struct mlx4dv_wqe_masked_atomic_seg m;

	(void)state;
	assert_int_equal(sizeof(m), 32);
	memset(&a, FILL, sizeof(a));
	mlx4dv_wqe_set_atomic_cas_seg(&a, 0x1111111100000001ull,
				      0x2222222200000002ull);
	expect_bytes(&a, cas, 16);
	memset(&a, FILL, sizeof(a));
	mlx4dv_wqe_set_atomic_faa_seg(&a, 0x10000);
	expect_bytes(&a, faa, 16);
	memset(&a, FILL, sizeof(a));
	mlx4dv_wqe_set_masked_atomic_faa_seg(&a, 0x0000000100000001ull,
					     0x8000000080000000ull);
	expect_bytes(&a, mfaa, 16);
	memset(&m, FILL, sizeof(m));
	mlx4dv_wqe_set_masked_atomic_cas_seg(&m, 0xcc000000000000ddull,
					     0x0f0f0f0f0f0f0f0full,
					     0xaa000000000000bbull,
					     0xff000000000000ffull);
	expect_bytes(&m, mcas, 32);
}

static void test_bind_seg(void **state)
{
	static const uint8_t type2[32] = {
		0xe0, 0x00, 0x00, 0x00,	/* atomic | write | read */
		0xc0, 0x00, 0x00, 0x00,	/* type 2 | zero based */
		0x11, 0x22, 0x33, 0x44,	/* new rkey */
		0x55, 0x66, 0x77, 0x88,	/* MR lkey */
		0x10, 0x00, 0x20, 0x00, 0x30, 0x00, 0x40, 0x00,	/* addr */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x00,	/* length */
	};
	static const uint8_t type1[32] = {
		0x20, 0x00, 0x00, 0x00,	/* read */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x01, 0x02,
		0x00, 0x00, 0x03, 0x04,
		0x00, 0x00, 0x7f, 0xff, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	};
	struct mlx4dv_bind_mw_attr b;
	struct mlx4_wqe_bind_seg s;

	(void)state;
	b.addr = 0x1000200030004000ull;
	b.length = 0x5000;
	b.new_rkey = 0x11223344;
	b.mr_lkey = 0x55667788;
	b.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ZERO_BASED;
	b.mw_type = IBV_MW_TYPE_2;
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_bind_seg(&s, &b);
	expect_bytes(&s, type2, 32);

	b.addr = 0x00007fff00001000ull;
	b.length = 0x100000000ull;
	b.new_rkey = 0x102;
	b.mr_lkey = 0x304;
	b.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE;
	b.mw_type = IBV_MW_TYPE_1;
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_bind_seg(&s, &b);
	expect_bytes(&s, type1, 32);
}

static void test_local_inval_seg(void **state)
{
	uint8_t want[32];
	struct mlx4_wqe_local_inval_seg s;

	(void)state;
	memset(want, 0, sizeof(want));
	want[8] = 0xab;
	want[9] = 0xcd;
	want[10] = 0xef;
	want[11] = 0x01;
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_local_inval_seg(&s, 0xabcdef01);
	expect_bytes(&s, want, 32);
}

static void test_data_seg_and_zero_length(void **state)
{
	static const uint8_t want[16] = {
		0x00, 0x00, 0x01, 0x00,
		0x00, 0x00, 0x12, 0x34,
		0xfe, 0xed, 0xfa, 0xce, 0x00, 0x00, 0x00, 0x10,
	};
	static const uint8_t zero[16] = {
		0x80, 0x00, 0x00, 0x00,	/* zero length marker */
		0x00, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
	};
	struct mlx4_wqe_data_seg s;

	(void)state;
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_data_seg(&s, 0x100, 0x1234, 0xfeedface00000010ull);
	expect_bytes(&s, want, 16);
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_data_seg(&s, 0, 7, 0x40);
	expect_bytes(&s, zero, 16);
}

static void test_datagram_ib_no_grh(void **state)
{
	static const uint8_t want[48] = {
		0x01, 0x00, 0x01, 0x23,	/* port 1 | pdn 0x123 */
		0x00, 0x11, 0x02, 0x03,	/* -, g_slid = path bits, dlid */
		0x00, 0x00, 0x00, 0x00,	/* -, gid index, rate, hop limit */
		0x50, 0x00, 0x00, 0x00,	/* sl 5 << 28 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0xab, 0xcd, 0xef,	/* dqpn */
		0x80, 0x01, 0x00, 0x00,	/* qkey */
		0x00, 0x00,		/* vlan */
		0, 0, 0, 0, 0, 0,	/* mac */
	};
	struct ibv_ah_attr attr;
	struct mlx4dv_ud_av av;
	struct mlx4_wqe_datagram_seg s;

	(void)state;
	memset(&attr, 0, sizeof(attr));
	attr.dlid = 0x0203;
	attr.sl = 5;
	attr.src_path_bits = 0x11;
	attr.port_num = 1;
	assert_int_equal(mlx4dv_ud_av_init(&av, 0x123, &attr, NULL), 0);
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_datagram_seg(&s, &av, 0xabcdef, 0x80010000);
	expect_bytes(&s, want, 48);
}

static void test_datagram_ib_grh(void **state)
{
	static const uint8_t want[48] = {
		0x02, 0x00, 0x00, 0x09,	/* port 2 | pdn 9 */
		0x00, 0x80, 0x00, 0x40,	/* GRH, dlid 0x40 */
		0x00, 0x03, 0x0c, 0x40,	/* gid index 3, rate 7+5, hop 64 */
		0x2a, 0x51, 0x23, 0x45,	/* sl 2, tclass 0xa5, flow 0x12345 */
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff,
		0xfe, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x01,	/* dqpn 1 */
		0x00, 0x00, 0x00, 0x07,	/* qkey 7 */
		0x00, 0x00,
		0, 0, 0, 0, 0, 0,
	};
	static const uint8_t gid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff,
		0xfe, 0x00, 0x00, 0x01,
	};
	struct ibv_ah_attr attr;
	struct mlx4dv_ud_av av;
	struct mlx4_wqe_datagram_seg s;

	(void)state;
	memset(&attr, 0, sizeof(attr));
	attr.dlid = 0x40;
	attr.sl = 2;
	attr.port_num = 2;
	attr.static_rate = IBV_RATE_40_GBPS;	/* 7 */
	attr.is_global = 1;
	attr.grh.sgid_index = 3;
	attr.grh.hop_limit = 64;
	attr.grh.traffic_class = 0xa5;
	attr.grh.flow_label = 0x12345;
	memcpy(attr.grh.dgid.raw, gid, 16);
	assert_int_equal(mlx4dv_ud_av_init(&av, 9, &attr, NULL), 0);
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_datagram_seg(&s, &av, 1, 7);
	expect_bytes(&s, want, 48);
}

static void test_datagram_roce(void **state)
{
	static const uint8_t vlan_want[48] = {
		0x22, 0x00, 0x00, 0x07,	/* VLAN present (bit 29) | port 2 | pdn 7 */
		0x00, 0x80, 0x00, 0x00,	/* GRH, no dlid */
		0x00, 0x01, 0x00, 0x01,	/* gid index 1, rate 0, hop 1 */
		0x60, 0x00, 0x00, 0x00,	/* sl 3 << 29 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xc0, 0xa8, 0x01, 0x02,
		0x00, 0x00, 0x12, 0x34,
		0x00, 0x01, 0x00, 0x00,
		0x60, 0x64,		/* vid 100 | (sl & 7) << 13 */
		0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
	};
	static const uint8_t mcast_want[16] = {
		0x02, 0x00, 0x00, 0x07,	/* port 2 | pdn 7: no multicast bit */
		0x00, 0x80, 0x00, 0x00,	/* GRH, dlid 0 (as libmlx4 on a port
					 * with IP-based GIDs) */
		0x00, 0x01, 0x00, 0x01,
		0x60, 0x00, 0x00, 0x00,
	};
	struct ibv_ah_attr attr;
	struct mlx4dv_ud_av_eth eth = { { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 },
					100 };
	struct mlx4dv_ud_av av;
	struct mlx4_wqe_datagram_seg s;

	(void)state;
	memset(&attr, 0, sizeof(attr));
	attr.sl = 3;
	attr.port_num = 2;
	attr.is_global = 1;
	attr.grh.sgid_index = 1;
	attr.grh.hop_limit = 1;
	attr.grh.dgid.raw[10] = 0xff;
	attr.grh.dgid.raw[11] = 0xff;
	attr.grh.dgid.raw[12] = 0xc0;
	attr.grh.dgid.raw[13] = 0xa8;
	attr.grh.dgid.raw[14] = 0x01;
	attr.grh.dgid.raw[15] = 0x02;
	assert_int_equal(mlx4dv_ud_av_init(&av, 7, &attr, &eth), 0);
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_datagram_seg(&s, &av, 0x1234, 0x10000);
	expect_bytes(&s, vlan_want, 48);

	/* multicast destination, no VLAN */
	attr.grh.dgid.raw[0] = 0xff;
	eth.vlan_id = 0xffff;
	assert_int_equal(mlx4dv_ud_av_init(&av, 7, &attr, &eth), 0);
	memset(&s, FILL, sizeof(s));
	mlx4dv_wqe_set_datagram_seg(&s, &av, 0x1234, 0x10000);
	expect_bytes(&s, mcast_want, 16);
	assert_int_equal(((uint8_t *)&s)[40], 0);
	assert_int_equal(((uint8_t *)&s)[41], 0);

	/* RoCE needs a GRH; NULL and an oversize PD number are refused */
	attr.is_global = 0;
	assert_int_equal(mlx4dv_ud_av_init(&av, 7, &attr, &eth), EINVAL);
	attr.is_global = 1;
	assert_int_equal(mlx4dv_ud_av_init(&av, 0x1000000, &attr, &eth), EINVAL);
	assert_int_equal(mlx4dv_ud_av_init(NULL, 7, &attr, &eth), EINVAL);
	assert_int_equal(mlx4dv_ud_av_init(&av, 7, NULL, &eth), EINVAL);
}

static void test_lso_seg(void **state)
{
	struct test_sq t;
	uint8_t hdr[62], want[96];
	uint32_t k;

	(void)state;
	test_sq_setup(&t, 8, 6, 1, IBV_QPT_RAW_PACKET, 0, 0);
	for (k = 0; k < sizeof(hdr); k++)
		hdr[k] = (uint8_t)(0x90 + k);

	/* 54-byte header: 4 + 54 = 58, padded to 64: ds 4 */
	memset(t.mem, FILL, t.size);
	memset(want, FILL, sizeof(want));
	want[16] = 0x05; want[17] = 0xa8; want[18] = 0x00; want[19] = 0x36;
	memcpy(want + 20, hdr, 54);
	memset(want + 74, 0, 6);
	assert_int_equal(mlx4dv_wqe_lso_ds(54), 4);
	assert_int_equal(mlx4dv_sq_set_lso_seg(&t.sq, t.mem + 16, 1448, hdr, 54),
			 4);
	expect_bytes(t.mem, want, 80);

	/* 62-byte header: 66 bytes, ds 5 (a big header) */
	memset(t.mem, FILL, t.size);
	memset(want, FILL, sizeof(want));
	want[16] = 0x23; want[17] = 0x28; want[18] = 0x00; want[19] = 0x3e;
	memcpy(want + 20, hdr, 62);
	memset(want + 82, 0, 14);	/* padding up to 16 + 80 */
	assert_int_equal(mlx4dv_wqe_lso_ds(62), 5);
	assert_int_equal(mlx4dv_sq_set_lso_seg(&t.sq, t.mem + 16, 9000, hdr, 62),
			 5);
	expect_bytes(t.mem, want, 96);

	/* an LSO segment that runs past the ring end continues at the start:
	 * segment at byte 16 of the last WQEBB (offset 464 of 512) */
	memset(t.mem, FILL, t.size);
	assert_int_equal(mlx4dv_sq_set_lso_seg(&t.sq, t.mem + 464, 1448, hdr, 54),
			 4);
	assert_int_equal(t.mem[464], 0x05);
	assert_int_equal(t.mem[467], 0x36);
	for (k = 0; k < 44; k++)
		assert_int_equal(t.mem[468 + k], hdr[k]);
	for (k = 44; k < 54; k++)
		assert_int_equal(t.mem[k - 44], hdr[k]);
	for (k = 10; k < 16; k++)
		assert_int_equal(t.mem[k], 0);
	assert_int_equal(t.mem[16], FILL);
	test_sq_teardown(&t);
}

static void test_inline_ds_formula(void **state)
{
	(void)state;
	/* header at byte 16: 44 bytes fill the first chunk exactly */
	assert_int_equal(mlx4dv_inline_ds(16, 0), 0);
	assert_int_equal(mlx4dv_inline_ds(16, 1), 1);	/* 4 + 1 */
	assert_int_equal(mlx4dv_inline_ds(16, 12), 1);	/* 4 + 12 = 16 */
	assert_int_equal(mlx4dv_inline_ds(16, 13), 2);
	assert_int_equal(mlx4dv_inline_ds(16, 44), 3);	/* 48 bytes */
	assert_int_equal(mlx4dv_inline_ds(16, 45), 4);	/* 44 + 4 | 4 + 1 = 53 */
	assert_int_equal(mlx4dv_inline_ds(16, 60), 5);	/* 68 */
	assert_int_equal(mlx4dv_inline_ds(32, 130), 9);	/* 3 headers: 142 */
	assert_int_equal(mlx4dv_inline_ds(0, 60), 4);	/* one full chunk */
	assert_int_equal(mlx4dv_inline_ds(0, 61), 5);	/* 61 + 8 = 69 */
	assert_int_equal(mlx4dv_inline_ds(48, 12), 1);
	assert_int_equal(mlx4dv_inline_ds(48, 13), 2);	/* 12 + 4 | 4 + 1 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctrl_words),
		cmocka_unit_test(test_ctrl_flags_checksum_loopback),
		cmocka_unit_test(test_ctrl_vlan_and_dmac),
		cmocka_unit_test(test_ctrl_lso_big_header_and_nec),
		cmocka_unit_test(test_raddr_seg),
		cmocka_unit_test(test_atomic_segs),
		cmocka_unit_test(test_bind_seg),
		cmocka_unit_test(test_local_inval_seg),
		cmocka_unit_test(test_data_seg_and_zero_length),
		cmocka_unit_test(test_datagram_ib_no_grh),
		cmocka_unit_test(test_datagram_ib_grh),
		cmocka_unit_test(test_datagram_roce),
		cmocka_unit_test(test_lso_seg),
		cmocka_unit_test(test_inline_ds_formula),
	};

	t_run_group_tests_name("send_segments", tests, NULL, NULL);
	return t_exit();
}
