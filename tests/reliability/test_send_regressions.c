// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Regression tests of the send path, each named after a bug the field has
 * hit with hand-written mlx4 WQE builders. Host memory plays the device;
 * expected images come from the PRM rules, written here independently.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#include "host_rings.h"
#include "store_trace.h"
#include "../harness/wc_poll.h"
#include "test_exit.h"

#define RING_BYTES(h) ((h)->sq.wqe_cnt << (h)->sq.wqe_shift)

/* Deterministic generator: runs are reproducible. */
static uint32_t rng_state = 0x2545f491;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/*
 * The PRM's inline layout, built from the rules alone: bytes follow a
 * 4-byte header {0x80000000 | n}; a header opens at the start position and
 * at every 64-byte boundary the data reaches (none for a boundary reached
 * exactly at the end). img is a ring-sized image; start is a ring offset.
 * Returns the bytes of the inline part (headers included).
 */
static uint32_t ref_inline(uint8_t *img, uint32_t ring, uint32_t start,
			   const uint8_t *data, uint32_t len)
{
	uint32_t off = start, done = 0, used = 0;

	while (done < len) {
		uint32_t hdr = off;
		uint32_t room = 64 - ((hdr + 4) & 63);
		uint32_t n = len - done < room ? len - done : room;
		uint32_t i;

		wr_be32(img + hdr % ring, 0x80000000u | n);
		for (i = 0; i < n; i++)
			img[(hdr + 4 + i) % ring] = data[done + i];
		done += n;
		off = hdr + 4 + n;
		used += 4 + n;
	}
	return used;
}

/* Compare ring bytes [start, start + bytes) (modulo ring) with img. */
static int ring_matches(const struct host_sq *h, const uint8_t *img,
			uint32_t start, uint32_t bytes)
{
	uint32_t ring = RING_BYTES(h), i;

	for (i = 0; i < bytes; i++)
		if (h->mem[(start + i) % ring] != img[(start + i) % ring]) {
			print_error("byte %u of WQE area differs: %02x != %02x\n",
				    i, h->mem[(start + i) % ring],
				    img[(start + i) % ring]);
			return 0;
		}
	return 1;
}

/* Free every outstanding WQE as a completion of the last one would. */
static void complete_all(struct host_sq *h, uint32_t last_wqe_count)
{
	assert_true(mlx4dv_sq_complete(&h->sq, (uint16_t)last_wqe_count, NULL) > 0);
	assert_int_equal(h->sq.tail, h->sq.head);
}

static void fill_pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

/* Post one inline WQE of len bytes after fixed_ds segments and check the
 * bytes and the ds against the PRM layout. */
static void check_one_inline(struct host_sq *h, uint32_t fixed_ds,
			     const struct ibv_sge *sg, uint32_t nsg)
{
	uint32_t ring = RING_BYTES(h);
	uint8_t *img = calloc(1, ring);
	uint8_t *flat;
	uint32_t total = 0, i, pos = 0, ds, used, head = h->sq.head;
	uint32_t wqe = host_sq_offset(h, head);
	int err;

	assert_non_null(img);
	for (i = 0; i < nsg; i++)
		total += sg[i].length;
	flat = malloc(total + 1);
	assert_non_null(flat);
	for (i = 0; i < nsg; i++) {
		memcpy(flat + pos, (const void *)(uintptr_t)sg[i].addr, sg[i].length);
		pos += sg[i].length;
	}
	used = ref_inline(img, ring, wqe + fixed_ds * 16, flat, total);
	ds = fixed_ds + (used + 15) / 16;
	if (fixed_ds == 1)
		err = mlx4dv_sq_write_send(&h->sq, 0, sg, nsg,
					  IBV_SEND_INLINE | IBV_SEND_SIGNALED);
	else
		err = mlx4dv_sq_write_rdma_write(&h->sq, 0, 0x77, 0x1000, sg, nsg,
					   IBV_SEND_INLINE | IBV_SEND_SIGNALED);
	if (ds > 63) {
		assert_int_equal(err, EINVAL);
		assert_int_equal(h->sq.head, head);
	} else {
		assert_int_equal(err, 0);
		/* ds in the control segment, byte 7, low 6 bits */
		assert_int_equal(h->mem[wqe + 7] & 0x3f, ds);
		assert_true(ring_matches(h, img, wqe + fixed_ds * 16, used));
		complete_all(h, head);
	}
	free(flat);
	free(img);
}

