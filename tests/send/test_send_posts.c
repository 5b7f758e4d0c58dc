/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Golden bytes of every one-call post and of mlx4dv_sq_write_send_wr(),
 * and their refusals. Each post goes to count 0 of a fresh ring of
 * 128-byte WQEBBs prepared as libmlx4 prepares one (word 0 with the
 * software owner bit, ds 8, a stamp at byte 64); the expected WQE is
 * written out by hand (PRM layout, big-endian) and laid over a snapshot
 * of the ring, and the whole ring is compared. A refused post must leave
 * the ring and the counters exactly as they were.
 */
#include "send_test_util.h"
#include "test_exit.h"

static struct test_sq t;
static uint8_t *want;

static void fresh(enum ibv_qp_type type)
{
	test_sq_setup(&t, 16, 7, 2, type, 0, 1);
	t.sq.max_gather = 6;
	t.sq.max_inline = 88;
	want = (uint8_t *)malloc(t.size);
	assert_non_null(want);
	memcpy(want, t.mem, t.size);
}

static void expect_wqe(const struct piece *p, size_t n, uint32_t head_after)
{
	overlay(want, t.size, 0, p, n);
	expect_bytes(t.mem, want, t.size);
	assert_int_equal(t.sq.head, head_after);
	free(want);
	want = NULL;
	test_sq_teardown(&t);
}

/* Refused: same ring, same counters. */
static void expect_refused(int got, int err)
{
	assert_int_equal(got, err);
	expect_bytes(t.mem, want, t.size);
	assert_int_equal(t.sq.head, 0);
}

static void done_refusals(void)
{
	free(want);
	want = NULL;
	test_sq_teardown(&t);
}

static __be32 be32_bytes(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	const uint8_t v[4] = { a, b, c, d };
	__be32 r;

	memcpy(&r, v, 4);
	return r;
}

static void test_send_gather_zero_length(void **state)
{
	static const uint8_t w[48] = {
		0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x01, 0x11,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x22,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00,
	};
	const struct piece p[] = { { 0, 48, w, 0 } };
	struct ibv_sge sg[2] = { { 0xa0000, 64, 0x111 }, { 0xb0000, 0, 0x222 } };

	(void)state;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send(&t.sq, 0, sg, 2, IBV_SEND_SIGNALED |
					     IBV_SEND_SOLICITED), 0);
	expect_wqe(p, 1, 1);
}

static void test_send_imm_inline(void **state)
{
	static const uint8_t w[20] = {
		0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
		0x80, 0x00, 0x00, 0x14,
	};
	const struct piece p[] = { { 0, 20, w, 0 }, { 20, 20, NULL, 0 } };
	uint8_t data[20];

	(void)state;
	fresh(IBV_QPT_UC);
	fill_pattern(data, 0, 20);
	assert_int_equal(mlx4dv_sq_write_send_imm_inline(&t.sq, 0, data, 20, 0,
			 be32_bytes(1, 2, 3, 4)), 0);
	expect_wqe(p, 2, 1);
}

static void test_send_imm_gather(void **state)
{
	static const uint8_t w[32] = {
		0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x02, 0xca, 0xfe, 0xba, 0xbe,
		0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x09,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00,
	};
	const struct piece p[] = { { 0, 32, w, 0 } };
	struct ibv_sge sg = { 0x800, 16, 9 };

	(void)state;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send_imm(&t.sq, 0, &sg, 1, IBV_SEND_SOLICITED,
			 be32_bytes(0xca, 0xfe, 0xba, 0xbe)), 0);
	expect_wqe(p, 1, 1);
}

static void test_send_inv(void **state)
{
	static const uint8_t w[32] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x42,	/* fence | 2 */
		0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78,	/* rkey */
		0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
	};
	const struct piece p[] = { { 0, 32, w, 0 } };
	struct ibv_sge sg = { 0x40, 32, 3 };

	(void)state;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send_inv(&t.sq, 0, &sg, 1, IBV_SEND_FENCE,
						 0x12345678), 0);
	expect_wqe(p, 1, 1);
}

