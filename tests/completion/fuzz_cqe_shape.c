/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Generated inputs of the fuzz_cqe.c replay: no longer than its layout
 * (header, sixteen 64-byte CQEs, four 32-byte SRQ WQEs), and every other
 * one a ring whose owner bits say "software owns lap 0" with a consumer
 * index near a wrap, so that many CQEs are polled rather than skipped.
 */
#include "fuzz_replay.h"

enum { HEADER = 28, CQE_STRIDE = 32, INPUT_MAX = 28 + 16 * 64 + 4 * 32 };

size_t fuzz_replay_shape(uint8_t *buf, size_t len, unsigned long i)
{
	len = 1 + len % INPUT_MAX;
	if (!(i & 1))
		return len;
	/* byte 31 of each 32-byte CQE holds the owner bit (bit 7) */
	for (size_t j = HEADER + CQE_STRIDE - 1; j < len; j += CQE_STRIDE)
		buf[j] &= 0x7f;
	if (len > 4) {
		buf[1] = buf[2] = buf[3] = 0;
		buf[4] &= 3;
	}
	return len;
}
