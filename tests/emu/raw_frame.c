// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Frames for the raw packet QP tests (raw_frame.h). */
#include "raw_frame.h"

#include <string.h>

#include "verbs_env.h"

void raw_port_mac(struct emu_env *e, uint8_t port, uint8_t mac[6])
{
	assert_int_equal(vx_port_mac(e->ctx, port, mac), 0);
}

uint16_t raw_csum(const uint8_t *p, size_t n, uint32_t acc)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

uint16_t raw_l4_csum(const uint8_t *ip, const uint8_t *l4, size_t n, uint8_t proto)
{
	uint32_t acc = 0;

	for (int i = 12; i < 20; i += 2)
		acc += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	acc += proto + (uint32_t)n;
	return raw_csum(l4, n, acc);
}

size_t raw_frame_ipv4(uint8_t *f, const uint8_t dmac[6], const uint8_t src[4],
			  const uint8_t dst[4], uint16_t sport, uint16_t dport,
			  uint8_t proto, size_t payload, int sums)
{
	size_t l4len = (proto == 6 ? 20 : 8) + payload;
	uint8_t *ip = f + 14, *l4 = f + 34;
	uint16_t c;

	memset(f, 0, 34 + l4len);
	memcpy(f, dmac, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", 6);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)((20 + l4len) >> 8);
	ip[3] = (uint8_t)(20 + l4len);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	l4[0] = (uint8_t)(sport >> 8);
	l4[1] = (uint8_t)sport;
	l4[2] = (uint8_t)(dport >> 8);
	l4[3] = (uint8_t)dport;
	if (proto == 6) {
		l4[12] = 5 << 4;
		l4[13] = 0x18;
	} else {
		l4[4] = (uint8_t)(l4len >> 8);
		l4[5] = (uint8_t)l4len;
	}
	emu_fill(l4 + (proto == 6 ? 20 : 8), payload, (unsigned)sport);
	if (sums) {
		c = raw_csum(ip, 20, 0);
		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
		c = raw_l4_csum(ip, l4, l4len, proto);
		l4[proto == 6 ? 16 : 6] = (uint8_t)(c >> 8);
		l4[proto == 6 ? 17 : 7] = (uint8_t)c;
	}
	return 34 + l4len;
}

void raw_send(struct emu_qp *q, size_t len, int csum_flags)
{
	struct ibv_sge s = { (uintptr_t)q->buf, (uint32_t)len, q->mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1,
				 .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED |
					       (csum_flags ? IBV_SEND_IP_CSUM : 0) };

	assert_int_equal(emu_post_send(q->qp, &w), 0);
	emu_poll_one(q->scq, IBV_WC_SUCCESS);
}

size_t raw_frame_ipv6(uint8_t *f, const uint8_t dmac[6], const uint8_t src[16],
		      const uint8_t dst[16], uint16_t sport, uint16_t dport,
		      uint8_t proto, size_t payload)
{
	size_t l4len = (proto == 6 ? 20 : 8) + payload;
	uint8_t *ip = f + 14, *l4 = f + 54;

	memset(f, 0, 54 + l4len);
	memcpy(f, dmac, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", 6);
	f[12] = 0x86;
	f[13] = 0xdd;
	ip[0] = 0x60;
	ip[4] = (uint8_t)(l4len >> 8);
	ip[5] = (uint8_t)l4len;
	ip[6] = proto;
	ip[7] = 64;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	l4[0] = (uint8_t)(sport >> 8);
	l4[1] = (uint8_t)sport;
	l4[2] = (uint8_t)(dport >> 8);
	l4[3] = (uint8_t)dport;
	if (proto == 6) {
		l4[12] = 5 << 4;
	} else {
		l4[4] = (uint8_t)(l4len >> 8);
		l4[5] = (uint8_t)l4len;
	}
	emu_fill(l4 + (proto == 6 ? 20 : 8), payload, (unsigned)sport);
	return 54 + l4len;
}

size_t raw_frame_tag(uint8_t *f, size_t len, uint16_t tci)
{
	memmove(f + 16, f + 12, len - 12);
	f[12] = 0x81;
	f[13] = 0x00;
	f[14] = (uint8_t)(tci >> 8);
	f[15] = (uint8_t)tci;
	return len + 4;
}
