// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Receive completions of the responder side (see responder.h). */
#include "adapter/responder.h"

#include "adapter/cq.h"
#include "adapter/objects.h"
#include "adapter/xrc.h"

void emu_recv_cqe(const struct emu_rwqe *w, uint8_t opcode, uint32_t imm_raw,
		  uint64_t len, uint32_t src_qpn, uint32_t g_ml, uint16_t sl_vid,
		  uint16_t slid, uint32_t status, bool solicited)
{
	struct emu_cqe c;

	/* an XRC SRQ's CQE names the SRQ where others name the source QP
	 * (libmlx4 cq.c, mlx4_ib cq.c: srq_num = g_mlpath_rqpn & 0xffffff) */
	if (w->xrc_srqn)
		src_qpn = w->xrc_srqn;
	memset(&c, 0, sizeof(c));
	c.vlan_my_qpn = htobe32(emu_qp_number(w->qp));
	c.immed_rss_invalid = imm_raw;
	c.g_mlpath_rqpn = htobe32((src_qpn & 0xffffff) | g_ml);
	c.sl_vid = htobe16(sl_vid);
	c.rlid = htobe16(slid);
	c.status = htobe32(status);
	c.byte_cnt = htobe32((uint32_t)len);
	c.wqe_index = htobe16(w->wqe_index);
	emu_cqe_write(w->cq, &c, opcode, solicited);
}

void emu_recv_error_cqe(const struct emu_rwqe *w, uint8_t syndrome)
{
	if (w->xrc_srqn)
		emu_cqe_write_xrc_recv_error(w->cq, emu_qp_number(w->qp), w->xrc_srqn,
					     w->wqe_index, syndrome);
	else
		emu_cqe_write_error(w->cq, w->qp->qpn, false, w->wqe_index, syndrome, 0);
	emu_qp_set_error(w->qp);
}

uint16_t emu_sl_field(const struct emu_qp *d, uint8_t sl)
{
	bool eth = d->attr.port >= 1 && d->attr.port <= emu_cfg.ports &&
		   emu_cfg.link_layer[d->attr.port - 1] == EMU_LL_ETH;

	return (uint16_t)(eth ? (sl & 7) << 13 : (sl & 15) << 12);
}

uint8_t *emu_rkey_map(const struct emu_qp *d, uint32_t rkey, uint64_t va, uint64_t len,
		      uint32_t need)
{
	struct emu_key *k = emu_key_lookup(rkey);

	if (!k || k->kind == EMU_KEY_FREE || k->pdn != emu_responder_pdn(d) ||
	    !(k->access & need) ||
	    (k->kind == EMU_KEY_MW2 && k->bind_qpn != d->qpn))
		return NULL;
	return emu_key_map(k, va, len ? len : 1);
}

void emu_invalidate_rkey(const struct emu_qp *d, uint32_t rkey)
{
	struct emu_key *k = emu_key_lookup(rkey);

	if (k && k->kind == EMU_KEY_MW2 && k->pdn == emu_responder_pdn(d))
		k->valid = false;
}

/* Fetch-and-add where set mask bits end a field: no carry out of them. */
static uint64_t masked_add(uint64_t a, uint64_t b, uint64_t field_ends)
{
	uint64_t r = 0, carry = 0;

	for (int i = 0; i < 64; i++) {
		uint64_t s = ((a >> i) & 1) + ((b >> i) & 1) + carry;

		r |= (s & 1) << i;
		carry = (field_ends >> i) & 1 ? 0 : s >> 1;
	}
	return r;
}

uint64_t emu_atomic_apply(uint8_t opcode, uint8_t *p, const uint64_t operand[4])
{
	uint64_t old, val;

	memcpy(&old, p, 8);
	switch (opcode) {
	case EMU_OP_ATOMIC_CS:
		val = old == operand[1] ? operand[0] : old;
		break;
	case EMU_OP_ATOMIC_FA:
		val = old + operand[0];
		break;
	case EMU_OP_MASKED_ATOMIC_CS:
		val = ((old ^ operand[1]) & operand[3]) ? old :
		      (old & ~operand[2]) | (operand[0] & operand[2]);
		break;
	default:
		val = masked_add(old, operand[0], operand[1]);
		break;
	}
	memcpy(p, &val, 8);
	return old;
}