static void test_send_inv_inline_and_send_inline(void **state)
{
	static const uint8_t inv[20] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a,
		0x80, 0x00, 0x00, 0x05,
	};
	static const uint8_t snd[20] = {
		0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x80, 0x00, 0x00, 0x03,
	};
	const struct piece p1[] = { { 0, 20, inv, 0 }, { 20, 5, NULL, 0 } };
	const struct piece p2[] = { { 0, 20, snd, 0 }, { 20, 3, NULL, 0 } };
	uint8_t data[5];

	(void)state;
	fill_pattern(data, 0, 5);
	fresh(IBV_QPT_XRC_SEND);
	assert_int_equal(mlx4dv_sq_write_send_inv_inline(&t.sq, 0, data, 5, 0, 42), 0);
	expect_wqe(p1, 2, 1);
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send_inline(&t.sq, 0, data, 3, 0), 0);
	expect_wqe(p2, 2, 1);
}

static void test_write_gather(void **state)
{
	static const uint8_t w[48] = {
		0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,	/* strong order */
		0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x44,
		0x00, 0x00, 0x00, 0x00, 0xdd, 0xcc, 0xbb, 0xaa,
	};
	const struct piece p[] = { { 0, 48, w, 0 } };
	struct ibv_sge sg = { 0xddccbbaa, 4096, 0x44 };

	(void)state;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&t.sq, 0, 0xbeef, 0x00007f0000001000ull, &sg,
					      1, MLX4DV_SEND_STRONG_ORDER), 0);
	expect_wqe(p, 1, 1);
}

static void test_write_imm_zero_bytes(void **state)
{
	static const uint8_t w[32] = {
		0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x07,	/* loopback */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,
		0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00,
	};
	const struct piece p[] = { { 0, 32, w, 0 } };

	(void)state;
	fresh(IBV_QPT_RC);
	/* no data: no inline header at all */
	assert_int_equal(mlx4dv_sq_write_rdma_write_imm_inline(&t.sq, 0, 9, 8, NULL, 0,
			 MLX4DV_SEND_FORCE_LOOPBACK, be32_bytes(0, 0, 0, 7)), 0);
	expect_wqe(p, 1, 1);
}

static void test_write_imm_gather(void **state)
{
	static const uint8_t w[48] = {
		0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x0c, 0x11, 0x22, 0x33, 0x44,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
		0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x05,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00,
	};
	const struct piece p[] = { { 0, 48, w, 0 } };
	struct ibv_sge sg = { 0x3000, 8, 5 };

	(void)state;
	fresh(IBV_QPT_UC);
	assert_int_equal(mlx4dv_sq_write_rdma_write_imm(&t.sq, 0, 6, 0x2000, &sg, 1,
			 IBV_SEND_SIGNALED, be32_bytes(0x11, 0x22, 0x33, 0x44)), 0);
	expect_wqe(p, 1, 1);
}

static void test_read(void **state)
{
	static const uint8_t w[64] = {
		0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78,
		0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
	};
	const struct piece p[] = { { 0, 64, w, 0 } };
	struct ibv_sge sg[2] = { { 0x100, 16, 1 }, { 0x200, 32, 2 } };

	(void)state;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_rdma_read(&t.sq, 0, 11, 0x12345678, sg, 2,
					     IBV_SEND_SIGNALED), 0);
	expect_wqe(p, 1, 1);
}

