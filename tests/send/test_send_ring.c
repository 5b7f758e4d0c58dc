/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Ring-level behaviour of the send path: slot arithmetic, first-lap
 * ownership, inline data across 64-byte boundaries, WQEs that use several
 * WQEBBs and wrap past the ring end, stamping on the next lap, completion
 * across the 16-bit wqe_index wrap, doorbell and BlueFlame. The ring lives
 * in host memory; expected WQE bytes are written out by hand (PRM layout,
 * big-endian) and laid over a snapshot of the ring taken before the post,
 * so every byte of the ring is checked.
 */
#include "send_test_util.h"
#include "test_exit.h"

/* Snapshot, post, and compare the whole ring with snapshot + pieces. */
struct ring_check {
	uint8_t *want;
	size_t size;
};

static void snap(struct ring_check *c, const struct test_sq *t)
{
	c->size = t->size;
	c->want = (uint8_t *)malloc(t->size);
	assert_non_null(c->want);
	memcpy(c->want, t->mem, t->size);
}

static void check_and_free(struct ring_check *c, const struct test_sq *t)
{
	expect_bytes(t->mem, c->want, c->size);
	free(c->want);
	c->want = NULL;
}

static void test_slot_math(void **state)
{
	struct test_sq t;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 0, 0);
	assert_ptr_equal(mlx4dv_sq_wqebb(&t.sq, 0), t.mem);
	assert_ptr_equal(mlx4dv_sq_wqebb(&t.sq, 9), t.mem + 64);
	assert_ptr_equal(mlx4dv_sq_wqebb(&t.sq, 0xffffffffu), t.mem + 7 * 64);
	assert_ptr_equal(mlx4dv_sq_ring_end(&t.sq), t.mem + 512);
	assert_ptr_equal(mlx4dv_sq_wrap(&t.sq, t.mem + 512 + 16), t.mem + 16);
	assert_ptr_equal(mlx4dv_sq_wrap(&t.sq, t.mem + 511), t.mem + 511);
	assert_int_equal(mlx4dv_sq_wqebb_size(&t.sq), 64);
	assert_int_equal(mlx4dv_sq_ds_to_wqebbs(&t.sq, 4), 1);
	assert_int_equal(mlx4dv_sq_ds_to_wqebbs(&t.sq, 5), 2);
	assert_int_equal(mlx4dv_sq_ds_to_wqebbs(&t.sq, 63), 16);
	assert_int_equal(mlx4dv_sq_room(&t.sq), 6);
	/* room across the 32-bit wrap of the counters */
	t.sq.tail = 0xfffffffeu;
	t.sq.head = 0x00000002u;
	assert_int_equal(mlx4dv_sq_outstanding(&t.sq), 4);
	assert_int_equal(mlx4dv_sq_room(&t.sq), 2);
	t.sq.wqe_shift = 7;
	assert_int_equal(mlx4dv_sq_ds_to_wqebbs(&t.sq, 8), 1);
	assert_int_equal(mlx4dv_sq_ds_to_wqebbs(&t.sq, 9), 2);
	t.sq.wqe_shift = 6;
	test_sq_teardown(&t);
}

