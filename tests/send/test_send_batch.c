/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Golden bytes of the lean send API: WQE templates and batches
 * (mlx4dv_sq_wqe_template_init, mlx4dv_sq_batch_begin/_post/_end), the
 * fast-path bits of the ring (mlx4dv_sq_fast_path_init) and the stamping
 * rule behind ring_stamped. Rings live in host memory, prepared as libmlx4
 * prepares one (mlx4dv_sq_init_ownership); every expected byte is written
 * out by hand from the PRM layout (big-endian) and laid over a snapshot
 * of the ring, and the whole ring is compared.
 */
#include "send_test_util.h"
#include "test_exit.h"

enum { LKEY = 0x11223344, RKEY = 0x55667788 };

static const uint8_t lkey_be[4] = { 0x11, 0x22, 0x33, 0x44 };
static const uint8_t rkey_be[4] = { 0x55, 0x66, 0x77, 0x88 };
static const uint8_t zero4[4] = { 0, 0, 0, 0 };

static uint64_t laddr_of(uint32_t i)
{
	return 0x0000100000002000ull + (uint64_t)i * 0x40;
}

static uint64_t raddr_of(uint32_t i)
{
	return 0xfedc000012340000ull + (uint64_t)i * 0x100;
}

/* An address as the 8 big-endian bytes the WQE holds. */
static void be64_out(uint8_t *out, uint64_t v)
{
	int k;

	for (k = 0; k < 8; k++)
		out[k] = (uint8_t)(v >> (56 - 8 * k));
}

/*
 * The expected RDMA WRITE WQE (48 bytes) of batch entry i, signaled, 64
 * bytes: word 0 = owner | 0x08; bytes 4..7 = 0, 0, 0, ds 3; srcrb =
 * CQ_UPDATE (0x0c); imm 0; raddr, rkey, 0; byte_count 0x40, lkey, laddr.
 */
static void expect_write_wqe(uint8_t *ring, size_t ring_size, size_t off,
			     uint32_t i, int owner)
{
	uint8_t w0[4] = { (uint8_t)(owner ? 0x80 : 0x00), 0, 0, 0x08 };
	const uint8_t w1[4] = { 0, 0, 0, 0x03 };
	const uint8_t srcrb[4] = { 0, 0, 0, 0x0c };
	const uint8_t count[4] = { 0, 0, 0, 0x40 };
	uint8_t ra[8], la[8];
	struct piece p[9];

	be64_out(ra, raddr_of(i));
	be64_out(la, laddr_of(i));
	p[0] = (struct piece){ 0, 4, w0, 0 };
	p[1] = (struct piece){ 4, 4, w1, 0 };
	p[2] = (struct piece){ 8, 4, srcrb, 0 };
	p[3] = (struct piece){ 12, 4, zero4, 0 };
	p[4] = (struct piece){ 16, 8, ra, 0 };
	p[5] = (struct piece){ 24, 4, rkey_be, 0 };
	p[6] = (struct piece){ 28, 4, zero4, 0 };
	p[7] = (struct piece){ 32, 4, count, 0 };
	p[8] = (struct piece){ 36, 4, lkey_be, 0 };
	overlay(ring, ring_size, off, p, 9);
	overlay(ring, ring_size, off + 40,
		&(struct piece){ 0, 8, la, 0 }, 1);
}

static void write_template(struct mlx4dv_sq_wqe_template *tp,
			   const struct mlx4dv_sq_ring *sq)
{
	assert_int_equal(mlx4dv_sq_wqe_template_init(tp, sq, IBV_WR_RDMA_WRITE,
						     RKEY, LKEY, 64, IBV_SEND_SIGNALED,
						     0), 0);
}

