/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Every CQE field the header decodes, read from a value whose byte order
 * and mask both show: the field's bytes all differ (a read in the wrong
 * byte order gives another number), the bits of the field's bytes that
 * belong to other fields are set (a mask one bit too wide gives another
 * number), and the rest of the CQE is once all zeros and once all ones (a
 * read from the wrong offset gives another number).
 *
 * The 32-byte CQE layout (rdma-core 44.0 providers/mlx4/cq.h struct
 * mlx4_cqe, big-endian words):
 *    0  vlan_my_qpn    31 multicast? 30 SVLAN 29 CVLAN | 23..0 QPN
 *    4  immed_rss_invalid (immediate, invalidated rkey, RSS hash;
 *                      P_Key index in bits 6..0)
 *    8  g_mlpath_rqpn  31 GRH | 30..24 path bits | 23..0 source QPN
 *   12  sl_vid         15..12 SL (IB) / 15..13 PCP, 12 CFI, 11..0 VID (Eth)
 *   12  ts_47_16       the same four bytes with rlid, timestamp CQs
 *   14  rlid
 *   16  status
 *   20  byte_cnt
 *   24  wqe_index
 *   26  checksum (good CQE) / vendor_err (error CQE)
 *   27  syndrome (error CQE)
 *   28  reserved, 29 ts_15_8, 30 ts_7_0
 *   31  owner_sr_opcode 7 owner | 6 send | 4..0 opcode
 * The expected values are worked out by hand in each row's comment.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

struct region {
	uint8_t off, len;
	uint8_t bytes[4];
};

struct field_case {
	const char *name;
	uint64_t (*read)(const struct mlx4_cqe *cqe);
	struct region r[2];	/* len 0: unused */
	uint64_t want;
};

