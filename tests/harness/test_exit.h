/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The exit status of a test program, as ctest reads it: 0 every case
 * that ran passed, 1 a case failed, 77 nothing ran (SKIP_RETURN_CODE 77
 * in tests/CMakeLists.txt: ctest shows "Skipped").  A case that does not
 * apply where it runs says so with t_skip_case() and the others still
 * count: a program in which some cases passed and one did not apply
 * passes, and cmocka lists the skipped case with its reason.  A case that
 * never applies to a configuration is better not registered for it.
 *
 *	t_run_group_tests_name("unit_foo", tests, setup, teardown);
 *	return t_exit();
 */
#ifndef MLX4DV_TEST_EXIT_H
#define MLX4DV_TEST_EXIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#ifdef __cplusplus
extern "C" {
#endif

enum t_exit_status {
	T_EXIT_PASS = 0,
	T_EXIT_FAIL = 1,
	T_EXIT_SKIP = 77,
};

/* Runs n cases as one cmocka group and adds them to the program's
 * counts; the number of cases that failed. */
int t_run(const char *group, const struct CMUnitTest *tests, size_t n,
	  CMFixtureFunction setup, CMFixtureFunction teardown);

#define t_run_group_tests_name(group, tests, setup, teardown) \
	t_run(group, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)
#define t_run_group_tests(tests, setup, teardown) \
	t_run_group_tests_name(#tests, tests, setup, teardown)

/* Counts the running case as one that does not apply here and prints
 * why (printf format); t_skip_case() also ends the case (cmocka's
 * skip()). */
void t_note_skip(const char *fmt, ...)
#ifdef __GNUC__
	__attribute__((format(printf, 1, 2)))
#endif
	;
#define t_skip_case(...) do { t_note_skip(__VA_ARGS__); skip(); } while (0)

/* T_EXIT_FAIL when a case failed, T_EXIT_SKIP when every case run by
 * t_run() was skipped (or none was registered), T_EXIT_PASS otherwise. */
int t_exit(void);

#ifdef __cplusplus
}
#endif

#endif
