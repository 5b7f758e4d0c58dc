// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD between adapters: BTH (SEND_ONLY or SEND_ONLY_WITH_IMMEDIATE, P_Key
 * 0xffff), DETH (Q_Key, source QPN), [ImmDt], payload.  The receiver
 * rebuilds what its CQE and GRH area need from the packet and the
 * sender's address.
 *
 * A datagram to a multicast group is flooded to the wire segment's ports
 * of the sender's link layer as the frame a ConnectX-3 puts on an
 * Ethernet wire for it, a RoCE v1 frame: Ethernet header (destination the
 * group's MAC, 33:33:<MGID bytes 12..15>, or 01:00:5e:<low 23 bits> for an
 * IPv4-mapped MGID; type 0x8915), GRH (SGID the sender's GID, DGID the
 * MGID, next header 0x1b), BTH (DestQP 0xffffff), DETH, [ImmDt], payload,
 * pad, ICRC, in the VXLAN tunnel (wire/vxlan.h).  On an InfiniBand port
 * the Ethernet header stands for the LRH.  Each receiving adapter gives
 * one copy to every QP of its port attached to the group.
 */
#include "transport/ud.h"

#include <errno.h>
#include <sys/uio.h>

#include "adapter/mcast.h"

#include "adapter/objects.h"
#include "base/config.h"
#include "transport/datagram_credits.h"
#include "transport/flood.h"
#include "wire/icrc.h"
#include "wire/identity.h"
#include "wire/rcvbuf.h"

int emu_ud_send_remote(struct emu_qp *qp, uint32_t addr, uint32_t dqpn,
		       const struct emu_ud_msg *m)
{
	unsigned port = qp->attr.port ? qp->attr.port : 1;
	const struct emu_gather *g = m->payload;
	uint8_t hdr[EMU_BTH_BYTES + EMU_DETH_BYTES + EMU_IMMDT_BYTES];
	struct iovec iov[EMU_MAX_CHUNKS];
	struct emu_bth bth = {
		.opcode = EMU_TR_UD | (m->has_imm ? EMU_BOP_SEND_ONLY_IMM : EMU_BOP_SEND_ONLY),
		.se = m->solicited,
		.pad = (uint8_t)((4 - (g->total & 3)) & 3),
		.pkey = EMU_DEFAULT_PKEY,
		.dest_qpn = dqpn,
		.psn = qp->attr.sq_psn,
	};
	size_t n = EMU_BTH_BYTES + EMU_DETH_BYTES + (m->has_imm ? EMU_IMMDT_BYTES : 0);

	int paced = emu_dgram_paced(bth.opcode, dqpn) ?
		emu_dgram_credits_take(port, addr,
				       emu_link_truesize(n + g->total + bth.pad + EMU_ICRC_BYTES),
				       qp->qpn) : 0;

	if (paced == EAGAIN)
		return EAGAIN;
	qp->attr.sq_psn = (qp->attr.sq_psn + 1) & 0xffffff;
	if (paced == EHOSTUNREACH) {
		/* the peer drains nothing: lost on the way, counted */
		emu_link_count_discarded(port, 1);
		return 0;
	}
	emu_bth_put(hdr, &bth);
	emu_put_be32(hdr + EMU_BTH_BYTES, m->qkey);
	emu_put_be32(hdr + EMU_BTH_BYTES + 4, qp->qpn & 0xffffff);
	if (m->has_imm)
		memcpy(hdr + EMU_BTH_BYTES + EMU_DETH_BYTES, &m->imm_raw, 4);
	for (uint32_t i = 0; i < g->n; i++)
		iov[i] = (struct iovec){ (void *)g->c[i].p, g->c[i].len };
	emu_link_queue(port, addr, hdr, n, iov, (int)g->n);
	return 0;
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

	if (!d || rx->len < hl + bth->pad) {
		emu_link_count_refused(rx->port);
		return;
	}
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
	if (emu_ud_deliver(d, &m) == EMU_UD_NOT_FOR_QP)
		emu_link_count_refused(rx->port);
}

#define ROCE_V1_ETHERTYPE 0x8915
#define ETH_HDR 14
#define MCAST_HDRS (ETH_HDR + EMU_GRH_BYTES + EMU_BTH_BYTES + EMU_DETH_BYTES)

/* The Ethernet MAC of a multicast GID (the kernel's rdma_get_mcast_mac,
 * ip_eth_mc_map for an IPv4-mapped one). */
static void group_mac(const uint8_t gid[16], uint8_t mac[6])
{
	static const uint8_t v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (!memcmp(gid, v4_mapped, 12)) {
		mac[0] = 0x01;
		mac[1] = 0x00;
		mac[2] = 0x5e;
		mac[3] = gid[13] & 0x7f;
	} else {
		mac[0] = mac[1] = 0x33;
		mac[2] = gid[12];
		mac[3] = gid[13];
	}
	mac[4] = gid[14];
	mac[5] = gid[15];
}

