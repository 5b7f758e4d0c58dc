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

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif

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

/* The objects random frames create pile up in the device; a fresh
 * context every so many inputs releases them (and runs the release path)
 * so that an input's cost does not depend on everything before it. */
#define INPUTS_PER_CONTEXT 512

static unsigned long inputs;

static void open_context(void)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list || n < 1 || !(ctx = ibv_open_device(list[0]))) {
		fprintf(stderr, "fuzz_uverbs_frames: no device; run under mlx4emu-run\n");
		exit(2);
	}
	ibv_free_device_list(list);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	open_context();
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
	case EBADF:	/* OPEN_XRCD naming no open file, as the kernel */
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
	if (++inputs % INPUTS_PER_CONTEXT == 0) {
		ibv_close_device(ctx);
		open_context();
	}
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
#ifdef FUZZ_ASAN
	/* The frame's addresses are the device's to write to (CQ and QP
	 * buffers, doorbell records), as with the kernel. AddressSanitizer
	 * maps terabytes of shadow, so random values often name it; the
	 * device writing there is the harness's breakage, not a finding.
	 * Such values, and those up to 2 GiB below the shadow (a buffer
	 * starting there runs into it), become an unmapped page. */
	{
		size_t o;

		for (o = 8; o + 8 <= len; o += 8) {
			uint64_t v;

			memcpy(&v, frame + o, 8);
			if (v >= 0x7fff8000ull - (1ull << 31) &&
			    v < 0x10007fff8000ull) {
				v = 4096;
				memcpy(frame + o, &v, 8);
			}
		}
	}
#endif
	/* REG_MR (9) and REREG_MR (11) make the device read one byte of
	 * every page of the range: a length of terabytes over memory that
	 * happens to be mapped (AddressSanitizer's shadow is) takes minutes
	 * with the device's lock held. Keep the lengths under 1 GiB so that
	 * time goes to the parser. */
	if (!(cmd & 0x80000000u) && len >= 40) {
		uint32_t c;
		size_t at = 0;
		uint64_t length;

		memcpy(&c, frame, 4);
		if (c == 9)
			at = 24;
		else if (c == 11)
			at = 32;
		if (at) {
			memcpy(&length, frame + at, 8);
			length &= (1ull << 30) - 1;
			memcpy(frame + at, &length, 8);
		}
	}
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