static uint64_t rd_qpn(const struct mlx4_cqe *c) { return mlx4dv_cqe_qpn(c); }
static uint64_t rd_imm(const struct mlx4_cqe *c)
{
	/* big-endian as stored: the first byte in memory is the top byte */
	__be32 v = mlx4dv_cqe_imm_data(c);
	uint8_t b[4];

	memcpy(b, &v, 4);
	return (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
}
static uint64_t rd_inv(const struct mlx4_cqe *c) { return mlx4dv_cqe_invalidated_rkey(c); }
static uint64_t rd_rss(const struct mlx4_cqe *c) { return mlx4dv_cqe_rss_hash(c); }
static uint64_t rd_pkey(const struct mlx4_cqe *c) { return mlx4dv_cqe_pkey_index(c); }
static uint64_t rd_src_qp(const struct mlx4_cqe *c) { return mlx4dv_cqe_src_qp(c); }
static uint64_t rd_path(const struct mlx4_cqe *c) { return mlx4dv_cqe_dlid_path_bits(c); }
static uint64_t rd_grh(const struct mlx4_cqe *c) { return !!mlx4dv_cqe_has_grh(c); }
static uint64_t rd_slid(const struct mlx4_cqe *c) { return mlx4dv_cqe_slid(c); }
static uint64_t rd_sl_ib(const struct mlx4_cqe *c) { return mlx4dv_cqe_sl(c, 0); }
static uint64_t rd_sl_eth(const struct mlx4_cqe *c) { return mlx4dv_cqe_sl(c, 1); }
static uint64_t rd_cvlan(const struct mlx4_cqe *c) { return !!mlx4dv_cqe_vlan_present(c); }
static uint64_t rd_vid(const struct mlx4_cqe *c) { return mlx4dv_cqe_vlan_id(c); }
static uint64_t rd_status(const struct mlx4_cqe *c) { return mlx4dv_cqe_status(c); }
static uint64_t rd_len(const struct mlx4_cqe *c) { return mlx4dv_cqe_byte_len(c); }
static uint64_t rd_index(const struct mlx4_cqe *c) { return mlx4dv_cqe_wqe_index(c); }
static uint64_t rd_csum(const struct mlx4_cqe *c) { return mlx4dv_cqe_checksum(c); }
static uint64_t rd_vendor(const struct mlx4_cqe *c) { return mlx4dv_cqe_vendor_syndrome(c); }
static uint64_t rd_synd(const struct mlx4_cqe *c) { return mlx4dv_cqe_syndrome(c); }
static uint64_t rd_ts(const struct mlx4_cqe *c) { return mlx4dv_cqe_timestamp(c); }
static uint64_t rd_opcode(const struct mlx4_cqe *c) { return mlx4dv_cqe_opcode(c); }
static uint64_t rd_is_send(const struct mlx4_cqe *c) { return !!mlx4dv_cqe_is_send(c); }

static const struct field_case cases[] = {
	/* flags byte all ones, QPN 0x123456 */
	{ "qpn", rd_qpn, { { 0, 4, { 0xff, 0x12, 0x34, 0x56 } } }, 0x123456 },
	{ "imm_data", rd_imm, { { 4, 4, { 0x12, 0x34, 0x56, 0x78 } } }, 0x12345678 },
	{ "invalidated_rkey", rd_inv, { { 4, 4, { 0x12, 0x34, 0x56, 0x78 } } }, 0x12345678 },
	{ "rss_hash", rd_rss, { { 4, 4, { 0x12, 0x34, 0x56, 0x78 } } }, 0x12345678 },
	/* 0xffffffd5 & 0x7f = 0x55; byte 4 instead of 7 gives 0x7f, 8 bits 0xd5 */
	{ "pkey_index", rd_pkey, { { 4, 4, { 0xff, 0xff, 0xff, 0xd5 } } }, 0x55 },
	/* GRH and path bits all ones, source QPN 0x123456 */
	{ "src_qp", rd_src_qp, { { 8, 4, { 0xff, 0x12, 0x34, 0x56 } } }, 0x123456 },
	/* 0xaa: GRH | path bits 0x2a */
	{ "dlid_path_bits", rd_path, { { 8, 1, { 0xaa } } }, 0x2a },
	{ "has_grh", rd_grh, { { 8, 1, { 0x80 } } }, 1 },
	{ "has_grh clear", rd_grh, { { 8, 1, { 0x7f } } }, 0 },
	{ "slid", rd_slid, { { 14, 2, { 0x12, 0x34 } } }, 0x1234 },
	/* 0xb234 >> 12 = 0xb; >> 13 = 5 (the PCP); swapped 0x34b2 gives 3 / 1 */
	{ "sl ib", rd_sl_ib, { { 12, 2, { 0xb2, 0x34 } } }, 0xb },
	{ "sl eth", rd_sl_eth, { { 12, 2, { 0xb2, 0x34 } } }, 5 },
	{ "cvlan present", rd_cvlan, { { 0, 1, { 0x20 } } }, 1 },
	/* multicast and SVLAN bits, CVLAN (bit 29) clear */
	{ "cvlan absent", rd_cvlan, { { 0, 1, { 0xdf } } }, 0 },
	/* CVLAN present; sl_vid 0xffed: PCP 7, CFI 1, VID 0xfed (a 13-bit mask
	 * gives 0x1fed, the bytes swapped 0xdff) */
	{ "vlan_id cfi", rd_vid, { { 0, 1, { 0x20 } }, { 12, 2, { 0xff, 0xed } } }, 0xfed },
	/* CFI alone above VID 0xabc */
	{ "vlan_id cfi only", rd_vid, { { 0, 1, { 0x20 } }, { 12, 2, { 0x1a, 0xbc } } }, 0xabc },
	{ "status", rd_status, { { 16, 4, { 0x12, 0x34, 0x56, 0x78 } } }, 0x12345678 },
	{ "byte_len", rd_len, { { 20, 4, { 0x12, 0x34, 0x56, 0x78 } } }, 0x12345678 },
	{ "wqe_index", rd_index, { { 24, 2, { 0x12, 0x34 } } }, 0x1234 },
	/* a checksum whose byte order shows (0xffff reads the same both ways) */
	{ "checksum", rd_csum, { { 26, 2, { 0x12, 0x34 } } }, 0x1234 },
	{ "checksum high byte", rd_csum, { { 26, 2, { 0xa5, 0x00 } } }, 0xa500 },
	{ "vendor_syndrome", rd_vendor, { { 26, 1, { 0x5a } } }, 0x5a },
	{ "syndrome", rd_synd, { { 27, 1, { 0xa6 } } }, 0xa6 },
	/* ts_47_16 0x12345678, ts_15_8 0x9a, ts_7_0 0xbc; byte 28 and the
	 * owner byte around them */
	{ "timestamp", rd_ts, { { 12, 4, { 0x12, 0x34, 0x56, 0x78 } },
				{ 29, 2, { 0x9a, 0xbc } } }, 0x123456789abcull },
	/* owner | send | opcode 0x03 */
	{ "opcode", rd_opcode, { { 31, 1, { 0xe3 } } }, 0x03 },
	{ "opcode 5 bits", rd_opcode, { { 31, 1, { 0x1c } } }, 0x1c },
	{ "is_send", rd_is_send, { { 31, 1, { 0x40 } } }, 1 },
	{ "is_send clear", rd_is_send, { { 31, 1, { 0xbf } } }, 0 },
};

static void test_every_field(void **state)
{
	static const uint8_t backgrounds[] = { 0x00, 0xff };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t b = 0; b < sizeof(backgrounds); b++) {
			struct mlx4_cqe cqe;
			uint64_t got;

			memset(&cqe, backgrounds[b], sizeof(cqe));
			for (size_t r = 0; r < 2; r++)
				memcpy((uint8_t *)&cqe + cases[i].r[r].off,
				       cases[i].r[r].bytes, cases[i].r[r].len);
			got = cases[i].read(&cqe);
			if (got != cases[i].want)
				fail_msg("%s on 0x%02x: got 0x%llx, want 0x%llx",
					 cases[i].name, backgrounds[b],
					 (unsigned long long)got,
					 (unsigned long long)cases[i].want);
		}
	}
}

