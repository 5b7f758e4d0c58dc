/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Reading a fuzzer's byte string as a sequence of small choices. */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_input {
	const uint8_t *p;
	size_t left;
};

/* Next n bytes as a little-endian number; zeros once the input is used up. */
static inline uint32_t fuzz_take(struct fuzz_input *in, unsigned n)
{
	uint32_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		uint32_t b = 0;

		if (in->left) {
			b = *in->p++;
			in->left--;
		}
		v |= b << (8 * i);
	}
	return v;
}

#endif