static void test_init_ownership(void **state)
{
	static const uint8_t slot_lap0[8] = { 0x80, 0, 0, 0, 0, 0, 0, 0x08 };
	static const uint8_t slot_lap1[8] = { 0x00, 0, 0, 0, 0, 0, 0, 0x08 };
	static const uint8_t stamp[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[52] = { 0 };
	struct test_sq t;
	int s;

	(void)state;
	/* 2 WQEBBs of 128 bytes, first lap: software-owned = bit set */
	test_sq_setup(&t, 2, 7, 1, IBV_QPT_RC, 0, 1);
	for (s = 0; s < 2; s++) {
		expect_bytes(t.mem + s * 128, slot_lap0, 8);
		expect_bytes(t.mem + s * 128 + 8, zero, 52);	/* 8..59 */
		expect_bytes(t.mem + s * 128 + 64, stamp, 4);
		expect_bytes(t.mem + s * 128 + 68, zero, 52);	/* 68..119 */
	}
	test_sq_teardown(&t);

	/* a ring whose count starts in an odd lap: bit clear */
	test_sq_setup(&t, 2, 7, 1, IBV_QPT_RC, 2, 1);
	for (s = 0; s < 2; s++) {
		expect_bytes(t.mem + s * 128, slot_lap1, 8);
		expect_bytes(t.mem + s * 128 + 64, stamp, 4);
	}
	test_sq_teardown(&t);

	/* 64-byte stride: ds 4, nothing to stamp */
	test_sq_setup(&t, 4, 6, 1, IBV_QPT_RC, 0, 1);
	assert_int_equal(t.mem[7], 0x04);
	assert_int_equal(t.mem[64], 0x80);
	assert_int_equal(t.mem[64 + 7], 0x04);
	expect_bytes(t.mem + 8, zero, 52);
	test_sq_teardown(&t);
}

/* Inline send of 60 bytes: the data crosses one 64-byte boundary, so a
 * second header opens at byte 64 (stride 64: the WQE takes 2 WQEBBs). */
static void test_inline_crosses_one_boundary(void **state)
{
	static const uint8_t ctrl[16] = {
		0x00, 0x00, 0x00, 0x0a,	/* count 0: owner 0 | SEND */
		0x00, 0x00, 0x00, 0x06,	/* ds 6 */
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t h0[4] = { 0x80, 0x00, 0x00, 0x2c };	/* 44 */
	static const uint8_t h1[4] = { 0x80, 0x00, 0x00, 0x10 };	/* 16 */
	const struct piece p[] = {
		{ 0, 16, ctrl, 0 }, { 16, 4, h0, 0 }, { 20, 44, NULL, 0 },
		{ 64, 4, h1, 0 }, { 68, 16, NULL, 44 },
	};
	struct ring_check c;
	struct test_sq t;
	uint8_t data[60];

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 0, 1);
	fill_pattern(data, 0, sizeof(data));
	snap(&c, &t);
	overlay(c.want, c.size, 0, p, sizeof(p) / sizeof(p[0]));
	assert_int_equal(mlx4dv_sq_write_send_inline(&t.sq, 0, data, 60, 0), 0);
	check_and_free(&c, &t);
	assert_int_equal(t.sq.head, 2);
	test_sq_teardown(&t);
}

/* Exactly 44 bytes fill the first chunk: no second header is written and
 * the WQE stays within 64 bytes. */
static void test_inline_ends_on_boundary(void **state)
{
	static const uint8_t ctrl[16] = {
		0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t h0[4] = { 0x80, 0x00, 0x00, 0x2c };
	const struct piece p[] = {
		{ 0, 16, ctrl, 0 }, { 16, 4, h0, 0 }, { 20, 44, NULL, 0 },
	};
	struct ring_check c;
	struct test_sq t;
	uint8_t data[44];

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 0, 1);
	fill_pattern(data, 0, sizeof(data));
	snap(&c, &t);
	overlay(c.want, c.size, 0, p, sizeof(p) / sizeof(p[0]));
	assert_int_equal(mlx4dv_sq_write_send_inline(&t.sq, 0, data, 44,
						    IBV_SEND_SIGNALED), 0);
	check_and_free(&c, &t);
	assert_int_equal(t.sq.head, 1);
	test_sq_teardown(&t);
}

/* RDMA write with 130 inline bytes from four buffers (one empty) starting
 * at count 62 of a 64-WQEBB ring: three chunks, the last one wraps to the
 * ring start. */
static void test_inline_several_buffers_wrap(void **state)
{
	static const uint8_t ctrl[32] = {
		0x00, 0x00, 0x00, 0x08,	/* count 62: owner 0 | WRITE */
		0x00, 0x00, 0x00, 0x0b,	/* ds 11 */
		0x00, 0x00, 0x00, 0x0c,	/* CQ update */
		0x00, 0x00, 0x00, 0x00,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* raddr */
		0x99, 0xaa, 0xbb, 0xcc, 0x00, 0x00, 0x00, 0x00,	/* rkey */
	};
	static const uint8_t h0[4] = { 0x80, 0x00, 0x00, 0x1c };	/* 28 */
	static const uint8_t h1[4] = { 0x80, 0x00, 0x00, 0x3c };	/* 60 */
	static const uint8_t h2[4] = { 0x80, 0x00, 0x00, 0x2a };	/* 42 */
	const struct piece p[] = {
		{ 0, 32, ctrl, 0 },
		{ 32, 4, h0, 0 }, { 36, 28, NULL, 0 },
		{ 64, 4, h1, 0 }, { 68, 60, NULL, 28 },
		{ 128, 4, h2, 0 }, { 132, 42, NULL, 88 },
	};
	struct ring_check c;
	struct test_sq t;
	uint8_t src[130];
	struct ibv_sge sg[4];

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 62, 1);
	fill_pattern(src, 0, sizeof(src));
	sg[0].addr = (uintptr_t)src;		sg[0].length = 10; sg[0].lkey = 1;
	sg[1].addr = (uintptr_t)(src + 10);	sg[1].length = 0;  sg[1].lkey = 2;
	sg[2].addr = (uintptr_t)(src + 10);	sg[2].length = 50; sg[2].lkey = 3;
	sg[3].addr = (uintptr_t)(src + 60);	sg[3].length = 70; sg[3].lkey = 4;
	snap(&c, &t);
	overlay(c.want, c.size, 62 * 64, p, sizeof(p) / sizeof(p[0]));
	assert_int_equal(mlx4dv_sq_write_rdma_write(&t.sq, 0, 0x99aabbcc, 0x1122334455667788ull, sg,
					      4, IBV_SEND_INLINE |
					      IBV_SEND_SIGNALED), 0);
	check_and_free(&c, &t);
	assert_int_equal(t.sq.head, 65);
	test_sq_teardown(&t);
}

