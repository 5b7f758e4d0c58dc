// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "host_rings.h"

#define PAGE 4096u

static void *page_alloc(size_t len, size_t *rounded)
{
	size_t n = (len + PAGE - 1) / PAGE * PAGE;
	void *p = aligned_alloc(PAGE, n);

	if (!p)
		abort();
	memset(p, 0, n);
	if (rounded)
		*rounded = n;
	return p;
}

void host_sq_init(struct host_sq *h, uint32_t wqe_cnt, uint32_t wqe_shift,
		  uint32_t qp_type, uint32_t start)
{
	struct mlx4dv_sq_ring *sq = &h->sq;

	memset(h, 0, sizeof(*h));
	h->mem = page_alloc((size_t)wqe_cnt << wqe_shift, &h->mem_len);
	h->wrid = calloc(wqe_cnt, sizeof(*h->wrid));
	if (!h->wrid)
		abort();
	sq->buf = h->mem;
	sq->wqe_cnt = wqe_cnt;
	sq->wqe_shift = wqe_shift;
	sq->head = sq->tail = start;
	/* libmlx4 verbs.c: the device prefetches up to 2 KB ahead. */
	sq->spare_wqes = (2048u >> wqe_shift) + 1;
	sq->max_post = wqe_cnt - sq->spare_wqes;
	sq->max_gather = 16;
	sq->max_inline = 960;
	sq->qpn = 0x4a;
	wr_be32(&sq->doorbell_qpn, 0x4a << 8);
	sq->qp_type = qp_type;
	sq->doorbell = &h->doorbell;
	sq->wrid = h->wrid;
	mlx4dv_sq_init_ownership(sq);
}

void host_sq_free(struct host_sq *h)
{
	free(h->mem);
	free(h->wrid);
}

uint32_t host_sq_offset(const struct host_sq *h, uint32_t n)
{
	return (n & (h->sq.wqe_cnt - 1)) << h->sq.wqe_shift;
}

uint32_t host_sq_word(const struct host_sq *h, uint32_t off)
{
	uint32_t ring = h->sq.wqe_cnt << h->sq.wqe_shift;
	return rd_be32(h->mem + (off % ring));
}

int host_sq_device_owns(const struct host_sq *h, uint32_t n)
{
	uint32_t w = host_sq_word(h, host_sq_offset(h, n));

	/* PRM: bit 31 equal to the lap parity of the producer count. */
	return (w >> 31) == ((n & h->sq.wqe_cnt) ? 1u : 0u);
}

void host_cq_init(struct host_cq *h, uint32_t cqe_cnt, uint32_t cqe_size,
		  uint32_t start)
{
	struct mlx4dv_cq_ring *cq = &h->cq;
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->mem = page_alloc((size_t)cqe_cnt * cqe_size, NULL);
	/* Every entry belongs to the device for the lap of `start`: its owner
	 * bit is the opposite of that lap's parity. */
	for (i = 0; i < cqe_cnt; i++) {
		uint32_t n = start + i;
		uint8_t *last = h->mem + (size_t)((n & (cqe_cnt - 1)) + 1) * cqe_size - 1;

		*last = (n & cqe_cnt) ? 0 : 0x80;
	}
	cq->buf = h->mem;
	cq->cqe_cnt = cqe_cnt;
	cq->cqe_size = cqe_size;
	cq->cons_index = start;
	cq->cqn = 0x21;
	cq->set_ci_db = &h->set_ci;
	cq->arm_db = &h->arm;
	cq->uar = h->uar;
	h->pi = start;
}

void host_cq_free(struct host_cq *h)
{
	free(h->mem);
}

void host_cq_push(struct host_cq *h, const struct mlx4_cqe *body)
{
	uint32_t size = h->cq.cqe_size, cnt = h->cq.cqe_cnt;
	uint8_t *slot = h->mem + (size_t)(h->pi & (cnt - 1)) * size;
	uint8_t *valid = slot + size - 32;
	uint8_t b[32];

	memcpy(b, body, 32);
	if (size == 64)
		/* A device never writes the first half; make it look like a
		 * software-owned good CQE of another QP to catch misreads. */
		memset(slot, (h->pi & cnt) ? 0xff : 0x7f, 32);
	memcpy(valid, b, 31);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	valid[31] = (uint8_t)((b[31] & 0x7f) | ((h->pi & cnt) ? 0x80 : 0));
	h->pi++;
}

struct mlx4_cqe cqe_send(uint32_t qpn, uint8_t opcode, uint16_t wqe_index)
{
	struct mlx4_cqe c;

	memset(&c, 0, sizeof(c));
	wr_be32(&c.vlan_my_qpn, qpn);
	wr_be16(&c.wqe_index, wqe_index);
	c.owner_sr_opcode = (uint8_t)(0x40 | opcode);
	return c;
}

struct mlx4_cqe cqe_recv(uint32_t qpn, uint8_t opcode, uint32_t byte_cnt,
			 uint16_t wqe_index)
{
	struct mlx4_cqe c;

	memset(&c, 0, sizeof(c));
	wr_be32(&c.vlan_my_qpn, qpn);
	wr_be32(&c.byte_cnt, byte_cnt);
	wr_be16(&c.wqe_index, wqe_index);
	c.owner_sr_opcode = opcode;
	return c;
}

struct mlx4_cqe cqe_error(uint32_t qpn, int is_send, uint8_t syndrome,
			  uint8_t vendor, uint16_t wqe_index)
{
	struct mlx4_cqe c;
	uint8_t *b = (uint8_t *)&c;

	memset(&c, 0, sizeof(c));
	wr_be32(&c.vlan_my_qpn, qpn);
	/* struct mlx4_err_cqe: wqe_index at 24, vendor_err 26, syndrome 27. */
	b[24] = (uint8_t)(wqe_index >> 8);
	b[25] = (uint8_t)wqe_index;
	b[26] = vendor;
	b[27] = syndrome;
	b[31] = (uint8_t)((is_send ? 0x40 : 0) | 0x1e);
	return c;
}

void host_srq_init(struct host_srq *h, uint32_t wqe_cnt, uint32_t wqe_shift)
{
	struct mlx4dv_srq_ring *srq = &h->srq;
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->mem = page_alloc((size_t)wqe_cnt << wqe_shift, NULL);
	h->wrid = calloc(wqe_cnt, sizeof(*h->wrid));
	if (!h->wrid)
		abort();
	/* libmlx4 srq.c mlx4_alloc_srq_buf: next_wqe_index = (i + 1) mod n. */
	for (i = 0; i < wqe_cnt; i++) {
		wr_be16(h->mem + ((size_t)i << wqe_shift) + 2,
			(uint16_t)((i + 1) & (wqe_cnt - 1)));
	}
	srq->buf = h->mem;
	srq->wqe_cnt = wqe_cnt;
	srq->wqe_shift = wqe_shift;
	srq->head = 0;
	srq->tail = wqe_cnt - 1;
	srq->max_scatter = ((1u << wqe_shift) - 16) / 16;
	srq->db = &h->db;
	srq->wrid = h->wrid;
}

void host_srq_free(struct host_srq *h)
{
	free(h->mem);
	free(h->wrid);
}
