// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "payload.h"

#include <stdio.h>

/* splitmix64: a cheap generator whose every output bit depends on the tag
 * and the position. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void ex_payload_fill(uint8_t *buf, size_t len, uint64_t tag)
{
	uint64_t word = 0;

	for (size_t i = 0; i < len; i++) {
		if (i % 8 == 0)
			word = mix(tag ^ ((uint64_t)(i / 8) << 20));
		buf[i] = (uint8_t)(word >> (8 * (i % 8)));
	}
}

bool ex_payload_check(const uint8_t *buf, size_t len, uint64_t tag,
		      const char *what)
{
	uint64_t word = 0;

	for (size_t i = 0; i < len; i++) {
		uint8_t want;

		if (i % 8 == 0)
			word = mix(tag ^ ((uint64_t)(i / 8) << 20));
		want = (uint8_t)(word >> (8 * (i % 8)));

		if (buf[i] != want) {
			fprintf(stderr,
				"%s: payload mismatch at byte %zu of %zu (tag %llu): expected 0x%02x, found 0x%02x\n",
				what, i, len, (unsigned long long)tag, want, buf[i]);
			return false;
		}
	}
	return true;
}