/* Eight gather entries (two of length 0) from count 63: the WQE takes the
 * last WQEBB and the first two; entries are written last-to-first. */
static void test_data_segs_wrap(void **state)
{
	static const uint8_t ctrl[32] = {
		0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x0a,	/* ds 10 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t segs[128] = {
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
		0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x01, 0x02,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00,
		0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x01, 0x03,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00,
		0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x01, 0x04,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x50, 0x00,
		0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x01, 0x05,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x60, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x06,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x70, 0x00,
		0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x07,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00,
	};
	static const uint32_t len[8] = { 1, 0, 3, 4, 5, 6, 0, 0x10000 };
	const struct piece p[] = { { 0, 32, ctrl, 0 }, { 32, 128, segs, 0 } };
	struct ring_check c;
	struct test_sq t;
	struct ibv_sge sg[8];
	int i;

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 63, 1);
	for (i = 0; i < 8; i++) {
		sg[i].addr = 0x1000u * (uint32_t)(i + 1);
		sg[i].length = len[i];
		sg[i].lkey = 0x100u + (uint32_t)i;
	}
	snap(&c, &t);
	overlay(c.want, c.size, 63 * 64, p, 2);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&t.sq, 0, 5, 0x1000, sg, 8, 0), 0);
	check_and_free(&c, &t);
	assert_int_equal(t.sq.head, 66);
	test_sq_teardown(&t);
}

/* Post one WQE and complete it at once (keeps the ring from filling). */
static void post_and_complete_small(struct test_sq *t)
{
	static const uint8_t b[4] = { 1, 2, 3, 4 };
	uint32_t at = t->sq.head;

	assert_int_equal(mlx4dv_sq_write_send_inline(&t->sq, 0, b, 4, 0), 0);
	assert_int_equal(mlx4dv_sq_complete(&t->sq, (uint16_t)at, NULL),
			 t->sq.head - at);
}

/* libmlx4-style stamping on the next lap: slot 0 held an 80-byte WQE
 * whose second chunk started with an inline header; when the producer
 * count is spare_wqes short of slot 0's next use, that word becomes
 * 0xffffffff and the rest of the chunk stays. */
static void test_stamp_next_lap(void **state)
{
	static const uint8_t hdr[4] = { 0x80, 0x00, 0x00, 0x0c };
	static const uint8_t stamp[4] = { 0xff, 0xff, 0xff, 0xff };
	uint8_t data[40], rest[12];
	struct test_sq t;
	int i;

	(void)state;
	/* stride 128, 32 WQEBBs, libmlx4's headroom for it: 2048/128 + 1 */
	test_sq_setup(&t, 32, 7, 17, IBV_QPT_RC, 0, 1);
	fill_pattern(data, 0, sizeof(data));
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 1, 0x10, data, 40, 0),
			 0);
	/* ctrl, raddr, 28 bytes in chunk 0, header + 12 bytes in chunk 1 */
	assert_int_equal(t.mem[7], 0x05);
	expect_bytes(t.mem + 64, hdr, 4);
	fill_pattern(rest, 28, 12);
	expect_bytes(t.mem + 68, rest, 12);
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0, NULL), 1);
	/* counts 1..14: the stamp window ends at 14 + 17 = 31 */
	for (i = 1; i <= 14; i++)
		post_and_complete_small(&t);
	expect_bytes(t.mem + 64, hdr, 4);
	/* count 15 stamps count 32, i.e. slot 0 with its old ds 5 */
	post_and_complete_small(&t);
	expect_bytes(t.mem + 64, stamp, 4);
	expect_bytes(t.mem + 68, rest, 12);
	assert_int_equal(t.mem[0], 0x00);	/* lap 0 word 0 untouched */
	assert_int_equal(t.mem[3], 0x08);
	test_sq_teardown(&t);
}

