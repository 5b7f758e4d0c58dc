// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Receive completions of the responder side (see responder.h). */
#include "adapter/responder.h"

#include "adapter/cq.h"
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
	bool eth = d->port >= 1 && d->port <= emu_cfg.ports &&
		   emu_cfg.link_layer[d->port - 1] == EMU_LL_ETH;

	return (uint16_t)(eth ? (sl & 7) << 13 : (sl & 15) << 12);
}
