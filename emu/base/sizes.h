/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The power-of-two rounding libmlx4 applies to queue sizes and strides
 * (roundup_pow_of_two and its log), which the command handlers and the
 * adapter redo to agree with its arithmetic.
 */
#ifndef MLX4EMU_SIZES_H
#define MLX4EMU_SIZES_H

#include <stdint.h>

/* The smallest power of two >= x (1 for x <= 1). */
static inline uint32_t emu_pow2_roundup(uint32_t x)
{
	uint32_t n = 1;

	while (n < x)
		n <<= 1;
	return n;
}

/* log2 of emu_pow2_roundup(x). */
static inline uint32_t emu_log2_roundup(uint32_t x)
{
	uint32_t s = 0;

	while ((1u << s) < x)
		s++;
	return s;
}

#endif