/* A 3-WQEBB WQE (64-byte stride) is stamped as a whole when the window
 * reaches its first WQEBB. The first words of its 2nd and 3rd WQEBB are
 * where the device tests ownership for counts 65 and 66 (odd lap: device
 * value 1), so they get the software-owned stamp 0x7fffffff (kernel
 * mlx4_ib qp.c stamp_send_wqe for WQEs of several WQEBBs); those WQEBBs
 * are then skipped. */
static void test_stamp_multi_wqebb_wqe(void **state)
{
	static const uint8_t stamp[4] = { 0x7f, 0xff, 0xff, 0xff };
	uint8_t src[130], snap1[64], snap2[64];
	struct test_sq t;
	uint32_t i;

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 0, 1);
	fill_pattern(src, 0, sizeof(src));
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 1, 0, src, 130, 0), 0);
	assert_int_equal(t.sq.head, 3);
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0, NULL), 3);
	memcpy(snap1, t.mem + 64, 64);
	memcpy(snap2, t.mem + 128, 64);
	/* counts 3..30 leave slot 0 alone (window up to 30 + 33 = 63) */
	for (i = 3; i <= 30; i++)
		post_and_complete_small(&t);
	assert_int_equal(t.mem[64], 0x80);
	/* count 31 stamps count 64 = slot 0: ds 11 covers slots 1 and 2 */
	post_and_complete_small(&t);
	expect_bytes(t.mem + 64, stamp, 4);
	expect_bytes(t.mem + 68, snap1 + 4, 60);
	expect_bytes(t.mem + 128, stamp, 4);
	expect_bytes(t.mem + 132, snap2 + 4, 60);
	/* counts 32 and 33 meet the stamped words and leave the slots */
	post_and_complete_small(&t);
	post_and_complete_small(&t);
	expect_bytes(t.mem + 68, snap1 + 4, 60);
	expect_bytes(t.mem + 132, snap2 + 4, 60);
	test_sq_teardown(&t);
}

