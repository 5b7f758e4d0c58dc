// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ABI identity with rdma-core as a C++ program sees it: every struct,
 * field and constant of abi_list.h measured in a C++ translation unit
 * built against the system header and one built against ours. Constants
 * also by kind (enumerator or not) and by the size and signedness of the
 * type they promote to, which decides the type of expressions such as
 * `v & ~(MLX4_INLINE_ALIGN - 1)`.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "abi_cxx_entry.h"
#include "test_exit.h"

static int entry_differs(const struct abi_cxx_entry *a,
			 const struct abi_cxx_entry *b)
{
	return a->first != b->first || a->second != b->second ||
	       a->is_enum != b->is_enum || a->promoted_size != b->promoted_size ||
	       a->promoted_signed != b->promoted_signed;
}

static void test_cxx_every_entry_matches(void **state)
{
	size_t i, mismatches = 0;

	(void)state;
	assert_int_equal(abi_cxx_system_table_len, abi_cxx_ours_table_len);
	assert_true(abi_cxx_ours_table_len > 200);
	for (i = 0; i < abi_cxx_system_table_len; i++) {
		const struct abi_cxx_entry *sys = &abi_cxx_system_table[i];
		const struct abi_cxx_entry *our = &abi_cxx_ours_table[i];

		assert_string_equal(sys->name, our->name);
		if (!entry_differs(sys, our))
			continue;
		print_error("C++ ABI mismatch: %s: rdma-core (%lld, %lld, %s, "
			    "promotes to %d-byte %s) ours (%lld, %lld, %s, "
			    "promotes to %d-byte %s)\n", sys->name,
			    sys->first, sys->second,
			    sys->is_enum ? "enumerator" : "not an enumerator",
			    sys->promoted_size,
			    sys->promoted_signed ? "signed" : "unsigned",
			    our->first, our->second,
			    our->is_enum ? "enumerator" : "not an enumerator",
			    our->promoted_size,
			    our->promoted_signed ? "signed" : "unsigned");
		mismatches++;
	}
	assert_int_equal(mismatches, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx_every_entry_matches),
	};

	t_run_group_tests_name("abi_cxx", tests, NULL, NULL);
	return t_exit();
}
