/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * CQE decoding from hand-built CQE bytes: every send and receive opcode,
 * every syndrome, GRH, VLAN, checksum and packet-type bits, timestamp, and
 * the ibv_wc fill rules of libmlx4 (rdma-core 44.0 providers/mlx4/cq.c).
 * The CQE bytes are literals laid out by hand from the PRM/rdma-core
 * layout; the expected values are written out, not computed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

/*
 * A receive CQE:
 *  0..3   vlan_my_qpn   20 00 12 34  CVLAN present, QPN 0x001234
 *  4..7   immed         de ad be ef
 *  8..11  g_mlpath_rqpn 85 00 56 78  GRH, path bits 0x05, source QP 0x5678
 * 12..13  sl_vid        a0 7b        SL 10 (IB) / 5 (Eth), VLAN 0x07b
 * 14..15  rlid          00 2a        SLID 42
 * 16..19  status        10 40 00 04  IP hdr ok (28), IPv4 (22), L4 ok (2)
 * 20..23  byte_cnt      00 00 05 dc  1500
 * 24..25  wqe_index     00 07
 * 26..27  checksum      ff ff
 * 28      reserved, 29 ts_15_8 9a, 30 ts_7_0 bc, 31 owner|opcode
 */
static const uint8_t recv_cqe[32] = {
	0x20, 0x00, 0x12, 0x34, 0xde, 0xad, 0xbe, 0xef,
	0x85, 0x00, 0x56, 0x78, 0xa0, 0x7b, 0x00, 0x2a,
	0x10, 0x40, 0x00, 0x04, 0x00, 0x00, 0x05, 0xdc,
	0x00, 0x07, 0xff, 0xff, 0x00, 0x9a, 0xbc, 0x00,
};

/* A send CQE: QPN 0x00abcd, byte count 0x00010000, wqe_index 0x0123. */
static const uint8_t send_cqe[32] = {
	0x00, 0x00, 0xab, 0xcd, 0x11, 0x11, 0x11, 0x11,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x01, 0x23, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,
};

#define SENTINEL 0xa5

static struct mlx4_cqe make_cqe(const uint8_t base[32], uint8_t last)
{
	struct mlx4_cqe c;

	memcpy(&c, base, 32);
	((uint8_t *)&c)[31] = last;
	return c;
}

static void wc_sentinel(struct ibv_wc *wc)
{
	memset(wc, SENTINEL, sizeof(*wc));
}

static void test_recv_fields(void **state)
{
	struct mlx4_cqe c = make_cqe(recv_cqe, MLX4_RECV_OPCODE_SEND);

	(void)state;
	assert_int_equal(mlx4dv_cqe_qpn(&c), 0x1234);
	assert_false(mlx4dv_cqe_is_send(&c));
	assert_false(mlx4dv_cqe_is_error(&c));
	assert_int_equal(mlx4dv_cqe_opcode(&c), 0x01);
	assert_int_equal(mlx4dv_cqe_byte_len(&c), 1500);
	assert_memory_equal(&((__be32[]){mlx4dv_cqe_imm_data(&c)})[0],
			    ((const uint8_t[]){0xde, 0xad, 0xbe, 0xef}), 4);
	assert_int_equal(mlx4dv_cqe_invalidated_rkey(&c), 0xdeadbeef);
	assert_int_equal(mlx4dv_cqe_rss_hash(&c), 0xdeadbeef);
	assert_int_equal(mlx4dv_cqe_pkey_index(&c), 0x6f);
	assert_int_equal(mlx4dv_cqe_src_qp(&c), 0x5678);
	assert_int_equal(mlx4dv_cqe_dlid_path_bits(&c), 0x05);
	assert_true(mlx4dv_cqe_has_grh(&c));
	assert_int_equal(mlx4dv_cqe_slid(&c), 42);
	assert_int_equal(mlx4dv_cqe_sl(&c, 0), 10);
	assert_int_equal(mlx4dv_cqe_sl(&c, 1), 5);
	assert_true(mlx4dv_cqe_vlan_present(&c));
	assert_int_equal(mlx4dv_cqe_vlan_id(&c), 0x07b);
	assert_int_equal(mlx4dv_cqe_status(&c), 0x10400004);
	assert_true(mlx4dv_cqe_is_ipv4(&c));
	assert_false(mlx4dv_cqe_is_ipv6(&c));
	assert_true(mlx4dv_cqe_ip_hdr_csum_ok(&c));
	assert_true(mlx4dv_cqe_l4_csum_ok(&c));
	assert_true(mlx4dv_cqe_ip_csum_ok(&c));
	assert_int_equal(mlx4dv_cqe_checksum(&c), 0xffff);
	assert_int_equal(mlx4dv_cqe_wqe_index(&c), 7);
	/* sl_vid/rlid read as the timestamp's high 32 bits. */
	assert_int_equal(mlx4dv_cqe_timestamp(&c), 0xa07b002a9abcULL);
}