/* The same across the ring end and a lap change: a 3-WQEBB WQE at count
 * 126 (slots 62, 63, 0) is stamped when count 157 stamps count 190 (slot
 * 62). Its 2nd WQEBB is count 191 (bit 6 clear: device value 0, stamp
 * 0xffffffff), its 3rd count 192 in slot 0 (bit 6 set: 0x7fffffff). */
static void test_stamp_multi_wqebb_across_end(void **state)
{
	static const uint8_t even[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t odd[4] = { 0x7f, 0xff, 0xff, 0xff };
	uint8_t src[130];
	struct test_sq t;
	uint32_t i;

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 126, 1);
	fill_pattern(src, 0, sizeof(src));
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 1, 0, src, 130, 0), 0);
	assert_int_equal(t.sq.head, 129);
	assert_int_equal(t.mem[62 * 64 + 7], 0x0b);	/* ds 11 */
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 126, NULL), 3);
	for (i = 129; i <= 156; i++)
		post_and_complete_small(&t);
	assert_int_equal(t.mem[63 * 64], 0x80);	/* inline header still */
	assert_int_equal(t.mem[0], 0x80);
	post_and_complete_small(&t);			/* count 157 */
	expect_bytes(t.mem + 63 * 64, even, 4);
	expect_bytes(t.mem + 0, odd, 4);
	test_sq_teardown(&t);
}

/* Producer counts 0xfffe, 0xffff, 0x10000: owner bits follow bit 3 of the
 * count (wqe_cnt 8); one CQE naming 0x0000 completes all three. */
static void test_counter_wrap_and_completion(void **state)
{
	static const uint8_t w_lap1[4] = { 0x80, 0x00, 0x00, 0x0a };
	static const uint8_t w_lap0[4] = { 0x00, 0x00, 0x00, 0x0a };
	struct test_sq t;
	struct ibv_sge sg = { 0x5000, 8, 0x77 };
	uint64_t id = 0;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 0xfffe, 1);
	t.sq.wrid = t.wrid;
	assert_int_equal(mlx4dv_sq_write_send(&t.sq, 100, &sg, 1, 0), 0);
	assert_int_equal(mlx4dv_sq_write_send(&t.sq, 101, &sg, 1, 0), 0);
	assert_int_equal(mlx4dv_sq_write_send(&t.sq, 102, &sg, 1, IBV_SEND_SIGNALED), 0);
	expect_bytes(t.mem + 6 * 64, w_lap1, 4);	/* 0xfffe & 7 = 6 */
	expect_bytes(t.mem + 7 * 64, w_lap1, 4);
	expect_bytes(t.mem + 0 * 64, w_lap0, 4);
	assert_int_equal(t.sq.head, 0x10001);

	/* a wqe_index that names nothing outstanding changes nothing */
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0x0001, &id), 0);
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0x8000, &id), 0);
	assert_int_equal(t.sq.tail, 0xfffe);
	assert_int_equal(id, 0);

	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0x0000, &id), 3);
	assert_int_equal(id, 102);
	assert_int_equal(t.sq.tail, 0x10001);
	assert_int_equal(mlx4dv_sq_room(&t.sq), 6);
	/* the same CQE again is stale */
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0x0000, &id), 0);
	test_sq_teardown(&t);
}

/* Completion of a 2-WQEBB WQE across the 16-bit wrap frees 2 WQEBBs. */
static void test_completion_multi_wqebb(void **state)
{
	struct test_sq t;
	uint8_t data[60];
	uint64_t id = 0;

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 0xfffe, 1);
	t.sq.wrid = (uint64_t *)calloc(64, sizeof(uint64_t));
	assert_non_null(t.sq.wrid);
	fill_pattern(data, 0, sizeof(data));
	assert_int_equal(mlx4dv_sq_write_send_inline(&t.sq, 7, data, 60, 0), 0);
	assert_int_equal(mlx4dv_sq_write_send_inline(&t.sq, 8, data, 4, 0), 0);
	assert_int_equal(t.sq.head, 0x10001);
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0xfffe, &id), 2);
	assert_int_equal(id, 7);
	assert_int_equal(t.sq.tail, 0x10000);
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 0x0000, &id), 1);
	assert_int_equal(id, 8);
	assert_int_equal(t.sq.tail, 0x10001);
	free(t.sq.wrid);
	test_sq_teardown(&t);
}

