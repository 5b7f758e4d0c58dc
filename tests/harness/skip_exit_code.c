// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Reports a cmocka skip() to ctest.  cmocka counts a skipped test as
 * neither passed nor failed and its run functions return only the number
 * of failures, so a binary whose every test skipped would exit 0 and ctest
 * would show it as passed.  Every test binary is linked with
 * -Wl,--wrap=_skip,--wrap=_cmocka_run_group_tests (tests/CMakeLists.txt):
 * the wrappers note a skip, and a run with no failure but a skip returns
 * MLX4DV_TEST_SKIP_EXIT_CODE, which ctest reports as "Skipped" through the
 * SKIP_RETURN_CODE property.  A failure always wins over a skip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* set by tests/CMakeLists.txt, which also gives it to ctest */
#ifndef MLX4DV_TEST_SKIP_EXIT_CODE
#error "MLX4DV_TEST_SKIP_EXIT_CODE is not defined"
#endif

void __real__skip(const char *const file, const int line);
int __real__cmocka_run_group_tests(const char *group_name,
				   const struct CMUnitTest *const tests,
				   const size_t num_tests,
				   CMFixtureFunction group_setup,
				   CMFixtureFunction group_teardown);

static unsigned skipped;

void __wrap__skip(const char *const file, const int line);
void __wrap__skip(const char *const file, const int line)
{
	skipped++;
	__real__skip(file, line);
}

int __wrap__cmocka_run_group_tests(const char *group_name,
				   const struct CMUnitTest *const tests,
				   const size_t num_tests,
				   CMFixtureFunction group_setup,
				   CMFixtureFunction group_teardown);
int __wrap__cmocka_run_group_tests(const char *group_name,
				   const struct CMUnitTest *const tests,
				   const size_t num_tests,
				   CMFixtureFunction group_setup,
				   CMFixtureFunction group_teardown)
{
	int failed = __real__cmocka_run_group_tests(group_name, tests, num_tests,
						    group_setup, group_teardown);

	if (failed != 0)
		/* never let a failure count read as the skip code */
		return failed == MLX4DV_TEST_SKIP_EXIT_CODE ? 1 : failed;
	if (skipped) {
		printf("%s: %u test(s) skipped: reported to ctest as skipped (exit %d)\n",
		       group_name, skipped, MLX4DV_TEST_SKIP_EXIT_CODE);
		fflush(stdout);
		return MLX4DV_TEST_SKIP_EXIT_CODE;
	}
	return 0;
}
