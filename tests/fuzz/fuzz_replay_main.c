// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Driver for building a fuzz target without libFuzzer (gcc, ctest): runs
 * the files named on the command line (crash reproducers, corpus entries),
 * then `--random N` deterministic pseudo-random inputs, the same every
 * run. libFuzzer builds use its own main instead.
 *
 * A target whose interesting inputs random bytes rarely hit links a
 * fuzz_replay_shape() of its own (fuzz_replay.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Without a target's own: inputs as drawn. */
__attribute__((weak)) size_t fuzz_replay_shape(uint8_t *buf, size_t len,
						unsigned long i)
{
	(void)buf;
	(void)i;
	return len;
}

static int run_file(const char *path)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 0, i;
	uint32_t x = 0x9e3779b9u;
	static uint8_t buf[FUZZ_REPLAY_MAX_INPUT];
	int a, rc = 0, files = 0;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--random") && a + 1 < argc)
			n = strtoul(argv[++a], NULL, 0);
		else {
			rc |= run_file(argv[a]);
			files++;
		}
	}
	for (i = 0; i < n; i++) {
		size_t len = 1 + (i * 37) % sizeof(buf), k;

		for (k = 0; k < len; k++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			buf[k] = (uint8_t)x;
		}
		len = fuzz_replay_shape(buf, len, i);
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("%lu random inputs, %d files: no failure\n", n, files);
	return rc;
}
