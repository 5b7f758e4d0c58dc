// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The send limits a handle reports are exactly what a post accepts: for
 * every stride libmlx4 picks (64..2048 bytes) and every QP type with a
 * send queue, a post of max_gather entries and one of max_inline bytes
 * succeed, one entry or one byte more is refused with EINVAL and leaves
 * the ring as it was. The limits come from the unit's own geometry
 * (src/geometry.c), the posts from the header, over host memory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"
#include "test_exit.h"

enum { RING_BYTES = 64 * 1024, MAX_ENTRIES = 130 };

struct limit_ring {
	struct mlx4dv_sq_ring sq;
	uint8_t *mem;
	uint8_t *snap;
	__be32 doorbell;
};

static void ring_open(struct limit_ring *r, uint32_t shift, enum ibv_qp_type type)
{
	memset(r, 0, sizeof(*r));
	r->mem = aligned_alloc(4096, RING_BYTES);
	r->snap = malloc(RING_BYTES);
	assert_non_null(r->mem);
	assert_non_null(r->snap);
	memset(r->mem, 0, RING_BYTES);
	r->sq.buf = r->mem;
	r->sq.wqe_shift = shift;
	r->sq.wqe_cnt = RING_BYTES >> shift;
	r->sq.spare_wqes = mlx4dv_priv_sq_spare_wqes(shift);
	r->sq.max_post = r->sq.wqe_cnt - r->sq.spare_wqes;
	r->sq.max_gather = mlx4dv_priv_sq_max_gather(shift, type);
	r->sq.max_inline = mlx4dv_priv_sq_max_inline(shift, type);
	r->sq.qp_type = (uint32_t)type;
	r->sq.qpn = 0x123;
	r->sq.doorbell_qpn = mlx4dv_cpu_to_be32(0x123 << 8);
	r->sq.doorbell = &r->doorbell;
	mlx4dv_sq_init_ownership(&r->sq);
	mlx4dv_sq_fast_path_init(&r->sq);
}

static void ring_close(struct limit_ring *r)
{
	free(r->mem);
	free(r->snap);
}

static uint8_t payload[4096];
static const struct mlx4dv_ud_av ud_dest;

/* One send of the QP type's own kind: n gather entries, or inline. */
static int post(struct limit_ring *r, const struct ibv_sge *sg, uint32_t n,
		uint32_t flags)
{
	switch (r->sq.qp_type) {
	case IBV_QPT_UD:
		return mlx4dv_sq_write_ud_send(&r->sq, 0, &ud_dest, 1, 2, sg, n, flags);
	case IBV_QPT_RAW_PACKET:
		return mlx4dv_sq_write_eth(&r->sq, 0, sg, n, flags, 0);
	default:
		return mlx4dv_sq_write_send(&r->sq, 0, sg, n, flags);
	}
}

/* A refused post leaves bytes and counters as they were. */
static void assert_refused(struct limit_ring *r, int ret, uint32_t head)
{
	assert_int_equal(ret, EINVAL);
	assert_memory_equal(r->snap, r->mem, RING_BYTES);
	assert_int_equal(r->sq.head, head);
}

static void check_gather(uint32_t shift, enum ibv_qp_type type)
{
	struct ibv_sge sg[MAX_ENTRIES];
	struct limit_ring r;
	uint32_t max, head;

	ring_open(&r, shift, type);
	max = r.sq.max_gather;
	assert_true(max + 1 <= MAX_ENTRIES);
	for (uint32_t i = 0; i < MAX_ENTRIES; i++) {
		sg[i].addr = (uintptr_t)payload;
		sg[i].length = 64;
		sg[i].lkey = 7;
	}
	memcpy(r.snap, r.mem, RING_BYTES);
	head = r.sq.head;
	assert_refused(&r, post(&r, sg, max + 1, 0), head);
	/* Raw Ethernet needs an entry with the frame's first 6 bytes. */
	if (max || type != IBV_QPT_RAW_PACKET)
		assert_int_equal(post(&r, sg, max, 0), 0);
	ring_close(&r);
}

static void check_inline(uint32_t shift, enum ibv_qp_type type)
{
	struct limit_ring r;
	struct ibv_sge sg[2];
	uint32_t max, head;

	ring_open(&r, shift, type);
	max = r.sq.max_inline;
	/* The same bytes from one entry and from two. */
	sg[0].addr = (uintptr_t)payload;
	sg[0].length = max + 1;
	sg[0].lkey = 0;
	memcpy(r.snap, r.mem, RING_BYTES);
	head = r.sq.head;
	if (r.sq.max_gather >= 1)
		assert_refused(&r, post(&r, sg, 1, IBV_SEND_INLINE), head);
	if (r.sq.max_gather >= 2) {
		sg[0].length = (max + 1) / 2;
		sg[1] = sg[0];
		sg[1].length = max + 1 - sg[0].length;
		assert_refused(&r, post(&r, sg, 2, IBV_SEND_INLINE), head);
	}
	if (max >= 6 || type != IBV_QPT_RAW_PACKET) {
		sg[0].length = max;
		assert_int_equal(post(&r, sg, 1, IBV_SEND_INLINE),
				 r.sq.max_gather >= 1 ? 0 : EINVAL);
	}
	ring_close(&r);
}

static const enum ibv_qp_type send_types[] = {
	IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_XRC_SEND, IBV_QPT_UD, IBV_QPT_RAW_PACKET,
};

static void test_max_gather_is_what_a_post_takes(void **state)
{
	(void)state;
	for (uint32_t shift = 6; shift <= 11; shift++)
		for (size_t t = 0; t < sizeof(send_types) / sizeof(send_types[0]); t++)
			check_gather(shift, send_types[t]);
}

static void test_max_inline_is_what_a_post_takes(void **state)
{
	(void)state;
	for (uint32_t shift = 6; shift <= 11; shift++)
		for (size_t t = 0; t < sizeof(send_types) / sizeof(send_types[0]); t++)
			check_inline(shift, send_types[t]);
}

/* The one-buffer inline posts take max_inline bytes and no more. */
static void test_max_inline_one_buffer(void **state)
{
	(void)state;
	for (uint32_t shift = 6; shift <= 11; shift++) {
		struct limit_ring r;
		uint32_t max, head;

		ring_open(&r, shift, IBV_QPT_RC);
		max = r.sq.max_inline;
		memcpy(r.snap, r.mem, RING_BYTES);
		head = r.sq.head;
		assert_refused(&r, mlx4dv_sq_write_rdma_write_inline(&r.sq, 0, 9,
			0x1000, payload, max + 1, 0), head);
		assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&r.sq, 0, 9, 0x1000,
							     payload, max, 0), 0);
		ring_close(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_gather_is_what_a_post_takes),
		cmocka_unit_test(test_max_inline_is_what_a_post_takes),
		cmocka_unit_test(test_max_inline_one_buffer),
	};

	t_run_group_tests_name("unit_sq_limits", tests, NULL, NULL);
	return t_exit();
}
