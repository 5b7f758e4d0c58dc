/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The invariant CRC of a RoCEv2 packet (IBTA Annex A17.3.3): CRC-32 with
 * the Ethernet polynomial over 8 bytes of 0xff standing for the absent
 * LRH, the IPv4 header with TOS, TTL and checksum set to all ones, the UDP
 * header with its checksum all ones, the BTH with its reserved byte (FECN/
 * BECN) all ones, then the rest of the packet up to the ICRC.  The value is
 * the complement of the CRC register, stored least significant byte first
 * (as Linux rxe's rxe_icrc.c and Wireshark's packet-infiniband.c compute it).
 */
#ifndef MLX4EMU_WIRE_ICRC_H
#define MLX4EMU_WIRE_ICRC_H

#include <stddef.h>
#include <stdint.h>

/* IPv4 + UDP header of a frame as this adapter models it on the wire:
 * no options, DF set, ID 0, TTL 64, UDP checksum 0 (zero: not computed,
 * allowed by RFC 768 and used by RoCEv2 senders).  Addresses host order,
 * udp_len = 8 + the UDP payload.  Writes 28 bytes. */
void emu_ipv4_udp_header(uint8_t out[28], uint32_t src, uint32_t dst,
			 uint16_t sport, uint16_t dport, uint16_t udp_len);

/* Starts the ICRC over the masked IPv4/UDP header and the BTH (the 28 +
 * 12 bytes given); continue with emu_icrc_update() over the rest of the
 * headers and the padded payload, then emu_icrc_final(). */
uint32_t emu_icrc_begin(const uint8_t ip_udp[28], const uint8_t bth[12]);
/* The same for a packet with a GRH instead of IP/UDP (RoCE v1, IBA
 * 7.8.1): the GRH with its traffic class, flow label and hop limit all
 * ones after the 8 bytes standing for the LRH. */
uint32_t emu_icrc_begin_grh(const uint8_t grh[40], const uint8_t bth[12]);
uint32_t emu_icrc_update(uint32_t crc, const void *p, size_t len);
/* The 4 ICRC bytes as they go on the wire. */
void emu_icrc_final(uint32_t crc, uint8_t out[4]);

#endif
