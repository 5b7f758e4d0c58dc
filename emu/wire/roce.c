// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Which extended headers follow the BTH, by opcode (IBTA Vol. 1 table 38,
 * 9.3), and their encoding (9.3.3 RETH, 9.3.5 AETH, 9.3.4 AtomicETH,
 * 9.3.6 AtomicAckETH, 9.3.8 IETH; all big-endian).  Headers that are
 * present appear in this order: DETH, RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH.
 */
#include "wire/roce.h"

void emu_reth_put(uint8_t *p, const struct emu_reth *r)
{
	emu_put_be64(p, r->va);
	emu_put_be32(p + 8, r->rkey);
	emu_put_be32(p + 12, r->len);
}

void emu_reth_get(const uint8_t *p, struct emu_reth *r)
{
	r->va = emu_get_be64(p);
	r->rkey = emu_get_be32(p + 8);
	r->len = emu_get_be32(p + 12);
}

void emu_aeth_put(uint8_t *p, uint8_t syndrome, uint32_t msn)
{
	emu_put_be32(p, (uint32_t)syndrome << 24 | (msn & 0xffffff));
}

void emu_aeth_get(const uint8_t *p, uint8_t *syndrome, uint32_t *msn)
{
	uint32_t v = emu_get_be32(p);

	*syndrome = (uint8_t)(v >> 24);
	*msn = v & 0xffffff;
}

void emu_atomic_eth_put(uint8_t *p, const struct emu_atomic_eth *a)
{
	emu_put_be64(p, a->va);
	emu_put_be32(p + 8, a->rkey);
	emu_put_be64(p + 12, a->swap_add);
	emu_put_be64(p + 20, a->compare);
}

void emu_atomic_eth_get(const uint8_t *p, struct emu_atomic_eth *a)
{
	a->va = emu_get_be64(p);
	a->rkey = emu_get_be32(p + 8);
	a->swap_add = emu_get_be64(p + 12);
	a->compare = emu_get_be64(p + 20);
}

void emu_atomic_ack_eth_put(uint8_t *p, uint64_t orig)
{
	emu_put_be64(p, orig);
}

uint64_t emu_atomic_ack_eth_get(const uint8_t *p)
{
	return emu_get_be64(p);
}

/* Header flags by RC/UC operation (the low 5 opcode bits). */
enum { H_RETH = 1, H_AETH = 2, H_ATOMIC = 4, H_ATOMIC_ACK = 8, H_IMM = 16, H_IETH = 32,
       H_RC_ONLY = 64, H_VALID = 128 };

static const uint8_t rc_uc_headers[32] = {
	[EMU_BOP_SEND_FIRST] = H_VALID,
	[EMU_BOP_SEND_MIDDLE] = H_VALID,
	[EMU_BOP_SEND_LAST] = H_VALID,
	[EMU_BOP_SEND_LAST_IMM] = H_VALID | H_IMM,
	[EMU_BOP_SEND_ONLY] = H_VALID,
	[EMU_BOP_SEND_ONLY_IMM] = H_VALID | H_IMM,
	[EMU_BOP_WRITE_FIRST] = H_VALID | H_RETH,
	[EMU_BOP_WRITE_MIDDLE] = H_VALID,
	[EMU_BOP_WRITE_LAST] = H_VALID,
	[EMU_BOP_WRITE_LAST_IMM] = H_VALID | H_IMM,
	[EMU_BOP_WRITE_ONLY] = H_VALID | H_RETH,
	[EMU_BOP_WRITE_ONLY_IMM] = H_VALID | H_RETH | H_IMM,
	[EMU_BOP_READ_REQUEST] = H_VALID | H_RC_ONLY | H_RETH,
	[EMU_BOP_READ_RESP_FIRST] = H_VALID | H_RC_ONLY | H_AETH,
	[EMU_BOP_READ_RESP_MIDDLE] = H_VALID | H_RC_ONLY,
	[EMU_BOP_READ_RESP_LAST] = H_VALID | H_RC_ONLY | H_AETH,
	[EMU_BOP_READ_RESP_ONLY] = H_VALID | H_RC_ONLY | H_AETH,
	[EMU_BOP_ACK] = H_VALID | H_RC_ONLY | H_AETH,
	[EMU_BOP_ATOMIC_ACK] = H_VALID | H_RC_ONLY | H_AETH | H_ATOMIC_ACK,
	[EMU_BOP_CMP_SWAP] = H_VALID | H_RC_ONLY | H_ATOMIC,
	[EMU_BOP_FETCH_ADD] = H_VALID | H_RC_ONLY | H_ATOMIC,
	[EMU_BOP_SEND_LAST_INV] = H_VALID | H_RC_ONLY | H_IETH,
	[EMU_BOP_SEND_ONLY_INV] = H_VALID | H_RC_ONLY | H_IETH,
};

static uint8_t place(struct emu_ext_layout *l, uint8_t bytes)
{
	uint8_t at = (uint8_t)(EMU_BTH_BYTES + l->len);

	l->len = (uint8_t)(l->len + bytes);
	return at;
}

bool emu_roce_layout(uint8_t opcode, struct emu_ext_layout *l)
{
	uint8_t tr = opcode & 0xe0, op = opcode & 0x1f, h;

	memset(l, 0, sizeof(*l));
	if (tr == EMU_TR_UD) {
		if (op != EMU_BOP_SEND_ONLY && op != EMU_BOP_SEND_ONLY_IMM)
			return false;
		l->deth = place(l, EMU_DETH_BYTES);
		if (op == EMU_BOP_SEND_ONLY_IMM)
			l->immdt = place(l, EMU_IMMDT_BYTES);
		return true;
	}
	if (tr != EMU_TR_RC && tr != EMU_TR_UC && tr != EMU_TR_XRC)
		return false;
	h = rc_uc_headers[op];
	if (!(h & H_VALID) || (tr == EMU_TR_UC && (h & H_RC_ONLY)))
		return false;
	/* XRC: the operations of RC; requests carry XRCETH first */
	if (tr == EMU_TR_XRC && !(op >= EMU_BOP_READ_RESP_FIRST && op <= EMU_BOP_ATOMIC_ACK))
		l->xrceth = place(l, EMU_XRCETH_BYTES);
	if (h & H_RETH)
		l->reth = place(l, EMU_RETH_BYTES);
	if (h & H_ATOMIC)
		l->atomic_eth = place(l, EMU_ATOMIC_ETH_BYTES);
	if (h & H_AETH)
		l->aeth = place(l, EMU_AETH_BYTES);
	if (h & H_ATOMIC_ACK)
		l->atomic_ack_eth = place(l, EMU_ATOMIC_ACK_ETH_BYTES);
	if (h & H_IMM)
		l->immdt = place(l, EMU_IMMDT_BYTES);
	if (h & H_IETH)
		l->ieth = place(l, EMU_IETH_BYTES);
	return true;
}
