// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The header's version macros, the library's run-time version and the
 * CMake project version (passed in as PROJECT_VERSION_*) are one number.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

static void header_macros_equal_project_version(void **state)
{
	(void)state;
	assert_int_equal(MLX4DV_VERSION_MAJOR, PROJECT_VERSION_MAJOR);
	assert_int_equal(MLX4DV_VERSION_MINOR, PROJECT_VERSION_MINOR);
	assert_int_equal(MLX4DV_VERSION_PATCH, PROJECT_VERSION_PATCH);
}

static void encode_packs_fields(void **state)
{
	(void)state;
	assert_int_equal(MLX4DV_VERSION_ENCODE(1, 2, 3), 0x010203);
	assert_int_equal(MLX4DV_VERSION_ENCODE(0, 255, 7), 0x00ff07);
	assert_int_equal(MLX4DV_VERSION,
			 (PROJECT_VERSION_MAJOR << 16) |
			 (PROJECT_VERSION_MINOR << 8) | PROJECT_VERSION_PATCH);
}

static void runtime_version_matches_header(void **state)
{
	(void)state;
	assert_int_equal(mlx4dv_version(), MLX4DV_VERSION);
}

static void version_string_matches_project(void **state)
{
	char want[32];

	(void)state;
	snprintf(want, sizeof(want), "%d.%d.%d", PROJECT_VERSION_MAJOR,
		 PROJECT_VERSION_MINOR, PROJECT_VERSION_PATCH);
	assert_non_null(mlx4dv_version_string());
	assert_string_equal(mlx4dv_version_string(), want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_macros_equal_project_version),
		cmocka_unit_test(encode_packs_fields),
		cmocka_unit_test(runtime_version_matches_header),
		cmocka_unit_test(version_string_matches_project),
	};

	t_run_group_tests_name("unit_version", tests, NULL, NULL);
	return t_exit();
}
