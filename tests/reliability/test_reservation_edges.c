// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Every path that reserves ring space, exactly at the end of the room,
 * one before and one past: the last request that fits is taken, the next
 * one is refused with the documented errno and leaves the ring, the
 * producer count and the doorbell record as they were. The counters start
 * a few steps before their 32-bit wrap so that the room arithmetic is
 * checked across it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "host_rings.h"
#include "test_exit.h"

enum { SQ_CNT = 64, SQ_SHIFT = 6 };

/* producer and consumer counts 16 steps before their 32-bit wrap */
static const uint32_t START = 0xfffffff0u;

static uint8_t payload[4096];

struct snapshot {
	uint8_t *mem;
	size_t len;
	uint32_t head;
};

static void snap(struct snapshot *s, const void *mem, size_t len, uint32_t head)
{
	s->mem = malloc(len);
	assert_non_null(s->mem);
	memcpy(s->mem, mem, len);
	s->len = len;
	s->head = head;
}

static void unchanged(struct snapshot *s, const void *mem, uint32_t head)
{
	assert_int_equal(head, s->head);
	assert_memory_equal(mem, s->mem, s->len);
	free(s->mem);
}

/* A send post of one kind; returns its errno. */
typedef int (*sq_post_fn)(struct host_sq *h);

static int post_send_one_sge(struct host_sq *h)
{
	struct ibv_sge sg = { (uintptr_t)payload, 64, 0x11 };

	return mlx4dv_sq_write_send(&h->sq, 0, &sg, 1, 0);
}

static int post_write_inline(struct host_sq *h)
{
	return mlx4dv_sq_write_rdma_write_inline(&h->sq, 0, 0x22, 0x1000, payload, 16, 0);
}

static int post_send_wr(struct host_sq *h)
{
	struct ibv_sge sg = { (uintptr_t)payload, 8, 0x33 };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = 0x2000;
	wr.wr.rdma.rkey = 0x44;
	return mlx4dv_sq_write_send_wr(&h->sq, &wr, NULL);
}

/* 8 gather entries: ds 1 + 1 + 8 = 10 units, 160 bytes, 3 WQEBBs */
static int post_write_8_sges(struct host_sq *h)
{
	struct ibv_sge sg[8];

	for (int i = 0; i < 8; i++)
		sg[i] = (struct ibv_sge){ (uintptr_t)payload + 64 * (unsigned)i, 32, 0x55 };
	return mlx4dv_sq_write_rdma_write(&h->sq, 0, 0x66, 0x3000, sg, 8, 0);
}

/* Posts until one WQE of `need` WQEBBs is left to fit, posts it (the end
 * of the room), then one more: ENOMEM, nothing written. Then one WQEBB is
 * completed and the same post still does not fit when need > 1. */
static void sq_edge(uint32_t qp_type, sq_post_fn post, uint32_t need)
{
	struct host_sq h;
	struct snapshot s;
	uint32_t posted = 0;

	host_sq_init(&h, SQ_CNT, SQ_SHIFT, qp_type, START);
	/* fill with the post itself while more than one more fits */
	while (mlx4dv_sq_room(&h.sq) >= 2 * need) {
		assert_int_equal(post(&h), 0);
		posted++;
	}
	/* one before the end: the room holds one or more, fewer than two */
	assert_true(mlx4dv_sq_room(&h.sq) >= need);
	assert_int_equal(post(&h), 0);
	posted++;
	/* a room smaller than need is left: one past the end */
	assert_true(mlx4dv_sq_room(&h.sq) < need);
	snap(&s, h.mem, h.mem_len, h.sq.head);
	assert_int_equal(post(&h), ENOMEM);
	unchanged(&s, h.mem, h.sq.head);
	assert_true(posted * need <= h.sq.max_post);
	/* exactly at the end: give back just enough room for one more */
	h.sq.tail += need - mlx4dv_sq_room(&h.sq);
	assert_int_equal(mlx4dv_sq_room(&h.sq), need);
	assert_int_equal(post(&h), 0);
	assert_int_equal(mlx4dv_sq_room(&h.sq), 0);
	snap(&s, h.mem, h.mem_len, h.sq.head);
	assert_int_equal(post(&h), ENOMEM);
	unchanged(&s, h.mem, h.sq.head);
	host_sq_free(&h);
}

static void test_sq_posts_at_the_end(void **state)
{
	(void)state;
	sq_edge(IBV_QPT_RC, post_send_one_sge, 1);
	sq_edge(IBV_QPT_RC, post_write_inline, 1);
	sq_edge(IBV_QPT_UC, post_send_wr, 1);
	sq_edge(IBV_QPT_RC, post_write_8_sges, 3);
}