static void test_cas_and_faa(void **state)
{
	static const uint8_t cas[64] = {
		0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x08,	/* raddr */
		0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x00,	/* rkey */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,	/* swap */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,	/* compare */
		0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x0e,	/* result */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x00,
	};
	static const uint8_t faa[48] = {
		0x00, 0x00, 0x00, 0x12, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x10,
		0x00, 0x00, 0x00, 0x0d, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,	/* add -1 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	const struct piece pc[] = { { 0, 64, cas, 0 } };
	const struct piece pf[] = { { 0, 48, faa, 0 }, { 48, 16, cas + 48, 0 } };
	struct ibv_sge res = { 0x9000, 8, 14 };

	(void)state;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_cas(&t.sq, 0, 13, 0x4008, 1, 2, &res,
					    IBV_SEND_SIGNALED), 0);
	expect_wqe(pc, 1, 1);
	fresh(IBV_QPT_XRC_SEND);
	assert_int_equal(mlx4dv_sq_write_faa(&t.sq, 0, 13, 0x4010, 0xffffffffffffffffull,
					    &res, 0), 0);
	expect_wqe(pf, 2, 1);
}

static void test_xrc_srqn(void **state)
{
	static const uint8_t w[16] = {
		0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x01,
		0xab, 0xcd, 0xef, 0x0c, 0x00, 0x00, 0x00, 0x00,
	};
	const struct piece p[] = { { 0, 16, w, 0 } };

	(void)state;
	fresh(IBV_QPT_XRC_SEND);
	assert_int_equal(mlx4dv_sq_write_send(&t.sq, 0, NULL, 0, IBV_SEND_SIGNALED |
					     MLX4DV_SEND_XRC_SRQN(0xabcdef)), 0);
	expect_wqe(p, 1, 1);
}

static void fill_av(struct mlx4dv_ud_av *av)
{
	struct ibv_ah_attr a;

	memset(&a, 0, sizeof(a));
	a.dlid = 0x11;
	a.sl = 1;
	a.port_num = 1;
	assert_int_equal(mlx4dv_ud_av_init(av, 5, &a, NULL), 0);
}

static const uint8_t ud_head[64] = {
	0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x05,
	0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00,	/* IP | TCP/UDP csum */
	0x01, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x11,	/* port 1 pd 5, dlid */
	0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,	/* sl 1 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x00, 0x02, 0x00, 0x11, 0x11, 0x11, 0x11,	/* dqpn, qkey */
	0, 0, 0, 0, 0, 0, 0, 0,
};

static void test_ud_send(void **state)
{
	static const uint8_t d[16] = {
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x21,
		0x00, 0x00, 0x00, 0x00, 0x00, 0xee, 0x00, 0x00,
	};
	const struct piece p[] = { { 0, 64, ud_head, 0 }, { 64, 16, d, 0 } };
	struct ibv_sge sg = { 0xee0000, 256, 0x21 };
	struct mlx4dv_ud_av av;

	(void)state;
	fill_av(&av);
	fresh(IBV_QPT_UD);
	assert_int_equal(mlx4dv_sq_write_ud_send(&t.sq, 0, &av, 0x200, 0x11111111,
						&sg, 1, IBV_SEND_IP_CSUM), 0);
	expect_wqe(p, 2, 1);
}

/* 70 inline bytes after the datagram: the header is at byte 64 (chunk
 * start), 60 bytes fit, the rest opens a header at byte 128: 2 WQEBBs. */
static void test_ud_send_inline_two_wqebbs(void **state)
{
	static const uint8_t h0[4] = { 0x80, 0x00, 0x00, 0x3c };
	static const uint8_t h1[4] = { 0x80, 0x00, 0x00, 0x0a };
	uint8_t head[64];
	const struct piece p[] = {
		{ 0, 64, head, 0 }, { 64, 4, h0, 0 }, { 68, 60, NULL, 0 },
		{ 128, 4, h1, 0 }, { 132, 10, NULL, 60 },
	};
	struct mlx4dv_ud_av av;
	uint8_t data[70];

	(void)state;
	memcpy(head, ud_head, 64);
	head[7] = 0x09;		/* ds 4 + ceil(78 / 16) = 9 */
	head[11] = 0x00;	/* no checksum flags */
	fill_av(&av);
	fill_pattern(data, 0, 70);
	fresh(IBV_QPT_UD);
	t.sq.max_inline = 200;
	assert_int_equal(mlx4dv_sq_write_ud_send_inline(&t.sq, 0, &av, 0x200,
						       0x11111111, data, 70, 0), 0);
	expect_wqe(p, 5, 2);
}

static void test_eth_gather(void **state)
{
	uint8_t w[32] = {
		0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x02,
		0x02, 0x11, 0x00, 0x3e,	/* dmac[0..1] | CQ | csum | no ICRC */
		0x22, 0x33, 0x44, 0x55,	/* dmac[2..5] */
		0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x01,
		0, 0, 0, 0, 0, 0, 0, 0,	/* frame address, filled below */
	};
	const struct piece p[] = { { 0, 32, w, 0 } };
	uint8_t frame[64];
	struct ibv_sge sg;
	uint64_t a;
	int i;

	(void)state;
	memset(frame, 0, sizeof(frame));
	frame[0] = 0x02; frame[1] = 0x11; frame[2] = 0x22;
	frame[3] = 0x33; frame[4] = 0x44; frame[5] = 0x55;
	sg.addr = (uintptr_t)frame;
	sg.length = 64;
	sg.lkey = 1;
	a = sg.addr;
	for (i = 0; i < 8; i++)
		w[24 + i] = (uint8_t)(a >> (56 - 8 * i));
	fresh(IBV_QPT_RAW_PACKET);
	assert_int_equal(mlx4dv_sq_write_eth(&t.sq, 0, &sg, 1, IBV_SEND_SIGNALED |
					    IBV_SEND_IP_CSUM, 0), 0);
	expect_wqe(p, 1, 1);
}

/* Inline frame, tunnel checksums with outer IP checksum, C-VLAN insert. */
static void test_eth_inline_vlan_tunnel(void **state)
{
	static const uint8_t w[20] = {
		0x18, 0x00, 0x00, 0x0a,	/* inner IP | inner L4 | SEND */
		0x01, 0x23, 0x40, 0x06,	/* tag 0x0123, C-VLAN, ds 6 */
		0x30, 0x37, 0x00, 0x12,	/* dmac[0..1] | IP csum | no ICRC */
		0x3e, 0x45, 0x4c, 0x53,	/* dmac[2..5] */
		0x80, 0x00, 0x00, 0x2c,
	};
	static const uint8_t h1[4] = { 0x80, 0x00, 0x00, 0x10 };
	const struct piece p[] = {
		{ 0, 20, w, 0 }, { 20, 44, NULL, 0 },
		{ 64, 4, h1, 0 }, { 68, 16, NULL, 44 },
	};
	uint8_t frame[60];

	(void)state;
	fill_pattern(frame, 0, 60);
	fresh(IBV_QPT_RAW_PACKET);
	assert_int_equal(mlx4dv_sq_write_eth_inline(&t.sq, 0, frame, 60,
			 MLX4DV_SEND_TUNNEL_CSUM | IBV_SEND_IP_CSUM |
			 MLX4DV_SEND_INS_CVLAN, 0x0123), 0);
	expect_wqe(p, 4, 1);
}

static void test_eth_lso(void **state)
{
	static const uint8_t w[20] = {
		0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x00, 0x06,	/* LSO, ds 6 */
		0x30, 0x37, 0x00, 0x3e, 0x3e, 0x45, 0x4c, 0x53,
		0x05, 0xa8, 0x00, 0x36,	/* mss 1448 | 54 header bytes */
	};
	static const uint8_t pad_and_data[22] = {
		0, 0, 0, 0, 0, 0,
		0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x07,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
	};
	const struct piece p[] = {
		{ 0, 20, w, 0 }, { 20, 54, NULL, 0 }, { 74, 22, pad_and_data, 0 },
	};
	uint8_t hdr[54];
	struct mlx4dv_lso_attr lso;
	struct ibv_sge sg = { 0x100000, 0x2000, 7 };

	(void)state;
	fill_pattern(hdr, 0, 54);
	lso.header = hdr;
	lso.header_size = 54;
	lso.mss = 1448;
	fresh(IBV_QPT_RAW_PACKET);
	assert_int_equal(mlx4dv_sq_write_eth_lso(&t.sq, 0, &lso, &sg, 1,
			 IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM, 0), 0);
	expect_wqe(p, 3, 1);
}

static void test_eth_lso_big_header(void **state)
{
	uint8_t hdr[62];
	struct mlx4dv_lso_attr lso;

	(void)state;
	fill_pattern(hdr, 0, 62);
	lso.header = hdr;
	lso.header_size = 62;
	lso.mss = 100;
	fresh(IBV_QPT_RAW_PACKET);
	assert_int_equal(mlx4dv_sq_write_eth_lso(&t.sq, 0, &lso, NULL, 0, 0, 0), 0);
	assert_int_equal(t.mem[0], 0x00);
	assert_int_equal(t.mem[3], 0x4e);	/* big header bit | LSO */
	assert_int_equal(t.mem[7], 0x06);	/* 1 + 5 */
	free(want);
	test_sq_teardown(&t);
}

static void test_post_send_wr_local_inv_and_bind(void **state)
{
	static const uint8_t li[48] = {
		0x00, 0x00, 0x00, 0x1b, 0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x00, 0x8c, 0x00, 0x00, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x0b, 0xcd, 0xef, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t bind[48] = {
		0x00, 0x00, 0x00, 0x18, 0x00, 0x00, 0x00, 0x43,	/* fence */
		0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00,
		0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* write; type 1 */
		0x00, 0x00, 0x99, 0x01, 0x00, 0x00, 0x55, 0x55,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	};
	const struct piece pl[] = { { 0, 48, li, 0 } };
	const struct piece pb[] = { { 0, 48, bind, 0 } };
	struct ibv_send_wr wr;
	struct ibv_mw mw;
	struct ibv_mr mr;

	(void)state;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.invalidate_rkey = 0xbcdef;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr_id = 77;
	fresh(IBV_QPT_RC);
	t.sq.wrid = t.wrid;
	assert_int_equal(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), 0);
	assert_int_equal(t.wrid[0], 77);
	expect_wqe(pl, 1, 1);

	memset(&mw, 0, sizeof(mw));
	memset(&mr, 0, sizeof(mr));
	mw.type = IBV_MW_TYPE_1;
	mr.lkey = 0x5555;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_FENCE;
	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = 0x9901;
	wr.bind_mw.bind_info.mr = &mr;
	wr.bind_mw.bind_info.addr = 0x400000;
	wr.bind_mw.bind_info.length = 0x1000;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), 0);
	expect_wqe(pb, 1, 1);
}