/* The template's words, byte by byte. */
static void test_template_words(void **state)
{
	struct test_sq t;
	struct mlx4dv_sq_wqe_template tp;
	const uint8_t op_write[4] = { 0, 0, 0, 0x08 };
	const uint8_t op_send_imm[4] = { 0, 0, 0, 0x0b };
	const uint8_t w1_fenced_send[4] = { 0, 0, 0, 0x42 };	/* fence | ds 2 */
	const uint8_t srcrb_sol[4] = { 0, 0, 0, 0x02 };		/* solicited */
	const uint8_t zero_len[4] = { 0x80, 0, 0, 0 };
	const uint8_t imm[4] = { 0xde, 0xad, 0xbe, 0xef };
	__be32 imm_be;

	(void)state;
	memcpy(&imm_be, imm, 4);
	test_sq_setup(&t, 16, 6, 2, IBV_QPT_RC, 0, 1);
	write_template(&tp, &t.sq);
	expect_bytes(&tp.owner_opcode, op_write, 4);
	expect_bytes(&tp.rkey, rkey_be, 4);
	expect_bytes(&tp.lkey, lkey_be, 4);
	expect_bytes(&tp.imm, zero4, 4);	/* no immediate for a write */
	assert_int_equal(tp.ds, 3);

	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq,
		IBV_WR_SEND_WITH_IMM, RKEY, LKEY, 0, IBV_SEND_FENCE | IBV_SEND_SOLICITED,
		imm_be), 0);
	expect_bytes(&tp.owner_opcode, op_send_imm, 4);
	expect_bytes(&tp.bf_qpn, w1_fenced_send, 4);
	expect_bytes(&tp.srcrb_flags, srcrb_sol, 4);
	expect_bytes(&tp.imm, imm, 4);
	expect_bytes(&tp.rkey, zero4, 4);	/* sends carry no rkey */
	expect_bytes(&tp.byte_count, zero_len, 4);
	assert_int_equal(tp.ds, 2);
	test_sq_teardown(&t);
}

/* What a template refuses; a refused template is cleared and no batch
 * starts with it. */
static void test_template_refusals(void **state)
{
	struct test_sq t;
	struct mlx4dv_sq_wqe_template tp, cleared;
	struct mlx4dv_sq_batch b;

	(void)state;
	memset(&cleared, 0, sizeof(cleared));
	test_sq_setup(&t, 16, 6, 2, IBV_QPT_UD, 0, 1);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq, IBV_WR_SEND,
						     0, LKEY, 8, 0, 0), EINVAL);
	test_sq_teardown(&t);
	test_sq_setup(&t, 16, 6, 2, IBV_QPT_UC, 0, 1);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq,
		IBV_WR_RDMA_READ, RKEY, LKEY, 8, 0, 0), EINVAL);
	test_sq_teardown(&t);
	test_sq_setup(&t, 16, 6, 2, IBV_QPT_RC, 0, 1);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq,
		IBV_WR_RDMA_WRITE, RKEY, LKEY, 8, IBV_SEND_INLINE, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq,
		IBV_WR_ATOMIC_FETCH_AND_ADD, RKEY, LKEY, 8, 0, 0), EINVAL);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq,
		IBV_WR_RDMA_WRITE, RKEY, LKEY, 8, 1u << 20, 0), EINVAL);
	t.sq.max_gather = 0;
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq,
		IBV_WR_RDMA_WRITE, RKEY, LKEY, 8, 0, 0), EINVAL);
	assert_memory_equal(&tp, &cleared, sizeof(tp));
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 1), EINVAL);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 3, 2, 1), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 0);
	test_sq_teardown(&t);
}

/* Two writes at count 0 of a ring of 64-byte WQEBBs. */
static void test_batch_two_writes(void **state)
{
	struct test_sq t;
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;
	uint8_t *want;
	uint32_t i;

	(void)state;
	test_sq_setup(&t, 16, 6, 2, IBV_QPT_RC, 0, 1);
	t.sq.wrid = t.wrid;
	want = (uint8_t *)malloc(t.size);
	assert_non_null(want);
	memcpy(want, t.mem, t.size);
	write_template(&tp, &t.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 2), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(mlx4dv_sq_batch_write(&b, 100 + i,
						      raddr_of(i), laddr_of(i)), 0);
	assert_int_equal(t.sq.head, 0);		/* nothing published yet */
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 2);
	assert_int_equal(t.sq.head, 2);
	for (i = 0; i < 2; i++)
		expect_write_wqe(want, t.size, (size_t)i * 64, i, 0);
	expect_bytes(t.mem, want, t.size);
	assert_int_equal(t.wrid[0], 100);
	assert_int_equal(t.wrid[1], 101);
	/* the doorbell is the caller's: one write of QPN << 8 */
	mlx4dv_sq_ring_doorbell(&t.sq);
	expect_bytes(&t.doorbell_word, ((const uint8_t[]){ 0, 0x0a, 0xbc, 0 }), 4);
	free(want);
	test_sq_teardown(&t);
}

