/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Payload patterns: every round writes fresh bytes (the lane's stamp, the
 * slot number and the word number) into the source slots, so a check after
 * the device ran catches data that was not moved, moved to the wrong slot,
 * or left over from an earlier round.
 */
#include "bench.h"
#include "bench_cases.h"

#include <string.h>

static uint64_t pattern_word(uint64_t stamp, uint32_t slot, uint32_t word)
{
	return stamp ^ ((uint64_t)slot << 16) ^ ((uint64_t)word * 0x0101010101010101ull);
}

void bench_fill_src(struct bench_lane *l, uint32_t n, uint32_t bytes)
{
	l->stamp++;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *slot = l->src + (size_t)i * BENCH_SLOT;

		for (uint32_t w = 0; w * 8 < bytes; w++) {
			uint64_t v = pattern_word(l->stamp, i, w);

			memcpy(slot + w * 8, &v, 8);
		}
	}
}

void bench_expect_slots(const char *path, const struct bench_lane *l,
			const uint8_t *got, uint32_t skip, uint32_t n,
			uint32_t bytes, const char *what)
{
	uint32_t bad = 0;

	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *want = l->src + (size_t)i * BENCH_SLOT;

		if (memcmp(got + (size_t)i * BENCH_SLOT + skip, want, bytes))
			bad++;
	}
	if (bad)
		bench_fail("%s, %s: %u of %u payloads differ", path, what, bad, n);
}
