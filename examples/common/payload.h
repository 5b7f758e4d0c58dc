/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Payload patterns: every message carries bytes derived from a 64-bit tag
 * (for example the iteration number), so the receiver can tell a correct
 * message from a stale, shifted or truncated one.
 */
#ifndef MLX4DV_EXAMPLE_PAYLOAD_H
#define MLX4DV_EXAMPLE_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void ex_payload_fill(uint8_t *buf, size_t len, uint64_t tag);

/*
 * True when buf holds the pattern of tag. Otherwise prints the first
 * differing offset, expected and found byte (prefixed by what) to stderr
 * and returns false.
 */
bool ex_payload_check(const uint8_t *buf, size_t len, uint64_t tag,
		      const char *what);

#endif /* MLX4DV_EXAMPLE_PAYLOAD_H */
