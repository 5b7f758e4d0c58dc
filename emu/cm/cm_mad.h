/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Communication Management MADs (IBTA Vol. 1 ch. 12.6, management class
 * 0x07, class version 2): the 24-byte common MAD header, then the
 * message.  Offsets below are from the start of the message (byte 24 of
 * the MAD); fields are big-endian and their bits numbered from the most
 * significant, as the IBTA tables (and Linux's ibta_vol1_c12.h) give them.
 */
#ifndef MLX4EMU_CM_MAD_H
#define MLX4EMU_CM_MAD_H

#include <stdint.h>
#include <string.h>

#include "transport/gsi.h"
#include "wire/roce.h"

#define CM_MGMT_CLASS 0x07
#define CM_CLASS_VERSION 2
#define MAD_BASE_VERSION 1
#define MAD_METHOD_SEND 0x03
#define MAD_HDR_BYTES 24
#define CM_MSG_BYTES (EMU_MAD_BYTES - MAD_HDR_BYTES)

/* Attribute IDs (Table 104). */
enum cm_attr {
	CM_ATTR_REQ = 0x0010,
	CM_ATTR_MRA = 0x0011,
	CM_ATTR_REJ = 0x0012,
	CM_ATTR_REP = 0x0013,
	CM_ATTR_RTU = 0x0014,
	CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016,
	CM_ATTR_SIDR_REQ = 0x0017,
	CM_ATTR_SIDR_REP = 0x0018,
};

/* REQ (Table 106). */
enum {
	REQ_LOCAL_COMM_ID = 0,
	REQ_SERVICE_ID = 8,
	REQ_LOCAL_CA_GUID = 16,
	REQ_LOCAL_QKEY = 28,
	REQ_LOCAL_QPN = 32,		/* 24 bits, then responder resources */
	REQ_RESPONDER_RESOURCES = 35,
	REQ_INITIATOR_DEPTH = 39,
	REQ_BYTE43 = 43,		/* remote CM response timeout:5, transport:2, EE flow control:1 */
	REQ_STARTING_PSN = 44,		/* 24 bits */
	REQ_BYTE47 = 47,		/* local CM response timeout:5, retry count:3 */
	REQ_PKEY = 48,
	REQ_BYTE50 = 50,		/* path MTU:4, RDC exists:1, RNR retry count:3 */
	REQ_BYTE51 = 51,		/* max CM retries:4, SRQ:1, extended transport:3 */
	REQ_PRIMARY_LOCAL_LID = 52,
	REQ_PRIMARY_REMOTE_LID = 54,
	REQ_PRIMARY_LOCAL_GID = 56,
	REQ_PRIMARY_REMOTE_GID = 72,
	REQ_PRIMARY_FLOW_LABEL = 88,	/* 20 bits, then reserved:6 packet rate:6 */
	REQ_PRIMARY_TRAFFIC_CLASS = 92,
	REQ_PRIMARY_HOP_LIMIT = 93,
	REQ_BYTE94 = 94,		/* SL:4, subnet local:1 */
	REQ_BYTE95 = 95,		/* local ACK timeout:5 */
	REQ_PRIVATE_DATA = 140,
	REQ_PRIVATE_DATA_BYTES = 92,
};

/* REP (Table 110). */
enum {
	REP_LOCAL_COMM_ID = 0,
	REP_REMOTE_COMM_ID = 4,
	REP_LOCAL_QKEY = 8,
	REP_LOCAL_QPN = 12,		/* 24 bits */
	REP_STARTING_PSN = 20,		/* 24 bits */
	REP_RESPONDER_RESOURCES = 24,
	REP_INITIATOR_DEPTH = 25,
	REP_BYTE26 = 26,		/* target ACK delay:5, failover:2, EE flow control:1 */
	REP_BYTE27 = 27,		/* RNR retry count:3, SRQ:1 */
	REP_LOCAL_CA_GUID = 28,
	REP_PRIVATE_DATA = 36,
	REP_PRIVATE_DATA_BYTES = 196,
};

/* RTU, DREP (Tables 111, 113), DREQ (112), REJ (108), MRA (107). */
enum {
	MSG_LOCAL_COMM_ID = 0,
	MSG_REMOTE_COMM_ID = 4,
	RTU_PRIVATE_DATA = 8,
	RTU_PRIVATE_DATA_BYTES = 224,
	DREQ_REMOTE_QPN = 8,		/* 24 bits */
	DREQ_PRIVATE_DATA = 12,
	DREQ_PRIVATE_DATA_BYTES = 220,
	DREP_PRIVATE_DATA = 8,
	DREP_PRIVATE_DATA_BYTES = 224,
	REJ_MSG_REJECTED = 8,		/* 2 bits */
	REJ_INFO_LENGTH = 9,		/* 7 bits */
	REJ_REASON = 10,
	REJ_ARI = 12,
	REJ_PRIVATE_DATA = 84,
	REJ_PRIVATE_DATA_BYTES = 148,
	MRA_MSG_MRAED = 8,		/* 2 bits */
	MRA_SERVICE_TIMEOUT = 9,	/* 5 bits */
};

/* SIDR_REQ, SIDR_REP (Tables 119, 120). */
enum {
	SIDR_REQ_REQUEST_ID = 0,
	SIDR_REQ_PKEY = 4,
	SIDR_REQ_SERVICE_ID = 8,
	SIDR_REQ_PRIVATE_DATA = 16,
	SIDR_REQ_PRIVATE_DATA_BYTES = 216,
	SIDR_REP_REQUEST_ID = 0,
	SIDR_REP_STATUS = 4,
	SIDR_REP_QPN = 8,		/* 24 bits */
	SIDR_REP_SERVICE_ID = 12,
	SIDR_REP_QKEY = 20,
	SIDR_REP_PRIVATE_DATA = 96,
	SIDR_REP_PRIVATE_DATA_BYTES = 136,
};

/* "Message REJected" / "Message MRAed" codes. */
enum { CM_MSG_REQ = 0, CM_MSG_REP = 1, CM_MSG_OTHER = 2 };

/* REJ reasons the CM gives (Table 109). */
enum {
	CM_REJ_NO_QP = 1,
	CM_REJ_TIMEOUT = 15,
	CM_REJ_INVALID_SERVICE_ID = 8,
	CM_REJ_STALE_CONN = 10,
	CM_REJ_CONSUMER_DEFINED = 28,
};

/* SIDR_REP status (Table 121). */
enum { SIDR_REP_OK = 0, SIDR_REP_NO_SERVICE = 1, SIDR_REP_REJECT = 2 };

/* A field of `width` bits whose most significant bit is `msb_skip` bits
 * below the top of byte p[0]. */
static inline void cm_put_bits(uint8_t *p, unsigned msb_skip, unsigned width, unsigned v)
{
	unsigned shift = 8 - msb_skip - width;
	uint8_t mask = (uint8_t)(((1u << width) - 1) << shift);

	*p = (uint8_t)((*p & ~mask) | ((v << shift) & mask));
}

static inline unsigned cm_get_bits(const uint8_t *p, unsigned msb_skip, unsigned width)
{
	return (unsigned)(*p >> (8 - msb_skip - width)) & ((1u << width) - 1);
}

/* The top 24 bits of the big-endian word at p (a QPN or PSN), leaving
 * the low byte alone. */
static inline void cm_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline uint32_t cm_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* Writes the common MAD header of a CM message. */
static inline void cm_mad_header(uint8_t mad[EMU_MAD_BYTES], uint16_t attr, uint64_t tid)
{
	memset(mad, 0, MAD_HDR_BYTES);
	mad[0] = MAD_BASE_VERSION;
	mad[1] = CM_MGMT_CLASS;
	mad[2] = CM_CLASS_VERSION;
	mad[3] = MAD_METHOD_SEND;
	emu_put_be64(mad + 8, tid);
	emu_put_be16(mad + 16, attr);
}

#endif
