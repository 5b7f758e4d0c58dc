/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Runs the libFuzzer target fuzz_cqe.c without libFuzzer, so every build
 * (and the sanitizer build) exercises it: a fixed set of inputs from a
 * xorshift generator (same inputs every run), shaped so that many CQEs are
 * software-owned, then every file named on the command line (a crash
 * reproducer or corpus entry from a fuzzing run).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int replay_file(const char *path)
{
	static uint8_t buf[1 << 16];
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
	uint8_t buf[28 + 16 * 64 + 4 * 32];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int i, rc = 0;

	for (i = 0; i < 4000; i++) {
		size_t len = (size_t)(xorshift64(&seed) % sizeof(buf)) + 1;
		size_t j;

		for (j = 0; j < len; j++)
			buf[j] = (uint8_t)xorshift64(&seed);
		/* Half the time a ring whose owner bits say "software owns
		 * lap 0" and whose counters sit near a wrap. */
		if (i & 1) {
			for (j = 28 + 31; j < len; j += 32)
				buf[j] &= 0x7f;
			if (len > 4)
				buf[1] = buf[2] = buf[3] = 0, buf[4] &= 3;
		}
		LLVMFuzzerTestOneInput(buf, len);
	}
	for (i = 1; i < argc; i++)
		rc |= replay_file(argv[i]);
	printf("fuzz_cqe replay: 4000 generated inputs, %d file(s)\n", argc - 1);
	return rc;
}
