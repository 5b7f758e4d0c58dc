// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * An exact and safe device:
 *  - doorbells: valid WQEs nobody announced are not executed (and, with
 *    debug on, named: "no doorbell"); doorbells of 64 QPs rung from four
 *    threads in random order lose nothing;
 *  - ordering: work posted before a verbs command has run when the
 *    command acts (resize refused, modify to ERR after the writes);
 *  - QP states: sends wait until RTS;
 *  - memory the program takes away (MR pages, the SQ and RQ rings, the CQ
 *    buffer, libmlx4's shared pages of RQ and CQ doorbell records) gives
 *    errors and async events, never a signal;
 *  - the raw mmap system call maps the device's own pages.
 * WQEs are written by hand at the positions mlx4dv_init_obj gives
 * (rdma-core's <infiniband/mlx4dv.h>, PRM layouts).
 */
#include "exact.h"

int main(void)
{
	/* only with doorbells trapped (not under --doorbell=poll) */
	const struct CMUnitTest trapped_doorbells[] = {
		cmocka_unit_test(test_forgotten_doorbell),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doorbells_many_threads),
		cmocka_unit_test(test_resize_after_sends),
		cmocka_unit_test(test_modify_after_writes),
		cmocka_unit_test(test_send_held_until_rts),
		cmocka_unit_test(test_unmapped_mr),
		cmocka_unit_test(test_unmapped_cq_buffer),
		cmocka_unit_test(test_unmapped_send_ring),
		cmocka_unit_test(test_unmapped_recv_ring),
		cmocka_unit_test(test_unmapped_rq_doorbell_page),
		cmocka_unit_test(test_unmapped_cq_doorbell_page),
		cmocka_unit_test(test_raw_mmap),
	};

	if (doorbells_trapped())
		t_run_group_tests(trapped_doorbells, NULL, NULL);
	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}

