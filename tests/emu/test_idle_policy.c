// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The engine's idle policy (emu/adapter/idle.c) on spell lengths chosen
 * around its windows: a spell the wire ended is quick under 50 us, one the
 * program ended under 5 ms, and the engine stays runnable while at least
 * 3 of the last 4 spells were quick.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "adapter/idle.h"
#include "test_exit.h"

#define WIRE true
#define LOCAL false

struct spell {
	uint64_t ns;
	bool by_wire;
};

static void record(struct emu_idle_history *h, const struct spell *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		emu_idle_record(h, s[i].ns, s[i].by_wire);
}

/* A new engine stays runnable, as one with only quick spells behind it. */
static void test_starts_runnable(void **state)
{
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	assert_true(emu_idle_stay_runnable(&h));
}

/* From the wire, 50 us is the first slow length; one slow spell in four
 * is tolerated, two are not. */
static void test_wire_window(void **state)
{
	static const struct spell one_slow[] = {
		{ EMU_IDLE_SPIN_NS - 1, WIRE }, { EMU_IDLE_SPIN_NS - 1, WIRE },
		{ EMU_IDLE_SPIN_NS - 1, WIRE }, { EMU_IDLE_SPIN_NS, WIRE },
	};
	static const struct spell two_slow[] = {
		{ 0, WIRE }, { EMU_IDLE_SPIN_NS, WIRE }, { 0, WIRE }, { EMU_IDLE_SPIN_NS, WIRE },
	};
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	record(&h, one_slow, 4);
	assert_true(emu_idle_stay_runnable(&h));
	record(&h, two_slow, 4);
	assert_false(emu_idle_stay_runnable(&h));
}

/* The program's own doorbells are quick up to 5 ms: a program that comes
 * back after 1 ms keeps its engine runnable; after 5 ms, not. */
static void test_local_window(void **state)
{
	static const struct spell ms[] = {
		{ 1000000, LOCAL }, { 1000000, LOCAL }, { EMU_IDLE_YIELD_NS - 1, LOCAL },
		{ EMU_IDLE_SPIN_NS, LOCAL },
	};
	static const struct spell slow[] = {
		{ EMU_IDLE_YIELD_NS, LOCAL }, { EMU_IDLE_YIELD_NS, LOCAL },
	};
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	record(&h, ms, 4);
	assert_true(emu_idle_stay_runnable(&h));
	record(&h, slow, 2);
	assert_false(emu_idle_stay_runnable(&h));
}

/* A ping-pong between two processes: the program's reply comes at once,
 * the peer's after the wire, 1 ms later: block. */
static void test_ping_pong_blocks(void **state)
{
	struct emu_idle_history h;

	(void)state;
	emu_idle_history_init(&h);
	for (int i = 0; i < 16; i++) {
		if (i & 1)
			emu_idle_record(&h, 1000000, WIRE);
		else
			emu_idle_record(&h, 2000, LOCAL);
		/* the first spells inherit the new engine's quick history */
		if (i >= 3)
			assert_false(emu_idle_stay_runnable(&h));
	}
}

/* Only the last four spells count: after slow ones, three quick spells
 * make the engine runnable again, and a long past does not linger. */
static void test_recovers(void **state)
{
	static const struct spell slow[] = {
		{ EMU_IDLE_SPIN_NS, WIRE }, { 5000000, WIRE }, { 1000000000ull, LOCAL },
		{ UINT64_MAX, LOCAL },
	};
	static const struct spell quick[] = { { 0, WIRE }, { 1000, LOCAL }, { 4000000, LOCAL } };
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
		cmocka_unit_test(test_wire_window),
		cmocka_unit_test(test_local_window),
		cmocka_unit_test(test_ping_pong_blocks),
		cmocka_unit_test(test_recovers),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
