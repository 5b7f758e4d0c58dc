/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * RoCEv2 transport headers as they travel in the UDP payload (IBTA Vol. 1
 * ch. 9.2-9.4 and Annex A17; every field big-endian): BTH, then the
 * extended headers the opcode calls for, the payload padded to 4 bytes,
 * and the 4-byte ICRC.
 */
#ifndef MLX4EMU_WIRE_ROCE_H
#define MLX4EMU_WIRE_ROCE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define EMU_BTH_BYTES 12
#define EMU_DETH_BYTES 8
#define EMU_RETH_BYTES 16
#define EMU_AETH_BYTES 4
#define EMU_ATOMIC_ETH_BYTES 28
#define EMU_ATOMIC_ACK_ETH_BYTES 8
#define EMU_IMMDT_BYTES 4
#define EMU_IETH_BYTES 4
#define EMU_XRCETH_BYTES 4
#define EMU_ICRC_BYTES 4
/* the longest header run: BTH + RETH + ImmDt, or BTH + AtomicETH */
#define EMU_ROCE_HDR_MAX 48

/* Transport of the opcode's top 3 bits. */
enum {
	EMU_TR_RC = 0x00,
	EMU_TR_UC = 0x20,
	EMU_TR_UD = 0x60,
	EMU_TR_XRC = 0xa0,
	/* 0xc0..0xff: manufacturer specific (IBTA Vol. 1 9.2.1, table 38);
	 * this device's adapters use them between themselves only */
	EMU_TR_VENDOR = 0xc0,
};

/* The credit request and update of UD and UC datagrams between adapters
 * (transport/datagram_credits.h). */
#define EMU_OP_DATAGRAM_CREDIT (EMU_TR_VENDOR | 0x00)

/* Operation of the low 5 bits. */
enum {
	EMU_BOP_SEND_FIRST = 0x00,
	EMU_BOP_SEND_MIDDLE = 0x01,
	EMU_BOP_SEND_LAST = 0x02,
	EMU_BOP_SEND_LAST_IMM = 0x03,
	EMU_BOP_SEND_ONLY = 0x04,
	EMU_BOP_SEND_ONLY_IMM = 0x05,
	EMU_BOP_WRITE_FIRST = 0x06,
	EMU_BOP_WRITE_MIDDLE = 0x07,
	EMU_BOP_WRITE_LAST = 0x08,
	EMU_BOP_WRITE_LAST_IMM = 0x09,
	EMU_BOP_WRITE_ONLY = 0x0a,
	EMU_BOP_WRITE_ONLY_IMM = 0x0b,
	EMU_BOP_READ_REQUEST = 0x0c,
	EMU_BOP_READ_RESP_FIRST = 0x0d,
	EMU_BOP_READ_RESP_MIDDLE = 0x0e,
	EMU_BOP_READ_RESP_LAST = 0x0f,
	EMU_BOP_READ_RESP_ONLY = 0x10,
	EMU_BOP_ACK = 0x11,
	EMU_BOP_ATOMIC_ACK = 0x12,
	EMU_BOP_CMP_SWAP = 0x13,
	EMU_BOP_FETCH_ADD = 0x14,
	EMU_BOP_SEND_LAST_INV = 0x16,
	EMU_BOP_SEND_ONLY_INV = 0x17,
};

/* BTH fields, decoded. */
struct emu_bth {
	uint8_t opcode;
	bool se, ack_req;
	uint8_t pad;		/* PadCnt: bytes added to reach 4-byte alignment */
	uint16_t pkey;
	uint32_t dest_qpn;	/* 24 bits */
	uint32_t psn;		/* 24 bits */
};

static inline void emu_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void emu_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void emu_put_be64(uint8_t *p, uint64_t v)
{
	emu_put_be32(p, (uint32_t)(v >> 32));
	emu_put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t emu_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t emu_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t emu_get_be64(const uint8_t *p)
{
	return (uint64_t)emu_get_be32(p) << 32 | emu_get_be32(p + 4);
}

/* BTH: opcode; SE, MigReq, PadCnt, TVer 0; P_Key; reserved byte (FECN/
 * BECN); DestQP; AckReq and 7 reserved bits; PSN. MigReq is sent as 1,
 * as adapters without path migration do. */
static inline void emu_bth_put(uint8_t *p, const struct emu_bth *b)
{
	p[0] = b->opcode;
	p[1] = (uint8_t)((b->se ? 0x80 : 0) | 0x40 | (b->pad & 3) << 4);
	emu_put_be16(p + 2, b->pkey);
	emu_put_be32(p + 4, b->dest_qpn & 0xffffff);
	emu_put_be32(p + 8, (b->ack_req ? 0x80000000u : 0) | (b->psn & 0xffffff));
}

static inline void emu_bth_get(const uint8_t *p, struct emu_bth *b)
{
	b->opcode = p[0];
	b->se = p[1] & 0x80;
	b->pad = (p[1] >> 4) & 3;
	b->pkey = (uint16_t)(p[2] << 8 | p[3]);
	b->dest_qpn = emu_get_be32(p + 4) & 0xffffff;
	b->ack_req = p[8] & 0x80;
	b->psn = emu_get_be32(p + 8) & 0xffffff;
}

/* AETH syndrome (IBTA Vol. 1 9.7.5.2.1): bits 7..5 the kind, 4..0 the
 * credit count (ACK), the RNR timer code (RNR NAK) or the NAK code. */
enum {
	EMU_AETH_ACK = 0x00,
	EMU_AETH_RNR_NAK = 0x20,
	EMU_AETH_NAK = 0x60,
	EMU_AETH_KIND_MASK = 0xe0,
	EMU_AETH_CREDITS_UNLIMITED = 0x1f,
};

/* NAK codes (low 5 bits of a NAK syndrome). */
enum {
	EMU_NAK_PSN_SEQ = 0,
	EMU_NAK_INVALID_REQ = 1,
	EMU_NAK_REMOTE_ACCESS = 2,
	EMU_NAK_REMOTE_OP = 3,
};

/* RETH: virtual address, R_Key, DMA length. */
struct emu_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
};

/* AtomicETH: virtual address, R_Key, swap (or add) data, compare data. */
struct emu_atomic_eth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
};

void emu_reth_put(uint8_t *p, const struct emu_reth *r);
void emu_reth_get(const uint8_t *p, struct emu_reth *r);
/* AETH: syndrome, 24-bit MSN. */
void emu_aeth_put(uint8_t *p, uint8_t syndrome, uint32_t msn);
void emu_aeth_get(const uint8_t *p, uint8_t *syndrome, uint32_t *msn);
void emu_atomic_eth_put(uint8_t *p, const struct emu_atomic_eth *a);
void emu_atomic_eth_get(const uint8_t *p, struct emu_atomic_eth *a);
/* AtomicAckETH: the original 64-bit value at the responder. */
void emu_atomic_ack_eth_put(uint8_t *p, uint64_t orig);
uint64_t emu_atomic_ack_eth_get(const uint8_t *p);

/* Offsets of the extended headers the opcode carries, from the start of
 * the BTH (0: absent); len = all of them together. */
struct emu_ext_layout {
	uint8_t deth, xrceth, reth, aeth, atomic_eth, atomic_ack_eth, immdt, ieth;
	uint8_t len;
};

/* Layout of the opcode's extended headers; false for an opcode this
 * adapter does not speak (RD, reserved). */
bool emu_roce_layout(uint8_t opcode, struct emu_ext_layout *l);

#endif
