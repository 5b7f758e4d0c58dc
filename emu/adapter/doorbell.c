// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "adapter/doorbell.h"

#include <endian.h>
#include <string.h>

#include "adapter/engine.h"

#define WORDS(bits) (((bits) + 63) / 64)

static atomic_uint_fast64_t qp_rung[WORDS(EMU_DB_MAX_QPN)];
static atomic_uint_fast64_t qp_rung_sum[WORDS(WORDS(EMU_DB_MAX_QPN))];
static atomic_uint_fast64_t cq_rung[WORDS(EMU_MAX_CQ)];
static atomic_uint_fast64_t cq_rung_sum[WORDS(WORDS(EMU_MAX_CQ))];
/* latest arm doorbell per CQN: ctx index + 1 in bits 24..31 of the low
 * word (the consumer index has 24 bits), 0 = none */
static atomic_uint_fast64_t cq_arm[EMU_MAX_CQ];
/* context index + 1 that owns the QPN's send queue, 0 = none */
static _Atomic uint8_t qp_owner[EMU_DB_MAX_QPN];

static void bit_set(atomic_uint_fast64_t *l0, atomic_uint_fast64_t *l1, uint32_t n)
{
	/* leaf first: a reader that clears the summary bit and then finds the
	 * leaf empty has only missed a doorbell whose summary bit comes next */
	atomic_fetch_or(&l0[n / 64], 1ull << (n % 64));
	atomic_fetch_or(&l1[n / 4096], 1ull << ((n / 64) % 64));
}

static unsigned bits_take(atomic_uint_fast64_t *l0, atomic_uint_fast64_t *l1,
			  unsigned l1_words, void (*fn)(uint32_t, void *), void *arg)
{
	unsigned n = 0;

	for (unsigned i = 0; i < l1_words; i++) {
		uint64_t s;

		if (!atomic_load_explicit(&l1[i], memory_order_relaxed))
			continue;
		s = atomic_exchange(&l1[i], 0);
		while (s) {
			unsigned w = i * 64 + (unsigned)__builtin_ctzll(s);
			uint64_t b = atomic_exchange(&l0[w], 0);

			s &= s - 1;
			while (b) {
				fn(w * 64 + (unsigned)__builtin_ctzll(b), arg);
				b &= b - 1;
				n++;
			}
		}
	}
	return n;
}

void emu_db_ring_qpn(uint32_t qpn)
{
	if (qpn < EMU_DB_MAX_QPN)
		bit_set(qp_rung, qp_rung_sum, qpn);
}

void emu_db_set_qp_owner(uint32_t qpn, int ctx_index)
{
	if (qpn < EMU_DB_MAX_QPN)
		atomic_store(&qp_owner[qpn], (uint8_t)(ctx_index + 1));
}

unsigned emu_db_take_qps(void (*fn)(uint32_t qpn, void *arg), void *arg)
{
	return bits_take(qp_rung, qp_rung_sum, WORDS(WORDS(EMU_DB_MAX_QPN)), fn, arg);
}

struct cq_take {
	void (*fn)(uint32_t, uint64_t, void *);
	void *arg;
};

static void take_one_cq(uint32_t cqn, void *arg)
{
	struct cq_take *t = arg;
	uint64_t v = atomic_exchange(&cq_arm[cqn], 0);

	if (v)
		t->fn((uint32_t)((v >> 24) & 0xff) - 1, v & ~0xff000000ull, t->arg);
}

unsigned emu_db_take_cqs(void (*fn)(uint32_t ctx_index, uint64_t db, void *arg),
			 void *arg)
{
	struct cq_take t = { fn, arg };

	return bits_take(cq_rung, cq_rung_sum, WORDS(WORDS(EMU_MAX_CQ)), take_one_cq, &t);
}

static uint32_t ctx_index(const struct emu_ctx *ctx)
{
	return (uint32_t)(ctx - emu_dev.ctx);
}

static void send_doorbell(struct emu_ctx *ctx, uint32_t be_word)
{
	uint32_t qpn = be32toh(be_word) >> 8;

	/* a doorbell on another context's UAR names no QP of this one */
	if (qpn >= EMU_DB_MAX_QPN ||
	    atomic_load_explicit(&qp_owner[qpn], memory_order_relaxed) != ctx_index(ctx) + 1)
		return;
	emu_db_ring_qpn(qpn);
	emu_engine_kick();
}

