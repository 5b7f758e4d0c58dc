/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The kernel's uverbs and mlx4 ABI headers and libibverbs' enums (event
 * types, access flags, flow attributes): the adapter speaks in their
 * values, as the kernel driver does.
 */
#ifndef MLX4EMU_ABI_H
#define MLX4EMU_ABI_H

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <rdma/ib_user_verbs.h>
#include <rdma/mlx4-abi.h>
#include <infiniband/verbs.h>
#pragma GCC diagnostic pop

#endif
