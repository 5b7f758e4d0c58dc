// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The engine's idle policy (emu/adapter/idle.c) on spell lengths chosen
 * around its spin window: it stays runnable while at least 3 of the last
 * 4 idle spells were shorter than 50 us, and blocks at once otherwise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "adapter/idle.h"

#define QUICK (EMU_IDLE_SPIN_NS - 1)
#define SLOW EMU_IDLE_SPIN_NS

static void record(struct emu_idle_history *h, const uint64_t *spells, size_t n)
{
	for (size_t i = 0; i < n; i++)
		emu_idle_record(h, spells[i]);
}

/* A new engine spins, as one with only quick spells behind it. */
static void test_starts_runnable(void **state)
{
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	assert_true(emu_idle_stay_runnable(&h));
}

/* 50 us is the first slow length; one slow spell in four is tolerated,
 * two are not. */
static void test_window_edge(void **state)
{
	static const uint64_t one_slow[] = { QUICK, QUICK, QUICK, SLOW };
	static const uint64_t two_slow[] = { QUICK, SLOW, QUICK, SLOW };
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	record(&h, one_slow, 4);
	assert_true(emu_idle_stay_runnable(&h));
	record(&h, two_slow, 4);
	assert_false(emu_idle_stay_runnable(&h));
}

/* A ping-pong between two processes: the program's reply comes at once,
 * the peer's after the wire (alternating quick and slow): block. */
static void test_alternating_blocks(void **state)
{
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	for (int i = 0; i < 16; i++) {
		emu_idle_record(&h, (i & 1) ? 1000000 : 2000);
		/* the first spells inherit the new engine's quick history */
		if (i >= 3)
			assert_false(emu_idle_stay_runnable(&h));
	}
}

/* Only the last four spells count: after slow ones, three quick spells
 * make the engine spin again, and a long past does not linger. */
static void test_recovers(void **state)
{
	static const uint64_t slow[] = { SLOW, 5000000, 1000000000ull, UINT64_MAX };
	static const uint64_t quick[] = { 0, 1000, QUICK };
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	record(&h, slow, 4);
	assert_false(emu_idle_stay_runnable(&h));
	record(&h, quick, 2);
	assert_false(emu_idle_stay_runnable(&h));
	record(&h, quick + 2, 1);
	assert_true(emu_idle_stay_runnable(&h));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_starts_runnable),
		cmocka_unit_test(test_window_edge),
		cmocka_unit_test(test_alternating_blocks),
		cmocka_unit_test(test_recovers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
