// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD between adapters: BTH (SEND_ONLY or SEND_ONLY_WITH_IMMEDIATE, P_Key
 * 0xffff), DETH (Q_Key, source QPN), [ImmDt], payload.  The receiver
 * rebuilds what its CQE and GRH area need from the packet and the
 * sender's address.
 */
#include "transport/ud.h"

#include <sys/uio.h>

#include "adapter/objects.h"
#include "base/config.h"
#include "wire/identity.h"

void emu_ud_send_remote(struct emu_qp *qp, uint32_t addr, uint32_t dqpn,
			const struct emu_ud_msg *m)
{
	const struct emu_gather *g = m->payload;
	uint8_t hdr[EMU_BTH_BYTES + EMU_DETH_BYTES + EMU_IMMDT_BYTES];
	struct iovec iov[EMU_MAX_CHUNKS];
	struct emu_bth bth = {
		.opcode = EMU_TR_UD | (m->has_imm ? EMU_BOP_SEND_ONLY_IMM : EMU_BOP_SEND_ONLY),
		.se = m->solicited,
		.pad = (uint8_t)((4 - (g->total & 3)) & 3),
		.pkey = EMU_DEFAULT_PKEY,
		.dest_qpn = dqpn,
		.psn = qp->sq_psn,
	};
	size_t n = EMU_BTH_BYTES + EMU_DETH_BYTES;

	qp->sq_psn = (qp->sq_psn + 1) & 0xffffff;
	emu_bth_put(hdr, &bth);
	emu_put_be32(hdr + EMU_BTH_BYTES, m->qkey);
	emu_put_be32(hdr + EMU_BTH_BYTES + 4, qp->qpn & 0xffffff);
	if (m->has_imm) {
		memcpy(hdr + n, &m->imm_raw, 4);
		n += 4;
	}
	for (uint32_t i = 0; i < g->n; i++)
		iov[i] = (struct iovec){ (void *)g->c[i].p, g->c[i].len };
	emu_link_queue(qp->port ? qp->port : 1, addr, hdr, n, iov, (int)g->n);
}

/* fe80::<EUI-64 of 02:c9:addr>: the sender's GID 0 on Ethernet. */
static void link_local_gid(uint32_t addr, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = 0x00;
	gid[9] = 0xc9;
	gid[10] = (uint8_t)(addr >> 24);
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = (uint8_t)(addr >> 16);
	gid[14] = (uint8_t)(addr >> 8);
	gid[15] = (uint8_t)addr;
}

void emu_ud_receive(const struct emu_rx *rx, const struct emu_bth *bth)
{
	bool eth = emu_cfg.link_layer[rx->port - 1] == EMU_LL_ETH;
	bool imm = (bth->opcode & 0x1f) == EMU_BOP_SEND_ONLY_IMM;
	size_t hl = EMU_BTH_BYTES + EMU_DETH_BYTES + (imm ? EMU_IMMDT_BYTES : 0);
	struct emu_gather g = { 0 };
	struct emu_ud_msg m = { 0 };
	struct emu_qp *d = emu_qp_by_qpn(bth->dest_qpn);
	bool v2;

	if (!d || rx->len < hl + bth->pad)
		return;
	m.port = (uint8_t)rx->port;
	m.qkey = emu_get_be32(rx->pkt + EMU_BTH_BYTES);
	m.src_qpn = emu_get_be32(rx->pkt + EMU_BTH_BYTES + 4) & 0xffffff;
	m.has_imm = imm;
	if (imm)
		memcpy(&m.imm_raw, rx->pkt + EMU_BTH_BYTES + EMU_DETH_BYTES, 4);
	m.solicited = bth->se;
	m.slid = eth ? 0 : (uint16_t)(rx->src & 0xffff);
	/* RoCEv2 carries no GRH: an Ethernet port's receive buffer gets one
	 * rebuilt from the IP addresses (GID 0 of either side) */
	m.grh = eth;
	m.hop_limit = 64;
	link_local_gid(rx->src, m.sgid);
	emu_port_gid_entry(rx->port, 0, m.dgid, &v2);
	emu_gather_add(&g, rx->pkt + hl, (uint32_t)(rx->len - hl - bth->pad));
	m.payload = &g;
	emu_ud_deliver(d, &m);
}
