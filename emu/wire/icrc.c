// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ICRC of RoCEv2 packets (see icrc.h).  The CRC itself is a library's:
 * ISA-L's crc32_gzip_refl() (carry-less multiply folding) where it was
 * found at configure time, zlib's crc32() otherwise; both compute the
 * reflected CRC-32 of gzip and Ethernet with the same pre- and
 * post-inversion.  Every wire packet is summed twice (sent and
 * received), so the table CRC alone would cost more than the copies.
 */
#include "wire/icrc.h"

#include <string.h>
#ifdef MLX4EMU_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include "wire/roce.h"

/* The library's CRC-32 (inverted on entry and exit), at most 1 GiB. */
static uint32_t crc32_lib(uint32_t crc, const void *p, uint32_t n)
{
#ifdef MLX4EMU_HAVE_ISAL
	return crc32_gzip_refl(crc, (const unsigned char *)p, n);
#else
	return (uint32_t)crc32(crc, p, n);
#endif
}

/*
 * The ICRC register runs without the usual pre- and post-inversion of
 * the library's CRC-32, which inverts on entry and exit: one update of
 * the raw register r over p is ~crc32(~r, p).  The register starts at all
 * ones.
 */
uint32_t emu_icrc_update(uint32_t crc, const void *p, size_t len)
{
	while (len) {
		uint32_t n = len > (1u << 30) ? 1u << 30 : (uint32_t)len;

		crc = ~crc32_lib(~crc, p, n);
		p = (const uint8_t *)p + n;
		len -= n;
	}
	return crc;
}

void emu_ipv4_udp_header(uint8_t out[28], uint32_t src, uint32_t dst,
			 uint16_t sport, uint16_t dport, uint16_t udp_len)
{
	uint32_t sum = 0;

	memset(out, 0, 28);
	out[0] = 0x45;
	emu_put_be16(out + 2, (uint16_t)(20 + udp_len));
	out[6] = 0x40;		/* DF */
	out[8] = 64;		/* TTL */
	out[9] = 17;		/* UDP */
	emu_put_be32(out + 12, src);
	emu_put_be32(out + 16, dst);
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)out[i] << 8 | out[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	emu_put_be16(out + 10, (uint16_t)~sum);
	emu_put_be16(out + 20, sport);
	emu_put_be16(out + 22, dport);
	emu_put_be16(out + 24, udp_len);
}

uint32_t emu_icrc_begin(const uint8_t ip_udp[28], const uint8_t bth[12])
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t ps[40];

	memcpy(ps, ip_udp, 28);
	memcpy(ps + 28, bth, 12);
	ps[1] = 0xff;			/* TOS */
	ps[8] = 0xff;			/* TTL */
	ps[10] = ps[11] = 0xff;		/* IPv4 header checksum */
	ps[26] = ps[27] = 0xff;		/* UDP checksum */
	ps[28 + 4] = 0xff;		/* BTH reserved byte (FECN, BECN) */
	return emu_icrc_update(emu_icrc_update(0xffffffffu, lrh, 8), ps, sizeof(ps));
}

uint32_t emu_icrc_begin_grh(const uint8_t grh[40], const uint8_t bth[12])
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t ps[52];

	memcpy(ps, grh, 40);
	memcpy(ps + 40, bth, 12);
	ps[0] |= 0x0f;			/* traffic class, */
	ps[1] = ps[2] = ps[3] = 0xff;	/* flow label */
	ps[7] = 0xff;			/* hop limit */
	ps[40 + 4] = 0xff;		/* BTH reserved byte */
	return emu_icrc_update(emu_icrc_update(0xffffffffu, lrh, 8), ps, sizeof(ps));
}

void emu_icrc_final(uint32_t crc, uint8_t out[4])
{
	uint32_t v = ~crc;

	out[0] = (uint8_t)v;
	out[1] = (uint8_t)(v >> 8);
	out[2] = (uint8_t)(v >> 16);
	out[3] = (uint8_t)(v >> 24);
}