void emu_ud_mcast_send_remote(struct emu_qp *qp, const struct emu_ud_msg *m)
{
	static uint8_t f[MCAST_HDRS + EMU_IMMDT_BYTES + 4096 + 3 + EMU_ICRC_BYTES];
	unsigned port = qp->attr.port ? qp->attr.port : 1;
	const struct emu_gather *g = m->payload;
	size_t n = ETH_HDR, bth_at;
	struct emu_bth bth = {
		.opcode = EMU_TR_UD | (m->has_imm ? EMU_BOP_SEND_ONLY_IMM : EMU_BOP_SEND_ONLY),
		.se = m->solicited,
		.pad = (uint8_t)((4 - (g->total & 3)) & 3),
		.pkey = EMU_DEFAULT_PKEY,
		.dest_qpn = EMU_MCAST_QPN,
		.psn = qp->attr.sq_psn,
	};
	uint32_t crc;
	uint16_t paylen;

	if (g->total > 4096)
		return;
	qp->attr.sq_psn = (qp->attr.sq_psn + 1) & 0xffffff;
	group_mac(m->dgid, f);
	emu_port_mac(port, f + 6);
	emu_put_be16(f + 12, ROCE_V1_ETHERTYPE);
	paylen = (uint16_t)(EMU_BTH_BYTES + EMU_DETH_BYTES + (m->has_imm ? EMU_IMMDT_BYTES : 0) +
			    g->total + bth.pad + EMU_ICRC_BYTES);
	emu_put_be32(f + n, 0x60000000u | (m->tclass_flow & 0x0fffffff));
	emu_put_be16(f + n + 4, paylen);
	f[n + 6] = 0x1b;	/* next header: BTH */
	f[n + 7] = m->hop_limit;
	memcpy(f + n + 8, m->sgid, 16);
	memcpy(f + n + 24, m->dgid, 16);
	n += EMU_GRH_BYTES;
	bth_at = n;
	emu_bth_put(f + n, &bth);
	n += EMU_BTH_BYTES;
	emu_put_be32(f + n, m->qkey);
	emu_put_be32(f + n + 4, qp->qpn & 0xffffff);
	n += EMU_DETH_BYTES;
	if (m->has_imm) {
		memcpy(f + n, &m->imm_raw, 4);
		n += 4;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		memcpy(f + n, g->c[i].p, g->c[i].len);
		n += g->c[i].len;
	}
	memset(f + n, 0, bth.pad);
	n += bth.pad;
	crc = emu_icrc_begin_grh(f + ETH_HDR, f + bth_at);
	crc = emu_icrc_update(crc, f + bth_at + EMU_BTH_BYTES, n - bth_at - EMU_BTH_BYTES);
	emu_icrc_final(crc, f + n);
	emu_flood(port, f, n + EMU_ICRC_BYTES);
}

static void deliver_copy(void *arg, struct emu_qp *d)
{
	(void)emu_ud_deliver(d, arg);
}

bool emu_ud_mcast_receive(unsigned port, uint32_t src, const uint8_t *f, size_t len)
{
	const uint8_t *grh = f + ETH_HDR, *p = grh + EMU_GRH_BYTES;
	struct emu_gather g = { 0 };
	struct emu_ud_msg m = { 0 };
	struct emu_bth bth;
	uint8_t icrc[4];
	uint32_t crc;
	size_t hl, paylen;

	if (len < MCAST_HDRS + EMU_ICRC_BYTES || emu_get_be16(f + 12) != ROCE_V1_ETHERTYPE)
		return false;
	paylen = emu_get_be16(grh + 4);
	emu_bth_get(p, &bth);
	hl = EMU_BTH_BYTES + EMU_DETH_BYTES +
	     ((bth.opcode & 0x1f) == EMU_BOP_SEND_ONLY_IMM ? EMU_IMMDT_BYTES : 0);
	if ((grh[0] >> 4) != 6 || grh[6] != 0x1b || !emu_gid_is_multicast(grh + 24) ||
	    ETH_HDR + EMU_GRH_BYTES + paylen != len || paylen < hl + bth.pad + EMU_ICRC_BYTES ||
	    (bth.opcode != (EMU_TR_UD | EMU_BOP_SEND_ONLY) &&
	     bth.opcode != (EMU_TR_UD | EMU_BOP_SEND_ONLY_IMM)) ||
	    bth.dest_qpn != EMU_MCAST_QPN || bth.pkey != EMU_DEFAULT_PKEY)
		return false;
	crc = emu_icrc_begin_grh(grh, p);
	crc = emu_icrc_update(crc, p + EMU_BTH_BYTES, paylen - EMU_BTH_BYTES - EMU_ICRC_BYTES);
	emu_icrc_final(crc, icrc);
	if (memcmp(icrc, f + len - EMU_ICRC_BYTES, 4))
		return false;
	m.port = (uint8_t)port;
	m.qkey = emu_get_be32(p + EMU_BTH_BYTES);
	m.src_qpn = emu_get_be32(p + EMU_BTH_BYTES + 4) & 0xffffff;
	m.has_imm = hl > EMU_BTH_BYTES + EMU_DETH_BYTES;
	if (m.has_imm)
		memcpy(&m.imm_raw, p + EMU_BTH_BYTES + EMU_DETH_BYTES, 4);
	m.solicited = bth.se;
	m.slid = emu_cfg.link_layer[port - 1] == EMU_LL_ETH ? 0 : (uint16_t)(src & 0xffff);
	m.grh = true;
	m.tclass_flow = emu_get_be32(grh) & 0x0fffffff;
	m.hop_limit = grh[7];
	memcpy(m.sgid, grh + 8, 16);
	memcpy(m.dgid, grh + 24, 16);
	emu_gather_add(&g, p + hl, (uint32_t)(paylen - hl - bth.pad - EMU_ICRC_BYTES));
	m.payload = &g;
	emu_mcast_fanout(m.dgid, NULL, deliver_copy, &m);
	return true;
}