static void test_no_vlan_no_grh(void **state)
{
	struct mlx4_cqe c = make_cqe(recv_cqe, MLX4_RECV_OPCODE_SEND);
	uint8_t *b = (uint8_t *)&c;

	(void)state;
	b[0] = 0x00;		/* no CVLAN */
	b[8] = 0x05;		/* no GRH, path bits 5 */
	assert_false(mlx4dv_cqe_vlan_present(&c));
	assert_int_equal(mlx4dv_cqe_vlan_id(&c), 0xffff);
	assert_false(mlx4dv_cqe_has_grh(&c));
	assert_int_equal(mlx4dv_cqe_dlid_path_bits(&c), 0x05);
	assert_int_equal(mlx4dv_cqe_wc_flags(&c, 0), 0);
	/* An SVLAN bit alone is not a CVLAN. */
	b[0] = 0x40;
	assert_false(mlx4dv_cqe_vlan_present(&c));
	assert_int_equal(mlx4dv_cqe_qpn(&c), 0x1234);
}

/* Each checksum bit alone, and libmlx4's all-three rule. */
static void test_checksum_bits(void **state)
{
	static const struct {
		uint8_t status[4];
		int ipv4, ip_ok, l4_ok, all, ipv6, tcp, udp;
	} cases[] = {
		{ {0x00, 0x00, 0x00, 0x00}, 0, 0, 0, 0, 0, 0, 0 },
		{ {0x00, 0x40, 0x00, 0x00}, 1, 0, 0, 0, 0, 0, 0 },
		{ {0x10, 0x00, 0x00, 0x00}, 0, 1, 0, 0, 0, 0, 0 },
		{ {0x00, 0x00, 0x00, 0x04}, 0, 0, 1, 0, 0, 0, 0 },
		{ {0x10, 0x40, 0x00, 0x00}, 1, 1, 0, 0, 0, 0, 0 },
		{ {0x00, 0x40, 0x00, 0x04}, 1, 0, 1, 0, 0, 0, 0 },
		{ {0x10, 0x00, 0x00, 0x04}, 0, 1, 1, 0, 0, 0, 0 },
		{ {0x14, 0x40, 0x00, 0x04}, 1, 1, 1, 1, 0, 1, 0 },
		{ {0x18, 0x40, 0x00, 0x04}, 1, 1, 1, 1, 0, 0, 1 },
		{ {0x15, 0x00, 0x00, 0x04}, 0, 1, 1, 0, 1, 1, 0 },
		{ {0xff, 0xff, 0xff, 0xff}, 1, 1, 1, 1, 1, 1, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mlx4_cqe c = make_cqe(recv_cqe, MLX4_RECV_OPCODE_SEND);
		unsigned int flags;

		memcpy((uint8_t *)&c + 16, cases[i].status, 4);
		assert_int_equal(!!mlx4dv_cqe_is_ipv4(&c), cases[i].ipv4);
		assert_int_equal(!!mlx4dv_cqe_ip_hdr_csum_ok(&c), cases[i].ip_ok);
		assert_int_equal(!!mlx4dv_cqe_l4_csum_ok(&c), cases[i].l4_ok);
		assert_int_equal(!!mlx4dv_cqe_ip_csum_ok(&c), cases[i].all);
		assert_int_equal(!!mlx4dv_cqe_is_ipv6(&c), cases[i].ipv6);
		assert_int_equal(!!(mlx4dv_cqe_status(&c) & MLX4DV_CQE_STATUS_TCP), cases[i].tcp);
		assert_int_equal(!!(mlx4dv_cqe_status(&c) & MLX4DV_CQE_STATUS_UDP), cases[i].udp);
		/* IBV_WC_IP_CSUM_OK (bit 2) only with valid checksum bits. */
		flags = mlx4dv_cqe_wc_flags(&c, MLX4DV_CQE_RX_CSUM_VALID);
		assert_int_equal(!!(flags & (1u << 2)), cases[i].all);
		flags = mlx4dv_cqe_wc_flags(&c, MLX4DV_CQE_RX_ETHERNET);
		assert_int_equal(flags & (1u << 2), 0);
	}
}

static void test_timestamp(void **state)
{
	struct mlx4_cqe c = make_cqe(recv_cqe, MLX4_RECV_OPCODE_SEND);
	uint8_t *b = (uint8_t *)&c;

	(void)state;
	b[12] = 0x12; b[13] = 0x34; b[14] = 0x56; b[15] = 0x78;
	b[29] = 0x9a; b[30] = 0xbc;
	assert_int_equal(mlx4dv_cqe_timestamp(&c), 0x123456789abcULL);
	memset(b + 12, 0xff, 4);
	b[29] = 0xff; b[30] = 0xff;
	assert_int_equal(mlx4dv_cqe_timestamp(&c), 0xffffffffffffULL);
}

/* ibv_wc fields libmlx4 writes for each receive opcode. */
static void test_recv_opcodes_to_wc(void **state)
{
	static const struct {
		uint8_t op;
		unsigned int opcode;	/* enum ibv_wc_opcode */
		unsigned int flags;	/* without GRH */
		int imm, inv;
	} cases[] = {
		{ 0x00, IBV_WC_RECV_RDMA_WITH_IMM, IBV_WC_WITH_IMM, 1, 0 },
		{ 0x01, IBV_WC_RECV, 0, 0, 0 },
		{ 0x02, IBV_WC_RECV, IBV_WC_WITH_IMM, 1, 0 },
		{ 0x03, IBV_WC_RECV, IBV_WC_WITH_INV, 0, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mlx4_cqe c = make_cqe(recv_cqe, cases[i].op);
		struct ibv_wc wc;

		wc_sentinel(&wc);
		mlx4dv_cqe_to_wc(&c, 0, &wc);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.opcode, cases[i].opcode);
		assert_int_equal(mlx4dv_cqe_wc_opcode(&c), cases[i].opcode);
		assert_int_equal(wc.wc_flags, cases[i].flags | IBV_WC_GRH);
		assert_int_equal(wc.qp_num, 0x1234);
		assert_int_equal(wc.byte_len, 1500);
		assert_int_equal(wc.src_qp, 0x5678);
		assert_int_equal(wc.slid, 42);
		assert_int_equal(wc.sl, 10);
		assert_int_equal(wc.dlid_path_bits, 5);
		assert_int_equal(wc.pkey_index, 0x6f);
		if (cases[i].imm)
			assert_memory_equal(&wc.imm_data,
					    ((const uint8_t[]){0xde, 0xad, 0xbe, 0xef}), 4);
		else if (cases[i].inv)
			assert_int_equal(wc.invalidated_rkey, 0xdeadbeef);
		else
			assert_int_equal(wc.imm_data, 0xa5a5a5a5);
		/* Untouched for receives: wr_id and vendor_err. */
		assert_int_equal(wc.wr_id, 0xa5a5a5a5a5a5a5a5ULL);
		assert_int_equal(wc.vendor_err, 0xa5a5a5a5);
		/* Ethernet: SL from the top 3 bits; checksum when valid. */
		mlx4dv_cqe_to_wc(&c, MLX4DV_CQE_RX_ETHERNET | MLX4DV_CQE_RX_CSUM_VALID, &wc);
		assert_int_equal(wc.sl, 5);
		assert_int_equal(wc.wc_flags, cases[i].flags | IBV_WC_GRH | IBV_WC_IP_CSUM_OK);
	}
}

/* ibv_wc fields libmlx4 writes for each send opcode (handle_good_req). */
static void test_send_opcodes_to_wc(void **state)
{
	static const struct {
		uint8_t op;
		unsigned int opcode;
		unsigned int flags;
		uint32_t byte_len;	/* 0xa5a5a5a5: left alone */
	} cases[] = {
		{ 0x00, IBV_WC_SEND, 0, 0xa5a5a5a5 },		/* NOP */
		{ 0x01, IBV_WC_SEND, 0, 0xa5a5a5a5 },		/* SEND_INVAL */
		{ 0x08, IBV_WC_RDMA_WRITE, 0, 0xa5a5a5a5 },
		{ 0x09, IBV_WC_RDMA_WRITE, IBV_WC_WITH_IMM, 0xa5a5a5a5 },
		{ 0x0a, IBV_WC_SEND, 0, 0xa5a5a5a5 },
		{ 0x0b, IBV_WC_SEND, IBV_WC_WITH_IMM, 0xa5a5a5a5 },
		{ 0x0e, IBV_WC_SEND, 0, 0xa5a5a5a5 },		/* LSO */
		{ 0x10, IBV_WC_RDMA_READ, 0, 0x00010000 },
		{ 0x11, IBV_WC_COMP_SWAP, 0, 8 },
		{ 0x12, IBV_WC_FETCH_ADD, 0, 8 },
		{ 0x14, IBV_WC_SEND, 0, 0xa5a5a5a5 },		/* masked CS */
		{ 0x15, IBV_WC_SEND, 0, 0xa5a5a5a5 },		/* masked FA */
		{ 0x18, IBV_WC_BIND_MW, 0, 0xa5a5a5a5 },
		{ 0x19, IBV_WC_SEND, 0, 0xa5a5a5a5 },		/* FMR */
		{ 0x1b, IBV_WC_LOCAL_INV, 0, 0xa5a5a5a5 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* Owner bit set too: it must not change the decoding. */
		struct mlx4_cqe c = make_cqe(send_cqe, (uint8_t)(0xc0 | cases[i].op));
		struct ibv_wc wc;

		wc_sentinel(&wc);
		assert_true(mlx4dv_cqe_is_send(&c));
		mlx4dv_cqe_to_wc(&c, MLX4DV_CQE_RX_CSUM_VALID, &wc);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.opcode, cases[i].opcode);
		assert_int_equal(wc.wc_flags, cases[i].flags);
		assert_int_equal(wc.byte_len, cases[i].byte_len);
		assert_int_equal(wc.qp_num, 0xabcd);
		assert_int_equal(mlx4dv_cqe_wqe_index(&c), 0x0123);
		/* Receive-only fields stay as they were. */
		assert_int_equal(wc.src_qp, 0xa5a5a5a5);
		assert_int_equal(wc.slid, 0xa5a5);
		assert_int_equal(wc.imm_data, 0xa5a5a5a5);
	}
}

/* Every syndrome libmlx4 knows, and unknown ones. */
static void test_syndromes(void **state)
{
	static const struct {
		uint8_t syndrome;
		unsigned int status;
	} cases[] = {
		{ 0x01, IBV_WC_LOC_LEN_ERR },
		{ 0x02, IBV_WC_LOC_QP_OP_ERR },
		{ 0x04, IBV_WC_LOC_PROT_ERR },
		{ 0x05, IBV_WC_WR_FLUSH_ERR },
		{ 0x06, IBV_WC_MW_BIND_ERR },
		{ 0x10, IBV_WC_BAD_RESP_ERR },
		{ 0x11, IBV_WC_LOC_ACCESS_ERR },
		{ 0x12, IBV_WC_REM_INV_REQ_ERR },
		{ 0x13, IBV_WC_REM_ACCESS_ERR },
		{ 0x14, IBV_WC_REM_OP_ERR },
		{ 0x15, IBV_WC_RETRY_EXC_ERR },
		{ 0x16, IBV_WC_RNR_RETRY_EXC_ERR },
		{ 0x22, IBV_WC_REM_ABORT_ERR },
		{ 0x00, IBV_WC_GENERAL_ERR },
		{ 0x03, IBV_WC_GENERAL_ERR },
		{ 0x07, IBV_WC_GENERAL_ERR },
		{ 0x17, IBV_WC_GENERAL_ERR },
		{ 0x21, IBV_WC_GENERAL_ERR },
		{ 0xff, IBV_WC_GENERAL_ERR },
	};
	size_t i;
	int send;

	(void)state;
	for (send = 0; send <= 1; send++) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			/* Error CQE: QPN 0x000777, wqe_index 0x0abc, vendor
			 * syndrome 0x32, syndrome, opcode 0x1e. */
			const uint8_t err[32] = {
				0x00, 0x00, 0x07, 0x77, 0, 0, 0, 0,
				0, 0, 0, 0, 0, 0, 0, 0,
				0, 0, 0, 0, 0, 0, 0, 0,
				0x0a, 0xbc, 0x32, cases[i].syndrome,
				0, 0, 0, (uint8_t)(send ? 0x5e : 0x1e),
			};
			struct mlx4_cqe c = make_cqe(err, err[31]);
			struct ibv_wc wc;

			wc_sentinel(&wc);
			assert_true(mlx4dv_cqe_is_error(&c));
			assert_int_equal(!!mlx4dv_cqe_is_send(&c), send);
			assert_int_equal(mlx4dv_cqe_syndrome(&c), cases[i].syndrome);
			assert_int_equal(mlx4dv_cqe_vendor_syndrome(&c), 0x32);
			assert_int_equal(mlx4dv_cqe_wqe_index(&c), 0x0abc);
			assert_int_equal(mlx4dv_cqe_wc_status(&c), cases[i].status);
			assert_int_equal(mlx4dv_cqe_syndrome_to_wc_status(cases[i].syndrome),
					 cases[i].status);
			assert_int_equal(mlx4dv_cqe_wc_flags(&c, 3), 0);
			mlx4dv_cqe_to_wc(&c, 0, &wc);
			assert_int_equal(wc.status, cases[i].status);
			assert_int_equal(wc.vendor_err, 0x32);
			assert_int_equal(wc.qp_num, 0x777);
			/* Nothing else is written for an error. */
			assert_int_equal(wc.opcode, 0xa5a5a5a5);
			assert_int_equal(wc.wc_flags, 0xa5a5a5a5);
			assert_int_equal(wc.byte_len, 0xa5a5a5a5);
			assert_int_equal(wc.wr_id, 0xa5a5a5a5a5a5a5a5ULL);
		}
	}
}

/* A good CQE is not an error whatever its status bytes hold. */
static void test_good_status(void **state)
{
	struct mlx4_cqe c = make_cqe(send_cqe, 0x4a);

	(void)state;
	((uint8_t *)&c)[27] = 0x05;	/* byte that would be the syndrome */
	assert_false(mlx4dv_cqe_is_error(&c));
	assert_int_equal(mlx4dv_cqe_wc_status(&c), IBV_WC_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recv_fields),
		cmocka_unit_test(test_no_vlan_no_grh),
		cmocka_unit_test(test_checksum_bits),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_recv_opcodes_to_wc),
		cmocka_unit_test(test_send_opcodes_to_wc),
		cmocka_unit_test(test_syndromes),
		cmocka_unit_test(test_good_status),
	};

	t_run_group_tests_name("completion_cqe_decode", tests, NULL, NULL);
	return t_exit();
}
