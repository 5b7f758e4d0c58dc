// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * x86-64 store decoding (Intel SDM vol. 2: legacy prefixes, REX, VEX,
 * ModRM/SIB).  Only the instruction's length, width and source operand are
 * needed: the address is the fault's si_addr.
 */
#include "os/store_decode.h"

#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__)

/* ModRM register number (0..15, with REX.R/B) -> glibc gregs index */
static const int greg_of[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

struct insn {
	const uint8_t *p;	/* next byte */
	unsigned opsize16, rep_f3, rep_f2, rex, vex, vex_l, vex_pp, vex_w, vex_r;
};

/* Bytes of ModRM + SIB + displacement starting at p; -1 for a register
 * operand (not a store to memory). */
static int modrm_len(const uint8_t *p)
{
	unsigned mod = p[0] >> 6, rm = p[0] & 7;
	int n = 1;

	if (mod == 3)
		return -1;
	if (rm == 4) {
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			return n + 4;
	}
	if (mod == 0 && rm == 5)
		return n + 4;	/* RIP-relative */
	return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

static unsigned reg_field(const struct insn *in, uint8_t modrm)
{
	unsigned r = (modrm >> 3) & 7;

	if (in->vex)
		return r | (in->vex_r ? 8 : 0);
	return r | ((in->rex & 4) ? 8 : 0);
}

static void greg_bytes(const ucontext_t *uc, unsigned reg, unsigned width,
		       bool legacy_high8, uint8_t *out)
{
	uint64_t v;

	if (legacy_high8) {
		/* AH, CH, DH, BH without REX */
		v = (uint64_t)uc->uc_mcontext.gregs[greg_of[reg - 4]] >> 8;
	} else {
		v = (uint64_t)uc->uc_mcontext.gregs[greg_of[reg]];
	}
	memcpy(out, &v, width);	/* little-endian: low bytes first */
}

/* Upper 128 bits of ymm<reg> from the XSAVE area of the signal frame;
 * false when the frame has none (then they are not known). */
static bool ymm_high(const ucontext_t *uc, unsigned reg, uint8_t *out)
{
	const uint8_t *fx = (const uint8_t *)uc->uc_mcontext.fpregs;
	uint32_t magic;
	uint64_t xstate_bv;

	if (!fx)
		return false;
	/* struct _fpx_sw_bytes at offset 464 of the FXSAVE image */
	memcpy(&magic, fx + 464, 4);
	if (magic != 0x46505853u)
		return false;
	memcpy(&xstate_bv, fx + 512, 8);
	if (!(xstate_bv & 4)) {
		memset(out, 0, 16);	/* AVX state in its initial (zero) form */
		return true;
	}
	memcpy(out, fx + 576 + 16 * reg, 16);
	return true;
}

static bool xmm_bytes(const ucontext_t *uc, unsigned reg, unsigned width,
		      unsigned from, uint8_t *out)
{
	const uint8_t *x;

	if (!uc->uc_mcontext.fpregs)
		return false;
	x = (const uint8_t *)&uc->uc_mcontext.fpregs->_xmm[reg];
	if (width <= 16) {
		memcpy(out, x + from, width);
		return true;
	}
	memcpy(out, x, 16);
	return ymm_high(uc, reg, out + 16);
}

static int prefixes(struct insn *in)
{
	for (int i = 0; i < 14; i++) {
		uint8_t b = *in->p;

		if (b == 0x66)
			in->opsize16 = 1;
		else if (b == 0xf3)
			in->rep_f3 = 1;
		else if (b == 0xf2)
			in->rep_f2 = 1;
		else if (b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 ||
			 b == 0x64 || b == 0x65 || b == 0x67)
			;
		else
			break;
		in->p++;
	}
	if ((*in->p & 0xf0) == 0x40)
		in->rex = *in->p++;
	if (!in->rex && (*in->p == 0xc5 || *in->p == 0xc4)) {
		in->vex = 1;
		if (*in->p == 0xc5) {
			in->vex_r = !(in->p[1] & 0x80);
			in->vex_l = (in->p[1] >> 2) & 1;
			in->vex_pp = in->p[1] & 3;
			in->p += 2;
		} else {
			if ((in->p[1] & 0x1f) != 1)
				return -1;	/* only the 0f map */
			in->vex_r = !(in->p[1] & 0x80);
			in->vex_w = in->p[2] >> 7;
			in->vex_l = (in->p[2] >> 2) & 1;
			in->vex_pp = in->p[2] & 3;
			in->p += 3;
		}
	}
	return 0;
}

/* One-byte-map stores: mov, xchg. */
static int decode_legacy(const ucontext_t *uc, struct insn *in, struct emu_store *st)
{
	uint8_t op = *in->p++;
	int m = modrm_len(in->p);
	unsigned w = (in->rex & 8) ? 8 : in->opsize16 ? 2 : 4;
	unsigned reg;

	if (m < 0)
		return -1;
	reg = reg_field(in, in->p[0]);
	switch (op) {
	case 0x88:
		st->width = 1;
		greg_bytes(uc, reg, 1, !in->rex && reg >= 4 && reg < 8, st->value);
		break;
	case 0x89:
	case 0x87:
		st->width = (uint8_t)w;
		greg_bytes(uc, reg, w, false, st->value);
		if (op == 0x87)
			st->xchg_reg = greg_of[reg];
		break;
	case 0xc6:
		if ((in->p[0] >> 3) & 7)
			return -1;
		st->width = 1;
		st->value[0] = in->p[m];
		m += 1;
		break;
	case 0xc7: {
		int64_t imm;
		int32_t i32;
		int16_t i16;

		if ((in->p[0] >> 3) & 7)
			return -1;
		st->width = (uint8_t)w;
		if (w == 2) {
			memcpy(&i16, in->p + m, 2);
			imm = i16;
			m += 2;
		} else {
			memcpy(&i32, in->p + m, 4);
			imm = i32;	/* sign-extended to 64 bits with REX.W */
			m += 4;
		}
		memcpy(st->value, &imm, w);
		break;
	}
	default:
		return -1;
	}
	in->p += m;
	return 0;
}

/* Two-byte-map (0f) stores, legacy SSE or VEX encoded. */
static int decode_0f(const ucontext_t *uc, struct insn *in, struct emu_store *st)
{
	uint8_t op = *in->p++;
	int m = modrm_len(in->p);
	/* mandatory prefix: 0 none, 1 66, 2 f3, 3 f2 (VEX pp) */
	unsigned pp = in->vex ? in->vex_pp : in->rep_f3 ? 2 : in->rep_f2 ? 3 :
		      in->opsize16 ? 1 : 0;
	unsigned vec = in->vex && in->vex_l ? 32 : 16;
	bool wide = in->vex ? in->vex_w : (in->rex & 8) != 0;
	unsigned reg, width, from = 0;
	bool xmm = true;

	if (m < 0)
		return -1;
	reg = reg_field(in, in->p[0]);
	switch (op) {
	case 0xc3:	/* movnti */
		if (in->vex || pp)
			return -1;
		width = wide ? 8 : 4;
		xmm = false;
		break;
	case 0x11:
		width = pp == 2 ? 4 : pp == 3 ? 8 : vec;
		break;
	case 0x29:
	case 0x2b:
		if (pp > 1)
			return -1;
		width = vec;
		break;
	case 0x7f:
		if (pp != 1 && pp != 2)
			return -1;
		width = vec;
		break;
	case 0xe7:
		if (pp != 1)
			return -1;
		width = vec;
		break;
	case 0xd6:
		if (pp != 1)
			return -1;
		width = 8;
		break;
	case 0x7e:
		if (pp != 1)
			return -1;
		width = wide ? 8 : 4;
		break;
	case 0x13:
	case 0x17:
		if (pp > 1)
			return -1;
		width = 8;
		from = op == 0x17 ? 8 : 0;
		break;
	default:
		return -1;
	}
	if (width > 16 && !in->vex)
		return -1;
	st->width = (uint8_t)width;
	if (xmm) {
		if (!xmm_bytes(uc, reg, width, from, st->value))
			return -1;
	} else {
		greg_bytes(uc, reg, width, false, st->value);
	}
	in->p += m;
	return 0;
}

int emu_decode_store(const ucontext_t *uc, struct emu_store *st)
{
	const uint8_t *ip = (const uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
	struct insn in = { .p = ip };
	int err;

	memset(st, 0, sizeof(*st));
	st->xchg_reg = -1;
	if (prefixes(&in))
		return -1;
	if (in.vex)
		err = decode_0f(uc, &in, st);
	else if (*in.p == 0x0f) {
		in.p++;
		err = decode_0f(uc, &in, st);
	} else
		err = decode_legacy(uc, &in, st);
	if (err)
		return -1;
	st->insn_len = (uint8_t)(in.p - ip);
	return 0;
}

#else

int emu_decode_store(const ucontext_t *uc, struct emu_store *st)
{
	(void)uc;
	(void)st;
	return -1;
}

#endif
