/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Ethernet frames for the raw packet QP tests, built byte by byte from the
 * header layouts (RFC 791, 768, 793, 8200; IEEE 802.1Q): every multi-byte
 * field in network byte order.
 */
#ifndef MLX4DV_TEST_RAW_FRAME_H
#define MLX4DV_TEST_RAW_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "emu_test.h"

/* The port MAC, from the RoCE v1 link-local GID (modified EUI-64). */
void raw_port_mac(struct emu_env *e, uint8_t port, uint8_t mac[6]);

/* Internet checksum of n bytes added to acc; the L4 checksum of an IPv4
 * header `ip` and its n-byte TCP/UDP segment. */
uint16_t raw_csum(const uint8_t *p, size_t n, uint32_t acc);
uint16_t raw_l4_csum(const uint8_t *ip, const uint8_t *l4, size_t n, uint8_t proto);

/* Ethernet + IPv4 + UDP (proto 17) or TCP (6) with `payload` bytes;
 * checksums filled when `sums`.  Returns the frame length. */
size_t raw_frame_ipv4(uint8_t *f, const uint8_t dmac[6], const uint8_t src[4],
		      const uint8_t dst[4], uint16_t sport, uint16_t dport,
		      uint8_t proto, size_t payload, int sums);
/* Ethernet + IPv6 + UDP/TCP, checksum zero. */
size_t raw_frame_ipv6(uint8_t *f, const uint8_t dmac[6], const uint8_t src[16],
		      const uint8_t dst[16], uint16_t sport, uint16_t dport,
		      uint8_t proto, size_t payload);
/* Inserts an 802.1Q tag (TPID 0x8100, TCI `tci`) after the MACs. */
size_t raw_frame_tag(uint8_t *f, size_t len, uint16_t tci);

/* Sends q->buf[0, len) on q (IP checksum offload when csum_flags) and
 * waits for its completion. */
void raw_send(struct emu_qp *q, size_t len, int csum_flags);

#endif