/* Across the ring end: counts 6, 7 in lap 0, then 8, 9 (slots 0, 1) with
 * the owner bit set; the wr_id table wraps with the ring. */
static void test_batch_wraps_ring_end(void **state)
{
	struct test_sq t;
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;
	uint8_t *want;
	uint32_t i;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 6, 1);
	t.sq.wrid = t.wrid;
	want = (uint8_t *)malloc(t.size);
	assert_non_null(want);
	memcpy(want, t.mem, t.size);
	write_template(&tp, &t.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 4), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(mlx4dv_sq_batch_write(&b, 200 + i,
						      raddr_of(i), laddr_of(i)), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, 0, 0), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 4);
	assert_int_equal(t.sq.head, 10);
	expect_write_wqe(want, t.size, 6 * 64, 0, 0);
	expect_write_wqe(want, t.size, 7 * 64, 1, 0);
	expect_write_wqe(want, t.size, 0 * 64, 2, 1);
	expect_write_wqe(want, t.size, 1 * 64, 3, 1);
	expect_bytes(t.mem, want, t.size);
	assert_int_equal(t.wrid[6], 200);
	assert_int_equal(t.wrid[7], 201);
	assert_int_equal(t.wrid[0], 202);
	assert_int_equal(t.wrid[1], 203);
	free(want);
	test_sq_teardown(&t);
}

/* A reservation ending exactly at the ring end does not wrap; a batch
 * ended early publishes what it posted. */
static void test_batch_limits(void **state)
{
	struct test_sq t;
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 5, 1);
	write_template(&tp, &t.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 3), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, 2, 1), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, 2, 1), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, 2, 1), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, 2, 1), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 3);
	assert_int_equal(t.sq.head, 8);
	/* all completed; reserve 4, post 1 */
	t.sq.tail = t.sq.head;
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 4), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, 2, 1), 0);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 1);
	assert_int_equal(t.sq.head, 9);
	test_sq_teardown(&t);
}

/* Refusals of begin: nothing written, the batch is empty. */
static void test_batch_refusals(void **state)
{
	struct test_sq t, u;
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;
	uint8_t *before;

	(void)state;
	test_sq_setup(&t, 16, 6, 2, IBV_QPT_RC, 0, 1);
	before = (uint8_t *)malloc(t.size);
	assert_non_null(before);
	memcpy(before, t.mem, t.size);
	write_template(&tp, &t.sq);
	/* room is max_post = 14 */
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 15), ENOMEM);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 3, 2, 1), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 0);
	/* a template made for another QP type */
	test_sq_setup(&u, 16, 6, 2, IBV_QPT_UC, 0, 1);
	write_template(&tp, &u.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 1), EINVAL);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 3, 2, 1), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 0);
	expect_bytes(t.mem, before, t.size);
	assert_int_equal(t.sq.head, 0);
	free(before);
	test_sq_teardown(&u);
	test_sq_teardown(&t);
}

/* A send template: ds 2, the gather entry at byte 16; bytes 32.. of the
 * slot keep what they held. */