static void test_doorbell(void **state)
{
	static const uint8_t want[4] = { 0x00, 0x0a, 0xbc, 0x00 };
	struct test_sq t;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 0, 1);
	mlx4dv_sq_ring_doorbell(&t.sq);
	expect_bytes(&t.doorbell_word, want, 4);
	test_sq_teardown(&t);
}

/* BlueFlame: WQE counter in word 0, QPN in word 1, 64-byte chunks to the
 * register, buffer halves alternate; the doorbell word stays untouched. */
static void test_blueflame(void **state)
{
	static const uint8_t wqe0[48] = {
		0x00, 0x23, 0x45, 0x08,	/* owner 0 | counter 0x2345 | WRITE */
		0x00, 0x0a, 0xbc, 0x03,	/* QPN 0xabc | ds 3 */
		0x00, 0x00, 0x00, 0x0c,
		0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
		0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00,
		0x80, 0x00, 0x00, 0x0c,
		0x30, 0x37, 0x3e, 0x45, 0x4c, 0x53, 0x5a, 0x61,
		0x68, 0x6f, 0x76, 0x7d,
	};
	static const uint8_t word0_2[4] = { 0x00, 0x23, 0x46, 0x08 };
	static const uint8_t zero[16] = { 0 };
	static const uint8_t db[4] = { 0x00, 0x0a, 0xbc, 0x00 };
	uint8_t data[12];
	struct test_sq t;
	uint32_t at;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 0x12345, 1);
	test_sq_enable_bf(&t, 256);
	fill_pattern(data, 0, sizeof(data));
	at = t.sq.head;
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 0x20, 0x10, data, 12,
						     IBV_SEND_SIGNALED), 0);
	assert_true(mlx4dv_sq_bf_eligible(&t.sq, at));
	assert_int_equal(mlx4dv_sq_ring_bf(&t.sq, at), 1);
	expect_bytes(t.mem + 5 * 64, wqe0, 48);		/* 0x12345 & 7 = 5 */
	expect_bytes(t.mem + 5 * 64 + 48, zero, 16);
	expect_bytes(t.bf, wqe0, 48);
	expect_bytes(t.bf + 48, zero, 16);
	assert_int_equal(t.sq.bf_offset, 256);
	assert_int_equal(t.doorbell_word, 0);

	at = t.sq.head;
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 0x20, 0x10, data, 12,
						     IBV_SEND_SIGNALED), 0);
	assert_int_equal(mlx4dv_sq_ring_bf(&t.sq, at), 1);
	expect_bytes(t.bf + 256, word0_2, 4);
	expect_bytes(t.bf + 256 + 4, wqe0 + 4, 44);
	assert_int_equal(t.sq.bf_offset, 0);
	assert_int_equal(t.doorbell_word, 0);

	/* two WQEs since the last doorbell: plain doorbell, word 0 unchanged */
	at = t.sq.head;
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 0x20, 0x10, data, 12,
						     0), 0);
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 0x20, 0x10, data, 12,
						     0), 0);
	assert_false(mlx4dv_sq_bf_eligible(&t.sq, at));
	assert_int_equal(mlx4dv_sq_ring_bf(&t.sq, at), 0);
	expect_bytes(&t.doorbell_word, db, 4);
	assert_int_equal(t.mem[((at & 7) * 64) + 1], 0x00);
	assert_int_equal(t.mem[((at & 7) * 64) + 2], 0x00);
	assert_int_equal(t.mem[((at & 7) * 64) + 5], 0x00);
	assert_int_equal(t.sq.bf_offset, 0);

	/* too big for the BlueFlame buffer */
	t.doorbell_word = 0;
	t.sq.bf_buf_size = 32;
	at = t.sq.head;
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 0x20, 0x10, data, 12,
						     0), 0);
	assert_int_equal(mlx4dv_sq_ring_bf(&t.sq, at), 0);
	expect_bytes(&t.doorbell_word, db, 4);

	/* no register */
	t.doorbell_word = 0;
	t.sq.bf_reg = NULL;
	at = t.sq.head;
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 0x20, 0x10, data, 12,
						     0), 0);
	assert_int_equal(mlx4dv_sq_ring_bf(&t.sq, at), 0);
	expect_bytes(&t.doorbell_word, db, 4);
	test_sq_teardown(&t);
}

