/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/byteorder.h> - host/big-endian conversions, named by direction.
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_BYTEORDER_H_
#define _MLX4DV_BYTEORDER_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/byteorder.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#include <infiniband/mlx4dv/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Byte-order helpers. glibc hides htobe32() and friends under
 * strict -std=c11, so the header carries its own, named by direction.
 */
static MLX4DV_ALWAYS_INLINE __be16
mlx4dv_cpu_to_be16(uint16_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be16)__builtin_bswap16(v);
#else
	return (__be16)v;
#endif
}

static MLX4DV_ALWAYS_INLINE __be32
mlx4dv_cpu_to_be32(uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be32)__builtin_bswap32(v);
#else
	return (__be32)v;
#endif
}

static MLX4DV_ALWAYS_INLINE __be64
mlx4dv_cpu_to_be64(uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (__be64)__builtin_bswap64(v);
#else
	return (__be64)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint16_t
mlx4dv_be16_to_cpu(__be16 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16((uint16_t)v);
#else
	return (uint16_t)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint32_t
mlx4dv_be32_to_cpu(__be32 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap32((uint32_t)v);
#else
	return (uint32_t)v;
#endif
}

static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_be64_to_cpu(__be64 v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64((uint64_t)v);
#else
	return (uint64_t)v;
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_BYTEORDER_H_ */
