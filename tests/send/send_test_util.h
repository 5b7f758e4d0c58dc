/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Helpers of the send-path tests: a send queue in plain host memory (a
 * fake doorbell word and a malloc'ed "BlueFlame register"), byte-image
 * comparison with a readable dump, and expected-image assembly from
 * pieces written out by hand.
 */
#ifndef SEND_TEST_UTIL_H
#define SEND_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

/* A ring plus everything it points at, all in host memory. */
struct test_sq {
	struct mlx4dv_sq_ring	sq;
	uint8_t			*mem;		/* wqe_cnt << wqe_shift bytes */
	size_t			size;
	uint32_t		doorbell_word;	/* the fake UAR send doorbell */
	uint8_t			*bf;		/* fake BlueFlame register */
	uint64_t		wrid[64];
};

/*
 * test_sq_setup - a ring of wqe_cnt WQEBBs of 1 << wqe_shift bytes, spare
 * headroom WQEBBs, QPN 0xabc (doorbell_qpn bytes 00 0a bc 00), limits
 * given by the caller. Memory is zeroed, then, when init_ownership, given
 * the first-lap control words (mlx4dv_sq_init_ownership()).
 */
static inline void test_sq_setup(struct test_sq *t, uint32_t wqe_cnt,
				 uint32_t wqe_shift, uint32_t spare,
				 enum ibv_qp_type type, uint32_t start_count,
				 int init_ownership)
{
	memset(t, 0, sizeof(*t));
	t->size = (size_t)wqe_cnt << wqe_shift;
	t->mem = (uint8_t *)aligned_alloc(4096, t->size < 4096 ? 4096 : t->size);
	assert_non_null(t->mem);
	memset(t->mem, 0, t->size);
	t->bf = (uint8_t *)aligned_alloc(4096, 4096);
	assert_non_null(t->bf);
	memset(t->bf, 0, 4096);
	t->sq.buf = t->mem;
	t->sq.wqe_cnt = wqe_cnt;
	t->sq.wqe_shift = wqe_shift;
	t->sq.head = start_count;
	t->sq.tail = start_count;
	t->sq.spare_wqes = spare;
	t->sq.max_post = wqe_cnt - spare;
	t->sq.max_inline = 512;
	t->sq.max_gather = 16;
	t->sq.qpn = 0xabc;
	{
		const uint8_t dbq[4] = { 0x00, 0x0a, 0xbc, 0x00 };

		memcpy(&t->sq.doorbell_qpn, dbq, 4);
	}
	t->sq.qp_type = (uint32_t)type;
	t->sq.doorbell = &t->doorbell_word;
	t->sq.bf_reg = NULL;
	t->sq.bf_buf_size = 0;
	t->sq.bf_offset = 0;
	t->sq.wrid = NULL;
	if (init_ownership)
		mlx4dv_sq_init_ownership(&t->sq);
}

static inline void test_sq_enable_bf(struct test_sq *t, uint32_t bf_buf_size)
{
	t->sq.bf_reg = t->bf;
	t->sq.bf_buf_size = bf_buf_size;
	t->sq.bf_offset = 0;
	t->sq.flags |= MLX4DV_SQ_RING_BLUEFLAME;
}

static inline void test_sq_teardown(struct test_sq *t)
{
	free(t->mem);
	free(t->bf);
	t->mem = NULL;
	t->bf = NULL;
}

/* Compare two images; on a difference print both around it and fail. */
static inline void expect_bytes_at(const uint8_t *got, const uint8_t *want,
				   size_t len, const char *what, int line)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			size_t from = i & ~(size_t)15, j;

			print_error("%s (line %d): byte %zu differs\n", what,
				    line, i);
			for (j = from; j < from + 32 && j < len; j++)
				print_error("  [%4zu] got %02x want %02x%s\n", j,
					    got[j], want[j],
					    got[j] != want[j] ? "  <--" : "");
			fail();
		}
	}
}
#define expect_bytes(got, want, len) \
	expect_bytes_at((const uint8_t *)(got), (const uint8_t *)(want), \
			(len), #got, __LINE__)

/*
 * A piece of an expected WQE image: len bytes at byte offset off of the
 * WQE, either literal (bytes) or, when bytes is NULL, the pattern
 * pattern_byte(src_off + k) for k in 0..len-1.
 */
struct piece {
	uint32_t	off;
	uint32_t	len;
	const uint8_t	*bytes;
	uint32_t	src_off;
};

/* The payload pattern the tests copy inline: byte k of the source. */
static inline uint8_t pattern_byte(uint32_t k)
{
	return (uint8_t)(0x30 + k * 7);
}

static inline void fill_pattern(uint8_t *dst, uint32_t src_off, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		dst[k] = pattern_byte(src_off + k);
}

/* Overlay pieces onto an expected ring image at the WQE starting at
 * slot byte offset wqe_off; offsets past the ring end wrap. */
static inline void overlay(uint8_t *ring, size_t ring_size, size_t wqe_off,
			   const struct piece *p, size_t n)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < n; i++)
		for (k = 0; k < p[i].len; k++) {
			uint8_t v = p[i].bytes ? p[i].bytes[k] :
				pattern_byte(p[i].src_off + k);

			ring[(wqe_off + p[i].off + k) % ring_size] = v;
		}
}

#endif
