/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mlx4dv_sq_ring_bf() seen from the BlueFlame register (a second look
 * next to test_send_ring.c): word 1 of the control segment gets the
 * doorbell QPN OR-ed in, keeping the fence bit and ds of byte 7; word 0
 * gets the 16-bit WQE counter in bytes 1..2 across the counter's wrap; the
 * copies alternate between the register's two buffers from whichever one
 * the handle starts at, and the other buffer keeps the previous WQE.
 *
 * The WQEs are fenced, unsignaled inline RDMA writes of 12 bytes (ds 3:
 * control, remote address, inline header and data); the control words:
 *   0..3   owner | counter << 8 | opcode 0x08 (RDMA write)
 *   4..7   QPN 0x123456 | fence 0x40 | ds 3
 */
#include "send_test_util.h"
#include "test_exit.h"

enum { BUF = 512 };

static void post_one(struct test_sq *t, uint32_t want_counter)
{
	static const uint8_t w1[4] = { 0x12, 0x34, 0x56, 0x43 }; /* fence | ds 3 */
	uint8_t data[12];
	uint32_t at = t->sq.head, off = t->sq.bf_offset;
	uint8_t *ring = t->mem + ((at & (t->sq.wqe_cnt - 1)) << t->sq.wqe_shift);
	uint8_t w0[4];

	fill_pattern(data, at, sizeof(data));
	assert_int_equal(mlx4dv_sq_write_rdma_write_inline(&t->sq, 0, 0x77, 0x1000, data,
						     12, IBV_SEND_FENCE), 0);
	assert_int_equal(mlx4dv_sq_ring_bf(&t->sq, at), 1);
	/* owner bit of the lap, the counter, RDMA write */
	w0[0] = (at & t->sq.wqe_cnt) ? 0x80 : 0x00;
	w0[1] = (uint8_t)(want_counter >> 8);
	w0[2] = (uint8_t)want_counter;
	w0[3] = 0x08;
	expect_bytes(ring, w0, 4);
	expect_bytes(ring + 4, w1, 4);
	/* the register holds the ring's WQE, in the buffer the handle was at */
	expect_bytes(t->bf + off, ring, 48);
	assert_int_equal(t->sq.bf_offset, off ^ BUF);
}

static void test_word1_counter_and_toggle(void **state)
{
	static const uint8_t dbq[4] = { 0x12, 0x34, 0x56, 0x00 };
	struct test_sq t;
	uint8_t other[48];

	(void)state;
	/* the counter's 16 bits wrap between the second and third WQE */
	test_sq_setup(&t, 8, 6, 2, IBV_QPT_RC, 0x1fffe, 1);
	test_sq_enable_bf(&t, BUF);
	t.sq.qpn = 0x123456;
	memcpy(&t.sq.doorbell_qpn, dbq, 4);
	t.sq.bf_offset = BUF;		/* start in the second buffer */

	post_one(&t, 0xfffe);		/* to BUF */
	post_one(&t, 0xffff);		/* to 0 */
	memcpy(other, t.bf + BUF, sizeof(other));
	post_one(&t, 0x0000);		/* to BUF again */
	/* buffer 0 still holds the second WQE, counter 0xffff */
	assert_int_equal(t.bf[1], 0xff);
	assert_int_equal(t.bf[2], 0xff);
	assert_memory_not_equal(other, t.bf + BUF, sizeof(other));
	post_one(&t, 0x0001);		/* to 0 */
	post_one(&t, 0x0002);		/* to BUF */
	test_sq_teardown(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_word1_counter_and_toggle),
	};

	t_run_group_tests_name("send_blueflame_copy", tests, NULL, NULL);
	return t_exit();
}
