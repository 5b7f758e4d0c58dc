// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The tests of misc_*.c, one file per topic: CQ resize with completions
 * pending, the SQD state and its drained event, masked atomics posted by
 * hand (libmlx4 has no verb for them), and QP kinds the device refuses.
 */
#include "misc.h"
#include "test_exit.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resize_cq),
		cmocka_unit_test(test_sqd),
		cmocka_unit_test(test_masked_atomics),
		cmocka_unit_test(test_refused_qps),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}