static void test_batch_at_the_end(void **state)
{
	struct mlx4dv_sq_wqe_template t;
	struct mlx4dv_sq_batch b;
	struct host_sq h;
	struct snapshot s;
	uint32_t room;

	(void)state;
	host_sq_init(&h, SQ_CNT, SQ_SHIFT, IBV_QPT_RC, START);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&t, &h.sq, IBV_WR_RDMA_WRITE,
						     0x88, 0x77, 64, 0, 0), 0);
	room = mlx4dv_sq_room(&h.sq);
	/* one past: nothing reserved, nothing written, posts refused */
	snap(&s, h.mem, h.mem_len, h.sq.head);
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, room + 1), ENOMEM);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 1, 0x2000, 0x1000), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&h.sq, &b), 0);
	unchanged(&s, h.mem, h.sq.head);
	/* exactly the room: every reserved post is taken, then ENOSPC */
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, room), 0);
	for (uint32_t i = 0; i < room; i++)
		assert_int_equal(mlx4dv_sq_batch_write(&b, i, 0x2000, 0x1000 + i), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 99, 0x2000, 0x1000), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&h.sq, &b), room);
	assert_int_equal(h.sq.head, START + room);
	assert_int_equal(mlx4dv_sq_room(&h.sq), 0);
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, 1), ENOMEM);
	/* one before the end: a batch of room - 1 leaves one WQEBB */
	h.sq.tail = h.sq.head;
	assert_int_equal(mlx4dv_sq_batch_begin(&h.sq, &b, &t, room - 1), 0);
	for (uint32_t i = 0; i < room - 1; i++)
		assert_int_equal(mlx4dv_sq_batch_write(&b, i, 0x2000, 0x1000), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 99, 0x2000, 0x1000), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&h.sq, &b), room - 1);
	assert_int_equal(mlx4dv_sq_room(&h.sq), 1);
	host_sq_free(&h);
}

struct host_rq {
	struct mlx4dv_rq_ring rq;
	uint8_t *mem;
	uint64_t wrid[8];
	__be32 db;
};

static void host_rq_init(struct host_rq *h)
{
	memset(h, 0, sizeof(*h));
	h->mem = calloc(8, 32);
	assert_non_null(h->mem);
	h->rq.buf = h->mem;
	h->rq.wqe_cnt = 8;
	h->rq.wqe_shift = 5;
	h->rq.head = h->rq.tail = START;
	h->rq.max_scatter = 2;
	h->rq.db = &h->db;
	h->rq.wrid = h->wrid;
}

static void test_rq_at_the_end(void **state)
{
	struct ibv_sge sg = { (uintptr_t)payload, 100, 0x99 };
	struct ibv_recv_wr wr[9];
	const struct ibv_recv_wr *bad = NULL;
	struct host_rq h;
	struct snapshot s;

	(void)state;
	for (int i = 0; i < 9; i++)
		wr[i] = (struct ibv_recv_wr){ .wr_id = (uint64_t)i,
			.next = i < 8 ? &wr[i + 1] : NULL, .sg_list = &sg, .num_sge = 1 };
	host_rq_init(&h);
	/* a list one past the ring: refused whole, at its ninth request */
	snap(&s, h.mem, 8 * 32, h.rq.head);
	assert_int_equal(mlx4dv_rq_post_list(&h.rq, &wr[0], &bad), ENOMEM);
	assert_ptr_equal(bad, &wr[8]);
	unchanged(&s, h.mem, h.rq.head);
	assert_int_equal(h.db, 0);
	/* exactly the ring: taken */
	assert_int_equal(mlx4dv_rq_post_list(&h.rq, &wr[1], &bad), 0);
	assert_int_equal(h.rq.head - h.rq.tail, 8);
	snap(&s, h.mem, 8 * 32, h.rq.head);
	assert_int_equal(mlx4dv_rq_post(&h.rq, 9, &sg, 1), ENOMEM);
	unchanged(&s, h.mem, h.rq.head);
	/* one before the end: one WQE free, one single post fits */
	h.rq.tail++;
	assert_int_equal(mlx4dv_rq_post(&h.rq, 10, &sg, 1), 0);
	assert_int_equal(mlx4dv_rq_post(&h.rq, 11, &sg, 1), ENOMEM);
	free(h.mem);
}

static void test_srq_at_the_end(void **state)
{
	struct ibv_sge sg = { (uintptr_t)payload, 100, 0xaa };
	struct ibv_recv_wr wr[8];
	const struct ibv_recv_wr *bad = NULL;
	struct host_srq h;
	struct snapshot s;

	(void)state;
	for (int i = 0; i < 8; i++)
		wr[i] = (struct ibv_recv_wr){ .wr_id = (uint64_t)i,
			.next = i < 7 ? &wr[i + 1] : NULL, .sg_list = &sg, .num_sge = 1 };
	/* 8 WQEs, one always unused: 7 receives fit */
	host_srq_init(&h, 8, 5);
	snap(&s, h.mem, 8 * 32, h.srq.head);
	assert_int_equal(mlx4dv_srq_post_list(&h.srq, &wr[0], &bad), ENOMEM);
	assert_ptr_equal(bad, &wr[7]);
	unchanged(&s, h.mem, h.srq.head);
	assert_int_equal(h.srq.counter, 0);
	/* one before the end: 6, then the seventh alone (the end), then none */
	assert_int_equal(mlx4dv_srq_post_list(&h.srq, &wr[2], &bad), 0);
	assert_int_equal(h.srq.counter, 6);
	assert_int_equal(mlx4dv_srq_post(&h.srq, 7, &sg, 1), 0);
	snap(&s, h.mem, 8 * 32, h.srq.head);
	assert_int_equal(mlx4dv_srq_post(&h.srq, 8, &sg, 1), ENOMEM);
	unchanged(&s, h.mem, h.srq.head);
	assert_int_equal(h.srq.counter, 7);
	host_srq_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sq_posts_at_the_end),
		cmocka_unit_test(test_batch_at_the_end),
		cmocka_unit_test(test_rq_at_the_end),
		cmocka_unit_test(test_srq_at_the_end),
	};

	t_run_group_tests_name("reliability_reservation_edges", tests, NULL, NULL);
	return t_exit();
}
