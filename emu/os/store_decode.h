/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Decoding of the x86-64 instruction that faulted on a store to a
 * write-trapped device page (UAR, BlueFlame), from the signal frame.
 *
 * Understood (legacy, REX and VEX-128/256 encodings; memory destination):
 *   mov r/m8/16/32/64 <- reg (88, 89) or immediate (c6 /0, c7 /0),
 *   xchg r/m16/32/64, reg (87; the register gets 0, what a write-only
 *   register reads back), movnti (0f c3),
 *   movups/movupd/movaps/movapd/movntps/movntpd (0f 11/29/2b),
 *   movdqa/movdqu/movntdq (66|f3 0f 7f, 66 0f e7), movss/movsd (f3|f2 0f 11),
 *   movq xmm (66 0f d6), movd/movq from xmm (66 [REX.W] 0f 7e),
 *   movlps/movlpd/movhps/movhpd (0f 13/17).
 * These are the forms compilers emit for volatile and atomic stores and
 * for 64-bit/SSE copies (rdma-core util/mmio.h, <infiniband/mlx4dv.h>,
 * DPDK rte_write32).  Anything else (string moves, EVEX, MMX, locked
 * read-modify-write) is reported as unknown.
 */
#ifndef MLX4EMU_STORE_DECODE_H
#define MLX4EMU_STORE_DECODE_H

#include <stdint.h>
#include <ucontext.h>

struct emu_store {
	uint8_t insn_len;	/* bytes to skip to resume after the store */
	uint8_t width;		/* bytes stored: 1, 2, 4, 8, 16 or 32 */
	uint8_t value[32];	/* the stored bytes, in memory order */
	int xchg_reg;		/* general register to clear (xchg), or -1 */
};

/* 0, or -1 when the instruction at the fault's RIP is not a known store. */
int emu_decode_store(const ucontext_t *uc, struct emu_store *st);

#endif