static void test_batch_send(void **state)
{
	struct test_sq t;
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;
	const uint8_t w0[4] = { 0, 0, 0, 0x0a };
	const uint8_t w1[4] = { 0, 0, 0, 0x02 };
	const uint8_t count[4] = { 0, 0, 0x01, 0x00 };
	uint8_t la[8], *want;

	(void)state;
	test_sq_setup(&t, 16, 6, 2, IBV_QPT_RC, 0, 1);
	memset(t.mem + 32, 0xa5, 32);		/* old content past the WQE */
	want = (uint8_t *)malloc(t.size);
	assert_non_null(want);
	memcpy(want, t.mem, t.size);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq, IBV_WR_SEND,
						     RKEY, LKEY, 256, 0, 0), 0);
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 1), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 9, raddr_of(3), laddr_of(3)), 0);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 1);
	be64_out(la, laddr_of(3));
	{
		const struct piece p[] = {
			{ 0, 4, w0, 0 }, { 4, 4, w1, 0 }, { 8, 4, zero4, 0 },
			{ 12, 4, zero4, 0 }, { 16, 4, count, 0 },
			{ 20, 4, lkey_be, 0 }, { 24, 8, la, 0 },
		};

		overlay(want, t.size, 0, p, sizeof(p) / sizeof(p[0]));
	}
	expect_bytes(t.mem, want, t.size);
	free(want);
	test_sq_teardown(&t);
}

/*
 * ring_stamped 0: begin stamps the n WQEBBs entering the prefetch window
 * (counts head + spare ..) before writing, over their old ds (8 units,
 * 128 bytes: the word at byte 64); the WQEBB after them is left alone.
 */
static void test_batch_stamps_when_not_stamped(void **state)
{
	struct test_sq t;
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;
	const uint8_t stamp[4] = { 0xff, 0xff, 0xff, 0xff };
	uint8_t *want;
	uint32_t s;

	(void)state;
	test_sq_setup(&t, 16, 7, 3, IBV_QPT_RC, 0, 1);
	for (s = 0; s < 16; s++)
		memset(t.mem + s * 128 + 64, 0x11, 4);	/* stale chunk 1 */
	t.sq.ring_stamped = 0;
	want = (uint8_t *)malloc(t.size);
	assert_non_null(want);
	memcpy(want, t.mem, t.size);
	write_template(&tp, &t.sq);
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 2), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, raddr_of(0), laddr_of(0)), 0);
	assert_int_equal(mlx4dv_sq_batch_write(&b, 0, raddr_of(1), laddr_of(1)), 0);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 2);
	expect_write_wqe(want, t.size, 0, 0, 0);
	expect_write_wqe(want, t.size, 128, 1, 0);
	memcpy(want + 3 * 128 + 64, stamp, 4);
	memcpy(want + 4 * 128 + 64, stamp, 4);
	expect_bytes(t.mem, want, t.size);
	free(want);
	test_sq_teardown(&t);
}

/*
 * ring_stamped with the one-call posts: a WQE of at most 64 bytes leaves
 * the WQEBBs ahead alone (they are stamped already); a longer one clears
 * ring_stamped and stamps the WQEBB spare_wqes ahead, as libmlx4 does.
 */
static void test_ring_stamped_rule(void **state)
{
	struct test_sq t;
	struct ibv_sge sg[3] = { { 0x1000, 8, LKEY }, { 0x2000, 8, LKEY },
				 { 0x3000, 8, LKEY } };
	const uint8_t stamp[4] = { 0xff, 0xff, 0xff, 0xff };

	(void)state;
	test_sq_setup(&t, 16, 7, 3, IBV_QPT_RC, 0, 1);
	assert_int_equal(t.sq.ring_stamped, 1);
	memset(t.mem + 3 * 128 + 64, 0x11, 4);	/* a marker ahead, count 3 */
	memset(t.mem + 4 * 128 + 64, 0x11, 4);	/* and count 4 */
	assert_int_equal(mlx4dv_sq_write_rdma_write(&t.sq, 0, RKEY, 0x3000, sg, 1, 0), 0);
	expect_bytes(t.mem + 3 * 128 + 64,
		     ((const uint8_t[]){ 0x11, 0x11, 0x11, 0x11 }), 4);
	assert_int_equal(t.sq.ring_stamped, 1);
	/* 5 units, 80 bytes: the stamping state ends, count 1 + 3 stamped */
	assert_int_equal(mlx4dv_sq_write_rdma_write(&t.sq, 0, RKEY, 0x3000, sg, 3, 0), 0);
	assert_int_equal(t.sq.ring_stamped, 0);
	expect_bytes(t.mem + 4 * 128 + 64, stamp, 4);
	expect_bytes(t.mem + 3 * 128 + 64,
		     ((const uint8_t[]){ 0x11, 0x11, 0x11, 0x11 }), 4);
	test_sq_teardown(&t);
}