/* Inline data that reaches or crosses a 64-byte boundary gets a new header
 * there, for every start offset in the chunk and across the ring end. */
static void test_inline_crossing_64b_boundary(void **state)
{
	struct host_sq h;
	uint8_t data[1100];
	uint32_t len, fixed;

	(void)state;
	fill_pattern(data, sizeof(data), 3);
	for (fixed = 1; fixed <= 2; fixed++) {
		host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
		for (len = 0; len <= 1000; len += (len < 200 ? 1 : 13)) {
			struct ibv_sge sg = { (uintptr_t)data, len, 0 };

			check_one_inline(&h, fixed, &sg, 1);
		}
		host_sq_free(&h);
	}
}

/* Several source buffers, zero-length ones among them: their bytes run on
 * across buffer ends within a chunk; headers still open only at chunk
 * boundaries. */
static void test_inline_several_sges(void **state)
{
	struct host_sq h;
	static uint8_t bufs[8][200];
	int round;

	(void)state;
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0xfffffff0u);
	for (round = 0; round < 3000; round++) {
		struct ibv_sge sg[8];
		uint32_t nsg = 1 + rng() % 8, i;

		for (i = 0; i < nsg; i++) {
			uint32_t len = rng() % 5 == 0 ? 0 : rng() % 160;

			fill_pattern(bufs[i], len, rng());
			sg[i].addr = (uintptr_t)bufs[i];
			sg[i].length = len;
			sg[i].lkey = rng();
		}
		check_one_inline(&h, 1 + (round & 1), sg, nsg);
	}
	host_sq_free(&h);
}

/* A gather entry of length 0 is 0x80000000 on the wire (a plain 0 would
 * be 2 GiB); other lengths go as they are. */
static void test_zero_length_sge_encoding(void **state)
{
	struct host_sq h;
	struct ibv_sge sg[3] = {
		{ 0x1111222233334444ull, 0, 0x100a },
		{ 0x5555666677778888ull, 5, 0x100b },
		{ 0x9999aaaabbbbccccull, 0, 0x100c },
	};
	struct ibv_send_wr wr;
	uint32_t wqe, i, pass;

	(void)state;
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
	for (pass = 0; pass < 2; pass++) {
		uint32_t head = h.sq.head;

		wqe = host_sq_offset(&h, head);
		if (pass == 0) {
			assert_int_equal(mlx4dv_sq_write_send(&h.sq, 0, sg, 3, 0), 0);
		} else {
			memset(&wr, 0, sizeof(wr));
			wr.opcode = IBV_WR_SEND;
			wr.sg_list = sg;
			wr.num_sge = 3;
			assert_int_equal(mlx4dv_sq_write_send_wr(&h.sq, &wr, NULL), 0);
		}
		assert_int_equal(h.mem[wqe + 7] & 0x3f, 4);
		for (i = 0; i < 3; i++) {
			const uint8_t *d = h.mem + wqe + 16 + 16 * i;

			assert_int_equal(rd_be32(d), sg[i].length ? sg[i].length :
					 0x80000000u);
			assert_int_equal(rd_be32(d + 4), sg[i].lkey);
			assert_int_equal((uint64_t)rd_be32(d + 8) << 32 | rd_be32(d + 12),
					 sg[i].addr);
		}
		complete_all(&h, head);
	}
	host_sq_free(&h);
}