/* A BlueFlame WQE that wraps the ring end is copied in ring order. */
static void test_blueflame_wrapping_wqe(void **state)
{
	static const uint8_t word0[4] = { 0x00, 0x00, 0x3f, 0x0a };
	static const uint8_t word1[4] = { 0x00, 0x0a, 0xbc, 0x06 };
	uint8_t data[60];
	struct test_sq t;

	(void)state;
	test_sq_setup(&t, 64, 6, 33, IBV_QPT_RC, 63, 1);
	test_sq_enable_bf(&t, 256);
	fill_pattern(data, 0, sizeof(data));
	assert_int_equal(mlx4dv_sq_write_send_inline(&t.sq, 0, data, 60, 0), 0);
	assert_int_equal(mlx4dv_sq_ring_bf(&t.sq, 63), 1);
	expect_bytes(t.bf, word0, 4);
	expect_bytes(t.bf + 4, word1, 4);
	expect_bytes(t.bf + 16 + 4, data, 44);
	expect_bytes(t.bf + 64, t.mem, 64);	/* second chunk = slot 0 */
	assert_int_equal(t.bf[64], 0x80);
	assert_int_equal(t.bf[67], 0x10);
	test_sq_teardown(&t);
}

/* A full ring refuses with ENOMEM and writes nothing. */
static void test_full_ring(void **state)
{
	struct ring_check c;
	struct test_sq t;
	struct ibv_sge sg = { 0x1000, 4, 1 };
	int i;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 0, 1);
	for (i = 0; i < 6; i++)
		assert_int_equal(mlx4dv_sq_write_send(&t.sq, 0, &sg, 1, 0), 0);
	assert_int_equal(mlx4dv_sq_room(&t.sq), 0);
	snap(&c, &t);
	assert_int_equal(mlx4dv_sq_write_send(&t.sq, 0, &sg, 1, 0), ENOMEM);
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t.sq, 0, 0, 0, "x", 1, 0),
			 ENOMEM);
	check_and_free(&c, &t);
	assert_int_equal(t.sq.head, 6);
	assert_int_equal(mlx4dv_sq_complete(&t.sq, 2, NULL), 3);
	assert_int_equal(mlx4dv_sq_write_send(&t.sq, 0, &sg, 1, 0), 0);
	test_sq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_math),
		cmocka_unit_test(test_init_ownership),
		cmocka_unit_test(test_inline_crosses_one_boundary),
		cmocka_unit_test(test_inline_ends_on_boundary),
		cmocka_unit_test(test_inline_several_buffers_wrap),
		cmocka_unit_test(test_data_segs_wrap),
		cmocka_unit_test(test_stamp_next_lap),
		cmocka_unit_test(test_stamp_multi_wqebb_wqe),
		cmocka_unit_test(test_stamp_multi_wqebb_across_end),
		cmocka_unit_test(test_counter_wrap_and_completion),
		cmocka_unit_test(test_completion_multi_wqebb),
		cmocka_unit_test(test_doorbell),
		cmocka_unit_test(test_blueflame),
		cmocka_unit_test(test_blueflame_wrapping_wqe),
		cmocka_unit_test(test_full_ring),
	};

	t_run_group_tests_name("send_ring", tests, NULL, NULL);
	return t_exit();
}
