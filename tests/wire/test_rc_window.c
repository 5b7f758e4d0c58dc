// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The RC requester's window (emu/transport/rc_window.h): the sizes after
 * each acknowledgement and loss, worked out by hand from the rule (start
 * 256; +64 for each window's worth acknowledged; halved at a loss, at
 * least 64; at most 1024).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "transport/rc_window.h"
#include "test_exit.h"

static void test_starts_at_256(void **state)
{
	struct rc_window w;

	(void)state;
	rc_window_init(&w);
	assert_int_equal(w.size, 256);
}

static void test_grows_by_64_per_window_acknowledged(void **state)
{
	struct rc_window w;

	(void)state;
	rc_window_init(&w);
	rc_window_acked(&w, 255);
	assert_int_equal(w.size, 256);
	rc_window_acked(&w, 1);
	assert_int_equal(w.size, 320);
	/* 320 more make the next step; the rest is kept toward the one after */
	rc_window_acked(&w, 400);
	assert_int_equal(w.size, 384);
	rc_window_acked(&w, 303);
	assert_int_equal(w.size, 384);
	rc_window_acked(&w, 1);
	assert_int_equal(w.size, 448);
}

static void test_one_large_acknowledgement_takes_several_steps(void **state)
{
	struct rc_window w;

	(void)state;
	rc_window_init(&w);
	/* 256 + 320 + 384 = 960 PSNs: three steps */
	rc_window_acked(&w, 960);
	assert_int_equal(w.size, 448);
}

static void test_stops_at_1024(void **state)
{
	struct rc_window w;

	(void)state;
	rc_window_init(&w);
	for (int i = 0; i < 100; i++)
		rc_window_acked(&w, 1000);
	assert_int_equal(w.size, 1024);
	rc_window_acked(&w, 1u << 20);
	assert_int_equal(w.size, 1024);
}

static void test_a_loss_halves_down_to_64(void **state)
{
	struct rc_window w;

	(void)state;
	rc_window_init(&w);
	rc_window_loss(&w);
	assert_int_equal(w.size, 128);
	rc_window_loss(&w);
	assert_int_equal(w.size, 64);
	rc_window_loss(&w);
	assert_int_equal(w.size, 64);
	/* growth starts over from the loss: 64 acknowledged make 128 */
	rc_window_acked(&w, 63);
	assert_int_equal(w.size, 64);
	rc_window_acked(&w, 1);
	assert_int_equal(w.size, 128);
}

static void test_a_loss_forgets_the_partial_window(void **state)
{
	struct rc_window w;

	(void)state;
	rc_window_init(&w);
	rc_window_acked(&w, 200);
	rc_window_loss(&w);
	assert_int_equal(w.size, 128);
	rc_window_acked(&w, 127);
	assert_int_equal(w.size, 128);
	rc_window_acked(&w, 1);
	assert_int_equal(w.size, 192);
}

static void test_halves_from_the_top(void **state)
{
	struct rc_window w;

	(void)state;
	rc_window_init(&w);
	rc_window_acked(&w, 1u << 20);
	rc_window_loss(&w);
	assert_int_equal(w.size, 512);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts_at_256),
		cmocka_unit_test(test_grows_by_64_per_window_acknowledged),
		cmocka_unit_test(test_one_large_acknowledgement_takes_several_steps),
		cmocka_unit_test(test_stops_at_1024),
		cmocka_unit_test(test_a_loss_halves_down_to_64),
		cmocka_unit_test(test_a_loss_forgets_the_partial_window),
		cmocka_unit_test(test_halves_from_the_top),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