/* The fast-path bits and the checks they stand for: the same bytes with
 * and without, and the same refusals for what they do not cover. */
static void test_fast_path_same_bytes(void **state)
{
	struct test_sq a, f;
	struct ibv_sge sg[3] = { { 0x1000, 8, LKEY }, { 0x2000, 0, LKEY },
				 { 0x3000, 4, LKEY } };
	static const uint8_t data[40] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	uint32_t i;

	(void)state;
	test_sq_setup(&a, 16, 6, 2, IBV_QPT_RC, 0, 1);
	test_sq_setup(&f, 16, 6, 2, IBV_QPT_RC, 0, 1);
	a.sq.max_gather = f.sq.max_gather = 2;
	a.sq.max_inline = f.sq.max_inline = 36;
	mlx4dv_sq_fast_path_init(&f.sq);
	assert_int_equal(f.sq.fast_path, MLX4DV_SQ_FAST_CONNECTED);
	assert_int_equal(a.sq.fast_path, 0);
	for (i = 0; i < 20; i++) {
		int ea, ef;

		ea = mlx4dv_sq_write_rdma_write(&a.sq, 0, RKEY, 0x9000 + i, sg,
					  1 + i % 3, IBV_SEND_SIGNALED);
		ef = mlx4dv_sq_write_rdma_write(&f.sq, 0, RKEY, 0x9000 + i, sg,
					  1 + i % 3, IBV_SEND_SIGNALED);
		assert_int_equal(ea, ef);	/* 3 entries: EINVAL on both */
		ea = mlx4dv_sq_write_send_inline(&a.sq, 0, data, i * 2, 0);
		ef = mlx4dv_sq_write_send_inline(&f.sq, 0, data, i * 2, 0);
		assert_int_equal(ea, ef);	/* over 36 bytes: EINVAL */
		if (mlx4dv_sq_room(&a.sq) < 2)
			a.sq.tail = a.sq.head, f.sq.tail = f.sq.head;
	}
	expect_bytes(f.mem, a.mem, a.size);
	assert_int_equal(f.sq.head, a.sq.head);
	/* a UD ring gets no connected bit, and a connected post fails */
	test_sq_teardown(&f);
	test_sq_setup(&f, 16, 6, 2, IBV_QPT_UD, 0, 1);
	mlx4dv_sq_fast_path_init(&f.sq);
	assert_int_equal(f.sq.fast_path, 0);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&f.sq, 0, RKEY, 0, sg, 1, 0), EINVAL);
	/* no headroom: no bit either */
	f.sq.qp_type = IBV_QPT_RC;
	f.sq.spare_wqes = 0;
	mlx4dv_sq_fast_path_init(&f.sq);
	assert_int_equal(f.sq.fast_path, 0);
	test_sq_teardown(&f);
	test_sq_teardown(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_template_words),
		cmocka_unit_test(test_template_refusals),
		cmocka_unit_test(test_batch_two_writes),
		cmocka_unit_test(test_batch_wraps_ring_end),
		cmocka_unit_test(test_batch_limits),
		cmocka_unit_test(test_batch_refusals),
		cmocka_unit_test(test_batch_send),
		cmocka_unit_test(test_batch_stamps_when_not_stamped),
		cmocka_unit_test(test_ring_stamped_rule),
		cmocka_unit_test(test_fast_path_same_bytes),
	};

	t_run_group_tests_name("send_batch", tests, NULL, NULL);
	return t_exit();
}
