// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * abi_table.c for C++: every entry of abi_list.h measured against
 * whichever <infiniband/mlx4dv.h> the include path finds first, built
 * twice (ABI_CXX_TABLE is abi_cxx_system_table or abi_cxx_ours_table).
 * C++ gives an enumerator the enumeration's type, whose promotion depends
 * on every value of the enumeration, so a constant kept as a macro in C
 * must be rdma-core's enumerator, in rdma-core's enumeration, in C++.
 */
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <infiniband/mlx4dv.h>
#include "abi_cxx_entry.h"

#define ABI_STRUCT(type)                                                     \
	{ #type, (long long)sizeof(type), (long long)alignof(type), 0, 0, 0 },
#define ABI_FIELD(type, member)                                              \
	{ #type "." #member, (long long)offsetof(type, member),              \
	  (long long)sizeof(((type *)nullptr)->member), 0, 0, 0 },
#define ABI_FLEX_FIELD(type, member)                                         \
	{ #type "." #member "[]", (long long)offsetof(type, member),          \
	  (long long)sizeof(((type *)nullptr)->member[0]), 0, 0, 0 },
#define ABI_CONST(name)                                                      \
	{ #name, (long long)(name), (long long)sizeof(name),                 \
	  std::is_enum<decltype(name)>::value, (int)sizeof(+(name)),         \
	  std::is_signed<decltype(+(name))>::value },

#define ABI_TABLE_LEN_(t) t##_len
#define ABI_TABLE_LEN(t) ABI_TABLE_LEN_(t)

extern "C" {
const struct abi_cxx_entry ABI_CXX_TABLE[] = {
#include "abi_list.h"
};
const size_t ABI_TABLE_LEN(ABI_CXX_TABLE) =
	sizeof(ABI_CXX_TABLE) / sizeof(ABI_CXX_TABLE[0]);
}