/* Store order seen by the device: in every data segment outside the WQE's
 * first 64-byte chunk byte_count after lkey/addr (such a chunk may be
 * prefetched on its own: libmlx4 qp.c set_data_seg, "if the segment begins
 * a new cacheline"); the first chunk is guarded by the owner word, so its
 * entries need only come before it; in every inline segment the header
 * after its bytes; the owner/opcode word after everything else of the
 * WQE. */
static void test_byte_count_written_last(void **state)
{
	static struct store_trace t;
	struct host_sq h;
	static uint8_t payload[300];
	struct ibv_sge sg[6];
	uint32_t wqe, i, ds, head;
	long owner;

	(void)state;
	if (!store_trace_supported())
		t_skip_case("no store trace on this machine");
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 63); /* WQE wraps the ring end */
	for (i = 0; i < 6; i++) {
		sg[i].addr = 0x10000ull * (i + 1);
		sg[i].length = 100 + i;
		sg[i].lkey = 0x200 + i;
	}
	head = h.sq.head;
	wqe = host_sq_offset(&h, head);
	assert_int_equal(store_trace_begin(h.mem, h.mem_len, &t), 0);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&h.sq, 0, 9, 0x4000, sg, 6, 0), 0);
	store_trace_end();
	assert_false(t.overflow);
	ds = h.mem[wqe + 7] & 0x3f;
	assert_int_equal(ds, 8);
	owner = store_trace_last_in(&t, wqe, wqe + 4);
	for (i = 0; i < 6; i++) {
		uint32_t s = (wqe + 32 + 16 * i) % RING_BYTES(&h);
		long bc = store_trace_last_in(&t, s, s + 4);
		long bc_first = store_trace_first_in(&t, s, s + 4);
		long rest = store_trace_last_in(&t, s + 4, s + 16);

		assert_true(rest >= 0);
		if (32 + 16 * i >= 64)
			assert_true(bc_first > rest);	/* never written before */
		assert_true(bc < owner);
		assert_true(rest < owner);
	}
	/* Nothing of the WQE is written after the owner word. */
	for (i = 0; i < ds * 16; i += 4) {
		uint32_t o = (wqe + i) % RING_BYTES(&h);

		if (o != wqe)
			assert_true(store_trace_last_in(&t, o, o + 4) < owner);
	}
	complete_all(&h, head);

	/* Inline: each header after the bytes it covers. */
	fill_pattern(payload, sizeof(payload), 9);
	wqe = host_sq_offset(&h, h.sq.head);
	assert_int_equal(store_trace_begin(h.mem, h.mem_len, &t), 0);
	assert_int_equal(mlx4dv_sq_write_send_inline(&h.sq, 0, payload, 250, 0), 0);
	store_trace_end();
	owner = store_trace_last_in(&t, wqe, wqe + 4);
	{
		uint32_t hdr = wqe + 16, left = 250;

		while (left) {
			uint32_t n = 64 - ((hdr + 4) & 63);
			uint32_t ho = hdr % RING_BYTES(&h);
			long hs;

			n = n < left ? n : left;
			hs = store_trace_first_in(&t, ho, ho + 4);
			assert_true(hs >= 0);
			assert_true(hs > store_trace_last_in(&t, ho + 4, ho + 4 + n));
			assert_true(hs < owner);
			left -= n;
			hdr += 4 + n;
		}
	}
	host_sq_free(&h);
}

/* Every kind of WQE, seen by a device that prefetches 64-byte chunks:
 * within each chunk after the first, the last store is the chunk's first
 * word (a data segment's byte_count or an inline header, written after
 * what follows it); in the first chunk, the owner/opcode word; and
 * nothing of the WQE after the owner word. */
