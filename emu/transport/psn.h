/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Packet sequence numbers: 24 bits, compared modulo 2^24 (IBTA Vol. 1 9.4.1). */
#ifndef MLX4EMU_TRANSPORT_PSN_H
#define MLX4EMU_TRANSPORT_PSN_H

#include <stdint.h>

#define EMU_PSN_MASK 0xffffffu

static inline uint32_t emu_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & EMU_PSN_MASK;
}

/* a - b as a signed distance in (-2^23, 2^23]: > 0 when a is later. */
static inline int32_t emu_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif
