// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Masked atomics posted by hand (libmlx4 has no verb for them). */
#include "misc.h"

#include <string.h>

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

/* ctrl, raddr, atomic segment (16 or 32 bytes), one data segment. */
static uint64_t masked_atomic(struct emu_pair *p, struct mlx4dv_qp *dq, uint32_t n,
			      uint8_t opcode, const uint64_t *seg)
{
	uint8_t *w = (uint8_t *)dq->buf.buf + dq->sq.offset +
		     ((n & (dq->sq.wqe_cnt - 1)) << dq->sq.wqe_shift);
	uint32_t aseg = opcode == 0x14 ? 32 : 16;
	uint64_t old;

	memset(w + 4, 0, 12);
	put_be64(w + 16, (uintptr_t)p->b.buf + 64);
	put_be32(w + 24, p->b.mr->rkey);
	put_be32(w + 28, 0);
	for (uint32_t i = 0; i < aseg / 8; i++)
		put_be64(w + 32 + 8 * i, seg[i]);
	put_be32(w + 32 + aseg + 4, p->a.mr->lkey);
	put_be64(w + 32 + aseg + 8, (uintptr_t)p->a.buf);
	put_be32(w + 32 + aseg, 8);
	w[7] = (uint8_t)((32 + aseg + 16) / 16);
	put_be32(w + 8, 3 << 2);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	put_be32(w, ((n & dq->sq.wqe_cnt) ? 1u << 31 : 0) | opcode);
	*(volatile uint32_t *)dq->sdb = dq->doorbell_qpn;
	emu_poll_one(p->a.scq, IBV_WC_SUCCESS);
	memcpy(&old, p->a.buf, 8);
	return old;
}

void test_masked_atomics(void **state)
{
	struct emu_pair p;
	struct mlx4dv_qp dq = { 0 };
	struct mlx4dv_obj obj;
	uint64_t v = 0x00ff00ff12345678ull, now;

	(void)state;
	emu_pair_open(&p, 32, 16, 64, 8192, MISC_ACCESS);
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = p.a.qp;
	obj.qp.out = &dq;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP), 0);
	memcpy(p.b.buf + 64, &v, 8);
	{
		/* masked compare-and-swap: compare only the low 32 bits, swap
		 * only the high 16 bits */
		const uint64_t cs[4] = { 0xabcd000000000000ull, 0x12345678ull,
					 0xffff000000000000ull, 0xffffffffull };

		assert_true(masked_atomic(&p, &dq, 0, 0x14, cs) == v);
		memcpy(&now, p.b.buf + 64, 8);
		assert_true(now == 0xabcd00ff12345678ull);
		v = now;
	}
	{
		/* compare fails: unchanged */
		const uint64_t cs[4] = { 0, 0x1, 0xffffffffffffffffull, 0xffull };

		assert_true(masked_atomic(&p, &dq, 1, 0x14, cs) == v);
		memcpy(&now, p.b.buf + 64, 8);
		assert_true(now == v);
	}
	{
		/* masked fetch-and-add on two 32-bit fields: bit 31 ends the low
		 * field, so its carry does not reach the high one */
		const uint64_t fa[4] = { 0x0000000100000001ull, 0x0000000080000000ull, 0, 0 };
		uint64_t start = 0x00000001ffffffffull;

		memcpy(p.b.buf + 64, &start, 8);
		assert_true(masked_atomic(&p, &dq, 2, 0x15, fa) == start);
		memcpy(&now, p.b.buf + 64, 8);
		assert_true(now == 0x0000000200000000ull);
	}
	emu_pair_close(&p);
}