/* The same CQE through mlx4dv_cqe_to_wc(): the ibv_wc fields take the
 * decoded values (libmlx4 cq.c mlx4_parse_cqe copies them as is). */
static void test_to_wc_fields(void **state)
{
	/*
	 * 0..3  20 12 34 56  CVLAN, QPN 0x123456
	 * 4..7  00 00 00 d5  P_Key index 0x55
	 * 8..11 aa 65 43 21  GRH, path bits 0x2a, source QPN 0x654321
	 * 12    b2 34        SL 0xb (IB) / 5 (Eth)
	 * 14    9a bc        SLID 0x9abc
	 * 20    00 01 02 03  byte count 0x10203
	 * 31    01           receive SEND
	 */
	static const uint8_t raw[32] = {
		0x20, 0x12, 0x34, 0x56, 0x00, 0x00, 0x00, 0xd5,
		0xaa, 0x65, 0x43, 0x21, 0xb2, 0x34, 0x9a, 0xbc,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	struct mlx4_cqe cqe;
	struct ibv_wc wc;

	(void)state;
	memcpy(&cqe, raw, sizeof(cqe));
	memset(&wc, 0xa5, sizeof(wc));
	mlx4dv_cqe_to_wc(&cqe, 0, &wc);
	assert_int_equal(wc.qp_num, 0x123456);
	assert_int_equal(wc.src_qp, 0x654321);
	assert_int_equal(wc.dlid_path_bits, 0x2a);
	assert_int_equal(wc.pkey_index, 0x55);
	assert_int_equal(wc.slid, 0x9abc);
	assert_int_equal(wc.sl, 0xb);
	assert_int_equal(wc.byte_len, 0x10203);
	mlx4dv_cqe_to_wc(&cqe, MLX4DV_CQE_RX_ETHERNET, &wc);
	assert_int_equal(wc.sl, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_to_wc_fields),
	};

	t_run_group_tests_name("completion_cqe_fields", tests, NULL, NULL);
	return t_exit();
}