static void check_chunk_order(const struct host_sq *h, const struct store_trace *t,
			      uint32_t wqe)
{
	uint32_t ds = h->mem[wqe + 7] & 0x3f, ring = RING_BYTES(h), k;
	long owner = store_trace_last_in(t, wqe, wqe + 4);

	assert_true(owner >= 0);
	assert_int_equal(store_trace_last_in(t, wqe, wqe + 64), owner);
	for (k = 64; k < ds * 16; k += 64) {
		uint32_t c0 = (wqe + k) % ring;
		uint32_t end = k + 64 < ds * 16 ? 64 : ds * 16 - k;
		long first_word = store_trace_last_in(t, c0, c0 + 4);

		assert_true(first_word >= 0);
		assert_int_equal(store_trace_last_in(t, c0, c0 + end), first_word);
		assert_true(first_word < owner);
	}
	(void)ring;
}

static void test_first_word_of_chunk_written_last(void **state)
{
	static struct store_trace t;
	static uint8_t payload[400];
	struct host_sq rc, ud;
	struct mlx4dv_ud_av av;
	struct ibv_sge sg[12];
	uint32_t i, kind;

	(void)state;
	if (!store_trace_supported())
		t_skip_case("no store trace on this machine");
	memset(&av, 0, sizeof(av));
	fill_pattern(payload, sizeof(payload), 5);
	for (i = 0; i < 12; i++) {
		sg[i].addr = (uintptr_t)payload + 20 * i;
		sg[i].length = 20;
		sg[i].lkey = 0x700 + i;
	}
	host_sq_init(&rc, 16, 8, IBV_QPT_RC, 15);	/* stride 256, wraps */
	host_sq_init(&ud, 16, 8, IBV_QPT_UD, 0);
	rc.sq.max_gather = ud.sq.max_gather = 12;
	rc.sq.max_inline = ud.sq.max_inline = 400;
	for (kind = 0; kind < 7; kind++) {
		struct host_sq *h = kind >= 4 ? &ud : &rc;
		uint32_t head = h->sq.head, wqe = host_sq_offset(h, head);
		int err;

		assert_int_equal(store_trace_begin(h->mem, h->mem_len, &t), 0);
		switch (kind) {
		case 0:
			err = mlx4dv_sq_write_send(&h->sq, 0, sg, 12, 0);
			break;
		case 1:
			err = mlx4dv_sq_write_rdma_write(&h->sq, 0, 2, 0x1000, sg, 10, 0);
			break;
		case 2:
			err = mlx4dv_sq_write_rdma_write(&h->sq, 0, 2, 0x1000, sg, 11,
						   IBV_SEND_INLINE);
			break;
		case 3:
			err = mlx4dv_sq_write_cas(&h->sq, 0, 2, 0x1000, 1, 2, sg, 0);
			break;
		case 4:
			err = mlx4dv_sq_write_ud_send(&h->sq, 0, &av, 1, 2, sg, 12, 0);
			break;
		case 5:
			err = mlx4dv_sq_write_ud_send_inline(&h->sq, 0, &av, 1, 2,
							    payload, 150, 0);
			break;
		default:
			err = mlx4dv_sq_write_ud_send(&h->sq, 0, &av, 1, 2, sg, 9,
						     IBV_SEND_INLINE);
			break;
		}
		store_trace_end();
		assert_int_equal(err, 0);
		assert_false(t.overflow);
		check_chunk_order(h, &t, wqe);
		complete_all(h, head);
	}
	host_sq_free(&ud);
	host_sq_free(&rc);
}

/* The free slots in the device's prefetch window [head, head + spare) must
 * never look like work: every 64-byte chunk but a WQE's first carries the
 * stamp, and a WQE's first chunk is not owned by the device for that lap.
 * Checked after every post while completed slots come back round. */
static void check_prefetch_window(const struct host_sq *h)
{
	uint32_t c, k, chunks = (1u << h->sq.wqe_shift) / 64;

	for (c = h->sq.head; c != h->sq.head + h->sq.spare_wqes; c++) {
		uint32_t off = host_sq_offset(h, c);
		/* A continuation WQEBB carries a stamp, a WQE start the
		 * control word of an old lap: neither is the device's. */
		assert_false(host_sq_device_owns(h, c));
		for (k = 1; k < chunks; k++) {
			uint32_t w = host_sq_word(h, off + 64 * k);

			if ((w & 0x7fffffffu) != 0x7fffffffu)
				print_error("count %u chunk %u: %08x\n", c, k, w);
			assert_int_equal(w & 0x7fffffffu, 0x7fffffffu);
		}
	}
}

