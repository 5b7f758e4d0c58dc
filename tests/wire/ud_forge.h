/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A local sender of RoCEv2 UD datagrams of its own making, for the tests
 * of what an adapter does with packets that are not a peer adapter's
 * (ud_stranger, bad_icrc, credit_stranger): a UDP socket on port 4791 of
 * a free address 127.0.250.x, and a UD SEND ONLY or a datagram credit
 * built byte by byte with its ICRC.
 * System calls only, so that a child forked from a process with the
 * device's threads may use them.
 */
#ifndef MLX4DV_TEST_WIRE_UD_FORGE_H
#define MLX4DV_TEST_WIRE_UD_FORGE_H

#include <stddef.h>
#include <stdint.h>

#define FORGE_ROCE_PORT 4791	/* RoCEv2 */
#define FORGE_VXLAN_PORT 4789	/* the adapters' raw Ethernet frames */

/* A datagram socket bound to 127.0.250.x:udp_port (FORGE_ROCE_PORT,
 * FORGE_VXLAN_PORT) for the first x (1..254) free; its address (host order) in
 * *src.  -1 when none is. */
int ud_forge_socket(uint16_t udp_port, uint32_t *src);

/* The fields of one UD SEND ONLY: addresses host order. */
struct ud_forge_pkt {
	uint32_t src, dst;	/* the IPv4 pseudo-header's, for the ICRC */
	uint32_t dest_qpn, psn, qkey, src_qpn;
	const uint8_t *payload;
	size_t len;
};

/* BTH, DETH, the payload and the ICRC into pkt (room for 28 + len + 4
 * bytes); returns the packet's length. */
size_t ud_forge_send_only(uint8_t *pkt, const struct ud_forge_pkt *f);

/* A datagram credit packet (BTH with opcode 0xc0 to QPN 0, then the len
 * bytes at payload, a multiple of 4; emu/README.md, "Datagram credits")
 * with its ICRC into pkt (room for 12 + len + 4 bytes); returns its
 * length. */
size_t ud_forge_credit(uint8_t *pkt, uint32_t src, uint32_t dst, const uint8_t *payload,
		       size_t len);

/* Sends the n bytes at pkt from fd to dst:udp_port; 0, or -1. */
int ud_forge_send(int fd, uint32_t dst, uint16_t udp_port, const uint8_t *pkt, size_t n);

#endif
