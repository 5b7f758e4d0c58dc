// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fuzz target: the software ConnectX-3's command parser, reached the way
 * libibverbs reaches it: write() of a uverbs command frame to the device's
 * command fd. Runs under mlx4emu-run (the preload answers the write).
 *
 * The first input byte steers the frame so that the mutations get past the
 * length checks often enough: bit 0 makes in_words agree with the length
 * (legacy frames) or the extended header's words agree (extended frames);
 * bit 1 points the response at a scratch buffer that is really mapped;
 * bit 2 sets the extended flag; bits 3..7 pick the command number. The
 * rest is the frame body.
 *
 * Every write must return the frame length or -1 with an errno of the
 * documented set; anything else, or a crash, is a finding.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fuzz_input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAME 4096

static struct ibv_context *ctx;
static unsigned long accepted, refused[256];

/* FUZZ_UVERBS_STATS=1: how the frames fared, at exit. */
static void print_stats(void)
{
	int e;

	fprintf(stderr, "fuzz_uverbs_frames: %lu frames accepted\n", accepted);
	for (e = 0; e < 256; e++)
		if (refused[e])
			fprintf(stderr, "  %lu refused with %s\n", refused[e], strerror(e));
}
static uint64_t scratch[8192];	/* responses land here */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ibv_device **list;
	int n = 0;

	(void)argc;
	(void)argv;
	list = ibv_get_device_list(&n);
	if (!list || n < 1 || !(ctx = ibv_open_device(list[0]))) {
		fprintf(stderr, "fuzz_uverbs_frames: no device; run under mlx4emu-run\n");
		exit(2);
	}
	ibv_free_device_list(list);
	if (getenv("FUZZ_UVERBS_STATS"))
		atexit(print_stats);
	return 0;
}

static int errno_expected(int e)
{
	switch (e) {
	case EINVAL: case EOPNOTSUPP: case ENOSPC: case EFAULT: case ENOMEM:
	case ENOENT: case EBUSY: case ENOSYS: case ERANGE: case EPERM:
	case EEXIST: case EAGAIN: case EMFILE: case EACCES: case E2BIG:
	case EPROTONOSUPPORT: case ENODEV: case EIO:
		return 1;
	default:
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	uint8_t frame[MAX_FRAME + 16];
	uint32_t steer = fuzz_take(&in, 1), cmd;
	size_t len = in.left > MAX_FRAME ? MAX_FRAME : in.left;
	uint64_t resp = (uintptr_t)scratch;
	ssize_t ret;

	if (!ctx)
		LLVMFuzzerInitialize(NULL, NULL);
	if (len < 8)
		len = 8;
	memset(frame, 0, sizeof(frame));
	memcpy(frame, in.p, in.left < len ? in.left : len);
	cmd = (steer >> 3) & 0x1f;
	if (steer & 4)
		cmd |= 0x80000000u;	/* IB_USER_VERBS_CMD_FLAG_EXTENDED */
	if (!(steer & 0x40))
		memcpy(frame, &cmd, 4);
	if (steer & 1) {
		if (cmd & 0x80000000u) {
			/* 8-byte header, 16-byte extended header {response,
			 * provider_in_words, provider_out_words, reserved},
			 * then in_words * 8 bytes of core request */
			uint16_t words = (uint16_t)((len > 24 ? len - 24 : 0) / 8);

			len = 24 + (size_t)words * 8;
			memcpy(frame + 4, &words, 2);
			memset(frame + 16, 0, 2);	/* provider_in_words */
			memset(frame + 20, 0, 4);	/* reserved */
		} else {
			uint16_t words = (uint16_t)(len / 4);

			len = (size_t)words * 4;
			memcpy(frame + 4, &words, 2);
		}
	}
	/* The response address (the first u64 after the header in both
	 * kinds of frame) is never left to chance: a real buffer big enough
	 * for what the frame announces, or an unmapped page. */
	if (steer & 2) {
		uint16_t out_words, prov_out = 0;

		memcpy(&out_words, frame + 6, 2);
		if (cmd & 0x80000000u) {
			memcpy(&prov_out, frame + 18, 2);
			if (((size_t)out_words + prov_out) * 8 > sizeof(scratch)) {
				out_words = 64;
				prov_out = 0;
			}
			memcpy(frame + 18, &prov_out, 2);
		} else if ((size_t)out_words * 4 > sizeof(scratch)) {
			out_words = 64;
		}
		memcpy(frame + 6, &out_words, 2);
	} else {
		resp = 4096;	/* page 1: never mapped */
	}
	memcpy(frame + 8, &resp, 8);
	ret = write(ctx->cmd_fd, frame, len);
	if (ret == (ssize_t)len) {
		accepted++;
		return 0;
	}
	if (ret == -1 && errno > 0 && errno < 256)
		refused[errno]++;
	if (ret != -1 || !errno_expected(errno)) {
		fprintf(stderr, "fuzz_uverbs_frames: write of %zu bytes returned %zd, errno %d (%s)\n",
			len, ret, errno, strerror(errno));
		abort();
	}
	return 0;
}