static void test_stamp_after_completion(void **state)
{
	struct host_sq h;
	struct ibv_sge sg[31];
	uint32_t i, laps = 0, pending[16], np = 0;

	(void)state;
	for (i = 0; i < 31; i++) {
		sg[i].addr = 0xabc000 + i;
		sg[i].length = 0x7fffff00u + i; /* looks like a byte count */
		sg[i].lkey = 0x300 + i;
	}
	host_sq_init(&h, 16, 8, IBV_QPT_RC, 0);
	h.sq.max_gather = 31;
	check_prefetch_window(&h);
	while (laps < 40) {
		uint32_t nsg = (rng() & 1) ? 15 : 1 + rng() % 31;
		uint32_t head = h.sq.head;
		int err = mlx4dv_sq_write_send(&h.sq, 0, sg, nsg, 0);

		if (err == ENOMEM || (np && rng() % 3 == 0)) {
			/* complete the oldest outstanding WQE */
			assert_true(np > 0);
			assert_true(mlx4dv_sq_complete(&h.sq, (uint16_t)pending[0], NULL) > 0);
			memmove(pending, pending + 1, --np * sizeof(pending[0]));
			continue;
		}
		assert_int_equal(err, 0);
		pending[np++] = head;
		check_prefetch_window(&h);
		laps = h.sq.head / h.sq.wqe_cnt;
	}
	host_sq_free(&h);
}

/* The device walks the ring by the owner rule: after every post it must
 * find exactly the WQEs posted and stop at head, on every lap, across the
 * ring end and across the 32-bit wrap of the producer count. */
static void test_owner_bit_after_ring_wrap(void **state)
{
	struct host_sq h;
	struct ibv_sge sg[12];
	uint32_t dev_pc, i, posted = 0;
	uint32_t starts[2] = { 0, 0xffffff00u }, s;

	(void)state;
	for (i = 0; i < 12; i++) {
		sg[i].addr = 0x1000 * i;
		sg[i].length = 64;
		sg[i].lkey = 0x500;
	}
	for (s = 0; s < 2; s++) {
		host_sq_init(&h, 64, 6, IBV_QPT_RC, starts[s]);
		dev_pc = h.sq.head;
		for (posted = 0; posted < 3000; posted++) {
			uint32_t nsg = rng() % 12;
			int err = mlx4dv_sq_write_send(&h.sq, 0, sg, nsg, 0);

			if (err == ENOMEM) {
				/* the device's progress frees everything */
				h.sq.tail = dev_pc;
				continue;
			}
			assert_int_equal(err, 0);
			while (dev_pc != h.sq.head) {
				uint32_t ds;

				assert_true(host_sq_device_owns(&h, dev_pc));
				ds = h.mem[host_sq_offset(&h, dev_pc) + 7] & 0x3f;
				assert_int_equal(ds, 1 + nsg);
				dev_pc += (ds * 16 + 63) / 64;
			}
			assert_int_equal(dev_pc, h.sq.head);
			assert_false(host_sq_device_owns(&h, dev_pc));
		}
		assert_true(h.sq.head - starts[s] > 20 * h.sq.wqe_cnt);
		host_sq_free(&h);
	}
}

/* The 16-bit wqe_index of send CQEs wraps at 65536 while the producer
 * count goes on: completions keep naming the right WQE and wr_id. */
