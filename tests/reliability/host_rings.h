/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Queue handles over plain host memory, and the device's side of them
 * written from the PRM rules (not from the header's code): the owner test a
 * device makes on a send WQE, and CQEs written the way a device writes
 * them. Used by the pure regression tests.
 */
#ifndef RELIABILITY_HOST_RINGS_H
#define RELIABILITY_HOST_RINGS_H

#include <stdint.h>
#include <infiniband/mlx4dv.h>

/* Byte-order helpers of the tests' own, independent of the header's. */
static inline uint32_t rd_be32(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static inline uint16_t rd_be16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline void wr_be32(void *p, uint32_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static inline void wr_be16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

struct host_sq {
	struct mlx4dv_sq_ring sq;
	uint8_t *mem;		/* page-aligned, ring_bytes rounded up */
	size_t mem_len;
	uint64_t *wrid;
	__be32 doorbell;	/* stands in for UAR + 0x14 */
};

/* A send ring of wqe_cnt WQEBBs of 1 << wqe_shift bytes with head = tail =
 * start, prepared for its first lap; max_inline / max_gather are what one
 * WQE may carry (the tests choose them). */
void host_sq_init(struct host_sq *h, uint32_t wqe_cnt, uint32_t wqe_shift,
		  uint32_t qp_type, uint32_t start);
void host_sq_free(struct host_sq *h);

/* Byte offset in the ring of producer count n. */
uint32_t host_sq_offset(const struct host_sq *h, uint32_t n);

/* Big-endian word at ring byte offset off (taken modulo the ring size). */
uint32_t host_sq_word(const struct host_sq *h, uint32_t off);

/* The device's test: is the WQE at producer count n the device's? */
int host_sq_device_owns(const struct host_sq *h, uint32_t n);

struct host_cq {
	struct mlx4dv_cq_ring cq;
	uint8_t *mem;
	__be32 set_ci, arm;
	uint8_t uar[64];
	uint32_t pi;		/* device producer index, free-running */
};

/* A CQ of cqe_cnt entries of cqe_size bytes, every entry device-owned for
 * the lap of index start, cons_index = pi = start. */
void host_cq_init(struct host_cq *h, uint32_t cqe_cnt, uint32_t cqe_size,
		  uint32_t start);
void host_cq_free(struct host_cq *h);

/* Write the next CQE as a device does: body, then the owner byte with the
 * lap parity of pi. The 32 valid bytes come from body (owner bit ignored);
 * with 64-byte CQEs the first half is filled with junk. */
void host_cq_push(struct host_cq *h, const struct mlx4_cqe *body);

/* CQE bodies. */
struct mlx4_cqe cqe_send(uint32_t qpn, uint8_t opcode, uint16_t wqe_index);
struct mlx4_cqe cqe_recv(uint32_t qpn, uint8_t opcode, uint32_t byte_cnt,
			 uint16_t wqe_index);
struct mlx4_cqe cqe_error(uint32_t qpn, int is_send, uint8_t syndrome,
			  uint8_t vendor, uint16_t wqe_index);

struct host_srq {
	struct mlx4dv_srq_ring srq;
	uint8_t *mem;
	uint64_t *wrid;
	__be32 db;
};

/* An SRQ of wqe_cnt WQEs (one stays unused) with the free list libmlx4
 * builds: WQE i links to i + 1, head 0, tail wqe_cnt - 1. */
void host_srq_init(struct host_srq *h, uint32_t wqe_cnt, uint32_t wqe_shift);
void host_srq_free(struct host_srq *h);

#endif
