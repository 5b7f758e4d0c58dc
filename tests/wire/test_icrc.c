// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RoCEv2 framing: the modelled IPv4/UDP header against bytes written out
 * from the layout, the ICRC against a bit-by-bit CRC-32 over the masked
 * pseudo-packet of IBTA Annex A17 (an implementation that shares nothing
 * with zlib's), and rxe's seed constant.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wire/icrc.h"
#include "wire/roce.h"
#include "test_exit.h"

/* reflected CRC-32, polynomial 0xedb88320, no inversions */
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

static void test_seed_is_rxe_constant(void **state)
{
	static const uint8_t ff[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	(void)state;
	/* rxe_icrc.c starts from 0xdebb20e3: all ones after a masked LRH */
	assert_int_equal(emu_icrc_update(0xffffffffu, ff, 8), 0xdebb20e3u);
	assert_int_equal(crc_bitwise(0xffffffffu, ff, 8), 0xdebb20e3u);
}

static void test_ipv4_udp_header_layout(void **state)
{
	/* 127.0.1.2 -> 127.0.3.4, UDP 4791 -> 4791, 40 bytes of UDP */
	static const uint8_t want[28] = {
		0x45, 0x00, 0x00, 0x3c, 0x00, 0x00, 0x40, 0x00,	/* len 60, DF */
		0x40, 0x11, 0x38, 0xab,				/* TTL 64, UDP, csum */
		0x7f, 0x00, 0x01, 0x02, 0x7f, 0x00, 0x03, 0x04,
		0x12, 0xb7, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,
	};
	uint8_t got[28];

	(void)state;
	emu_ipv4_udp_header(got, 0x7f000102u, 0x7f000304u, 4791, 4791, 40);
	assert_memory_equal(got, want, sizeof(want));
}

static void test_icrc_matches_masked_crc(void **state)
{
	uint8_t ipudp[28], pkt[36], icrc[4], ps[8 + 28 + 36];
	struct emu_bth b = { .opcode = 0x64, .se = true, .pkey = 0xffff,
			     .dest_qpn = 0x000123, .psn = 0xabcdef };
	uint32_t crc, v;

	(void)state;
	emu_bth_put(pkt, &b);
	pkt[4] = 0x5a;	/* the reserved byte travels but is masked */
	emu_put_be32(pkt + 12, 0x11111111u);	/* DETH: Q_Key */
	emu_put_be32(pkt + 16, 0x000049);	/* source QP */
	for (int i = 0; i < 16; i++)
		pkt[20 + i] = (uint8_t)(i * 7 + 1);
	emu_ipv4_udp_header(ipudp, 0x7f000102u, 0x7f000304u, 4791, 4791, 8 + 36 + 4);
	crc = emu_icrc_begin(ipudp, pkt);
	crc = emu_icrc_update(crc, pkt + 12, sizeof(pkt) - 12);
	emu_icrc_final(crc, icrc);

	memset(ps, 0xff, 8);
	memcpy(ps + 8, ipudp, 28);
	memcpy(ps + 36, pkt, 36);
	ps[8 + 1] = 0xff;			/* TOS */
	ps[8 + 8] = 0xff;			/* TTL */
	ps[8 + 10] = ps[8 + 11] = 0xff;		/* header checksum */
	ps[8 + 26] = ps[8 + 27] = 0xff;		/* UDP checksum */
	ps[36 + 4] = 0xff;			/* BTH reserved byte */
	v = ~crc_bitwise(0xffffffffu, ps, sizeof(ps));
	/* least significant byte first */
	assert_int_equal(icrc[0], v & 0xff);
	assert_int_equal(icrc[1], (v >> 8) & 0xff);
	assert_int_equal(icrc[2], (v >> 16) & 0xff);
	assert_int_equal(icrc[3], v >> 24);
}

static void test_bth_layout(void **state)
{
	static const uint8_t want[12] = { 0x04, 0xd0, 0xff, 0xff, 0x00, 0x00, 0x01, 0x23,
					  0x80, 0xab, 0xcd, 0xef };
	struct emu_bth b = { .opcode = 0x04, .se = true, .pad = 1, .pkey = 0xffff,
			     .dest_qpn = 0x000123, .ack_req = true, .psn = 0xabcdef }, d;
	uint8_t got[12];

	(void)state;
	emu_bth_put(got, &b);
	/* SE 1, MigReq 1, PadCnt 01, TVer 0 = 0xd0 */
	assert_memory_equal(got, want, 12);
	emu_bth_get(got, &d);
	assert_int_equal(d.opcode, 0x04);
	assert_true(d.se && d.ack_req);
	assert_int_equal(d.pad, 1);
	assert_int_equal(d.dest_qpn, 0x123);
	assert_int_equal(d.psn, 0xabcdef);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_is_rxe_constant),
		cmocka_unit_test(test_ipv4_udp_header_layout),
		cmocka_unit_test(test_icrc_matches_masked_crc),
		cmocka_unit_test(test_bth_layout),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