static void test_wqe_index_16bit_wrap(void **state)
{
	uint32_t starts[3] = { 0xffe0u, 0x1ffe0u, 0xffffffe0u }, s;

	(void)state;
	for (s = 0; s < 3; s++) {
		struct host_sq h;
		struct host_cq c;
		struct mlx4dv_poll_qp pq;
		uint32_t i, expect_tail;
		uint64_t next_wr = 1, expect_wr = 0;
		struct ibv_sge sg[3] = { { 1, 8, 2 }, { 3, 8, 4 }, { 5, 8, 6 } };

		host_sq_init(&h, 64, 6, IBV_QPT_RC, starts[s]);
		host_cq_init(&c, 64, 32, 0);
		memset(&pq, 0, sizeof(pq));
		pq.qpn = h.sq.qpn;
		pq.sq = &h.sq;
		for (i = 0; i < 400; i++) {
			struct ibv_send_wr wr;
			struct ibv_wc wc;
			uint32_t head = h.sq.head;

			memset(&wr, 0, sizeof(wr));
			wr.wr_id = next_wr++;
			wr.opcode = IBV_WR_SEND;
			wr.sg_list = sg;
			wr.num_sge = (int)(i % 4 == 3 ? 3 : 0);
			wr.send_flags = (i % 3 == 2) ? IBV_SEND_SIGNALED : 0;
			assert_int_equal(mlx4dv_sq_write_send_wr(&h.sq, &wr, NULL), 0);
			if (!(wr.send_flags & IBV_SEND_SIGNALED))
				continue;
			/* device: a send CQE naming the first WQEBB of this WQE */
			{
				struct mlx4_cqe e = cqe_send(h.sq.qpn,
					MLX4_OPCODE_SEND, (uint16_t)head);

				host_cq_push(&c, &e);
			}
			expect_wr = wr.wr_id;
			assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 1, &wc), 1);
			assert_int_equal(wc.status, IBV_WC_SUCCESS);
			assert_int_equal(wc.wr_id, expect_wr);
			/* tail passed the named WQEBB; the rest of a multi-WQEBB
			 * WQE goes with the next completion */
			expect_tail = head + 1;
			assert_int_equal(h.sq.tail, expect_tail);
		}
		assert_true((uint16_t)h.sq.head < (uint16_t)starts[s]); /* wrapped */
		host_cq_free(&c);
		host_sq_free(&h);
	}
}

/* mlx4dv_sq_complete() across the 16-bit wrap with unsignaled WQEs in
 * between: the WQEs of several WQEBBs are freed whole. */
static void test_wqe_index_16bit_wrap_unsignaled(void **state)
{
	struct host_sq h;
	struct ibv_sge sg[7];
	uint32_t i;

	(void)state;
	memset(sg, 0, sizeof(sg));
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0xfff0u);
	for (i = 0; i < 200; i++) {
		uint32_t a = h.sq.head, b;
		uint64_t id = 0;

		assert_int_equal(mlx4dv_sq_write_send(&h.sq, 100 + i, sg, 5, 0), 0);
		b = h.sq.head;
		assert_int_equal(mlx4dv_sq_write_send(&h.sq, 1000 + i, sg, 7, 0), 0);
		assert_int_equal(mlx4dv_sq_complete(&h.sq, (uint16_t)b, &id),
				 h.sq.head - a);
		assert_int_equal(id, 1000 + i);
		assert_int_equal(h.sq.tail, h.sq.head);
	}
	/* a stale index (already completed) changes nothing */
	assert_int_equal(mlx4dv_sq_complete(&h.sq, (uint16_t)(h.sq.head - 2), NULL), 0);
	host_sq_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_crossing_64b_boundary),
		cmocka_unit_test(test_inline_several_sges),
		cmocka_unit_test(test_zero_length_sge_encoding),
		cmocka_unit_test(test_byte_count_written_last),
		cmocka_unit_test(test_first_word_of_chunk_written_last),
		cmocka_unit_test(test_stamp_after_completion),
		cmocka_unit_test(test_owner_bit_after_ring_wrap),
		cmocka_unit_test(test_wqe_index_16bit_wrap),
		cmocka_unit_test(test_wqe_index_16bit_wrap_unsignaled),
	};

	t_run_group_tests_name("reliability_send", tests, NULL, NULL);
	return t_exit();
}