static void cq_doorbell(struct emu_ctx *ctx, uint64_t be_db)
{
	uint64_t db = be64toh(be_db);
	uint32_t cqn = (uint32_t)(db >> 32) & 0xffffff;

	if (cqn >= EMU_MAX_CQ)
		return;
	atomic_store(&cq_arm[cqn], (db & 0xffffffff00ffffffull) |
				   (uint64_t)(ctx_index(ctx) + 1) << 24);
	bit_set(cq_rung, cq_rung_sum, cqn);
	emu_engine_kick();
}

void emu_db_uar_store(struct emu_ctx *ctx, uint32_t off, const uint8_t *value,
		      uint32_t len)
{
	uint32_t end = off + len;

	if (off >= sizeof(ctx->uar_shadow) || end > sizeof(ctx->uar_shadow))
		return;	/* no register there */
	/* Registers are write-only; a register acts when its last byte is
	 * written (one store, or the last of several narrower ones). */
	memcpy(ctx->uar_shadow + off, value, len);
	if (off <= 0x17 && end > 0x17) {
		uint32_t w;

		memcpy(&w, ctx->uar_shadow + 0x14, 4);
		send_doorbell(ctx, w);
	}
	if (off <= 0x27 && end > 0x27) {
		uint64_t d;

		memcpy(&d, ctx->uar_shadow + 0x20, 8);
		cq_doorbell(ctx, d);
	}
}

static uint64_t granules(uint32_t off, uint32_t len)
{
	uint64_t m = 0;

	/* a 4-byte granule counts as written when its last byte is */
	for (uint32_t g = off / 4; g < 64 && g * 4 + 3 < off + len; g++)
		if (g * 4 + 3 >= off)
			m |= 1ull << g;
	return m;
}

static void bf_publish(struct emu_ctx *ctx, unsigned h, uint32_t size)
{
	struct emu_bf_post *p = &ctx->bf_post[h];
	const struct emu_bf_asm *a = &ctx->bf_asm[h];
	uint32_t word1;
	unsigned s = atomic_load_explicit(&p->seq, memory_order_relaxed);

	atomic_store_explicit(&p->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	memcpy(p->wqe, a->buf, size);
	p->size = size;
	atomic_store_explicit(&p->seq, s + 2, memory_order_release);
	atomic_fetch_add_explicit(&emu_dev.ctr.bf_wqes, 1, memory_order_relaxed);
	memcpy(&word1, a->buf + 4, 4);
	send_doorbell(ctx, word1);
}

void emu_db_bf_store(struct emu_ctx *ctx, uint32_t off, const uint8_t *value,
		     uint32_t len)
{
	unsigned h = off / EMU_BF_HALF_BYTES;
	uint32_t o = off % EMU_BF_HALF_BYTES, size;
	struct emu_bf_asm *a;
	uint64_t need;

	if (h >= EMU_BF_HALVES || o + len > EMU_BF_HALF_BYTES)
		return;
	a = &ctx->bf_asm[h];
	if (o == 0) {
		a->assembling = true;
		a->covered = 0;
	}
	if (!a->assembling)
		return;	/* the tail of a 64-byte burst past the post */
	memcpy(a->buf + o, value, len);
	a->covered |= granules(o, len);
	if ((a->covered & 3) != 3)
		return;
	size = (a->buf[7] & 0x3fu) * 16;
	if (!size || size > EMU_BF_HALF_BYTES) {
		a->assembling = false;
		return;
	}
	need = size >= 256 ? ~0ull : (1ull << (size / 4)) - 1;
	if ((a->covered & need) != need)
		return;
	a->assembling = false;
	bf_publish(ctx, h, size);
}

int emu_db_bf_take(struct emu_ctx *ctx, uint32_t qpn, uint16_t counter, uint8_t *dst)
{
	for (unsigned h = 0; h < EMU_BF_HALVES; h++) {
		struct emu_bf_post *p = &ctx->bf_post[h];
		unsigned s = atomic_load_explicit(&p->seq, memory_order_acquire);
		uint32_t w0, w1, size;

		if (!s || s == ctx->bf_post_taken[h])
			continue;
		if (s & 1)
			return -1;
		size = p->size;
		if (size > EMU_BF_HALF_BYTES)
			continue;
		memcpy(dst, p->wqe, size);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&p->seq, memory_order_relaxed) != s)
			return -1;
		memcpy(&w0, dst, 4);
		memcpy(&w1, dst + 4, 4);
		if ((be32toh(w1) >> 8) != qpn || ((be32toh(w0) >> 8) & 0xffff) != counter)
			continue;
		ctx->bf_post_taken[h] = s;
		return (int)size;
	}
	return 0;
}
