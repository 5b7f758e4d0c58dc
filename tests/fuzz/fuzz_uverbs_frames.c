// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fuzz target: the software ConnectX-3's command parser, reached the way
 * libibverbs reaches it: write() of a uverbs command frame to the device's
 * command fd. Runs under mlx4emu-run (the preload answers the write).
 *
 * The first two input bytes steer the frame so that the mutations get past
 * the length checks often enough.  First byte: bit 0 makes in_words agree
 * with the length (legacy frames) or the extended header's words agree
 * (extended frames); bit 1 points the response at a scratch buffer that
 * is really mapped; bit 2 sets the extended flag; bit 6 leaves the whole
 * command word to the frame body (any value, flags included).  Second
 * byte, bits 0..5: the command number, 0..63, which spans every command
 * of the uverbs write ABI (legacy up to OPEN_QP, 40; extended up to
 * MODIFY_CQ, 57), so each one the device dispatches (emu/cmd/uverbs.c:
 * the SRQ and XRC ones, flows, WQs, indirection tables included) and the
 * numbers it refuses all get frames.  Bit 7 of the first byte turns
 * body words whose top bit is set into addresses in a mapped region, so
 * that creates (CQ, QP, SRQ, WQ buffers and doorbell records) get past
 * the device's address checks.  The rest is the frame body.
 *
 * Every write must return the frame length or -1 with an errno of the
 * documented set; anything else, or a crash, is a finding.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "fuzz_input.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAME 4096
/* command numbers drawn: 0..63 (the highest in the ABI, EX MODIFY_CQ, is 57) */
#define CMD_MASK 0x3f
_Static_assert(IB_USER_VERBS_CMD_OPEN_QP <= CMD_MASK &&
	       IB_USER_VERBS_EX_CMD_MODIFY_CQ <= CMD_MASK,
	       "every uverbs command number can be drawn");

static struct ibv_context *ctx;
static unsigned long accepted, refused[256];
static unsigned long own_memory_words;	/* frame words moved off own memory */
/* accepted frames per command number drawn, legacy [0] and extended [1] */
static unsigned long accepted_cmd[2][CMD_MASK + 1];

/* FUZZ_UVERBS_STATS=1: how the frames fared, at exit. */
static void print_stats(void)
{
	int e;

	fprintf(stderr, "fuzz_uverbs_frames: %lu frames accepted\n", accepted);
	fprintf(stderr, "  %lu words named the harness's own memory\n", own_memory_words);
	for (int ex = 0; ex < 2; ex++)
		for (unsigned c = 0; c <= CMD_MASK; c++)
			if (accepted_cmd[ex][c])
				fprintf(stderr, "  %s command %u: %lu accepted\n",
					ex ? "extended" : "legacy", c, accepted_cmd[ex][c]);
	for (e = 0; e < 256; e++)
		if (refused[e])
			fprintf(stderr, "  %lu refused with %s\n", refused[e], strerror(e));
}
static uint64_t scratch[8192];	/* responses land here */

/* Queue memory for the objects frames create: QUEUE_MEM bytes readable
 * and writable, then inaccessible pages up to QUEUE_RESERVE, so that a
 * buffer longer than the region runs into pages the device must refuse
 * (EFAULT, or an error of the queue later) rather than into the
 * harness's own data. */
#define QUEUE_MEM (1u << 20)
#define QUEUE_RESERVE (64u << 20)
static uint8_t *queue_mem;

static void map_queue_mem(void)
{
	void *p = mmap(NULL, QUEUE_RESERVE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED || mprotect(p, QUEUE_MEM, PROT_READ | PROT_WRITE)) {
		perror("fuzz_uverbs_frames: queue memory");
		exit(2);
	}
	queue_mem = p;
}

/* Words of the body (after the response address) with their top bit set
 * become 64-byte aligned addresses in the queue memory. */
