/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef MLX4DV_TESTS_ABI_CXX_ENTRY_H
#define MLX4DV_TESTS_ABI_CXX_ENTRY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One fact about the header as C++ sees it. Structs and fields as in C;
 * a constant by its value, its own size, whether it is an enumerator,
 * and the size and signedness of the type it promotes to (the type of
 * MLX4_INLINE_ALIGN - 1, of ~MLX4_WQE_MW_REMOTE_READ).
 */
struct abi_cxx_entry {
	const char *name;
	long long first;	/* struct: size;  field: offset;  const: value */
	long long second;	/* struct: align; field: size;    const: size */
	int is_enum;		/* const only */
	int promoted_size;	/* const only */
	int promoted_signed;	/* const only */
};

extern const struct abi_cxx_entry abi_cxx_system_table[];
extern const size_t abi_cxx_system_table_len;
extern const struct abi_cxx_entry abi_cxx_ours_table[];
extern const size_t abi_cxx_ours_table_len;

#ifdef __cplusplus
}
#endif

#endif
