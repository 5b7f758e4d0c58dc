/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * ABI identity with rdma-core: every struct (size, alignment), field
 * (offset, size) and constant (value, size, signedness) of rdma-core's
 * <infiniband/mlx4dv.h> measured in one translation unit built against the
 * system header and one built against ours, compared entry by entry.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "abi_entry.h"
#include "test_exit.h"

static void test_tables_have_same_entries(void **state)
{
	(void)state;
	assert_int_equal(abi_system_table_len, abi_ours_table_len);
	/* The list covers at least every struct and constant it names. */
	assert_true(abi_ours_table_len > 200);
}

static void test_every_entry_matches(void **state)
{
	size_t i, mismatches = 0;

	(void)state;
	for (i = 0; i < abi_system_table_len && i < abi_ours_table_len; i++) {
		const struct abi_entry *sys = &abi_system_table[i];
		const struct abi_entry *our = &abi_ours_table[i];

		assert_string_equal(sys->name, our->name);
		if (sys->first != our->first || sys->second != our->second ||
		    sys->is_signed != our->is_signed) {
			print_error("ABI mismatch: %s: rdma-core (%lld, %lld, %s) "
				    "ours (%lld, %lld, %s)\n", sys->name,
				    sys->first, sys->second,
				    sys->is_signed ? "signed" : "unsigned",
				    our->first, our->second,
				    our->is_signed ? "signed" : "unsigned");
			mismatches++;
		}
	}
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_have_same_entries),
		cmocka_unit_test(test_every_entry_matches),
	};

	t_run_group_tests_name("abi", tests, NULL, NULL);
	return t_exit();
}