static void point_into_queue_mem(uint8_t *frame, size_t len)
{
	for (size_t o = 16; o + 8 <= len; o += 8) {
		uint64_t v;

		memcpy(&v, frame + o, 8);
		if (!(v >> 63))
			continue;
		v = (uintptr_t)queue_mem + (v & (QUEUE_MEM - 1) & ~(uint64_t)63);
		memcpy(frame + o, &v, 8);
	}
}

/* The device writes where a frame's addresses point (CQ and QP buffers,
 * doorbell records), as the adapter would. libFuzzer learns the
 * process's own addresses from the comparisons it traces and puts them
 * into frames; a CQ made over libFuzzer's heap then has the device
 * overwrite the fuzzer's own bookkeeping, which is the harness's
 * breakage, not a finding. So every body word that lies in one of the
 * process's mappings, or within OWN_MAPPING_MARGIN of one (a buffer
 * starting below a mapping runs into it; the heap and the mmap area grow
 * between reads), becomes an unmapped page. The queue memory is left to
 * the top-bit words of point_into_queue_mem. */
#define OWN_MAPPING_MARGIN (512ull << 20)	/* > the largest queue a frame can size */
#define OWN_MAPPINGS_MAX 1024
#define UNMAPPED_PAGE 4096u	/* page 1: never mapped */

struct own_mapping {
	uint64_t lo, hi;	/* widened by the margin on both sides */
};
static struct own_mapping own_mappings[OWN_MAPPINGS_MAX];
static size_t own_mapping_count;

static void read_own_mappings(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512];
	size_t n = 0;

	if (!maps) {
		perror("fuzz_uverbs_frames: /proc/self/maps");
		exit(2);
	}
	while (n < OWN_MAPPINGS_MAX && fgets(line, sizeof(line), maps)) {
		uint64_t lo, hi;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) != 2)
			continue;
		lo = lo > OWN_MAPPING_MARGIN ? lo - OWN_MAPPING_MARGIN : 0;
		hi += OWN_MAPPING_MARGIN;
		/* maps lists the mappings in address order, and the margins
		 * join most neighbours: a handful of ranges for every word of
		 * every frame to be tested against */
		if (n && lo <= own_mappings[n - 1].hi) {
			if (hi > own_mappings[n - 1].hi)
				own_mappings[n - 1].hi = hi;
			continue;
		}
		own_mappings[n].lo = lo;
		own_mappings[n].hi = hi;
		n++;
	}
	fclose(maps);
	own_mapping_count = n;
}

static int names_own_memory(uint64_t v)
{
	for (size_t i = 0; i < own_mapping_count; i++)
		if (v >= own_mappings[i].lo && v < own_mappings[i].hi)
			return 1;
	return 0;
}

static void keep_off_own_memory(uint8_t *frame, size_t len)
{
	for (size_t o = 16; o + 8 <= len; o += 8) {
		uint64_t v;

		memcpy(&v, frame + o, 8);
		if (!names_own_memory(v))
			continue;
		v = UNMAPPED_PAGE;
		memcpy(frame + o, &v, 8);
		own_memory_words++;
	}
}

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
	read_own_mappings();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* The preload is loaded by now; children (the symbolizer that
	 * libFuzzer starts to print a finding's stack) must run without it. */
	unsetenv("LD_PRELOAD");
	map_queue_mem();
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
	uint32_t steer = fuzz_take(&in, 1), cmd = fuzz_take(&in, 1) & CMD_MASK;
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
		resp = UNMAPPED_PAGE;
	}
	memcpy(frame + 8, &resp, 8);
	keep_off_own_memory(frame, len);
	if (steer & 0x80)
		point_into_queue_mem(frame, len);
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
		uint32_t sent;

		memcpy(&sent, frame, 4);
		accepted++;
		if ((sent & ~0x80000000u) <= CMD_MASK)
			accepted_cmd[sent >> 31][sent & CMD_MASK]++;
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
