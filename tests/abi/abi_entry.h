/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef MLX4DV_TESTS_ABI_ENTRY_H
#define MLX4DV_TESTS_ABI_ENTRY_H

#include <stddef.h>

/* One measured fact about the header: a struct, a field or a constant. */
struct abi_entry {
	const char *name;
	long long first;	/* struct: size;  field: offset;  const: value */
	long long second;	/* struct: align; field: size;    const: size */
	int is_signed;		/* const only */
};

extern const struct abi_entry abi_system_table[];
extern const size_t abi_system_table_len;
extern const struct abi_entry abi_ours_table[];
extern const size_t abi_ours_table_len;

#endif