static void test_post_send_wr_matches_one_call(void **state)
{
	struct ibv_sge sg[2] = { { 0x1000, 100, 1 }, { 0x2000, 0, 2 } };
	struct ibv_send_wr wr;
	uint8_t *first;

	(void)state;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_rdma_write_imm(&t.sq, 0, 3, 0xabc0, sg, 2,
			 IBV_SEND_SIGNALED, be32_bytes(9, 8, 7, 6)), 0);
	first = (uint8_t *)malloc(t.size);
	assert_non_null(first);
	memcpy(first, t.mem, t.size);
	free(want);
	test_sq_teardown(&t);

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.sg_list = sg;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = be32_bytes(9, 8, 7, 6);
	wr.wr.rdma.remote_addr = 0xabc0;
	wr.wr.rdma.rkey = 3;
	fresh(IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), 0);
	expect_bytes(t.mem, first, t.size);
	free(first);
	free(want);
	test_sq_teardown(&t);
}

static void test_refusals(void **state)
{
	struct ibv_sge sg[8];
	struct ibv_sge big = { 0x1000, 89, 1 };
	struct mlx4dv_ud_av av;
	struct ibv_send_wr wr;
	uint8_t frame[128] = { 0 };
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		sg[i].addr = 0x1000;
		sg[i].length = 8;
		sg[i].lkey = 1;
	}
	fill_av(&av);

	fresh(IBV_QPT_RC);
	/* wrong QP type for the operation */
	expect_refused(mlx4dv_sq_write_ud_send(&t.sq, 0, &av, 1, 1, sg, 1, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_eth(&t.sq, 0, sg, 1, 0, 0), EINVAL);
	/* limits: 7 entries > max_gather 6, 89 inline bytes > 88 */
	expect_refused(mlx4dv_sq_write_send(&t.sq, 0, sg, 7, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_send(&t.sq, 0, &big, 1, IBV_SEND_INLINE), EINVAL);
	expect_refused(mlx4dv_sq_write_send_inline(&t.sq, 0, frame, 89, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_send(&t.sq, 0, NULL, 1, 0), EINVAL);
	/* unknown flags; an SRQN outside XRC; VLAN flags outside raw */
	expect_refused(mlx4dv_sq_write_send(&t.sq, 0, sg, 1, 1u << 20), EINVAL);
	expect_refused(mlx4dv_sq_write_send(&t.sq, 0, sg, 1, MLX4DV_SEND_XRC_SRQN(5)),
		       EINVAL);
	expect_refused(mlx4dv_sq_write_send(&t.sq, 0, sg, 1, MLX4DV_SEND_INS_CVLAN),
		       EINVAL);
	/* read inline; misaligned or NULL atomic */
	expect_refused(mlx4dv_sq_write_rdma_read(&t.sq, 0, 0, 0, sg, 1, IBV_SEND_INLINE),
		       EINVAL);
	expect_refused(mlx4dv_sq_write_cas(&t.sq, 0, 1, 0x1004, 0, 0, sg, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_faa(&t.sq, 0, 1, 0x1000, 0, NULL, 0), EINVAL);
	/* a WQE over 63 ds (max_gather raised to let it through) */
	t.sq.max_gather = 70;
	{
		struct ibv_sge many[62];

		for (i = 0; i < 62; i++)
			many[i] = sg[0];
		/* ctrl + raddr + 62 = 64 ds */
		expect_refused(mlx4dv_sq_write_rdma_write(&t.sq, 0, 0, 0, many, 62, 0),
			       EINVAL);
		/* 1 + 62 = 63 ds but 8 WQEBBs > 2 spare */
		expect_refused(mlx4dv_sq_write_send(&t.sq, 0, many, 62, 0), EINVAL);
	}
	t.sq.max_gather = 6;
	/* generic: opcode not supported, negative count, UD without dest,
	 * atomic with two entries, gather entries on LOCAL_INV */
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_TSO;
	expect_refused(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), EINVAL);
	wr.opcode = IBV_WR_SEND;
	wr.num_sge = -1;
	expect_refused(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), EINVAL);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.num_sge = 2;
	wr.sg_list = sg;
	expect_refused(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), EINVAL);
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.num_sge = 1;
	expect_refused(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), EINVAL);
	done_refusals();

	fresh(IBV_QPT_UC);
	expect_refused(mlx4dv_sq_write_rdma_read(&t.sq, 0, 0, 0, sg, 1, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_send_inv(&t.sq, 0, sg, 1, 0, 1), EINVAL);
	expect_refused(mlx4dv_sq_write_faa(&t.sq, 0, 1, 0x1000, 1, sg, 0), EINVAL);
	done_refusals();

	fresh(IBV_QPT_UD);
	expect_refused(mlx4dv_sq_write_send(&t.sq, 0, sg, 1, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_ud_send(&t.sq, 0, NULL, 1, 1, sg, 1, 0), EINVAL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = sg;
	wr.num_sge = 1;
	expect_refused(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), EINVAL);
	wr.opcode = IBV_WR_RDMA_WRITE;
	expect_refused(mlx4dv_sq_write_send_wr(&t.sq, &wr, &av), EINVAL);
	done_refusals();

	fresh(IBV_QPT_RAW_PACKET);
	expect_refused(mlx4dv_sq_write_eth_inline(&t.sq, 0, frame, 5, 0, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_eth_inline(&t.sq, 0, frame, 14,
			MLX4DV_SEND_INS_CVLAN | MLX4DV_SEND_INS_SVLAN, 1), EINVAL);
	expect_refused(mlx4dv_sq_write_eth(&t.sq, 0, sg, 0, 0, 0), EINVAL);
	expect_refused(mlx4dv_sq_write_eth_lso(&t.sq, 0, NULL, sg, 1, 0, 0), EINVAL);
	done_refusals();
}

/* The ring is never written when the post is refused for lack of room,
 * and the wr_id slot keeps its value. */
static void test_refused_for_room_keeps_wrid(void **state)
{
	struct ibv_sge sg = { 0x1000, 8, 1 };
	struct ibv_send_wr wr;
	int i;

	(void)state;
	fresh(IBV_QPT_RC);
	t.sq.wrid = t.wrid;
	for (i = 0; i < 14; i++)
		assert_int_equal(mlx4dv_sq_write_send(&t.sq, 0, &sg, 1, 0), 0);
	memcpy(want, t.mem, t.size);
	t.wrid[14] = 0x5a5a;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.wr_id = 99;
	assert_int_equal(mlx4dv_sq_write_send_wr(&t.sq, &wr, NULL), ENOMEM);
	expect_bytes(t.mem, want, t.size);
	assert_int_equal(t.wrid[14], 0x5a5a);
	assert_int_equal(t.sq.head, 14);
	done_refusals();
}

/*
 * The one-call writes record wr_id in every state a ring can be in: the
 * common state with a table (MLX4DV_SQ_FAST_WRID: stored without testing
 * the pointer), a table set after mlx4dv_sq_fast_path_init() (the bit
 * clear), no table, and fast_path 0 (every check). From count 14 of 16
 * the three WQEs take slots 14, 15 and 0; the other entries keep their
 * value and the ring holds the same bytes in every state.
 */
enum { WRID_STATES = 4, WRID_UNTOUCHED = 0xeeee };

static void post_write_send_read(struct test_sq *r)
{
	const struct ibv_sge sg = { 0x1000, 8, 1 };

	assert_int_equal(mlx4dv_sq_write_rdma_write(&r->sq, 0x11, 0x77,
						    0x2000, &sg, 1, 0), 0);
	assert_int_equal(mlx4dv_sq_write_send_inline(&r->sq, 0x22, "abcd", 4,
						     IBV_SEND_SIGNALED), 0);
	assert_int_equal(mlx4dv_sq_write_rdma_read(&r->sq, 0x33, 0x77, 0x3000,
						   &sg, 1, 0), 0);
	assert_int_equal(r->sq.head, 17);
}

static void test_one_call_wr_id_every_state(void **state)
{
	static const uint32_t fast[WRID_STATES] = {
		MLX4DV_SQ_FAST_CONNECTED | MLX4DV_SQ_FAST_WRID,
		MLX4DV_SQ_FAST_CONNECTED, MLX4DV_SQ_FAST_CONNECTED, 0,
	};
	struct test_sq r[WRID_STATES];
	int k;

	(void)state;
	for (k = 0; k < WRID_STATES; k++) {
		struct test_sq *q = &r[k];
		uint32_t i;

		test_sq_setup(q, 16, 7, 2, IBV_QPT_RC, 14, 1);
		q->sq.max_gather = 6;
		q->sq.max_inline = 88;
		for (i = 0; i < 16; i++)
			q->wrid[i] = WRID_UNTOUCHED;
		if (k == 0)
			q->sq.wrid = q->wrid;
		if (k < 3)
			mlx4dv_sq_fast_path_init(&q->sq);
		if (k == 1 || k == 3)
			q->sq.wrid = q->wrid;
		assert_int_equal(q->sq.fast_path, fast[k]);
		post_write_send_read(q);
		for (i = 0; i < 16; i++) {
			uint64_t w = i == 14 ? 0x11 : i == 15 ? 0x22 :
				     i == 0 ? 0x33 : WRID_UNTOUCHED;

			assert_int_equal(q->wrid[i], k == 2 ? WRID_UNTOUCHED : w);
		}
	}
	for (k = 0; k < WRID_STATES - 1; k++)
		expect_bytes(r[k].mem, r[WRID_STATES - 1].mem, r[k].size);
	for (k = 0; k < WRID_STATES; k++)
		test_sq_teardown(&r[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_gather_zero_length),
		cmocka_unit_test(test_one_call_wr_id_every_state),
		cmocka_unit_test(test_send_imm_inline),
		cmocka_unit_test(test_send_imm_gather),
		cmocka_unit_test(test_send_inv),
		cmocka_unit_test(test_send_inv_inline_and_send_inline),
		cmocka_unit_test(test_write_gather),
		cmocka_unit_test(test_write_imm_zero_bytes),
		cmocka_unit_test(test_write_imm_gather),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_cas_and_faa),
		cmocka_unit_test(test_xrc_srqn),
		cmocka_unit_test(test_ud_send),
		cmocka_unit_test(test_ud_send_inline_two_wqebbs),
		cmocka_unit_test(test_eth_gather),
		cmocka_unit_test(test_eth_inline_vlan_tunnel),
		cmocka_unit_test(test_eth_lso),
		cmocka_unit_test(test_eth_lso_big_header),
		cmocka_unit_test(test_post_send_wr_local_inv_and_bind),
		cmocka_unit_test(test_post_send_wr_matches_one_call),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refused_for_room_keeps_wrid),
	};

	t_run_group_tests_name("send_posts", tests, NULL, NULL);
	return t_exit();
}
