// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* XRC packets between adapters (see xrc_wire.h). */
#include "transport/xrc_wire.h"

#include "adapter/xrc.h"

/* READ responses, ACK and atomic ACK: what a responder sends. */
static bool is_response(uint8_t bop)
{
	return bop >= EMU_BOP_READ_RESP_FIRST && bop <= EMU_BOP_ATOMIC_ACK;
}

size_t emu_xrc_wire_out(const struct emu_qp *qp, uint32_t srqn, uint8_t *opcode,
			uint8_t *after_bth)
{
	uint8_t bop = *opcode & 0x1f;

	if (qp->type != EMU_QPT_XRC_INI && qp->type != EMU_QPT_XRC_TGT)
		return 0;
	*opcode = (uint8_t)(EMU_TR_XRC | bop);
	if (is_response(bop))
		return 0;
	emu_put_be32(after_bth, srqn & 0xffffff);
	return EMU_XRCETH_BYTES;
}

uint8_t emu_wire_qp_type(uint8_t opcode)
{
	switch (opcode & 0xe0) {
	case EMU_TR_UC:
		return EMU_QPT_UC;
	case EMU_TR_XRC:
		return is_response(opcode & 0x1f) ? EMU_QPT_XRC_INI : EMU_QPT_XRC_TGT;
	default:
		return EMU_QPT_RC;
	}
}

bool emu_xrc_wire_bind(struct emu_qp *tgt, const uint8_t *pkt,
		       const struct emu_ext_layout *l)
{
	return l->xrceth && emu_xrc_bind(tgt, emu_get_be32(pkt + l->xrceth) & 0xffffff);
}
