// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Fuzz target: the send WQE builders (gather entries, inline data from one
 * buffer or from several, RC/UC/UD/raw packet layouts) over random ring
 * geometries, producer counts and buffer lists.
 *
 * The ring lives between two guard zones (canary bytes, and poisoned for
 * AddressSanitizer when it is on). After every post:
 *  - an error is EINVAL or ENOMEM and leaves the ring and head untouched;
 *  - a success wrote only inside the WQE's own WQEBBs, or the stamp words
 *    of the WQEBBs that entered the prefetch window;
 *  - the ds in the control segment equals an independent computation from
 *    the PRM rules, and the inline bytes equal the PRM layout;
 *  - the guard zones are intact.
 * Any breach aborts (a crash for the fuzzer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx4dv.h>

#include "fuzz_input.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define GUARD 4096
#define CANARY 0xa5
#define MAX_SGE 16
#define MAX_SRC 2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "fuzz_sq_builders: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	abort(); } } while (0)

static uint8_t src_bytes[MAX_SRC];

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Inline bytes with headers from ring offset start, per the PRM; returns
 * the bytes used; compares with the ring when ring != NULL. */
static uint32_t inline_layout(const uint8_t *ring, uint32_t ring_bytes,
			      uint32_t start, const uint8_t *flat, uint32_t len)
{
	uint32_t off = start, done = 0, used = 0;

	while (done < len) {
		uint32_t room = 64 - ((off + 4) & 63), n = len - done, i;

		if (n > room)
			n = room;
		if (ring) {
			CHECK(be32_at(ring + off % ring_bytes) == (0x80000000u | n));
			for (i = 0; i < n; i++)
				CHECK(ring[(off + 4 + i) % ring_bytes] == flat[done + i]);
		}
		done += n;
		used += 4 + n;
		off += 4 + n;
	}
	return used;
}

enum fuzz_op { OP_SEND, OP_SEND_INLINE_SGE, OP_SEND_INLINE_BUF, OP_WRITE,
	       OP_WRITE_INLINE, OP_UD, OP_UD_INLINE, OP_RAW_INLINE, OP_COUNT };

static const uint32_t op_qp_type[OP_COUNT] = {
	IBV_QPT_RC, IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_RC, IBV_QPT_UC,
	IBV_QPT_UD, IBV_QPT_UD, IBV_QPT_RAW_PACKET,
};
static const uint32_t op_fixed_ds[OP_COUNT] = { 1, 1, 1, 2, 2, 4, 4, 1 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size };
	struct mlx4dv_sq_ring sq;
	uint32_t shift = 6 + fuzz_take(&in, 1) % 6;		/* 64..2048 */
	uint32_t spare = (2048u >> shift) + 1;
	uint32_t cnt = 2;
	uint32_t ring_bytes, rounds, r;
	uint8_t *mem, *ring, *snap, *flat;
	uint64_t *wrid;
	__be32 doorbell = 0;
	struct mlx4dv_ud_av av;

	while (cnt <= spare)
		cnt <<= 1;
	cnt <<= fuzz_take(&in, 1) % 3;	/* the smallest ring, or 2x, 4x */
	ring_bytes = cnt << shift;
	mem = malloc(ring_bytes + 2 * GUARD);
	snap = malloc(ring_bytes);
	flat = malloc(MAX_SGE * 255 + 4);
	wrid = calloc(cnt, sizeof(*wrid));
	CHECK(mem && snap && flat && wrid);
	/* the ring must be 64-byte aligned like a real one */
	ring = mem + GUARD;
	CHECK(((uintptr_t)ring & 15) == 0);
	ring = (uint8_t *)(((uintptr_t)ring + 63) & ~(uintptr_t)63);
	memset(mem, CANARY, ring_bytes + 2 * GUARD);
	memset(ring, 0, ring_bytes);
	POISON(mem, (size_t)(ring - mem));
	POISON(ring + ring_bytes, (size_t)(mem + ring_bytes + 2 * GUARD - (ring + ring_bytes)));
	memset(&av, 0, sizeof(av));
	for (r = 0; r < MAX_SRC; r++)
		src_bytes[r] = (uint8_t)(r * 13 + 7);

	memset(&sq, 0, sizeof(sq));
	sq.buf = ring;
	sq.wqe_cnt = cnt;
	sq.wqe_shift = shift;
	sq.head = sq.tail = fuzz_take(&in, 4);
	sq.spare_wqes = spare;
	sq.max_post = cnt - spare;
	sq.max_gather = fuzz_take(&in, 1) % (MAX_SGE + 1);
	sq.max_inline = fuzz_take(&in, 2) % 1100;
	sq.qpn = 0x48;
	sq.doorbell = &doorbell;
	sq.wrid = wrid;
	mlx4dv_sq_init_ownership(&sq);

	rounds = 1 + fuzz_take(&in, 1) % 64;
	for (r = 0; r < rounds; r++) {
		uint32_t op = fuzz_take(&in, 1) % OP_COUNT;
		uint32_t nsg = fuzz_take(&in, 1) % (MAX_SGE + 2);
		struct ibv_sge sg[MAX_SGE + 2];
		uint32_t head = sq.head, total = 0, i, ds, exp_ds, wqebbs;
		uint32_t wqe_off = (head & (cnt - 1)) << shift;
		int err, inl;

		for (i = 0; i < nsg; i++) {
			uint32_t len = fuzz_take(&in, 1);

			sg[i].addr = (uintptr_t)(src_bytes + fuzz_take(&in, 1));
			sg[i].length = len;
			sg[i].lkey = fuzz_take(&in, 4);
			if (total + len <= MAX_SGE * 255)
				memcpy(flat + total, (const void *)(uintptr_t)sg[i].addr, len);
			total += len;
		}
		if (fuzz_take(&in, 1) & 1)	/* sometimes complete everything */
			sq.tail = sq.head;
		sq.qp_type = op_qp_type[op];
		memcpy(snap, ring, ring_bytes);
		inl = op != OP_SEND && op != OP_WRITE && op != OP_UD;
		switch (op) {
		case OP_SEND:
			err = mlx4dv_sq_write_send(&sq, 0, sg, nsg, 0);
			break;
		case OP_SEND_INLINE_SGE:
			err = mlx4dv_sq_write_send(&sq, 0, sg, nsg, IBV_SEND_INLINE);
			break;
		case OP_SEND_INLINE_BUF:
			total = nsg ? sg[0].length : 0;
			err = mlx4dv_sq_write_send_inline(&sq, 0, src_bytes, total, 0);
			memcpy(flat, src_bytes, total);
			break;
		case OP_WRITE:
			err = mlx4dv_sq_write_rdma_write(&sq, 0, 1, 0x1000, sg, nsg, 0);
			break;
		case OP_WRITE_INLINE:
			err = mlx4dv_sq_write_rdma_write(&sq, 0, 1, 0x1000, sg, nsg, IBV_SEND_INLINE);
			break;
		case OP_UD:
			err = mlx4dv_sq_write_ud_send(&sq, 0, &av, 1, 2, sg, nsg, 0);
			break;
		case OP_UD_INLINE:
			err = mlx4dv_sq_write_ud_send(&sq, 0, &av, 1, 2, sg, nsg, IBV_SEND_INLINE);
			break;
		default:
			total = nsg ? sg[0].length : 0;
			err = mlx4dv_sq_write_eth_inline(&sq, 0, src_bytes, total, 0, 0);
			memcpy(flat, src_bytes, total);
			break;
		}
		/* Independent ds and validity. */
		if (inl)
			exp_ds = op_fixed_ds[op] + (inline_layout(NULL, 0,
				op_fixed_ds[op] * 16, flat, total) + 15) / 16;
		else
			exp_ds = op_fixed_ds[op] + nsg;
		if (err) {
			CHECK(err == EINVAL || err == ENOMEM);
			CHECK(sq.head == head);
			CHECK(memcmp(snap, ring, ring_bytes) == 0);
			if (err == ENOMEM)
				CHECK(exp_ds <= 63 && ((exp_ds * 16 + (1u << shift) - 1) >> shift) >
				      sq.max_post - (head - sq.tail));
			continue;
		}
		CHECK(!(op == OP_RAW_INLINE && total < 6));
		CHECK(exp_ds <= 63);
		if (inl)
			CHECK(total <= sq.max_inline);
		else
			CHECK(nsg <= sq.max_gather);
		ds = ring[wqe_off + 7] & 0x3f;
		CHECK(ds == exp_ds);
		wqebbs = (ds * 16 + (1u << shift) - 1) >> shift;
		CHECK(sq.head == head + wqebbs);
		if (inl)
			inline_layout(ring, ring_bytes, wqe_off + op_fixed_ds[op] * 16,
				      flat, total);
		/* The posted WQE is the device's, and none of the free WQEBBs
		 * the device may prefetch next looks like one. */
		CHECK((be32_at(ring + wqe_off) >> 31) == ((head & cnt) ? 1u : 0u));
		for (i = 0; i < spare; i++) {
			uint32_t n = sq.head + i;

			CHECK((be32_at(ring + ((n & (cnt - 1)) << shift)) >> 31) !=
			      ((n & cnt) ? 1u : 0u));
		}
		/* Only the WQE's bytes, and stamp words of the WQEBBs now in
		 * the prefetch window, may have changed. */
		for (i = 0; i < ring_bytes; i++) {
			uint32_t rel = (i - wqe_off) & (ring_bytes - 1);
			uint32_t k;
			int stamp_ok = 0;

			if (ring[i] == snap[i] || rel < ds * 16)
				continue;
			for (k = 0; k < wqebbs; k++) {
				uint32_t st = ((head + spare + k) & (cnt - 1)) << shift;
				uint32_t from = (i - st) & (ring_bytes - 1);

				/* the first word of a 64-byte chunk, past the
				 * first chunk, of the old WQE (at most 63 ds)
				 * that starts at a WQEBB entering the window */
				if (from >= 64 && from < 63 * 16 && (from & 63) < 4)
					stamp_ok = 1;
			}
			CHECK(stamp_ok);
			CHECK((be32_at(ring + (i & ~3u)) & 0x7fffffffu) == 0x7fffffffu);
		}
	}
	UNPOISON(mem, ring_bytes + 2 * GUARD);
	for (r = 0; r < (uint32_t)(ring - mem); r++)
		CHECK(mem[r] == CANARY);
	for (r = (uint32_t)(ring - mem) + ring_bytes; r < ring_bytes + 2 * GUARD; r++)
		CHECK(mem[r] == CANARY);
	free(wrid);
	free(flat);
	free(snap);
	free(mem);
	return 0;
}
