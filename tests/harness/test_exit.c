// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* A test program's exit status from its cases (see test_exit.h). */
#include "test_exit.h"

#include <stdio.h>

static size_t cases_run, cases_failed, cases_skipped;

int t_run(const char *group, const struct CMUnitTest *tests, size_t n,
	  CMFixtureFunction setup, CMFixtureFunction teardown)
{
	int failed = _cmocka_run_group_tests(group, tests, n, setup, teardown);

	cases_run += n;
	/* a failed group set-up is reported as a failure count too */
	cases_failed += failed > 0 ? (size_t)failed : 0;
	return failed;
}

void t_note_skip(const char *fmt, ...)
{
	va_list ap;

	cases_skipped++;
	fputs("does not apply here: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

int t_exit(void)
{
	if (cases_failed)
		return T_EXIT_FAIL;
	if (cases_skipped >= cases_run) {
		printf("none of %zu case(s) applies here: reported as skipped (exit %d)\n",
		       cases_run, T_EXIT_SKIP);
		return T_EXIT_SKIP;
	}
	if (cases_skipped)
		printf("%zu of %zu case(s) passed, %zu did not apply here\n",
		       cases_run - cases_skipped, cases_run, cases_skipped);
	return T_EXIT_PASS;
}
