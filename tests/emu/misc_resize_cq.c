// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* CQ resize with completions pending. */
#include "misc.h"

void test_resize_cq(void **state)
{
	struct emu_pair p;
	struct ibv_wc wc[64];
	uint64_t next = 0;

	(void)state;
	emu_pair_open(&p, 32, 16, 7, 8192, MISC_ACCESS);	/* 8 entries */
	/* move the consumer index into the second lap first */
	for (int r = 0; r < 3; r++) {
		emu_pair_post_writes(&p, next, 5);
		assert_int_equal(emu_poll(p.a.scq, wc, 5), 5);
		for (int i = 0; i < 5; i++)
			assert_int_equal(wc[i].wr_id, next++);
	}
	/* three completions pending across the resize */
	emu_pair_post_writes(&p, next, 3);
	emu_idle(&p.e);
	assert_int_equal(ibv_resize_cq(p.a.scq, 40), 0);
	assert_int_equal(p.a.scq->cqe, 63);
	emu_pair_post_writes(&p, next + 3, 20);
	assert_int_equal(emu_poll(p.a.scq, wc, 23), 23);
	for (int i = 0; i < 23; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[i].wr_id, next++);
	}
	/* consume up to the end of the new buffer's first lap: the entries
	 * the next lap uses must still read as empty */
	while (next < 64 + 15 - 1) {
		int n = (int)(64 + 15 - 1 - next) < 16 ? (int)(64 + 15 - 1 - next) : 16;

		emu_pair_post_writes(&p, next, n);
		assert_int_equal(emu_poll(p.a.scq, wc, n), n);
		for (int i = 0; i < n; i++)
			assert_int_equal(wc[i].wr_id, next++);
	}
	emu_assert_cq_empty(&p.e, p.a.scq);
	/* and smaller again */
	assert_int_equal(ibv_resize_cq(p.a.scq, 10), 0);
	for (int r = 0; r < 6; r++) {
		emu_pair_post_writes(&p, next, 10);
		assert_int_equal(emu_poll(p.a.scq, wc, 10), 10);
		for (int i = 0; i < 10; i++)
			assert_int_equal(wc[i].wr_id, next++);
		emu_assert_cq_empty(&p.e, p.a.scq);
	}
	emu_pair_close(&p);
}
