/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What one endpoint must learn about its peer before it can talk to it,
 * and a fixed wire format for it. Programs here keep both endpoints in one
 * process and still pass every field through ex_endpoint_info_pack() and
 * ex_endpoint_info_unpack(), so that sending the same bytes over a TCP
 * socket is all a two-process mode needs.
 */
#ifndef MLX4DV_EXAMPLE_ENDPOINT_INFO_H
#define MLX4DV_EXAMPLE_ENDPOINT_INFO_H

#include <stddef.h>
#include <stdint.h>

/* All fields host order. */
struct ex_endpoint_info {
	uint32_t	qpn;		/* 24 bits */
	uint32_t	psn;		/* 24 bits, first send PSN */
	uint16_t	lid;		/* 0 on Ethernet */
	uint8_t		gid[16];	/* network order, as ibv_query_gid() gives it */
	uint8_t		mac[6];		/* Ethernet ports; zero otherwise */
	uint32_t	qkey;		/* UD */
	uint32_t	rkey;		/* of the buffer below; 0 when not exposed */
	uint64_t	addr;		/* remote-accessible buffer */
	uint64_t	length;		/* its size in bytes */
};

/* Wire image: magic, version, then each field big-endian, no padding. */
#define EX_ENDPOINT_INFO_WIRE_SIZE 64

void ex_endpoint_info_pack(const struct ex_endpoint_info *info,
			   uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE]);

/* 0, or EPROTO when the magic or version is wrong or a field is out of
 * range (QPN or PSN wider than 24 bits). */
int ex_endpoint_info_unpack(const uint8_t wire[EX_ENDPOINT_INFO_WIRE_SIZE],
			    struct ex_endpoint_info *info);

/*
 * What the peer receives when info is sent to it: packs and unpacks,
 * standing in for a socket write and read. 0, or -1 with a message.
 */
int ex_endpoint_info_transfer(const struct ex_endpoint_info *info,
			      struct ex_endpoint_info *received);

#endif /* MLX4DV_EXAMPLE_ENDPOINT_INFO_H */
