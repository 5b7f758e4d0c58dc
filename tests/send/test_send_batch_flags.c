/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Golden bytes of mlx4dv_sq_batch_write_flags(): one WQE of a template
 * batch signalled, solicited or fenced without a second template. Each
 * WQE is checked byte by byte where the flags land (control byte 7: fence
 * 0x40 | ds; control byte 11: CQ_UPDATE 0x0c, SOLICIT 0x02), and the
 * whole ring against the same requests made with the one-call
 * mlx4dv_sq_write_rdma_write() (whose bytes tests/send checks against libmlx4's).
 */
#include "send_test_util.h"
#include "test_exit.h"

enum { LKEY = 0x01020304, RKEY = 0x0a0b0c0d, LEN = 512 };

static const uint32_t wqe_flags[] = {
	0,
	IBV_SEND_SIGNALED,
	IBV_SEND_SOLICITED,
	IBV_SEND_FENCE,
	IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE,
	0,
};
#define NWQE (sizeof(wqe_flags) / sizeof(wqe_flags[0]))

static uint64_t laddr_of(uint32_t i) { return 0x7000 + (uint64_t)i * 0x1000; }
static uint64_t raddr_of(uint32_t i) { return 0xabc00000ull + i; }

static void batch_ring(struct test_sq *t, uint32_t template_flags, uint32_t start)
{
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;

	test_sq_setup(t, 8, 6, 2, IBV_QPT_RC, start, 1);
	t->sq.wrid = t->wrid;
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t->sq, IBV_WR_RDMA_WRITE,
		RKEY, LKEY, LEN, template_flags, 0), 0);
	assert_int_equal(mlx4dv_sq_batch_begin(&t->sq, &b, &tp, NWQE), 0);
	for (uint32_t i = 0; i < NWQE; i++)
		assert_int_equal(mlx4dv_sq_batch_write_flags(&b, 50 + i,
			raddr_of(i), laddr_of(i), wqe_flags[i]), 0);
	assert_int_equal(mlx4dv_sq_batch_end(&t->sq, &b), NWQE);
}

static void one_call_ring(struct test_sq *t, uint32_t template_flags,
			  uint32_t start)
{
	test_sq_setup(t, 8, 6, 2, IBV_QPT_RC, start, 1);
	t->sq.wrid = t->wrid;
	mlx4dv_sq_fast_path_init(&t->sq);
	for (uint32_t i = 0; i < NWQE; i++) {
		struct ibv_sge sg = { laddr_of(i), LEN, LKEY };

		assert_int_equal(mlx4dv_sq_write_rdma_write(&t->sq, 50 + i, RKEY, raddr_of(i), &sg,
			1, template_flags | wqe_flags[i]), 0);
	}
}

/* An unsignalled template; the flags of each WQE land in its bytes. */
static void test_flags_per_wqe(void **state)
{
	struct test_sq t, ref;

	(void)state;
	/* counts 5..10: the batch crosses the ring end (owner bit flips) */
	batch_ring(&t, 0, 5);
	one_call_ring(&ref, 0, 5);
	for (uint32_t i = 0; i < NWQE; i++) {
		const uint8_t *w = t.mem + (((5 + i) & 7) << 6);
		uint8_t fence = (wqe_flags[i] & IBV_SEND_FENCE) ? 0x40 : 0;
		uint8_t srcrb = (uint8_t)(((wqe_flags[i] & IBV_SEND_SIGNALED) ? 0x0c : 0) |
			((wqe_flags[i] & IBV_SEND_SOLICITED) ? 0x02 : 0));

		assert_int_equal(w[3], 0x08);			/* RDMA WRITE */
		assert_int_equal(w[0], ((5 + i) & 8) ? 0x80 : 0x00);
		assert_int_equal(w[7], fence | 3);
		assert_int_equal(w[11], srcrb);
		assert_int_equal(t.wrid[(5 + i) & 7], 50 + i);
	}
	expect_bytes(t.mem, ref.mem, t.size);
	assert_int_equal(t.sq.head, ref.sq.head);
	test_sq_teardown(&t);
	test_sq_teardown(&ref);
}

/* A WQE's flags add to the template's, never take away. */
static void test_flags_add_to_template(void **state)
{
	struct test_sq t, ref;

	(void)state;
	batch_ring(&t, IBV_SEND_SOLICITED, 0);
	one_call_ring(&ref, IBV_SEND_SOLICITED, 0);
	expect_bytes(t.mem, ref.mem, t.size);
	for (uint32_t i = 0; i < NWQE; i++)
		assert_true(t.mem[(i << 6) + 11] & 0x02);
	test_sq_teardown(&t);
	test_sq_teardown(&ref);
}

/* Other bits are refused with nothing written; the batch goes on. */
static void test_flags_refused(void **state)
{
	static const uint32_t bad[] = {
		IBV_SEND_INLINE, IBV_SEND_IP_CSUM, MLX4DV_SEND_STRONG_ORDER,
		MLX4DV_SEND_XRC_SRQN(5), IBV_SEND_SIGNALED | IBV_SEND_INLINE,
	};
	struct mlx4dv_sq_wqe_template tp;
	struct mlx4dv_sq_batch b;
	struct test_sq t;
	uint8_t *snap;

	(void)state;
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 0, 1);
	snap = (uint8_t *)malloc(t.size);
	assert_non_null(snap);
	memcpy(snap, t.mem, t.size);
	assert_int_equal(mlx4dv_sq_wqe_template_init(&tp, &t.sq, IBV_WR_SEND,
		0, LKEY, LEN, 0, 0), 0);
	assert_int_equal(mlx4dv_sq_batch_begin(&t.sq, &b, &tp, 1), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mlx4dv_sq_batch_write_flags(&b, 3, 2, 1, bad[i]),
				 EINVAL);
	expect_bytes(t.mem, snap, t.size);
	assert_int_equal(mlx4dv_sq_batch_write_flags(&b, 3, 2, 1, IBV_SEND_SIGNALED), 0);
	assert_int_equal(mlx4dv_sq_batch_write_flags(&b, 3, 2, 1, 0), ENOSPC);
	assert_int_equal(mlx4dv_sq_batch_end(&t.sq, &b), 1);
	assert_int_equal(t.mem[11], 0x0c);
	free(snap);
	test_sq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_per_wqe),
		cmocka_unit_test(test_flags_add_to_template),
		cmocka_unit_test(test_flags_refused),
	};

	t_run_group_tests_name("send_batch_flags", tests, NULL, NULL);
	return t_exit();
}
