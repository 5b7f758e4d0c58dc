/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Measures every entry of abi_list.h against whichever <infiniband/mlx4dv.h>
 * the include path finds first. Built twice: ABI_TABLE is abi_system_table
 * (rdma-core's header) or abi_ours_table (this project's header).
 */
#include <stdalign.h>
#include <stdint.h>
#include <infiniband/mlx4dv.h>
#include "abi_entry.h"

#define ABI_MEMBER(type, member) (((type *)0)->member)
#define ABI_STRUCT(type) { #type, (long long)sizeof(type), (long long)alignof(type), 0 },
#define ABI_FIELD(type, member)                                              \
	{ #type "." #member, (long long)offsetof(type, member),              \
	  (long long)sizeof(ABI_MEMBER(type, member)), 0 },
#define ABI_FLEX_FIELD(type, member)                                         \
	{ #type "." #member "[]", (long long)offsetof(type, member),          \
	  (long long)sizeof(ABI_MEMBER(type, member)[0]), 0 },
#define ABI_CONST(name)                                                      \
	{ #name, (long long)(name), (long long)sizeof(name),                 \
	  !((__typeof__(name))-1 > 0) },

#define ABI_TABLE_LEN_(t) t##_len
#define ABI_TABLE_LEN(t) ABI_TABLE_LEN_(t)

const struct abi_entry ABI_TABLE[] = {
#include "abi_list.h"
};
const size_t ABI_TABLE_LEN(ABI_TABLE) = sizeof(ABI_TABLE) / sizeof(ABI_TABLE[0]);

/* The prototypes must keep their exact types so that programs link against
 * libmlx4 and call the inline builders as before. */
#define ABI_SAME_TYPE(fn, type)                                              \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&fn), type),  \
		       #fn " changed its prototype")

ABI_SAME_TYPE(mlx4dv_init_obj, int (*)(struct mlx4dv_obj *, uint64_t));
ABI_SAME_TYPE(mlx4dv_query_device,
	      int (*)(struct ibv_context *, struct mlx4dv_context *));
ABI_SAME_TYPE(mlx4dv_create_qp,
	      struct ibv_qp *(*)(struct ibv_context *, struct ibv_qp_init_attr_ex *,
				 struct mlx4dv_qp_init_attr *));
ABI_SAME_TYPE(mlx4dv_set_context_attr,
	      int (*)(struct ibv_context *, enum mlx4dv_set_ctx_attr_type, void *));
ABI_SAME_TYPE(mlx4dv_get_cqe_owner, uint8_t (*)(struct mlx4_cqe *));
ABI_SAME_TYPE(mlx4dv_set_cqe_owner, void (*)(struct mlx4_cqe *, uint8_t));
ABI_SAME_TYPE(mlx4dv_get_cqe_opcode, uint8_t (*)(struct mlx4_cqe *));
ABI_SAME_TYPE(mlx4dv_set_ctrl_seg,
	      void (*)(struct mlx4_wqe_ctrl_seg *, uint32_t, uint8_t, uint32_t, uint32_t));
ABI_SAME_TYPE(mlx4dv_set_dgram_seg,
	      void (*)(struct mlx4_wqe_datagram_seg *, uint32_t, uint8_t, uint16_t,
		       uint8_t, uint8_t, uint8_t, uint32_t, uint8_t *, uint32_t,
		       uint32_t, uint16_t, uint8_t *));
ABI_SAME_TYPE(mlx4dv_set_data_seg,
	      void (*)(struct mlx4_wqe_data_seg *, uint32_t, uint32_t, uintptr_t));
